//! The vocabulary every part of retro speaks: what a position's value is, and what a game must say about its
//! positions for the retrograde engine to solve it.
//!
//! A game numbers its positions densely, `0..size`. An index that is no legal position is a *hole*. The engine never
//! sees a board: it asks the game, index by index, for the moves of a position ([`Game::expand`]) and for the
//! predecessors of a position inside the same table ([`Game::unmoves`]). A move either lands on another index of
//! the table ([`Move::To`]) or leaves the table with a value that is already known ([`Move::Exit`]): a capture into
//! a smaller chess table built earlier, the capture of a lion in Dobutsu shogi, a move that ends the game.
//!
//! Every value is from the point of view of the player to move in the position it belongs to. The player to move is
//! part of the position, and after every move the other player is to move.
//!
//! This crate has no dependencies, so that the probe library an engine links stays small. It also holds the one
//! piece of byte coding that every format shares ([`varint`]).

use std::cmp::Ordering;
use std::fmt;
use std::ops::Range;

pub mod varint;

/// A position's number inside its table: `0..Game::size()`.
pub type Index = u64;

/// Who wins with perfect play, from the point of view of the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Loss,
    Draw,
    Win,
}

impl Outcome {
    /// The outcome for the other player.
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
            Outcome::Win => Outcome::Loss,
        }
    }

    /// `"win"`, `"draw"` or `"loss"`: the words used in JSON output and table headers.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Loss => "loss",
            Outcome::Draw => "draw",
            Outcome::Win => "win",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A solved position: its outcome for the player to move and, for wins and losses, the number of plies to the end of
/// the game under optimal play (the winner takes the fastest win, the loser the longest resistance).
///
/// The constructors hold the invariant that a draw carries no distance.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value {
    outcome: Outcome,
    plies: u32,
}

impl Value {
    /// Neither player can force a win: the game goes on for ever.
    pub const DRAW: Value = Value {
        outcome: Outcome::Draw,
        plies: 0,
    };

    /// The player to move wins in `plies` plies.
    pub const fn win(plies: u32) -> Value {
        Value {
            outcome: Outcome::Win,
            plies,
        }
    }

    /// The player to move loses in `plies` plies.
    pub const fn loss(plies: u32) -> Value {
        Value {
            outcome: Outcome::Loss,
            plies,
        }
    }

    pub fn outcome(self) -> Outcome {
        self.outcome
    }

    /// Plies to the end of the game; `None` for a draw.
    pub fn plies(self) -> Option<u32> {
        match self.outcome {
            Outcome::Draw => None,
            _ => Some(self.plies),
        }
    }

    /// A value, or a hole (`None`), as one number: 0 a hole, 1 a draw, `2 + 2d` a win in `d` plies, `3 + 2d` a loss
    /// in `d` plies. Distance files store these codes (FORMAT.md), and a table's writer reads its values as them
    /// ([`Values::codes`]): counting and encoding a code is arithmetic, without a branch on the outcome.
    pub fn code(value: Option<Value>) -> u64 {
        match value {
            None => 0,
            Some(v) => match v.outcome {
                Outcome::Draw => 1,
                Outcome::Win => 2 + 2 * u64::from(v.plies),
                Outcome::Loss => 3 + 2 * u64::from(v.plies),
            },
        }
    }

    /// The value, for the player who moved, of moving into a position worth `self` to its player to move: a loss in
    /// `d` becomes a win in `d + 1`, a win in `d` a loss in `d + 1`, a draw stays a draw.
    pub fn back(self) -> Value {
        match self.outcome {
            Outcome::Draw => Value::DRAW,
            Outcome::Win => Value::loss(self.plies + 1),
            Outcome::Loss => Value::win(self.plies + 1),
        }
    }

    /// Orders values by how good they are for the player to move: any win beats any draw beats any loss; a faster win
    /// is better than a slower one, a slower loss better than a faster one.
    pub fn preference(self, other: Value) -> Ordering {
        match (self.outcome, other.outcome) {
            (Outcome::Win, Outcome::Win) => other.plies.cmp(&self.plies),
            (Outcome::Loss, Outcome::Loss) => self.plies.cmp(&other.plies),
            (a, b) => a.cmp(&b),
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.plies() {
            None => f.write_str("draw"),
            Some(p) => write!(f, "{} in {p}", self.outcome),
        }
    }
}

/// One move of a position, as the engine sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// The move lands on this index of the table being built.
    To(Index),
    /// The move leaves the table. The value is that of the position reached, from the point of view of its player to
    /// move (the opponent of the player making the move): a capture of the lion is `Exit(Value::loss(0))`.
    Exit(Value),
}

/// What an index of the table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// No legal position has this index. The engine never looks at it again.
    Hole,
    /// The game is over in this position and its value is known without looking at moves (checkmate, stalemate).
    Terminal(Value),
    /// A position in play; its moves were given to the visitor. A position in play with no move at all is decided by
    /// the play convention: lost under normal play, won under misère play.
    Playable,
}

/// What [`Game::survey`] found of a position's moves inside the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inside {
    /// This many, counted as [`Game::count_moves`] counts them.
    Counted(u64),
    /// At least one, not counted: [`Game::count_moves`] counts them if the engine ever needs the number.
    Uncounted,
}

/// What [`Game::survey_each`] tells, index by index: the exits of an index, then what it is.
pub trait Surveyor {
    /// An exit of the index being surveyed reaches `value` (for the side to move after it).
    fn exit(&mut self, value: Value);
    /// Every exit of `index` has been told: what the index is, and its moves inside the table.
    fn surveyed(&mut self, index: Index, node: Node, inside: Inside);
}

/// A game whose positions are numbered densely, as the engine solves it.
///
/// The contract between [`expand`](Game::expand) and [`unmoves`](Game::unmoves) is exact, because the engine counts:
/// for every pair of positions `p`, `q` of the table, `unmoves(q)` visits `p` exactly as many times as `expand(p)`
/// visits `Move::To(q)`. A game may report repeated moves (as a graph with a repeated edge does) or fold them into
/// one (as a chess table does when two moves reach the same position up to symmetry), as long as both directions
/// agree. Holes are never visited by either.
///
/// Implementations are called from many threads at once and must not allocate in these two methods if they want the
/// engine to be fast.
pub trait Game: Sync {
    /// The number of indices, holes included.
    fn size(&self) -> Index;

    /// An upper bound on the number of moves of any position (`Move::To` and `Move::Exit` together). The engine sizes
    /// its per-position counters from it.
    fn max_moves(&self) -> u64;

    /// The longest distance, in plies, of any [`Move::Exit`]'s value. The engine starts with cells wide enough for
    /// one ply more, rather than finding out in the middle of a pass and starting it again with wider cells (which
    /// costs a six-man chess table a quarter of an hour). Only a hint: 0 is right for a game without exits, and the
    /// engine still widens cells that turn out too narrow.
    fn longest_exit(&self) -> u32 {
        0
    }

    /// Visits every move of the position at `index` and says what the index is. Nothing is visited for a hole or a
    /// terminal position.
    fn expand<F: FnMut(Move)>(&self, index: Index, visit: F) -> Node;

    /// What initialisation needs of the position at `index`: the number of its moves that land inside the table
    /// (counted as [`expand`](Game::expand) lists them, twins folded alike) and, through `exit`, the value of each
    /// move that leaves it. The default counts what `expand` visits; a game that can count its moves without naming
    /// their targets overrides it, as initialisation runs it on every index.
    fn count_moves<F: FnMut(Value)>(&self, index: Index, exit: F) -> (Node, u64) {
        count_by_expanding(self, index, exit)
    }

    /// What initialisation needs of the position at `index`, as cheaply as the game can say it: what the index is,
    /// the value of each exit (through `exit`, as [`count_moves`](Game::count_moves) gives them) and its moves inside
    /// the table, counted or only known to exist ([`Inside`]). The engine counts an uncounted position's moves with
    /// `count_moves` when the first of them is refuted; a position resolved before that is never counted, and in a
    /// chess table that is most positions of the stronger side, won through a single move. The default counts at
    /// once; a game overrides it where telling that a position has a move costs much less than counting its moves.
    /// [`max_moves`](Game::max_moves) must bound the moves of uncounted positions too: the engine checks the bound
    /// on the positions counted here only.
    fn survey<F: FnMut(Value)>(&self, index: Index, exit: F) -> (Node, Inside) {
        let (node, inside) = self.count_moves(index, exit);
        (node, Inside::Counted(inside))
    }

    /// Surveys every index of `range`, in order, as [`survey`](Game::survey) does each, telling `surveyor`. The
    /// default surveys one index after another; a game whose neighbouring indices share work (the placement of
    /// most of their men) overrides it, as initialisation surveys every index.
    fn survey_each<S: Surveyor>(&self, range: Range<Index>, surveyor: &mut S) {
        for index in range {
            let (node, inside) = self.survey(index, |v| surveyor.exit(v));
            surveyor.surveyed(index, node, inside);
        }
    }

    /// Visits every predecessor of the position at `index` inside this table: every index `p` with a move
    /// `Move::To(index)`, as often as `p` has such moves.
    fn unmoves<F: FnMut(Index)>(&self, index: Index, visit: F);

    /// Two ranges of indices, one per player to move, such that no move leads from a position of one range to a
    /// position of the same range (a chess table of both sides to move: White's positions, then Black's).
    /// Indices outside both ranges are free of the rule. With them, the engine may find a generation's wins by
    /// looking forward from the positions still open outside a range, when they are few, rather than back from
    /// every loss inside it. `None` (the default): the game has no such split.
    fn turns(&self) -> Option<[Range<Index>; 2]> {
        None
    }

    /// What a prober finds of the position at `index` by looking one ply ahead into other tables: the best outcome
    /// its [`Move::Exit`]s reach for its side to move, or, for a terminal position, its value's outcome, which the
    /// rules give without any table (a stalemate is a draw). A loss when there is neither (or for a hole). A WDL file
    /// of floors may store a worse outcome for a position whose look reaches its own, and the writer asks this of
    /// many positions. The default reads the exits through
    /// [`count_moves`](Game::count_moves) ([`best_exit_by_counting`]); a game that can find its exits alone, without
    /// counting the other moves, overrides it.
    fn best_exit(&self, index: Index) -> Outcome {
        best_exit_by_counting(self, index)
    }
}

/// [`Game::count_moves`] through [`Game::expand`]: the default, and what a game that overrides it falls back on for
/// the positions it cannot count more cheaply.
pub fn count_by_expanding<G: Game + ?Sized, F: FnMut(Value)>(
    game: &G,
    index: Index,
    mut exit: F,
) -> (Node, u64) {
    let mut inside = 0;
    let node = game.expand(index, |m| match m {
        Move::To(_) => inside += 1,
        Move::Exit(v) => exit(v),
    });
    (node, inside)
}

/// [`Game::best_exit`] through [`Game::count_moves`]: the default, and what an override is checked against.
pub fn best_exit_by_counting<G: Game + ?Sized>(game: &G, index: Index) -> Outcome {
    let mut best = Outcome::Loss;
    let (node, _) = game.count_moves(index, |reached| {
        // The exit's value is for the side to move after it: the mover's outcome is its opposite (outcomes are
        // ordered from loss to win).
        best = best.max(reached.outcome().flip());
    });
    match node {
        Node::Terminal(value) => value.outcome(),
        _ => best,
    }
}

/// The solved values of a table, by index: what the exits of the tables built after it read.
pub trait Values: Sync + Send {
    /// The value at `index`; `None` for a hole.
    fn value(&self, index: Index) -> Option<Value>;

    /// The values of the indices from `first` on as codes ([`Value::code`]), one for each entry of `out`. Values
    /// that would otherwise find out on every index how they are held (the engine's solution, whose cells come in
    /// several widths) find out once here; a table's writer reads every index this way.
    fn codes(&self, first: Index, out: &mut [u64]) {
        for (index, code) in (first..).zip(out) {
            *code = Value::code(self.value(index));
        }
    }

    /// The longest distance, in plies, of any win or loss: a table exiting into these values starts with cells
    /// wide enough for one ply more. Only a hint (0 when unknown): the engine widens cells that turn out too narrow.
    fn longest_plies(&self) -> u32 {
        0
    }

    /// The bytes of memory these values hold (0 for values read from disk on demand): a build that keeps them
    /// takes them off its engine's budget.
    fn resident_bytes(&self) -> u64 {
        0
    }
}

/// How a position with no move at all is scored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PlayConvention {
    /// The player who cannot move loses.
    #[default]
    Normal,
    /// The player who cannot move wins.
    Misere,
}

impl PlayConvention {
    /// The value of a position in play whose mover has no move.
    pub fn no_move_value(self) -> Value {
        match self {
            PlayConvention::Normal => Value::loss(0),
            PlayConvention::Misere => Value::win(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_negates_and_adds_a_ply() {
        assert_eq!(Value::loss(0).back(), Value::win(1));
        assert_eq!(Value::win(4).back(), Value::loss(5));
        assert_eq!(Value::DRAW.back(), Value::DRAW);
    }

    #[test]
    fn preference_prefers_fast_wins_and_slow_losses() {
        let mut values = vec![
            Value::loss(2),
            Value::win(7),
            Value::DRAW,
            Value::loss(9),
            Value::win(1),
        ];
        values.sort_by(|a, b| b.preference(*a));
        assert_eq!(
            values,
            vec![
                Value::win(1),
                Value::win(7),
                Value::DRAW,
                Value::loss(9),
                Value::loss(2)
            ]
        );
    }

    #[test]
    fn draw_has_no_distance() {
        assert_eq!(Value::DRAW.plies(), None);
        assert_eq!(Value::win(3).plies(), Some(3));
        assert_eq!(Value::win(3).to_string(), "win in 3");
        assert_eq!(Value::DRAW.to_string(), "draw");
    }
}
