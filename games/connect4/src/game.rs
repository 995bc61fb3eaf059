//! One tier as the engine solves it.
//!
//! Every move adds a stone, so every move leaves the tier of `k` stones for the tier of `k + 1`: the engine sees
//! only exits, and no un-moves. A move that makes four in a row is `Exit(loss in 0)` without a look at the next tier;
//! any other reads the next tier's solved value. A tier is therefore solved in its initialisation pass alone, and
//! [`Game::count_moves`] does that pass without the engine's bookkeeping of `expand`.

use retro_game::{Game, Index, Move, Node, Value, Values};

use crate::board::Board;
use crate::index::Layout;

/// The tier of `stones` stones of one board size.
pub struct TierGame<'a> {
    layout: &'static Layout,
    stones: u32,
    /// The solved tier of `stones + 1` stones; `None` for the full board, whose positions are all over.
    next: Option<&'a dyn Values>,
    longest_exit: u32,
}

impl<'a> TierGame<'a> {
    /// The tier, reading `next` (the tier of one stone more, which a tier below the full board needs) with
    /// `longest_exit` its longest win or loss.
    pub fn new(
        layout: &'static Layout,
        stones: u32,
        next: Option<&'a dyn Values>,
        longest_exit: u32,
    ) -> TierGame<'a> {
        TierGame {
            layout,
            stones,
            next,
            longest_exit,
        }
    }

    pub fn layout(&self) -> &'static Layout {
        self.layout
    }

    pub fn stones(&self) -> u32 {
        self.stones
    }

    /// The board at `index`.
    pub fn board(&self, index: Index) -> Board {
        self.layout.decode(self.stones, index)
    }

    /// The value of the position `after` a move, for its player to move.
    fn exit(&self, after: &Board) -> Value {
        if after.has_line(after.mover().other()) {
            return Value::loss(0);
        }
        let next = self
            .next
            .expect("a tier below the full board reads the next tier");
        next.value(self.layout.encode(after))
            .expect("a move without four in a row reaches a position of the next tier, not a hole")
    }

    /// Calls `exit` on the value of every move of the position at `index`, and says what the position is.
    fn moves<F: FnMut(Value)>(&self, index: Index, mut exit: F) -> Node {
        let board = self.board(index);
        let node = board.node();
        if node == Node::Playable {
            for c in 0..self.layout.shape().width() {
                if board.can_play(c) {
                    exit(self.exit(&board.play(c)));
                }
            }
        }
        node
    }
}

impl Game for TierGame<'_> {
    fn size(&self) -> Index {
        self.layout.tier_size(self.stones)
    }

    fn max_moves(&self) -> u64 {
        u64::from(self.layout.shape().width())
    }

    fn longest_exit(&self) -> u32 {
        self.longest_exit
    }

    fn expand<F: FnMut(Move)>(&self, index: Index, mut visit: F) -> Node {
        self.moves(index, |value| visit(Move::Exit(value)))
    }

    fn count_moves<F: FnMut(Value)>(&self, index: Index, exit: F) -> (Node, u64) {
        (self.moves(index, exit), 0)
    }

    fn unmoves<F: FnMut(Index)>(&self, _: Index, _: F) {
        // No move stays inside a tier.
    }
}
