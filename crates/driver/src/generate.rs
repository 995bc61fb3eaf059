//! `retro generate GAME [VARIANT] --out DIR`, for every family: the tables of the variant and every table they
//! depend on, each after its dependencies, solved by the engine and written to `DIR/GAME/NAME.*`.
//!
//! A table already in the directory whose parameters are this version's and whose every block checksum passes is
//! kept, so that the same command run again after a kill continues with the first table it had not finished (and
//! the engine resumes that one from its last checkpoint when it builds through a work directory). Tables built in
//! this run are kept in memory while a later table still exits into them, and set aside on disk past their share of
//! the memory budget ([`crate::kept`]); tables found on disk are read whole when one is needed. Both count against
//! the budget.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, anyhow};
use rayon::prelude::*;
use retro_family::{Family, Flags, Index, Location, Outcome, SubTables, Value, Values};
use retro_probe::format::MAX_BLOCK_VALUES;
use retro_table::{TableSpec, WriteOptions, block_values_allowed, write_table};

use crate::build::{EngineArgs, WORK_DIR, with_threads};
use crate::directory::Directory;
use crate::kept::{KEPT_SHARE, Kept};
use crate::read::{check_files, print_written};
use crate::registry::{Visit, visit};
use crate::value::{Lookup, value_of};

/// The header parameter that holds the game's start position, in a table that stores it (`info` shows its value).
pub(crate) const START_PARAM: &str = "startpos";
/// The header parameter that holds the start position's value, beside [`START_PARAM`].
pub(crate) const START_VALUE_PARAM: &str = "startpos_value";

/// What `generate` is asked.
#[derive(Clone, Debug, Default)]
pub struct GenerateArgs {
    pub game: String,
    /// The VARIANT words (none for a game with one variant).
    pub variant: Vec<String>,
    /// Every variant of up to N (chess: men) instead of one.
    pub all: Option<u32>,
    pub out: PathBuf,
    pub flags: Flags,
    /// The smallest files (slower to write): for tables that ship.
    pub compact: bool,
    /// Distance files of one side to move (the smaller): the other side's values are found at probe time by
    /// searching their moves (format version 5). For a family whose sides to move are ranges of the index
    /// ([`Family::side_ranges`]); others store both.
    pub one_side: bool,
    /// Values per block of the distance files, instead of the writer's choice (see `Choices::distance_block`).
    pub distance_block: Option<u32>,
    /// After the tables, count the positions reachable from the start.
    pub census: bool,
    /// Build this table of the variant's DAG alone (by name); the tables it depends on must be in the directory.
    /// One job of a cluster builds one table so.
    pub table: Option<String>,
    pub engine: EngineArgs,
}

/// Runs `generate`.
pub fn generate(args: &GenerateArgs) -> Result<()> {
    visit(&args.game, Generate(args))?
}

struct Generate<'a>(&'a GenerateArgs);

impl Visit for Generate<'_> {
    type Output = Result<()>;
    fn visit<F: Family>(self, family: &F) -> Result<()> {
        let args = self.0;
        check_distance_block(args.distance_block)?;
        let variants = crate::plan::variants(family, &args.variant, args.all, &args.flags)?;
        std::fs::create_dir_all(&args.out)
            .with_context(|| format!("cannot create {}", args.out.display()))?;
        with_threads(args.engine.threads, || -> Result<()> {
            build_all(family, &variants, args)?;
            if args.census {
                for variant in &variants {
                    crate::census::run(family, variant, &args.out, args.engine.quiet)?;
                }
            }
            Ok(())
        })?
    }
}

/// Every table of `variants` and the tables they depend on, each once, each after the tables it depends on.
pub fn build_order<F: Family>(family: &F, variants: &[F::Variant]) -> Vec<F::Table> {
    fn visit<F: Family>(
        family: &F,
        table: F::Table,
        order: &mut Vec<F::Table>,
        open: &mut Vec<F::Table>,
    ) {
        if order.contains(&table) || open.contains(&table) {
            return;
        }
        open.push(table.clone());
        for d in family.dependencies(&table) {
            visit(family, d, order, open);
        }
        open.pop();
        order.push(table);
    }
    let mut order = Vec::new();
    for variant in variants {
        for table in family.tables(variant) {
            visit(family, table, &mut order, &mut Vec::new());
        }
    }
    order
}

fn build_all<F: Family>(family: &F, variants: &[F::Variant], args: &GenerateArgs) -> Result<()> {
    let game = family.about().name;
    let mut order = build_order(family, variants);
    refuse_one_side(family, &order, args.one_side)?;
    let mut asked: Vec<F::Table> = variants.iter().flat_map(|v| family.tables(v)).collect();
    if let Some(only) = &args.table {
        let table = order
            .iter()
            .find(|t| family.table_name(t) == *only)
            .cloned()
            .ok_or_else(|| {
                let names: Vec<String> = order.iter().map(|t| family.table_name(t)).collect();
                anyhow!(
                    "{game} has no table {only} in what was asked (its tables: {})",
                    names.join(" ")
                )
            })?;
        order = vec![table.clone()];
        asked = vec![table];
    }
    let starts: Vec<F::Position> = variants.iter().filter_map(|v| family.start(v)).collect();
    let disk = Directory::open(family, &args.out)?;
    let budget = args
        .engine
        .memory
        .unwrap_or_else(retro_engine::default_budget);
    let mut kept = Kept::new(args.out.join(WORK_DIR).join(KEPT_DIR));
    for (k, table) in order.iter().enumerate() {
        let name = family.table_name(table);
        retro_probe::format::check_name("table", &name).map_err(|e| anyhow!("{game}: {e}"))?;
        if is_sound(&disk, table) {
            if asked.contains(table) {
                println!("{game} {name}: already in {}", args.out.display());
            }
            continue;
        }
        let dependencies = family.dependencies(table);
        // The tables kept for later builds take at most their share of the budget.
        let still_to_build = &order[k + 1..];
        let next_use = |t: &F::Table| {
            still_to_build
                .iter()
                .position(|l| family.dependencies(l).contains(t))
                .unwrap_or(usize::MAX)
        };
        kept.make_room(
            &dependencies,
            next_use,
            |t| family.table_name(t),
            budget / KEPT_SHARE,
        );
        // The sub-tables set aside are read back from the work directory; those not built by this run are read from
        // the tables' directory (those of one side to move completed through their own sub-tables:
        // `Directory::values`).
        for d in &dependencies {
            kept.bring_in(d, || disk.values(d))?;
        }
        let solution = build_one(family, table, &kept, &disk, &starts, args)?;
        // Keep only what the tables still to build exit into.
        let later: Vec<F::Table> = order[k + 1..]
            .iter()
            .flat_map(|t| family.dependencies(t))
            .collect();
        kept.retain(|t| later.contains(t));
        if later.contains(table) {
            let size = solution.size();
            kept.insert(table.clone(), Box::new(solution), size);
        }
    }
    let counts = kept.counts();
    if counts.set_aside > 0 && !args.engine.quiet {
        println!(
            "{game}: {} tables set aside to keep the budget ({} bytes written), read back {} times",
            counts.set_aside, counts.bytes, counts.read_back
        );
    }
    Ok(())
}

/// The folder of the run's work directory where tables kept for later builds are set aside ([`Kept`]).
const KEPT_DIR: &str = "kept";

/// Whether the directory holds `table`, written with this version's parameters, every checksum passing.
fn is_sound<F: Family>(disk: &Directory<F>, table: &F::Table) -> bool {
    let game = disk.game();
    let name = disk.family().table_name(table);
    let wdl = retro_probe::format::table_path(
        disk.tables().dir(),
        game,
        &name,
        retro_probe::format::FileKind::Wdl,
    );
    if !wdl.exists() {
        return false;
    }
    match disk.open_uncached(table).and_then(|t| check_files(&t)) {
        Ok(_) => true,
        Err(e) => {
            eprintln!("{game} {name}: the table in the directory is rebuilt ({e:#})");
            false
        }
    }
}

/// Values held in memory, then the directory: how a build values its start position.
struct Held<'h, F: Family> {
    held: &'h Kept<F::Table>,
    this: (&'h F::Table, &'h dyn Values),
    disk: &'h Directory<'h, F>,
}

impl<F: Family> Lookup<F> for Held<'_, F> {
    fn value(&self, table: &F::Table, index: Index) -> Result<Option<Value>> {
        if table == self.this.0 {
            return Ok(self.this.1.value(index));
        }
        match self.held.get(table) {
            Some(values) => Ok(values.value(index)),
            None => self.disk.value(table, index),
        }
    }

    fn stores(&self, table: &F::Table, index: Index) -> Result<bool> {
        if table == self.this.0 || self.held.get(table).is_some() {
            return Ok(true);
        }
        self.disk.stores(table, index)
    }
}

/// Solves and writes one table whose dependencies are in `held`, beside the tables kept there for later builds:
/// all of them come off the memory budget.
fn build_one<F: Family>(
    family: &F,
    table: &F::Table,
    held: &Kept<F::Table>,
    disk: &Directory<F>,
    starts: &[F::Position],
    args: &GenerateArgs,
) -> Result<retro_engine::Solution> {
    let clock = Instant::now();
    let game_word = family.about().name;
    let name = family.table_name(table);
    let mut sub = SubTables::new();
    for d in family.dependencies(table) {
        let values = held.get(&d).expect("brought in above");
        sub.insert(d, values);
    }
    let game = family.game(table, &sub).map_err(anyhow::Error::msg)?;
    let size = family.stored(&game);
    let choices = Choices {
        compact: args.compact,
        one_side: args.one_side,
        distance_block: args.distance_block,
    };
    let options = write_options(family, table, &choices);
    // The budget bounds the whole process: the tables held for the exits, the writer and the process itself come
    // off it, and the engine has the rest (see `budget`).
    let budget = args
        .engine
        .memory
        .unwrap_or_else(retro_engine::default_budget);
    let share = match args.engine.test_engine_memory {
        Some(engine) => crate::budget::Share {
            engine,
            writer_threads: rayon::current_num_threads(),
            overhead: 0,
        },
        None => crate::budget::share(
            budget,
            held.resident_bytes(),
            size,
            rayon::current_num_threads(),
            &options,
        )
        .with_context(|| format!("cannot build {game_word} {name}"))?,
    };
    let engine = EngineArgs {
        memory: Some(share.engine),
        best_exits: family.wdl_floors(table),
        ..args.engine.clone()
    };
    let mut solution = engine.solve(
        &game,
        family.convention(table),
        &format!("{game_word} {name}"),
        Some(&args.out.join(WORK_DIR)),
    )?;
    let solved_at = clock.elapsed();
    let mut params = family.params(table);
    // The start position, where this table holds it, and its value.
    for start in starts {
        if let Ok(Location::Stored { table: t, .. }) = family.locate(start)
            && t == *table
        {
            let lookup = Held {
                held,
                this: (table, &solution),
                disk,
            };
            let value = value_of(family, &lookup, start)?;
            params.push((START_PARAM.into(), family.show_position(start)));
            params.push((START_VALUE_PARAM.into(), value.to_string()));
        }
    }
    // Taken out of the solution, which later tables may hold for their exits: only this table's writer needs them.
    let best_exits = solution.take_best_exits();
    let values = retro_table::Runs(&solution);
    let written = write_values(
        family,
        table,
        &game,
        best_exits.as_ref(),
        params,
        values,
        &args.out,
        &choices,
        share.writer_threads,
    )?;
    let total = written.meta.total();
    let longest = [total.longest_win, total.longest_loss]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0);
    let positions = written.meta.index_size - written.meta.holes;
    let unstored = game_size(&game) - size;
    let note = if unstored > 0 {
        format!(" (and {unstored} indices solved, not stored)")
    } else {
        String::new()
    };
    println!(
        "{game_word} {name}: {size} indices, {positions} positions{note}: {} win, {} draw, {} loss; longest {longest} \
         plies; solved in {:.2} s ({:.2} M indices/s), written in {:.2} s",
        total.wins,
        total.draws,
        total.losses,
        solved_at.as_secs_f64(),
        solution.size() as f64 / solved_at.as_secs_f64().max(1e-9) / 1e6,
        (clock.elapsed() - solved_at).as_secs_f64()
    );
    print_written(&written, positions);
    Ok(solution)
}

/// `--one-side` is an error for a game none of whose tables keeps its sides to move in ranges of the index, rather
/// than a flag silently ignored.
pub(crate) fn refuse_one_side<F: Family>(
    family: &F,
    tables: &[F::Table],
    one_side: bool,
) -> Result<()> {
    if one_side && tables.iter().all(|t| family.side_ranges(t).is_empty()) {
        return Err(anyhow!(
            "--one-side does not apply to {}: its tables do not keep the sides to move apart (chess tables do)",
            family.about().name
        ));
    }
    Ok(())
}

/// How a table's files are written, beside the family's own choices.
#[derive(Clone, Debug, Default)]
pub(crate) struct Choices {
    /// The smallest files, slower to write ([`WriteOptions::compact`]).
    pub compact: bool,
    /// A distance file of one side to move, where the family's sides are ranges of the index.
    pub one_side: bool,
    /// Values per block of the distance file, for every table size, instead of the writer's choice. Smaller blocks
    /// make a probe whose block is not cached faster (it decompresses the whole block) and the file larger.
    pub distance_block: Option<u32>,
}

/// The fewest values per distance block that `--distance-block` takes: below it, each block's frame and its entry
/// in the block index weigh more than the values they hold.
pub const MIN_DISTANCE_BLOCK: u32 = 1 << 10;

/// Refuses a `--distance-block` that is not a power of two from [`MIN_DISTANCE_BLOCK`] to the format's largest
/// block, before anything is built.
pub(crate) fn check_distance_block(values: Option<u32>) -> Result<()> {
    match values {
        Some(v) if v < MIN_DISTANCE_BLOCK || !block_values_allowed(v) => {
            anyhow::bail!(
                "--distance-block {v}: values per block must be a power of two from {MIN_DISTANCE_BLOCK} to \
                 {MAX_BLOCK_VALUES}"
            )
        }
        _ => Ok(()),
    }
}

/// Writes the two files of `table` from its values: with the family's payload, sides, blocks and, where it asks for
/// them, WDL floors that `game`'s exits complete (the exits' best outcomes are read from `best_exits` when the solve
/// kept them, else asked of `game`). `generate` writes a table just solved so, and `repack` rewrites one read back.
/// The bytes do not depend on `writer_threads`, which a build short of memory lowers. Generic over `values`, not a
/// `dyn Fn`, so that the writer's passes over every index inline the lookup: KQRvKR's writing took 2.5 s instead of
/// 2.9 s, Dobutsu's 6.4 s instead of 7.4 s.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_values<F: Family, V: retro_table::ValueSource + Send>(
    family: &F,
    table: &F::Table,
    game: &F::Game<'_>,
    best_exits: Option<&retro_engine::BestExits>,
    params: Vec<(String, String)>,
    values: V,
    out: &Path,
    choices: &Choices,
    writer_threads: usize,
) -> Result<retro_table::Written> {
    let name = family.table_name(table);
    let payload = family.payload(table);
    let side_ranges = family.side_ranges(table);
    let side_of = family.side_of(table);
    // Sides that are ranges of the index, in order, are told by comparing the index with where each side after the
    // first starts, inlined in the writer's loops; the family's function would be a call on every index.
    // A table of one side to move has every index on side 0 (the family contract checks `side_of` against it).
    let side_starts: Vec<Index> = side_ranges.iter().skip(1).map(|side| side.start).collect();
    let one_side = family.sides(table).len() == 1;
    let side_at = |i: Index| match side_starts.as_slice() {
        _ if one_side => 0,
        _ if side_ranges.is_empty() => side_of(i) as u8,
        // Two sides (chess): one comparison.
        [second] => u8::from(i >= *second),
        starts => starts.iter().map(|&start| u8::from(i >= start)).sum(),
    };
    let best_exit = |i: Index| match best_exits {
        Some(kept) => kept.get(i),
        None => retro_game::Game::best_exit(game, i),
    };
    let exits: Option<&(dyn Fn(Index) -> Outcome + Sync)> = if family.wdl_floors(table) {
        Some(&best_exit)
    } else {
        None
    };
    let index_periods = family.index_periods(table);
    let index_digits = family.index_digits(table);
    let spec = TableSpec {
        game: family.about().name,
        name: &name,
        params,
        sides: family.sides(table).len() as u8,
        side_of: side_at,
        size: family.stored(game),
        payload: &payload,
        exits,
        index_periods: &index_periods,
        index_digits: &index_digits,
        distance_omitted: if choices.one_side {
            omitted_side(&side_ranges, &values)
        } else {
            None
        },
        options: write_options(family, table, choices),
    };
    Ok(if writer_threads < rayon::current_num_threads() {
        with_threads(Some(writer_threads), || write_table(out, &spec, values))??
    } else {
        write_table(out, &spec, values)?
    })
}

/// Which side to move a distance file of one side leaves out: the one whose codes a quick compression finds larger
/// (KRvKB: 163 KB of White to move against 36 KB of Black; KBvKP the other way round, 130 KB against 434 KB).
/// `None` unless the family's two sides to move are ranges of the index.
fn omitted_side(
    sides: &[Range<Index>],
    values: &impl retro_table::ValueSource,
) -> Option<Range<Index>> {
    /// Values compressed at a time, at zstd's fastest level, to compare the sides.
    const CHUNK: u64 = 1 << 16;
    let [first, second] = sides else {
        return None;
    };
    let quick_size = |side: &Range<Index>| -> usize {
        let chunks = (side.end - side.start).div_ceil(CHUNK);
        (0..chunks)
            .into_par_iter()
            .map(|c| {
                let start = side.start + c * CHUNK;
                let codes: Vec<u8> = (start..(start + CHUNK).min(side.end))
                    .flat_map(|i| {
                        (retro_probe::format::distance_code(values.value(i)) as u16).to_le_bytes()
                    })
                    .collect();
                zstd::bulk::compress(&codes, 1).map_or(codes.len(), |c| c.len())
            })
            .sum()
    };
    Some(if quick_size(first) <= quick_size(second) {
        second.clone()
    } else {
        first.clone()
    })
}

/// How a table's files are written: the writer's defaults (or its smallest files, `compact`) with the family's
/// choices of blocks and levels, and the distance blocks asked for.
pub(crate) fn write_options<F: Family>(
    family: &F,
    table: &F::Table,
    choices: &Choices,
) -> WriteOptions {
    let blocks = family.blocks(table);
    let compact = choices.compact;
    let defaults = if compact {
        WriteOptions::compact()
    } else {
        WriteOptions::default()
    };
    WriteOptions {
        wdl_block_values: blocks.wdl_values.unwrap_or(defaults.wdl_block_values),
        wdl_level: match blocks.wdl_level {
            Some(level) if !compact => level,
            _ => defaults.wdl_level,
        },
        heavy_wdl_level: match blocks.heavy_wdl_level {
            Some(level) if !compact && blocks.wdl_level.is_some() => Some(level),
            _ => defaults.heavy_wdl_level,
        },
        transpose_wdl: defaults.transpose_wdl || blocks.transpose_wdl,
        large_table: if blocks.fast_distances {
            0
        } else {
            defaults.large_table
        },
        distance_block_values: choices
            .distance_block
            .unwrap_or(defaults.distance_block_values),
        large_distance_block_values: choices
            .distance_block
            .unwrap_or(defaults.large_distance_block_values),
        ..defaults
    }
}

fn game_size<G: retro_family::Game>(game: &G) -> Index {
    game.size()
}
