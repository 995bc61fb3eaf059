//! The local certificate of a solved table.
//!
//! A table is right exactly when every position's value is what its moves say it must be: a win at `d` has a move to
//! a loss at `d - 1` and none to a faster loss; a loss at `d` has only moves to wins, the longest at `d - 1`; a draw
//! has a move to a draw and none to a loss; a position without moves has the convention's value. Checked position by
//! position, this proves the whole table (by induction on distance for wins and losses; the drawn set is then a trap
//! both players can stay in), and it needs no second solver.

use rayon::prelude::*;
use retro_game::{Game, Index, Move, Node, PlayConvention, Value};

/// The first position whose stored value its moves do not support.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("position {index}: stored {stored}, but its moves give {expected}")]
pub struct Inconsistency {
    pub index: Index,
    /// What the table says (`hole` for a missing value).
    pub stored: String,
    /// What the moves and the values of their targets give.
    pub expected: String,
}

/// The value a position must have, given its moves and the values of what they reach (`None` for a hole).
pub fn expected_value<G: Game, V: Fn(Index) -> Option<Value>>(
    game: &G,
    convention: PlayConvention,
    index: Index,
    values: &V,
) -> Result<Option<Value>, String> {
    let mut best: Option<Value> = None;
    let mut missing: Option<Index> = None;
    let node = game.expand(index, |m| {
        let target = match m {
            Move::To(q) => match values(q) {
                Some(v) => v,
                None => {
                    missing.get_or_insert(q);
                    return;
                }
            },
            Move::Exit(v) => v,
        };
        let back = target.back();
        if best.is_none_or(|b| back.preference(b).is_gt()) {
            best = Some(back);
        }
    });
    if let Some(q) = missing {
        return Err(format!("a move reaches index {q}, which has no value"));
    }
    Ok(match node {
        Node::Hole => None,
        Node::Terminal(v) => Some(v),
        Node::Playable => Some(best.unwrap_or(convention.no_move_value())),
    })
}

/// Checks every index of `game` against `values`, in parallel. Returns the number of positions checked, or the
/// inconsistency with the smallest index.
pub fn certify<G: Game, V: Fn(Index) -> Option<Value> + Sync>(
    game: &G,
    convention: PlayConvention,
    values: V,
) -> Result<u64, Inconsistency> {
    const CHUNK: u64 = 1 << 12;
    let size = game.size();
    (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut checked = 0u64;
            for index in chunk * CHUNK..((chunk + 1) * CHUNK).min(size) {
                let stored = values(index);
                let expected = expected_value(game, convention, index, &values);
                match expected {
                    Ok(e) if e == stored => checked += u64::from(stored.is_some()),
                    Ok(e) => {
                        return Err(Inconsistency {
                            index,
                            stored: describe(stored),
                            expected: describe(e),
                        });
                    }
                    Err(why) => {
                        return Err(Inconsistency {
                            index,
                            stored: describe(stored),
                            expected: why,
                        });
                    }
                }
            }
            Ok(checked)
        })
        .reduce(
            || Ok(0),
            |a, b| match (a, b) {
                (Ok(x), Ok(y)) => Ok(x + y),
                (Err(x), Err(y)) => Err(if x.index <= y.index { x } else { y }),
                (Err(x), _) | (_, Err(x)) => Err(x),
            },
        )
}

fn describe(value: Option<Value>) -> String {
    match value {
        None => "hole".to_string(),
        Some(v) => v.to_string(),
    }
}
