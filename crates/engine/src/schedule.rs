//! Positions whose value is known before the generation that must publish it.
//!
//! A move that exits the table into a position lost in `d` plies makes a win in `d + 1`, but that win may only join a
//! frontier at generation `d + 1`, or the distances of its predecessors would be wrong. The same holds for terminal
//! positions and for losses whose longest refutation is an exit. Such positions get their tentative value in their
//! cell at once and an entry here, under the generation at which they are published; an entry whose cell has changed
//! since (a faster win was found inside the table) is stale and skipped.

use std::collections::BTreeMap;

use rayon::prelude::*;
use retro_game::varint;

/// The bytes of one segment of a bucket, past which the next entry starts a new one: segments are what a bucket is
/// read by in parallel, and a segment grows by doubling only up to this size.
const SEGMENT_BYTES: usize = 1 << 16;

/// The indices scheduled for one generation, delta-coded: a six-man chess table schedules over a billion wins
/// through captures, which would take eight bytes each as plain indices and take one or two this way.
///
/// Entries are kept in segments, each a byte stream read from its start: an index above the previous one of its
/// segment is the varint of the difference; any other (the first of a segment included, since the previous one
/// starts as 0) is a zero byte and the varint of the index plus one. Entries come in increasing order within one
/// initialisation chunk or one walk of a frontier, so nearly all take the short form.
#[derive(Default)]
pub struct Bucket {
    /// Full segments, and the one being filled last.
    segments: Vec<Vec<u8>>,
    /// The last index pushed into the last segment.
    last: u64,
    len: usize,
}

impl Bucket {
    fn push(&mut self, index: u64) {
        let segment = match self.segments.last_mut() {
            // Room for the longest entry: a zero byte and ten bytes of varint.
            Some(segment) if segment.len() + 11 <= SEGMENT_BYTES => segment,
            _ => {
                self.segments.push(Vec::new());
                self.last = 0;
                self.segments.last_mut().expect("just pushed")
            }
        };
        if index > self.last {
            varint::put(segment, index - self.last);
        } else {
            segment.push(0);
            varint::put(segment, index + 1);
        }
        self.last = index;
        self.len += 1;
    }

    /// Moves the entries of `other` into `self`. Segments are moved, not copied: the last one of `self` is left as
    /// it is, and an entry pushed later goes on after the other's last one.
    fn append(&mut self, other: &mut Bucket) {
        if other.len == 0 {
            return;
        }
        self.segments.append(&mut other.segments);
        self.last = other.last;
        self.len += other.len;
        other.len = 0;
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entries, in parallel, segment by segment.
    pub fn par_indices(&self) -> impl ParallelIterator<Item = u64> + '_ {
        self.segments.par_iter().flat_map_iter(|segment| Entries {
            bytes: segment,
            last: 0,
        })
    }

    #[cfg(test)]
    fn into_indices(self) -> Vec<u64> {
        self.par_indices().collect()
    }

    /// The bytes the entries take.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.segments.iter().map(Vec::len).sum()
    }
}

/// The varint at the start of `bytes`, and the bytes after it.
#[inline]
fn take_varint(bytes: &[u8]) -> (u64, &[u8]) {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return (value, &bytes[i + 1..]);
        }
    }
    unreachable!("a segment ends with a whole varint")
}

/// The entries of one segment, in the order they were pushed.
struct Entries<'a> {
    bytes: &'a [u8],
    last: u64,
}

impl Iterator for Entries<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        if self.bytes.is_empty() {
            return None;
        }
        let (delta, rest) = take_varint(self.bytes);
        self.last = if delta > 0 {
            self.bytes = rest;
            self.last + delta
        } else {
            let (plus_one, rest) = take_varint(rest);
            self.bytes = rest;
            plus_one - 1
        };
        Some(self.last)
    }
}

/// The bytes a bucket takes for `entries` spread evenly over `size` indices: the varint of the gap between two of
/// them each (an estimate, for the memory plan: entries bunched together take less).
pub(crate) fn bucket_bytes(entries: u64, size: u64) -> u64 {
    if entries == 0 {
        return 0;
    }
    let gap = size / entries;
    let varint = (64 - gap.max(1).leading_zeros()).div_ceil(7).max(1);
    entries * u64::from(varint)
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

    /// Pseudo-random indices below `bound` (a fixed sequence).
    fn scrambled(n: usize, bound: u64) -> Vec<u64> {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % bound
            })
            .collect()
    }

    #[test]
    fn a_bucket_gives_back_every_entry_in_the_order_pushed() {
        // Rising runs, falls, repeats, zero, the widest indices, and enough entries for many segments.
        let mut pushed = vec![0, 0, 5, 6, 1 << 40, 3, u64::MAX - 1, 0, 7, 7];
        pushed.extend(scrambled(50_000, u64::MAX));
        pushed.extend(0..100_000u64);
        pushed.extend(scrambled(50_000, 1000));
        let mut bucket = Bucket::default();
        for &i in &pushed {
            bucket.push(i);
        }
        assert_eq!(bucket.len(), pushed.len());
        assert!(bucket.segments.len() > 10);
        assert_eq!(bucket.into_indices(), pushed);
    }

    #[test]
    fn appended_buckets_keep_their_entries_and_take_more() {
        let (first, second) = (scrambled(1000, 1 << 36), scrambled(3000, 50));
        let mut a = Bucket::default();
        first.iter().for_each(|&i| a.push(i));
        let mut b = Bucket::default();
        second.iter().for_each(|&i| b.push(i));
        a.append(&mut b);
        assert!(b.is_empty());
        // Pushed after the append, below and above the other's last entry.
        a.push(1);
        a.push(1 << 50);
        let mut expected = first.clone();
        expected.extend(&second);
        expected.extend([1, 1 << 50]);
        assert_eq!(a.len(), expected.len());
        assert_eq!(a.into_indices(), expected);
    }

    #[test]
    fn rising_entries_take_the_varint_of_their_gap() {
        let mut dense = Bucket::default();
        (0..1_000_000u64).for_each(|i| dense.push(i * 100));
        // Gaps of 100 take one byte; the first entry of each segment counts from 0, and takes up to four.
        let segments = dense.segments.len();
        assert!(segments > 1);
        assert!(dense.bytes() > 1_000_000 && dense.bytes() <= 1_000_000 + 3 * segments);
        assert_eq!(bucket_bytes(1_000_000, 100_000_000), 1_000_000);
        let mut sparse = Bucket::default();
        (1..=1000u64).for_each(|i| sparse.push(i * 1_000_000));
        // 1,000,000 needs 20 bits: three bytes.
        assert_eq!(sparse.bytes(), 3000);
        assert_eq!(bucket_bytes(1000, 1_000_000_000), 3000);
        assert_eq!(bucket_bytes(0, 10), 0);
    }

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
