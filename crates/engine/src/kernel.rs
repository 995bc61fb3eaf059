//! The kernel of the engine: what happens to one cell. Both paths, in memory (`solve`) and out of core (`sliced`),
//! initialise cells with [`initial`] and apply every update of a generation with [`update`], so that they cannot
//! disagree: the out-of-core build is bit-identical to the in-memory one because it runs the very same transitions.
//!
//! - [`initial`], [`initial_each`]: a position's first state, from a [`Summary`] of its moves (exits included; the
//!   moves inside the table perhaps left uncounted, [`State::UNCOUNTED`]);
//! - [`update`]: a successor resolved at generation `g` reaches a predecessor's cell: a lost successor makes a win
//!   at `g + 1`, a won one refutes one more move, and the last refuted move makes a loss, at `g + 1` or at the
//!   position's loss floor if an exit resists longer (the in-memory path keeps the floors found here,
//!   [`crate::floors`]; the out-of-core path looks at the moves of the positions [`Refuters`] marks again);
//! - [`Findings`]: what initialisation found across all threads (a distance too long for the cells, a broken bound).
//!
//! Every transition is a compare-and-swap on one cell, so threads may update the same cell at once; the value a cell
//! ends a generation with does not depend on the order of the updates.

use std::marker::PhantomData;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use retro_game::{Game, Inside, Node, Outcome, PlayConvention, Surveyor, Value};

use crate::EngineError;
use crate::bitmap::Bitmap;
use crate::cell::{Cells, State, Width};

/// One bit per position: whether it has an exit into a win for the opponent, found at initialisation. A position
/// without one has no loss floor, so emptying its counter loses it at once, without expanding it again.
pub(crate) type Refuters = Bitmap;

/// The loss floor of the position at `index`, found by looking at its moves again: one more than its longest exit
/// into a win for the opponent, 0 without one.
pub(crate) fn loss_floor<G: Game>(game: &G, index: u64) -> u32 {
    Summary::of(game, index).1.loss_floor
}

/// The counter of an open position that initialisation left uncounted ([`State::UNCOUNTED`]), counted now: its
/// moves inside the table, plus one that never falls if an exit leads to a draw, as [`initial`] counts them.
pub(crate) fn moves_to_refute<G: Game>(game: &G, index: u64) -> u32 {
    let mut drawing_exit = false;
    let (_, inside) = game.count_moves(index, |v| drawing_exit |= v.outcome() == Outcome::Draw);
    u32::try_from(inside + u64::from(drawing_exit)).unwrap_or(u32::MAX)
}

/// What one position's moves say before any generation is walked.
struct Summary {
    inside: Inside,
    /// The fastest win through an exit: one more than the shortest exit into a loss.
    exit_win: Option<u32>,
    /// One more than the longest exit into a win: no loss of this position can come sooner.
    loss_floor: u32,
    refuting_exit: bool,
    drawing_exit: bool,
    /// The moves seen: the exits, and the moves inside when they are counted.
    moves: u64,
}

impl Summary {
    /// The summary of the position's moves, all counted.
    fn of<G: Game>(game: &G, index: u64) -> (Node, Summary) {
        let mut s = Summary::new();
        let (node, inside) = game.count_moves(index, |v| s.exit(v));
        s.inside(Inside::Counted(inside));
        (node, s)
    }

    /// The summary of the position's moves as [`Game::survey`] gives them: those inside the table perhaps not
    /// counted.
    fn survey<G: Game>(game: &G, index: u64) -> (Node, Summary) {
        let mut s = Summary::new();
        let (node, inside) = game.survey(index, |v| s.exit(v));
        s.inside(inside);
        (node, s)
    }

    fn new() -> Summary {
        Summary {
            inside: Inside::Counted(0),
            exit_win: None,
            loss_floor: 0,
            refuting_exit: false,
            drawing_exit: false,
            moves: 0,
        }
    }

    /// Takes in an exit reaching value `v` (for the side to move after it).
    #[inline(always)]
    fn exit(&mut self, v: Value) {
        self.moves += 1;
        let back = v.back();
        let plies = back.plies().unwrap_or(0);
        match back.outcome() {
            Outcome::Win => self.exit_win = Some(self.exit_win.map_or(plies, |w| w.min(plies))),
            Outcome::Loss => {
                self.refuting_exit = true;
                self.loss_floor = self.loss_floor.max(plies);
            }
            Outcome::Draw => self.drawing_exit = true,
        }
    }

    #[inline(always)]
    fn inside(&mut self, inside: Inside) {
        if let Inside::Counted(n) = inside {
            self.moves += n;
        }
        self.inside = inside;
    }
}

/// The state a position starts in, and what its moves revealed.
pub(crate) struct Initial {
    /// The first state of its cell; `None` when it does not fit cells of this width: a known distance (of its value
    /// or of its loss floor) too long for them, or off its parity for cells by parity.
    pub state: Option<State>,
    /// The position has more moves than the game's bound (its exits alone when its moves inside are uncounted:
    /// those are counted later, and a count past the bound is then held at the cells' largest counter).
    pub too_many: bool,
    /// The position has an exit into a win for the opponent (so a loss of it may come later than its counter says).
    pub refuting: bool,
    /// One more than its longest exit into a win for the opponent (0 without one): no loss of it comes sooner.
    pub loss_floor: u32,
    /// Its known distances (of its first state and its loss floor) follow their parity: wins odd, losses even.
    pub on_parity: bool,
    /// The best outcome its exits reach for its side to move, or its own for a terminal position (a loss when it
    /// has neither, or is a hole): [`Game::best_exit`](retro_game::Game::best_exit).
    pub best_exit: Outcome,
}

/// What initialising many positions found, gathered from all threads at once.
#[derive(Default)]
pub(crate) struct Findings {
    too_many: AtomicBool,
    misfit: AtomicBool,
    off_parity: AtomicBool,
    refuting: AtomicBool,
}

impl Findings {
    /// Records what initialising one position found; returns its cell's first state if it fits this width.
    pub fn record(&self, initial: Initial) -> Option<State> {
        if initial.too_many {
            self.too_many.store(true, Ordering::Relaxed);
        }
        // Read before written: a store by every thread to the same line, for every position with a refuting exit,
        // would bounce the line between their caches.
        if initial.refuting && !self.refuting.load(Ordering::Relaxed) {
            self.refuting.store(true, Ordering::Relaxed);
        }
        if initial.state.is_none() {
            self.misfit.store(true, Ordering::Relaxed);
            if !initial.on_parity {
                self.off_parity.store(true, Ordering::Relaxed);
            }
        }
        initial.state
    }

    /// `Ok(true)` when every position was initialised, `Ok(false)` when a state needs other cells (see
    /// [`off_parity`](Self::off_parity)), an error when the game broke its bound on moves.
    pub fn fits(&self, max_moves: u64) -> Result<bool, EngineError> {
        if self.too_many.load(Ordering::Relaxed) {
            return Err(EngineError::GameContract(format!(
                "a position has more moves than the game's bound of {max_moves}"
            )));
        }
        Ok(!self.misfit.load(Ordering::Relaxed))
    }

    /// Whether some position's state does not fit cells of this width.
    pub fn misfit(&self) -> bool {
        self.misfit.load(Ordering::Relaxed)
    }

    /// Whether a state that did not fit was off its parity: cells storing plain distances may hold it (else it was
    /// too deep, and wider cells are needed).
    pub fn off_parity(&self) -> bool {
        self.off_parity.load(Ordering::Relaxed)
    }

    /// Whether some position has an exit into a win for the opponent.
    pub fn refuting(&self) -> bool {
        self.refuting.load(Ordering::Relaxed)
    }
}

/// The first state of the cell of `index`: a hole, a tentative value (to be published at its distance), or a counter.
/// Always inlined into the first pass: left to the compiler, a change of the cells' layout moved it in or out of that
/// loop and made KQRvKR's first pass 10 to 25% slower or not (measured side by side).
#[inline(always)]
pub(crate) fn initial<G: Game, W: Width>(
    game: &G,
    convention: PlayConvention,
    index: u64,
    max_moves: u64,
) -> Initial {
    let (node, s) = Summary::survey(game, index);
    initial_of::<W>(node, s, convention, max_moves)
}

/// The [`initial`] state of every index of `range`, in order, given to `each` with its index: the game surveys
/// them together ([`Game::survey_each`]), sharing what neighbouring indices have in common.
#[inline(always)]
pub(crate) fn initial_each<G: Game, W: Width>(
    game: &G,
    convention: PlayConvention,
    range: Range<u64>,
    max_moves: u64,
    each: impl FnMut(u64, Initial),
) {
    let mut surveyor = InitialSurveyor::<W, _> {
        summary: Summary::new(),
        convention,
        max_moves,
        each,
        width: PhantomData,
    };
    game.survey_each(range, &mut surveyor);
}

/// What [`initial_each`] tells the game's survey: it gathers an index's exits, then turns them into its state.
struct InitialSurveyor<W, F> {
    summary: Summary,
    convention: PlayConvention,
    max_moves: u64,
    each: F,
    width: PhantomData<W>,
}

impl<W: Width, F: FnMut(u64, Initial)> Surveyor for InitialSurveyor<W, F> {
    #[inline(always)]
    fn exit(&mut self, value: Value) {
        self.summary.exit(value);
    }

    #[inline(always)]
    fn surveyed(&mut self, index: u64, node: Node, inside: Inside) {
        let mut summary = std::mem::replace(&mut self.summary, Summary::new());
        summary.inside(inside);
        (self.each)(
            index,
            initial_of::<W>(node, summary, self.convention, self.max_moves),
        );
    }
}

/// The first state of a position whose moves `s` summarises.
#[inline(always)]
fn initial_of<W: Width>(
    node: Node,
    s: Summary,
    convention: PlayConvention,
    max_moves: u64,
) -> Initial {
    let mut initial = Initial {
        state: None,
        too_many: s.moves > max_moves,
        refuting: s.refuting_exit,
        loss_floor: s.loss_floor,
        on_parity: true,
        best_exit: if s.exit_win.is_some() {
            Outcome::Win
        } else if s.drawing_exit {
            Outcome::Draw
        } else {
            Outcome::Loss
        },
    };
    if let Node::Terminal(v) = node {
        // What a prober's look finds of a terminal position is its value, which the rules give.
        initial.best_exit = v.outcome();
    }
    let tentative = match node {
        Node::Hole => {
            initial.state = Some(State::Hole);
            return initial;
        }
        Node::Terminal(v) => match (v.outcome(), v.plies()) {
            (Outcome::Win, Some(p)) => State::Won(p),
            (Outcome::Loss, Some(p)) => State::Lost(p),
            // A drawn end: an open cell that nothing ever decrements.
            _ => State::Open(1),
        },
        Node::Playable => match (s.exit_win, s.inside) {
            (Some(w), _) => State::Won(w),
            // Counted when the first of its moves is refuted, if ever (see `won_successor`).
            (None, Inside::Uncounted) => State::UNCOUNTED,
            (None, Inside::Counted(inside)) => {
                let count = inside + u64::from(s.drawing_exit);
                if count > 0 {
                    State::Open(count.min(u64::from(W::MAX_COUNT)) as u32)
                } else if s.refuting_exit {
                    State::Lost(s.loss_floor)
                } else {
                    match convention.no_move_value().outcome() {
                        Outcome::Win => State::Won(0),
                        _ => State::Lost(0),
                    }
                }
            }
        },
    };
    // A loss floor is needed later, when the counter empties: it too must fit.
    let floor = State::Lost(s.loss_floor);
    initial.on_parity = tentative.on_parity() && floor.on_parity();
    if W::holds(tentative) && W::holds(floor) {
        initial.state = Some(tentative);
    }
    initial
}

/// What an update did to a position's cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Nothing: the position was resolved already (or won as fast already).
    Settled,
    /// One more of its moves refuted; it is still open.
    Counted,
    /// Resolved at `g + 1`: won (its successor was lost) or lost (its last move refuted). It joins the next
    /// frontier.
    Resolved,
    /// Its last move refuted, but an exit resists longer: lost at this later generation, to be scheduled.
    Deferred(u32),
}

impl Effect {
    /// Whether the cell changed.
    #[inline]
    pub(crate) fn changed(self) -> bool {
        self != Effect::Settled
    }
}

/// A successor of the position in cell `i` of `cells` was resolved at generation `g`: won when `successor_won`,
/// else lost. `count` counts the position's moves when its cell holds none yet ([`moves_to_refute`]); `floor` gives
/// its loss floor (0 when no exit resists: see [`loss_floor`]), asked only when the position's last move is
/// refuted. Always inlined: the in-memory walk passes a constant outcome, so each of its two
/// walks (back from losses, back from wins) is compiled without the other's branch; the out-of-core walks pass the
/// outcome of a bucket entry.
///
/// `SHARED` says whether other threads may update the cells at the same time (see [`Cells::replace`]): a build of
/// one thread passes false, and its transitions are plain stores.
#[inline(always)]
pub(crate) fn update<W: Width, const SHARED: bool>(
    successor_won: bool,
    cells: &Cells<W>,
    i: usize,
    g: u32,
    count: impl FnOnce() -> u32,
    floor: impl FnOnce() -> u32,
) -> Effect {
    if successor_won {
        won_successor::<W, SHARED>(cells, i, g, count, floor)
    } else {
        lost_successor::<W, SHARED>(cells, i, g)
    }
}

/// A successor of the position in cell `i` was lost at `g`: the position is won at `g + 1` unless it already has a
/// win as fast. Exactly one caller sees it resolved.
#[inline(always)]
fn lost_successor<W: Width, const SHARED: bool>(cells: &Cells<W>, i: usize, g: u32) -> Effect {
    let won_next = W::won(g + 1);
    loop {
        let raw = cells.raw(i);
        let improves = match W::decode(raw) {
            State::Open(_) => true,
            State::Won(q) => q > g + 1,
            _ => false,
        };
        if !improves {
            return Effect::Settled;
        }
        if cells.replace::<SHARED>(i, raw, won_next) {
            return Effect::Resolved;
        }
    }
}

/// A successor of the position in cell `i` was won at `g`: one more of its moves is refuted. An uncounted cell's
/// moves are asked of `count`, and the loss floor of `floor`, each once and only when needed, however often the
/// compare-and-swap is retried. Two threads may count the same uncounted cell at once: they find the same number,
/// and the compare-and-swap lets one of them store it.
#[inline(always)]
fn won_successor<W: Width, const SHARED: bool>(
    cells: &Cells<W>,
    i: usize,
    g: u32,
    count: impl FnOnce() -> u32,
    floor: impl FnOnce() -> u32,
) -> Effect {
    let (mut count_of, mut floor_of) = (Some(count), Some(floor));
    let (mut counted, mut floor): (Option<u32>, Option<u32>) = (None, None);
    loop {
        let raw = cells.raw(i);
        let left = match W::decode(raw) {
            State::UNCOUNTED => *counted.get_or_insert_with(|| {
                let moves = count_of.take().map_or(1, |count| count());
                debug_assert!(moves >= 1, "an uncounted position without moves");
                moves.clamp(1, W::MAX_COUNT)
            }),
            State::Open(left) => left,
            _ => return Effect::Settled,
        };
        if left == 1 {
            // The last move refuted. The loss comes now, unless an exit resists longer.
            let floor = *floor.get_or_insert_with(|| floor_of.take().map_or(0, |floor| floor()));
            if floor <= g + 1 {
                if cells.replace::<SHARED>(i, raw, W::lost(g + 1)) {
                    return Effect::Resolved;
                }
            } else if cells.replace::<SHARED>(i, raw, W::lost(floor)) {
                return Effect::Deferred(floor);
            }
        } else if cells.replace::<SHARED>(i, raw, W::encode(State::Open(left - 1))) {
            return Effect::Counted;
        }
    }
}
