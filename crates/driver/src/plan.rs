//! `retro plan GAME VARIANT|--all N`: every table a `generate` would build, before building any — its dependencies,
//! index size, the memory of its build in memory, whether the memory budget sends it out of core, its disk needs
//! and an estimate of its time. This is what a person sizes a machine by, and what `retro slurm submit` sets each
//! job's memory, cores and time limit from.
//!
//! A table's game is built without its sub-tables: its exits read stand-in values (every exit wins for the mover,
//! so that the engine's sample of the positions valued ahead of their generation errs on the large side). Sizes and
//! memory come from the engine's own [`retro_engine::estimate`] (the figures it decides by); times and file sizes
//! from the family's measured [`Rates`].

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Result, anyhow};
use retro_engine::{Estimate, SolveOptions};
use retro_family::{Family, Flags, Game, Index, Rates, SubTables, Value, Values};

use crate::budget::reserved_overhead;
use crate::dense::DenseValues;
use crate::generate::{Choices, build_order, write_options};
use crate::json;
use crate::registry::{Visit, visit};

/// What `plan` is asked.
#[derive(Clone, Debug, Default)]
pub struct PlanArgs {
    pub game: String,
    /// The VARIANT words (none for a game with one variant).
    pub variant: Vec<String>,
    /// Every variant up to N instead of one.
    pub all: Option<u32>,
    pub flags: Flags,
    /// The memory budget of each build (default: [`retro_engine::default_budget`]).
    pub memory: Option<u64>,
    /// The threads of each build (default: this machine's cores).
    pub threads: Option<usize>,
    pub json: bool,
}

/// One table of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct TablePlan {
    /// The table's name (its files are `DIR/GAME/NAME.*`).
    pub name: String,
    /// The names of the tables its exits read, each earlier in the plan.
    pub dependencies: Vec<String>,
    /// 0 for a table that depends on none; else one more than its deepest dependency's.
    pub level: u32,
    /// The indices the engine solves.
    pub indices: Index,
    /// The indices the files store.
    pub stored: Index,
    /// The sub-tables the build holds in memory for its exits (read whole from the directory).
    pub sub_table_bytes: u64,
    /// What the table writer and the process itself take besides ([`crate::budget::reserved_overhead`]).
    pub overhead_bytes: u64,
    /// The same with the writer on one thread, as a short budget has it write.
    pub least_overhead_bytes: u64,
    /// The whole build's memory when it runs in memory: the engine's arrays and schedule, the sub-tables, the
    /// writer and the process.
    pub in_memory_bytes: u64,
    /// What the engine's estimate says under the budget.
    pub engine: Estimate,
    /// The written files, estimated from the family's rates.
    pub file_bytes: u64,
    /// The wall time of the build with the plan's threads, estimated from the family's rates.
    pub seconds: f64,
}

impl TablePlan {
    /// The memory a scheduler should grant the build: what it needs in memory, or the budget when it builds out of
    /// core within it.
    pub fn memory_request(&self, budget: u64) -> u64 {
        self.in_memory_bytes.min(budget)
    }

    /// The least memory the build can have: the sub-tables it holds whole, the writer and the process, and the
    /// engine's smallest budget.
    pub fn minimum_bytes(&self) -> u64 {
        self.sub_table_bytes
            .saturating_add(self.least_overhead_bytes)
            .saturating_add(crate::budget::ENGINE_MINIMUM)
    }

    /// Whether the build can run within `budget` at all.
    pub fn fits(&self, budget: u64) -> bool {
        self.minimum_bytes() <= budget
    }
}

/// A plan: the tables in build order, each after the tables it depends on.
#[derive(Clone, Debug)]
pub struct Plan {
    pub game: &'static str,
    pub budget: u64,
    pub threads: usize,
    pub tables: Vec<TablePlan>,
}

impl Plan {
    /// The longest chain of builds by estimated time: how long the plan takes with a node free for every table that
    /// is ready.
    pub fn critical_path_seconds(&self) -> f64 {
        let mut finish: HashMap<&str, f64> = HashMap::new();
        let mut longest: f64 = 0.0;
        for t in &self.tables {
            let start = t
                .dependencies
                .iter()
                .filter_map(|d| finish.get(d.as_str()))
                .fold(0.0_f64, |a, &b| a.max(b));
            let end = start + t.seconds;
            finish.insert(&t.name, end);
            longest = longest.max(end);
        }
        longest
    }

    pub fn total_seconds(&self) -> f64 {
        self.tables.iter().map(|t| t.seconds).sum()
    }
}

/// The slowdown of a build out of core against one in memory (`scripts/outofcore-chess.sh`: KQRvKR through a work
/// directory in a cgroup four times smaller than its in-memory peak).
pub const OUT_OF_CORE_SLOWDOWN: f64 = 2.0;

/// Runs `plan`.
pub fn plan(args: &PlanArgs) -> Result<()> {
    visit(&args.game, PlanCommand(args))?
}

struct PlanCommand<'a>(&'a PlanArgs);

impl Visit for PlanCommand<'_> {
    type Output = Result<()>;
    fn visit<F: Family>(self, family: &F) -> Result<()> {
        let args = self.0;
        let variants = variants(family, &args.variant, args.all, &args.flags)?;
        let budget = args.memory.unwrap_or_else(retro_engine::default_budget);
        let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
        anyhow::ensure!(threads > 0, "--threads must be at least 1");
        let plan = make_plan(family, &variants, budget, threads)?;
        if args.json {
            println!("{}", plan_json(&plan));
        } else {
            print!("{}", plan_text(&plan));
        }
        Ok(())
    }
}

/// The variants named by VARIANT words or `--all N`.
pub fn variants<F: Family>(
    family: &F,
    words: &[String],
    all: Option<u32>,
    flags: &Flags,
) -> Result<Vec<F::Variant>> {
    match all {
        Some(n) => {
            if !words.is_empty() {
                return Err(anyhow!("give a variant or --all N, not both"));
            }
            flags
                .refuse_all(family.about().name)
                .map_err(anyhow::Error::msg)?;
            family.all(n).map_err(anyhow::Error::msg)
        }
        None => Ok(vec![
            family
                .parse_variant(words, flags)
                .map_err(anyhow::Error::msg)?,
        ]),
    }
}

/// Stand-in values for a table's sub-tables: every position reached by an exit is lost for its mover, so every
/// exit wins. The engine's estimate of its schedule then counts every position with an exit, an upper bound on
/// their number. The losses take distances spread over [`EXIT_GENERATIONS`] generations: the schedule's entries are
/// coded by their gaps, and a real table's exits, which go to many distances, leave wider gaps in each generation
/// than a single generation of them all would.
struct ExitsWin;

/// The distances over which [`ExitsWin`] spreads its losses.
const EXIT_GENERATIONS: u64 = 32;

impl Values for ExitsWin {
    fn value(&self, index: Index) -> Option<Value> {
        Some(Value::loss((index % EXIT_GENERATIONS) as u32))
    }
}

/// The plan of every table of `variants` and of the tables they depend on, in build order.
pub fn make_plan<F: Family>(
    family: &F,
    variants: &[F::Variant],
    budget: u64,
    threads: usize,
) -> Result<Plan> {
    let order = build_order(family, variants);
    let mut tables: Vec<TablePlan> = Vec::with_capacity(order.len());
    let mut index_of: HashMap<F::Table, usize> = HashMap::new();
    for table in &order {
        let dependencies = family.dependencies(table);
        let mut sub = SubTables::new();
        for d in &dependencies {
            sub.insert(d.clone(), &ExitsWin);
        }
        let game = family
            .game(table, &sub)
            .map_err(|e| anyhow!("{} {}: {e}", family.about().name, family.table_name(table)))?;
        let earlier: Vec<&TablePlan> = dependencies.iter().map(|d| &tables[index_of[d]]).collect();
        let sub_table_bytes: u64 = earlier
            .iter()
            .map(|t| DenseValues::bytes_for(t.stored))
            .sum();
        let indices = game.size();
        let stored = family.stored(&game);
        let writing = write_options(family, table, &Choices::default());
        let overhead_bytes = reserved_overhead(stored, threads, &writing);
        let least_overhead_bytes = reserved_overhead(stored, 1, &writing);
        let options = SolveOptions {
            convention: family.convention(table),
            memory: Some(budget.saturating_sub(sub_table_bytes.saturating_add(overhead_bytes))),
            ..Default::default()
        };
        let engine = retro_engine::estimate(&game, &options)
            .map_err(|e| anyhow!("{} {}: {e}", family.about().name, family.table_name(table)))?;
        let rates = family.rates(table);
        tables.push(TablePlan {
            name: family.table_name(table),
            dependencies: earlier.iter().map(|t| t.name.clone()).collect(),
            level: earlier.iter().map(|t| t.level + 1).max().unwrap_or(0),
            indices,
            stored,
            sub_table_bytes,
            overhead_bytes,
            least_overhead_bytes,
            in_memory_bytes: engine
                .in_memory_bytes
                .saturating_add(sub_table_bytes)
                .saturating_add(overhead_bytes),
            engine,
            file_bytes: (stored as f64 * rates.file_bytes_per_index) as u64,
            seconds: seconds(indices, &rates, threads, engine.sliced),
        });
        index_of.insert(table.clone(), tables.len() - 1);
    }
    Ok(Plan {
        game: family.about().name,
        budget,
        threads,
        tables,
    })
}

/// The estimated wall time of a build of `indices` with `threads` threads.
fn seconds(indices: Index, rates: &Rates, threads: usize, sliced: bool) -> f64 {
    let slowdown = if sliced { OUT_OF_CORE_SLOWDOWN } else { 1.0 };
    indices as f64 / (rates.indices_per_second * threads as f64) * slowdown
}

/// A byte count for people: `1.5 GB`, `12 MB`, `730 kB`.
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e12 {
        format!("{:.1} TB", b / 1e12)
    } else if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.0} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

/// A duration for people: `42 s`, `12 min`, `3.5 h`, `4.2 d`.
pub fn human_seconds(seconds: f64) -> String {
    if seconds < 1.0 {
        format!("{seconds:.2} s")
    } else if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else if seconds < 172_800.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else {
        format!("{:.1} d", seconds / 86400.0)
    }
}

/// The plan as a table for people, with its totals.
pub fn plan_text(plan: &Plan) -> String {
    let mut out = format!(
        "{} tables of {}, in build order; each build with a memory budget of {} and {} threads\n",
        plan.tables.len(),
        plan.game,
        human_bytes(plan.budget),
        plan.threads
    );
    let width = plan
        .tables
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(5)
        .max(5);
    out.push_str(&format!(
        "{:<width$} {:>5} {:>14} {:>9} {:>9} {:>12} {:>9} {:>9} {:>8}  depends on\n",
        "table", "level", "indices", "memory", "sub", "build", "scratch", "files", "time"
    ));
    for t in &plan.tables {
        let build = if !t.fits(plan.budget) {
            format!("needs {}", human_bytes(t.minimum_bytes()))
        } else if t.engine.sliced {
            format!("{} slices", t.engine.slices)
        } else {
            "in memory".to_string()
        };
        let deps = if t.dependencies.is_empty() {
            "-".to_string()
        } else {
            t.dependencies.join(" ")
        };
        out.push_str(&format!(
            "{:<width$} {:>5} {:>14} {:>9} {:>9} {:>12} {:>9} {:>9} {:>8}  {deps}\n",
            t.name,
            t.level,
            t.indices,
            human_bytes(t.in_memory_bytes),
            human_bytes(t.sub_table_bytes),
            build,
            human_bytes(t.engine.scratch_bytes),
            human_bytes(t.file_bytes),
            human_seconds(t.seconds),
        ));
    }
    let indices: u64 = plan.tables.iter().map(|t| t.indices).sum();
    let files: u64 = plan.tables.iter().map(|t| t.file_bytes).sum();
    let sliced = plan.tables.iter().filter(|t| t.engine.sliced).count();
    let peak = plan
        .tables
        .iter()
        .map(|t| t.memory_request(plan.budget))
        .max()
        .unwrap_or(0);
    let scratch = plan
        .tables
        .iter()
        .map(|t| t.engine.scratch_bytes)
        .max()
        .unwrap_or(0);
    let unfit: Vec<&TablePlan> = plan
        .tables
        .iter()
        .filter(|t| !t.fits(plan.budget))
        .collect();
    if let Some(largest) = unfit.iter().max_by_key(|t| t.minimum_bytes()) {
        out.push_str(&format!(
            "{} tables cannot build within {}: the sub-tables they read whole, the writer and the engine's least need \
             more (the most, {}, needs {})\n",
            unfit.len(),
            human_bytes(plan.budget),
            largest.name,
            human_bytes(largest.minimum_bytes())
        ));
    }
    out.push_str(&format!(
        "total: {indices} indices; {sliced} of {} tables out of core; largest memory request {}; scratch at most {}; \
         files {}; time {} one after the other, {} along the longest chain of dependencies (levels: {})\n",
        plan.tables.len(),
        human_bytes(peak),
        human_bytes(scratch),
        human_bytes(files),
        human_seconds(plan.total_seconds()),
        human_seconds(plan.critical_path_seconds()),
        plan.tables.iter().map(|t| t.level + 1).max().unwrap_or(0),
    ));
    out
}

/// The plan as JSON.
pub fn plan_json(plan: &Plan) -> String {
    let tables: Vec<String> = plan
        .tables
        .iter()
        .map(|t| {
            let deps: Vec<String> = t.dependencies.iter().map(|d| json::string(d)).collect();
            format!(
                "{{\"name\":{},\"level\":{},\"dependencies\":[{}],\"indices\":{},\"stored\":{},\"memory_bytes\":{},\
                 \"memory_request_bytes\":{},\"minimum_bytes\":{},\"fits\":{},\"engine_bytes\":{},\"sub_table_bytes\":{},\"overhead_bytes\":{},\"sliced\":{},\"slices\":{},\
                 \"scratch_bytes\":{},\"file_bytes\":{},\"seconds\":{:.3}}}",
                json::string(&t.name),
                t.level,
                deps.join(","),
                t.indices,
                t.stored,
                t.in_memory_bytes,
                t.memory_request(plan.budget),
                t.minimum_bytes(),
                t.fits(plan.budget),
                t.engine.in_memory_bytes,
                t.sub_table_bytes,
                t.overhead_bytes,
                t.engine.sliced,
                t.engine.slices,
                t.engine.scratch_bytes,
                t.file_bytes,
                t.seconds
            )
        })
        .collect();
    format!(
        "{{\"game\":{},\"memory_budget\":{},\"threads\":{},\"tables\":[{}],\"total_seconds\":{:.3},\
         \"critical_path_seconds\":{:.3}}}",
        json::string(plan.game),
        plan.budget,
        plan.threads,
        tables.join(","),
        plan.total_seconds(),
        plan.critical_path_seconds()
    )
}

/// Whether `dir` holds both files of a table under their final names (a table is written under a temporary name
/// and renamed when complete, so a file under its final name is a finished one; `verify` checks it further).
pub fn files_present(dir: &Path, game: &str, name: &str) -> bool {
    use retro_probe::format::{FileKind, table_path};
    [FileKind::Wdl, FileKind::Distance]
        .into_iter()
        .all(|kind| table_path(dir, game, name, kind).exists())
}
