//! Chess endgame tables on disk: `retro generate chess`, and the chess functions of `probe`, `info` and `verify`.
//!
//! A chess table is named by its canonical material (`KQvKR`, stronger side first) and stored as `DIR/chess/NAME.*`.
//! Its index is that of [`retro_chess::TableIndex`]: side to move, king pair, then the other pieces. Generating a
//! material builds first the tables its captures and promotions lead to, unless they are already in the directory,
//! each once; tables of this run are kept in memory for the exits of the next ones.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use retro_chess::analysis::analyse;
use retro_chess::{ChessGame, DenseValues, Material, Position, TableIndex, TableSet};
use retro_engine::{Index, PlayConvention, Value};
use retro_probe::format::{FileKind, table_path};
use retro_probe::{Table, Tables};
use retro_table::{TableSpec, WriteOptions, write_table};

use crate::json;
use crate::run::{EngineArgs, WORK_DIR, with_threads};
use crate::tables::{self, open_table};

/// Identifies the index layout in the table's parameters, so that a reader can refuse tables of another layout.
const INDEX_LAYOUT: &str = "retro-chess-1: side to move, king pair (462 without pawns, left-right mirror with \
                            pawns), piece groups as combinations of 62 squares (48 for pawns)";

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
    match table.meta().param("index") {
        Some(layout) if layout == INDEX_LAYOUT => {}
        _ => bail!("{path}: not a chess table of this version's index layout"),
    }
    let material = parse_material(&table.meta().name)?;
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
    let mut skipped = Vec::new();
    // Every table to build or find, each once, each after the tables it exits into.
    let mut order: Vec<Material> = Vec::new();
    for &target in &targets {
        if target.both_sides_have_pawns() {
            if args.all.is_some() {
                skipped.push(target);
                continue;
            }
            bail!("{}", retro_chess::GameError::EnPassant(target));
        }
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
            let solution = build(m, &args.out, &set, &args.engine)?;
            // Keep in memory only what the tables still to build exit into.
            let later: Vec<Material> = order[k + 1..].iter().flat_map(|l| l.successors()).collect();
            set.retain(|t| later.contains(&t));
            if later.contains(&m) {
                set.insert(m, Box::new(solution));
            }
        }
        Ok(())
    })??;
    for m in skipped {
        println!(
            "chess {m}: skipped: both sides have pawns (en passant tables are not supported yet)"
        );
    }
    Ok(())
}

/// Solves one material (its sub-tables are in `set`), writes its files and returns its solution.
fn build(
    material: Material,
    out: &Path,
    set: &TableSet,
    engine: &EngineArgs,
) -> Result<retro_engine::Solution> {
    let start = Instant::now();
    let name = material.to_string();
    let game = ChessGame::new(material, set)?;
    let solution = engine.solve(
        &game,
        PlayConvention::Normal,
        &format!("chess {name}"),
        Some(&out.join(WORK_DIR)),
    )?;
    let solved_at = start.elapsed();
    let half = solution.size() / 2;
    let spec = TableSpec {
        game: "chess",
        name: &name,
        params: vec![
            ("material".into(), name.clone()),
            ("index".into(), INDEX_LAYOUT.into()),
        ],
        sides: 2,
        side_of: |i: Index| u8::from(i >= half),
        size: solution.size(),
        payload: &[],
        options: WriteOptions::default(),
    };
    let written = write_table(out, &spec, |i| solution.value(i))?;
    let stats = solution.stats();
    let total = written.meta.total();
    println!(
        "chess {name}: {} indices, {} positions ({:.3} indices per position): {} win, {} draw, {} loss; \
         longest {} plies; solved in {:.2} s ({:.2} M indices/s), written in {:.2} s",
        solution.size(),
        stats.positions,
        solution.size() as f64 / stats.positions.max(1) as f64,
        total.wins,
        total.draws,
        total.losses,
        stats.max_plies,
        solved_at.as_secs_f64(),
        solution.size() as f64 / solved_at.as_secs_f64().max(1e-9) / 1e6,
        (start.elapsed() - solved_at).as_secs_f64()
    );
    tables::print_written(&written, stats.positions);
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
    let (table, _, same) = asked_table(tables, name)?;
    let half = table.size() / 2;
    let sides: &[&str] = if same {
        &["white", "black"]
    } else {
        &["black", "white"]
    };
    tables::print_info(&table, as_json, sides, |i| usize::from(i >= half))
}

/// The chess part of `retro verify`: the certificate, with exits read from the sub-tables in the same directory.
pub fn verify(tables: &Tables, name: &str) -> Result<u64> {
    let (table, material, _) = asked_table(tables, name)?;
    if material.both_sides_have_pawns() {
        bail!("{}", retro_chess::GameError::EnPassant(material));
    }
    let mut set = TableSet::new();
    for needed in material.successors() {
        if needed != Material::KVK {
            set.insert(needed, Box::new(load_dense(tables, needed)?));
        }
    }
    let game = ChessGame::new(material, &set)?;
    let index = game.index().clone();
    tables::certify_table(&table, &game, PlayConvention::Normal, |i| {
        match index.position(i) {
            Some(pos) => format!("position {}", pos.fen()),
            None => format!("hole {i}"),
        }
    })
}
