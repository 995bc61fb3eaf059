//! The best outcome each position's exits reach, kept from initialisation for the table writer.
//!
//! A WDL file of floors may store a worse outcome for a position whose exits reach its own value (the prober takes
//! the better of the two), so its writer asks, for many positions, what their exits reach; and it asks again when it
//! reads the file back. Initialisation looks at every exit of every position anyway: keeping what it saw costs two
//! bits an index and spares the writer from generating the moves again (KQRvKR's two files, on a 2-core Intel
//! Xeon: written in 3.5 s instead of 5.9).

use std::sync::atomic::{AtomicU64, Ordering};

use retro_game::Outcome;

use crate::mapped::{Backing, MappedArray};

/// Two bits an index: 0 a loss (no exit, or none better), 1 a draw, 2 a win.
pub struct BestExits {
    words: MappedArray<AtomicU64>,
    size: u64,
}

/// Indices per word.
pub(crate) const PER_WORD: u64 = 32;

impl BestExits {
    /// Every index a loss until [`record`](BestExits::record)ed otherwise.
    pub(crate) fn new(size: u64) -> std::io::Result<BestExits> {
        let words = usize::try_from(size.div_ceil(PER_WORD)).map_err(std::io::Error::other)?;
        Ok(BestExits {
            words: MappedArray::new(words, &Backing::Memory, "exits")?,
            size,
        })
    }

    /// The bytes kept for `size` indices.
    pub(crate) fn bytes(size: u64) -> u64 {
        size.div_ceil(PER_WORD) * 8
    }

    /// The bits that record `best` for `index` in its word (word `index / PER_WORD`).
    #[inline]
    pub(crate) fn bits(index: u64, best: Outcome) -> u64 {
        let code: u64 = match best {
            Outcome::Loss => 0,
            Outcome::Draw => 1,
            Outcome::Win => 2,
        };
        code << (2 * (index % PER_WORD))
    }

    /// Records the outcomes of `bits` ([`BestExits::bits`] of the word's indices, or-ed) in word `word`, each
    /// index once (initialisation visits each index once per width it tries, always with the same outcome).
    #[inline]
    pub(crate) fn record_word(&self, word: u64, bits: u64) {
        if bits != 0 {
            self.words.as_slice()[word as usize].fetch_or(bits, Ordering::Relaxed);
        }
    }

    /// The best outcome the exits of the position at `index` reach for its side to move (a loss for a hole, as
    /// [`retro_game::Game::best_exit`] says).
    #[inline]
    pub fn get(&self, index: u64) -> Outcome {
        debug_assert!(index < self.size);
        let word = self.words.as_slice()[(index / PER_WORD) as usize].load(Ordering::Relaxed);
        match (word >> (2 * (index % PER_WORD))) & 3 {
            0 => Outcome::Loss,
            1 => Outcome::Draw,
            _ => Outcome::Win,
        }
    }

    /// The number of indices.
    pub fn size(&self) -> u64 {
        self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_index_keeps_its_own_two_bits() {
        let exits = BestExits::new(100).unwrap();
        let outcome = |i: u64| match i % 3 {
            0 => Outcome::Loss,
            1 => Outcome::Draw,
            _ => Outcome::Win,
        };
        // One word's indices gathered, the others one by one.
        let first: u64 = (0..PER_WORD)
            .map(|i| BestExits::bits(i, outcome(i)))
            .fold(0, |a, b| a | b);
        exits.record_word(0, first);
        for i in PER_WORD..100 {
            exits.record_word(i / PER_WORD, BestExits::bits(i, outcome(i)));
        }
        // Recording again changes nothing.
        exits.record_word(0, BestExits::bits(31, outcome(31)));
        for i in 0..100 {
            assert_eq!(exits.get(i), outcome(i), "index {i}");
        }
        assert_eq!(BestExits::bytes(100), 32);
        assert_eq!(BestExits::bytes(64), 16);
    }
}
