//! Dobutsu shogi as the retrograde engine sees it: indices, moves and un-moves.
//!
//! Every index of the table is one of:
//! - a hole: the mirror image of a position numbered elsewhere, or a position *won in 1* (the player to move can
//!   capture the enemy lion or make a successful try). Won-in-1 positions are more than half of all positions and
//!   their value is known from the board alone ([`known_value`]), so they are not stored: the engine neither keeps
//!   nor walks them, which more than halves its work, and their holes compress to nothing in the files;
//! - `Terminal(loss in 2)`: every move of the player to move leaves a position where the opponent wins in 1;
//! - `Playable`: the moves to stored positions are given. Moves to positions won in 1 for the opponent (the lion
//!   stepped next to the enemy lion, a lion left capturable on the far rank, a piece left hanging the lion, ...) are
//!   left out. That changes no value: such a move loses in 2 for the mover, and every other move is worth at least
//!   that much (the opponent can at best win in 1 after it). Only a position whose every move is left out needs
//!   them, and it is the `Terminal(loss in 2)` above. The engine therefore sees no exits at all.
//!
//! Un-moves go back from a stored position to every stored position with a move to it, once per such move, with the
//! mirror folded the same way as the moves count it.

use retro_game::{Game, Index, Move, Node, Value};

use crate::board::Board;
use crate::index::{Indexer, excluded_value};

/// An upper bound on the moves of a position: 8 lion steps, 6 for each of six hens, or 10 drops for each of three
/// kinds in hand, whichever mix is largest stays below 8 + 6·6 + 3·10.
pub const MAX_MOVES: usize = 8 + 6 * 6 + 3 * 10;

/// The value of a position known from its board alone, without the table: won in 1 when the player to move can
/// capture the enemy lion or make a successful try; outside the table's lion placements, see [`excluded_value`].
/// `None` for the positions the table stores.
pub fn known_value(board: &Board) -> Option<Value> {
    excluded_value(board).or_else(|| board.has_winning_move().then_some(Value::win(1)))
}

/// The whole game of Dobutsu shogi as one table.
pub struct DobutsuGame {
    indexer: Indexer,
}

impl Default for DobutsuGame {
    fn default() -> Self {
        DobutsuGame::new()
    }
}

impl DobutsuGame {
    pub fn new() -> DobutsuGame {
        DobutsuGame {
            indexer: Indexer::new(),
        }
    }

    /// The sub-game with `material` giraffes, elephants and chicks (at most two each) besides the lions: the same
    /// rules on fewer pieces, small enough to check the engine by brute force.
    pub fn for_material(material: [u8; 3]) -> DobutsuGame {
        DobutsuGame {
            indexer: Indexer::for_material(material),
        }
    }

    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// Visits the board after each move of the position at `index` (before the turn passes) that reaches a stored
    /// position: one in the table and not won in 1 for the opponent. Says what the index is: a hole, a position
    /// whose every move was left out (lost in 2), or a playable one. The boards are tested as they are: turning
    /// each one would cost more than the tests.
    fn stored_children(&self, index: Index, mut stored: impl FnMut(&Board)) -> Node {
        let Some(board) = self.indexer.decode(index) else {
            return Node::Hole;
        };
        if board.has_winning_move() {
            return Node::Hole; // Won in 1: not stored (see the module documentation).
        }
        let (mut any, mut left_out) = (false, false);
        // No move captures the lion or wins by a try here (the position would be won in 1).
        board.children(|after, _| {
            if self.indexer.in_table_flipped(&after) && !after.opponent_has_winning_move() {
                any = true;
                stored(&after);
            } else {
                left_out = true;
            }
        });
        if !any && left_out {
            Node::Terminal(Value::loss(2))
        } else {
            Node::Playable
        }
    }
}

impl Game for DobutsuGame {
    fn size(&self) -> Index {
        self.indexer.size()
    }

    fn max_moves(&self) -> u64 {
        MAX_MOVES as u64
    }

    fn expand<F: FnMut(Move)>(&self, index: Index, mut visit: F) -> Node {
        let mut targets = [0 as Index; MAX_MOVES];
        let mut count = 0;
        let node = self.stored_children(index, |after| {
            targets[count] = self.indexer.encode(&after.flip()).expect("in the table");
            count += 1;
        });
        for &target in &targets[..count] {
            visit(Move::To(target));
        }
        node
    }

    /// What [`expand`](Game::expand) counts, without encoding the targets. Initialisation runs this on every index,
    /// and encoding was most of its work.
    fn count_moves<F: FnMut(Value)>(&self, index: Index, _exit: F) -> (Node, u64) {
        let mut count = 0;
        let node = self.stored_children(index, |_| count += 1);
        (node, count)
    }

    fn unmoves<F: FnMut(Index)>(&self, index: Index, mut visit: F) {
        let Some(reached) = self.indexer.decode(index) else {
            return;
        };
        if reached.has_winning_move() {
            return; // Not stored, and no stored move leads to it.
        }
        let reached_symmetric = reached == reached.mirror();
        // Seen by the player who just moved, before the turn passed.
        let moved = reached.flip();
        moved.unmoves(|before: Board| {
            if !self.indexer.in_table(&before) || before.has_winning_move() {
                return;
            }
            let (source, oriented) = self.indexer.encode_oriented(&before).expect("in the table");
            // `expand(source)` plays the moves of its decoded board and counts every move reaching `reached` or
            // its mirror image. Un-moves are taken from `reached` only, so: a symmetric predecessor's moves to the
            // mirror image are as many as those to `reached` (count twice); from a symmetric `reached`, each
            // asymmetric predecessor is found in both orientations (count the decoded one only).
            let symmetric = before == before.mirror();
            if reached_symmetric && !symmetric {
                if oriented {
                    visit(source);
                }
            } else if !reached_symmetric && symmetric {
                visit(source);
                visit(source);
            } else {
                visit(source);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tests::Rng;
    use std::collections::HashMap;

    fn targets(game: &DobutsuGame, index: Index) -> (Node, HashMap<Index, u32>) {
        let mut map = HashMap::new();
        let node = game.expand(index, |m| match m {
            Move::To(t) => *map.entry(t).or_insert(0) += 1,
            Move::Exit(v) => panic!("no exits expected, got {v}"),
        });
        (node, map)
    }

    fn predecessors(game: &DobutsuGame, index: Index) -> HashMap<Index, u32> {
        let mut map = HashMap::new();
        game.unmoves(index, |p| *map.entry(p).or_insert(0) += 1);
        map
    }

    /// Counting the moves gives what expanding them counts, on random indices (holes, terminal positions and
    /// playable ones) and on the symmetric lion placements.
    #[test]
    fn counting_moves_agrees_with_expanding_them() {
        let game = DobutsuGame::new();
        let mut rng = Rng(7);
        let mut kinds = [0u32; 3];
        for _ in 0..200_000 {
            let index = rng.below(game.size());
            let counted = game.count_moves(index, |v| panic!("no exits expected, got {v}"));
            let expanded = retro_game::count_by_expanding(&game, index, |v| panic!("exit {v}"));
            assert_eq!(counted, expanded, "index {index}");
            kinds[match counted.0 {
                Node::Hole => 0,
                Node::Terminal(_) => 1,
                Node::Playable => 2,
            }] += 1;
        }
        assert!(kinds.iter().all(|&k| k > 0), "{kinds:?}");
    }

    /// For random positions and for the positions around them: every move is matched by as many un-moves, and every
    /// un-move by as many moves.
    #[test]
    fn moves_and_unmoves_agree() {
        let game = DobutsuGame::new();
        let mut rng = Rng(2024);
        let mut checked = 0;
        let mut kinds = [0u32; 3];
        let mut samples: Vec<Index> = (0..5000).map(|_| rng.below(game.size())).collect();
        // Positions whose two lions stand on file b exercise the mirror folding: sample them on purpose.
        let symmetric_classes: Vec<u64> = (0..28)
            .filter(|&c| {
                let b = game
                    .indexer()
                    .decode(c * game.indexer().rest_size())
                    .unwrap();
                b == b.mirror()
                    || b.lion(crate::board::Owner::Us).file() == 1
                        && b.lion(crate::board::Owner::Them).file() == 1
            })
            .collect();
        assert_eq!(symmetric_classes.len(), 4);
        for _ in 0..5000 {
            let c = symmetric_classes[rng.below(4) as usize];
            samples.push(c * game.indexer().rest_size() + rng.below(game.indexer().rest_size()));
        }
        for &p in &samples {
            let (node, succ) = targets(&game, p);
            kinds[match node {
                Node::Hole => 0,
                Node::Terminal(v) => {
                    assert_eq!(v, Value::loss(2));
                    1
                }
                Node::Playable => 2,
            }] += 1;
            for (&q, &n) in &succ {
                assert_eq!(
                    predecessors(&game, q).get(&p).copied().unwrap_or(0),
                    n,
                    "{p} -> {q}"
                );
                checked += 1;
            }
            for (&q, &n) in &predecessors(&game, p) {
                let (node, succ) = targets(&game, q);
                assert_eq!(node, Node::Playable);
                assert_eq!(succ.get(&p).copied().unwrap_or(0), n, "{q} -> {p}");
                checked += 1;
            }
        }
        assert!(checked > 15_000, "{checked}");
        assert!(kinds[0] > 0 && kinds[2] > 0, "{kinds:?}");
    }
}
