//! The value of any position of a family, from the values of its tables: read where the position is stored, known
//! from the rules, or the best of its moves' values where the family searches (a chess position with en-passant
//! rights). Probing, `verify` and the census all value positions this way.

use anyhow::{Result, bail};
use retro_family::{Family, Index, Location, Played, Value};

/// Where the values of tables come from: a directory of tables, or values held in memory.
pub trait Lookup<F: Family> {
    /// The value at `index` of `table`; `None` for a hole.
    fn value(&self, table: &F::Table, index: Index) -> Result<Option<Value>>;

    /// Whether `table` stores the value at `index`: every index, except in a table whose distance file leaves one
    /// side to move out, whose positions are valued by searching their moves.
    fn stores(&self, _table: &F::Table, _index: Index) -> Result<bool> {
        Ok(true)
    }
}

/// How deep a search through positions that no table stores may go before the family is said to be wrong (each
/// step of a chess search makes a double push, so a real search is a few plies deep).
const SEARCH_DEPTH: u32 = 32;

/// The value of `position` for its player to move.
pub fn value_of<F: Family>(
    family: &F,
    lookup: &dyn Lookup<F>,
    position: &F::Position,
) -> Result<Value> {
    search(family, lookup, position, 0)
}

fn search<F: Family>(
    family: &F,
    lookup: &dyn Lookup<F>,
    position: &F::Position,
    depth: u32,
) -> Result<Value> {
    match family.locate(position).map_err(anyhow::Error::msg)? {
        Location::Known(value) => Ok(value),
        Location::Stored { table, index } if !lookup.stores(&table, index)? => {
            best_move(family, lookup, position, depth)
        }
        Location::Stored { table, index } => match lookup.value(&table, index)? {
            Some(value) => Ok(value),
            None => bail!(
                "{} reads as a hole of table {}: the table does not match this game",
                family.show_position(position),
                family.table_name(&table)
            ),
        },
        Location::Search => best_move(family, lookup, position, depth),
    }
}

/// The value of a position that no table stores (a chess position with en-passant rights, or one of the side to
/// move a distance file leaves out): the best of its moves' values.
fn best_move<F: Family>(
    family: &F,
    lookup: &dyn Lookup<F>,
    position: &F::Position,
    depth: u32,
) -> Result<Value> {
    if depth >= SEARCH_DEPTH {
        bail!(
            "{}: no table stores the positions this far from it",
            family.show_position(position)
        );
    }
    let mut best: Option<Value> = None;
    for (_, played) in family.moves(position) {
        let value = after(family, lookup, &played, depth + 1)?;
        if best.is_none_or(|b| value.preference(b).is_gt()) {
            best = Some(value);
        }
    }
    match best.or_else(|| family.no_move_value(position)) {
        Some(value) => Ok(value),
        None => bail!(
            "{}: a position to search has no move",
            family.show_position(position)
        ),
    }
}

/// The value, for the player who made it, of a move that reaches `played`.
pub fn value_of_move<F: Family>(
    family: &F,
    lookup: &dyn Lookup<F>,
    played: &Played<F::Position>,
) -> Result<Value> {
    after(family, lookup, played, 0)
}

fn after<F: Family>(
    family: &F,
    lookup: &dyn Lookup<F>,
    played: &Played<F::Position>,
    depth: u32,
) -> Result<Value> {
    Ok(match played {
        Played::Over(value) => value.back(),
        Played::Position(next) => search(family, lookup, next, depth)?.back(),
    })
}

/// Reads a value the way table headers and `info` write it: `win in 3`, `loss in 0`, `draw`.
pub fn parse_value(text: &str) -> Option<Value> {
    if text == "draw" {
        return Some(Value::DRAW);
    }
    let (outcome, plies) = text.split_once(" in ")?;
    let plies = plies.parse().ok()?;
    match outcome {
        "win" => Some(Value::win(plies)),
        "loss" => Some(Value::loss(plies)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_back_as_written() {
        for value in [Value::win(1), Value::loss(0), Value::DRAW, Value::win(231)] {
            assert_eq!(parse_value(&value.to_string()), Some(value));
        }
        assert_eq!(parse_value("won in 3"), None);
        assert_eq!(parse_value("win in x"), None);
        assert_eq!(parse_value(""), None);
    }
}
