//! Out of core: the generations of `solve`, slice by slice through files of a work directory, with checkpoints.
//!
//! The index space is cut into slices of `2^shift` indices, as long as an eighth of the memory budget allows for one
//! slice of cells (and never more than [`MAX_SLICES`] slices, so that the bucket files stay few). As many slices of
//! cells stay resident as the rest of the budget holds ([`resident_slots`]); everything else is a file, read and
//! written whole and in order:
//!
//! ```text
//!   cells-<slice>-<tag>   the cells of one slice, packed (see `packed`), rewritten when a generation changes them
//!   frontier-<tag>        the frontier of the current generation: sorted u64 entries `index << 1 | won`
//!   bucket-<slice>        the updates a generation sends to one slice: u32 entries `offset << 1 | won`
//!   manifest              the last checkpoint: which files hold the state, and the generation
//! ```
//!
//! A generation *scatters* its frontier (read in chunks, `unmoves` in parallel, a chunk's bucket entries written
//! while the next chunk is walked): an update of a resident slice is applied to its cells at once, the others go
//! into one bucket per target slice; then it *applies* each bucket with
//! its slice resident. Both go through the very cell transitions of the in-memory walk (`kernel::update`); they
//! do not depend on the order of the updates, so the result is bit-identical to the
//! in-memory path. The next frontier of a slice is read off its cells afterwards: after
//! generation `g` has been applied, the cells of the slice valued exactly `g + 1` are the positions resolved by
//! the walk plus the scheduled values due at `g + 1` that still stand (every tentative value is scheduled at its
//! own distance). So the schedule shrinks to counts: per slice, how many values were scheduled at each generation,
//! which says which slices must be read to publish them and which generation comes next when a frontier is empty.
//! A slice without values due at `g + 1` need not be read at all: the positions the updates resolve are gathered as
//! they are resolved ([`Resolved`], up to a sixty-fourth of the budget), which in the long tail of a build is a few
//! thousand positions where reading them off would scan billions of cells.
//!
//! Resident slices stay between phases and are written back only when another needs their slot or a checkpoint is
//! due, so that a table whose cells fit the budget is read once and written at checkpoints only, and one a little
//! larger moves one slot's worth of cells through the disk per generation, not the whole table. (Small slices make
//! the resident ones fit the budget closely: with one slice of half the budget, a table of 3.1 budgets' cells moved
//! all of them twice, in and out, every generation.)
//!
//! The jobs are split by module: `checkpoint` (the manifest and its commit), `files` (cells, buckets and frontiers on
//! disk), `residency` (which slices are in memory), `scatter` and `apply` (the two halves of a generation); this
//! module holds the build's state and runs the generations.
//!
//! Checkpoints are committed at the end of a generation when the last one is [`COMMIT_INTERVAL`] old, and four times
//! as old as the last one took (and after initialisation and widening). Every file has a fresh tag; the files a
//! checkpoint names stay until the next one is committed (written to a temporary name, synced, renamed, directory
//! synced), so a build killed at any moment finds either the old checkpoint or the new one, complete, and anything
//! else in the directory is garbage from an unfinished phase, removed on resume. The manifest carries a checksum of
//! its own text, the lengths of the files it names, and a fingerprint of the game and the play convention, so that
//! a checkpoint of another build is refused.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use retro_game::{Game, Move, Node, PlayConvention};

use crate::cell::{CellWidth, Cells, P8, State, W8, W16, W32, Width};
use crate::kernel::{
    Effect, Findings, Refuters, initial_each, loss_floor, moves_to_refute, update,
};
use crate::mapped::Backing;
use crate::packed;
use crate::solution::{Report, Solution};
use crate::{EngineError, Progress, SolveOptions};

mod apply;
mod checkpoint;
mod files;
mod residency;
mod scatter;

use apply::*;
use checkpoint::*;
use files::*;
use residency::*;
use scatter::*;

/// Every file of the engine in a work directory starts with this; nothing else there is touched.
const PREFIX: &str = "retro-engine-";
const MANIFEST: &str = "retro-engine-manifest";
/// One bit per index, written once after initialisation: whether the position has an exit into a win for the
/// opponent (only such a position's loss can come later than its counter says).
const REFUTERS: &str = "retro-engine-refuters";
/// The finished cells, all slices in order (its name is removed as soon as it is open).
const SOLUTION: &str = "retro-engine-solution";
const MANIFEST_VERSION: &str = "retro-engine checkpoint 3";
/// The fewest indices in a slice.
const MIN_SLICE_SHIFT: u32 = 2;
/// The most indices in a slice: a bucket entry holds an offset in 31 bits.
const MAX_SLICE_SHIFT: u32 = 31;
/// The most slices: one bucket file each is open during a scatter.
const MAX_SLICES: u64 = 256;
/// Frontier entries scattered per parallel step.
const FRONTIER_CHUNK: usize = 1 << 14;
/// Bucket entries applied per parallel step.
const BUCKET_CHUNK: usize = 1 << 18;
/// The least time between two checkpoints: a checkpoint syncs the disk, which takes a noticeable fraction of a
/// second, and generations can be much shorter.
const COMMIT_INTERVAL: Duration = Duration::from_secs(20);
/// Indices initialised or scanned by one rayon task.
const TASK: usize = 1 << 12;

/// Solves `game` out of core in `dir` (see the module documentation).
pub fn solve<G: Game>(
    game: &G,
    options: &SolveOptions,
    dir: &Path,
    budget: u64,
    width: CellWidth,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Solution, EngineError> {
    solve_in(game, options, dir, budget, width, progress).map_err(|e| match e {
        EngineError::Io(io) if io.raw_os_error() == Some(libc::ENOSPC) => {
            EngineError::DiskFull(dir.to_owned())
        }
        e => e,
    })
}

fn solve_in<G: Game>(
    game: &G,
    options: &SolveOptions,
    dir: &Path,
    budget: u64,
    width: CellWidth,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Solution, EngineError> {
    fs::create_dir_all(dir)?;
    let fingerprint = fingerprint(game, options.convention);
    let mut sliced = Sliced {
        game,
        convention: options.convention,
        dir: dir.to_owned(),
        budget,
        progress,
        report: Report::default(),
        steps: 0,
        crash_after: options.testing.crash_after,
        disk_full_after: options.testing.disk_full_after,
        round_bytes: options
            .testing
            .round_bytes
            .unwrap_or_else(|| round_bytes(budget)),
        sync: !options.testing.skip_sync,
        // A sixty-fourth of the budget, in entries of 8 bytes.
        gathered_cap: options.testing.gathered_cap.unwrap_or(budget / 64 / 8),
        committed: None,
        last_commit: Instant::now(),
        last_commit_cost: Duration::ZERO,
        // Tests commit every generation, to be interrupted between any two.
        commit_interval: if options.testing.skip_sync {
            Duration::ZERO
        } else {
            COMMIT_INTERVAL
        },
    };
    if options.fresh {
        sliced.remove_files(|_| true)?;
    }
    let resumed = match read_manifest(dir)? {
        Some(state) if state.fingerprint == fingerprint && state.size == game.size() => {
            sliced.check_files(&state)?;
            sliced.remove_files(|name| !state.references(name))?;
            sliced.report.resumed_at = Some(state.generation);
            sliced.committed = Some(state.clone());
            Some(state)
        }
        Some(_) => {
            return Err(EngineError::Checkpoint(format!(
                "{} holds a checkpoint of another game or play convention",
                dir.display()
            )));
        }
        None => {
            sliced.remove_files(|_| true)?;
            None
        }
    };
    let state = match resumed {
        Some(state) => state,
        None => {
            let needed = disk_estimate(game.size(), width.bits(), budget);
            let available = match options.testing.free_space {
                Some(free) => free,
                None => free_space(dir)?,
            };
            if needed > available {
                return Err(EngineError::NoSpace {
                    dir: dir.to_owned(),
                    needed,
                    available,
                });
            }
            sliced.start(width, fingerprint)?
        }
    };
    sliced.dispatch(state)
}

/// The most bucket bytes one round of a generation writes: as much as the memory budget, at least 4 MiB. A
/// generation whose updates take more is walked in several rounds, so the buckets never take more disk than this.
fn round_bytes(budget: u64) -> u64 {
    budget.max(4 << 20)
}

/// What the scratch files of a build take, as far as can be told before it starts: two versions of the cells (at
/// the starting width), two frontiers of 8 bytes per entry, each assumed to hold at most an eighth of the positions,
/// and one round of buckets. A generation that resolves more than that stops the build with a clear error when
/// the disk fills, and the build resumes from its last checkpoint once there is room.
fn disk_estimate(size: u64, bits: u32, budget: u64) -> u64 {
    let cells = size.saturating_mul(u64::from(bits) / 8);
    cells
        .saturating_mul(2)
        .saturating_add(size.saturating_mul(2))
        .saturating_add(round_bytes(budget))
        .saturating_add(1 << 20)
}

/// The slices of an out-of-core build of `size` indices starting with cells of `bits` bits, and its disk needs
/// ([`disk_estimate`]), as the build will choose them: for [`crate::estimate`].
pub(crate) fn plan(size: u64, bits: u32, budget: u64) -> (u64, u64) {
    let shift = slice_shift(size, bits, budget);
    (size.div_ceil(1 << shift), disk_estimate(size, bits, budget))
}

/// The indices per slice, as a power of two: one slice of cells takes at most an eighth of the budget (so that the
/// resident slices can fill it closely, see [`resident_slots`]), within the bounds on slice size and count.
fn slice_shift(size: u64, bits: u32, budget: u64) -> u32 {
    let cells = (budget / 8 / (u64::from(bits) / 8)).max(1);
    let by_budget = 63 - cells.leading_zeros();
    let by_count = size
        .div_ceil(MAX_SLICES)
        .max(1)
        .next_power_of_two()
        .trailing_zeros();
    by_budget
        .max(by_count)
        .clamp(MIN_SLICE_SHIFT, MAX_SLICE_SHIFT)
}

struct Sliced<'a, G> {
    game: &'a G,
    convention: PlayConvention,
    dir: PathBuf,
    budget: u64,
    progress: &'a (dyn Fn(&Progress) + Sync),
    report: Report,
    steps: u64,
    crash_after: Option<u64>,
    /// A simulated disk size: file writes fail as on a full disk beyond this many bytes.
    disk_full_after: Option<u64>,
    /// The most bucket bytes of one round of a generation.
    round_bytes: u64,
    /// Whether files are synced before a checkpoint names them.
    sync: bool,
    /// The most positions a generation gathers as it resolves them (see [`Resolved`]).
    gathered_cap: u64,
    /// The last checkpoint committed, and when; a checkpoint is committed when the last is this old.
    committed: Option<Checkpoint>,
    last_commit: Instant,
    commit_interval: Duration,
    /// How long the last checkpoint of a generation took, flushing the resident slices included.
    last_commit_cost: Duration,
}

/// Why a first pass stopped: a state its cells cannot hold, off its parity (plain bytes may hold it) or too deep.
struct Misfit {
    off_parity: bool,
}

impl<G: Game> Sliced<'_, G> {
    /// Counts a step of work; the test hook stops the build here as a crash would.
    fn step(&mut self) -> Result<(), EngineError> {
        self.steps += 1;
        match self.crash_after {
            Some(limit) if self.steps > limit => Err(EngineError::Interrupted),
            _ => Ok(()),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Initialises cells of `width`; starts over in plain bytes if a distance does not follow its parity in cells
    /// by parity, wider if it is too long for them.
    fn start(&mut self, width: CellWidth, fingerprint: u64) -> Result<Checkpoint, EngineError> {
        let started = match width {
            CellWidth::P8 => self.initialise::<P8>(fingerprint)?,
            CellWidth::W8 => self.initialise::<W8>(fingerprint)?,
            CellWidth::W16 => self.initialise::<W16>(fingerprint)?,
            CellWidth::W32 => self.initialise::<W32>(fingerprint)?,
        };
        let other = match (started, width) {
            (Ok(state), _) => return Ok(state),
            (Err(Misfit { off_parity: true }), CellWidth::P8) => CellWidth::W8,
            (Err(_), CellWidth::P8 | CellWidth::W8) => CellWidth::W16,
            (Err(_), CellWidth::W16) => CellWidth::W32,
            (Err(_), CellWidth::W32) => return Err(EngineError::TooDeep),
        };
        self.remove_files(|_| true)?;
        self.start(other, fingerprint)
    }

    fn dispatch(&mut self, state: Checkpoint) -> Result<Solution, EngineError> {
        self.report.slices = state.slices() as u64;
        self.report.slice_positions = 1 << state.shift;
        match state.width {
            CellWidth::P8 => self.run::<P8>(state),
            CellWidth::W8 => self.run::<W8>(state),
            CellWidth::W16 => self.run::<W16>(state),
            CellWidth::W32 => self.run::<W32>(state),
        }
    }

    /// Initialises the cells slice by slice, as the in-memory engine does; a misfit when a state does not fit cells
    /// of width `W`.
    fn initialise<W: Width>(
        &mut self,
        fingerprint: u64,
    ) -> Result<Result<Checkpoint, Misfit>, EngineError> {
        let game = self.game;
        let size = game.size();
        let max_moves = game.max_moves();
        let shift = slice_shift(size, W::BITS, self.budget);
        let slices = size.div_ceil(1 << shift) as usize;
        let mut state = Checkpoint {
            fingerprint,
            size,
            width: CellWidth::of::<W>(),
            shift,
            generation: 0,
            frontier_tag: 1,
            frontier_len: 0,
            resolved: 0,
            refuting_exits: false,
            refuters: true,
            epoch: 1,
            cell_tags: vec![1; slices],
            cell_lengths: vec![0; slices],
            seeds: vec![BTreeMap::new(); slices],
        };
        let mut buffer = Cells::<W>::new(1 << shift, &Backing::Memory)?;
        let mut frontier = FrontierWriter::create(&self.path(&frontier_name(1)))?;
        let refuters = Refuters::new(size, &Backing::Memory, "refuters")?;
        for slice in 0..slices {
            let (base, len) = state.slice_range(slice);
            let findings = Findings::default();
            let cells = &buffer;
            // Progress within the slice too: a slice of a six-man table takes minutes.
            let tasks_done = std::sync::atomic::AtomicU64::new(0);
            let seeds = (0..len.div_ceil(TASK))
                .into_par_iter()
                .fold(BTreeMap::new, |mut seeds: BTreeMap<u32, u64>, task| {
                    // A state these cells cannot hold means starting over in others: no use going on.
                    if findings.misfit() {
                        return seeds;
                    }
                    let offsets = task * TASK..((task + 1) * TASK).min(len);
                    let indices = base + offsets.start as u64..base + offsets.end as u64;
                    initial_each::<G, W>(
                        game,
                        self.convention,
                        indices,
                        max_moves,
                        |index, initial| {
                            if initial.refuting {
                                refuters.mark(index);
                            }
                            if let Some(state) = findings.record(initial) {
                                cells.set_raw((index - base) as usize, W::encode(state));
                                if let State::Won(p) | State::Lost(p) = state {
                                    *seeds.entry(p).or_default() += 1;
                                }
                            }
                        },
                    );
                    let done = tasks_done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    if done.is_multiple_of(256) {
                        (self.progress)(&Progress::Initialising {
                            done: base + (done * TASK as u64).min(len as u64),
                            size,
                        });
                    }
                    seeds
                })
                .reduce(BTreeMap::new, merge_counts);
            if !findings.fits(max_moves)? {
                return Ok(Err(Misfit {
                    off_parity: findings.off_parity(),
                }));
            }
            state.refuting_exits |= findings.refuting();
            state.seeds[slice] = seeds;
            if state.seeds[slice].remove(&0).is_some() {
                write_due(&buffer, base, len, 0, &mut frontier)?;
            }
            self.write_cells(&mut state, slice, 1, buffer.bytes(len))?;
            (self.progress)(&Progress::Initialising {
                done: base + len as u64,
                size,
            });
            self.step()?;
        }
        state.frontier_len = frontier.finish(&mut self.report)?;
        let words: Vec<u8> = refuters.words().flat_map(u64::to_ne_bytes).collect();
        self.write_file(REFUTERS, &words)?;
        self.commit(&state)?;
        Ok(Ok(state))
    }

    /// The refuter bits of the indices `base..base + len`, as the words that hold them (the first word holds
    /// index `base / 64 * 64`); `None` when the checkpoint has no refuters file (every loss is then expanded again).
    fn refuters_of(
        &mut self,
        state: &Checkpoint,
        base: u64,
        len: usize,
    ) -> io::Result<Option<Vec<u64>>> {
        if !state.refuting_exits || !state.refuters {
            return Ok(None);
        }
        let first = base / 64;
        let words = (base + len as u64).div_ceil(64) - first;
        let mut bytes = vec![0u8; words as usize * 8];
        let mut file = File::open(self.path(REFUTERS))?;
        file.seek(SeekFrom::Start(first * 8))?;
        file.read_exact(&mut bytes)?;
        self.report.bytes_read += bytes.len() as u64;
        Ok(Some(
            bytes
                .chunks_exact(8)
                .map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes")))
                .collect(),
        ))
    }

    fn run<W: Width>(&mut self, mut state: Checkpoint) -> Result<Solution, EngineError> {
        let slice_bytes = (1u64 << state.shift) * u64::from(W::BITS / 8);
        let capacity = resident_slots(self.budget, state.shift, slice_bytes, state.slices());
        let mut resident = Resident::<W>::new(capacity, 1 << state.shift);
        loop {
            let g = state.generation;
            if state.frontier_len == 0 {
                match state.next_scheduled() {
                    Some(later) => {
                        self.publish::<W>(&mut state, &mut resident, later)?;
                        self.checkpoint(&mut state, &mut resident)?;
                        continue;
                    }
                    None => break,
                }
            }
            if g + 1 > W::MAX_PLIES {
                if W::BITS == W::Wider::BITS {
                    return Err(EngineError::TooDeep);
                }
                self.flush(&mut state, &mut resident)?;
                drop(resident);
                let wider = self.widen::<W>(state)?;
                return self.dispatch(wider);
            }
            state.resolved += state.frontier_len;
            (self.progress)(&Progress::Generation {
                generation: g,
                frontier: state.frontier_len,
                resolved: state.resolved,
            });
            // The frontier is walked in rounds whose buckets fit the round's share of the disk; every round's
            // updates are applied before the next is scattered. Updates commute, so rounds change nothing in the
            // result; only the last round reads the next frontier off the cells.
            let mut touched = vec![false; state.slices()];
            let mut resolved = Resolved::new(state.slices(), state.shift, self.gathered_cap);
            let mut start = 0;
            loop {
                let (buckets, next) = self.scatter(
                    &mut state,
                    &mut resident,
                    start,
                    &mut touched,
                    &mut resolved,
                )?;
                let last = next == state.frontier_len;
                self.apply::<W>(
                    &mut state,
                    &mut resident,
                    &buckets,
                    last,
                    &mut touched,
                    &mut resolved,
                )?;
                if last {
                    break;
                }
                start = next;
            }
            self.checkpoint(&mut state, &mut resident)?;
        }
        self.flush(&mut state, &mut resident)?;
        drop(resident);
        self.finish::<W>(state)
    }

    /// Rewrites the cells twice as wide, in slices half as long when the budget asks for it.
    fn widen<W: Width>(&mut self, state: Checkpoint) -> Result<Checkpoint, EngineError> {
        let shift = slice_shift(state.size, W::Wider::BITS, self.budget).min(state.shift);
        let per_old = 1usize << (state.shift - shift);
        let slices = state.size.div_ceil(1 << shift) as usize;
        let tag = state.epoch + 1;
        let mut wider = Checkpoint {
            width: CellWidth::of::<W::Wider>(),
            shift,
            epoch: tag,
            cell_tags: vec![tag; slices],
            cell_lengths: vec![0; slices],
            seeds: vec![BTreeMap::new(); slices],
            ..state.clone()
        };
        let mut old = Cells::<W>::new(1 << state.shift, &Backing::Memory)?;
        let mut new = Cells::<W::Wider>::new(1 << shift, &Backing::Memory)?;
        for slice in 0..state.slices() {
            let (_, len) = state.slice_range(slice);
            self.read_cells(&state, slice, old.bytes_mut(len))?;
            for part in 0..per_old {
                let target = slice * per_old + part;
                if target >= slices {
                    break;
                }
                let (_, new_len) = wider.slice_range(target);
                let start = part << shift;
                let (source, target_cells) = (&old, &new);
                (0..new_len)
                    .into_par_iter()
                    .with_min_len(TASK)
                    .for_each(|i| {
                        target_cells.set_raw(i, W::Wider::encode(source.state(start + i)));
                    });
                // Stale counts would only cost a needless read: a slice inherits those of the slice it came from.
                wider.seeds[target] = state.seeds[slice].clone();
                self.write_cells(&mut wider, target, tag, new.bytes(new_len))?;
            }
            self.step()?;
        }
        self.commit(&wider)?;
        Ok(wider)
    }

    /// Gathers the slices into one file-backed array for the [`Solution`] and removes the scratch files.
    fn finish<W: Width>(&mut self, state: Checkpoint) -> Result<Solution, EngineError> {
        // The slices are copied one after the other into a file without a name, with ordinary writes, and the
        // solution maps it. Reading them into a fresh mapping instead would leave every page dirty: under a memory
        // limit the kernel would have to write each one back before dropping it, a page at a time.
        let path = self.path(SOLUTION);
        let mut all = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        fs::remove_file(&path)?;
        let cell_bytes = u64::from(W::BITS / 8);
        let mut buffer = vec![0u8; (1usize << state.shift) * cell_bytes as usize];
        for slice in 0..state.slices() {
            let bytes = &mut buffer[..state.slice_range(slice).1 * cell_bytes as usize];
            self.read_cells(&state, slice, bytes)?;
            all.write_all(bytes)?;
            self.report.bytes_written += bytes.len() as u64;
        }
        drop(buffer);
        release_cache(&all, state.size * cell_bytes);
        let cells = Cells::<W>::from_unlinked_file(all, state.size as usize, &self.dir)?;
        // The manifest first: a crash while cleaning up must not leave a checkpoint naming removed files.
        fs::remove_file(self.path(MANIFEST))?;
        self.remove_files(|_| true)?;
        Ok(Solution::new(W::into_solved(cells), state.generation).with_report(self.report.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        let mut seeds = vec![BTreeMap::new(); 3];
        seeds[1].insert(7, 2);
        seeds[2].insert(9, 1);
        seeds[2].insert(12, 5);
        Checkpoint {
            fingerprint: 0xdead_beef,
            size: 10,
            width: CellWidth::W16,
            shift: 2,
            generation: 5,
            frontier_tag: 6,
            frontier_len: 3,
            resolved: 4,
            refuting_exits: true,
            refuters: true,
            epoch: 6,
            cell_tags: vec![1, 6, 4],
            cell_lengths: vec![17, 9, 11],
            seeds,
        }
    }

    #[test]
    fn manifests_round_trip_and_refuse_damage() {
        let state = sample();
        let text = state.to_text();
        assert_eq!(Checkpoint::from_text(&text), Ok(state));
        let damaged = text.replace("generation 5", "generation 6");
        assert!(
            Checkpoint::from_text(&damaged)
                .unwrap_err()
                .contains("checksum")
        );
        assert!(Checkpoint::from_text(&text[..text.len() / 2]).is_err());
    }

    #[test]
    fn slices_follow_the_budget_within_their_bounds() {
        assert_eq!(slice_shift(1 << 20, 8, 1 << 30), 27);
        assert_eq!(slice_shift(1 << 20, 8, 1 << 16), 13);
        assert_eq!(slice_shift(1 << 20, 16, 1 << 16), 12);
        // Never more than MAX_SLICES slices, never fewer than 4 indices in one.
        assert_eq!(slice_shift(1 << 20, 8, 16), 12);
        assert_eq!(slice_shift(10, 32, 1), MIN_SLICE_SHIFT);
    }

    #[test]
    fn resident_slices_fill_the_budget_after_the_rest() {
        // 1 GiB: 5 MiB of bucket buffers and 64 MiB kept back leave 955 MiB for slots of 128 MiB of cells and
        // 8 MiB of refuter bits.
        assert_eq!(resident_slots(1 << 30, 26, 1 << 27, 20), 7);
        // 96 MiB, 53 slices of 8 MiB: 6 MiB of buffers (113 KiB each) and 6 MiB kept back leave 84 MiB.
        assert_eq!(bucket_buffer(96 << 20, 53), (6 << 20) / 53);
        assert_eq!(resident_slots(96 << 20, 22, 8 << 20, 53), 9);
        // Never more slots than slices, never fewer than one.
        assert_eq!(resident_slots(1 << 30, 26, 1 << 27, 3), 3);
        assert_eq!(resident_slots(1 << 20, 26, 1 << 27, 20), 1);
        // A six-man table: 13 slices of 2^29 two-byte cells (1 GiB, and 64 MiB of refuter bits) under 13 GiB.
        assert_eq!(resident_slots(13 << 30, 29, 1 << 30, 13), 11);
    }
}
