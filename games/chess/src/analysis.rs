//! What a probe tells about a position: its value, every legal move's value best first, and the line to mate.
//!
//! The tables hold positions without en-passant rights. A position with an en-passant capture available is valued
//! by searching its moves one level (the capture and the others, each looked up in the tables, recursively when a
//! move again gives en-passant rights), which is exact.

use retro_game::Value;

use crate::material::Material;
use crate::position::{ChessMove, MoveList, Position};
use crate::types::{Bitboard, Color, Role};

/// A move and its value for the side making it, counted from the position it is played in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValuedMove {
    pub chess_move: ChessMove,
    pub value: Value,
}

/// A probed position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    pub value: Value,
    /// Every legal move, best first (ties in generation order).
    pub moves: Vec<ValuedMove>,
    /// Best moves from the position to mate (empty for a draw or a position already over).
    pub line: Vec<ChessMove>,
}

/// The value of any legal position, from `lookup`, which answers for positions without en-passant rights (the value
/// stored in a table; KvK and checkmates/stalemates need not be special to it, but may be).
pub fn value_of<E>(
    pos: &Position,
    lookup: &impl Fn(&Position) -> Result<Value, E>,
) -> Result<Value, E> {
    if Material::of(pos) == Material::KVK {
        return Ok(Value::DRAW);
    }
    if pos.ep_square().is_none() {
        return lookup(pos);
    }
    // An en-passant square is kept only when a capture is legal, so there is a move.
    searched(pos, lookup)
}

/// The value of a legal position found by searching its moves, each valued by [`value_of`]: for a position with
/// en-passant rights, and for one of the side to move a distance file leaves out. Checkmate is a loss in 0,
/// stalemate a draw.
pub fn searched<E>(
    pos: &Position,
    lookup: &impl Fn(&Position) -> Result<Value, E>,
) -> Result<Value, E> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let mut best: Option<Value> = None;
    for m in moves.as_slice() {
        let v = value_of(&pos.play(m), lookup)?.back();
        if best.is_none_or(|b| v.preference(b).is_gt()) {
            best = Some(v);
        }
    }
    Ok(best.unwrap_or_else(|| {
        if pos.in_check(pos.turn()) {
            Value::loss(0)
        } else {
            Value::DRAW
        }
    }))
}

/// The squares a light-squared bishop stands on (a1 is dark).
const LIGHT_SQUARES: Bitboard = Bitboard(0x55aa_55aa_55aa_55aa);

/// Whether neither side can mate by any series of legal moves, by the rule lichess and FIDE's arbiters use
/// (mate must be impossible even with the opponent's help): kings alone; a king and one knight against a king and
/// nothing but queens; bishops all on squares of one colour, with no knight or pawn to block a king in.
pub fn insufficient_material(pos: &Position) -> bool {
    [Color::White, Color::Black]
        .into_iter()
        .all(|color| cannot_mate(pos, color))
}

fn cannot_mate(pos: &Position, color: Color) -> bool {
    let mine = |role| pos.by_piece(color, role);
    let theirs = |role| pos.by_piece(color.other(), role);
    if (mine(Role::Pawn) | mine(Role::Rook) | mine(Role::Queen)).nonempty() {
        return false;
    }
    if mine(Role::Knight).nonempty() {
        // A lone knight mates only a king hemmed in by its own men; a queen beside the king would be taken or
        // would defend, but any other man can be such a blocker (a selfmate).
        let others = pos.by_color(color.other()).count() - 1 - theirs(Role::Queen).count();
        return pos.by_color(color).count() == 2 && others == 0;
    }
    if mine(Role::Bishop).nonempty() {
        let bishops = mine(Role::Bishop) | theirs(Role::Bishop);
        let one_colour =
            (bishops & LIGHT_SQUARES).is_empty() || (bishops & !LIGHT_SQUARES).is_empty();
        return one_colour && (theirs(Role::Knight) | theirs(Role::Pawn)).is_empty();
    }
    true
}

/// The value of `pos`, its moves best first, and the line to mate, from `lookup` (see [`value_of`]).
pub fn analyse<E>(
    pos: &Position,
    lookup: &impl Fn(&Position) -> Result<Value, E>,
) -> Result<Analysis, E> {
    let value = value_of(pos, lookup)?;
    let moves = valued_moves(pos, lookup)?;
    let mut line = Vec::new();
    if value.plies().is_some() {
        let mut here = *pos;
        // The distance bounds the line; the cap only guards against an inconsistent table.
        for _ in 0..value.plies().unwrap_or(0) {
            let options = valued_moves(&here, lookup)?;
            let Some(best) = options.first() else { break };
            line.push(best.chess_move);
            here = here.play(&best.chess_move);
        }
    }
    Ok(Analysis { value, moves, line })
}

fn valued_moves<E>(
    pos: &Position,
    lookup: &impl Fn(&Position) -> Result<Value, E>,
) -> Result<Vec<ValuedMove>, E> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut moves = Vec::with_capacity(list.len());
    for m in list.as_slice() {
        moves.push(ValuedMove {
            chess_move: *m,
            value: value_of(&pos.play(m), lookup)?.back(),
        });
    }
    // Stable: equal moves keep their generation order.
    moves.sort_by(|a, b| b.value.preference(a.value));
    Ok(moves)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insufficient(fen: &str) -> bool {
        insufficient_material(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn material_that_cannot_mate_is_told_apart() {
        // Kings alone; a lone minor piece; bishops all on one colour.
        assert!(insufficient("8/8/8/3k4/8/8/8/K7 w - -"));
        assert!(insufficient("8/8/8/3k4/8/8/8/KN6 w - -"));
        assert!(insufficient("8/8/8/3k4/8/8/8/KB6 b - -"));
        assert!(insufficient("8/8/2b5/3k4/8/8/8/KB6 w - -"));
        // A knight against a queen: the knight cannot mate (the queen cannot hem her own king in without being
        // taken or defending), but the queen can.
        let pos = Position::from_fen("8/8/8/3k4/4q3/8/8/KN6 w - -").unwrap();
        assert!(cannot_mate(&pos, Color::White) && !cannot_mate(&pos, Color::Black));
        assert!(!insufficient_material(&pos));
        // Mate is possible, with help: a pawn, a rook, two knights, bishops on both colours, a knight against a
        // bishop, a bishop against a knight or a pawn.
        assert!(!insufficient("8/8/8/3k4/8/8/4P3/K7 w - -"));
        assert!(!insufficient("8/8/8/3k4/8/8/8/KR6 w - -"));
        assert!(!insufficient("8/8/8/3k4/8/8/8/KNN5 w - -"));
        assert!(!insufficient("8/8/8/3k4/8/8/8/KBB5 w - -"));
        assert!(!insufficient("8/8/1b6/3k4/8/8/8/KB6 w - -"));
        assert!(!insufficient("8/8/8/3k4/4b3/8/8/KN6 w - -"));
        assert!(!insufficient("8/8/8/3k4/4n3/8/8/KB6 w - -"));
        assert!(!insufficient("8/8/8/3k4/4p3/8/8/KB6 w - -"));
    }
}
