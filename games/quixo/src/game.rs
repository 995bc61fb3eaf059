//! One tier of Quixo as the retrograde engine sees it: moves, counts and un-moves.
//!
//! A tier holds the positions with a given number of cubes. Taking one's own cube keeps the number, so the move
//! lands in the tier ([`Move::To`]); taking a blank cube adds one, so the move leaves for the next tier, solved
//! before, and is a [`Move::Exit`] with the value read there. Positions showing a line are terminal (see
//! [`Geometry::over`](crate::board::Geometry::over)).
//!
//! # Moves and un-moves agree, with the symmetries folded
//!
//! `expand(p)` lists every move of `p` separately: a move whose result has canonical index `q` is one `To(q)`, even
//! if another move of `p` reaches the same orbit. `unmoves(q)` must then list `p` exactly
//! `A(p, q) = #{moves m of p : m(p) is an image of q}` times. It un-plays the moves of the canonical board `q` only
//! (not of its images), which finds `N(p, q) = #{(b, m) : b an image of p, m(b) = q}` pairs whose predecessor `b`
//! canonicalises to `p`. Count the pairs `(g, m)` with `g` a symmetry and `m` a move of `g(p)` reaching `q`: grouped
//! by `b = g(p)` there are `|Stab(p)| · N(p, q)`; carried back by `g` (the moves of `g(p)` are the images of the
//! moves of `p`, since the rules are symmetric) they are the moves of `p` reaching `g⁻¹(q)`, each image `r` of `q`
//! being `g⁻¹(q)` for `|Stab(q)|` symmetries, so there are `|Stab(q)| · A(p, q)`. Hence
//!
//! ```text
//!     A(p, q) = N(p, q) · |Stab(p)| / |Stab(q)| = N(p, q) · images(q) / images(p).
//! ```
//!
//! Image counts divide 8, so when `images(q) ≥ images(p)` every pair found gives `images(q) / images(p)` visits
//! of `p`; otherwise (`q` more symmetric than `p`, rare) the pairs are gathered, counted per `p`, and visited
//! `N · images(q) / images(p)` times, which is a whole number by the equation above.

use retro_game::{Game, Index, Move, Node, Value, Values};

use crate::board::{self, Geometry};
use crate::index::Classes;

/// The most moves of any board size this crate plays (5×5: 4 corners with 2 pushes, 12 edges with 3).
const MOST_MOVES: usize = 44;

/// The positions with `cubes` cubes on an `n × n` board.
pub struct QuixoGame<'a> {
    classes: &'static Classes,
    geo: &'static Geometry,
    cubes: u32,
    /// The values of the tier with one cube more, which the moves taking a blank cube reach (none for a full board).
    next: Option<&'a dyn Values>,
}

impl<'a> QuixoGame<'a> {
    /// The tier of `cubes` cubes; `next` holds the values of the tier of `cubes + 1` (unless the board is full).
    pub fn new(n: u32, cubes: u32, next: Option<&'a dyn Values>) -> QuixoGame<'a> {
        let classes = crate::index::classes(n);
        let geo = classes.geometry();
        assert!(cubes <= geo.squares, "{cubes} cubes on a {n}x{n} board");
        assert!(
            next.is_some() || cubes == geo.squares,
            "tier {cubes} needs the values of tier {}",
            cubes + 1
        );
        QuixoGame {
            classes,
            geo,
            cubes,
            next,
        }
    }

    pub fn cubes(&self) -> u32 {
        self.cubes
    }

    pub fn classes(&self) -> &'static Classes {
        self.classes
    }

    /// The value, for its mover, of the position a blank cube's push reaches (seen by the new mover).
    #[inline]
    fn exit(&self, reached: board::Board) -> Value {
        let (index, _) = self.classes.encode_in(self.cubes + 1, reached);
        self.next
            .expect("a blank cube is taken only below a full board")
            .value(index)
            .expect("a canonical index is never a hole")
    }
}

impl Game for QuixoGame<'_> {
    fn size(&self) -> Index {
        self.classes.tier_size(self.cubes)
    }

    fn max_moves(&self) -> u64 {
        self.geo.max_moves()
    }

    fn longest_exit(&self) -> u32 {
        self.next.map_or(0, |v| v.longest_plies())
    }

    fn expand<F: FnMut(Move)>(&self, index: Index, mut visit: F) -> Node {
        let Some(board) = self.classes.decode(self.cubes, index) else {
            return Node::Hole;
        };
        if let Some(value) = self.geo.over(board) {
            return Node::Terminal(value);
        }
        let mine = board::mine(board);
        let mut takeable = self.geo.border & !board::theirs(board);
        while takeable != 0 {
            let from = takeable.trailing_zeros();
            takeable &= takeable - 1;
            let own = mine >> from & 1 == 1;
            for push in &self.geo.pushes[self.geo.pushes_from[from as usize].clone()] {
                let reached = board::swap(push.apply(board));
                if own {
                    visit(Move::To(self.classes.encode_in(self.cubes, reached).0));
                } else {
                    visit(Move::Exit(self.exit(reached)));
                }
            }
        }
        Node::Playable
    }

    fn count_moves<F: FnMut(Value)>(&self, index: Index, mut exit: F) -> (Node, u64) {
        let Some(board) = self.classes.decode(self.cubes, index) else {
            return (Node::Hole, 0);
        };
        if let Some(value) = self.geo.over(board) {
            return (Node::Terminal(value), 0);
        }
        // The moves inside the tier need no target to be counted: each own border cube has its pushes.
        let mut blanks = self.geo.border & !(board::mine(board) | board::theirs(board));
        while blanks != 0 {
            let from = blanks.trailing_zeros();
            blanks &= blanks - 1;
            for push in &self.geo.pushes[self.geo.pushes_from[from as usize].clone()] {
                exit(self.exit(board::swap(push.apply(board))));
            }
        }
        (Node::Playable, self.geo.own_moves(board))
    }

    fn unmoves<F: FnMut(Index)>(&self, index: Index, mut visit: F) {
        let Some(board) = self.classes.decode(self.cubes, index) else {
            return;
        };
        let images = self.classes.images(board);
        // The board as the player who made the last move saw it, right after the push.
        let pushed = board::swap(board);
        let mut pending = [(0 as Index, 0u32); MOST_MOVES];
        let mut waiting = 0;
        // Only the pushes whose cube re-entered at a square holding a cube of the player who pushed.
        let mut ends = board::mine(pushed) & self.geo.border;
        while ends != 0 {
            let to = ends.trailing_zeros();
            ends &= ends - 1;
            for push in &self.geo.pushes_by_end[self.geo.pushes_to[to as usize].clone()] {
                let before = push.undo(pushed);
                if self.geo.is_over(before) {
                    continue; // A finished game has no moves.
                }
                let (p, p_images) = self.classes.encode_in(self.cubes, before);
                if images >= p_images {
                    // Image counts are powers of two: a shift, not a division.
                    for _ in 0..images >> p_images.trailing_zeros() {
                        visit(p);
                    }
                } else {
                    pending[waiting] = (p, p_images);
                    waiting += 1;
                }
            }
        }
        // `q` more symmetric than `p`: visit `p` N · images(q) / images(p) times (see the module documentation).
        let pending = &mut pending[..waiting];
        pending.sort_unstable();
        for run in pending.chunk_by(|a, b| a.0 == b.0) {
            let (p, p_images) = run[0];
            let times = run.len() as u32 * images;
            debug_assert_eq!(times % p_images, 0, "un-moves of {index} to {p}");
            for _ in 0..times / p_images {
                visit(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_family::contract::AnyValue;
    use std::collections::BTreeMap;

    fn targets(game: &QuixoGame<'_>, p: Index) -> BTreeMap<Index, u32> {
        let mut map = BTreeMap::new();
        game.expand(p, |m| {
            if let Move::To(q) = m {
                *map.entry(q).or_default() += 1;
            }
        });
        map
    }

    fn predecessors(game: &QuixoGame<'_>, q: Index) -> BTreeMap<Index, u32> {
        let mut map = BTreeMap::new();
        game.unmoves(q, |p| *map.entry(p).or_default() += 1);
        map
    }

    /// On 3×3, the moves of every tier and its un-moves are the same multiset of pairs, and `count_moves` counts
    /// what `expand` lists.
    #[test]
    fn moves_and_unmoves_are_the_same_pairs_on_3x3() {
        for cubes in 0..=9 {
            let next = (cubes < 9).then_some(&AnyValue as &dyn Values);
            let game = QuixoGame::new(3, cubes, next);
            let (mut forward, mut backward) = (BTreeMap::new(), BTreeMap::new());
            for i in 0..game.size() {
                for (q, n) in targets(&game, i) {
                    *forward.entry((i, q)).or_insert(0) += n;
                }
                for (p, n) in predecessors(&game, i) {
                    *backward.entry((p, i)).or_insert(0) += n;
                }
                let (node, inside) = game.count_moves(i, |_| {});
                let (node2, inside2) = retro_game::count_by_expanding(&game, i, |_| {});
                assert_eq!((node, inside), (node2, inside2), "tier {cubes}, index {i}");
            }
            assert_eq!(forward, backward, "tier {cubes}");
        }
    }

    /// On 4×4, sampled positions: every predecessor listed has as many moves to the position, and the other way.
    #[test]
    fn moves_and_unmoves_agree_both_ways_on_4x4() {
        let mut seed = 99u64;
        let mut checked = 0;
        for cubes in [3, 8, 11, 15, 16] {
            let next = (cubes < 16).then_some(&AnyValue as &dyn Values);
            let game = QuixoGame::new(4, cubes, next);
            for _ in 0..300 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let q = (seed >> 20) % game.size();
                for (p, n) in predecessors(&game, q) {
                    assert_eq!(targets(&game, p).get(&q), Some(&n), "{p} -> {q}");
                    checked += 1;
                }
                for (r, n) in targets(&game, q) {
                    assert_eq!(predecessors(&game, r).get(&q), Some(&n), "{q} -> {r}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 5000, "{checked}");
    }

    #[test]
    fn a_move_making_both_lines_loses() {
        let geo = crate::board::geometry(3);
        let row = |r: u32| 0b111 << (3 * r);
        // The mover's line and the opponent's: the opponent made both, and lost.
        assert_eq!(geo.over(board::pack(row(0), row(1))), Some(Value::win(0)));
        assert_eq!(geo.over(board::pack(0, row(2))), Some(Value::loss(0)));
        assert_eq!(geo.over(board::pack(0b011, 0b100)), None);
    }
}
