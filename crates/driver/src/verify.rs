//! `retro verify --tables DIR GAME [VARIANT]`, for every family: for each table of the variant, every block
//! checksum of both files, the WDL file against the distance file, then the engine's certificate (every position's
//! value is what its moves give, read from the table itself and the tables it depends on), then the family's own
//! checks ([`Family::check_values`]).
//!
//! The certificate looks up every move of every position, all over the table: a table is read whole into memory
//! when that fits `--memory`, else probed block by block through the cache (much slower). Indices a family solves
//! but does not store (chess positions with en-passant rights) are valued as `probe` values them.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use anyhow::{Result, anyhow};
use retro_family::{Family, Index, SubTables, Value, Values};

use crate::build::with_threads;
use crate::dense::DenseValues;
use crate::directory::Directory;
use crate::read::{certify_values, check_files, check_floors};
use crate::registry::{Visit, visit};
use crate::value::{Lookup, value_of};

/// What `verify` is asked.
#[derive(Clone, Debug, Default)]
pub struct VerifyArgs {
    pub game: String,
    pub variant: Vec<String>,
    pub threads: Option<usize>,
    /// The most memory for reading tables whole (default: half the RAM).
    pub memory: Option<u64>,
}

/// What `verify` found of one table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    pub name: String,
    pub blocks: u64,
    pub positions: u64,
}

/// Runs `verify` and prints a line per table.
pub fn verify(dir: &Path, args: &VerifyArgs) -> Result<Vec<Verified>> {
    let start = Instant::now();
    let game = args.game.clone();
    let verified = with_threads(args.threads, || visit(&args.game, Verify { dir, args }))???;
    for v in &verified {
        println!(
            "{game}/{}: OK: {} block checksums, WDL file agrees with distance file, {} positions certified \
             ({:.2} s)",
            v.name,
            v.blocks,
            v.positions,
            start.elapsed().as_secs_f64()
        );
    }
    if verified.len() > 1 {
        println!(
            "{game} {}: OK: {} tables, {} positions certified ({:.2} s)",
            args.variant.join(" "),
            verified.len(),
            verified.iter().map(|v| v.positions).sum::<u64>(),
            start.elapsed().as_secs_f64()
        );
    } else if verified.is_empty() {
        println!("{game}: no table to verify");
    }
    Ok(verified)
}

struct Verify<'a> {
    dir: &'a Path,
    args: &'a VerifyArgs,
}

/// Values of one table read whole or probed through the directory's cache.
enum Stored {
    Dense(DenseValues),
    Probed(std::sync::Arc<retro_probe::Table>),
}

impl Stored {
    fn value(&self, index: Index) -> Result<Option<Value>> {
        match self {
            Stored::Dense(d) => Ok(d.value(index)),
            Stored::Probed(t) => t.probe(index).map_err(anyhow::Error::new),
        }
    }
}

/// This table's values, those of its dependencies, then the directory.
struct Around<'h, F: Family> {
    this: (&'h F::Table, &'h Stored),
    held: &'h HashMap<F::Table, DenseValues>,
    disk: &'h Directory<'h, F>,
}

impl<F: Family> Lookup<F> for Around<'_, F> {
    fn value(&self, table: &F::Table, index: Index) -> Result<Option<Value>> {
        if table == self.this.0 {
            return self.this.1.value(index);
        }
        match self.held.get(table) {
            Some(values) => Ok(values.value(index)),
            None => self.disk.value(table, index),
        }
    }

    fn stores(&self, table: &F::Table, index: Index) -> Result<bool> {
        if table == self.this.0 {
            return Ok(match self.this.1 {
                Stored::Dense(_) => true,
                Stored::Probed(t) => t.stores(index),
            });
        }
        if self.held.contains_key(table) {
            return Ok(true);
        }
        self.disk.stores(table, index)
    }
}

impl Visit for Verify<'_> {
    type Output = Result<Vec<Verified>>;
    fn visit<F: Family>(self, family: &F) -> Result<Vec<Verified>> {
        let memory = self
            .args
            .memory
            .unwrap_or_else(retro_engine::default_budget);
        let disk = Directory::open(family, self.dir)?;
        let variant = family
            .open_variant(&self.args.variant, &disk)
            .map_err(anyhow::Error::msg)?;
        let mut verified = Vec::new();
        for table in family.tables(&variant) {
            verified.push(verify_table(family, &disk, &table, memory)?);
        }
        Ok(verified)
    }
}

fn verify_table<F: Family>(
    family: &F,
    disk: &Directory<F>,
    table: &F::Table,
    memory: u64,
) -> Result<Verified> {
    let name = family.table_name(table);
    let opened = disk.table(table)?;
    let blocks = check_files(&opened)?;
    let mut held = HashMap::new();
    let mut budget = memory;
    for d in family.dependencies(table) {
        let dense = disk.values(&d)?;
        budget = budget.saturating_sub(dense.resident_bytes());
        held.insert(d, dense);
    }
    let mut sub = SubTables::new();
    for (d, values) in &held {
        sub.insert(d.clone(), values as &dyn Values);
    }
    let game = family.game(table, &sub).map_err(anyhow::Error::msg)?;
    let stored = family.stored(&game);
    let path = opened.distance_file().path().display().to_string();
    if opened.size() != stored {
        return Err(anyhow!(
            "{path}: the table has {} indices but its game stores {stored}",
            opened.size()
        ));
    }
    let values = if DenseValues::bytes_for(stored) <= budget {
        // The values a one-side file leaves out are searched through the game just built.
        Stored::Dense(disk.values_through(table, &game)?)
    } else if let Some(omitted) = opened.distance_file().header().omitted() {
        return Err(anyhow!(
            "{path}: the file leaves out indices {}..{}, which verify reads whole, in more memory than --memory \
             leaves ({} bytes for {stored} indices)",
            omitted.start,
            omitted.end,
            DenseValues::bytes_for(stored)
        ));
    } else {
        Stored::Probed(opened.clone())
    };
    let around = Around {
        this: (table, &values),
        held: &held,
        disk,
    };
    let value = |i: Index| -> Result<Option<Value>> {
        if i < stored {
            values.value(i)
        } else {
            match family.position(&game, i) {
                Some(pos) => value_of(family, &around, &pos).map(Some),
                None => Ok(None),
            }
        }
    };
    let describe = |i: Index| match family.position(&game, i) {
        Some(pos) => format!("position {}", family.show_position(&pos)),
        None => format!("hole {i}"),
    };
    check_floors(&opened, &game, |i| values.value(i))?;
    let positions = certify_values(&opened, &game, family.convention(table), value, describe)?;
    let read_error = std::sync::Mutex::new(None);
    family
        .check_values(table, &|i| match values.value(i) {
            Ok(v) => v,
            Err(e) => {
                read_error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(e);
                None
            }
        })
        .map_err(|e| anyhow!("{path}: inconsistent: {e}"))?;
    if let Some(e) = read_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(Verified {
        name,
        blocks,
        positions,
    })
}
