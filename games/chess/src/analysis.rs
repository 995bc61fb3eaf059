//! What a probe tells about a position: its value, every legal move's value best first, and the line to mate.
//!
//! The tables hold positions without en-passant rights. A position with an en-passant capture available is valued
//! by searching its moves one level (the capture and the others, each looked up in the tables, recursively when a
//! move again gives en-passant rights), which is exact.

use retro_game::Value;

use crate::material::Material;
use crate::position::{ChessMove, MoveList, Position};

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
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let mut best: Option<Value> = None;
    for m in moves.as_slice() {
        let v = value_of(&pos.play(m), lookup)?.back();
        if best.is_none_or(|b| v.preference(b).is_gt()) {
            best = Some(v);
        }
    }
    // An en-passant square is kept only when a capture is legal, so there is a move.
    Ok(best.expect("a position with en-passant rights has a legal capture"))
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
