//! A directory of tables as one family reads it: its tables opened on demand by the family's own table type, each
//! checked against the family's parameters once, and probed through the probe library's block cache.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow};
use retro_family::{Family, Index, Payloads, SubTables, Value};
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
        let opened = self.table(table)?;
        if opened.distance_file().header().omitted().is_none() {
            return DenseValues::read(&opened).with_context(|| self.damaged(table));
        }
        self.with_game(table, |game| self.values_through(table, game))
    }

    /// Hands `work` the game of `table` on its sub-tables, each read whole ([`values`](Self::values)), which are
    /// dropped after.
    pub fn with_game<R>(
        &self,
        table: &F::Table,
        work: impl FnOnce(&F::Game<'_>) -> Result<R>,
    ) -> Result<R> {
        let dependencies = self.family.dependencies(table);
        let held = dependencies
            .iter()
            .map(|d| self.values(d))
            .collect::<Result<Vec<_>>>()?;
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
