//! Positions whose value is known before the generation that must publish it.
//!
//! A move that exits the table into a position lost in `d` plies makes a win in `d + 1`, but that win may only join a
//! frontier at generation `d + 1`, or the distances of its predecessors would be wrong. The same holds for terminal
//! positions and for losses whose longest refutation is an exit. Such positions get their tentative value in their
//! cell at once and an entry here, under the generation at which they are published; an entry whose cell has changed
//! since (a faster win was found inside the table) is stale and skipped.

use std::collections::BTreeMap;

use rayon::prelude::*;

/// The indices scheduled for one generation. Indices below 2^32 take four bytes.
#[derive(Default)]
pub struct Bucket {
    narrow: Vec<u32>,
    wide: Vec<u64>,
}

impl Bucket {
    fn push(&mut self, index: u64) {
        match u32::try_from(index) {
            Ok(i) => self.narrow.push(i),
            Err(_) => self.wide.push(index),
        }
    }

    fn append(&mut self, other: &mut Bucket) {
        self.narrow.append(&mut other.narrow);
        self.wide.append(&mut other.wide);
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.narrow.len() + self.wide.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries, in parallel, without copying them into a wider vector.
    pub fn par_indices(&self) -> impl ParallelIterator<Item = u64> + '_ {
        let narrow = self
            .narrow
            .par_iter()
            .with_min_len(4096)
            .map(|&i| u64::from(i));
        let wide = self.wide.par_iter().with_min_len(4096).copied();
        narrow.chain(wide)
    }

    #[cfg(test)]
    fn into_indices(self) -> Vec<u64> {
        self.par_indices().collect()
    }
}

/// Indices by the generation that publishes them.
#[derive(Default)]
pub struct Schedule {
    buckets: BTreeMap<u32, Bucket>,
}

impl Schedule {
    pub fn push(&mut self, generation: u32, index: u64) {
        self.buckets.entry(generation).or_default().push(index);
    }

    /// Moves every entry of `other` into `self`.
    pub fn merge(mut self, mut other: Schedule) -> Schedule {
        if self.buckets.len() < other.buckets.len() {
            std::mem::swap(&mut self, &mut other);
        }
        for (generation, mut bucket) in other.buckets {
            self.buckets
                .entry(generation)
                .or_default()
                .append(&mut bucket);
        }
        self
    }

    /// Removes and returns the entries of `generation`.
    pub fn take(&mut self, generation: u32) -> Bucket {
        self.buckets.remove(&generation).unwrap_or_default()
    }

    /// The earliest generation with entries.
    pub fn first_generation(&self) -> Option<u32> {
        self.buckets.keys().next().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_by_generation_whatever_their_width() {
        let mut a = Schedule::default();
        a.push(3, 7);
        a.push(1, u64::from(u32::MAX) + 5);
        let mut b = Schedule::default();
        b.push(3, 9);
        let mut s = a.merge(b);
        assert_eq!(s.first_generation(), Some(1));
        assert_eq!(s.take(1).into_indices(), vec![u64::from(u32::MAX) + 5]);
        let mut three = s.take(3).into_indices();
        three.sort();
        assert_eq!(three, vec![7, 9]);
        assert_eq!(s.first_generation(), None);
        assert!(s.take(3).is_empty());
        assert_eq!(s.take(3).len(), 0);
    }
}
