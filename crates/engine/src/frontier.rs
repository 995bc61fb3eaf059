//! The frontier: the positions resolved in one generation, which the next generation walks back from.
//!
//! A frontier is a bitmap over the whole index space (bitvec over memory-mapped atomic words) when it is large, and a
//! sorted list of indices when it is small. The bitmap is what a big generation wants: one bit per position, set by
//! many threads at once, read back in index order. The list is what a long thin game wants: a path of ten million
//! positions resolves one position per generation, and scanning a ten-million-bit map ten million times would turn a
//! linear algorithm quadratic. Which form a frontier takes changes nothing in the result.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bitvec::prelude::{BitSlice, Lsb0};
use rayon::prelude::*;

use crate::bitmap::Bitmap;
use crate::mapped::{Backing, MappedArray};
use crate::schedule::{Bucket, Schedule};

/// Bits handled by one rayon task when walking a dense frontier.
const WORDS_PER_TASK: usize = 256;

pub struct Frontier {
    words: MappedArray<AtomicU64>,
    size: u64,
    dense: bool,
    sparse: Vec<u64>,
    len: u64,
}

impl Frontier {
    pub fn new(size: u64, backing: &Backing) -> std::io::Result<Frontier> {
        let words = usize::try_from(size.div_ceil(64)).map_err(std::io::Error::other)?;
        Ok(Frontier {
            words: MappedArray::new(words, backing, "frontier")?,
            size,
            dense: false,
            sparse: Vec::new(),
            len: 0,
        })
    }

    /// Number of positions in the frontier.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn bits(&self) -> &BitSlice<AtomicU64, Lsb0> {
        BitSlice::from_slice(self.words.as_slice())
    }

    /// Empties the frontier.
    pub fn clear(&mut self) {
        if self.dense {
            self.words
                .as_slice()
                .par_chunks(1 << 16)
                .for_each(|chunk| chunk.iter().for_each(|w| w.store(0, Ordering::Relaxed)));
        }
        self.dense = false;
        self.sparse.clear();
        self.len = 0;
    }

    /// Walks every position of the frontier, in parallel: each task makes a walker with `walker`, hands it the
    /// positions of its share in index order, each with a collector of the next frontier, and then
    /// [finishes](Walker::finish) it. Returns what the collectors gathered, for [`Frontier::absorb`].
    pub fn walk<V, M>(&self, next: &Frontier, walker: M) -> Vec<Gathered>
    where
        V: Walker + Send,
        M: Fn() -> V + Sync,
    {
        let flushed = AtomicBool::new(false);
        let start = || (walker(), next.collector(&flushed));
        fn finish<'a, V: Walker>((mut walker, mut collector): (V, Collector<'a>)) -> Collector<'a> {
            walker.finish(&mut collector);
            collector
        }
        let collectors: Vec<Collector> = if self.dense {
            let words = self.words.as_slice();
            words
                .par_chunks(WORDS_PER_TASK)
                .enumerate()
                .fold(start, |(mut walker, mut collector), (task, chunk)| {
                    let base = (task * WORDS_PER_TASK * 64) as u64;
                    for bit in BitSlice::<_, Lsb0>::from_slice(chunk).iter_ones() {
                        walker.visit(base + bit as u64, &mut collector);
                    }
                    (walker, collector)
                })
                .map(finish)
                .collect()
        } else {
            self.sparse
                .par_iter()
                .with_min_len(64)
                .fold(start, |(mut walker, mut collector), &index| {
                    walker.visit(index, &mut collector);
                    (walker, collector)
                })
                .map(finish)
                .collect()
        };
        Gathered::from(collectors, &flushed)
    }

    /// Runs `task` on every range of `chunks`, in parallel, each task with a collector of this (empty) frontier:
    /// the positions it resolves join this frontier. Returns what the collectors gathered, for
    /// [`Frontier::absorb`] (with what a [walk](Frontier::walk) into the same frontier gathered, if any).
    pub fn gather<T>(&self, chunks: &[Range<u64>], task: T) -> Vec<Gathered>
    where
        T: Fn(Range<u64>, &mut Collector) + Sync,
    {
        let flushed = AtomicBool::new(false);
        let collectors: Vec<Collector> = chunks
            .par_iter()
            .fold(
                || self.collector(&flushed),
                |mut collector, chunk| {
                    task(chunk.clone(), &mut collector);
                    collector
                },
            )
            .collect();
        Gathered::from(collectors, &flushed)
    }

    /// A collector of positions for this frontier.
    fn collector<'a>(&'a self, flushed: &'a AtomicBool) -> Collector<'a> {
        Collector {
            local: Vec::new(),
            cap: collector_capacity(self.size),
            added: 0,
            next_words: self.words.as_slice(),
            flushed,
            deferred: Schedule::default(),
        }
    }

    /// Marks every position of the frontier in `settled`.
    pub fn mark_in(&self, settled: &Settled) {
        if self.dense {
            self.words
                .as_slice()
                .par_iter()
                .with_min_len(1 << 14)
                .enumerate()
                .for_each(|(k, added)| settled.mark_word(k as u64, added.load(Ordering::Relaxed)));
        } else {
            set_bits(settled.atomic_words(), &self.sparse);
        }
    }

    /// Whether `index` is in the frontier.
    #[inline]
    pub fn contains(&self, index: u64) -> bool {
        if self.dense {
            let word = self.words.as_slice()[(index / 64) as usize].load(Ordering::Relaxed);
            word & (1 << (index % 64)) != 0
        } else {
            self.sparse.binary_search(&index).is_ok()
        }
    }

    /// The positions of a frontier kept as a list that are in `range`.
    fn listed_in(&self, range: Range<u64>) -> &[u64] {
        let from = self.sparse.partition_point(|&i| i < range.start);
        let to = self.sparse.partition_point(|&i| i < range.end);
        &self.sparse[from..to]
    }

    /// How many positions of the frontier are in `range`.
    pub fn count_range(&self, range: Range<u64>) -> u64 {
        let range = range.start.min(self.size)..range.end.min(self.size);
        if range.is_empty() {
            return 0;
        }
        if !self.dense {
            return self.listed_in(range).len() as u64;
        }
        // Whole words by their population count, the two ends bit by bit.
        let words = self.words.as_slice();
        let (first, last) = (range.start.div_ceil(64), range.end / 64);
        if first >= last {
            return self.count_in(range, |_| true);
        }
        let middle: u64 = words[first as usize..last as usize]
            .par_chunks(1 << 14)
            .map(|chunk| {
                chunk
                    .iter()
                    .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
                    .sum::<u64>()
            })
            .sum();
        middle
            + self.count_in(range.start..first * 64, |_| true)
            + self.count_in(last * 64..range.end, |_| true)
    }

    /// How many positions of the frontier in `range` `keep` holds for, counted in parallel.
    pub fn count_in<F>(&self, range: Range<u64>, keep: F) -> u64
    where
        F: Fn(u64) -> bool + Sync,
    {
        let range = range.start.min(self.size)..range.end.min(self.size);
        if range.is_empty() {
            return 0;
        }
        if !self.dense {
            return self
                .listed_in(range)
                .par_iter()
                .filter(|&&i| keep(i))
                .count() as u64;
        }
        let bits = self.bits();
        let per_task = (WORDS_PER_TASK * 64) as u64;
        let tasks = (range.end - range.start).div_ceil(per_task) as usize;
        (0..tasks)
            .into_par_iter()
            .map(|task| {
                let start = range.start + task as u64 * per_task;
                let end = (start + per_task).min(range.end);
                bits[start as usize..end as usize]
                    .iter_ones()
                    .filter(|&bit| keep(start + bit as u64))
                    .count() as u64
            })
            .sum()
    }

    /// Makes this (empty) frontier the union of what the collectors gathered; returns the later values they
    /// deferred, merged.
    pub fn absorb(&mut self, mut collectors: Vec<Gathered>) -> Schedule {
        let deferred = collectors
            .iter_mut()
            .map(|c| std::mem::take(&mut c.deferred))
            .fold(Schedule::default(), Schedule::merge);
        debug_assert!(self.is_empty());
        let flushed = collectors.iter().any(|c| c.flushed);
        let len: u64 = collectors.iter().map(|c| c.added).sum();
        self.len = len;
        if flushed || len > dense_threshold(self.size) {
            let words = self.words.as_slice();
            collectors
                .par_iter()
                .for_each(|c| set_bits(words, &c.local));
            self.dense = true;
        } else {
            self.sparse.reserve(len as usize);
            for c in collectors {
                self.sparse.extend_from_slice(&c.local);
            }
            // Walking in index order keeps memory access local; the result does not depend on the order.
            self.sparse.par_sort_unstable();
            self.dense = false;
        }
        deferred
    }

    /// Sets the bit of `index` in an empty frontier that is being filled from outside a walk (the first frontier,
    /// during initialisation); [`Frontier::marked`] ends the filling.
    #[inline]
    pub fn mark(&self, index: u64) {
        self.bits().set_aliased(index as usize, true);
    }

    /// Ends a filling by [`Frontier::mark`] of `count` distinct positions: the frontier is now that bitmap.
    pub fn marked(&mut self, count: u64) {
        debug_assert!(self.sparse.is_empty() && self.len == 0);
        self.dense = true;
        self.len = count;
    }

    /// Adds the positions of `seeds` for which `keep` holds (seeds of a generation, found outside a walk): none of
    /// them may be in the frontier yet. Nothing is copied when the frontier is a bitmap.
    pub fn extend<F>(&mut self, seeds: &Bucket, keep: F)
    where
        F: Fn(u64) -> bool + Sync,
    {
        if seeds.is_empty() {
            return;
        }
        if !self.dense && self.len + seeds.len() as u64 > dense_threshold(self.size) {
            // Turn the list into a bitmap first.
            let bits = self.bits();
            for &i in &self.sparse {
                bits.set_aliased(i as usize, true);
            }
            self.sparse = Vec::new();
            self.dense = true;
        }
        if self.dense {
            let bits = self.bits();
            let added: u64 = seeds
                .par_indices()
                .filter(|&i| keep(i))
                .map(|i| bits.set_aliased(i as usize, true))
                .count() as u64;
            self.len += added;
        } else {
            let before = self.sparse.len();
            self.sparse
                .par_extend(seeds.par_indices().filter(|&i| keep(i)));
            self.len += (self.sparse.len() - before) as u64;
            self.sparse.par_sort_unstable();
        }
    }
}

/// The positions settled for good: the holes, the losses, and every position of the frontiers so far. A loss of
/// the generation being walked cannot change them (see [`crate::kernel::update`]), so the walk back from a loss
/// skips a predecessor whose bit is set without touching its cell, and a pull skips it without decoding its cell.
/// Late in a chess table almost every predecessor of a loss is settled, and this bitmap, an eighth of a byte per
/// index, stays in the processor's cache where the cells, one or two bytes per index, do not. A position settled
/// but not yet marked (one resolved in the generation being walked) is found settled by its cell, as before.
pub type Settled = Bitmap;

/// Sets the bits of `indices` in a bitmap of `words`, 64 indices a word. The indices are scattered over the bitmap,
/// and each bit is set by a locked instruction, which waits for the cache misses before it: the words a few indices
/// ahead are prefetched so that the misses overlap (see [`crate::prefetch`]).
fn set_bits(words: &[AtomicU64], indices: &[u64]) {
    for (k, &i) in indices.iter().enumerate() {
        if let Some(&ahead) = indices.get(k + crate::prefetch::AHEAD) {
            crate::prefetch::prefetch(&words[(ahead / 64) as usize]);
        }
        words[(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
    }
}

/// What one task of a [walk](Frontier::walk) does with the positions of the frontier it is handed.
pub trait Walker {
    /// Walks back from the frontier position `index`. The walker may leave part of the work for its next call (to
    /// let memory catch up: see [`crate::prefetch`]), as long as [`finish`](Walker::finish) does it.
    fn visit(&mut self, index: u64, next: &mut Collector);
    /// Does what the walker left undone: called once, after its last position.
    fn finish(&mut self, next: &mut Collector);
}

/// Beyond this many positions a frontier is kept as a bitmap: walking the bitmap then costs about as much as walking
/// the positions themselves.
fn dense_threshold(size: u64) -> u64 {
    (size / 64).max(1024)
}

/// How many positions one collector keeps in a list before it writes them to the next frontier's bitmap.
/// Small, because rayon may run many collectors at once: what they hold is memory outside the bitmap.
fn collector_capacity(size: u64) -> usize {
    (size / 256).clamp(256, 4096) as usize
}

/// What the collectors of one walk gathered and have not yet written to the next frontier's bitmap.
pub struct Gathered {
    local: Vec<u64>,
    added: u64,
    flushed: bool,
    deferred: Schedule,
}

impl Gathered {
    /// What `collectors` gathered; `flushed` tells whether any of them wrote to the bitmap already.
    fn from(collectors: Vec<Collector>, flushed: &AtomicBool) -> Vec<Gathered> {
        let flushed = flushed.load(Ordering::Relaxed);
        collectors
            .into_iter()
            .map(|c| Gathered {
                local: c.local,
                added: c.added,
                flushed,
                deferred: c.deferred,
            })
            .collect()
    }
}

/// Gathers the positions one worker resolves for the next generation.
pub struct Collector<'a> {
    local: Vec<u64>,
    cap: usize,
    added: u64,
    next_words: &'a [AtomicU64],
    flushed: &'a AtomicBool,
    /// Positions resolved for a later generation than the next (a loss held up by an exit), kept per worker so that
    /// no lock is taken for them.
    deferred: Schedule,
}

impl Collector<'_> {
    /// Schedules a position resolved for `generation`, later than the next.
    #[inline]
    pub fn defer(&mut self, generation: u32, index: u64) {
        self.deferred.push(generation, index);
    }

    /// Adds a newly resolved position. Each position is added at most once per generation.
    #[inline]
    pub fn push(&mut self, index: u64) {
        self.local.push(index);
        self.added += 1;
        if self.local.len() >= self.cap {
            set_bits(self.next_words, &self.local);
            self.local.clear();
            self.flushed.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Pushes each position it is handed into the next frontier one visit late, as the engine's walk updates the
    /// predecessors of a position one position late: the last is pushed by `finish`.
    struct OneBehind(Option<u64>);

    impl Walker for OneBehind {
        fn visit(&mut self, index: u64, next: &mut Collector) {
            if let Some(staged) = self.0.replace(index) {
                next.push(staged);
            }
        }
        fn finish(&mut self, next: &mut Collector) {
            if let Some(staged) = self.0.take() {
                next.push(staged);
            }
        }
    }

    /// The positions of `frontier`, sorted.
    fn positions(frontier: &Frontier) -> Vec<u64> {
        struct Gather<'a>(&'a Mutex<Vec<u64>>);
        impl Walker for Gather<'_> {
            fn visit(&mut self, index: u64, _: &mut Collector) {
                self.0.lock().unwrap().push(index);
            }
            fn finish(&mut self, _: &mut Collector) {}
        }
        let seen = Mutex::new(Vec::new());
        let scratch = Frontier::new(frontier.size, &Backing::Memory).unwrap();
        frontier.walk(&scratch, || Gather(&seen));
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        seen
    }

    #[test]
    fn positions_in_a_range_are_counted_alike_in_a_bitmap_and_a_list() {
        let size = 1 << 16;
        for step in [3, 5_003] {
            let expected: Vec<u64> = (0..size).step_by(step).collect();
            let mut frontier = Frontier::new(size, &Backing::Memory).unwrap();
            let mut next = Frontier::new(size, &Backing::Memory).unwrap();
            for &i in &expected {
                frontier.mark(i);
            }
            frontier.marked(expected.len() as u64);
            next.absorb(frontier.walk(&next, || OneBehind(None)));
            assert_eq!(next.dense, step == 3);
            for range in [
                0..size,
                0..0,
                7..8,
                3..9,
                9..9000,
                5_003..10_006,
                63..64 * 20 + 1,
                4_000..size + 100,
            ] {
                let within = |i: &&u64| range.contains(*i);
                assert_eq!(
                    next.count_range(range.clone()),
                    expected.iter().filter(within).count() as u64,
                    "every {step}th position, {range:?}"
                );
                assert_eq!(
                    next.count_in(range.clone(), |i| i % 2 == 0),
                    expected
                        .iter()
                        .filter(within)
                        .filter(|&&i| i % 2 == 0)
                        .count() as u64,
                    "every {step}th position, {range:?}, even"
                );
                assert!(expected.iter().all(|&i| next.contains(i)));
                assert!(!next.contains(1) && !next.contains(size - 2));
            }
        }
    }

    #[test]
    fn settled_positions_are_the_words_marked_and_every_frontier_added() {
        let size = 1 << 16;
        let settled = Settled::new(size, &Backing::Memory, "settled").unwrap();
        settled.mark_word(3, 0b101);
        // A bitmap frontier, then a list.
        for step in [5, 4_001] {
            let mut frontier = Frontier::new(size, &Backing::Memory).unwrap();
            let mut next = Frontier::new(size, &Backing::Memory).unwrap();
            for i in (0..size).step_by(step) {
                frontier.mark(i);
            }
            frontier.marked(size.div_ceil(step as u64));
            next.absorb(frontier.walk(&next, || OneBehind(None)));
            assert_eq!(next.dense, step == 5);
            next.mark_in(&settled);
        }
        for i in 0..size {
            let expected = i % 5 == 0 || i % 4_001 == 0 || i == 3 * 64 || i == 3 * 64 + 2;
            assert_eq!(settled.has(i), expected, "index {i}");
        }
        assert_eq!(settled.word(3) & 0b111, 0b101 | u64::from(3 * 64 % 5 == 0));
    }

    #[test]
    fn work_a_walker_leaves_for_later_reaches_the_next_frontier() {
        let size = 1 << 20;
        // Every third position (a bitmap, and collectors that flush theirs), then a few (a list).
        for step in [3, 40_000] {
            let expected: Vec<u64> = (0..size).step_by(step).collect();
            let mut frontier = Frontier::new(size, &Backing::Memory).unwrap();
            for &i in &expected {
                frontier.mark(i);
            }
            frontier.marked(expected.len() as u64);
            let mut next = Frontier::new(size, &Backing::Memory).unwrap();
            let gathered = frontier.walk(&next, || OneBehind(None));
            next.absorb(gathered);
            assert_eq!(next.len(), expected.len() as u64);
            assert_eq!(next.dense, step == 3);
            assert_eq!(positions(&next), expected, "every {step}th position");
        }
    }
}
