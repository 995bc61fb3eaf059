//! How `--memory` is shared by the whole process, so that a scheduler's memory limit can be set from it: the
//! sub-tables held for exits, the table writer and its compression contexts, an allowance for the process itself,
//! and what is left for the engine, which chooses between memory and slices from that rest.
//!
//! The writer's share depends on its thread count (each thread holds zstd contexts and a block or two), and the
//! bytes it writes do not: a small budget writes with fewer threads rather than starve the engine. A budget too
//! small for even one writer thread and the engine's least is refused with the minimum named, rather than let the
//! build be killed by the memory limit.

use anyhow::{Result, anyhow};
use retro_table::WriteOptions;

/// Memory the process takes besides the engine's arrays, the writer and the sub-tables: its code and static data,
/// the threads' stacks, the allocator's arenas and what it keeps of freed memory, the page cache of the files being
/// written that the kernel has not yet written back, and the engine's small buffers. Measured at 10 to 20 MB for
/// chess builds of every size (see `scripts/budget-cgroup.sh`), with room to spare.
pub const PROCESS_ALLOWANCE: u64 = 32 << 20;

/// The least budget the engine is given: below it, slices and their buffers get too small to make progress.
pub const ENGINE_MINIMUM: u64 = 16 << 20;

/// The writer's share of a budget: it writes with fewer threads rather than take more than this, unless one thread
/// needs more.
const WRITER_SHARE: u64 = 4;

/// The memory the driver reserves besides the engine and the sub-tables for a table of `index_size` indices written
/// with `options` by `threads` threads: the writer's expected peak ([`WriteOptions::peak_bytes`]) and
/// [`PROCESS_ALLOWANCE`]. A planner adds it, and the sub-tables' bytes, to what the engine takes.
pub fn reserved_overhead(index_size: u64, threads: usize, options: &WriteOptions) -> u64 {
    PROCESS_ALLOWANCE.saturating_add(options.peak_bytes(index_size, threads))
}

/// How one table's build shares its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    /// What the engine may take.
    pub engine: u64,
    /// The threads the writer writes with.
    pub writer_threads: usize,
    /// What is reserved for the writer and the process ([`reserved_overhead`]).
    pub overhead: u64,
}

/// Shares `budget` for a table of `index_size` indices written with `options`, with `held` bytes of sub-tables in
/// memory and up to `threads` threads: the writer takes as many threads as keep it within a quarter of the budget
/// (at least one), the engine the rest. An error, naming the least budget that would do, when that rest is below
/// [`ENGINE_MINIMUM`].
pub fn share(
    budget: u64,
    held: u64,
    index_size: u64,
    threads: usize,
    options: &WriteOptions,
) -> Result<Share> {
    let mut writer_threads = threads.max(1);
    while writer_threads > 1
        && reserved_overhead(index_size, writer_threads, options) > budget / WRITER_SHARE
    {
        writer_threads -= 1;
    }
    let overhead = reserved_overhead(index_size, writer_threads, options);
    let taken = held.saturating_add(overhead);
    let minimum = taken.saturating_add(ENGINE_MINIMUM);
    if budget < minimum {
        return Err(anyhow!(
            "the memory budget of {} MiB is below the {} MiB this table needs at least ({} MiB of sub-tables held \
             for its exits, {} MiB for the table writer and the process, {} MiB for the engine): give --memory {}M \
             or more",
            budget >> 20,
            minimum.div_ceil(1 << 20),
            held.div_ceil(1 << 20),
            overhead.div_ceil(1 << 20),
            ENGINE_MINIMUM >> 20,
            minimum.div_ceil(1 << 20),
        ));
    }
    Ok(Share {
        engine: budget - taken,
        writer_threads,
        overhead,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writer_and_the_process_come_off_the_budget() {
        let options = WriteOptions::default();
        let size = 200 << 20;
        let overhead = reserved_overhead(size, 2, &options);
        assert!(overhead > PROCESS_ALLOWANCE);
        // A level-19 context for the WDL file's blocks alone takes more than a few MB per thread.
        assert!(reserved_overhead(size, 8, &options) > overhead + 6 * (4 << 20));
        let budget = 4 << 30;
        let share = share(budget, 100 << 20, size, 2, &options).unwrap();
        assert_eq!(share.writer_threads, 2);
        assert_eq!(share.overhead, overhead);
        assert_eq!(share.engine, budget - (100 << 20) - overhead);
    }

    #[test]
    fn a_small_budget_writes_with_fewer_threads() {
        let options = WriteOptions::default();
        let size = 200 << 20;
        let one = reserved_overhead(size, 1, &options);
        let budget = one * WRITER_SHARE + (1 << 20);
        let share = share(budget, 0, size, 16, &options).unwrap();
        assert!(share.writer_threads < 16);
        assert!(share.overhead <= budget / WRITER_SHARE);
        assert_eq!(share.engine + share.overhead, budget);
    }

    #[test]
    fn a_budget_below_the_minimum_is_refused_with_the_minimum() {
        let options = WriteOptions::default();
        let size = 200 << 20;
        let held = 50 << 20;
        let minimum = held + reserved_overhead(size, 1, &options) + ENGINE_MINIMUM;
        let err = share(minimum - 1, held, size, 2, &options).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(&format!("--memory {}M", minimum.div_ceil(1 << 20))),
            "{text}"
        );
        assert!(!text.contains('\n'));
        let ok = share(minimum, held, size, 2, &options).unwrap();
        assert_eq!(ok.engine, ENGINE_MINIMUM);
        assert_eq!(ok.writer_threads, 1);
    }
}
