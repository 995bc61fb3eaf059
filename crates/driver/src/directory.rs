//! A directory of tables as one family reads it: its tables opened on demand by the family's own table type, each
//! checked against the family's parameters once, and probed through the probe library's block cache.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow};
use retro_family::{Family, Index, Payloads, SubTables, Value, Values};
use retro_probe::{ErrorKind, Table, Tables};

use crate::dense::DenseValues;
use crate::read::open_tables;
use crate::value::Lookup;

/// The error of a probe that needs a table the directory does not have (a front-end tells it from a broken table:
/// a server answers 404 rather than 500). Found with `anyhow::Error::downcast_ref`.
#[derive(Debug)]
pub struct MissingTable(pub String);

impl std::fmt::Display for MissingTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MissingTable {}

/// The tables of one family in a directory.
pub struct Directory<'a, F: Family> {
    family: &'a F,
    tables: Arc<Tables>,
    open: Mutex<HashMap<F::Table, Arc<Table>>>,
}

impl<'a, F: Family> Directory<'a, F> {
    pub fn open(family: &'a F, dir: &Path) -> Result<Directory<'a, F>> {
        Ok(Directory::over(family, Arc::new(open_tables(dir)?)))
    }

    /// The family's tables among `tables`, which may be shared with other families and other directories (their
    /// block cache and opened files are).
    pub fn over(family: &'a F, tables: Arc<Tables>) -> Directory<'a, F> {
        Directory {
            family,
            tables,
            open: Mutex::new(HashMap::new()),
        }
    }

    pub fn family(&self) -> &'a F {
        self.family
    }

    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// The game word, which is also the subdirectory of the family's tables.
    pub fn game(&self) -> &'static str {
        self.family.about().name
    }

    /// The table, opened and checked against the family's parameters; the error says what is wrong and how to
    /// build it.
    pub fn table(&self, table: &F::Table) -> Result<Arc<Table>> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = open.get(table) {
            return Ok(Arc::clone(t));
        }
        let opened = self.open_uncached(table)?;
        open.insert(table.clone(), Arc::clone(&opened));
        Ok(opened)
    }

    /// Every value of a table, read whole. The values its distance file leaves out (one side to move) are found by
    /// searching their moves, which reads the tables the table's exits reach, whole too, and drops them after.
    pub fn values(&self, table: &F::Table) -> Result<DenseValues> {
        let mut values = self.values_all(std::slice::from_ref(table))?;
        Ok(values.pop().expect("one table asked"))
    }

    /// Every value of each of `tables` (distinct), read whole, in their order.
    ///
    /// The values a distance file of one side to move leaves out are searched through its game, which needs its
    /// own sub-tables whole, and so on down. Every table this reaches is read and completed once, after the tables
    /// it needs, and dropped as soon as no table still to complete needs it. Completing each sub-table on its own
    /// would complete the same tables over and over: the tree of a five-man table with pawns' sub-tables (KPPvKP's)
    /// has thousands of nodes, but about a hundred distinct tables.
    pub fn values_all(&self, tables: &[F::Table]) -> Result<Vec<DenseValues>> {
        let order = self.completion_order(tables)?;
        let mut held: HashMap<F::Table, DenseValues> = HashMap::new();
        for (k, (table, one_side)) in order.iter().enumerate() {
            let values = if *one_side {
                let mut sub = SubTables::new();
                for d in self.family.dependencies(table) {
                    let values = held
                        .get(&d)
                        .expect("completed before the tables that need it");
                    sub.insert(d, values as &dyn Values);
                }
                let game = self.family.game(table, &sub).map_err(anyhow::Error::msg)?;
                self.values_through(table, &game)?
            } else {
                DenseValues::read(&*self.table(table)?).with_context(|| self.damaged(table))?
            };
            let later: HashSet<F::Table> = order[k + 1..]
                .iter()
                .filter(|(_, one_side)| *one_side)
                .flat_map(|(t, _)| self.family.dependencies(t))
                .collect();
            held.retain(|t, _| later.contains(t) || tables.contains(t));
            if later.contains(table) || tables.contains(table) {
                held.insert(table.clone(), values);
            }
        }
        Ok(tables
            .iter()
            .map(|t| held.remove(t).expect("every table asked is read"))
            .collect())
    }

    /// The tables [`values_all`](Self::values_all) reads for `tables`, with whether each is one-side
    /// ([`completion_order`]).
    fn completion_order(&self, tables: &[F::Table]) -> Result<Vec<(F::Table, bool)>> {
        completion_order(
            tables,
            |t| self.is_one_side(t),
            |t| self.family.dependencies(t),
        )
    }

    /// Whether `table`'s distance file leaves out indices (one side to move).
    fn is_one_side(&self, table: &F::Table) -> Result<bool> {
        Ok(self
            .table(table)?
            .distance_file()
            .header()
            .omitted()
            .is_some())
    }

    /// Hands `work` the game of `table` on its sub-tables, each read whole ([`values_all`](Self::values_all)),
    /// which are dropped after.
    pub fn with_game<R>(
        &self,
        table: &F::Table,
        work: impl FnOnce(&F::Game<'_>) -> Result<R>,
    ) -> Result<R> {
        let dependencies = self.family.dependencies(table);
        let held = self.values_all(&dependencies)?;
        let mut sub = SubTables::new();
        for (d, values) in dependencies.into_iter().zip(&held) {
            sub.insert(d, values);
        }
        let game = self.family.game(table, &sub).map_err(anyhow::Error::msg)?;
        work(&game)
    }

    /// Every value of a table, read whole, the ones its distance file leaves out searched through `game`, its game.
    pub fn values_through(&self, table: &F::Table, game: &F::Game<'_>) -> Result<DenseValues> {
        let opened = self.table(table)?;
        let stored = self.family.stored(game);
        DenseValues::read_completed(&opened, game, stored, self.family.convention(table))
            .map_err(anyhow::Error::msg)
            .with_context(|| self.damaged(table))
    }

    fn damaged(&self, table: &F::Table) -> String {
        format!(
            "table {} {} is damaged",
            self.game(),
            self.family.table_name(table)
        )
    }

    /// Opens and checks a table without keeping it.
    pub fn open_uncached(&self, table: &F::Table) -> Result<Arc<Table>> {
        let name = self.family.table_name(table);
        let game = self.game();
        let opened = self.tables.table(game, &name).map_err(|e| {
            let missing = matches!(e.kind(), ErrorKind::Missing);
            let message = format!(
                "table {game} {name} is missing or unreadable in {} ({e}); `retro generate {game} ... --out {}` \
                 builds it",
                self.tables.dir().display(),
                self.tables.dir().display()
            );
            if missing {
                anyhow::Error::new(MissingTable(message))
            } else {
                anyhow!(message)
            }
        })?;
        self.family
            .check_params(table, &opened.meta().params)
            .map_err(|e| {
                anyhow!(
                    "{}: not a table of this version: {e}",
                    opened.distance_file().path().display()
                )
            })?;
        Ok(opened)
    }
}

/// The order in which to read `tables` and what completing them needs: every table once, each one-side table (as
/// `one_side` says) after its `dependencies`, which its completion searches; a table of both sides needs nothing.
/// Depth first from `tables` in their order, so that a table's sub-tables come just before it and can be dropped
/// soon after.
fn completion_order<T: Clone + Eq + std::hash::Hash>(
    tables: &[T],
    mut one_side: impl FnMut(&T) -> Result<bool>,
    dependencies: impl Fn(&T) -> Vec<T>,
) -> Result<Vec<(T, bool)>> {
    let mut order = Vec::new();
    let mut seen = HashSet::new();
    // Without recursion: a frame is a table, and whether it comes back after its sub-tables were pushed.
    let mut stack: Vec<(T, Option<bool>)> =
        tables.iter().rev().map(|t| (t.clone(), None)).collect();
    while let Some((table, visited)) = stack.pop() {
        if let Some(is_one_side) = visited {
            order.push((table, is_one_side));
            continue;
        }
        if !seen.insert(table.clone()) {
            continue;
        }
        let is_one_side = one_side(&table)?;
        stack.push((table.clone(), Some(is_one_side)));
        if is_one_side {
            for d in dependencies(&table).into_iter().rev() {
                if !seen.contains(&d) {
                    stack.push((d, None));
                }
            }
        }
    }
    Ok(order)
}

impl<F: Family> Lookup<F> for Directory<'_, F> {
    fn value(&self, table: &F::Table, index: Index) -> Result<Option<Value>> {
        let opened = self.table(table)?;
        if index >= opened.size() {
            return Err(anyhow!(
                "{}: index {index} is beyond the table's {} indices",
                opened.distance_file().path().display(),
                opened.size()
            ));
        }
        opened.probe(index).map_err(anyhow::Error::new)
    }

    fn stores(&self, table: &F::Table, index: Index) -> Result<bool> {
        Ok(self.table(table)?.stores(index))
    }
}

impl<F: Family> Payloads for Directory<'_, F> {
    fn payload(&self, name: &str) -> Result<Vec<u8>, String> {
        let game = self.game();
        let table = self
            .tables
            .table(game, name)
            .map_err(|e| format!("cannot open table {game} {name}: {e}"))?;
        table.payload().map_err(|e| e.to_string())
    }

    fn params(&self, name: &str) -> Result<Vec<(String, String)>, String> {
        let game = self.game();
        let table = self
            .tables
            .table(game, name)
            .map_err(|e| format!("cannot open table {game} {name}: {e}"))?;
        Ok(table.meta().params.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A diamond of one-side tables over a shared one (`d`), a table of both sides (`b`) whose own sub-table (`x`)
    /// is not needed, and a table asked that another asked table needs too.
    #[test]
    fn every_table_is_completed_once_after_the_tables_it_needs() {
        let dependencies = |t: &char| -> Vec<char> {
            match t {
                'a' => vec!['l', 'r', 'b'],
                'l' | 'r' => vec!['d'],
                'b' => vec!['x'],
                'd' | 'x' => vec![],
                other => panic!("{other}"),
            }
        };
        let mut asked_one_side = Vec::new();
        let order = completion_order(
            &['a', 'r'],
            |t| {
                asked_one_side.push(*t);
                Ok(*t != 'b')
            },
            dependencies,
        )
        .unwrap();
        let tables: Vec<char> = order.iter().map(|&(t, _)| t).collect();
        assert_eq!(tables, ['d', 'l', 'r', 'b', 'a']);
        assert_eq!(order.iter().filter(|&&(_, one_side)| !one_side).count(), 1);
        // Each table is looked at once, and `x`, which only a table of both sides needs, not at all.
        asked_one_side.sort_unstable();
        assert_eq!(asked_one_side, ['a', 'b', 'd', 'l', 'r']);
    }

    #[test]
    fn an_error_deciding_a_table_stops_the_order() {
        let err = completion_order(
            &[1u32],
            |t| {
                if *t == 2 {
                    Err(anyhow!("table 2 is missing"))
                } else {
                    Ok(true)
                }
            },
            |t| if *t == 1 { vec![2] } else { vec![] },
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "table 2 is missing");
    }
}
