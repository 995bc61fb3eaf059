//! The census of a variant with a start position: the positions reachable from the start, play stopping where the
//! game ends, counted as the tables fold them and unfolded (each position counts its images under the symmetries
//! its index folds), with their wins, draws and losses and the longest of each. `generate --census` runs it after
//! the tables and writes `DIR/GAME/VARIANT.census`; `info --json` shows it under `"reachable"`.
//!
//! The search is breadth first over bitmaps, three bits per index of every table the play can reach (seen, the
//! frontier, the next frontier): a frontier position is decoded from its index ([`Family::position`]), its moves
//! played ([`Family::moves`]) and each position reached located ([`Family::locate`]) and marked with one atomic
//! `or`. Positions no table stores (their value known from the rules) are kept by their notation. The values are
//! read afterwards, one table at a time, in index order.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use rayon::prelude::*;
use retro_family::contract::AnyValue;
use retro_family::{Family, Location, Outcome, Played, SubTables, Value};
use retro_probe::{Metadata, Table};

use crate::directory::Directory;
use crate::generate::build_order;
use crate::json;
use crate::value::value_of;

/// Counts of positions and their values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub positions: u64,
    pub unfolded: u64,
    pub win: u64,
    pub draw: u64,
    pub loss: u64,
    pub longest_win: u32,
    pub longest_loss: u32,
}

impl Tally {
    fn add(&mut self, value: Value) {
        self.positions += 1;
        match (value.outcome(), value.plies()) {
            (Outcome::Win, Some(p)) => {
                self.win += 1;
                self.longest_win = self.longest_win.max(p);
            }
            (Outcome::Loss, Some(p)) => {
                self.loss += 1;
                self.longest_loss = self.longest_loss.max(p);
            }
            _ => self.draw += 1,
        }
    }

    fn merge(mut self, other: Tally) -> Tally {
        self.positions += other.positions;
        self.unfolded += other.unfolded;
        self.win += other.win;
        self.draw += other.draw;
        self.loss += other.loss;
        self.longest_win = self.longest_win.max(other.longest_win);
        self.longest_loss = self.longest_loss.max(other.longest_loss);
        self
    }

    fn entries(&self, prefix: &str) -> Vec<(String, String)> {
        [
            ("positions", self.positions),
            ("unfolded", self.unfolded),
            ("win", self.win),
            ("draw", self.draw),
            ("loss", self.loss),
            ("longest_win", u64::from(self.longest_win)),
            ("longest_loss", u64::from(self.longest_loss)),
        ]
        .into_iter()
        .map(|(k, v)| (format!("{prefix}_{k}"), v.to_string()))
        .collect()
    }
}

/// A set of indices, shared between threads.
struct Bits(Vec<AtomicU64>);

impl Bits {
    fn new(size: u64) -> Bits {
        Bits((0..size.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }

    /// Adds `i`; whether it was not in the set.
    fn insert(&self, i: u64) -> bool {
        let bit = 1u64 << (i % 64);
        self.0[(i / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    fn take(&self, word: usize) -> u64 {
        self.0[word].swap(0, Ordering::Relaxed)
    }
}

/// Where the census of a variant is kept.
pub fn census_path<F: Family>(family: &F, variant: &F::Variant, dir: &Path) -> PathBuf {
    dir.join(family.about().name)
        .join(format!("{variant}.census"))
}

/// Counts the positions reachable from the start of `variant` in the tables of `dir`, and writes the census.
pub fn run<F: Family>(family: &F, variant: &F::Variant, dir: &Path, quiet: bool) -> Result<Tally> {
    let clock = Instant::now();
    let game_word = family.about().name;
    let Some(start) = family.start(variant) else {
        bail!("{game_word} has no start position to count from");
    };
    let disk = Directory::open(family, dir)?;
    if let Some(tally) = own_census(family, variant, dir, &disk)? {
        return Ok(tally);
    }
    let tables = build_order(family, std::slice::from_ref(variant));
    let number: HashMap<F::Table, usize> = tables
        .iter()
        .enumerate()
        .map(|(k, t)| (t.clone(), k))
        .collect();
    // The tables' games, to decode indices; their exits read fake values (the census needs no value to move).
    let subs: Vec<SubTables<'static, F::Table>> = tables
        .iter()
        .map(|t| {
            let mut sub = SubTables::new();
            for d in family.dependencies(t) {
                sub.insert(d, &AnyValue);
            }
            sub
        })
        .collect();
    let games = tables
        .iter()
        .zip(&subs)
        .map(|(t, sub)| family.game(t, sub).map_err(anyhow::Error::msg))
        .collect::<Result<Vec<_>>>()?;
    let sizes: Vec<u64> = games.iter().map(|g| family.stored(g)).collect();
    let seen: Vec<Bits> = sizes.iter().map(|&s| Bits::new(s)).collect();
    let mut frontier: Vec<Bits> = sizes.iter().map(|&s| Bits::new(s)).collect();
    let mut next: Vec<Bits> = sizes.iter().map(|&s| Bits::new(s)).collect();
    // Positions no table stores, by notation, with their values.
    let known: Mutex<HashMap<String, Value>> = Mutex::new(HashMap::new());
    let mut known_frontier: Vec<F::Position> = Vec::new();
    let unfolded = AtomicU64::new(0);
    let error: Mutex<Option<String>> = Mutex::new(None);

    let reach = |pos: &F::Position, next: &[Bits], later: &Mutex<Vec<F::Position>>| match family
        .locate(pos)
    {
        Ok(Location::Stored { table, index }) => match number.get(&table) {
            Some(&k) if index < sizes[k] => {
                if seen[k].insert(index) {
                    next[k].insert(index);
                }
            }
            _ => {
                error.lock().unwrap().get_or_insert(format!(
                    "{} locates outside the tables of the variant",
                    family.show_position(pos)
                ));
            }
        },
        Ok(Location::Known(value)) => {
            let text = family.show_position(pos);
            if let Entry::Vacant(slot) = known.lock().unwrap().entry(text) {
                slot.insert(value);
                later.lock().unwrap().push(pos.clone());
            }
        }
        Ok(Location::Search) => match value_of(family, &disk, pos) {
            Ok(value) => {
                let text = family.show_position(pos);
                if let Entry::Vacant(slot) = known.lock().unwrap().entry(text) {
                    slot.insert(value);
                    later.lock().unwrap().push(pos.clone());
                }
            }
            Err(e) => {
                error.lock().unwrap().get_or_insert(e.to_string());
            }
        },
        Err(e) => {
            error.lock().unwrap().get_or_insert(e);
        }
    };
    let expand = |pos: &F::Position, next: &[Bits], later: &Mutex<Vec<F::Position>>| {
        unfolded.fetch_add(family.images(pos), Ordering::Relaxed);
        for (_, played) in family.moves(pos) {
            if let Played::Position(after) = played {
                reach(&after, next, later);
            }
        }
    };

    let first = Mutex::new(Vec::new());
    reach(&start, &frontier, &first);
    known_frontier.extend(first.into_inner().unwrap());
    let mut depth = 0u32;
    loop {
        let any = known_frontier.len() as u64
            + frontier
                .iter()
                .map(|b| {
                    b.0.iter()
                        .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
                        .sum::<u64>()
                })
                .sum::<u64>();
        if any == 0 {
            break;
        }
        if !quiet {
            eprintln!(
                "[{:7.1} s] census of {game_word} {variant}: ply {depth}: {any} positions",
                clock.elapsed().as_secs_f64()
            );
        }
        let later = Mutex::new(Vec::new());
        for (k, bits) in frontier.iter().enumerate() {
            let game = &games[k];
            (0..bits.0.len()).into_par_iter().for_each(|w| {
                let mut word = bits.take(w);
                while word != 0 {
                    let index = w as u64 * 64 + u64::from(word.trailing_zeros());
                    word &= word - 1;
                    match family.position(game, index) {
                        Some(pos) => expand(&pos, &next, &later),
                        None => {
                            error.lock().unwrap().get_or_insert(format!(
                                "a move reaches the hole {index} of table {}",
                                family.table_name(&tables[k])
                            ));
                        }
                    }
                }
            });
        }
        known_frontier
            .par_iter()
            .for_each(|pos| expand(pos, &next, &later));
        if let Some(e) = error.lock().unwrap().take() {
            bail!("census of {game_word} {variant}: {e}");
        }
        known_frontier = later.into_inner().unwrap();
        std::mem::swap(&mut frontier, &mut next);
        depth += 1;
    }
    // The values, one table at a time.
    let mut tally = Tally::default();
    let mut ties = Vec::new();
    for (k, table) in tables.iter().enumerate() {
        let opened = disk.table(table)?;
        ties.push(tie(family.table_name(table), opened.meta()));
        let dense = disk.values(table)?;
        let part = seen[k]
            .0
            .par_iter()
            .enumerate()
            .map(|(w, word)| {
                let mut t = Tally::default();
                let mut word = word.load(Ordering::Relaxed);
                while word != 0 {
                    let index = w as u64 * 64 + u64::from(word.trailing_zeros());
                    word &= word - 1;
                    match dense.value(index) {
                        Some(v) => t.add(v),
                        None => t.positions = u64::MAX,
                    }
                }
                t
            })
            .reduce(Tally::default, |a, b| {
                let holes = a.positions == u64::MAX || b.positions == u64::MAX;
                let mut m = a.merge(b);
                if holes {
                    m.positions = u64::MAX;
                }
                m
            });
        if part.positions == u64::MAX {
            bail!(
                "census of {game_word} {variant}: a position reached is a hole of table {}",
                family.table_name(table)
            );
        }
        tally = tally.merge(part);
    }
    for value in known.into_inner().unwrap().values() {
        tally.add(*value);
    }
    tally.unfolded = unfolded.into_inner();
    let mut entries = tally.entries("reachable");
    entries.push((
        "reachable_depth".into(),
        depth.saturating_sub(1).to_string(),
    ));
    entries.extend(ties);
    write_census(&census_path(family, variant, dir), &entries)?;
    if !quiet {
        eprintln!(
            "[{:7.1} s] census of {game_word} {variant}: {} positions reachable ({} unfolded)",
            clock.elapsed().as_secs_f64(),
            tally.positions,
            tally.unfolded
        );
    }
    println!(
        "{game_word} {variant}: {} positions reachable from the start ({} unfolded): {} win, {} draw, {} loss; \
         longest win {}, loss {}; {} plies deep",
        tally.positions,
        tally.unfolded,
        tally.win,
        tally.draw,
        tally.loss,
        tally.longest_win,
        tally.longest_loss,
        depth.saturating_sub(1)
    );
    Ok(tally)
}

/// The census of a family that counts its own ([`Family::census`]), written; `None` for the others.
fn own_census<F: Family>(
    family: &F,
    variant: &F::Variant,
    dir: &Path,
    disk: &Directory<F>,
) -> Result<Option<Tally>> {
    let game_word = family.about().name;
    let tables = family.tables(variant);
    let mut dense = Vec::new();
    let mut ties = Vec::new();
    for table in &tables {
        let opened = disk.table(table)?;
        ties.push(tie(family.table_name(table), opened.meta()));
        let values = disk.values(table)?;
        dense.push(values);
    }
    let values = |t: &F::Table, i: retro_family::Index| {
        let k = tables.iter().position(|x| x == t)?;
        dense[k].value(i)
    };
    let Some(entries) = family.census(variant, &values) else {
        return Ok(None);
    };
    let mut entries = entries.map_err(anyhow::Error::msg)?;
    let count = |k: &str| -> u64 {
        entries
            .iter()
            .find(|(key, _)| key == &format!("reachable_{k}"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0)
    };
    let tally = Tally {
        positions: count("positions"),
        unfolded: count("unfolded"),
        win: count("win"),
        draw: count("draw"),
        loss: count("loss"),
        longest_win: count("longest_win") as u32,
        longest_loss: count("longest_loss") as u32,
    };
    for (key, value) in &entries {
        println!("{game_word} {variant}: {key} = {value}");
    }
    entries.extend(ties);
    write_census(&census_path(family, variant, dir), &entries)?;
    Ok(Some(tally))
}

/// What the census says of a table it was made with, so that a census is never read beside another table.
fn tie(name: String, meta: &Metadata) -> (String, String) {
    let total = meta.total();
    (
        format!("table.{name}"),
        format!(
            "{} {} {} {}",
            meta.index_size, total.wins, total.draws, total.losses
        ),
    )
}

/// Writes the census as `key=value` lines: into a temporary file first, renamed into place once complete.
fn write_census(path: &Path, entries: &[(String, String)]) -> Result<()> {
    let text: String = entries.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
    let temp = path.with_extension(format!("census.{}.tmp", std::process::id()));
    if let Err(e) = std::fs::write(&temp, text) {
        let _ = std::fs::remove_file(&temp);
        return Err(e).with_context(|| format!("cannot write {}", temp.display()));
    }
    std::fs::rename(&temp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// The census of `variant` as the JSON of `info`, by group (`reachable` first: `"positions"`, `"unfolded"`,
/// `"win"`, ...), if there is one for these tables; an error if the census there was made for other tables.
pub fn read_json<F: Family>(
    family: &F,
    variant: &F::Variant,
    dir: &Path,
    tables: &[(String, std::sync::Arc<Table>)],
) -> Result<Option<Vec<(String, String)>>> {
    let path = census_path(family, variant, dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut entries: Vec<(String, String)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let (k, v) = line
            .split_once('=')
            .ok_or_else(|| anyhow!("{}:{}: not a key=value line", path.display(), n + 1))?;
        entries.push((k.to_string(), v.to_string()));
    }
    let get = |k: &str| entries.iter().find(|(key, _)| key == k).map(|(_, v)| v);
    for (name, table) in tables {
        let (key, value) = tie(name.clone(), table.meta());
        if get(&key) != Some(&value) {
            bail!(
                "{}: this census was made for other tables ({key} is {}, the table's is {value}); run `retro \
                 generate ... --census` again",
                path.display(),
                get(&key).map_or("missing", String::as_str)
            );
        }
    }
    // The groups, in the order of their `_positions` key (`reachable` is written first).
    let groups: Vec<&str> = entries
        .iter()
        .filter_map(|(k, _)| k.strip_suffix("_positions"))
        .filter(|g| !g.contains('.'))
        .collect();
    let mut out = Vec::new();
    for group in groups {
        let mut fields = Vec::new();
        for (key, value) in &entries {
            if let Some(field) = key.strip_prefix(group).and_then(|k| k.strip_prefix('_')) {
                value
                    .parse::<u64>()
                    .map_err(|_| anyhow!("{}: {key}={value} is not a count", path.display()))?;
                fields.push(format!("{}:{value}", json::string(field)));
            }
        }
        out.push((group.to_string(), format!("{{{}}}", fields.join(","))));
    }
    if !out.iter().any(|(g, _)| g == "reachable") {
        bail!("{}: no reachable_positions", path.display());
    }
    Ok(Some(out))
}
