//! Chess endgame tables on disk: `retro generate chess`, and the chess functions of `probe`, `info` and `verify`.
//!
//! A chess table is named by its canonical material (`KQvKR`, stronger side first) and stored as `DIR/chess/NAME.*`.
//! Its index is that of [`retro_chess::TableIndex`]: side to move, king pair, then the other pieces; a symmetric
//! material (`KRvKR`) stores White to move only, as one side to move. Generating a material builds first the tables
//! its captures and promotions lead to, unless they are already in the directory, each once; tables of this run are
//! kept in memory for the exits of the next ones. Positions with en-passant rights are solved with the table (see
//! [`retro_chess::ep`]) but not written: a probe searches their moves.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use retro_chess::analysis::{analyse, value_of};
use retro_chess::{ChessGame, Material, Position, TableIndex, TableSet};
use retro_engine::{Index, PlayConvention, Value};
use retro_probe::format::{FileKind, table_path};
use retro_probe::{Table, Tables};
use retro_table::{TableSpec, WriteOptions, write_table};

use crate::dense::DenseValues;
use crate::json;
use crate::run::{EngineArgs, WORK_DIR, with_threads};
use crate::tables::{self, open_table};

/// Identifies the index layout in the table's parameters, so that a reader can refuse tables of another layout.
const INDEX_LAYOUT: &str = "retro-chess-1: side to move, king pair (462 without pawns, left-right mirror with \
                            pawns), piece groups as combinations of 62 squares (48 for pawns)";

/// What a symmetric material's layout adds to [`INDEX_LAYOUT`] (tables written before it stored both sides).
const WHITE_ONLY_LAYOUT: &str = "; symmetric material: White to move only";

/// The index layout of a material's table.
fn index_layout(material: Material) -> String {
    if material.is_symmetric() {
        format!("{INDEX_LAYOUT}{WHITE_ONLY_LAYOUT}")
    } else {
        INDEX_LAYOUT.to_string()
    }
}

#[derive(Args, Debug)]
pub struct GenerateChessArgs {
    /// The material, like KQvKR (either side may come first; the table is named stronger side first).
    #[arg(required_unless_present = "all")]
    pub material: Option<String>,
    /// Every table of 3 up to N men (3, 4 or 5) instead of one material.
    #[arg(long, value_name = "N", conflicts_with = "material")]
    pub all: Option<u32>,
    /// The directory of tables (tables go to DIR/chess/NAME.rwdl and .rdst).
    #[arg(long)]
    pub out: PathBuf,
    /// Write the smallest files (the distance file at zstd's level 19, blocks also tried transposed): for tables
    /// that ship. Writing then takes several times as long as solving a 4-man table.
    #[arg(long)]
    pub compact: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

fn parse_material(name: &str) -> Result<Material> {
    Material::parse(name).map_err(anyhow::Error::new)
}

fn exists(dir: &Path, material: Material) -> bool {
    let name = material.to_string();
    table_path(dir, "chess", &name, FileKind::Wdl).exists()
        && table_path(dir, "chess", &name, FileKind::Distance).exists()
}

/// Reads an existing table whole into memory for the exits of a build (every block's checksum is checked).
fn load_dense(tables: &Tables, material: Material) -> Result<DenseValues> {
    let table = open_table(tables, "chess", &material.to_string())?;
    check_layout(&table)?;
    DenseValues::read(&table).with_context(|| format!("table {material} is damaged"))
}

fn check_layout(table: &Table) -> Result<()> {
    let path = table.distance_file().path().display().to_string();
    let material = parse_material(&table.meta().name)?;
    match table.meta().param("index") {
        Some(layout) if layout == index_layout(material) => {}
        _ => bail!("{path}: not a chess table of this version's index layout"),
    }
    if TableIndex::new(material).size() != table.size() {
        bail!(
            "{path}: the table has {} indices, its material {} has {}",
            table.size(),
            material,
            TableIndex::new(material).size()
        );
    }
    Ok(())
}

pub fn generate(args: &GenerateChessArgs) -> Result<()> {
    let targets: Vec<Material> = match (&args.material, args.all) {
        (Some(name), None) => vec![parse_material(name)?.canonical()],
        (None, Some(n @ 3..=5)) => (3..=n).flat_map(Material::all_with_men).collect(),
        (None, Some(n)) => bail!("--all takes 3, 4 or 5 (men), not {n}"),
        _ => bail!("give a material or --all N"),
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let disk = tables::open_tables(&args.out)?;
    // Every table to build or find, each once, each after the tables it exits into.
    let mut order: Vec<Material> = Vec::new();
    for &target in &targets {
        for m in target.dependency_order() {
            if !order.contains(&m) {
                order.push(m);
            }
        }
    }
    let mut set = TableSet::new();
    with_threads(args.engine.threads, || -> Result<()> {
        for (k, &m) in order.iter().enumerate() {
            if exists(&args.out, m) {
                if targets.contains(&m) {
                    println!("chess {m}: already in {}", args.out.display());
                }
                continue;
            }
            // The exits of `m` look into its successors: read from disk those not in memory yet.
            for s in m.successors() {
                if s != Material::KVK && set.get(s).is_none() {
                    set.insert(s, Box::new(load_dense(&disk, s)?));
                }
            }
            let solution = build(m, &args.out, &set, &args.engine, args.compact)?;
            // Keep in memory only what the tables still to build exit into.
            let later: Vec<Material> = order[k + 1..].iter().flat_map(|l| l.successors()).collect();
            set.retain(|t| later.contains(&t));
            if later.contains(&m) {
                set.insert(m, Box::new(solution));
            }
        }
        Ok(())
    })??;
    Ok(())
}

/// Solves one material (its sub-tables are in `set`), writes its files and returns its solution.
fn build(
    material: Material,
    out: &Path,
    set: &TableSet,
    engine: &EngineArgs,
    compact: bool,
) -> Result<retro_engine::Solution> {
    let start = Instant::now();
    let name = material.to_string();
    let game = ChessGame::new(material, set)?;
    // The tables held for the exits share the memory budget with the engine.
    let engine = engine.reserving(set.resident_bytes());
    let solution = engine.solve(
        &game,
        PlayConvention::Normal,
        &format!("chess {name}"),
        Some(&out.join(WORK_DIR)),
    )?;
    let solved_at = start.elapsed();
    // The table is the index's positions; the positions with en-passant rights solved after them are not stored.
    let index = game.index();
    let spec = TableSpec {
        game: "chess",
        name: &name,
        params: vec![
            ("material".into(), name.clone()),
            ("index".into(), index_layout(material)),
        ],
        sides: index.sides() as u8,
        side_of: |i: Index| u8::from(index.turn_of(i) == retro_chess::Color::Black),
        size: index.size(),
        payload: &[],
        // WDL blocks of 2^22 values (1 MiB decompressed): a 4-man table is one block, which compresses better than
        // two (KRvKR: 41.1 KB with 2^20, 37.6 KB with 2^22; Syzygy's is 12.9 KB).
        options: WriteOptions {
            wdl_block_values: 1 << 22,
            ..if compact {
                WriteOptions::compact()
            } else {
                WriteOptions::default()
            }
        },
    };
    let written = write_table(out, &spec, |i| solution.value(i))?;
    let total = written.meta.total();
    let longest = [total.longest_win, total.longest_loss]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0);
    let positions = written.meta.index_size - written.meta.holes;
    let ep = game.ep_index().len();
    let ep_note = if ep > 0 {
        format!(" (and {ep} with en-passant rights, solved, not stored)")
    } else {
        String::new()
    };
    println!(
        "chess {name}: {} indices, {positions} positions{ep_note} ({:.3} indices per position): {} win, {} draw, \
         {} loss; longest {} plies; solved in {:.2} s ({:.2} M indices/s), written in {:.2} s",
        index.size(),
        index.size() as f64 / positions.max(1) as f64,
        total.wins,
        total.draws,
        total.losses,
        longest,
        solved_at.as_secs_f64(),
        solution.size() as f64 / solved_at.as_secs_f64().max(1e-9) / 1e6,
        (start.elapsed() - solved_at).as_secs_f64()
    );
    tables::print_written(&written, positions);
    Ok(solution)
}

/// Looks positions up in the tables of a directory, one open table and index per material.
struct Lookup<'a> {
    tables: &'a Tables,
    open: RefCell<HashMap<Material, (Arc<Table>, TableIndex)>>,
}

impl Lookup<'_> {
    fn value(&self, pos: &Position) -> Result<Value> {
        let material = Material::of(pos).canonical();
        if material == Material::KVK {
            return Ok(Value::DRAW);
        }
        let mut open = self.open.borrow_mut();
        if let std::collections::hash_map::Entry::Vacant(slot) = open.entry(material) {
            let table = self.tables.table("chess", &material.to_string()).map_err(|e| {
                anyhow::anyhow!(
                    "table {material} is missing or unreadable in {} ({e}); build it with: retro generate chess \
                     {material} --out {}",
                    self.tables.dir().display(),
                    self.tables.dir().display()
                )
            })?;
            check_layout(&table)?;
            slot.insert((table, TableIndex::new(material)));
        }
        let (table, index) = &open[&material];
        let i = index.encode(pos).expect("the material matches");
        tables::value_at(table, i)?
            .with_context(|| format!("{}: position {} is a hole", material, pos.fen()))
    }
}

/// `retro probe --tables DIR chess "FEN"`.
pub fn probe(tables: &Tables, what: &[String], as_json: bool) -> Result<()> {
    let fen = what.join(" ");
    let pos = Position::from_fen(&fen)?;
    let material = Material::of(&pos);
    if material.men() > retro_chess::material::MAX_MEN {
        bail!(
            "illegal position for the tables: {} men, at most {} are supported",
            material.men(),
            retro_chess::material::MAX_MEN
        );
    }
    let lookup = Lookup {
        tables,
        open: RefCell::new(HashMap::new()),
    };
    let analysis = analyse(&pos, &|p: &Position| lookup.value(p))?;
    if as_json {
        let moves = analysis
            .moves
            .iter()
            .map(|m| {
                format!(
                    "{{\"uci\":{},{}}}",
                    json::string(&m.chess_move.uci()),
                    json::value_fields(m.value)
                )
            })
            .collect::<Vec<_>>()
            .join(",");
        let line = analysis
            .line
            .iter()
            .map(|m| json::string(&m.uci()))
            .collect::<Vec<_>>()
            .join(",");
        println!(
            "{{\"fen\":{},{},\"moves\":[{moves}],\"line\":[{line}]}}",
            json::string(fen.trim()),
            json::value_fields(analysis.value)
        );
        return Ok(());
    }
    println!("{pos}");
    println!("{}: {}", material.canonical(), describe(analysis.value));
    if analysis.moves.is_empty() {
        println!(
            "no legal move ({})",
            if pos.in_check(pos.turn()) {
                "checkmate"
            } else {
                "stalemate"
            }
        );
    }
    for m in &analysis.moves {
        println!("  {:<6} {}", m.chess_move.uci(), describe(m.value));
    }
    if !analysis.line.is_empty() {
        let line = analysis
            .line
            .iter()
            .map(|m| m.uci())
            .collect::<Vec<_>>()
            .join(" ");
        println!("line: {line}");
    }
    Ok(())
}

fn describe(value: Value) -> String {
    match value.plies() {
        Some(p) => format!("{} in {p} plies ({} moves)", value.outcome(), p.div_ceil(2)),
        None => "draw".to_string(),
    }
}

/// The canonical table name of a material as the user wrote it.
pub fn table_name(asked: &str) -> Result<String> {
    Ok(parse_material(asked)?.canonical().to_string())
}

/// The table of a material as asked, and whether the asked orientation is the table's (White = first side).
fn asked_table(tables: &Tables, name: &str) -> Result<(Arc<Table>, Material, bool)> {
    let asked = parse_material(name)?;
    let canonical = asked.canonical();
    // A symmetric material reads the same both ways.
    let same = asked == canonical;
    let table = open_table(tables, "chess", &canonical.to_string())?;
    check_layout(&table)?;
    Ok((table, canonical, same))
}

/// `retro info --tables DIR chess MATERIAL`: counts per side to move, "white" being the side written first as asked.
pub fn info(tables: &Tables, name: &str, as_json: bool) -> Result<()> {
    let (table, material, same) = asked_table(tables, name)?;
    if material.is_symmetric() {
        return info_symmetric(&table, as_json);
    }
    let half = table.size() / 2;
    let sides: &[&str] = if same {
        &["white", "black"]
    } else {
        &["black", "white"]
    };
    tables::print_info(&table, as_json, sides, |i| usize::from(i >= half))
}

/// `info` for a symmetric material, whose table stores White to move only: Black to move is the same set of
/// positions with the colours exchanged, so its counts, longest distances and histogram are White's.
fn info_symmetric(table: &Table, as_json: bool) -> Result<()> {
    let white_only = |_: Index| 0;
    if !as_json {
        tables::print_info(table, false, &["white"], white_only)?;
        println!(
            "black      the same as white (symmetric material: the table stores White to move only)"
        );
        return Ok(());
    }
    let mut fields = tables::info_fields(table, &["white"], white_only)?;
    black_as_white(&mut fields)?;
    tables::print_object(&fields);
    Ok(())
}

/// Gives the per-side fields of `info --json` (`counts`, `longest`, `histogram`), computed for White alone, a
/// `black` entry equal to White's.
fn black_as_white(fields: &mut [(String, String)]) -> Result<()> {
    for (key, value) in fields {
        if matches!(key.as_str(), "counts" | "longest" | "histogram") {
            let white = value
                .strip_prefix("{\"white\":")
                .and_then(|v| v.strip_suffix('}'))
                .with_context(|| format!("unexpected {key} field {value}"))?;
            *value = format!("{{\"white\":{white},\"black\":{white}}}");
        }
    }
    Ok(())
}

/// The chess part of `retro verify`: the certificate, with exits read from the sub-tables in the same directory.
pub fn verify(tables: &Tables, name: &str, memory: u64) -> Result<u64> {
    let (table, material, _) = asked_table(tables, name)?;
    let mut set = TableSet::new();
    for needed in material.successors() {
        if needed != Material::KVK {
            set.insert(needed, Box::new(load_dense(tables, needed)?));
        }
    }
    // With pawns on both sides, the positions with en-passant rights are not in the file: each is valued from its
    // moves, looked up in the table itself and its sub-tables (one set for the exits and these lookups), and the
    // certificate checks every stored position against them.
    let with_ep = material.both_sides_have_pawns();
    if with_ep {
        let own =
            DenseValues::read(&table).with_context(|| format!("table {material} is damaged"))?;
        set.insert(material, Box::new(own));
    }
    let game = ChessGame::new(material, &set)?;
    let index = game.index().clone();
    let describe = |i: Index| match game.position(i) {
        Some(pos) => format!("position {}", pos.fen()),
        None => format!("hole {i}"),
    };
    if !with_ep {
        return tables::certify_table(&table, &game, PlayConvention::Normal, memory, describe);
    }
    let stored_values = set.get(material).expect("inserted above").1;
    let stored = index.size();
    let lookup = |pos: &Position| {
        set.probe(pos)
            .with_context(|| format!("no value for {}", pos.fen()))
    };
    let values = |i: Index| {
        if i < stored {
            Ok(stored_values.value(i))
        } else {
            let pos = game
                .position(i)
                .expect("the en-passant region has no holes");
            value_of(&pos, &lookup).map(Some)
        }
    };
    tables::certify_values(&table, &game, PlayConvention::Normal, values, describe)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> Tables {
        tables::open_tables(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tablebases/chess"))
            .unwrap()
    }

    fn field<'a>(fields: &'a [(String, String)], key: &str) -> &'a str {
        &fields.iter().find(|(k, _)| k == key).unwrap().1
    }

    #[test]
    fn a_symmetric_table_reports_black_as_white() {
        // KRvKR stores White to move only; the reference statistics count 392459 wins, 946389 draws and 9058 losses
        // for each side to move (see games/chess/tests/reference.rs).
        let (table, material, same) = asked_table(&shipped(), "KRvKR").unwrap();
        assert!(material.is_symmetric() && same);
        assert_eq!(table.meta().sides.len(), 1);
        let mut fields = tables::info_fields(&table, &["white"], |_| 0).unwrap();
        black_as_white(&mut fields).unwrap();
        let side = r#"{"win":392459,"draw":946389,"loss":9058}"#;
        assert_eq!(
            field(&fields, "counts"),
            format!(r#"{{"white":{side},"black":{side}}}"#)
        );
        assert!(field(&fields, "longest").contains(r#""black":{"win":37,"loss":38}"#));
        let histogram = field(&fields, "histogram");
        assert!(histogram.starts_with(r#"{"white":{"win":[[1,4454],"#));
        assert!(histogram.contains(r#","black":{"win":[[1,4454],"#));
    }

    #[test]
    fn symmetric_tables_have_their_own_layout_and_side_fields() {
        assert_eq!(
            index_layout(Material::parse("KQvKR").unwrap()),
            INDEX_LAYOUT
        );
        assert!(index_layout(Material::parse("KPvKP").unwrap()).ends_with(WHITE_ONLY_LAYOUT));
        let mut fields = vec![("counts".to_string(), "{\"black\":{}}".to_string())];
        assert!(black_as_white(&mut fields).is_err());
    }
}
