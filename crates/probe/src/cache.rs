//! A bounded cache of decompressed blocks, shared by all the tables of a [`Tables`](crate::Tables) and by all the
//! threads that probe them.
//!
//! A probe of a cached block takes no lock, writes no shared memory and allocates nothing: that is what an engine
//! probing from every search thread needs. Each file has a [`BlockSlots`], one atomic pointer per block (in pages
//! of [`PAGE`] slots, made on first use, so that a file of millions of blocks costs nothing until it is read). A
//! reader pins the current epoch (crossbeam-epoch: a thread-local counter, no shared write), loads the pointer and
//! reads the block in place. An evicted block is unlinked at once but freed only once every thread pinned before
//! has unpinned, so a reader never sees freed memory.
//!
//! The byte budget is kept by a CLOCK ring behind one mutex, touched only on a miss (a block is decompressed first,
//! outside the lock; the lock covers the bookkeeping). Each resident block has a "recently used" bit that readers
//! set (only when it is clear, so a hot block's cache line is not written on every probe); the hand clears the bit
//! of a used block and evicts a block whose bit is already clear, which approximates LRU without moving anything on
//! a hit. When two threads miss the same block at once, both decompress it and the second reads the first's copy.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crossbeam_epoch::{self as epoch, Atomic, Guard, Owned, Shared};

/// Slots per page of a [`BlockSlots`]: 8 KiB of pointers, made when a block of the page is first cached.
const PAGE: usize = 1024;

/// A decompressed block and its "recently used" bit.
struct Block {
    data: Box<[u8]>,
    referenced: AtomicBool,
}

/// [`PAGE`] slots: a null pointer for a block not cached.
type Page = Box<[Atomic<Block>]>;

/// The cache's slots for the blocks of one file.
pub(crate) struct BlockSlots(Slots);

enum Slots {
    /// A file of at most [`PAGE`] blocks (every table of up to five men but the largest): its slots, made at once,
    /// so that a probe finds its block's slot with one load and no page to look up first.
    Flat(Page),
    /// A larger file: its pages, made when first used.
    Paged {
        pages: Box<[OnceLock<Page>]>,
        blocks: u64,
    },
}

impl BlockSlots {
    /// Slots for a file of `blocks` blocks.
    pub fn new(blocks: u64) -> BlockSlots {
        if blocks <= PAGE as u64 {
            return BlockSlots(Slots::Flat((0..blocks).map(|_| Atomic::null()).collect()));
        }
        let pages = blocks.div_ceil(PAGE as u64) as usize;
        BlockSlots(Slots::Paged {
            pages: (0..pages).map(|_| OnceLock::new()).collect(),
            blocks,
        })
    }

    /// The slot of `block`, if its page exists.
    #[inline]
    fn get(&self, block: u64) -> Option<&Atomic<Block>> {
        match &self.0 {
            Slots::Flat(slots) => slots.get(block as usize),
            Slots::Paged { pages, .. } => {
                let page = pages.get((block / PAGE as u64) as usize)?.get()?;
                Some(&page[(block % PAGE as u64) as usize])
            }
        }
    }

    /// The slot of `block` (which must be below the file's block count), making its page if needed.
    fn slot(&self, block: u64) -> &Atomic<Block> {
        match &self.0 {
            Slots::Flat(slots) => &slots[block as usize],
            Slots::Paged { pages, blocks } => {
                debug_assert!(block < *blocks);
                let page = pages[(block / PAGE as u64) as usize]
                    .get_or_init(|| (0..PAGE).map(|_| Atomic::null()).collect());
                &page[(block % PAGE as u64) as usize]
            }
        }
    }
}

impl Drop for BlockSlots {
    fn drop(&mut self) {
        let free = |page: &Page| {
            for slot in page.iter() {
                // SAFETY: `&mut self` means no other thread holds these slots (readers and the cache's ring reach
                // them through an `Arc`, and this is the last one), so nothing can load the pointer any more; an
                // evicted block was set to null when it was handed to the epoch collector, so no block is freed
                // twice.
                unsafe {
                    let block = slot.load(Ordering::Relaxed, epoch::unprotected());
                    if !block.is_null() {
                        drop(block.into_owned());
                    }
                }
            }
        };
        match &mut self.0 {
            Slots::Flat(slots) => free(slots),
            Slots::Paged { pages, .. } => pages
                .iter_mut()
                .filter_map(OnceLock::get_mut)
                .for_each(|p| free(p)),
        }
    }
}

/// One cached block, as the CLOCK ring knows it.
struct Resident {
    slots: Arc<BlockSlots>,
    block: u64,
    bytes: usize,
}

/// The CLOCK ring over every resident block, and the bytes they hold.
#[derive(Default)]
struct Clock {
    /// The ring; `None` marks a free place.
    ring: Vec<Option<Resident>>,
    free: Vec<usize>,
    hand: usize,
    bytes: usize,
}

impl Clock {
    fn push(&mut self, resident: Resident) {
        self.bytes += resident.bytes;
        match self.free.pop() {
            Some(at) => self.ring[at] = Some(resident),
            None => self.ring.push(Some(resident)),
        }
    }

    /// Advances the hand to the first block not used since the last pass, unlinks it and hands it to the epoch
    /// collector. Only called while the ring holds bytes, so some place is full and the loop ends within two turns.
    fn evict_one(&mut self, guard: &Guard) {
        loop {
            let at = self.hand;
            self.hand = (self.hand + 1) % self.ring.len();
            let Some(resident) = &self.ring[at] else {
                continue;
            };
            let slot = resident.slots.slot(resident.block);
            let block = slot.load(Ordering::Acquire, guard);
            // SAFETY: a resident block's slot holds it until this ring evicts it (only the ring unlinks blocks,
            // under the lock we hold), so the pointer is valid and not null.
            let referenced = unsafe { &block.deref().referenced };
            if referenced.swap(false, Ordering::Relaxed) {
                continue;
            }
            let unlinked = slot.swap(Shared::null(), Ordering::AcqRel, guard);
            // SAFETY: the block is unlinked, so no new reader can reach it; readers that loaded it before are
            // pinned, and the collector frees it only after they all unpin.
            unsafe { guard.defer_destroy(unlinked) };
            self.bytes -= resident.bytes;
            self.ring[at] = None;
            self.free.push(at);
            return;
        }
    }
}

/// The bounded, thread-safe cache of decompressed blocks.
pub(crate) struct BlockCache {
    clock: Mutex<Clock>,
    capacity: usize,
}

impl BlockCache {
    /// A cache of at most `bytes` bytes of decompressed blocks (0: no caching at all).
    pub fn new(bytes: usize) -> BlockCache {
        BlockCache {
            clock: Mutex::default(),
            capacity: bytes,
        }
    }

    fn clock(&self) -> MutexGuard<'_, Clock> {
        // No method panics half-way through an update of the ring, so a poisoned lock is used as it is.
        self.clock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `read` on the decompressed block `block` of the file whose slots are `slots`, loading it with `load`
    /// if it is not cached. `block` must be below the file's block count.
    pub fn with_block<R, E>(
        &self,
        slots: &Arc<BlockSlots>,
        block: u64,
        load: impl FnOnce() -> Result<Box<[u8]>, E>,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, E> {
        {
            let guard = epoch::pin();
            if let Some(slot) = slots.get(block) {
                // SAFETY: a block reachable from a slot is freed only after every thread pinned when it was
                // unlinked has unpinned; we are pinned by `guard` for as long as we read it.
                if let Some(cached) = unsafe { slot.load(Ordering::Acquire, &guard).as_ref() } {
                    if !cached.referenced.load(Ordering::Relaxed) {
                        cached.referenced.store(true, Ordering::Relaxed);
                    }
                    return Ok(read(&cached.data));
                }
            }
        }
        let data = load()?;
        let bytes = data.len();
        if bytes > self.capacity {
            return Ok(read(&data));
        }
        let guard = epoch::pin();
        let new = Owned::new(Block {
            data,
            referenced: AtomicBool::new(false),
        });
        let slot = slots.slot(block);
        let installed = match slot.compare_exchange(
            Shared::null(),
            new,
            Ordering::AcqRel,
            Ordering::Acquire,
            &guard,
        ) {
            Ok(installed) => {
                let mut clock = self.clock();
                clock.push(Resident {
                    slots: Arc::clone(slots),
                    block,
                    bytes,
                });
                while clock.bytes > self.capacity {
                    clock.evict_one(&guard);
                }
                installed
            }
            // Another thread cached the block first: read its copy (ours is dropped with the error).
            Err(raced) => raced.current,
        };
        // SAFETY: `installed` was in the slot while we were pinned, so even if it has been evicted since (by our
        // own eviction loop above, or another thread's) it is freed only after `guard` unpins.
        Ok(read(unsafe { &installed.deref().data }))
    }

    /// Bytes of blocks held now.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.clock().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn block_of(b: u64, len: usize) -> Box<[u8]> {
        (0..len)
            .map(|i| (b as usize * 31 + i) as u8)
            .collect::<Vec<u8>>()
            .into_boxed_slice()
    }

    #[test]
    fn a_cached_block_is_not_loaded_again() {
        let cache = BlockCache::new(1 << 20);
        let slots = Arc::new(BlockSlots::new(4));
        let loads = Cell::new(0);
        for _ in 0..3 {
            let first = cache
                .with_block::<_, ()>(
                    &slots,
                    1,
                    || {
                        loads.set(loads.get() + 1);
                        Ok(vec![5u8; 100].into_boxed_slice())
                    },
                    |d| d[0],
                )
                .unwrap();
            assert_eq!(first, 5);
        }
        assert_eq!(loads.get(), 1);
    }

    #[test]
    fn the_cache_stays_within_its_bound_and_keeps_used_blocks() {
        let cache = BlockCache::new(10_000);
        // Two files, blocks spread over several pages.
        let files = [
            Arc::new(BlockSlots::new(3 * PAGE as u64)),
            Arc::new(BlockSlots::new(100)),
        ];
        let load = |b: u64| move || Ok::<_, ()>(block_of(b, 1000));
        for b in 0..100 {
            let file = &files[b as usize % 2];
            let at = if b % 2 == 0 { b * 29 } else { b };
            let v = cache.with_block(file, at, load(at), |d| d[999]).unwrap();
            assert_eq!(v, block_of(at, 1000)[999]);
            // Block 0 of the first file is used all the time: CLOCK must keep it.
            cache
                .with_block(&files[0], 0, load(0), |d| {
                    assert_eq!(d, &*block_of(0, 1000))
                })
                .unwrap();
            assert!(cache.bytes() <= 10_000);
        }
        let reloaded = Cell::new(false);
        cache
            .with_block(
                &files[0],
                0,
                || {
                    reloaded.set(true);
                    load(0)()
                },
                |_| (),
            )
            .unwrap();
        assert!(!reloaded.get(), "the hot block was evicted");
    }

    #[test]
    fn a_zero_cache_caches_nothing_and_a_load_error_comes_back() {
        let cache = BlockCache::new(0);
        let slots = Arc::new(BlockSlots::new(8));
        let loads = Cell::new(0);
        for _ in 0..2 {
            cache
                .with_block::<_, ()>(
                    &slots,
                    3,
                    || {
                        loads.set(loads.get() + 1);
                        Ok(vec![1u8; 10].into_boxed_slice())
                    },
                    |_| (),
                )
                .unwrap();
        }
        assert_eq!(loads.get(), 2);
        assert_eq!(cache.bytes(), 0);
        assert_eq!(
            cache.with_block(&slots, 4, || Err("bad"), |_| ()),
            Err("bad")
        );
    }

    /// Threads hammer a cache far too small for their blocks, so blocks are evicted while others read them: every
    /// read must still see its own block's bytes, and the bound must hold.
    #[test]
    fn threads_read_their_blocks_while_others_evict_them() {
        let cache = BlockCache::new(8 * 512);
        let slots = Arc::new(BlockSlots::new(2 * PAGE as u64));
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let (cache, slots) = (&cache, &slots);
                s.spawn(move || {
                    let mut state = t + 1;
                    for _ in 0..20_000 {
                        state = state
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let b = (state >> 33) % 40 * 37;
                        let ok = cache
                            .with_block::<_, ()>(
                                slots,
                                b,
                                || Ok(block_of(b, 512)),
                                |d| d == &*block_of(b, 512),
                            )
                            .unwrap();
                        assert!(ok, "block {b} read wrong bytes");
                    }
                });
            }
        });
        assert!(cache.bytes() <= 8 * 512);
    }
}
