//! A bit per index over memory-mapped atomic words: the positions with refuting exits ([`crate::kernel::Refuters`])
//! and the settled positions ([`crate::frontier::Settled`]).

use std::sync::atomic::{AtomicU64, Ordering};

use crate::mapped::{Backing, MappedArray};

/// One bit per index, 64 indices a word (index `i` is bit `i % 64` of word `i / 64`), set by many threads at once.
pub struct Bitmap {
    words: MappedArray<AtomicU64>,
}

impl Bitmap {
    /// A bitmap of `size` indices, all clear; `name` names its file in a work directory.
    pub fn new(size: u64, backing: &Backing, name: &str) -> std::io::Result<Bitmap> {
        let words = usize::try_from(size.div_ceil(64)).map_err(std::io::Error::other)?;
        Ok(Bitmap {
            words: MappedArray::new(words, backing, name)?,
        })
    }

    #[inline]
    pub fn mark(&self, index: u64) {
        self.mark_word(index / 64, 1 << (index % 64));
    }

    /// Marks the indices of the bits of `bits` in word `word` (index `64 * word + k` for bit `k`).
    #[inline]
    pub fn mark_word(&self, word: u64, bits: u64) {
        if bits != 0 {
            self.words.as_slice()[word as usize].fetch_or(bits, Ordering::Relaxed);
        }
    }

    #[inline(always)]
    pub fn has(&self, index: u64) -> bool {
        self.word(index / 64) & (1 << (index % 64)) != 0
    }

    /// The bits of indices `64 * word` to `64 * word + 63`.
    #[inline(always)]
    pub fn word(&self, word: u64) -> u64 {
        self.words.as_slice()[word as usize].load(Ordering::Relaxed)
    }

    /// The words of bits.
    #[inline]
    pub fn atomic_words(&self) -> &[AtomicU64] {
        self.words.as_slice()
    }

    /// The words of bits, for writing them to a file.
    pub fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.words
            .as_slice()
            .iter()
            .map(|w| w.load(Ordering::Relaxed))
    }
}
