//! Dobutsu shogi on the command line: `retro generate dobutsu`, and the Dobutsu parts of `probe`, `info` and
//! `verify` (called from `tables`).
//!
//! The table is `DIR/dobutsu/dobutsu.{rwdl,rdst}`, numbered by [`DobutsuGame`]'s index: positions seen from the
//! player to move, mirror-folded. Positions the table leaves out (the lions side by side, or a lion on its far
//! rank after its owner's move) are valued by the game crate without the table. After writing the table,
//! `generate` counts the legal positions and those reachable from the start (the census) and writes the counts to
//! `DIR/dobutsu/dobutsu.stats`, where `info` reads them.
//!
//! Moves are written in absolute squares: `b1b2` for a step (promotion is automatic), `C*b2` for a drop.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use retro_dobutsu::analysis::{
    Counts, Reachable, check_positions, outside_table_counts, position_value, table_counts,
};
use retro_dobutsu::{Board, DobutsuGame, Move, Played, Position, Side};
use retro_engine::{Game, Index, PlayConvention, SolveOptions, Value};
use retro_probe::{Metadata, ProbeError, Table, TableFile, Tables};
use retro_table::{TableSpec, WriteOptions, write_table};

use crate::dense::DenseValues;
use crate::json;
use crate::run::{SolveProgress, with_threads};
use crate::tables::{self, open_table};

/// The game word and the table's name.
const GAME: &str = "dobutsu";
const NAME: &str = "dobutsu";

/// How many plies of a drawn line `probe` shows (a draw has no end).
const DRAWN_LINE_PLIES: usize = 12;

#[derive(Args, Debug)]
pub struct GenerateDobutsuArgs {
    /// The directory of tables to write into (the table goes to DIR/dobutsu/dobutsu.rwdl and .rdst).
    #[arg(long)]
    pub out: PathBuf,
    /// Worker threads (default: all cores). The files do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Memory for the engine's arrays, such as 800M or 2G (powers of 1024). With it, the engine works through files in DIR/dobutsu/work
    /// (slice by slice if the budget calls for it, with a checkpoint per generation); without it, in memory.
    #[arg(long)]
    pub memory: Option<String>,
    /// No progress display.
    #[arg(long)]
    pub quiet: bool,
}

/// `name_positions`, `name_win`, ... as table parameters.
fn count_params(prefix: &str, c: &Counts) -> Vec<(String, String)> {
    [
        ("positions", c.positions),
        ("win", c.wins),
        ("draw", c.draws),
        ("loss", c.losses),
        ("longest_win", u64::from(c.longest_win)),
        ("longest_loss", u64::from(c.longest_loss)),
        ("unfolded", c.unfolded()),
    ]
    .into_iter()
    .map(|(k, v)| (format!("{prefix}_{k}"), v.to_string()))
    .collect()
}

pub fn generate(args: &GenerateDobutsuArgs) -> Result<()> {
    let start = Instant::now();
    let budget = args
        .memory
        .as_deref()
        .map(|text| crate::run::parse_size(text).map_err(|e| anyhow::anyhow!("--memory: {e}")))
        .transpose()?;
    let game = DobutsuGame::new();
    let indexer = game.indexer();
    let work_dir = args.out.join(GAME).join("work");
    // With a budget, the engine works through files of a work directory, in as many slices as the budget needs.
    let options = SolveOptions {
        convention: PlayConvention::Normal,
        work_dir: budget.map(|_| work_dir.clone()),
        memory: budget,
        ..Default::default()
    };
    if budget.is_some() {
        std::fs::create_dir_all(&work_dir)
            .with_context(|| format!("cannot create {}", work_dir.display()))?;
    }
    let quiet = args.quiet;
    let stats_path = stats_path(&args.out);
    // A census left from an earlier table must not outlive it.
    remove_stale(&stats_path)?;
    let report = with_threads(args.threads, || -> Result<_> {
        let say = |what: &str| {
            if !quiet {
                eprintln!("[{:7.1} s] {what}", start.elapsed().as_secs_f64());
            }
        };
        let mut laps = Laps::new();
        say("solving");
        let solve_start = Instant::now();
        let progress = SolveProgress::new("solving dobutsu", quiet);
        let solution = retro_engine::solve_with_progress(&game, &options, &|p| progress.report(p))?;
        progress.finish();
        let solve_time = solve_start.elapsed();
        laps.lap("solve");
        say("writing");
        let value = |i: Index| solution.value(i);
        let startpos = Position::startpos();
        let start_value =
            position_value(indexer, startpos.board(), value).context("the start has a value")?;
        let params = vec![
            ("convention".to_string(), "normal".to_string()),
            (
                "rules".into(),
                "lion capture or an unattacked lion on the far rank after its owner's move wins"
                    .into(),
            ),
            (
                "index".into(),
                format!(
                    "mover's view, mirror-folded: {} lion classes x {}",
                    indexer.classes(),
                    indexer.rest_size()
                ),
            ),
            ("startpos".into(), startpos.to_string()),
            ("startpos_value".into(), start_value.to_string()),
        ];
        let spec = TableSpec {
            game: GAME,
            name: NAME,
            params,
            sides: 1,
            side_of: |_: Index| 0,
            size: game.size(),
            payload: &[],
            options: WriteOptions::default(),
        };
        let written = write_table(&args.out, &spec, value)?;
        laps.lap("writing");
        let table_time = start.elapsed();
        say("table written; counting the legal positions");
        let legal = table_counts(indexer, value).merge(outside_table_counts());
        laps.lap("legal counts");
        let stats = solution.stats().clone();
        // The census's search needs about 430 MB: the solution goes first, and the census reads the values of the
        // positions it reached back from the table just written, in index order.
        drop(solution);
        say("searching the positions reachable from the start");
        let reachable = Reachable::search_with_progress(indexer, &|depth, new| {
            if !quiet && depth % 10 == 0 {
                eprintln!(
                    "[{:7.1} s]   ply {depth}: {new} new positions",
                    start.elapsed().as_secs_f64()
                );
            }
        });
        let table_file = TableFile::open(&written.distance_path)?;
        let reader = BlockReader::new(&table_file);
        let reached = reachable.counts(indexer, |i| reader.value(i));
        reader.finish()?;
        laps.lap("reachable census");
        let mut census = table_params(&written.meta);
        census.extend(count_params("legal", &legal));
        census.extend(count_params("reachable", &reached));
        census.push((
            "reachable_with_side".into(),
            reachable.with_side.to_string(),
        ));
        census.push(("reachable_depth".into(), reachable.depth.to_string()));
        write_stats(&stats_path, &census)?;
        Ok((
            laps,
            written,
            stats,
            solve_time,
            table_time,
            legal,
            reached,
            start_value,
            reachable.with_side,
        ))
    })??;
    if budget.is_some() {
        // The engine removed its files; the directory itself goes too.
        let _ = std::fs::remove_dir(&work_dir);
    }
    let (laps, written, stats, solve_time, table_time, legal, reached, start_value, with_side) =
        report;
    let positions = written.meta.index_size - written.meta.holes;
    println!(
        "dobutsu: {} indices, {positions} positions in the table ({} win, {} draw, {} loss), longest {} plies",
        written.meta.index_size, stats.wins, stats.draws, stats.losses, stats.max_plies
    );
    println!(
        "  solved in {:.1} s ({:.0} positions/s, {} generations, {}-byte cells); table written after {:.1} s; total {:.1} s",
        solve_time.as_secs_f64(),
        positions as f64 / solve_time.as_secs_f64(),
        stats.generations,
        stats.cell_bytes,
        table_time.as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    println!("  phases: {}", laps.summary());
    println!("  start {}: {start_value}", Position::startpos());
    for (what, c) in [("legal", &legal), ("reachable", &reached)] {
        println!(
            "  {what}: {} positions ({} without the mirror folding): {} win, {} draw, {} loss; longest win {}, loss {}",
            c.positions,
            c.unfolded(),
            c.wins,
            c.draws,
            c.losses,
            c.longest_win,
            c.longest_loss
        );
    }
    println!("  reachable (position, side to move) pairs: {with_side}");
    tables::print_written(&written, positions);
    println!("  {}: the counts for `info`", stats_path.display());
    Ok(())
}

/// Where `generate` keeps the counts of the census: `DIR/dobutsu/dobutsu.stats`, beside the table. They are not in
/// the table's header because the census (a forward search over every position reachable from the start, several
/// times as long as the solve) runs after the table is written: the table is usable while it runs.
fn stats_path(dir: &Path) -> PathBuf {
    dir.join(GAME).join(format!("{NAME}.stats"))
}

/// What the census says of the table it was made for (its stored positions and their outcomes), so that a census
/// is never read beside another table.
fn table_params(meta: &Metadata) -> Vec<(String, String)> {
    let total = meta.total();
    [
        ("index_size", meta.index_size),
        ("win", total.wins),
        ("draw", total.draws),
        ("loss", total.losses),
    ]
    .into_iter()
    .map(|(k, v)| (format!("table_{k}"), v.to_string()))
    .collect()
}

/// Removes the census of an earlier table, before a new one is built.
fn remove_stale(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot remove {}", path.display())),
    }
}

/// Writes the census as `key=value` lines: into a temporary file first, renamed into place once complete, so that
/// a census cut short leaves no file under the final name.
fn write_stats(path: &Path, entries: &[(String, String)]) -> Result<()> {
    let text: String = entries.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
    let temp = path.with_extension(format!("stats.{}.tmp", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let mut file = File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(e).with_context(|| format!("cannot write {}", temp.display()));
    }
    std::fs::rename(&temp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// The census `generate` wrote beside a table: its file and its entries by key.
struct Census {
    path: PathBuf,
    entries: BTreeMap<String, String>,
}

impl Census {
    /// Reads the census beside `table`.
    fn read(table: &Table) -> Result<Census> {
        let dir = table
            .distance_file()
            .path()
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."));
        let path = stats_path(dir);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            anyhow::anyhow!(
                "{}: cannot read the census of the table ({e}); `retro generate dobutsu` writes it after the table",
                path.display()
            )
        })?;
        let census = Census::parse(path, &text)?;
        for (key, value) in table_params(table.meta()) {
            if census.entries.get(&key) != Some(&value) {
                bail!(
                    "{}: this census was made for another table ({key} is {}, the table's is {value}); run `retro generate dobutsu` again",
                    census.path.display(),
                    census.entries.get(&key).map_or("missing", String::as_str)
                );
            }
        }
        Ok(census)
    }

    fn parse(path: PathBuf, text: &str) -> Result<Census> {
        let mut entries = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let Some((key, value)) = line.split_once('=') else {
                bail!("{}:{}: not a key=value line", path.display(), n + 1);
            };
            entries.insert(key.to_string(), value.to_string());
        }
        Ok(Census { path, entries })
    }

    /// The count under `key`.
    fn count(&self, key: &str) -> Result<u64> {
        let value = self
            .entries
            .get(key)
            .with_context(|| format!("{}: no {key}", self.path.display()))?;
        value
            .parse()
            .map_err(|_| anyhow::anyhow!("{}: {key}={value} is not a count", self.path.display()))
    }

    /// The counts under `prefix` (`legal`, `reachable`), as JSON.
    fn counts_json(&self, prefix: &str) -> Result<String> {
        let get = |k: &str| self.count(&format!("{prefix}_{k}"));
        Ok(format!(
            "{{\"positions\":{},\"unfolded\":{},\"win\":{},\"draw\":{},\"loss\":{},\"longest_win\":{},\"longest_loss\":{}}}",
            get("positions")?,
            get("unfolded")?,
            get("win")?,
            get("draw")?,
            get("loss")?,
            get("longest_win")?,
            get("longest_loss")?
        ))
    }
}

/// A written table's values, read one decompressed distance block per thread at a time: for passes that walk the
/// index space in order (a block is decompressed about once per pass). A block that cannot be read is recorded,
/// and [`BlockReader::finish`] reports it; the values given meanwhile are draws, and whatever was computed from them
/// must be thrown away.
struct BlockReader<'a> {
    file: &'a TableFile,
    /// Tells this reader's blocks from another's in the threads' caches.
    id: u64,
    error: OnceLock<ProbeError>,
}

impl<'a> BlockReader<'a> {
    fn new(file: &'a TableFile) -> BlockReader<'a> {
        static READERS: AtomicU64 = AtomicU64::new(0);
        BlockReader {
            file,
            id: READERS.fetch_add(1, Ordering::Relaxed),
            error: OnceLock::new(),
        }
    }

    fn value(&self, index: Index) -> Option<Value> {
        thread_local! {
            /// (reader, block, values) of the block this thread read last.
            static CURRENT: RefCell<(u64, u64, Vec<Option<Value>>)> =
                const { RefCell::new((u64::MAX, u64::MAX, Vec::new())) };
        }
        let block_values = u64::from(self.file.header().block_values);
        let block = index / block_values;
        CURRENT.with_borrow_mut(|(reader, cached, values)| {
            if (*reader, *cached) != (self.id, block) {
                match self.file.distance_block(block) {
                    Ok(read) => *values = read,
                    Err(e) => {
                        let _ = self.error.set(e);
                        return Some(Value::DRAW);
                    }
                }
                (*reader, *cached) = (self.id, block);
            }
            values
                .get((index % block_values) as usize)
                .copied()
                .flatten()
        })
    }

    /// The first block that could not be read, as an error.
    fn finish(self) -> Result<()> {
        match self.error.into_inner() {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}

/// The wall time of each phase of `generate`, for its report.
struct Laps {
    last: Instant,
    laps: Vec<(&'static str, f64)>,
}

impl Laps {
    fn new() -> Laps {
        Laps {
            last: Instant::now(),
            laps: Vec::new(),
        }
    }

    /// Ends the phase called `name`, which began at the previous lap.
    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.laps
            .push((name, now.duration_since(self.last).as_secs_f64()));
        self.last = now;
    }

    fn summary(&self) -> String {
        self.laps
            .iter()
            .map(|(name, secs)| format!("{name} {secs:.1} s"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The value of any position for its player to move, read from the table when it is in it.
fn value_of(table: &Table, game: &DobutsuGame, board: &Board) -> Result<Value> {
    let error = std::cell::RefCell::new(None);
    let value = position_value(game.indexer(), board, |i| match table.probe(i) {
        Ok(v) => v,
        Err(e) => {
            error.replace(Some(e));
            None
        }
    });
    if let Some(e) = error.into_inner() {
        return Err(e.into());
    }
    value.context("a position of the table reads as a hole: the table does not match this game")
}

/// A move and its value for the player who plays it.
struct Valued {
    mv: Move,
    value: Value,
}

/// Every legal move of `position` with its value, best first (ties in the order of generation).
fn valued_moves(table: &Table, game: &DobutsuGame, position: &Position) -> Result<Vec<Valued>> {
    let mut moves = Vec::new();
    for mv in position.legal_moves() {
        let value = match position.play(mv) {
            Played::Won => Value::win(1),
            Played::Continues(next) => value_of(table, game, next.board())?.back(),
        };
        moves.push(Valued { mv, value });
    }
    moves.sort_by(|a, b| b.value.preference(a.value));
    Ok(moves)
}

/// The best line from `position`: the first best move each time, to the end of the game (a few plies for a draw).
fn best_line(table: &Table, game: &DobutsuGame, position: &Position) -> Result<Vec<Move>> {
    let mut line = Vec::new();
    let mut here = *position;
    loop {
        if here.board().try_lost() {
            break;
        }
        let moves = valued_moves(table, game, &here)?;
        let Some(best) = moves.first() else { break };
        if best.value.plies().is_none() && line.len() >= DRAWN_LINE_PLIES {
            break;
        }
        line.push(best.mv);
        match here.play(best.mv) {
            Played::Won => break,
            Played::Continues(next) => here = next,
        }
        if line.len() > 1000 {
            bail!("the best line does not end: the table is inconsistent");
        }
    }
    Ok(line)
}

/// `retro probe --tables DIR dobutsu POSITION`.
pub fn probe(tables: &Tables, what: &[String], as_json: bool) -> Result<()> {
    let text = what.join(" ");
    if what.is_empty() {
        bail!("probing Dobutsu takes a position: `startpos` or like `gle/1c1/1C1/ELG b -`");
    }
    let position: Position = text
        .parse()
        .map_err(|e| anyhow::anyhow!("position {text:?}: {e}"))?;
    let table = open_table(tables, GAME, NAME)?;
    let game = DobutsuGame::new();
    let over = position.board().try_lost();
    let value = value_of(&table, &game, position.board())?;
    let moves = if over {
        Vec::new()
    } else {
        valued_moves(&table, &game, &position)?
    };
    let line = best_line(&table, &game, &position)?;
    if as_json {
        let moves_json = moves
            .iter()
            .map(|m| {
                format!(
                    "{{\"move\":{},{}}}",
                    json::string(&m.mv.to_string()),
                    json::value_fields(m.value)
                )
            })
            .collect::<Vec<_>>()
            .join(",");
        let line_json = line
            .iter()
            .map(|m| json::string(&m.to_string()))
            .collect::<Vec<_>>()
            .join(",");
        println!(
            "{{\"position\":{},{},\"game_over\":{over},\"moves\":[{moves_json}],\"line\":[{line_json}]}}",
            json::string(&position.to_string()),
            json::value_fields(value)
        );
        return Ok(());
    }
    print!("{}", position.diagram());
    println!("{position}");
    let mover = if position.turn() == Side::Sente {
        "Sente"
    } else {
        "Gote"
    };
    if over {
        println!(
            "the game is over: the opponent's lion has reached the far rank and cannot be captured"
        );
    }
    println!("{mover} to move: {value}");
    for m in &moves {
        println!("  {:<6} {}", m.mv.to_string(), m.value);
    }
    let line_text = line
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    println!("best line: {line_text}");
    Ok(())
}

/// `retro info --tables DIR dobutsu dobutsu`: the table's facts, plus the counts over the legal positions (in the
/// table or not) and over the positions reachable from the start.
pub fn info(table: &Table, as_json: bool) -> Result<()> {
    if !as_json {
        return tables::print_info(table, false, &["mover"], |_| 0);
    }
    let mut fields = tables::info_fields(table, &["mover"], |_| 0)?;
    let census = Census::read(table)?;
    fields.push(("legal".into(), census.counts_json("legal")?));
    fields.push(("reachable".into(), census.counts_json("reachable")?));
    let param = |k: &str| table.meta().param(k).unwrap_or("").to_string();
    fields.push((
        "start".into(),
        format!(
            "{{\"position\":{},\"value\":{}}}",
            json::string(&param("startpos")),
            json::string(&param("startpos_value"))
        ),
    ));
    tables::print_object(&fields);
    Ok(())
}

/// The Dobutsu part of `retro verify`. The whole distance file is first read into memory, two bytes a position
/// (about 670 MB), because the certificate looks up the successors of every position in random order, which a block
/// cache smaller than the table would turn into endless decompression. Then the engine's certificate runs over
/// every index, and a million random legal positions are played by the rules on the board
/// ([`check_positions`]), which also checks the positions the table does not store.
pub fn verify(table: &Table) -> Result<u64> {
    let game = DobutsuGame::new();
    if table.size() != game.size() {
        bail!(
            "{}: the table has {} indices but Dobutsu has {}",
            table.distance_file().path().display(),
            table.size(),
            game.size()
        );
    }
    let dense = DenseValues::read(table)?;
    let value = |i: Index| dense.value(i);
    let certified = retro_engine::certify(&game, PlayConvention::Normal, value).map_err(|bad| {
        let position = match game.indexer().decode(bad.index) {
            Some(board) => Position::new(Side::Sente, board).to_string(),
            None => "a hole".to_string(),
        };
        anyhow::anyhow!(
            "{}: inconsistent: {position} (index {}, seen from the player to move) is stored as {} but its moves give {}",
            table.distance_file().path().display(),
            bad.index,
            bad.stored,
            bad.expected
        )
    })?;
    check_positions(game.indexer(), value, 1_000_000, 0x5eed).map_err(|e| {
        anyhow::anyhow!(
            "{}: inconsistent: {e}",
            table.distance_file().path().display()
        )
    })?;
    Ok(certified)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn the_census_reads_back_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dobutsu.stats");
        let legal = Counts {
            positions: 10,
            wins: 6,
            draws: 1,
            losses: 3,
            longest_win: 9,
            longest_loss: 8,
            symmetric: 2,
        };
        let mut written = count_params("legal", &legal);
        written.extend(count_params("reachable", &legal.times(2)));
        write_stats(&path, &written).unwrap();
        // Nothing is left beside it.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        let census = Census::parse(path.clone(), &std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            census.counts_json("legal").unwrap(),
            "{\"positions\":10,\"unfolded\":18,\"win\":6,\"draw\":1,\"loss\":3,\"longest_win\":9,\"longest_loss\":8}"
        );
        assert_eq!(census.count("reachable_unfolded").unwrap(), 36);
        remove_stale(&path).unwrap();
        assert!(!path.exists());
        remove_stale(&path).unwrap();
    }

    /// Writes a table of `size` values under Dobutsu's name into `dir`, with distance blocks of `block_values`.
    fn small_table(
        dir: &Path,
        size: u64,
        block_values: u32,
        value: &(dyn Fn(Index) -> Option<Value> + Sync),
    ) -> retro_table::Written {
        let spec = TableSpec {
            game: GAME,
            name: NAME,
            params: Vec::new(),
            sides: 1,
            side_of: |_: Index| 0,
            size,
            payload: &[],
            options: WriteOptions {
                distance_block_values: block_values,
                ..WriteOptions::default()
            },
        };
        write_table(dir, &spec, value).unwrap()
    }

    #[test]
    fn a_census_is_read_only_beside_its_own_table() {
        let write = |dir: &Path, draws_from: u64| {
            small_table(dir, 100, 1024, &|i| {
                Some(if i >= draws_from {
                    Value::DRAW
                } else {
                    Value::win(1)
                })
            })
        };
        let dir = tempfile::tempdir().unwrap();
        let written = write(dir.path(), 50);
        let mut census = table_params(&written.meta);
        census.extend(count_params("legal", &Counts::default()));
        census.extend(count_params("reachable", &Counts::default()));
        write_stats(&stats_path(dir.path()), &census).unwrap();
        let tables = Tables::open(dir.path(), 1 << 20).unwrap();
        let table = tables.table(GAME, NAME).unwrap();
        assert_eq!(
            Census::read(&table).unwrap().count("table_draw").unwrap(),
            50
        );
        // Another table under the same name, the census left as it was.
        drop((table, tables));
        write(dir.path(), 60);
        let tables = Tables::open(dir.path(), 1 << 20).unwrap();
        let table = tables.table(GAME, NAME).unwrap();
        let message = Census::read(&table).err().unwrap().to_string();
        assert!(
            message.contains("made for another table (table_win is 50, the table's is 60)"),
            "{message}"
        );
        std::fs::remove_file(stats_path(dir.path())).unwrap();
        let message = Census::read(&table).err().unwrap().to_string();
        assert!(message.contains("cannot read the census"), "{message}");
    }

    #[test]
    fn a_bad_census_is_a_clear_error() {
        let path = PathBuf::from("/tables/dobutsu/dobutsu.stats");
        let broken = Census::parse(path.clone(), "legal_positions=3\nno equals sign\n");
        let message = broken.err().unwrap().to_string();
        assert!(
            message.contains("dobutsu.stats:2: not a key=value line"),
            "{message}"
        );
        let census = Census::parse(path.clone(), "legal_positions=three\n").unwrap();
        let message = census.count("legal_positions").unwrap_err().to_string();
        assert!(
            message.contains("legal_positions=three is not a count"),
            "{message}"
        );
        let message = census.counts_json("reachable").unwrap_err().to_string();
        assert!(message.contains("no reachable_positions"), "{message}");
    }

    #[test]
    fn block_reader_gives_the_tables_values_in_any_order() {
        let size: u64 = 5 * 1024 + 17;
        let first = |i: Index| match i % 7 {
            0 => None,
            1 | 2 => Some(Value::win(1 + 2 * (i % 13) as u32)),
            3 => Some(Value::DRAW),
            _ => Some(Value::loss(2 * (i % 11) as u32)),
        };
        let second = |i: Index| first(i + 3);
        let write = |dir: &Path, value: &(dyn Fn(Index) -> Option<Value> + Sync)| {
            let written = small_table(dir, size, 1024, value);
            TableFile::open(&written.distance_path).unwrap()
        };
        let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (file_a, file_b) = (write(dir_a.path(), &first), write(dir_b.path(), &second));
        // In order, then scattered over the blocks from many threads, with a reader of the other table interleaved
        // (its blocks have the same numbers, not the same values).
        let reader = BlockReader::new(&file_a);
        let other = BlockReader::new(&file_b);
        for i in 0..size {
            assert_eq!(reader.value(i), first(i), "index {i}");
        }
        (0..size).into_par_iter().for_each(|k| {
            let i = k * 2_654_435_761 % size;
            assert_eq!(reader.value(i), first(i), "index {i}");
            assert_eq!(other.value(i), second(i), "index {i}");
        });
        reader.finish().unwrap();
        other.finish().unwrap();
    }
}
