//! A hint to the processor that memory will soon be touched.
//!
//! A generation's updates land on cells all over the table, and each one that misses the cache waits for memory.
//! With several threads every update is a locked compare-and-swap, and a locked instruction waits for the memory
//! accesses before it: the misses of successive updates cannot overlap, and a walk spends most of its time waiting
//! for them one after the other. Software prefetches are not ordered with locked instructions, so hinting a cell
//! while the predecessors of the next position are generated brings it into the cache by the time it is updated.

/// How many items ahead of its use a loop over scattered items (bucket entries, bits to set) prefetches one: enough
/// for a miss to be served while the items between are handled.
pub(crate) const AHEAD: usize = 16;

/// Asks for the cache line holding `item`. Never faults and changes nothing but the cache: a no-op on processors
/// without a stable prefetch instruction in Rust.
#[inline(always)]
pub(crate) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is only a hint: it neither reads nor writes memory as far as the program can observe,
        // and it never faults, whatever the address; here the address is that of a live reference anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((item as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}
