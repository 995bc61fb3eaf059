//! The contract between a family's answers, checked on the tables of a variant: what every registered family is
//! tested against, without the engine.
//!
//! For each index checked of a table's game:
//! - an index that is a position locates back to itself, and its notation reads back to the same place;
//! - the engine's moves ([`Game::expand`]) and un-moves ([`Game::unmoves`]) agree: each target `q` of `p`
//!   lists `p` among its predecessors as often as `p` lists `q` (twins folded alike);
//! - no move reaches a hole, and the family's own moves ([`Family::moves`]) reach the same indices of the table as
//!   the engine's (as a set: a family may fold twins);
//! - a position whose family moves are none is terminal or has no engine move either.
//!
//! The exits of the tables read fake sub-tables ([`AnyValue`]): the contract is about indices, not values.

use std::collections::BTreeMap;

use crate::{
    Family, Game, Index, Location, Move, Node, Payloads, Played, SubTables, Value, Values,
};

/// Fake values for the tables a table depends on: every index is a draw.
pub struct AnyValue;

impl Values for AnyValue {
    fn value(&self, _: Index) -> Option<Value> {
        Some(Value::DRAW)
    }
    fn longest_plies(&self) -> u32 {
        0
    }
    fn resident_bytes(&self) -> u64 {
        0
    }
}

/// What the contract checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    pub tables: usize,
    pub indices: u64,
    pub positions: u64,
    pub moves: u64,
}

/// Checks the contract on the tables of `variant`, on every index of a table of at most `every` indices and on
/// `every` indices spread over a larger one. `payloads` serves [`Family::parse_position`] (for a family whose
/// positions name a table).
pub fn check<F: Family>(
    family: &F,
    variant: &F::Variant,
    every: u64,
    payloads: &dyn Payloads,
) -> Result<Checked, String> {
    let mut checked = Checked::default();
    for table in family.tables(variant) {
        let deps = family.dependencies(&table);
        let mut sub = SubTables::new();
        for d in deps {
            sub.insert(d, &AnyValue);
        }
        let game = family.game(&table, &sub)?;
        check_table(family, &table, &game, every, payloads, &mut checked)?;
        checked.tables += 1;
    }
    Ok(checked)
}

fn check_table<F: Family>(
    family: &F,
    table: &F::Table,
    game: &F::Game<'_>,
    every: u64,
    payloads: &dyn Payloads,
    checked: &mut Checked,
) -> Result<(), String> {
    let name = family.table_name(table);
    let size = game.size();
    let stored = family.stored(game);
    if stored > size {
        return Err(format!("{name}: stores {stored} indices of {size}"));
    }
    // Sides kept as ranges follow one another from index 0, in the order of the sides, over the stored indices.
    let side_ranges = family.side_ranges(table);
    if !side_ranges.is_empty() {
        let starts: Vec<Index> = side_ranges.iter().map(|side| side.start).collect();
        let ends: Vec<Index> = side_ranges.iter().map(|side| side.end).collect();
        if starts[0] != 0 || starts[1..] != ends[..ends.len() - 1] || ends[ends.len() - 1] != stored
        {
            return Err(format!(
                "{name}: side ranges {side_ranges:?} do not cover 0..{stored} in order"
            ));
        }
        if side_ranges.len() != family.sides(table).len() {
            return Err(format!(
                "{name}: {} side ranges for {} sides",
                side_ranges.len(),
                family.sides(table).len()
            ));
        }
    }
    let side_of = family.side_of(table);
    let sides = family.sides(table).len();
    let step = (size / every.max(1)).max(1);
    let mut index = 0;
    while index < size {
        check_index(family, table, game, index, stored, payloads, checked)
            .map_err(|e| format!("{name}, index {index}: {e}"))?;
        // Every stored index is on one of the table's sides (what the writer counts).
        if index < stored && side_of(index) >= sides {
            return Err(format!(
                "{name}, index {index}: side {} of {sides}",
                side_of(index)
            ));
        }
        if let Some(side) = side_ranges.iter().position(|side| side.contains(&index))
            && side_of(index) != side
        {
            return Err(format!(
                "{name}, index {index}: side {} by side_of, {side} by the side ranges",
                side_of(index)
            ));
        }
        checked.indices += 1;
        // Spread the sample, and shift it so that it does not fall on one residue only.
        index += if step == 1 { 1 } else { step + index % 7 };
    }
    Ok(())
}

fn check_index<F: Family>(
    family: &F,
    table: &F::Table,
    game: &F::Game<'_>,
    index: Index,
    stored: Index,
    payloads: &dyn Payloads,
    checked: &mut Checked,
) -> Result<(), String> {
    let mut targets: BTreeMap<Index, u64> = BTreeMap::new();
    let node = game.expand(index, |m| {
        if let Move::To(q) = m {
            *targets.entry(q).or_default() += 1;
        }
    });
    let position = family.position(game, index);
    match (&position, node) {
        (None, Node::Hole) => return Ok(()),
        (None, _) => return Err("not a position, but not a hole of the game".into()),
        (Some(_), Node::Hole) => return Err("a position, but a hole of the game".into()),
        _ => {}
    }
    let position = position.expect("matched above");
    checked.positions += 1;
    // The index and the notation round-trip.
    let text = family.show_position(&position);
    if index < stored {
        let here = Location::Stored {
            table: table.clone(),
            index,
        };
        let located = family.locate(&position)?;
        if located != here {
            return Err(format!("{text} locates to {located:?}"));
        }
        let read = family
            .parse_position(&text, payloads)
            .map_err(|e| format!("{text:?} does not read back: {e}"))?;
        let again = family.locate(&read)?;
        if again != here {
            return Err(format!("{text:?} reads back as a position at {again:?}"));
        }
    }
    // Moves and un-moves agree.
    for (&q, &n) in &targets {
        let mut back = 0;
        game.unmoves(q, |p| back += u64::from(p == index));
        if back != n {
            return Err(format!(
                "{text}: {n} moves to index {q}, which lists it {back} times among its predecessors"
            ));
        }
        if family.position(game, q).is_none() {
            return Err(format!("{text}: a move reaches the hole {q}"));
        }
        checked.moves += n;
    }
    let mut hole_before = None;
    game.unmoves(index, |p| {
        if family.position(game, p).is_none() {
            hole_before = Some(p);
        }
    });
    if let Some(p) = hole_before {
        return Err(format!("{text}: the hole {p} is listed as a predecessor"));
    }
    // The family's moves reach the engine's targets inside this table (as a set).
    let moves = family.moves(&position);
    let mut reached = std::collections::BTreeSet::new();
    for (m, played) in &moves {
        if let Played::Position(after) = played {
            match family.locate(after)? {
                Location::Stored { table: t, index: q } if t == *table && q < stored => {
                    reached.insert(q);
                }
                _ => {}
            }
            let shown = family.show_position(after);
            if family.parse_position(&shown, payloads).is_err() {
                return Err(format!(
                    "{text}: move {m} reaches {shown:?}, which does not read"
                ));
            }
        }
    }
    let engine: std::collections::BTreeSet<Index> =
        targets.keys().copied().filter(|&q| q < stored).collect();
    if reached != engine {
        return Err(format!(
            "{text}: the family's moves reach indices {reached:?} of the table, the engine's {engine:?}"
        ));
    }
    if moves.is_empty() && !targets.is_empty() {
        return Err(format!(
            "{text}: the family lists no move, the engine {}",
            targets.len()
        ));
    }
    Ok(())
}
