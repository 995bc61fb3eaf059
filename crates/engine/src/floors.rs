//! The loss floors of the in-memory engine, kept from initialisation until the counters empty.
//!
//! A position with an exit into a win for the opponent cannot be lost sooner than that exit's distance plus one: its
//! loss floor. The floor is needed when the position's last move inside the table is refuted, and initialisation
//! has just computed it. Finding it again then means looking at all the position's moves a second time: 4% of
//! KQRvKR's build with two threads, one such look per loss of a position with a capture that loses. So the floors of
//! the positions left open with such an exit are kept, one byte each, in index order, and found again by rank: a bit
//! per index says which positions have one, and the number of bits set before every block of 512 indices gives the
//! rank of a bit with at most eight more words counted, all in one cache line.
//!
//! A floor of [`UNKNOWN`] plies or more does not fit its byte: the position's moves are looked at again for it, as
//! for every floor before.

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use crate::kernel::Refuters;

/// The byte of a floor too long to keep: it is computed again when needed.
const UNKNOWN: u8 = u8::MAX;

/// Indices per entry of the rank directory: eight words of bits, one cache line.
const BLOCK: u64 = 512;

/// The floors of one stretch of indices, found by one initialisation task: `(first index, floors in index order)`.
pub(crate) type Stretch = (u64, Vec<u8>);

pub(crate) struct Floors {
    /// Which positions have a floor kept.
    marks: Refuters,
    /// The number of marks before each block of [`BLOCK`] indices.
    ranks: Vec<u64>,
    /// The floors of the marked positions, in index order.
    floors: Vec<u8>,
}

impl Floors {
    /// The byte that keeps `floor`.
    #[inline]
    pub(crate) fn byte(floor: u32) -> u8 {
        u8::try_from(floor).unwrap_or(UNKNOWN)
    }

    /// Gathers the floors of the positions marked in `marks`, given by the initialisation tasks as stretches of
    /// indices that do not overlap (in any order; each stretch in index order).
    pub(crate) fn new(marks: Refuters, mut stretches: Vec<Stretch>) -> Floors {
        stretches.par_sort_unstable_by_key(|(first, _)| *first);
        let mut floors = Vec::with_capacity(stretches.iter().map(|(_, f)| f.len()).sum());
        for (_, stretch) in stretches {
            floors.extend_from_slice(&stretch);
        }
        let per_block = (BLOCK / 64) as usize;
        let mut ranks: Vec<u64> = marks
            .atomic_words()
            .par_chunks(per_block)
            .map(|block| {
                block
                    .iter()
                    .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
                    .sum()
            })
            .collect();
        let mut before = 0;
        for rank in &mut ranks {
            let marked = *rank;
            *rank = before;
            before += marked;
        }
        debug_assert_eq!(before, floors.len() as u64);
        Floors {
            marks,
            ranks,
            floors,
        }
    }

    /// The bytes of the rank directory of a table of `size` indices.
    pub(crate) fn rank_bytes(size: u64) -> u64 {
        size.div_ceil(BLOCK) * 8
    }

    /// The loss floor of the position at `index`: 0 when it has none kept, and `recompute()` when its floor did not
    /// fit a byte.
    #[inline]
    pub(crate) fn get(&self, index: u64, recompute: impl FnOnce() -> u32) -> u32 {
        if !self.marks.has(index) {
            return 0;
        }
        let words = self.marks.atomic_words();
        let word = (index / 64) as usize;
        let first = (index / BLOCK * (BLOCK / 64)) as usize;
        let ones =
            |w: &std::sync::atomic::AtomicU64| u64::from(w.load(Ordering::Relaxed).count_ones());
        let below = words[word].load(Ordering::Relaxed) & ((1u64 << (index % 64)) - 1);
        let rank = self.ranks[(index / BLOCK) as usize]
            + words[first..word].iter().map(ones).sum::<u64>()
            + u64::from(below.count_ones());
        match self.floors[rank as usize] {
            UNKNOWN => recompute(),
            floor => u32::from(floor),
        }
    }

    /// The bytes these floors take beside their bits.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.floors.len() + self.ranks.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapped::Backing;

    #[test]
    fn floors_are_found_by_rank_across_words_and_blocks() {
        let size = 5000u64;
        let marks = Refuters::new(size, &Backing::Memory, "refuters").unwrap();
        // Marked: every index divisible by 7 or 64, with a floor from the index; the stretches come out of order.
        let floor_of = |i: u64| {
            if i.is_multiple_of(700) {
                300
            } else {
                (i % 250) as u32
            }
        };
        let marked = |i: u64| i.is_multiple_of(7) || i.is_multiple_of(64);
        let mut stretches = Vec::new();
        for first in [4000, 2000, 0, 3000, 1000] {
            let mut floors = Vec::new();
            for i in (first..first + 1000).filter(|&i| marked(i)) {
                marks.mark(i);
                floors.push(Floors::byte(floor_of(i)));
            }
            stretches.push((first, floors));
        }
        let floors = Floors::new(marks, stretches);
        for i in 0..size {
            let expected = if !marked(i) {
                0
            } else if floor_of(i) >= 255 {
                // Not kept: asked again.
                1_000
            } else {
                floor_of(i)
            };
            assert_eq!(floors.get(i, || 1_000), expected, "index {i}");
        }
        let count = (0..size).filter(|&i| marked(i)).count();
        assert_eq!(
            floors.bytes() as u64,
            count as u64 + Floors::rank_bytes(size)
        );
    }

    #[test]
    fn floors_of_255_plies_and_more_do_not_fit_a_byte() {
        assert_eq!(Floors::byte(0), 0);
        assert_eq!(Floors::byte(254), 254);
        assert_eq!(Floors::byte(255), UNKNOWN);
        assert_eq!(Floors::byte(100_000), UNKNOWN);
    }
}
