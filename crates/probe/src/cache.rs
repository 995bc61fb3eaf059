//! A bounded cache of decompressed blocks, shared by all the tables of a [`Tables`](crate::Tables) and by all the
//! threads that probe them.
//!
//! A probe of a cached block takes no lock, writes no shared memory and allocates nothing: that is what an engine
//! probing from every search thread needs. Each file has a [`BlockSlots`], one atomic pointer per block (in pages
//! of [`PAGE`] slots, made on first use, so that a file of millions of blocks costs nothing until it is read). A
//! reader pins the current epoch (crossbeam-epoch: a thread-local counter, no shared write), loads the pointer and
//! reads the block in place.
//!
//! The blocks live in slabs: regions of [`HUGE_PAGE`] bytes (less for a small cache), aligned to their size and
//! backed by the system's huge pages where it gives them (Linux's transparent huge pages, `madvise`). A warm probe
//! spread over many tables reads one value from a random place in tens of megabytes of blocks; in 4 KiB pages
//! nearly every such read also missed the processor's table of page translations, and with the blocks in the
//! allocator's heap they could not be in huge pages. The first [`SMALL_PAGED_SLABS`] slabs, though, are small and
//! come from the global allocator, so that a program's first probes neither wait for a huge page to be zeroed nor
//! fault in fresh pages. A block is appended to the slab being filled (copied under the
//! lock, after it was decompressed outside it); a block larger than a slab has a slab of its own, several slab sizes
//! long, whose room after the block takes the next small blocks when it has more room than the slab being filled.
//!
//! The byte budget is kept in whole slabs by a CLOCK ring of slabs behind one mutex, touched only on a miss. Each
//! place of the ring has a "recently used" flag, which readers of any block of its slab set (only when it is clear,
//! so a hot slab's flag is not written on every probe); the hand clears the flag of a used slab and evicts a slab
//! whose flag is already clear: every block of it is unlinked at once, and its memory is unmapped only once every
//! thread pinned before has unpinned, so a reader never sees freed memory. When two threads miss the same block at
//! once, both decompress it and the second keeps its copy out of the cache.

use std::alloc::Layout;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crossbeam_epoch::{self as epoch, Guard};
use memmap2::MmapMut;

/// Slots per page of a [`BlockSlots`]: 8 KiB of pointers, made when a block of the page is first cached.
const PAGE: usize = 1024;
/// Bytes of a slab of a cache of at least 8 of them: one huge page of x86-64 and of most ARM64 systems.
const HUGE_PAGE: usize = 2 << 20;
/// Slabs a cache fills in small pages before it asks for huge pages (see [`BlockCache::keep`]).
const SMALL_PAGED_SLABS: usize = 2;
/// Bytes of each of those first slabs, unless its first block needs more (or the slab size is smaller).
const SMALL_SLAB: usize = 64 << 10;
/// The largest budget: 1 TiB of slabs (each slab has a flag of one byte, made with the cache: 512 KiB of them).
const MAX_BYTES: usize = if usize::BITS > 40 {
    (1u64 << 40) as usize
} else {
    usize::MAX
};
/// The smallest slab: one page of memory.
const MIN_SLAB: usize = 4096;
/// Slabs a cache holds at least, when its budget allows slabs of [`MIN_SLAB`]: a smaller cache has smaller slabs,
/// so that evicting one does not empty it.
const MIN_SLABS: usize = 8;
/// Bytes before each block in a slab: its length and its slab's place in the ring (little-endian `u32`s; blocks
/// start 8-byte aligned).
const BLOCK_HEAD: usize = 8;

/// A null pointer for a block not cached, else where the block's head is in its slab.
type Slot = AtomicPtr<u8>;

/// [`PAGE`] slots.
type Page = Box<[Slot]>;

fn empty_page(slots: usize) -> Page {
    (0..slots).map(|_| Slot::new(ptr::null_mut())).collect()
}

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
            return BlockSlots(Slots::Flat(empty_page(blocks as usize)));
        }
        let pages = blocks.div_ceil(PAGE as u64) as usize;
        BlockSlots(Slots::Paged {
            pages: (0..pages).map(|_| OnceLock::new()).collect(),
            blocks,
        })
    }

    /// The slot of `block`, if its page exists.
    #[inline]
    fn get(&self, block: u64) -> Option<&Slot> {
        match &self.0 {
            Slots::Flat(slots) => slots.get(block as usize),
            Slots::Paged { pages, .. } => {
                let page = pages.get((block / PAGE as u64) as usize)?.get()?;
                Some(&page[(block % PAGE as u64) as usize])
            }
        }
    }

    /// The slot of `block` (which must be below the file's block count), making its page if needed.
    fn slot(&self, block: u64) -> &Slot {
        match &self.0 {
            Slots::Flat(slots) => &slots[block as usize],
            Slots::Paged { pages, blocks } => {
                debug_assert!(block < *blocks);
                let page = pages[(block / PAGE as u64) as usize].get_or_init(|| empty_page(PAGE));
                &page[(block % PAGE as u64) as usize]
            }
        }
    }
}

/// The memory of one slab: a whole number of slab sizes, aligned to the slab size (so that a slab of huge pages
/// starts on one). It is never read or written through a reference to the whole (the slab is reached through
/// `base`, so that the lock's writes of new blocks and readers' reads of old ones never make overlapping
/// references).
struct SlabMemory {
    base: *mut u8,
    owner: Owner,
}

/// What gives a slab's memory back when it is dropped.
enum Owner {
    /// A mapping advised for huge pages, larger than the slab by one slab size so that an aligned slab fits in it.
    Mapped { _map: MmapMut },
    /// Memory of the global allocator (small pages, and memory the process may already have touched, so that the
    /// first blocks of a new cache fault in no new pages), allocated with this layout.
    Allocated(Layout),
}

// SAFETY: `base` points into memory the slab owns (its mapping, or its allocation), which does not move when the
// struct does; the memory is only ever accessed through raw pointers under the rules of `BlockCache` (new bytes
// written under its lock into a part no reader can reach yet, read by readers after the slot's release store), so
// handing it to another thread (to the epoch collector, which frees it) is sound.
unsafe impl Send for SlabMemory {}

impl SlabMemory {
    /// `len` bytes, in huge pages aligned to `align` (a power of two, a multiple of the page size) if `huge` and
    /// the system gives them, else from the global allocator; `None` if the system has no memory for it, so that
    /// the cache reads the block uncached instead of failing.
    fn new(len: usize, align: usize, huge: bool) -> Option<SlabMemory> {
        if !huge || cfg!(not(target_os = "linux")) {
            // Readers find a block by its slot and its slab by its head, not by the address: a cache line is
            // alignment enough.
            let layout = Layout::from_size_align(len, 64).ok()?;
            // SAFETY: `len` is not zero (a slab is at least one page).
            let base = unsafe { std::alloc::alloc(layout) };
            return (!base.is_null()).then_some(SlabMemory {
                base,
                owner: Owner::Allocated(layout),
            });
        }
        let mut map = MmapMut::map_anon(len.checked_add(align)?).ok()?;
        let offset = map.as_ptr().align_offset(align);
        // Huge pages are advice: where the system has none (or not for this mapping), the slab is in small pages.
        #[cfg(target_os = "linux")]
        let _ = map.advise_range(memmap2::Advice::HugePage, offset, len);
        // SAFETY: `offset < align` and the mapping is `len + align` bytes long, so `base..base + len` is inside it.
        let base = unsafe { map.as_mut_ptr().add(offset) };
        Some(SlabMemory {
            base,
            owner: Owner::Mapped { _map: map },
        })
    }
}

impl Drop for SlabMemory {
    fn drop(&mut self) {
        if let Owner::Allocated(layout) = self.owner {
            // SAFETY: `base` was allocated with `layout` by `new`, and is freed only here, once.
            unsafe { std::alloc::dealloc(self.base, layout) };
        }
    }
}

/// One slab, as the CLOCK ring knows it.
struct Slab {
    memory: SlabMemory,
    /// Bytes of its memory.
    len: usize,
    /// Slab sizes it takes from the budget: 1, or more for one block larger than a slab.
    units: usize,
    /// Bytes of it used (the next block is appended here).
    used: usize,
    /// The blocks in it, to be unlinked when it is evicted.
    residents: Vec<(Arc<BlockSlots>, u64)>,
}

impl Slab {
    /// Bytes left at its end.
    fn room(&self) -> usize {
        self.len - self.used
    }
}

/// The CLOCK ring over every slab, and the one being filled.
#[derive(Default)]
struct Clock {
    /// The ring; `None` marks a free place.
    ring: Vec<Option<Slab>>,
    free: Vec<usize>,
    hand: usize,
    /// The place in `ring` of the slab blocks are appended to.
    filling: Option<usize>,
    /// Slab sizes held by the slabs of the ring.
    units: usize,
}

impl Clock {
    fn push(&mut self, slab: Slab) -> usize {
        self.units += slab.units;
        match self.free.pop() {
            Some(at) => {
                self.ring[at] = Some(slab);
                at
            }
            None => {
                self.ring.push(Some(slab));
                self.ring.len() - 1
            }
        }
    }

    /// Advances the hand to the first slab not used since the last pass (its place's flag in `used`; or, after two
    /// turns of slabs used all the time, any slab), unlinks its blocks and hands its memory to the epoch collector.
    /// Only called while the ring holds a slab other than the one being filled, which is never evicted.
    fn evict_one(&mut self, used: &[AtomicU8], guard: &Guard) {
        let mut looked = 0;
        loop {
            let at = self.hand;
            self.hand = (self.hand + 1) % self.ring.len();
            if Some(at) == self.filling || self.ring[at].is_none() {
                continue;
            }
            looked += 1;
            if used[at].swap(0, Ordering::Relaxed) != 0 && looked <= 2 * self.ring.len() {
                continue;
            }
            let slab = self.ring[at].take().expect("the place holds a slab");
            for (slots, block) in &slab.residents {
                slots.slot(*block).store(ptr::null_mut(), Ordering::Release);
            }
            self.units -= slab.units;
            self.free.push(at);
            let memory = slab.memory;
            // SAFETY: every block of the slab is unlinked, so no new reader can reach its memory; readers that
            // loaded a pointer into it before are pinned, and the collector runs this only after they all unpin.
            unsafe { guard.defer_unchecked(move || drop(memory)) };
            return;
        }
    }
}

/// The bounded, thread-safe cache of decompressed blocks.
pub(crate) struct BlockCache {
    clock: Mutex<Clock>,
    /// Bytes of a slab: a power of two, at least [`MIN_SLAB`], at most [`HUGE_PAGE`].
    slab: usize,
    /// Slabs the budget holds.
    units: usize,
    /// The "recently used" flag of each place of the ring (it never has more places than the budget has slabs).
    used: Box<[AtomicU8]>,
}

impl BlockCache {
    /// A cache of at most `bytes` bytes of slabs (below [`MIN_SLAB`]: no caching at all; above [`MAX_BYTES`]:
    /// that many, so that a caller asking for "no bound", as `usize::MAX`, gets a cache larger than any memory
    /// rather than a table of flags larger than any memory).
    pub fn new(bytes: usize) -> BlockCache {
        let bytes = bytes.min(MAX_BYTES);
        let slab = (bytes / MIN_SLABS)
            .checked_next_power_of_two()
            .unwrap_or(HUGE_PAGE)
            .clamp(MIN_SLAB, HUGE_PAGE);
        let units = bytes / slab;
        BlockCache {
            clock: Mutex::default(),
            slab,
            units,
            used: (0..units).map(|_| AtomicU8::new(0)).collect(),
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
    #[inline]
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
                let at = slot.load(Ordering::Acquire);
                if !at.is_null() {
                    // SAFETY: a non-null slot points to a block's head in a slab, written (with the block)
                    // before the slot's release store that our acquire load saw; the slab is unmapped only after
                    // every thread pinned when it was evicted has unpinned, and we are pinned by `guard` for as
                    // long as we read it.
                    let (data, place) = unsafe {
                        let [len, place] = at.cast::<[u32; 2]>().read().map(u32::from_le);
                        let data = std::slice::from_raw_parts(at.add(BLOCK_HEAD), len as usize);
                        (data, place as usize)
                    };
                    // The place may hold another slab by now (if this one was evicted since we loaded the slot):
                    // that slab is then marked used once too many, which is harmless.
                    if let Some(flag) = self.used.get(place)
                        && flag.load(Ordering::Relaxed) == 0
                    {
                        flag.store(1, Ordering::Relaxed);
                    }
                    let value = read(data);
                    drop(guard);
                    return Ok(value);
                }
            }
        }
        let data = load()?;
        self.keep(slots, block, &data);
        Ok(read(&data))
    }

    /// Copies `data`, block `block` of the file whose slots are `slots`, into a slab, evicting slabs to stay within
    /// the budget; nothing if the block is larger than the budget (or than 4 GiB), if another thread cached it
    /// first, or if the system has no memory for a new slab.
    #[cold]
    fn keep(&self, slots: &Arc<BlockSlots>, block: u64, data: &[u8]) {
        let Ok(len) = u32::try_from(data.len()) else {
            return;
        };
        let need = (BLOCK_HEAD + data.len()).next_multiple_of(BLOCK_HEAD);
        let units = need.div_ceil(self.slab);
        if units > self.units {
            return;
        }
        let guard = epoch::pin();
        let mut clock = self.clock();
        let slot = slots.slot(block);
        if !slot.load(Ordering::Acquire).is_null() {
            return;
        }
        let room = |clock: &Clock, at: Option<usize>| {
            at.and_then(|at| clock.ring[at].as_ref())
                .map_or(0, Slab::room)
        };
        let at = if room(&clock, clock.filling) >= need {
            clock.filling.expect("a slab with room is being filled")
        } else {
            // A new slab; the one being filled stays in the ring, and may still be evicted, but no longer filled.
            let before = clock.filling.take();
            while clock.units + units > self.units {
                clock.evict_one(&self.used, &guard);
            }
            // The first slabs come from the allocator, in small pages: a huge page is zeroed whole when first
            // touched, and fresh pages fault in one by one, which a program's first probe (a small block or a few)
            // would pay for nothing: its median went from about 60 to about 130 µs.
            // Those first slabs are only as large as their first block needs, and at least `SMALL_SLAB` (they
            // still count whole slab sizes against the budget).
            let huge = self.slab == HUGE_PAGE && clock.units >= SMALL_PAGED_SLABS;
            let len = if huge {
                units * self.slab
            } else {
                (units * self.slab).min(need.max(SMALL_SLAB))
            };
            let Some(memory) = SlabMemory::new(len, self.slab, huge) else {
                return;
            };
            let at = clock.push(Slab {
                memory,
                units,
                len,
                used: 0,
                residents: Vec::new(),
            });
            self.used[at].store(0, Ordering::Relaxed);
            // Of the slab filled before (if not evicted meanwhile) and the new one, the next blocks go to the one
            // with more room left after this block.
            let left = len - need;
            clock.filling = if room(&clock, before) > left {
                before
            } else {
                Some(at)
            };
            at
        };
        let slab = clock.ring[at].as_mut().expect("the place holds a slab");
        // SAFETY: `used + need` is within the slab's memory (its room was checked, or it is new and large enough),
        // and no reader can reach these bytes before the slot's release store below.
        let start = unsafe {
            let start = slab.memory.base.add(slab.used);
            start
                .cast::<[u32; 2]>()
                .write([len.to_le(), (at as u32).to_le()]);
            ptr::copy_nonoverlapping(data.as_ptr(), start.add(BLOCK_HEAD), data.len());
            start
        };
        slab.used += need;
        slab.residents.push((Arc::clone(slots), block));
        slot.store(start, Ordering::Release);
    }

    /// Bytes of slabs held now.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.clock().units * self.slab
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

    /// Reads block `b` of `slots` through `cache` (loaded as [`block_of`] makes it, if not cached): whether its
    /// `len` bytes read back.
    fn reads_back(cache: &BlockCache, slots: &Arc<BlockSlots>, b: u64, len: usize) -> bool {
        cache
            .with_block::<_, ()>(
                slots,
                b,
                || Ok(block_of(b, len)),
                |d| d == &*block_of(b, len),
            )
            .unwrap()
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

    /// A budget of "no bound" is a large cache that works, not a failed allocation of its slabs' flags.
    #[test]
    fn a_budget_of_no_bound_is_the_largest_one() {
        let cache = BlockCache::new(usize::MAX);
        assert_eq!(
            (cache.slab, cache.units),
            (HUGE_PAGE, MAX_BYTES / HUGE_PAGE)
        );
        let slots = Arc::new(BlockSlots::new(2));
        for _ in 0..2 {
            assert!(reads_back(&cache, &slots, 1, 5000));
        }
        assert_eq!(cache.bytes(), HUGE_PAGE);
    }

    /// A block larger than a slab gets a slab of its own (several slab sizes), reads back whole and is not loaded
    /// again; a block larger than the whole budget is read but not kept.
    #[test]
    fn a_block_larger_than_a_slab_has_its_own_and_one_larger_than_the_budget_is_not_kept() {
        let cache = BlockCache::new(8 * MIN_SLAB);
        assert_eq!((cache.slab, cache.units), (MIN_SLAB, 8));
        let slots = Arc::new(BlockSlots::new(4));
        let loads = Cell::new(0);
        for (block, len) in [(0, 100), (1, 3 * MIN_SLAB + 5), (2, 9 * MIN_SLAB)] {
            for _ in 0..3 {
                let whole = cache
                    .with_block::<_, ()>(
                        &slots,
                        block,
                        || {
                            loads.set(loads.get() + 1);
                            Ok(block_of(block, len))
                        },
                        |d| d == &*block_of(block, len),
                    )
                    .unwrap();
                assert!(whole, "block {block} of {len} bytes read wrong bytes");
            }
        }
        // Blocks 0 and 1 once each; block 2, over the budget, at every read.
        assert_eq!(loads.get(), 1 + 1 + 3);
        // Block 0's slab and block 1's four slab sizes.
        assert_eq!(cache.bytes(), 5 * MIN_SLAB);
        // The room after block 1 (more than block 0's slab has left) takes the next small block.
        assert!(reads_back(&cache, &slots, 3, 2000));
        assert_eq!(cache.bytes(), 5 * MIN_SLAB);
    }

    /// At the default budget the first slabs are small ones of the allocator, the others mappings of huge pages,
    /// aligned to them; every block lies 8-byte aligned in the slab whose place its head names, and reads back.
    #[test]
    fn blocks_lie_in_aligned_slabs_and_name_their_place() {
        let cache = BlockCache::new(256 << 20);
        assert_eq!(cache.slab, HUGE_PAGE);
        let slots = Arc::new(BlockSlots::new(16));
        let mut small = 0;
        for block in 0..16 {
            let len = 1000 + 150_001 * block as usize;
            cache
                .with_block::<_, ()>(&slots, block, || Ok(block_of(block, len)), |_| ())
                .unwrap();
            let at = slots.slot(block).load(Ordering::Acquire);
            assert!(!at.is_null(), "block {block} was not kept");
            assert!(at.addr().is_multiple_of(BLOCK_HEAD), "block {block}");
            // SAFETY: the block is cached (nothing else uses the cache), so its head is there.
            let place = unsafe { u32::from_le(at.cast::<u32>().add(1).read()) } as usize;
            let clock = cache.clock();
            let slab = clock.ring[place]
                .as_ref()
                .expect("a slab at the block's place");
            let base = slab.memory.base.addr();
            match slab.memory.owner {
                Owner::Mapped { .. } => {
                    assert!(base.is_multiple_of(HUGE_PAGE), "slab at {base:#x}");
                    assert_eq!(slab.len, slab.units * cache.slab);
                }
                Owner::Allocated(_) => {
                    small += usize::from(slab.residents.len() == 1);
                    assert!(slab.len <= slab.units * cache.slab);
                }
            }
            assert!((base..base + slab.len).contains(&at.addr()));
            assert!(slab.residents.iter().any(|(_, b)| *b == block));
            drop(clock);
            let read = cache
                .with_block::<_, ()>(&slots, block, || Err(()), |d| d == &*block_of(block, len))
                .unwrap();
            assert!(read, "block {block} read wrong bytes");
        }
        assert_eq!(small, SMALL_PAGED_SLABS);
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
                        assert!(
                            reads_back(cache, slots, b, 512),
                            "block {b} read wrong bytes"
                        );
                    }
                });
            }
        });
        assert!(cache.bytes() <= 8 * 512);
    }
}
