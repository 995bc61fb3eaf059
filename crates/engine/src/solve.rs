//! Retrograde analysis, generation by generation.
//!
//! *Initialisation* visits every index once, in parallel: a hole is marked; a position whose moves include an exit to
//! a loss gets a tentative win, to be published at the generation its distance calls for; a position without moves
//! gets the play convention's value; every other position gets its counter, the number of its moves inside the table
//! (plus one that never falls if an exit leads to a draw: such a position can never be lost).
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

use crate::cell::{Cells, State, W8, W16, W32, Width};
use crate::exits::BestExits;
use crate::frontier::Frontier;
use crate::kernel::{Effect, Findings, Refuters, initial, update};
use crate::mapped::Backing;
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
    let bits = start_bits(game.max_moves(), game.longest_exit())?;
    if let Some(dir) = &options.work_dir {
        return crate::sliced::solve(game, options, dir, budget, bits, progress);
    }
    let schedule = schedule_estimate(game, options.convention);
    let needed = in_memory_peak(size, bits, schedule);
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
        schedule,
        best_exits: exit_bytes > 0,
    };
    match bits {
        8 => context.start::<W8>(),
        16 => context.start::<W16>(),
        _ => context.start::<W32>(),
    }
}

/// The width of the first cells: the narrowest whose counter holds every move of a position, plus the unit that an
/// exit to a draw adds, and whose distances hold a win through the longest exit.
pub(crate) fn start_bits(max_moves: u64, longest_exit: u32) -> Result<u32, EngineError> {
    let counter = max_moves.saturating_add(1);
    let plies = longest_exit.saturating_add(1);
    let fits =
        |max_count: u32, max_plies: u32| counter <= u64::from(max_count) && plies <= max_plies;
    if fits(W8::MAX_COUNT, W8::MAX_PLIES) {
        Ok(8)
    } else if fits(W16::MAX_COUNT, W16::MAX_PLIES) {
        Ok(16)
    } else if counter <= u64::from(W32::MAX_COUNT) {
        // The widest cells are tried even for a longer exit: the engine reports it too deep if it is.
        Ok(32)
    } else {
        Err(EngineError::TooManyMoves(max_moves))
    }
}

/// The bytes the in-memory engine needs for `size` indices: cells of `bits` bits, two frontier bitmaps and the
/// bitmap of positions with refuting exits.
pub(crate) fn footprint(size: u64, bits: u32) -> u64 {
    size.saturating_mul(u64::from(bits) / 8)
        .saturating_add(size / 8 * 3)
}

/// Cells copied per band when they widen (see [`widen`]): the narrow cells of one band are given back only once it
/// is copied, so widening holds the wide array and one band of narrow cells.
const WIDEN_BAND: usize = 1 << 24;

/// The widest cells an in-memory build starting with cells of `bits` bits is expected to reach. Eight-bit cells hold
/// distances up to 63 plies only, which many tables pass (every five-man chess table with a long mate), so they are
/// counted widened once; sixteen-bit cells hold 16 382 plies, which no table seen so far approaches: a build that
/// goes further checks the budget again before it widens (see `Context::run`).
fn expected_bits(bits: u32) -> u32 {
    bits.max(16)
}

/// The bytes the in-memory engine is expected to take at its peak for `size` indices, starting with cells of `bits`
/// bits and with `schedule` bytes scheduled ([`schedule_estimate`]): the arrays at the width they are expected to
/// reach ([`expected_bits`]), the band of narrow cells held while they widen, and the schedule. Both the choice
/// between memory and slices and [`crate::estimate`] use it.
pub(crate) fn in_memory_peak(size: u64, bits: u32, schedule: u64) -> u64 {
    let widest = expected_bits(bits);
    footprint(size, widest)
        .saturating_add(widening_band(size, bits, widest))
        .saturating_add(schedule)
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

/// Positions sampled by [`schedule_estimate`].
const SCHEDULE_SAMPLES: u64 = 1 << 14;

/// The bytes the schedule is expected to take after initialisation: a sample of indices finds the share of
/// positions valued ahead of their generation (a win through an exit, a terminal value, a loss held up by an exit)
/// and their generations; each generation's entries take the varint of their mean gap ([`bucket_bytes`]), and a
/// quarter more covers the segments left part-filled. A six-man chess table schedules over a billion wins through
/// captures: gigabytes that the footprint of the arrays alone misses. The sample is the same on every run, so the
/// choice between memory and slices is too.
pub(crate) fn schedule_estimate<G: Game>(game: &G, convention: PlayConvention) -> u64 {
    let size = game.size();
    if size == 0 {
        return 0;
    }
    let samples = SCHEDULE_SAMPLES.min(size);
    let max_moves = game.max_moves();
    let stretch = size / samples;
    let by_generation: BTreeMap<u32, u64> = (0..samples)
        .into_par_iter()
        .fold(BTreeMap::new, |mut found, k| {
            // Spread over the whole index space, each sample at a scrambled offset within its stretch.
            let offset = (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % stretch.max(1);
            let index = (k * stretch + offset).min(size - 1);
            if let Some(State::Won(p) | State::Lost(p)) =
                initial::<G, W32>(game, convention, index, max_moves).state
                && p > 0
            {
                *found.entry(p).or_insert(0u64) += 1;
            }
            found
        })
        .reduce(BTreeMap::new, |mut a, b| {
            for (p, n) in b {
                *a.entry(p).or_insert(0) += n;
            }
            a
        });
    let bytes: u64 = by_generation
        .values()
        .map(|&n| {
            bucket_bytes(
                (size as u128 * u128::from(n) / u128::from(samples)) as u64,
                size,
            )
        })
        .sum();
    bytes.saturating_add(bytes / 4)
}

struct Context<'a, G> {
    game: &'a G,
    convention: PlayConvention,
    backing: Backing,
    progress: &'a (dyn Fn(&Progress) + Sync),
    /// The memory budget, checked again before cells widen beyond what [`in_memory_peak`] counted.
    budget: u64,
    /// The schedule's expected bytes ([`schedule_estimate`]).
    schedule: u64,
    /// Whether to keep the best outcome of every position's exits.
    best_exits: bool,
}

/// The engine between two generations.
struct Run<W: Width> {
    cells: Cells<W>,
    schedule: Schedule,
    /// Whether some position has an exit into a win for the opponent; only then can a loss come later than the
    /// generation that empties its counter.
    refuting_exits: bool,
    /// Which positions have such an exit: only their losses need their moves looked at again.
    refuters: Refuters,
    frontier: Frontier,
    next: Frontier,
    generation: u32,
    resolved: u64,
    best_exits: Option<BestExits>,
}

impl<G: Game> Context<'_, G> {
    /// Initialises cells of width `W` and runs; restarts wider if an exit's distance does not fit.
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
            .saturating_add(self.schedule);
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
        let refuters = Refuters::new(size, &self.backing)?;
        let best_exits = self.best_exits.then(|| BestExits::new(size)).transpose()?;
        let generation_zero = AtomicU64::new(0);
        let schedule = (0..chunks)
            .into_par_iter()
            .fold(Schedule::default, |mut schedule, chunk| {
                let mut zero = 0u64;
                let start = chunk * INIT_CHUNK;
                // Once a distance is known not to fit, this pass is thrown away for wider cells: stop it.
                if findings.too_deep() {
                    return schedule;
                }
                for index in start..(start + INIT_CHUNK).min(size) {
                    let initial = initial::<G, W>(game, self.convention, index, max_moves);
                    if initial.refuting {
                        refuters.mark(index);
                    }
                    if let Some(exits) = &best_exits {
                        exits.record(index, initial.best_exit);
                    }
                    if let Some(state) = findings.record(initial) {
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
                }
                generation_zero.fetch_add(zero, Ordering::Relaxed);
                let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                if finished.is_multiple_of(1024) {
                    (self.progress)(&Progress::Initialising {
                        done: (u64::from(finished) * INIT_CHUNK).min(size),
                        size,
                    });
                }
                schedule
            })
            .reduce(Schedule::default, Schedule::merge);
        if !findings.fits(max_moves)? {
            return Ok(None);
        }
        frontier.marked(generation_zero.load(Ordering::Relaxed));
        Ok(Some(Run {
            cells,
            schedule,
            refuting_exits: findings.refuting(),
            refuters,
            frontier,
            next: Frontier::new(size, &self.backing)?,
            generation: 0,
            resolved: 0,
            best_exits,
        }))
    }

    fn run<W: Width>(&self, mut run: Run<W>) -> Result<Solution, EngineError> {
        loop {
            let g = run.generation;
            // Publish the positions scheduled for this generation whose tentative value still stands.
            let seeds = run.schedule.take(g);
            let cells = &run.cells;
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
            self.walk(&mut run);
            std::mem::swap(&mut run.frontier, &mut run.next);
            run.next.clear();
            run.generation = g + 1;
        }
        Ok(
            Solution::new(W::into_solved(run.cells), run.generation)
                .with_best_exits(run.best_exits),
        )
    }

    /// Walks back from every position of the frontier (all resolved at generation `g`) and fills the next frontier.
    fn walk<W: Width>(&self, run: &mut Run<W>) {
        let game = self.game;
        let cells = &run.cells;
        let g = run.generation;
        let refuting_exits = run.refuting_exits;
        let refuters = &run.refuters;
        let may_resist = |p: u64| refuting_exits && refuters.has(p);
        let gathered = run.frontier.walk(&run.next, |v, next| {
            let mut record = |p: u64, effect: Effect| match effect {
                Effect::Resolved => next.push(p),
                Effect::Deferred(floor) => next.defer(floor, p),
                Effect::Settled | Effect::Counted => {}
            };
            match cells.state(v as usize) {
                State::Lost(_) => game.unmoves(v, |p| {
                    record(p, update(false, game, cells, p as usize, p, g, || false))
                }),
                State::Won(_) => game.unmoves(v, |p| {
                    let effect = update(true, game, cells, p as usize, p, g, || may_resist(p));
                    record(p, effect)
                }),
                _ => debug_assert!(false, "frontier position {v} is not resolved"),
            }
        });
        let deferred = run.next.absorb(gathered);
        run.schedule = std::mem::take(&mut run.schedule).merge(deferred);
    }
}

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
        refuting_exits: run.refuting_exits,
        refuters: run.refuters,
        frontier: run.frontier,
        next: run.next,
        generation: run.generation,
        resolved: run.resolved,
        best_exits: run.best_exits,
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
        assert_eq!(schedule_estimate(&plain, convention), 0);
        // Every position wins in 4 through its exit: one generation of consecutive entries, a byte each, and a
        // quarter more for part-filled segments.
        let exits = Row {
            size: 1 << 20,
            exits: true,
        };
        assert_eq!(schedule_estimate(&exits, convention), (1 << 20) * 5 / 4);
        let small = Row {
            size: 10,
            exits: true,
        };
        assert_eq!(schedule_estimate(&small, convention), 12);
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

    #[test]
    fn first_cells_hold_every_counter_and_the_longest_exit() {
        // Eight-bit cells count up to 126 moves and hold distances up to 63 plies.
        assert_eq!(start_bits(20, 0).unwrap(), 8);
        assert_eq!(start_bits(20, 62).unwrap(), 8);
        // A win through an exit lost in 63 plies takes 64.
        assert_eq!(start_bits(20, 63).unwrap(), 16);
        assert_eq!(start_bits(126, 0).unwrap(), 16);
        assert_eq!(start_bits(20, 16_382).unwrap(), 16);
        assert_eq!(start_bits(20, 16_383).unwrap(), 32);
        assert_eq!(start_bits(100_000, 0).unwrap(), 32);
        assert!(start_bits(u64::MAX, 0).is_err());
    }
}
