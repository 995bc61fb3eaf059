//! Retrograde analysis, generation by generation.
//!
//! *Initialisation* visits every index once, in parallel: a hole is marked; a position whose moves include an exit to
//! a loss gets a tentative win, to be published at the generation its distance calls for; a position without moves
//! gets the play convention's value; every other position gets its counter, the number of its moves inside the table
//! (plus one that never falls if an exit leads to a draw: such a position can never be lost), or is left uncounted
//! when the game says counting can wait ([`Game::survey`](retro_game::Game::survey)): its moves are counted when the
//! first of them is refuted, and a position won before that is never counted.
//!
//! *Generation g* walks back from the positions resolved at `g` (its frontier). A predecessor of a loss is a win at
//! `g + 1`: the first witness counts, through a compare-and-swap. A predecessor of a win has its counter decremented;
//! the move that empties it makes a loss at `g + 1`, or later if an exit refutes the position more slowly. Because
//! generations are walked strictly in order, every win is found at its shortest distance and every loss at its
//! longest. Positions never reached are draws; nothing looks for cycles.
//!
//! The result is the same whatever the number of threads or the order of work inside a generation: each cell's final
//! value is determined by the generation that first reaches it, and all writes of one generation agree.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;
use retro_game::{Game, PlayConvention};

use crate::cell::{CellWidth, Cells, P8, State, W8, W16, W32, Width};
use crate::exits::{BestExits, PER_WORD as EXITS_PER_WORD};
use crate::floors::{Floors, Stretch};
use crate::frontier::{Collector, Frontier, Settled, Walker};
use crate::kernel::{
    Effect, Findings, Refuters, initial, initial_each, loss_floor, moves_to_refute, update,
};
use crate::mapped::Backing;
use crate::pull::{Arrays, Pulling, SharedTally, Tally, Turns};
use crate::schedule::{Schedule, bucket_bytes};
use crate::solution::Solution;
use crate::{EngineError, Progress, SolveOptions};

/// Indices initialised by one rayon task.
const INIT_CHUNK: u64 = 1 << 12;

pub fn solve<G: Game>(
    game: &G,
    options: &SolveOptions,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Solution, EngineError> {
    let size = game.size();
    usize::try_from(size).map_err(|_| EngineError::TooLarge(size))?;
    let budget = options.memory.unwrap_or_else(crate::memory::default_budget);
    let sample = Sample::of(game, options.convention);
    let width = start_width(game.max_moves(), game.longest_exit(), sample.by_parity)?;
    if let Some(dir) = &options.work_dir {
        return crate::sliced::solve(game, options, dir, budget, width, progress);
    }
    let beside_arrays = sample.beside_arrays();
    let needed = in_memory_peak(size, width.bits(), beside_arrays);
    if needed > budget {
        return Err(EngineError::NeedsWorkDir { needed, budget });
    }
    let exit_bytes = best_exit_bytes(size, options, needed, budget);
    let context = Context {
        game,
        convention: options.convention,
        backing: Backing::Memory,
        progress,
        budget: budget - exit_bytes,
        beside_arrays,
        best_exits: exit_bytes > 0,
        pulling: options.testing.pulling,
    };
    match width {
        CellWidth::P8 => context.start::<P8>(),
        // In memory, plain bytes give way to 16-bit cells (see `cell`).
        CellWidth::W8 | CellWidth::W16 => context.start::<W16>(),
        CellWidth::W32 => context.start::<W32>(),
    }
}

/// The width of the first cells: the narrowest whose counter holds every move of a position, plus the unit that an
/// exit to a draw adds, and whose distances hold a win through the longest exit: bytes by parity when the game's
/// distances look like following it (`by_parity`, see [`Sample`]), else plain bytes.
pub(crate) fn start_width(
    max_moves: u64,
    longest_exit: u32,
    by_parity: bool,
) -> Result<CellWidth, EngineError> {
    let counter = max_moves.saturating_add(1);
    let plies = longest_exit.saturating_add(1);
    let fits =
        |max_count: u32, max_plies: u32| counter <= u64::from(max_count) && plies <= max_plies;
    if by_parity && fits(P8::MAX_COUNT, P8::MAX_PLIES) {
        Ok(CellWidth::P8)
    } else if !by_parity && fits(W8::MAX_COUNT, W8::MAX_PLIES) {
        Ok(CellWidth::W8)
    } else if fits(W16::MAX_COUNT, W16::MAX_PLIES) {
        Ok(CellWidth::W16)
    } else if counter <= u64::from(W32::MAX_COUNT) {
        // The widest cells are tried even for a longer exit: the engine reports it too deep if it is.
        Ok(CellWidth::W32)
    } else {
        Err(EngineError::TooManyMoves(max_moves))
    }
}

/// The bytes the in-memory engine needs for `size` indices: cells of `bits` bits, two frontier bitmaps, the
/// bitmap of positions with refuting exits, that of settled positions, and the list of open positions a pull of
/// wins may keep ([`Turns::list_bytes`]).
pub(crate) fn footprint(size: u64, bits: u32) -> u64 {
    size.saturating_mul(u64::from(bits) / 8)
        .saturating_add(size / 8 * 4)
        .saturating_add(Turns::list_bytes(size))
}

/// Cells copied per band when they widen (see [`widen`]): the narrow cells of one band are given back only once it
/// is copied, so widening holds the wide array and one band of narrow cells.
const WIDEN_BAND: usize = 1 << 24;

/// The widest cells an in-memory build starting with cells of `bits` bits is expected to reach. Eight-bit cells hold
/// distances up to 174 plies by parity (63 plain), which some tables pass (six-man chess tables with long mates),
/// so they are counted widened once; sixteen-bit cells hold 16 382 plies, which no table seen so far approaches: a
/// build that goes further checks the budget again before it widens (see `Context::run`).
fn expected_bits(bits: u32) -> u32 {
    bits.max(16)
}

/// The bytes the in-memory engine is expected to take at its peak for `size` indices, starting with cells of `bits`
/// bits and with `beside_arrays` bytes for the schedule and the loss floors ([`Sample::beside_arrays`]): the arrays
/// at the width they are expected to reach ([`expected_bits`]), the band of narrow cells held while they widen, the
/// schedule and the floors. Both the choice between memory and slices and [`crate::estimate`] use it.
pub(crate) fn in_memory_peak(size: u64, bits: u32, beside_arrays: u64) -> u64 {
    let widest = expected_bits(bits);
    footprint(size, widest)
        .saturating_add(widening_band(size, bits, widest))
        .saturating_add(beside_arrays)
}

/// The narrow cells still held while cells of `bits` bits widen to `widest` (nothing when they do not widen).
fn widening_band(size: u64, bits: u32, widest: u32) -> u64 {
    if widest > bits {
        size.min(WIDEN_BAND as u64) * u64::from(bits) / 8
    } else {
        0
    }
}

/// The bytes of the best exits an in-memory build keeps (see [`crate::SolveOptions::best_exits`]): all of them when
/// asked for and they fit `budget` beside the `needed` bytes of the engine's peak, else none.
pub(crate) fn best_exit_bytes(
    size: u64,
    options: &crate::SolveOptions,
    needed: u64,
    budget: u64,
) -> u64 {
    let bytes = BestExits::bytes(size);
    if options.best_exits && options.work_dir.is_none() && needed.saturating_add(bytes) <= budget {
        bytes
    } else {
        0
    }
}

/// Positions sampled by [`Sample::of`].
const SCHEDULE_SAMPLES: u64 = 1 << 14;

/// What a sample of a game's positions, taken before a build starts, says of it.
pub(crate) struct Sample {
    /// The bytes the schedule is expected to take after initialisation: the share of positions valued ahead of
    /// their generation (a win through an exit, a terminal value, a loss held up by an exit) and their generations;
    /// each generation's entries take the varint of their mean gap ([`bucket_bytes`]), and a quarter more covers the
    /// segments left part-filled. A six-man chess table schedules over a billion wins through captures: gigabytes
    /// that the footprint of the arrays alone misses.
    pub schedule: u64,
    /// The bytes the loss floors are expected to take ([`Floors`]): one per open position with an exit into a win
    /// for the opponent, a quarter more for the error of the sample, and the rank directory.
    pub floors: u64,
    /// Whether the game's distances look like following their parity: a position without moves loses in 0 plies
    /// and every sampled distance does (see [`State::on_parity`]). The build then starts in cells by parity, and
    /// starts over in cells of plain distances if its first pass finds a position that does not.
    pub by_parity: bool,
}

impl Sample {
    /// Samples `game`. The sample is the same on every run, so the choices it makes are too.
    pub(crate) fn of<G: Game>(game: &G, convention: PlayConvention) -> Sample {
        let size = game.size();
        let no_move_on_parity = convention.no_move_value() == retro_game::Value::loss(0);
        if size == 0 {
            return Sample {
                schedule: 0,
                floors: 0,
                by_parity: no_move_on_parity,
            };
        }
        let samples = SCHEDULE_SAMPLES.min(size);
        let max_moves = game.max_moves();
        let stretch = size / samples;
        let (by_generation, floored, on_parity): (BTreeMap<u32, u64>, u64, bool) = (0..samples)
            .into_par_iter()
            .fold(
                || (BTreeMap::new(), 0, true),
                |(mut found, mut floored, on_parity), k| {
                    // Spread over the whole index space, each sample at a scrambled offset within its stretch.
                    let offset = (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % stretch.max(1);
                    let index = (k * stretch + offset).min(size - 1);
                    let initial = initial::<G, W32>(game, convention, index, max_moves);
                    match initial.state {
                        Some(State::Won(p) | State::Lost(p)) if p > 0 => {
                            *found.entry(p).or_insert(0u64) += 1;
                        }
                        Some(State::Open(_)) if initial.refuting => floored += 1,
                        _ => {}
                    }
                    (found, floored, on_parity && initial.on_parity)
                },
            )
            .reduce(
                || (BTreeMap::new(), 0, true),
                |(mut a, a_floored, a_on), (b, b_floored, b_on)| {
                    for (p, n) in b {
                        *a.entry(p).or_insert(0) += n;
                    }
                    (a, a_floored + b_floored, a_on && b_on)
                },
            );
        let bytes: u64 = by_generation
            .values()
            .map(|&n| {
                bucket_bytes(
                    (size as u128 * u128::from(n) / u128::from(samples)) as u64,
                    size,
                )
            })
            .sum();
        let floors = (size as u128 * u128::from(floored) / u128::from(samples)) as u64;
        Sample {
            schedule: bytes.saturating_add(bytes / 4),
            floors: floors.saturating_add(floors / 4) + Floors::rank_bytes(size),
            by_parity: no_move_on_parity && on_parity,
        }
    }

    /// The bytes expected beside the per-position arrays: the schedule and the loss floors.
    pub(crate) fn beside_arrays(&self) -> u64 {
        self.schedule.saturating_add(self.floors)
    }
}

struct Context<'a, G> {
    game: &'a G,
    convention: PlayConvention,
    backing: Backing,
    progress: &'a (dyn Fn(&Progress) + Sync),
    /// The memory budget, checked again before cells widen beyond what [`in_memory_peak`] counted.
    budget: u64,
    /// The bytes expected beside the arrays: the schedule and the loss floors ([`Sample::beside_arrays`]).
    beside_arrays: u64,
    /// Whether to keep the best outcome of every position's exits.
    best_exits: bool,
    /// Whether to pull wins where the game has turns ([`crate::pull`]).
    pulling: Pulling,
}

/// The engine between two generations.
struct Run<W: Width> {
    cells: Cells<W>,
    schedule: Schedule,
    /// The loss floors of the open positions that have an exit into a win for the opponent.
    floors: Floors,
    frontier: Frontier,
    next: Frontier,
    /// The holes, the losses, and the positions of every frontier walked so far.
    settled: Settled,
    generation: u32,
    resolved: u64,
    best_exits: Option<BestExits>,
    /// The game's split by the player to move, if it has one, and what pulling wins would cost.
    turns: Option<Turns>,
}

impl<G: Game> Context<'_, G> {
    /// Initialises cells of width `W` and runs; restarts wider if a state does not fit (an exit's distance too long
    /// for them, or off its parity in cells by parity).
    fn start<W: Width>(&self) -> Result<Solution, EngineError> {
        match self.initialise::<W>()? {
            Some(run) => self.run(run),
            None if W::BITS < W::Wider::BITS => {
                self.check_wider::<W>(self.game.size())?;
                self.start::<W::Wider>()
            }
            None => Err(EngineError::TooDeep),
        }
    }

    /// Whether cells of `size` indices may widen from `W` within the budget: when the wider cells take more than
    /// [`in_memory_peak`] counted before the build started, the build stops (and the caller builds out of core)
    /// rather than outgrow the budget and be killed by a memory limit set from it.
    fn check_wider<W: Width>(&self, size: u64) -> Result<(), EngineError> {
        let needed = footprint(size, W::Wider::BITS)
            .saturating_add(widening_band(size, W::BITS, W::Wider::BITS))
            .saturating_add(self.beside_arrays);
        if needed > self.budget {
            return Err(EngineError::NeedsWorkDir {
                needed,
                budget: self.budget,
            });
        }
        Ok(())
    }

    fn initialise<W: Width>(&self) -> Result<Option<Run<W>>, EngineError> {
        let game = self.game;
        let size = game.size();
        let cells = Cells::<W>::new(size as usize, &self.backing)?;
        let findings = Findings::default();
        let max_moves = game.max_moves();
        let done = AtomicU32::new(0);
        let chunks = size.div_ceil(INIT_CHUNK);
        // Positions decided at generation 0 (no move, checkmate) go straight into the first frontier's bitmap; only
        // later ones wait in the schedule.
        let mut frontier = Frontier::new(size, &self.backing)?;
        // The positions left open with an exit into a win for the opponent, and their loss floors ([`Floors`]).
        let refuters = Refuters::new(size, &self.backing, "refuters")?;
        let settled = Settled::new(size, &self.backing, "settled")?;
        let best_exits = self.best_exits.then(|| BestExits::new(size)).transpose()?;
        let generation_zero = AtomicU64::new(0);
        let ranges = game.turns();
        let no_turns = [0..0, 0..0];
        let sides = ranges.as_ref().unwrap_or(&no_turns);
        let (schedule, stretches, positions) = (0..chunks)
            .into_par_iter()
            .fold(Initialised::default, |mut out, chunk| {
                let mut zero = 0u64;
                let start = chunk * INIT_CHUNK;
                // Once a state is known not to fit, this pass is thrown away for other cells: stop it.
                if findings.misfit() {
                    return out;
                }
                let (schedule, positions) = (&mut out.0, &mut out.2);
                let mut floors = Vec::new();
                // The chunk's holes and losses, its refuters and its best exits, gathered in words that are written
                // once each at the end: the chunk owns these words (it starts on a word of each), and a locked
                // instruction per index would keep the processor from overlapping the work of the next.
                let mut settled_words = [0u64; (INIT_CHUNK / 64) as usize];
                let mut refuter_words = [0u64; (INIT_CHUNK / 64) as usize];
                let mut exit_words = [0u64; (INIT_CHUNK / EXITS_PER_WORD) as usize];
                let chunk = start..(start + INIT_CHUNK).min(size);
                initial_each::<G, W>(game, self.convention, chunk, max_moves, |index, initial| {
                    if initial.refuting && matches!(initial.state, Some(State::Open(_))) {
                        refuter_words[((index - start) / 64) as usize] |= 1 << (index % 64);
                        floors.push(Floors::byte(initial.loss_floor));
                    }
                    if best_exits.is_some() {
                        exit_words[((index - start) / EXITS_PER_WORD) as usize] |=
                            BestExits::bits(index, initial.best_exit);
                    }
                    if let Some(state) = findings.record(initial) {
                        match state {
                            State::Hole | State::Lost(_) => {
                                settled_words[((index - start) / 64) as usize] |= 1 << (index % 64);
                            }
                            _ => {}
                        }
                        if state != State::Hole {
                            positions[Turns::side(sides, index)] += 1;
                        }
                        cells.set_raw(index as usize, W::encode(state));
                        match state {
                            State::Won(0) | State::Lost(0) => {
                                frontier.mark(index);
                                zero += 1;
                            }
                            State::Won(p) | State::Lost(p) => schedule.push(p, index),
                            _ => {}
                        }
                    }
                });
                for k in 0..settled_words.len() {
                    settled.mark_word(start / 64 + k as u64, settled_words[k]);
                    refuters.mark_word(start / 64 + k as u64, refuter_words[k]);
                }
                if let Some(exits) = &best_exits {
                    for (k, &bits) in exit_words.iter().enumerate() {
                        exits.record_word(start / EXITS_PER_WORD + k as u64, bits);
                    }
                }
                if !floors.is_empty() {
                    out.1.push((start, floors));
                }
                generation_zero.fetch_add(zero, Ordering::Relaxed);
                let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                if finished.is_multiple_of(1024) {
                    (self.progress)(&Progress::Initialising {
                        done: (u64::from(finished) * INIT_CHUNK).min(size),
                        size,
                    });
                }
                out
            })
            .reduce(
                Initialised::default,
                |(a, mut a_floors, a_positions), (b, b_floors, b_positions)| {
                    a_floors.extend(b_floors);
                    let positions = std::array::from_fn(|k| a_positions[k] + b_positions[k]);
                    (a.merge(b), a_floors, positions)
                },
            );
        if !findings.fits(max_moves)? {
            return Ok(None);
        }
        frontier.marked(generation_zero.load(Ordering::Relaxed));
        Ok(Some(Run {
            cells,
            schedule,
            floors: Floors::new(refuters, stretches),
            frontier,
            next: Frontier::new(size, &self.backing)?,
            settled,
            generation: 0,
            resolved: 0,
            best_exits,
            turns: ranges.map(|ranges| Turns::new(ranges, size, positions, self.pulling)),
        }))
    }

    fn run<W: Width>(&self, mut run: Run<W>) -> Result<Solution, EngineError> {
        loop {
            let g = run.generation;
            // Publish the positions scheduled for this generation whose tentative value still stands.
            let seeds = run.schedule.take(g);
            let cells = &run.cells;
            let seeded_losses = match &run.turns {
                Some(turns) if !seeds.is_empty() => {
                    seeded_losses::<W>(turns.ranges(), &seeds, cells, g)
                }
                _ => [0; 2],
            };
            run.frontier.extend(
                &seeds,
                |i| matches!(cells.state(i as usize), State::Won(p) | State::Lost(p) if p == g),
            );
            drop(seeds);
            if run.frontier.is_empty() {
                match run.schedule.first_generation() {
                    Some(later) => {
                        run.generation = later;
                        continue;
                    }
                    None => break,
                }
            }
            if g + 1 > W::MAX_PLIES {
                if W::BITS == W::Wider::BITS {
                    return Err(EngineError::TooDeep);
                }
                self.check_wider::<W>(run.cells.len() as u64)?;
                return self.run(widen::<W>(run)?);
            }
            run.resolved += run.frontier.len();
            (self.progress)(&Progress::Generation {
                generation: g,
                frontier: run.frontier.len(),
                resolved: run.resolved,
            });
            run.frontier.mark_in(&run.settled);
            let pulled = match &mut run.turns {
                Some(turns) => turns.plan(&run.frontier, &run.cells, seeded_losses, g),
                None => [false; 2],
            };
            // A build of one thread updates its cells with plain stores, which let the processor overlap the
            // cache misses of successive updates (see `Cells::replace`).
            if rayon::current_num_threads() == 1 {
                self.walk::<W, false>(&mut run, pulled);
            } else {
                self.walk::<W, true>(&mut run, pulled);
            }
            std::mem::swap(&mut run.frontier, &mut run.next);
            run.next.clear();
            run.generation = g + 1;
        }
        let report = crate::Report {
            pulls: run.turns.as_ref().map_or(0, |turns| turns.pulls),
            ..Default::default()
        };
        Ok(Solution::new(W::into_solved(run.cells), run.generation)
            .with_best_exits(run.best_exits)
            .with_report(report))
    }

    /// Walks back from every position of the frontier (all resolved at generation `g`) and fills the next frontier;
    /// `SHARED` when other threads walk at the same time ([`update`]). The wins that the losses of a range of the
    /// game's turns give are pulled instead where `pulled` says so ([`crate::pull`]), before the walk.
    fn walk<W: Width, const SHARED: bool>(&self, run: &mut Run<W>, pulled: [bool; 2]) {
        let mut gathered = Vec::new();
        if let Some(turns) = &mut run.turns {
            for r in (0..2).filter(|&r| pulled[r]) {
                let arrays = Arrays {
                    cells: &run.cells,
                    settled: &run.settled,
                    frontier: &run.frontier,
                    next: &run.next,
                };
                gathered.extend(turns.pull(r, self.game, arrays, run.generation));
            }
        }
        let no_turns = [0..0, 0..0];
        let ranges = run.turns.as_ref().map_or(&no_turns, |turns| turns.ranges());
        let unmoves = [SharedTally::default(), SharedTally::default()];
        let losses = [AtomicU64::new(0), AtomicU64::new(0)];
        gathered.extend(run.frontier.walk(&run.next, || WalkBack::<G, W, SHARED> {
            game: self.game,
            cells: &run.cells,
            floors: &run.floors,
            settled: &run.settled,
            g: run.generation,
            staged: Vec::new(),
            staged_won: false,
            found: Vec::new(),
            ranges,
            pulled,
            unmoves: [Tally::default(); 2],
            losses: [0; 2],
            measured: &unmoves,
            measured_losses: &losses,
        }));
        if let Some(turns) = &mut run.turns {
            turns.walked(
                unmoves.map(|tally| tally.take()),
                losses.map(AtomicU64::into_inner),
            );
        }
        let deferred = run.next.absorb(gathered);
        run.schedule = std::mem::take(&mut run.schedule).merge(deferred);
    }
}

/// One task's walk back from the positions of a frontier, one position behind: the predecessors of a position are
/// found and their cells prefetched, and updated only after those of the next position are found, so that the
/// cache misses of its updates overlap (see [`crate::prefetch`]). Updates within a generation commute, so the
/// delay changes nothing in the result.
struct WalkBack<'a, G, W: Width, const SHARED: bool> {
    game: &'a G,
    cells: &'a Cells<W>,
    floors: &'a Floors,
    settled: &'a Settled,
    /// The generation of the frontier.
    g: u32,
    /// The predecessors found for the previous position, their cells prefetched, not yet updated.
    staged: Vec<u64>,
    /// Whether that position was won (else lost).
    staged_won: bool,
    /// The predecessors of the position being walked (kept to reuse its memory).
    found: Vec<u64>,
    /// The ranges of the game's turns (empty without them), and whether the wins of each range's losses are
    /// pulled instead of walked back to.
    ranges: &'a [std::ops::Range<u64>; 2],
    pulled: [bool; 2],
    /// The losses of each range walked back from, and their un-moves; added to `measured` when the walk ends.
    unmoves: [Tally; 2],
    measured: &'a [SharedTally; 2],
    /// The losses of each range found for the next generation; added to `measured_losses` when the walk ends.
    losses: [u64; 2],
    measured_losses: &'a [AtomicU64; 2],
}

impl<G: Game, W: Width, const SHARED: bool> WalkBack<'_, G, W, SHARED> {
    /// Updates the predecessors staged.
    #[inline(always)]
    fn update_staged(&mut self, next: &mut Collector) {
        let (game, cells, floors, g) = (self.game, self.cells, self.floors, self.g);
        let mut record = |p: u64, effect: Effect| match effect {
            Effect::Resolved => next.push(p),
            Effect::Deferred(floor) => next.defer(floor, p),
            Effect::Settled | Effect::Counted => {}
        };
        if self.staged_won {
            for &p in &self.staged {
                let effect = update::<_, SHARED>(
                    true,
                    cells,
                    p as usize,
                    g,
                    || moves_to_refute(game, p),
                    || floors.get(p, || loss_floor(game, p)),
                );
                if effect == Effect::Resolved
                    && let Some(losses) = self.losses.get_mut(Turns::side(self.ranges, p))
                {
                    *losses += 1;
                }
                record(p, effect);
            }
        } else {
            for &p in &self.staged {
                record(
                    p,
                    update::<_, SHARED>(false, cells, p as usize, g, || 0, || 0),
                );
            }
        }
        self.staged.clear();
    }
}

impl<G: Game, W: Width, const SHARED: bool> Walker for WalkBack<'_, G, W, SHARED> {
    #[inline]
    fn visit(&mut self, v: u64, next: &mut Collector) {
        let won = match self.cells.state(v as usize) {
            State::Won(_) => true,
            State::Lost(_) => false,
            _ => {
                debug_assert!(false, "frontier position {v} is not resolved");
                return;
            }
        };
        let side = Turns::side(self.ranges, v);
        if !won && side < 2 && self.pulled[side] {
            return;
        }
        let (cells, found) = (self.cells, &mut self.found);
        if won {
            self.game.unmoves(v, |p| {
                cells.prefetch(p as usize);
                found.push(p);
            });
        } else {
            // A settled predecessor is left alone: a loss cannot change it, and its cell is not even read.
            let (settled, mut unmoves) = (self.settled, 0);
            self.game.unmoves(v, |p| {
                unmoves += 1;
                if !settled.has(p) {
                    cells.prefetch(p as usize);
                    found.push(p);
                }
            });
            if side < 2 {
                self.unmoves[side].items += 1;
                self.unmoves[side].steps += unmoves;
            }
        }
        self.update_staged(next);
        std::mem::swap(&mut self.staged, &mut self.found);
        self.staged_won = won;
    }

    fn finish(&mut self, next: &mut Collector) {
        self.update_staged(next);
        for (measured, tally) in self.measured.iter().zip(self.unmoves) {
            measured.add(tally);
        }
        for (measured, &losses) in self.measured_losses.iter().zip(&self.losses) {
            measured.fetch_add(losses, Ordering::Relaxed);
        }
    }
}

/// The positions of `seeds` lost at generation `g` in each range of the game's turns.
fn seeded_losses<W: Width>(
    ranges: &[std::ops::Range<u64>; 2],
    seeds: &crate::schedule::Bucket,
    cells: &Cells<W>,
    g: u32,
) -> [u64; 2] {
    seeds
        .par_indices()
        .filter(|&i| matches!(cells.state(i as usize), State::Lost(p) if p == g))
        .fold(
            || [0u64; 2],
            |mut losses, i| {
                if let Some(losses) = losses.get_mut(Turns::side(ranges, i)) {
                    *losses += 1;
                }
                losses
            },
        )
        .reduce(|| [0; 2], |a, b| [a[0] + b[0], a[1] + b[1]])
}

/// What the initialisation tasks gather: the later values to schedule, the loss floors of their stretches, and the
/// positions they found in each range of the game's turns and outside both ([`Turns::side`]).
type Initialised = (Schedule, Vec<Stretch>, [u64; 3]);

/// Moves a run to cells twice as wide.
fn widen<W: Width>(mut run: Run<W>) -> Result<Run<W::Wider>, EngineError> {
    let len = run.cells.len();
    // Wider cells live where the narrow ones did: in memory, or in the same work directory.
    let backing = run.cells.backing().clone();
    let wider = Cells::<W::Wider>::new(len, &backing)?;
    // Band by band, so that the narrow cells already copied can be given back at once: the peak is the wide array
    // plus one band, not both arrays whole.
    const CHUNK: usize = 1 << 16;
    const BAND: usize = 1 << 24;
    for band in (0..len).step_by(BAND) {
        let end = (band + BAND).min(len);
        let cells = &run.cells;
        (band..end)
            .into_par_iter()
            .step_by(CHUNK)
            .for_each(|chunk| {
                for i in chunk..(chunk + CHUNK).min(end) {
                    wider.set_raw(i, W::Wider::encode(cells.state(i)));
                }
            });
        run.cells.release(band, end);
    }
    Ok(Run {
        cells: wider,
        schedule: run.schedule,
        floors: run.floors,
        frontier: run.frontier,
        next: run.next,
        settled: run.settled,
        generation: run.generation,
        resolved: run.resolved,
        best_exits: run.best_exits,
        turns: run.turns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_game::Node;

    /// `size` positions in a row, each with a move to the next and, when `exits`, an exit into a loss in 3.
    struct Row {
        size: u64,
        exits: bool,
    }

    impl Game for Row {
        fn size(&self) -> u64 {
            self.size
        }
        fn max_moves(&self) -> u64 {
            2
        }
        fn expand<F: FnMut(retro_game::Move)>(&self, index: u64, mut visit: F) -> Node {
            if index + 1 < self.size {
                visit(retro_game::Move::To(index + 1));
            }
            if self.exits {
                visit(retro_game::Move::Exit(retro_game::Value::loss(3)));
            }
            Node::Playable
        }
        fn unmoves<F: FnMut(u64)>(&self, index: u64, mut visit: F) {
            if index > 0 {
                visit(index - 1);
            }
        }
    }

    #[test]
    fn the_schedule_estimate_counts_the_positions_valued_ahead() {
        let convention = PlayConvention::Normal;
        // Only the last position is decided at once, at generation 0: nothing to schedule.
        let plain = Row {
            size: 1 << 20,
            exits: false,
        };
        assert_eq!(Sample::of(&plain, convention).schedule, 0);
        // Every position wins in 4 through its exit: one generation of consecutive entries, a byte each, and a
        // quarter more for part-filled segments.
        let exits = Row {
            size: 1 << 20,
            exits: true,
        };
        assert_eq!(Sample::of(&exits, convention).schedule, (1 << 20) * 5 / 4);
        let small = Row {
            size: 10,
            exits: true,
        };
        assert_eq!(Sample::of(&small, convention).schedule, 12);
    }

    #[test]
    fn best_exits_are_kept_only_when_asked_for_in_memory_and_within_the_budget() {
        let row = Row {
            size: 1000,
            exits: true,
        };
        let asked = crate::SolveOptions {
            best_exits: true,
            ..Default::default()
        };
        // 1000 indices take 32 words of 32 indices: 256 bytes.
        assert_eq!(best_exit_bytes(1000, &asked, 1000, 1256), 256);
        assert_eq!(best_exit_bytes(1000, &asked, 1001, 1256), 0);
        assert_eq!(best_exit_bytes(1000, &Default::default(), 0, 1 << 20), 0);
        let sliced = crate::SolveOptions {
            work_dir: Some(std::env::temp_dir()),
            ..asked.clone()
        };
        assert_eq!(best_exit_bytes(1000, &sliced, 0, 1 << 20), 0);
        let mut kept = crate::solve(&row, &asked).unwrap();
        let exits = kept.take_best_exits().unwrap();
        assert_eq!(exits.size(), 1000);
        assert!((0..1000).all(|i| exits.get(i) == retro_game::Outcome::Win));
        assert!(kept.take_best_exits().is_none(), "taken once");
        let tight = crate::SolveOptions {
            memory: Some(
                crate::estimate(&row, &Default::default())
                    .unwrap()
                    .in_memory_bytes,
            ),
            ..asked
        };
        assert!(
            crate::solve(&row, &tight)
                .unwrap()
                .take_best_exits()
                .is_none()
        );
    }

    /// Chains of 16 positions, each moving to the next, the last of each without a move; one position, `odd`, also
    /// has an exit into a loss in 3 plies, which wins it in 4: an even win, off parity, that the sample misses.
    struct Chains {
        odd: u64,
    }

    const CHAINS_SIZE: u64 = 1 << 20;

    impl Game for Chains {
        fn size(&self) -> u64 {
            CHAINS_SIZE
        }
        fn max_moves(&self) -> u64 {
            2
        }
        fn expand<F: FnMut(retro_game::Move)>(&self, index: u64, mut visit: F) -> Node {
            if index % 16 != 15 {
                visit(retro_game::Move::To(index + 1));
            }
            if index == self.odd {
                visit(retro_game::Move::Exit(retro_game::Value::loss(3)));
            }
            Node::Playable
        }
        fn unmoves<F: FnMut(u64)>(&self, index: u64, mut visit: F) {
            if !index.is_multiple_of(16) {
                visit(index - 1);
            }
        }
    }

    /// The values of [`Chains`], walked back along each chain.
    fn chain_values(game: &Chains) -> Vec<retro_game::Value> {
        use retro_game::Value;
        let mut values = vec![Value::DRAW; CHAINS_SIZE as usize];
        for i in (0..CHAINS_SIZE).rev() {
            let next = (i % 16 != 15).then(|| values[i as usize + 1]);
            let exit = (i == game.odd).then(|| Value::loss(3));
            let best = next
                .into_iter()
                .chain(exit)
                .map(|v| v.back())
                .max_by(|a, b| a.preference(*b));
            values[i as usize] = best.unwrap_or(Value::loss(0));
        }
        values
    }

    #[test]
    fn cells_by_parity_give_way_to_wider_ones_when_a_distance_does_not_follow_its_parity() {
        use retro_game::Value;
        let convention = PlayConvention::Normal;
        let even = Chains { odd: u64::MAX };
        assert!(Sample::of(&even, convention).by_parity);
        let solved = crate::solve(&even, &Default::default()).unwrap();
        assert!(matches!(solved.cells, crate::solution::SolvedCells::P8(_)));
        assert_eq!(solved.value(0), Some(Value::win(15)));
        // Misère play: a position without a move wins in 0 plies, so the cells are plain from the start.
        assert!(!Sample::of(&even, PlayConvention::Misere).by_parity);

        let odd = Chains {
            odd: 1000 * 64 + 37,
        };
        assert!(
            Sample::of(&odd, convention).by_parity,
            "the sample saw the odd exit: pick another"
        );
        let expected = chain_values(&odd);
        assert_eq!(expected[odd.odd as usize], Value::win(4));
        assert_eq!(expected[odd.odd as usize - 1], Value::loss(5));
        let solved = crate::solve(&odd, &Default::default()).unwrap();
        assert!(matches!(solved.cells, crate::solution::SolvedCells::W16(_)));
        let work = tempfile::tempdir().unwrap();
        let options = crate::SolveOptions {
            work_dir: Some(work.path().to_owned()),
            memory: Some(1 << 18),
            testing: crate::Testing {
                skip_sync: true,
                ..Default::default()
            },
            ..Default::default()
        };
        let sliced = crate::solve(&odd, &options).unwrap();
        assert!(sliced.report().slices > 1);
        // Out of core, plain bytes hold its distances.
        assert!(matches!(sliced.cells, crate::solution::SolvedCells::W8(_)));
        for i in 0..CHAINS_SIZE {
            assert_eq!(solved.value(i), Some(expected[i as usize]), "index {i}");
            assert_eq!(
                sliced.value(i),
                Some(expected[i as usize]),
                "index {i}, out of core"
            );
        }
    }

    /// Chains of three positions, each moving to the next, the last without a move; the first of each chain also
    /// has an exit into a win for the opponent, of a length that depends on the chain: the chain's first position
    /// loses at its loss floor, one ply more than that exit, instead of in 2 plies.
    struct Resisting;

    impl Resisting {
        /// The exit of a chain's first position: into wins as long as a kept floor's byte holds and longer.
        fn exit(index: u64) -> Option<retro_game::Value> {
            let plies = [1, 99, 253, 254, 299, 1001][(index / 3 % 6) as usize];
            (index.is_multiple_of(3) && !index.is_multiple_of(7))
                .then(|| retro_game::Value::win(plies))
        }
    }

    impl Game for Resisting {
        fn size(&self) -> u64 {
            3 * 1000
        }
        fn max_moves(&self) -> u64 {
            2
        }
        fn expand<F: FnMut(retro_game::Move)>(&self, index: u64, mut visit: F) -> Node {
            if index % 3 != 2 {
                visit(retro_game::Move::To(index + 1));
            }
            if let Some(exit) = Resisting::exit(index) {
                visit(retro_game::Move::Exit(exit));
            }
            Node::Playable
        }
        fn unmoves<F: FnMut(u64)>(&self, index: u64, mut visit: F) {
            if !index.is_multiple_of(3) {
                visit(index - 1);
            }
        }
    }

    #[test]
    fn losses_held_up_by_exits_come_at_their_floors_kept_or_not() {
        use retro_game::Value;
        let solved = crate::solve(&Resisting, &Default::default()).unwrap();
        // Out of core, floors are found again from the moves.
        let work = tempfile::tempdir().unwrap();
        let options = crate::SolveOptions {
            work_dir: Some(work.path().to_owned()),
            testing: crate::Testing {
                skip_sync: true,
                ..Default::default()
            },
            ..Default::default()
        };
        let sliced = crate::solve(&Resisting, &options).unwrap();
        for i in 0..Resisting.size() {
            assert_eq!(sliced.value(i), solved.value(i), "index {i}");
            let expected = match (i % 3, Resisting::exit(i)) {
                (2, _) => Value::loss(0),
                (1, _) => Value::win(1),
                (_, None) => Value::loss(2),
                (_, Some(exit)) => Value::loss(exit.plies().unwrap().max(1) + 1),
            };
            assert_eq!(solved.value(i), Some(expected), "index {i}");
        }
    }

    #[test]
    fn first_cells_hold_every_counter_and_the_longest_exit() {
        let plain = |moves, exit| start_width(moves, exit, false).unwrap();
        let by_parity = |moves, exit| start_width(moves, exit, true).unwrap();
        // Plain bytes count up to 126 moves and hold distances up to 63 plies; bytes by parity count up to 78 and
        // hold 174.
        assert_eq!(plain(20, 0), CellWidth::W8);
        assert_eq!(plain(20, 62), CellWidth::W8);
        // A win through an exit lost in 63 plies takes 64.
        assert_eq!(plain(20, 63), CellWidth::W16);
        assert_eq!(by_parity(20, 0), CellWidth::P8);
        assert_eq!(by_parity(20, 173), CellWidth::P8);
        assert_eq!(by_parity(20, 174), CellWidth::W16);
        assert_eq!(by_parity(77, 0), CellWidth::P8);
        assert_eq!(by_parity(78, 0), CellWidth::W16);
        assert_eq!(plain(125, 0), CellWidth::W8);
        assert_eq!(plain(126, 0), CellWidth::W16);
        assert_eq!(plain(20, 16_382), CellWidth::W16);
        assert_eq!(plain(20, 16_383), CellWidth::W32);
        assert_eq!(by_parity(100_000, 0), CellWidth::W32);
        assert!(start_width(u64::MAX, 0, false).is_err());
    }
}
