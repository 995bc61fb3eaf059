//! The en-passant region: numbers for the positions with en-passant rights of a material with pawns on both sides.
//!
//! A table stores positions without en-passant rights (a probe searches the capture of a position with them, see
//! [`crate::analysis`]). While a table is being solved, though, a double push that gives the opponent a legal
//! en-passant capture reaches a position that differs from the same placement without the rights (it has one more
//! move), and its value is needed. The solver therefore numbers these positions too, after the table's own indices:
//! [`ChessGame`](crate::ChessGame) has `TableIndex::size() + EpIndex::len()` indices, and only the first
//! `TableIndex::size()` are written to the table's files.
//!
//! A position with en-passant rights is its placement (the table's canonical index of it, rights ignored) and the
//! file of the pawn that has just advanced two squares. Such positions are few (that pawn stands beside an enemy
//! pawn that can legally take it), so the region is the sorted list of the `(index, file)` keys of all of them,
//! enumerated when the table is set up: the region has no holes, and a position's number is found by binary search,
//! which is needed only for the double pushes that give en-passant rights and for the un-moves into such positions.
//!
//! The canonical form is the table's: with pawns on the board only the left–right mirror is a symmetry, and White's
//! king stands on files a–d; a symmetric material stores White to move only (a Black-to-move position is taken as
//! its colour-flipped image).

use crate::index::TableIndex;
use crate::position::Position;
use crate::types::{Color, Piece, Role, Square};

/// The positions with en-passant rights of one material, numbered `0..len()`.
#[derive(Clone, Debug, Default)]
pub struct EpIndex {
    /// `table index × 8 + file of the pawn that has just advanced`, sorted, one per position.
    keys: Vec<u64>,
}

impl EpIndex {
    /// Enumerates every legal position with en-passant rights of `index`'s material (none when only one side has
    /// pawns). The work is proportional to the number of placements with a pawn beside an enemy pawn on the
    /// double-push rank: fine up to five men.
    pub fn new(index: &TableIndex) -> EpIndex {
        let material = index.material();
        if !material.both_sides_have_pawns() {
            return EpIndex::default();
        }
        let turns: &[Color] = if index.sides() == 1 {
            &[Color::White]
        } else {
            &[Color::White, Color::Black]
        };
        let mut keys = Vec::new();
        for &turn in turns {
            let pusher = turn.other();
            // The pawn that has just advanced stands on the fourth rank of its side; the taker beside it.
            let pushed_rank = if pusher == Color::White { 3 } else { 4 };
            // The men left to place after the kings, the pushed pawn and one taker: one entry per man.
            let mut rest = Vec::new();
            for color in [Color::White, Color::Black] {
                for role in Role::NON_KING {
                    let mut count = material.count(color, role);
                    if role == Role::Pawn {
                        count -= 1; // the pushed pawn (pusher) or the taker (side to move)
                    }
                    for _ in 0..count {
                        rest.push(Piece { color, role });
                    }
                }
            }
            for file in 0..8u8 {
                let pushed = Square::from_coords(file, pushed_rank);
                for taker_file in [file.wrapping_sub(1), file + 1] {
                    if taker_file >= 8 {
                        continue;
                    }
                    let taker = Square::from_coords(taker_file, pushed_rank);
                    for pair in 0..index.king_pairs() {
                        let (wk, bk) = index.king_pair(pair);
                        if [wk, bk].contains(&pushed) || [wk, bk].contains(&taker) {
                            continue;
                        }
                        let mut pos = Position::empty(turn);
                        for (sq, color, role) in [
                            (wk, Color::White, Role::King),
                            (bk, Color::Black, Role::King),
                            (pushed, pusher, Role::Pawn),
                            (taker, turn, Role::Pawn),
                        ] {
                            pos.put(sq, Piece { color, role });
                        }
                        place_rest(&pos, &rest, &mut |pos| {
                            if pos.in_check(turn.other()) {
                                return;
                            }
                            let ep = Square::from_coords(
                                file,
                                if pusher == Color::White { 2 } else { 5 },
                            );
                            if let Some(with) = pos.with_ep_square(ep) {
                                keys.push(index.encode_oriented(&with) * 8 + u64::from(file));
                            }
                        });
                    }
                }
            }
        }
        // A position with two takers, or identical men, is found more than once.
        keys.sort_unstable();
        keys.dedup();
        EpIndex { keys }
    }

    /// Number of positions with en-passant rights.
    pub fn len(&self) -> u64 {
        self.keys.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The position numbered `n` (below [`len`](Self::len)), in canonical form, with its en-passant square.
    pub fn position(&self, index: &TableIndex, n: u64) -> Position {
        let key = self.keys[n as usize];
        let pos = index
            .decode(key / 8)
            .expect("en-passant keys are made from legal positions");
        let ep_rank = if pos.turn() == Color::White { 5 } else { 2 };
        pos.with_ep_square(Square::from_coords((key % 8) as u8, ep_rank))
            .expect("en-passant keys are made from positions with a legal capture")
    }

    /// The number of a legal position with en-passant rights of this material (White the first side).
    #[inline]
    pub fn encode(&self, index: &TableIndex, pos: &Position) -> u64 {
        let canonical = canonical(index, pos);
        let ep = canonical
            .ep_square()
            .expect("a position with en-passant rights");
        let key = index.encode_oriented(&canonical) * 8 + u64::from(ep.file());
        self.keys.binary_search(&key).unwrap_or_else(|_| {
            panic!(
                "{} has en-passant rights but is not in the en-passant region",
                pos.fen()
            )
        }) as u64
    }
}

/// The image of a position with pawns that the table numbers: colours exchanged for Black to move in a symmetric
/// material, then mirrored left–right when White's king stands on files e–h. The en-passant square follows.
fn canonical(index: &TableIndex, pos: &Position) -> Position {
    let pos = if index.sides() == 1 && pos.turn() == Color::Black {
        pos.color_flipped()
    } else {
        *pos
    };
    if pos.king(Color::White).file() >= 4 {
        pos.map_squares(Square::flip_horizontal)
    } else {
        pos
    }
}

/// Calls `visit` with every way of putting the men of `rest` on the empty squares of `pos` (pawns on ranks 2–7).
/// Identical men are placed in every order: the caller folds the repeats.
fn place_rest(pos: &Position, rest: &[Piece], visit: &mut impl FnMut(&Position)) {
    let Some((&piece, more)) = rest.split_first() else {
        visit(pos);
        return;
    };
    let mut free = !pos.occupied().0;
    if piece.role == Role::Pawn {
        free &= 0x00ff_ffff_ffff_ff00;
    }
    let mut bits = free;
    while bits != 0 {
        let sq = Square::new(bits.trailing_zeros() as u8);
        bits &= bits - 1;
        let mut next = *pos;
        next.put(sq, piece);
        place_rest(&next, more, visit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attacks;
    use crate::material::Material;

    #[test]
    fn every_en_passant_position_numbers_back_to_itself() {
        for name in ["KPvKP", "KPvK"] {
            let index = TableIndex::new(Material::parse(name).unwrap());
            let ep = EpIndex::new(&index);
            assert_eq!(ep.is_empty(), name == "KPvK");
            for n in 0..ep.len() {
                let pos = ep.position(&index, n);
                assert!(pos.validate().is_ok(), "{}", pos.fen());
                assert_eq!(pos.turn(), Color::White, "KPvKP stores White to move only");
                assert_eq!(ep.encode(&index, &pos), n, "{}", pos.fen());
                // Its images: mirrored, and with colours exchanged.
                let mirrored = pos.map_squares(Square::flip_horizontal);
                assert_eq!(ep.encode(&index, &mirrored), n, "{}", mirrored.fen());
                let flipped = pos.color_flipped();
                assert_eq!(ep.encode(&index, &flipped), n, "{}", flipped.fen());
                // The rights are there because a capture is: the pawn beside the pushed one takes it.
                let taker = pos.by_piece(Color::White, Role::Pawn)
                    & attacks::pawn(Color::Black, pos.ep_square().unwrap());
                assert!(taker.nonempty());
            }
        }
    }

    #[test]
    fn en_passant_positions_are_those_a_double_push_reaches() {
        // Every position with en-passant rights that a double push of a legal KPvKP position reaches is numbered,
        // and every numbered position is the image of one that such a push reaches or of a placement whose
        // predecessor is illegal (counted here, not required).
        let index = TableIndex::new(Material::parse("KPvKP").unwrap());
        let ep = EpIndex::new(&index);
        let mut reached = vec![false; ep.len() as usize];
        let mut moves = crate::position::MoveList::new();
        for i in 0..index.size() {
            let Some(pos) = index.position(i) else {
                continue;
            };
            for p in [pos, pos.color_flipped()] {
                moves.clear();
                p.legal_moves(&mut moves);
                for m in moves.as_slice() {
                    let after = p.play(m);
                    if after.ep_square().is_some() {
                        reached[ep.encode(&index, &after) as usize] = true;
                    }
                }
            }
        }
        for (n, &r) in reached.iter().enumerate() {
            let pos = ep.position(&index, n as u64);
            assert_eq!(r, pos.undo_double_push().is_some(), "{}", pos.fen());
        }
    }
}
