//! Reading tables, for every game: opening with clear errors, the checksum and WDL-versus-distance checks of
//! `verify`, running the engine's certificate over a table ([`certify_table`]), and the facts and JSON of `info`
//! ([`info_fields`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use retro_engine::{Game, Index, Outcome, PlayConvention, Value};
use retro_probe::{Table, TableFile, Tables};

use crate::dense::DenseValues;
use crate::json;

/// Decompressed blocks the CLI keeps in memory while probing or verifying.
pub const CACHE_BYTES: usize = 256 << 20;

/// Opens a directory of tables, with an error naming it.
pub fn open_tables(dir: &Path) -> Result<Tables> {
    Tables::open(dir, CACHE_BYTES).map_err(|e| anyhow::anyhow!("cannot open the tables: {e}"))
}

/// Opens one table; the error names the file and what is wrong with it.
pub fn open_table(tables: &Tables, game: &str, name: &str) -> Result<std::sync::Arc<Table>> {
    tables
        .table(game, name)
        .map_err(|e| anyhow::anyhow!("cannot open table {game} {name}: {e}"))
}

/// The play convention a table was built under (parameter `convention`, normal if absent).
pub fn convention_of(table: &Table) -> Result<PlayConvention> {
    match table.meta().param("convention") {
        None | Some("normal") => Ok(PlayConvention::Normal),
        Some("misere") => Ok(PlayConvention::Misere),
        Some(other) => bail!(
            "{}: unknown play convention {other:?}",
            table.distance_file().path().display()
        ),
    }
}

/// The value of a position read through the distance file, with a clear error.
pub fn value_at(table: &Table, index: Index) -> Result<Option<Value>> {
    table.probe(index).map_err(anyhow::Error::new)
}

/// Checks every block checksum of both files, then that the WDL file gives the outcome of every position of the
/// distance file (or, in a WDL file of floors, an outcome no better: [`check_floors`] checks the exits reach the
/// rest). Returns the number of blocks checked.
pub fn check_files(table: &Table) -> Result<u64> {
    for file in [table.wdl_file(), table.distance_file()] {
        (0..file.header().block_count)
            .into_par_iter()
            .try_for_each(|b| file.check_block(b))?;
    }
    let wdl = table.wdl_file();
    let distance = table.distance_file();
    let floors = wdl.header().floors();
    let dist_values = u64::from(distance.header().block_values);
    let check = |index: Index, stored: Outcome, value: Option<Value>| -> Result<()> {
        if distance.header().stores(index)
            && let Some(v) = value
            && v.outcome() != stored
            && !(floors && stored < v.outcome())
        {
            bail!(
                "{}: index {index} is a {stored} but {} says {v}",
                wdl.path().display(),
                distance.path().display()
            );
        }
        Ok(())
    };
    if wdl.header().order().is_some() {
        // Values stored in another order of the index's digits (version 8): put them in index order first (two bits
        // each), then compare along the distance file.
        let outcomes = wdl_in_index_order(wdl)?;
        (0..distance.header().block_count)
            .into_par_iter()
            .try_for_each(|dblock| -> Result<()> {
                let dstart = dblock * dist_values;
                for (k, value) in distance
                    .stored_distance_block(dblock)?
                    .into_iter()
                    .enumerate()
                {
                    let index = dstart + k as u64;
                    check(index, outcomes.get(index), value)?;
                }
                Ok(())
            })?;
        return Ok(wdl.header().block_count + distance.header().block_count);
    }
    (0..wdl.header().block_count)
        .into_par_iter()
        .try_for_each(|block| -> Result<()> {
            let outcomes = wdl.wdl_block(block)?;
            let start = block * u64::from(wdl.header().block_values);
            let end = start + outcomes.len() as u64;
            let mut index = start;
            while index < end {
                let dblock = index / dist_values;
                // The indices a distance file leaves out (one side to move) have nothing to compare.
                let values = distance.stored_distance_block(dblock)?;
                let dstart = dblock * dist_values;
                while index < end && index < dstart + values.len() as u64 {
                    check(
                        index,
                        outcomes[(index - start) as usize],
                        values[(index - dstart) as usize],
                    )?;
                    index += 1;
                }
            }
            Ok(())
        })?;
    Ok(wdl.header().block_count + distance.header().block_count)
}

/// The outcomes a WDL file stores, by index: read block by block and put in index order, two bits each (for a file of
/// version 8, whose blocks hold its values in another order).
fn wdl_in_index_order(wdl: &TableFile) -> Result<PackedOutcomes> {
    let header = wdl.header();
    let words: Vec<AtomicU64> = (0..header.meta.index_size.div_ceil(32))
        .map(|_| AtomicU64::new(0))
        .collect();
    let block_values = u64::from(header.block_values);
    (0..header.block_count)
        .into_par_iter()
        .try_for_each(|block| -> Result<()> {
            for (k, outcome) in wdl.wdl_block(block)?.into_iter().enumerate() {
                let index = header.index_at(block * block_values + k as u64);
                let code = u64::from(retro_probe::format::wdl_code(outcome));
                words[(index / 32) as usize]
                    .fetch_or(code << (2 * (index % 32)), Ordering::Relaxed);
            }
            Ok(())
        })?;
    Ok(PackedOutcomes(
        words.into_iter().map(AtomicU64::into_inner).collect(),
    ))
}

/// Outcomes by index, two bits each.
struct PackedOutcomes(Vec<u64>);

impl PackedOutcomes {
    fn get(&self, index: Index) -> Outcome {
        let code = (self.0[(index / 32) as usize] >> (2 * (index % 32))) & 3;
        retro_probe::format::wdl_outcome(code as u8).expect("codes of outcomes read from the file")
    }
}

/// Checks that in a WDL file of floors every position stored below its value has exits that reach it, or is a
/// terminal position, as a prober finds them, and that none is stored above it: `game` is the table's game,
/// `value(i)` the value from the distance file (for the indices a distance file leaves out, found by search:
/// [`check_files`] compares only the others, so a file without floors is compared here at those). Returns the number
/// of positions stored below their value (0 for a file without floors).
pub fn check_floors<G: Game>(
    table: &Table,
    game: &G,
    value: impl Fn(Index) -> Result<Option<Value>> + Sync,
) -> Result<u64> {
    let wdl = table.wdl_file();
    let floors = wdl.header().floors();
    if !floors && table.distance_file().header().omitted().is_none() {
        return Ok(0);
    }
    let block_values = u64::from(wdl.header().block_values);
    let below = (0..wdl.header().block_count)
        .into_par_iter()
        .map(|block| -> Result<u64> {
            let start = block * block_values;
            let mut below = 0;
            for (k, stored) in wdl.wdl_block(block)?.into_iter().enumerate() {
                let index = wdl.header().index_at(start + k as u64);
                let Some(v) = value(index)? else { continue };
                if stored == v.outcome() {
                    continue;
                }
                if stored > v.outcome() || !floors {
                    bail!(
                        "{}: index {index} stores a {stored}, but its value is {v}",
                        wdl.path().display()
                    );
                }
                let reached = game.best_exit(index);
                if reached != v.outcome() {
                    bail!(
                        "{}: index {index} stores a {stored} below its {v}, but its exits reach only a {reached}",
                        wdl.path().display()
                    );
                }
                below += 1;
            }
            Ok(below)
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))?;
    Ok(below)
}

/// Runs the engine's local certificate over a table: every position's value must be what its moves give, from the
/// table itself (and the exits the game reports). The table is read whole into memory when that takes at most
/// `memory` bytes. `describe` names an index in the error (a position's name).
/// Returns the number of positions certified.
pub fn certify_table<G: Game>(
    table: &Table,
    game: &G,
    convention: PlayConvention,
    memory: u64,
    describe: impl Fn(Index) -> String,
) -> Result<u64> {
    if game.size() != table.size() {
        bail!(
            "{}: the table has {} indices but its game has {}",
            table.distance_file().path().display(),
            table.size(),
            game.size()
        );
    }
    // The certificate looks up every move of every position, all over the table: read it whole when it fits the
    // memory, instead of decompressing a block per lookup.
    if DenseValues::bytes_for(table.size()) <= memory {
        let dense = DenseValues::read(table).map_err(anyhow::Error::new)?;
        return certify_values(table, game, convention, |i| Ok(dense.value(i)), describe);
    }
    certify_values(
        table,
        game,
        convention,
        |index| table.probe(index).map_err(anyhow::Error::new),
        describe,
    )
}

/// [`retro_engine::certify`] over `game` with the values `values` gives (a game may have indices beyond its table,
/// valued from elsewhere). The certificate takes infallible values: a read error (which the checksums make all but
/// impossible after check_files) is kept and reported instead of the certificate's verdict.
pub fn certify_values<G: Game>(
    table: &Table,
    game: &G,
    convention: PlayConvention,
    values: impl Fn(Index) -> Result<Option<Value>> + Sync,
    describe: impl Fn(Index) -> String,
) -> Result<u64> {
    let read_error = Mutex::new(None);
    let result = retro_engine::certify(game, convention, |index| match values(index) {
        Ok(v) => v,
        Err(e) => {
            read_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(e);
            None
        }
    });
    if let Some(e) = read_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    result.map_err(|bad| {
        anyhow::anyhow!(
            "{}: inconsistent: {} (index {}) is stored as {} but its moves give {}",
            table.distance_file().path().display(),
            describe(bad.index),
            bad.index,
            bad.stored,
            bad.expected
        )
    })
}

/// Wins and losses by plies, for one side to move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Histogram {
    pub wins: BTreeMap<u32, u64>,
    pub losses: BTreeMap<u32, u64>,
    pub draws: u64,
}

impl Histogram {
    fn add(&mut self, value: Value) {
        match (value.outcome(), value.plies()) {
            (Outcome::Win, Some(p)) => *self.wins.entry(p).or_default() += 1,
            (Outcome::Loss, Some(p)) => *self.losses.entry(p).or_default() += 1,
            _ => self.draws += 1,
        }
    }

    fn merge(&mut self, other: Histogram) {
        for (p, n) in other.wins {
            *self.wins.entry(p).or_default() += n;
        }
        for (p, n) in other.losses {
            *self.losses.entry(p).or_default() += n;
        }
        self.draws += other.draws;
    }
}

/// The histogram of plies per outcome and side to move, read from the whole distance file in parallel; the values
/// of a file that leaves one side to move out are taken from `left_out` (the table read whole, see
/// [`crate::directory::Directory::values`]) there.
pub fn histograms(
    table: &Table,
    sides: usize,
    side_of: impl Fn(Index) -> usize + Sync,
    left_out: Option<&DenseValues>,
) -> Result<Vec<Histogram>> {
    let file = table.distance_file();
    let block_values = u64::from(file.header().block_values);
    if file.header().omitted().is_some() && left_out.is_none() {
        bail!(
            "{}: the file stores one side to move: its histogram needs the values of the other",
            file.path().display()
        );
    }
    let parts = (0..file.header().block_count)
        .into_par_iter()
        .map(|block| -> Result<Vec<Histogram>> {
            let mut h = vec![Histogram::default(); sides];
            for (k, value) in file.stored_distance_block(block)?.into_iter().enumerate() {
                let index = block * block_values + k as u64;
                let value = match left_out {
                    Some(values) if !file.header().stores(index) => values.value(index),
                    _ => value,
                };
                if let Some(v) = value {
                    let side = side_of(index);
                    h.get_mut(side)
                        .with_context(|| {
                            format!("side {side} of index {index} is not one of {sides} sides")
                        })?
                        .add(v);
                }
            }
            Ok(h)
        })
        .collect::<Result<Vec<_>>>()?;
    let mut total = vec![Histogram::default(); sides];
    for part in parts {
        for (t, p) in total.iter_mut().zip(part) {
            t.merge(p);
        }
    }
    Ok(total)
}

fn file_fields(file: &TableFile, positions: u64) -> String {
    let h = file.header();
    format!(
        "{{\"path\":{},\"bytes\":{},\"encoding\":\"{}\",\"block_values\":{},\"blocks\":{},\"bits_per_position\":{:.4}}}",
        json::string(&file.path().display().to_string()),
        file.len(),
        h.encoding.as_str(),
        h.block_values,
        h.block_count,
        bits_per_position(file.len(), positions)
    )
}

fn bits_per_position(bytes: u64, positions: u64) -> f64 {
    bytes as f64 * 8.0 / positions.max(1) as f64
}

/// Everything `info --json` prints, as (key, JSON value) pairs in order, so that a game can add or replace fields
/// before [`print_object`]. `side_names` names the sides to move in the header's order; `side_of` gives an index's
/// side (for the histogram).
pub fn info_fields(
    table: &Table,
    side_names: &[&str],
    side_of: impl Fn(Index) -> usize + Sync,
    left_out: Option<&DenseValues>,
) -> Result<Vec<(String, String)>> {
    let meta = table.meta();
    if side_names.len() != meta.sides.len() {
        bail!(
            "{}: the table has {} sides to move, not {}",
            table.distance_file().path().display(),
            meta.sides.len(),
            side_names.len()
        );
    }
    let positions = meta.index_size - meta.holes;
    let params = meta
        .params
        .iter()
        .map(|(k, v)| format!("{}:{}", json::string(k), json::string(v)))
        .collect::<Vec<_>>()
        .join(",");
    let per_side = |f: &dyn Fn(usize) -> String| {
        side_names
            .iter()
            .enumerate()
            .map(|(s, name)| format!("{}:{}", json::string(name), f(s)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let counts = per_side(&|s| {
        let c = meta.sides[s];
        format!(
            "{{\"win\":{},\"draw\":{},\"loss\":{}}}",
            c.wins, c.draws, c.losses
        )
    });
    let longest = per_side(&|s| {
        let c = meta.sides[s];
        format!(
            "{{\"win\":{},\"loss\":{}}}",
            json::optional(c.longest_win),
            json::optional(c.longest_loss)
        )
    });
    let hist = histograms(table, side_names.len(), side_of, left_out)?;
    let pairs = |m: &BTreeMap<u32, u64>| {
        m.iter()
            .map(|(p, n)| format!("[{p},{n}]"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let histogram = per_side(&|s| {
        format!(
            "{{\"win\":[{}],\"loss\":[{}],\"draw\":{}}}",
            pairs(&hist[s].wins),
            pairs(&hist[s].losses),
            hist[s].draws
        )
    });
    let wdl = table.wdl_file();
    let distance = table.distance_file();
    let raw_distance = distance.header().encoding.bytes_for(meta.index_size);
    Ok(vec![
        ("game".into(), json::string(&meta.game)),
        ("name".into(), json::string(&meta.name)),
        (
            "format_version".into(),
            distance.header().version.to_string(),
        ),
        (
            "wdl_format_version".into(),
            wdl.header().version.to_string(),
        ),
        ("wdl_floors".into(), wdl.header().floors().to_string()),
        (
            "distance_omitted".into(),
            distance
                .header()
                .omitted()
                .map_or("null".into(), |r| format!("[{},{}]", r.start, r.end)),
        ),
        ("params".into(), format!("{{{params}}}")),
        ("index_size".into(), meta.index_size.to_string()),
        ("positions".into(), positions.to_string()),
        ("holes".into(), meta.holes.to_string()),
        ("counts".into(), format!("{{{counts}}}")),
        ("longest".into(), format!("{{{longest}}}")),
        (
            "payload_bytes".into(),
            distance.header().payload_len.to_string(),
        ),
        (
            "raw_bytes".into(),
            format!(
                "{{\"wdl\":{},\"distance\":{}}}",
                wdl.header().encoding.bytes_for(meta.index_size),
                raw_distance
            ),
        ),
        (
            "files".into(),
            format!(
                "{{\"wdl\":{},\"distance\":{}}}",
                file_fields(wdl, positions),
                file_fields(distance, positions)
            ),
        ),
        ("histogram".into(), format!("{{{histogram}}}")),
    ])
}

/// Prints `{"key":value,...}` on one line.
pub fn print_object(fields: &[(String, String)]) {
    let body = fields
        .iter()
        .map(|(k, v)| format!("{}:{v}", json::string(k)))
        .collect::<Vec<_>>()
        .join(",");
    println!("{{{body}}}");
}

/// `retro info` for any game: JSON (see [`info_fields`]) or the same facts as text.
pub fn print_info(
    table: &Table,
    json: bool,
    side_names: &[&str],
    side_of: impl Fn(Index) -> usize + Sync,
    left_out: Option<&DenseValues>,
) -> Result<()> {
    if json {
        print_object(&info_fields(table, side_names, side_of, left_out)?);
        return Ok(());
    }
    let meta = table.meta();
    let positions = meta.index_size - meta.holes;
    let distance = table.distance_file();
    println!("table      {} {}", meta.game, meta.name);
    let wdl = table.wdl_file().header();
    println!(
        "format     version {} (WDL file: version {}{})",
        distance.header().version,
        wdl.version,
        if !wdl.floors() {
            ""
        } else if wdl.version >= retro_probe::format::TERMINAL_FLOORS_VERSION {
            ", floors that exits and terminal positions complete"
        } else {
            ", floors that exits complete"
        }
    );
    if let Some(order) = wdl.order() {
        println!(
            "WDL order  the index's digits (radices {:?}) stored in the order {:?}",
            order.radices(),
            order.order()
        );
    }
    if let Some(omitted) = distance.header().omitted() {
        println!(
            "one side   the distance file leaves out indices {}..{}: their values are searched",
            omitted.start, omitted.end
        );
    }
    for (k, v) in &meta.params {
        println!("param      {k} = {v}");
    }
    println!(
        "indices    {} ({} positions, {} holes)",
        meta.index_size, positions, meta.holes
    );
    let hist = histograms(table, side_names.len(), side_of, left_out)?;
    for (s, name) in side_names.iter().enumerate() {
        let c = meta.sides[s];
        let longest = |d: Option<u32>| d.map_or("-".to_string(), |d| d.to_string());
        println!(
            "{name:<10} win {} draw {} loss {}; longest win {} plies, longest loss {} plies",
            c.wins,
            c.draws,
            c.losses,
            longest(c.longest_win),
            longest(c.longest_loss)
        );
        let line = |m: &BTreeMap<u32, u64>| {
            m.iter()
                .map(|(p, n)| format!("{p}:{n}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!("  wins by plies    {}", line(&hist[s].wins));
        println!("  losses by plies  {}", line(&hist[s].losses));
    }
    for file in [table.wdl_file(), distance] {
        let h = file.header();
        println!(
            "file       {}: {} bytes, {:.4} bits/position, {} ({} blocks of {} values; raw {} bytes)",
            file.path().display(),
            file.len(),
            bits_per_position(file.len(), positions),
            h.encoding.as_str(),
            h.block_count,
            h.block_values,
            h.encoding.bytes_for(meta.index_size)
        );
    }
    if distance.header().payload_len > 0 {
        println!("payload    {} bytes", distance.header().payload_len);
    }
    Ok(())
}

/// Prints the two files a generation wrote, with their sizes and bits per position.
pub fn print_written(written: &retro_table::Written, positions: u64) {
    for (path, bytes) in [
        (&written.wdl_path, written.wdl_bytes),
        (&written.distance_path, written.distance_bytes),
    ] {
        println!(
            "  {}: {bytes} bytes, {:.3} bits/position",
            path.display(),
            bytes as f64 * 8.0 / positions.max(1) as f64
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_table::{TableSpec, WdlOrder, WriteOptions, write_table};

    /// A table of digits (2, 8, 64), its WDL file in another order of them (format version 8), from `values`.
    fn write_ordered(dir: &Path, name: &str, values: impl Fn(Index) -> Option<Value> + Sync) {
        let spec = TableSpec {
            game: "graph",
            name,
            params: vec![("convention".into(), "normal".into())],
            sides: 1,
            side_of: |_: Index| 0,
            size: 1024,
            payload: b"",
            exits: None,
            index_periods: &[],
            index_digits: &[2, 8, 64],
            distance_omitted: None,
            options: WriteOptions {
                wdl_block_values: 256,
                distance_block_values: 256,
                wdl_order: WdlOrder::Given([2, 1, 0, 0, 0, 0, 0, 0]),
                ..WriteOptions::default()
            },
        };
        write_table(dir, &spec, values).unwrap();
    }

    /// The WDL file of version 8 is compared with the distance file index by index, through its order: a pair that
    /// agrees passes, and a WDL file whose values were written for other indices (the same counts) is caught.
    #[test]
    fn a_wdl_file_in_another_order_is_checked_against_the_distance_file() {
        let value = |i: Index| match i % 5 {
            0 => Value::win(1),
            1 | 2 => Value::DRAW,
            _ => Value::loss(2),
        };
        let dir = tempfile::tempdir().unwrap();
        write_ordered(dir.path(), "t", |i| Some(value(i)));
        let tables = open_tables(dir.path()).unwrap();
        let table = open_table(&tables, "graph", "t").unwrap();
        assert_eq!(table.wdl_file().header().version, 8);
        check_files(&table).unwrap();
        // The same values shifted by five indices: the same counts, other positions.
        let other = tempfile::tempdir().unwrap();
        write_ordered(other.path(), "t", |i| Some(value((i + 5) % 1024)));
        let wdl = |dir: &Path| dir.join("graph/t.rwdl");
        std::fs::copy(wdl(other.path()), wdl(dir.path())).unwrap();
        let tables = open_tables(dir.path()).unwrap();
        let table = open_table(&tables, "graph", "t").unwrap();
        let err = check_files(&table).unwrap_err().to_string();
        assert!(err.contains("t.rwdl: index"), "{err}");
    }
}
