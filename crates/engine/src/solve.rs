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

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use rayon::prelude::*;
use retro_game::{Game, Move, Node, Outcome, PlayConvention};

use crate::cell::{Cells, State, W8, W16, W32, Width};
use crate::frontier::Frontier;
use crate::mapped::Backing;
use crate::schedule::Schedule;
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
    let backing = match &options.work_dir {
        Some(dir) => Backing::Directory(dir.clone()),
        None => Backing::Memory,
    };
    // One more than the moves, for the unit that an exit to a draw adds.
    let counter = game.max_moves().saturating_add(1);
    let context = Context {
        game,
        convention: options.convention,
        backing,
        progress,
    };
    if counter <= u64::from(W8::MAX_COUNT) {
        context.start::<W8>()
    } else if counter <= u64::from(W16::MAX_COUNT) {
        context.start::<W16>()
    } else if counter <= u64::from(W32::MAX_COUNT) {
        context.start::<W32>()
    } else {
        Err(EngineError::TooManyMoves(game.max_moves()))
    }
}

struct Context<'a, G> {
    game: &'a G,
    convention: PlayConvention,
    backing: Backing,
    progress: &'a (dyn Fn(&Progress) + Sync),
}

/// The engine between two generations.
struct Run<W: Width> {
    cells: Cells<W>,
    schedule: Schedule,
    /// Whether some position has an exit into a win for the opponent; only then can a loss come later than the
    /// generation that empties its counter.
    refuting_exits: bool,
    frontier: Frontier,
    next: Frontier,
    generation: u32,
    resolved: u64,
}

/// What one position's moves say before any generation is walked.
#[derive(Default)]
struct Summary {
    inside: u64,
    /// The fastest win through an exit: one more than the shortest exit into a loss.
    exit_win: Option<u32>,
    /// One more than the longest exit into a win: no loss of this position can come sooner.
    loss_floor: u32,
    refuting_exit: bool,
    drawing_exit: bool,
    moves: u64,
}

impl Summary {
    fn of<G: Game>(game: &G, index: u64) -> (Node, Summary) {
        let mut s = Summary::default();
        let node = game.expand(index, |m| {
            s.moves += 1;
            match m {
                Move::To(_) => s.inside += 1,
                Move::Exit(v) => {
                    let back = v.back();
                    let plies = back.plies().unwrap_or(0);
                    match back.outcome() {
                        Outcome::Win => {
                            s.exit_win = Some(s.exit_win.map_or(plies, |w| w.min(plies)))
                        }
                        Outcome::Loss => {
                            s.refuting_exit = true;
                            s.loss_floor = s.loss_floor.max(plies);
                        }
                        Outcome::Draw => s.drawing_exit = true,
                    }
                }
            }
        });
        (node, s)
    }
}

impl<G: Game> Context<'_, G> {
    /// Initialises cells of width `W` and runs; restarts wider if an exit's distance does not fit.
    fn start<W: Width>(&self) -> Result<Solution, EngineError> {
        match self.initialise::<W>()? {
            Some(run) => self.run(run),
            None if W::BITS < W::Wider::BITS => self.start::<W::Wider>(),
            None => Err(EngineError::TooDeep),
        }
    }

    fn initialise<W: Width>(&self) -> Result<Option<Run<W>>, EngineError> {
        let game = self.game;
        let size = game.size();
        let cells = Cells::<W>::new(size as usize, &self.backing)?;
        let too_deep = AtomicBool::new(false);
        let too_many = AtomicBool::new(false);
        let refuting = AtomicBool::new(false);
        let max_moves = game.max_moves();
        let done = AtomicU32::new(0);
        let chunks = size.div_ceil(INIT_CHUNK);
        let schedule = (0..chunks)
            .into_par_iter()
            .fold(Schedule::default, |mut schedule, chunk| {
                let start = chunk * INIT_CHUNK;
                for index in start..(start + INIT_CHUNK).min(size) {
                    let (node, s) = Summary::of(game, index);
                    if s.moves > max_moves {
                        too_many.store(true, Ordering::Relaxed);
                    }
                    if s.refuting_exit {
                        refuting.store(true, Ordering::Relaxed);
                    }
                    let tentative = match node {
                        Node::Hole => {
                            cells.set_raw(index as usize, W::HOLE);
                            continue;
                        }
                        Node::Terminal(v) => match (v.outcome(), v.plies()) {
                            (Outcome::Win, Some(p)) => State::Won(p),
                            (Outcome::Loss, Some(p)) => State::Lost(p),
                            // A drawn end: an open cell that nothing ever decrements.
                            _ => State::Open(1),
                        },
                        Node::Playable => match s.exit_win {
                            Some(w) => State::Won(w),
                            None => {
                                let count = s.inside + u64::from(s.drawing_exit);
                                if count > 0 {
                                    State::Open(count.min(u64::from(W::MAX_COUNT)) as u32)
                                } else if s.refuting_exit {
                                    State::Lost(s.loss_floor)
                                } else {
                                    match self.convention.no_move_value().outcome() {
                                        Outcome::Win => State::Won(0),
                                        _ => State::Lost(0),
                                    }
                                }
                            }
                        },
                    };
                    let plies = match tentative {
                        State::Won(p) | State::Lost(p) => p,
                        _ => 0,
                    };
                    // A loss floor is needed later, when the counter empties: it too must fit.
                    if plies.max(s.loss_floor) > W::MAX_PLIES {
                        too_deep.store(true, Ordering::Relaxed);
                        continue;
                    }
                    cells.set_raw(index as usize, W::encode(tentative));
                    if let State::Won(p) | State::Lost(p) = tentative {
                        schedule.push(p, index);
                    }
                }
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
        if too_many.load(Ordering::Relaxed) {
            return Err(EngineError::GameContract(format!(
                "a position has more moves than the game's bound of {max_moves}"
            )));
        }
        if too_deep.load(Ordering::Relaxed) {
            return Ok(None);
        }
        Ok(Some(Run {
            cells,
            schedule,
            refuting_exits: refuting.load(Ordering::Relaxed),
            frontier: Frontier::new(size, &self.backing)?,
            next: Frontier::new(size, &self.backing)?,
            generation: 0,
            resolved: 0,
        }))
    }

    fn run<W: Width>(&self, mut run: Run<W>) -> Result<Solution, EngineError> {
        loop {
            let g = run.generation;
            // Publish the positions scheduled for this generation whose tentative value still stands.
            let seeds: Vec<u64> = run
                .schedule
                .take(g)
                .into_par_iter()
                .filter(|&i| matches!(run.cells.state(i as usize), State::Won(p) | State::Lost(p) if p == g))
                .collect();
            run.frontier.extend(&seeds);
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
        Ok(Solution::new(W::into_solved(run.cells), run.generation))
    }

    /// Walks back from every position of the frontier (all resolved at generation `g`) and fills the next frontier.
    fn walk<W: Width>(&self, run: &mut Run<W>) {
        let game = self.game;
        let cells = &run.cells;
        let g = run.generation;
        let won_next = W::won(g + 1);
        let lost_next = W::lost(g + 1);
        let refuting_exits = run.refuting_exits;
        let deferred = Mutex::new(Schedule::default());
        let gathered = run
            .frontier
            .walk(&run.next, |v, next| match cells.state(v as usize) {
                State::Lost(_) => game.unmoves(v, |p| {
                    let i = p as usize;
                    loop {
                        let raw = cells.raw(i);
                        let improves = match W::decode(raw) {
                            State::Open(_) => true,
                            State::Won(q) => q > g + 1,
                            _ => false,
                        };
                        if !improves {
                            break;
                        }
                        if cells.compare_exchange(i, raw, won_next) {
                            next.push(p);
                            break;
                        }
                    }
                }),
                State::Won(_) => game.unmoves(v, |p| {
                    let i = p as usize;
                    loop {
                        let raw = cells.raw(i);
                        match W::decode(raw) {
                            State::Open(1) => {
                                // The last move refuted. The loss comes now, unless an exit resists longer.
                                let floor = if refuting_exits {
                                    Summary::of(game, p).1.loss_floor
                                } else {
                                    0
                                };
                                if floor <= g + 1 {
                                    if cells.compare_exchange(i, raw, lost_next) {
                                        next.push(p);
                                        break;
                                    }
                                } else if cells.compare_exchange(i, raw, W::lost(floor)) {
                                    deferred
                                        .lock()
                                        .expect("no panics while holding it")
                                        .push(floor, p);
                                    break;
                                }
                            }
                            State::Open(_) => {
                                if cells.compare_exchange(i, raw, raw - 1) {
                                    break;
                                }
                            }
                            _ => break,
                        }
                    }
                }),
                _ => debug_assert!(false, "frontier position {v} is not resolved"),
            });
        run.next.absorb(gathered);
        let deferred = deferred.into_inner().expect("no panics while holding it");
        run.schedule = std::mem::take(&mut run.schedule).merge(deferred);
    }
}

/// Moves a run to cells twice as wide.
fn widen<W: Width>(run: Run<W>) -> Result<Run<W::Wider>, EngineError> {
    let len = run.cells.len();
    // Wider cells live where the narrow ones did: in memory, or in the same work directory.
    let backing = run.cells.backing().clone();
    let wider = Cells::<W::Wider>::new(len, &backing)?;
    const CHUNK: usize = 1 << 16;
    (0..len.div_ceil(CHUNK)).into_par_iter().for_each(|chunk| {
        for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(len) {
            wider.set_raw(i, W::Wider::encode(run.cells.state(i)));
        }
    });
    Ok(Run {
        cells: wider,
        schedule: run.schedule,
        refuting_exits: run.refuting_exits,
        frontier: run.frontier,
        next: run.next,
        generation: run.generation,
        resolved: run.resolved,
    })
}
