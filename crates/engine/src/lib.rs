//! The retrograde engine of retro: it solves any [`Game`] — every position's outcome for the player to move and its
//! distance to the end under optimal play — in parallel, over memory-mapped arrays.
//!
//! The engine never sees a board. It sees indices, moves, un-moves and exits (see [`retro_game`]). Per position it
//! keeps one cell (the degree counter while open, the value once resolved; see `cell`), and per generation one
//! frontier (see `frontier`). The modules, in the order a solve uses them:
//!
//! - `memory`: how much memory a build may use when not told;
//! - `mapped`: memory-mapped arrays of atomics, anonymous or file-backed in a work directory;
//! - `bitmap`: a bit per index, for the positions with refuting exits and the settled ones;
//! - `cell`: the packed per-position state, in 8, 16 or 32 bits, widened when distances grow;
//! - `kernel`: what happens to one cell: its first state, and every update of a generation;
//! - `exits`: the best outcome of each position's exits, kept from initialisation for a writer of WDL floors;
//! - `schedule`: values known early (exits, terminal positions) waiting for their generation;
//! - `frontier`: the positions resolved in one generation, as a bitmap or a list;
//! - `pull`: a generation's wins found forward from the open positions, where that costs less than walking back;
//! - `solve`: initialisation and the generations, all in memory;
//! - `sliced`: the same generations out of core, slice by slice through files of a work directory, with
//!   checkpoints that let a killed build resume;
//! - `packed`: the compressed files that hold the slices of cells on disk;
//! - `solution`: the solved values and their totals;
//! - `certificate`: the local check that proves a solved table right.
//!
//! The number of threads is that of the rayon pool the caller runs [`solve`] in; the result is the same for any.

mod bitmap;
mod cell;
mod certificate;
mod exits;
mod floors;
mod frontier;
mod kernel;
mod mapped;
mod memory;
mod packed;
mod prefetch;
mod pull;
mod schedule;
mod sliced;
mod solution;
mod solve;

use std::path::PathBuf;

pub use certificate::{Inconsistency, certify, expected_value};
pub use exits::BestExits;
pub use mapped::Backing;
pub use memory::default_budget;
#[doc(hidden)]
pub use pull::Pulling;
pub use retro_game::{Game, Index, Inside, Move, Node, Outcome, PlayConvention, Value};
pub use solution::{Report, Solution, Stats};

/// How to solve. Build it with `..Default::default()`: fields are added compatibly.
#[derive(Clone, Debug, Default)]
pub struct SolveOptions {
    /// Normal play (no move loses) or misère play (no move wins).
    pub convention: PlayConvention,
    /// A work directory for scratch files and checkpoints. With one, the engine works slice by slice through files
    /// of this directory (as many slices as the memory budget calls for, often one), commits a checkpoint at the end
    /// of a generation at most every 20 seconds, resumes from the last checkpoint it finds there, and removes its
    /// files when it succeeds (the solved cells then live in an unlinked file of this directory until the
    /// `Solution` is dropped).
    /// Without one, everything is in memory and the table must fit the budget.
    pub work_dir: Option<PathBuf>,
    /// The most memory the engine's arrays may take, in bytes. `None`: [`default_budget`] (half of the RAM, or of the
    /// memory cgroup's limit when that is lower).
    pub memory: Option<u64>,
    /// Ignore (and remove) any checkpoint in the work directory and start over.
    pub fresh: bool,
    /// Keep the best outcome of every position's exits, found at initialisation, in the [`Solution`] (see
    /// [`Solution::take_best_exits`]): two bits an index, for a writer of WDL floors. Only an in-memory build keeps
    /// them, and only when they fit the budget beside its arrays.
    pub best_exits: bool,
    /// Hooks for the engine's own tests.
    #[doc(hidden)]
    pub testing: Testing,
}

/// Test hooks: a simulated crash, a simulated disk size.
#[doc(hidden)]
#[derive(Clone, Debug, Default)]
pub struct Testing {
    /// Stop with [`EngineError::Interrupted`] after this many steps of the sliced path (slices initialised, frontier
    /// chunks scattered, slices applied, checkpoints committed), leaving the work directory as a crash would.
    pub crash_after: Option<u64>,
    /// Pretend the work directory's file system has this many bytes free.
    pub free_space: Option<u64>,
    /// Walk generations of the sliced path in rounds of at most this many bucket bytes (at least one update).
    pub round_bytes: Option<u64>,
    /// Fail the sliced path's file writes with "no space left on device" once this many bytes were written.
    pub disk_full_after: Option<u64>,
    /// Gather at most this many of the positions a generation resolves on the sliced path (beyond, the next
    /// frontier is read off the cells) instead of a share of the budget.
    pub gathered_cap: Option<u64>,
    /// Whether an in-memory build pulls the wins of a generation where the game has turns: as the measured costs
    /// say, always, or never.
    pub pulling: Pulling,
    /// Do not sync files to the disk (a killed process loses nothing without it; a power cut would): keeps the
    /// thousands of small builds of the tests fast.
    pub skip_sync: bool,
}

/// What the engine reports while it works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The first pass over all indices.
    Initialising { done: u64, size: u64 },
    /// A generation is about to be walked: `frontier` positions were resolved at `generation`, `resolved` so far.
    Generation {
        generation: u32,
        frontier: u64,
        resolved: u64,
    },
}

/// Why a solve failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("the engine's arrays could not be created: {0}")]
    Io(#[from] std::io::Error),
    #[error("the game has {0} indices, more than this machine can address")]
    TooLarge(u64),
    #[error("the game allows {0} moves in one position, more than a counter holds")]
    TooManyMoves(u64),
    #[error("a distance exceeds 2^30 plies")]
    TooDeep,
    #[error("the game broke its contract: {0}")]
    GameContract(String),
    #[error(
        "the engine needs about {needed} bytes but the memory budget is {budget}: give it a work directory to build out of core"
    )]
    NeedsWorkDir { needed: u64, budget: u64 },
    #[error(
        "the work directory {dir} has {available} bytes free, but the build needs about {needed}"
    )]
    NoSpace {
        dir: PathBuf,
        needed: u64,
        available: u64,
    },
    #[error(
        "the work directory {0} is full; free some space there and run the same command again to resume from the last checkpoint"
    )]
    DiskFull(PathBuf),
    #[error("the checkpoint in the work directory is unusable ({0}); start afresh")]
    Checkpoint(String),
    #[error("interrupted by a test hook")]
    Interrupted,
}

/// What a build of a game will take, known before it starts: what [`solve`] decides from, computed by the same
/// functions, so that a planner reading it and the build itself cannot disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// The engine's expected peak for a build in memory: its arrays at the width they are expected to widen to,
    /// and its schedule. The returned [`Solution`] keeps the cells (part of this) until it is dropped.
    pub in_memory_bytes: u64,
    /// Whether the build goes out of core under `options.memory`: always with a work directory, and without one
    /// when `in_memory_bytes` exceeds the budget (then [`solve`] says [`EngineError::NeedsWorkDir`]).
    pub sliced: bool,
    /// The slices of an out-of-core build (0 in memory).
    pub slices: u64,
    /// The work directory's disk needs of an out-of-core build (0 in memory).
    pub scratch_bytes: u64,
}

/// What a build of `game` with `options` will take (see [`Estimate`]). Samples a few thousand positions, as
/// [`solve`] does before it starts; an error is one that [`solve`] would return at once.
pub fn estimate<G: Game>(game: &G, options: &SolveOptions) -> Result<Estimate, EngineError> {
    let size = game.size();
    usize::try_from(size).map_err(|_| EngineError::TooLarge(size))?;
    let budget = options.memory.unwrap_or_else(memory::default_budget);
    let sample = solve::Sample::of(game, options.convention);
    let bits = solve::start_width(game.max_moves(), game.longest_exit(), sample.by_parity)?.bits();
    let peak = solve::in_memory_peak(size, bits, sample.beside_arrays());
    let in_memory_bytes = peak + solve::best_exit_bytes(size, options, peak, budget);
    let sliced = options.work_dir.is_some() || in_memory_bytes > budget;
    let (slices, scratch_bytes) = if sliced {
        sliced::plan(size, bits, budget)
    } else {
        (0, 0)
    };
    Ok(Estimate {
        in_memory_bytes,
        sliced,
        slices,
        scratch_bytes,
    })
}

/// Solves `game`: the value of every index.
pub fn solve<G: Game>(game: &G, options: &SolveOptions) -> Result<Solution, EngineError> {
    solve::solve(game, options, &|_| {})
}

/// Solves `game`, calling `progress` at the start of every generation and now and then during initialisation.
pub fn solve_with_progress<G: Game>(
    game: &G,
    options: &SolveOptions,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Solution, EngineError> {
    solve::solve(game, options, progress)
}
