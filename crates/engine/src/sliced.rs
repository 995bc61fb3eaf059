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

use crate::cell::{Cells, State, W8, W16, W32, Width};
use crate::kernel::{Effect, Findings, Refuters, initial, update_either};
use crate::mapped::Backing;
use crate::packed;
use crate::solution::{Report, Solution};
use crate::{EngineError, Progress, SolveOptions};

/// Every file of the engine in a work directory starts with this; nothing else there is touched.
const PREFIX: &str = "retro-engine-";
const MANIFEST: &str = "retro-engine-manifest";
/// One bit per index, written once after initialisation: whether the position has an exit into a win for the
/// opponent (only such a position's loss can come later than its counter says).
const REFUTERS: &str = "retro-engine-refuters";
/// The finished cells, all slices in order (its name is removed as soon as it is open).
const SOLUTION: &str = "retro-engine-solution";
const MANIFEST_VERSION: &str = "retro-engine checkpoint 2";
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
    bits: u32,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Solution, EngineError> {
    solve_in(game, options, dir, budget, bits, progress).map_err(|e| match e {
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
    bits: u32,
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
            let needed = disk_estimate(game.size(), bits, budget);
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
            sliced.start(bits, fingerprint)?
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

/// Bytes free for an unprivileged user on the file system of `dir`.
fn free_space(dir: &Path) -> io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: statvfs only writes into the zeroed struct we pass, and `path` is a valid NUL-terminated string that
    // outlives the call.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

/// Writes every dirty page of the file system that holds `file` to the disk.
fn sync_file_system(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: syncfs only reads the descriptor, which `file` keeps open for the duration of the call.
    if unsafe { libc::syncfs(file.as_raw_fd()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A checkpoint: everything needed to carry on from the start of `generation`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Checkpoint {
    fingerprint: u64,
    size: u64,
    /// Cell width in bits.
    bits: u32,
    /// Slices hold `1 << shift` indices.
    shift: u32,
    generation: u32,
    /// The frontier of `generation` (its scheduled values included) and its length.
    frontier_tag: u64,
    frontier_len: u64,
    /// Positions resolved before `generation`.
    resolved: u64,
    refuting_exits: bool,
    /// Whether the refuters file says which positions have such exits (checkpoints of older builds do not have it:
    /// then every loss is expanded again for its floor).
    refuters: bool,
    /// The tag of the next files to be written is `epoch + 1`.
    epoch: u64,
    /// Per slice, the tag of its cells file.
    cell_tags: Vec<u64>,
    /// Per slice, the length of its cells file (packed, see [`crate::packed`]).
    cell_lengths: Vec<u64>,
    /// Per slice, how many values were scheduled at each generation after `generation`.
    seeds: Vec<BTreeMap<u32, u64>>,
}

impl Checkpoint {
    /// A tag never used before for a file of this build.
    fn new_tag(&mut self) -> u64 {
        self.epoch += 1;
        self.epoch
    }

    fn slices(&self) -> usize {
        self.cell_tags.len()
    }

    fn slice_range(&self, slice: usize) -> (u64, usize) {
        let base = (slice as u64) << self.shift;
        let len = (self.size - base).min(1 << self.shift);
        (base, len as usize)
    }

    fn references(&self, name: &str) -> bool {
        name == MANIFEST
            || (self.refuters && name == REFUTERS)
            || name == frontier_name(self.frontier_tag)
            || self
                .cell_tags
                .iter()
                .enumerate()
                .any(|(s, &tag)| name == cells_name(s, tag))
    }

    /// The earliest generation with scheduled values, in any slice.
    fn next_scheduled(&self) -> Option<u32> {
        self.seeds
            .iter()
            .filter_map(|m| m.keys().next().copied())
            .min()
    }

    fn to_text(&self) -> String {
        let mut text = format!(
            "{MANIFEST_VERSION}\nfingerprint {:016x}\nsize {}\nbits {}\nshift {}\ngeneration {}\nfrontier {} {}\n\
             resolved {}\nrefuting {}\nepoch {}\ncells",
            self.fingerprint,
            self.size,
            self.bits,
            self.shift,
            self.generation,
            self.frontier_tag,
            self.frontier_len,
            self.resolved,
            match (self.refuting_exits, self.refuters) {
                (false, _) => 0,
                (true, false) => 1,
                (true, true) => 2,
            },
            self.epoch
        );
        for tag in &self.cell_tags {
            text.push_str(&format!(" {tag}"));
        }
        text.push_str("\nlengths");
        for length in &self.cell_lengths {
            text.push_str(&format!(" {length}"));
        }
        text.push('\n');
        for (slice, seeds) in self.seeds.iter().enumerate() {
            if seeds.is_empty() {
                continue;
            }
            text.push_str(&format!("seeds {slice}"));
            for (g, n) in seeds {
                text.push_str(&format!(" {g}:{n}"));
            }
            text.push('\n');
        }
        let sum = checksum(text.as_bytes());
        text.push_str(&format!("checksum {sum:016x}\n"));
        text
    }

    fn from_text(text: &str) -> Result<Checkpoint, String> {
        let body_end = text
            .rfind("checksum ")
            .ok_or("the manifest has no checksum")?;
        let (body, tail) = text.split_at(body_end);
        let sum = u64::from_str_radix(tail.trim_start_matches("checksum ").trim(), 16)
            .map_err(|_| "the manifest's checksum is malformed")?;
        if sum != checksum(body.as_bytes()) {
            return Err("the manifest's checksum does not match".into());
        }
        let mut lines = body.lines();
        if lines.next() != Some(MANIFEST_VERSION) {
            return Err("the manifest is of another version".into());
        }
        let mut fields: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        let mut seeds_lines = Vec::new();
        for line in lines {
            let mut words = line.split_whitespace();
            let key = words.next().ok_or("the manifest has an empty line")?;
            if key == "seeds" {
                seeds_lines.push(words.collect::<Vec<_>>());
            } else {
                fields.insert(key, words.collect());
            }
        }
        let word = |key: &str, i: usize| -> Result<&str, String> {
            fields
                .get(key)
                .and_then(|w| w.get(i).copied())
                .ok_or_else(|| format!("the manifest lacks {key}"))
        };
        let num = |key: &str, i: usize| -> Result<u64, String> {
            word(key, i)?
                .parse()
                .map_err(|_| format!("the manifest's {key} is malformed"))
        };
        let fingerprint = u64::from_str_radix(word("fingerprint", 0)?, 16)
            .map_err(|_| "the manifest's fingerprint is malformed")?;
        let cell_tags = fields
            .get("cells")
            .ok_or("the manifest lacks cells")?
            .iter()
            .map(|w| w.parse().map_err(|_| "the manifest's cells are malformed"))
            .collect::<Result<Vec<u64>, _>>()?;
        let cell_lengths = fields
            .get("lengths")
            .ok_or("the manifest lacks lengths")?
            .iter()
            .map(|w| {
                w.parse()
                    .map_err(|_| "the manifest's lengths are malformed")
            })
            .collect::<Result<Vec<u64>, _>>()?;
        let mut seeds = vec![BTreeMap::new(); cell_tags.len()];
        for line in seeds_lines {
            let slice: usize = line
                .first()
                .and_then(|w| w.parse().ok())
                .filter(|&s| s < cell_tags.len())
                .ok_or("the manifest's seeds are malformed")?;
            for pair in &line[1..] {
                let (g, n) = pair
                    .split_once(':')
                    .and_then(|(g, n)| Some((g.parse().ok()?, n.parse().ok()?)))
                    .ok_or("the manifest's seeds are malformed")?;
                seeds[slice].insert(g, n);
            }
        }
        let checkpoint = Checkpoint {
            fingerprint,
            size: num("size", 0)?,
            bits: num("bits", 0)? as u32,
            shift: num("shift", 0)? as u32,
            generation: num("generation", 0)? as u32,
            frontier_tag: num("frontier", 0)?,
            frontier_len: num("frontier", 1)?,
            resolved: num("resolved", 0)?,
            refuting_exits: num("refuting", 0)? >= 1,
            refuters: num("refuting", 0)? == 2,
            epoch: num("epoch", 0)?,
            cell_tags,
            cell_lengths,
            seeds,
        };
        let slices_needed = if checkpoint.shift > MAX_SLICE_SHIFT {
            None
        } else {
            Some(checkpoint.size.div_ceil(1 << checkpoint.shift))
        };
        if ![8, 16, 32].contains(&checkpoint.bits)
            || slices_needed != Some(checkpoint.cell_tags.len() as u64)
            || checkpoint.cell_lengths.len() != checkpoint.cell_tags.len()
        {
            return Err("the manifest's slices do not cover the table".into());
        }
        Ok(checkpoint)
    }
}

fn cells_name(slice: usize, tag: u64) -> String {
    format!("{PREFIX}cells-{slice}-{tag}")
}

fn frontier_name(tag: u64) -> String {
    format!("{PREFIX}frontier-{tag}")
}

fn bucket_name(slice: usize) -> String {
    format!("{PREFIX}bucket-{slice}")
}

/// FNV-1a over the bytes: the manifest's own checksum and the game's fingerprint.
fn checksum(bytes: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for &b in bytes {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// A fingerprint of the game and the convention: the size, the move bound and the moves of up to 257 positions
/// spread over the table. A checkpoint is only resumed by a build with the same fingerprint.
fn fingerprint<G: Game>(game: &G, convention: PlayConvention) -> u64 {
    let size = game.size();
    let mut text = format!("{size} {} {convention:?}", game.max_moves());
    if size > 0 {
        for k in 0..=256u64 {
            let index = ((u128::from(size - 1) * u128::from(k)) / 256) as u64;
            let node = game.expand(index, |m| match m {
                Move::To(q) => text.push_str(&format!(" {q}")),
                Move::Exit(v) => text.push_str(&format!(" {v:?}")),
            });
            let node = match node {
                Node::Hole => "h".to_string(),
                Node::Terminal(v) => format!("t{v:?}"),
                Node::Playable => "p".to_string(),
            };
            text.push_str(&node);
        }
    }
    checksum(text.as_bytes())
}

fn read_manifest(dir: &Path) -> Result<Option<Checkpoint>, EngineError> {
    match fs::read_to_string(dir.join(MANIFEST)) {
        Ok(text) => Checkpoint::from_text(&text)
            .map(Some)
            .map_err(EngineError::Checkpoint),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
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

/// The slices of cells in memory: as many as the budget holds ([`resident_slots`]), each in a slot of its own.
struct Resident<W: Width> {
    slots: Vec<Slot<W>>,
    /// The most slots.
    capacity: usize,
    /// Indices per slot (a slice's length, at most).
    slot_len: usize,
    /// The slot used last: the one that makes room when every slot is taken. Not the one used first: a generation
    /// visits the slices in order, and with fewer slots than slices, evicting the oldest would miss every time,
    /// while evicting the newest keeps all but one slot's slices resident from one generation to the next.
    recent: usize,
}

/// One slice of cells in memory, with its refuter bits.
struct Slot<W: Width> {
    cells: Cells<W>,
    /// The refuter bits of its slice ([`Sliced::refuters_of`]).
    refuters: Option<Vec<u64>>,
    /// Which slice it holds, if any.
    slice: Option<usize>,
    /// Whether it changed since it was read.
    dirty: bool,
}

/// Whether the position at `offset` in the slice starting at `base` may resist a loss through an exit: its bit in
/// `refuters` (the words of [`Sliced::refuters_of`]), or, without them, whether any position of the table has an
/// exit into a win for the opponent.
#[inline]
fn may_resist(refuters: &Option<Vec<u64>>, refuting_exits: bool, base: u64, offset: usize) -> bool {
    match refuters {
        Some(words) => {
            let index = base + offset as u64 - base / 64 * 64;
            words[(index / 64) as usize] & (1 << (index % 64)) != 0
        }
        None => refuting_exits,
    }
}

impl<W: Width> Resident<W> {
    fn new(capacity: usize, slot_len: usize) -> Resident<W> {
        Resident {
            slots: Vec::new(),
            capacity: capacity.max(1),
            slot_len,
            recent: 0,
        }
    }

    /// The slot holding `slice`, if one does.
    fn slot_of(&self, slice: usize) -> Option<usize> {
        self.slots.iter().position(|s| s.slice == Some(slice))
    }
}

/// How many slices of `slice_bytes` (and their refuter bits) stay in memory at once: what the budget holds after
/// the scatter's bucket buffers ([`bucket_buffer`] per slice) and a sixteenth of the budget for everything else; at
/// least one, at most all of them.
fn resident_slots(budget: u64, shift: u32, slice_bytes: u64, slices: usize) -> usize {
    let slot = slice_bytes + (1u64 << shift) / 8;
    let buffers = bucket_buffer(budget, slices) as u64 * slices as u64;
    let room = budget.saturating_sub(buffers + budget / 16);
    ((room / slot.max(1)) as usize).clamp(1, slices.max(1))
}

/// The bytes of a bucket's write buffer during a scatter: a sixteenth of the budget shared by the slices, between
/// 4 KiB and 256 KiB (writes of 256 KiB are as fast as larger ones; the budget is better spent on resident slices).
fn bucket_buffer(budget: u64, slices: usize) -> usize {
    (budget / 16 / slices.max(1) as u64).clamp(1 << 12, 1 << 18) as usize
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

    /// Removes the engine's files of the work directory whose names `doomed` picks.
    fn remove_files(&self, doomed: impl Fn(&str) -> bool) -> io::Result<()> {
        for entry in fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.starts_with(PREFIX) && doomed(name) {
                fs::remove_file(entry.path())?;
            }
        }
        Ok(())
    }

    /// Checks that the files a checkpoint names are there, whole.
    fn check_files(&self, state: &Checkpoint) -> Result<(), EngineError> {
        let mut expected = vec![(frontier_name(state.frontier_tag), state.frontier_len * 8)];
        if state.refuters {
            expected.push((REFUTERS.to_string(), state.size.div_ceil(64) * 8));
        }
        for (s, (&tag, &length)) in state.cell_tags.iter().zip(&state.cell_lengths).enumerate() {
            expected.push((cells_name(s, tag), length));
        }
        for (name, len) in expected {
            let found = fs::metadata(self.path(&name)).map(|m| m.len()).ok();
            if found != Some(len) {
                return Err(EngineError::Checkpoint(format!(
                    "{name} is missing or has the wrong length"
                )));
            }
        }
        Ok(())
    }

    /// Creates a new file, which fails as a full disk would beyond the simulated disk size of the tests.
    fn create(&self, name: &str) -> io::Result<Limited> {
        Ok(Limited {
            file: File::create(self.path(name))?,
            room: self
                .disk_full_after
                .map(|limit| limit.saturating_sub(self.report.bytes_written)),
        })
    }

    /// Writes `bytes` as a new file (a checkpoint syncs it before naming it).
    fn write_file(&mut self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let mut out = self.create(name)?;
        out.write_all(bytes)?;
        release_cache(&out.file, bytes.len() as u64);
        self.report.bytes_written += bytes.len() as u64;
        Ok(())
    }

    /// Writes the cells of `slice` packed to a new file with a new tag, and names it in `state`.
    fn write_cells(
        &mut self,
        state: &mut Checkpoint,
        slice: usize,
        tag: u64,
        bytes: &[u8],
    ) -> io::Result<()> {
        let mut out = self.create(&cells_name(slice, tag))?;
        let length = packed::write(&mut out, bytes, state.bits as usize / 8)?;
        release_cache(&out.file, length);
        self.report.bytes_written += length;
        state.cell_tags[slice] = tag;
        state.cell_lengths[slice] = length;
        Ok(())
    }

    /// Reads the cells of `slice` into `bytes` (as many as the slice holds).
    fn read_cells(&mut self, state: &Checkpoint, slice: usize, bytes: &mut [u8]) -> io::Result<()> {
        let name = cells_name(slice, state.cell_tags[slice]);
        let mut file = File::open(self.path(&name))?;
        let read = packed::read(&mut file, bytes, state.bits as usize / 8)
            .map_err(|e| io::Error::new(e.kind(), format!("{name}: {e}")))?;
        self.report.bytes_read += read;
        Ok(())
    }

    /// Commits a checkpoint and removes what it no longer names. The data files and the manifest's temporary file
    /// reach the disk in one `syncfs` (one call instead of one per file), then the rename makes the manifest the
    /// checkpoint, and a sync of the directory makes the rename durable.
    fn commit(&mut self, state: &Checkpoint) -> Result<(), EngineError> {
        let temporary = format!("{MANIFEST}.tmp");
        self.write_file(&temporary, state.to_text().as_bytes())?;
        let dir = File::open(&self.dir)?;
        if self.sync {
            sync_file_system(&dir)?;
        }
        fs::rename(self.path(&temporary), self.path(MANIFEST))?;
        if self.sync {
            dir.sync_all()?;
        }
        self.report.checkpoints += 1;
        self.committed = Some(state.clone());
        self.last_commit = Instant::now();
        self.remove_files(|name| !state.references(name))?;
        self.step()
    }

    fn start(&mut self, bits: u32, fingerprint: u64) -> Result<Checkpoint, EngineError> {
        let started = match bits {
            8 => self.initialise::<W8>(fingerprint)?,
            16 => self.initialise::<W16>(fingerprint)?,
            _ => self.initialise::<W32>(fingerprint)?,
        };
        match started {
            Some(state) => Ok(state),
            None if bits < 32 => {
                self.remove_files(|_| true)?;
                self.start(bits * 2, fingerprint)
            }
            None => Err(EngineError::TooDeep),
        }
    }

    fn dispatch(&mut self, state: Checkpoint) -> Result<Solution, EngineError> {
        self.report.slices = state.slices() as u64;
        self.report.slice_positions = 1 << state.shift;
        match state.bits {
            8 => self.run::<W8>(state),
            16 => self.run::<W16>(state),
            _ => self.run::<W32>(state),
        }
    }

    /// Initialises the cells slice by slice, as the in-memory engine does; `None` when a known distance does not fit
    /// cells of width `W`.
    fn initialise<W: Width>(
        &mut self,
        fingerprint: u64,
    ) -> Result<Option<Checkpoint>, EngineError> {
        let game = self.game;
        let size = game.size();
        let max_moves = game.max_moves();
        let shift = slice_shift(size, W::BITS, self.budget);
        let slices = size.div_ceil(1 << shift) as usize;
        let mut state = Checkpoint {
            fingerprint,
            size,
            bits: W::BITS,
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
        let refuters = Refuters::new(size, &Backing::Memory)?;
        for slice in 0..slices {
            let (base, len) = state.slice_range(slice);
            let findings = Findings::default();
            let cells = &buffer;
            // Progress within the slice too: a slice of a six-man table takes minutes.
            let tasks_done = std::sync::atomic::AtomicU64::new(0);
            let seeds = (0..len.div_ceil(TASK))
                .into_par_iter()
                .fold(BTreeMap::new, |mut seeds: BTreeMap<u32, u64>, task| {
                    // A distance too deep for these cells means starting over wider: no use going on.
                    if findings.too_deep() {
                        return seeds;
                    }
                    for offset in task * TASK..((task + 1) * TASK).min(len) {
                        let index = base + offset as u64;
                        let initial = initial::<G, W>(game, self.convention, index, max_moves);
                        if initial.refuting {
                            refuters.mark(index);
                        }
                        if let Some(state) = findings.record(initial) {
                            cells.set_raw(offset, W::encode(state));
                            if let State::Won(p) | State::Lost(p) = state {
                                *seeds.entry(p).or_default() += 1;
                            }
                        }
                    }
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
                return Ok(None);
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
        Ok(Some(state))
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

    /// Brings `slice` into a slot and returns the slot: the one holding it already, a new one while there is room,
    /// or else the slot used last, written back first if it changed.
    fn load<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
        slice: usize,
    ) -> Result<usize, EngineError> {
        if let Some(slot) = resident.slot_of(slice) {
            resident.recent = slot;
            return Ok(slot);
        }
        let slot = if resident.slots.len() < resident.capacity {
            resident.slots.push(Slot {
                cells: Cells::<W>::new(resident.slot_len, &Backing::Memory)?,
                refuters: None,
                slice: None,
                dirty: false,
            });
            resident.slots.len() - 1
        } else {
            let slot = resident.recent;
            self.flush_slot(state, &mut resident.slots[slot])?;
            slot
        };
        let (base, len) = state.slice_range(slice);
        let refuters = self.refuters_of(state, base, len)?;
        let target = &mut resident.slots[slot];
        target.slice = None;
        target.refuters = refuters;
        self.read_cells(state, slice, target.cells.bytes_mut(len))?;
        target.slice = Some(slice);
        resident.recent = slot;
        Ok(slot)
    }

    /// Writes a slot's slice to a new file if it changed since it was read.
    fn flush_slot<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        slot: &mut Slot<W>,
    ) -> io::Result<()> {
        if let (Some(slice), true) = (slot.slice, slot.dirty) {
            let tag = state.new_tag();
            let (_, len) = state.slice_range(slice);
            self.write_cells(state, slice, tag, slot.cells.bytes(len))?;
            slot.dirty = false;
        }
        Ok(())
    }

    /// Writes every resident slice that changed since it was read.
    fn flush<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
    ) -> io::Result<()> {
        for slot in &mut resident.slots {
            self.flush_slot(state, slot)?;
        }
        Ok(())
    }

    /// Ends a generation: commits a checkpoint when the last one is old enough, or else only removes the files that
    /// neither the last checkpoint nor the current state needs.
    fn checkpoint<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
    ) -> Result<(), EngineError> {
        // With many slices resident, a checkpoint writes them all: wait at least four times as long as the last one
        // took, so that checkpoints never take more than a fifth of the time.
        let interval = match self.commit_interval.is_zero() {
            true => Duration::ZERO,
            false => self.commit_interval.max(self.last_commit_cost * 4),
        };
        if self.last_commit.elapsed() >= interval {
            let started = Instant::now();
            self.flush(state, resident)?;
            self.commit(state)?;
            self.last_commit_cost = started.elapsed();
            Ok(())
        } else {
            let committed = self.committed.take();
            let kept = |name: &str| {
                state.references(name) || committed.as_ref().is_some_and(|c| c.references(name))
            };
            let removed = self.remove_files(|name| !kept(name));
            self.committed = committed;
            removed?;
            self.step()
        }
    }

    /// Generation `later` comes with an empty frontier but values scheduled for it: reads the slices that have some.
    fn publish<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
        later: u32,
    ) -> Result<(), EngineError> {
        let tag = state.new_tag();
        let mut frontier = FrontierWriter::create(&self.path(&frontier_name(tag)))?;
        for slice in 0..state.slices() {
            if state.seeds[slice].remove(&later).is_none() {
                continue;
            }
            let (base, len) = state.slice_range(slice);
            let slot = self.load(state, resident, slice)?;
            write_due(&resident.slots[slot].cells, base, len, later, &mut frontier)?;
        }
        state.frontier_len = frontier.finish(&mut self.report)?;
        state.frontier_tag = tag;
        state.generation = later;
        Ok(())
    }

    /// Walks back from the frontier, from its entry `start` on, until the buckets hold a round's worth of updates
    /// (`round_bytes`) or the frontier ends. An update of a resident slice is applied to its cells at once, as the
    /// in-memory walk does (and its slice marked in `touched`); the others go into one bucket per target slice.
    /// Returns the buckets' entry counts and where the next round starts (the frontier's length after the last
    /// round).
    fn scatter<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
        start: u64,
        touched: &mut [bool],
        resolved: &mut Resolved,
    ) -> Result<(Vec<u64>, u64), EngineError> {
        let game = self.game;
        let slices = state.slices();
        let shift = state.shift;
        let g = state.generation;
        let refuting_exits = state.refuting_exits;
        let round_entries = (self.round_bytes / 4).max(1);
        // Which slot holds each slice: nothing is loaded or evicted while the frontier is walked.
        let slot_of: Vec<Option<usize>> = (0..slices).map(|s| resident.slot_of(s)).collect();
        let slots = &resident.slots;
        let mut buckets = BucketWriters::new(&self.dir, slices, bucket_buffer(self.budget, slices));
        // The resident slices this round updated.
        let mut updated = vec![false; slices];
        let mut file = File::open(self.path(&frontier_name(state.frontier_tag)))?;
        file.seek(SeekFrom::Start(start * 8))?;
        let mut bytes = vec![0u8; FRONTIER_CHUNK * 8];
        let mut remaining = (state.frontier_len - start) as usize;
        let mut walked = start;
        // Chunks no longer than a round (which matters only for the tiny rounds of tests).
        let chunk = FRONTIER_CHUNK.min(round_entries as usize);
        let walk_chunk = |bytes: &[u8]| {
            bytes
                .par_chunks_exact(8)
                .with_min_len(64)
                .fold(
                    || Walked::new(slices),
                    |mut out, entry| {
                        let entry = u64::from_ne_bytes(entry.try_into().expect("8 bytes"));
                        let won = entry & 1 == 1;
                        game.unmoves(entry >> 1, |p| {
                            let slice = (p >> shift) as usize;
                            let offset = (p & ((1 << shift) - 1)) as usize;
                            let Some(slot) = slot_of[slice] else {
                                let entry = (offset as u32) << 1 | u32::from(won);
                                out.buckets[slice].extend_from_slice(&entry.to_ne_bytes());
                                return;
                            };
                            let slot = &slots[slot];
                            let base = (slice as u64) << shift;
                            let effect =
                                update_either(won, game, &slot.cells, offset, p, g, || {
                                    may_resist(&slot.refuters, refuting_exits, base, offset)
                                });
                            match effect {
                                Effect::Resolved => out.resolved.push(p << 1 | u64::from(!won)),
                                Effect::Deferred(floor) => out.deferred.push((slice, floor)),
                                Effect::Settled | Effect::Counted => {}
                            }
                            let changed = effect.changed();
                            out.changed[slice] |= changed;
                        });
                        out
                    },
                )
                .reduce(|| Walked::new(slices), Walked::merge)
        };
        // The bucket entries of one chunk are written while the next chunk is walked.
        let mut pending: Option<Walked> = None;
        loop {
            let entries = buckets.entries() + pending.as_ref().map_or(0, Walked::entries);
            let n = match entries < round_entries {
                true => remaining.min(chunk),
                false => 0,
            };
            if n == 0 && pending.is_none() {
                break;
            }
            file.read_exact(&mut bytes[..n * 8])?;
            self.report.bytes_read += n as u64 * 8;
            remaining -= n;
            walked += n as u64;
            let to_write = pending.take();
            let (walk, written) = rayon::join(
                || (n > 0).then(|| walk_chunk(&bytes[..n * 8])),
                || match &to_write {
                    Some(walk) => buckets.append(&walk.buckets),
                    None => Ok(0),
                },
            );
            self.report.bytes_written += written?;
            if let Some(mut walk) = walk {
                for (slice, &changed) in walk.changed.iter().enumerate() {
                    updated[slice] |= changed;
                }
                resolved.add(std::mem::take(&mut walk.resolved));
                for &(slice, floor) in &walk.deferred {
                    *state.seeds[slice].entry(floor).or_default() += 1;
                }
                pending = Some(walk);
                self.step()?;
            }
        }
        for (slice, &was_updated) in updated.iter().enumerate() {
            if let (true, Some(slot)) = (was_updated, slot_of[slice]) {
                resident.slots[slot].dirty = true;
                touched[slice] = true;
            }
        }
        Ok((buckets.finish()?, walked))
    }

    /// Applies each slice's bucket with only that slice resident, reads the next frontier off the cells, and commits
    /// generation `g + 1`.
    // A slice's number indexes its bucket, its cells and its schedule alike.
    #[allow(clippy::needless_range_loop)]
    fn apply<W: Width>(
        &mut self,
        state: &mut Checkpoint,
        resident: &mut Resident<W>,
        buckets: &[u64],
        last: bool,
        touched: &mut [bool],
        resolved: &mut Resolved,
    ) -> Result<(), EngineError> {
        let game = self.game;
        let g = state.generation;
        let tag = state.new_tag();
        let refuting_exits = state.refuting_exits;
        let mut frontier = match last {
            true => Some(FrontierWriter::create(&self.path(&frontier_name(tag)))?),
            false => None,
        };
        let mut bytes =
            vec![0u8; BUCKET_CHUNK.min(buckets.iter().copied().max().unwrap_or(0) as usize) * 4];
        for slice in 0..state.slices() {
            // The next frontier comes from every slice whose cells an update of any round changed, or that has
            // values scheduled for it: from the positions gathered as they were resolved when that is all, else
            // read off the cells.
            let scheduled = last && state.seeds[slice].remove(&(g + 1)).is_some();
            let read_off = last && touched[slice] && !resolved.complete;
            if buckets[slice] == 0 && !scheduled && !read_off {
                if let (Some(frontier), true) = (frontier.as_mut(), touched[slice]) {
                    let mut entries = resolved.take(slice).expect("all gathered");
                    entries.sort_unstable();
                    frontier.extend(&entries)?;
                }
                continue;
            }
            let (base, len) = state.slice_range(slice);
            let slot = self.load(state, resident, slice)?;
            let mut remaining = buckets[slice] as usize;
            let mut file = match remaining {
                0 => None,
                _ => Some(File::open(self.path(&bucket_name(slice)))?),
            };
            while let Some(file) = file.as_mut().filter(|_| remaining > 0) {
                let n = remaining.min(BUCKET_CHUNK);
                file.read_exact(&mut bytes[..n * 4])?;
                self.report.bytes_read += n as u64 * 4;
                remaining -= n;
                let Slot {
                    cells, refuters, ..
                } = &resident.slots[slot];
                // Whether a cell changed (an update of a position resolved already changes nothing), the
                // positions resolved at g + 1 and the later losses to schedule.
                let (changed, now, deferred) = bytes[..n * 4]
                    .par_chunks_exact(4)
                    .with_min_len(256)
                    .fold(
                        || (false, Vec::new(), Vec::new()),
                        |(mut changed, mut now, mut deferred): (bool, Vec<u64>, Vec<u32>),
                         entry| {
                            let entry = u32::from_ne_bytes(entry.try_into().expect("4 bytes"));
                            let offset = (entry >> 1) as usize;
                            let p = base + offset as u64;
                            let won = entry & 1 == 1;
                            let effect = update_either(won, game, cells, offset, p, g, || {
                                may_resist(refuters, refuting_exits, base, offset)
                            });
                            match effect {
                                Effect::Resolved => now.push(p << 1 | u64::from(!won)),
                                Effect::Deferred(floor) => deferred.push(floor),
                                Effect::Settled | Effect::Counted => {}
                            }
                            changed |= effect.changed();
                            (changed, now, deferred)
                        },
                    )
                    .reduce(
                        || (false, Vec::new(), Vec::new()),
                        |(a, mut x, mut u), (b, mut y, mut v)| {
                            x.append(&mut y);
                            u.append(&mut v);
                            (a | b, x, u)
                        },
                    );
                resident.slots[slot].dirty |= changed;
                touched[slice] |= changed;
                resolved.add(now);
                for floor in deferred {
                    *state.seeds[slice].entry(floor).or_default() += 1;
                }
            }
            drop(file);
            if let (Some(frontier), true) = (frontier.as_mut(), touched[slice] || scheduled) {
                // The positions resolved by the updates, when they were all gathered; else, or when values were
                // scheduled for g + 1 too, the cells valued g + 1.
                match resolved.take(slice).filter(|_| !scheduled) {
                    Some(mut entries) => {
                        entries.sort_unstable();
                        frontier.extend(&entries)?;
                    }
                    None => write_due(&resident.slots[slot].cells, base, len, g + 1, frontier)?,
                }
            }
            self.step()?;
        }
        for (slice, &entries) in buckets.iter().enumerate() {
            if entries > 0 {
                fs::remove_file(self.path(&bucket_name(slice)))?;
            }
        }
        if let Some(frontier) = frontier {
            state.frontier_len = frontier.finish(&mut self.report)?;
            state.frontier_tag = tag;
            state.generation = g + 1;
        }
        Ok(())
    }

    /// Rewrites the cells twice as wide, in slices half as long when the budget asks for it.
    fn widen<W: Width>(&mut self, state: Checkpoint) -> Result<Checkpoint, EngineError> {
        let shift = slice_shift(state.size, W::Wider::BITS, self.budget).min(state.shift);
        let per_old = 1usize << (state.shift - shift);
        let slices = state.size.div_ceil(1 << shift) as usize;
        let tag = state.epoch + 1;
        let mut wider = Checkpoint {
            bits: W::Wider::BITS,
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

/// The bucket files of one round of a scatter, each created when its first entry comes (a thin generation touches
/// few slices).
struct BucketWriters {
    dir: PathBuf,
    writers: Vec<Option<BufWriter<File>>>,
    /// Entries per bucket.
    counts: Vec<u64>,
    buffer_bytes: usize,
}

impl BucketWriters {
    fn new(dir: &Path, slices: usize, buffer_bytes: usize) -> BucketWriters {
        BucketWriters {
            dir: dir.to_owned(),
            writers: (0..slices).map(|_| None).collect(),
            counts: vec![0; slices],
            buffer_bytes,
        }
    }

    /// Entries written so far, all buckets together.
    fn entries(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Appends the entries of each slice (as bytes); returns the bytes written.
    fn append(&mut self, buckets: &[Vec<u8>]) -> io::Result<u64> {
        let mut written = 0;
        for (slice, entries) in buckets.iter().enumerate() {
            if entries.is_empty() {
                continue;
            }
            let writer = match &mut self.writers[slice] {
                Some(writer) => writer,
                empty => empty.insert(BufWriter::with_capacity(
                    self.buffer_bytes,
                    File::create(self.dir.join(bucket_name(slice)))?,
                )),
            };
            writer.write_all(entries)?;
            self.counts[slice] += entries.len() as u64 / 4;
            written += entries.len() as u64;
        }
        Ok(written)
    }

    /// Flushes the buckets; returns their entry counts.
    fn finish(self) -> io::Result<Vec<u64>> {
        for (writer, &entries) in self.writers.into_iter().zip(&self.counts) {
            if let Some(writer) = writer {
                release_cache(
                    &writer.into_inner().map_err(|e| e.into_error())?,
                    entries * 4,
                );
            }
        }
        Ok(self.counts)
    }
}

/// What one thread's share of a frontier chunk produced in [`Sliced::scatter`]: bucket entries per slice that is not
/// resident (as the bytes of their `u32`s), whether a cell of each resident slice changed, and the later losses to
/// schedule, by slice.
struct Walked {
    buckets: Vec<Vec<u8>>,
    changed: Vec<bool>,
    /// Positions of resident slices resolved at g + 1, as frontier entries.
    resolved: Vec<u64>,
    deferred: Vec<(usize, u32)>,
}

impl Walked {
    fn new(slices: usize) -> Walked {
        Walked {
            buckets: vec![Vec::new(); slices],
            changed: vec![false; slices],
            resolved: Vec::new(),
            deferred: Vec::new(),
        }
    }

    /// Bucket entries, all slices together.
    fn entries(&self) -> u64 {
        self.buckets.iter().map(|b| b.len() as u64 / 4).sum()
    }

    fn merge(mut self, other: Walked) -> Walked {
        for (x, mut y) in self.buckets.iter_mut().zip(other.buckets) {
            x.append(&mut y);
        }
        for (x, y) in self.changed.iter_mut().zip(other.changed) {
            *x |= y;
        }
        self.resolved.extend(other.resolved);
        self.deferred.extend(other.deferred);
        self
    }
}

/// The positions a generation resolves at g + 1, gathered by slice as the updates resolve them, so that the next
/// frontier need not be read off whole slices (in the long tail of a build, a few thousand positions among
/// billions of cells). Beyond `cap` entries they are given up, and the touched slices are read instead.
struct Resolved {
    by_slice: Vec<Vec<u64>>,
    shift: u32,
    entries: u64,
    cap: u64,
    complete: bool,
}

impl Resolved {
    fn new(slices: usize, shift: u32, cap: u64) -> Resolved {
        Resolved {
            by_slice: vec![Vec::new(); slices],
            shift,
            entries: 0,
            cap,
            complete: true,
        }
    }

    /// Adds frontier entries (`index << 1 | won`).
    fn add(&mut self, entries: Vec<u64>) {
        if !self.complete {
            return;
        }
        self.entries += entries.len() as u64;
        if self.entries > self.cap {
            self.complete = false;
            self.by_slice = Vec::new();
            return;
        }
        for entry in entries {
            self.by_slice[(entry >> 1 >> self.shift) as usize].push(entry);
        }
    }

    /// The entries of `slice`, unsorted, if every one was gathered.
    fn take(&mut self, slice: usize) -> Option<Vec<u64>> {
        match self.complete {
            true => Some(std::mem::take(&mut self.by_slice[slice])),
            false => None,
        }
    }
}

/// Appends to `frontier` the indices of a resident slice whose cells hold a value of exactly `g` plies, a block at
/// a time so that the entries never take more memory than a block's worth.
fn write_due<W: Width>(
    cells: &Cells<W>,
    base: u64,
    len: usize,
    g: u32,
    frontier: &mut FrontierWriter,
) -> io::Result<()> {
    if g > W::MAX_PLIES {
        return Ok(());
    }
    let (won, lost) = (W::won(g), W::lost(g));
    const BLOCK: usize = 64 * TASK;
    for block in (0..len).step_by(BLOCK) {
        let end = (block + BLOCK).min(len);
        let found: Vec<Vec<u64>> = (block..end)
            .step_by(TASK)
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|start| {
                let mut found = Vec::new();
                for offset in start..(start + TASK).min(end) {
                    let raw = cells.raw(offset);
                    if raw == won || raw == lost {
                        found.push((base + offset as u64) << 1 | u64::from(raw == won));
                    }
                }
                found
            })
            .collect();
        for entries in found {
            frontier.extend(&entries)?;
        }
    }
    Ok(())
}

/// Asks the kernel to write a file's pages out now and to drop them from the page cache: the cache of written files
/// counts against a memory cgroup's limit, and none of them is read again soon.
fn release_cache(file: &File, bytes: u64) {
    use std::os::fd::AsRawFd;
    // Small files are not worth a system call (nor the early writeback it starts).
    if bytes < 1 << 20 {
        return;
    }
    // SAFETY: posix_fadvise only reads the descriptor, which `file` keeps open for the duration of the call; it is
    // advice, and its failure changes nothing but speed.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
    }
}

fn merge_counts(mut a: BTreeMap<u32, u64>, b: BTreeMap<u32, u64>) -> BTreeMap<u32, u64> {
    for (g, n) in b {
        *a.entry(g).or_default() += n;
    }
    a
}

/// A new file of the work directory, which fails as a full disk would once `room` bytes are written (the tests'
/// simulated disk size; `None` outside tests).
struct Limited {
    file: File,
    room: Option<u64>,
}

impl Write for Limited {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.room.is_some_and(|room| bytes.len() as u64 > room) {
            return Err(io::Error::from_raw_os_error(libc::ENOSPC));
        }
        let written = self.file.write(bytes)?;
        if let Some(room) = &mut self.room {
            *room -= written as u64;
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Appends frontier entries to a new frontier file.
struct FrontierWriter {
    out: BufWriter<File>,
    len: u64,
}

impl FrontierWriter {
    fn create(path: &Path) -> io::Result<FrontierWriter> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(FrontierWriter {
            out: BufWriter::with_capacity(1 << 16, file),
            len: 0,
        })
    }

    fn extend(&mut self, entries: &[u64]) -> io::Result<()> {
        for e in entries {
            self.out.write_all(&e.to_ne_bytes())?;
        }
        self.len += entries.len() as u64;
        Ok(())
    }

    /// Flushes the file (the checkpoint that names it syncs it); returns its number of entries.
    fn finish(self, report: &mut Report) -> io::Result<u64> {
        let file = self.out.into_inner().map_err(|e| e.into_error())?;
        release_cache(&file, self.len * 8);
        report.bytes_written += self.len * 8;
        Ok(self.len)
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
            bits: 16,
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
