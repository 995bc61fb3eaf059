//! The `retro` command line: a thin layer over the libraries. The table commands (`generate`, `probe`, `info`,
//! `verify`, `games`) are written once for every game in `retro-driver`; this file only parses their arguments.
//! The graph commands that build no table (`solve`, `grundy`, `sum`) live in their own modules.

mod graph_file;
mod grundy;
mod solve;
mod sum;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use retro_driver::generate::GenerateArgs;
use retro_driver::plan::PlanArgs;
use retro_driver::repack::RepackArgs;
use retro_driver::slurm::{StatusArgs, SubmitArgs};
use retro_driver::verify::VerifyArgs;
use retro_driver::{EngineArgs, json, parse_size};
use retro_family::Flags;

/// retro: endgame tablebases by retrograde analysis.
#[derive(Parser, Debug)]
#[command(name = "retro", version, about, max_term_width = 110)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Solve a graph game and print every position's value (or the totals).
    Solve(solve::SolveArgs),
    /// Solve a game and write its tables (a win/draw/loss file and a distance file per table): `retro generate
    /// GAME [VARIANT] --out DIR` (`retro games` lists the games and their variants).
    Generate(Generate),
    /// Probe a position in the tables: its value, every move's value best first, and the best line.
    Probe(Probe),
    /// Everything a table's header says, its sizes and histogram; for a variant of several tables, their totals.
    Info(Info),
    /// Check every checksum of a variant's tables and certify every position's value from its moves.
    Verify(Verify),
    /// Write a variant's tables again from their values, with other options (`--compact`, `--one-side`, or
    /// neither), without solving them again.
    Repack(Repack),
    /// The games retro knows, the syntax of their variants and an example position.
    Games(Games),
    /// Generalized Sprague–Grundy values of an impartial graph game (loopy games allowed).
    Grundy(grundy::GrundyArgs),
    /// The outcome of a sum of impartial graph games, and a winning move: `retro sum FILE:POS FILE:POS ...`.
    Sum(sum::SumArgs),
    /// Every table a `generate` would build, in order, with its dependencies, index size, memory, disk needs and an
    /// estimate of its time, before building any.
    Plan(Plan),
    /// Build the tables on a Slurm cluster, one job per table after the jobs of its sub-tables.
    #[command(subcommand)]
    Slurm(Slurm),
    /// Serve the tables over HTTP: lichess's tablebase API (`/standard?fen=FEN`, `/GAME?position=TEXT`, `/games`)
    /// and a page to explore them at `/`.
    Serve(Serve),
}

#[derive(Args, Debug)]
struct Generate {
    /// The game (see `retro games`).
    game: String,
    /// The variant, as the game takes it: a chess material (KQvKR), a graph file, a board (6x5); none for a game
    /// with one variant.
    variant: Vec<String>,
    /// Every variant up to N (chess: every material of 3 to N men) instead of one.
    #[arg(long, value_name = "N")]
    all: Option<u32>,
    /// The directory of tables (a table goes to DIR/GAME/NAME.rwdl and .rdst).
    #[arg(long)]
    out: PathBuf,
    /// Misère play (graph games): the player who cannot move wins.
    #[arg(long)]
    misere: bool,
    /// The graph file is an edge list (`u v` per line, positions 0..n-1).
    #[arg(long)]
    edges: bool,
    /// Write the smallest files (the distance file at zstd's level 19, blocks also tried transposed): for tables
    /// that ship. Writing then takes several times as long.
    #[arg(long)]
    compact: bool,
    /// Distance files of one side to move, the smaller (chess): about half the bytes; a probe of the other side
    /// searches its moves (format version 5, which older readers refuse).
    #[arg(long)]
    one_side: bool,
    /// Values per block of the distance files (a power of two from 1024): smaller blocks make a probe whose block
    /// is not cached faster, as it decompresses the whole block, and the files larger. Default: 2^22 for tables of up
    /// to 2^24 indices, else 2^14 (2^16 with `--compact`).
    #[arg(long, value_name = "VALUES")]
    distance_block: Option<u32>,
    /// After the tables, count the positions reachable from the start (folded and unfolded, with their values)
    /// for `info`.
    #[arg(long)]
    census: bool,
    /// Build only this table of the variant (by name, as `retro plan` lists them); the tables it depends on must be
    /// in the directory already. What one job of `retro slurm submit` runs.
    #[arg(long, value_name = "NAME")]
    table: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
}

/// The tables a plan or a submission covers: a variant's DAG, or every variant up to N.
#[derive(Args, Debug)]
struct TablesOf {
    /// The game (see `retro games`).
    game: String,
    /// The variant, as `generate` takes it.
    variant: Vec<String>,
    /// Every variant up to N (chess: every material of 3 to N men).
    #[arg(long, value_name = "N")]
    all: Option<u32>,
    /// Misère play (graph games).
    #[arg(long)]
    misere: bool,
    /// The graph file is an edge list.
    #[arg(long)]
    edges: bool,
}

impl TablesOf {
    fn flags(&self) -> Flags {
        Flags {
            misere: self.misere,
            edges: self.edges,
        }
    }
}

#[derive(Args, Debug)]
struct Plan {
    #[command(flatten)]
    tables_of: TablesOf,
    /// The memory budget of each build (default: half the RAM, or of the memory cgroup's limit).
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    memory: Option<u64>,
    /// The threads of each build (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand, Debug)]
enum Slurm {
    /// Submit one job per table (writing the batch scripts to DIR/slurm/), each after the jobs of the tables it
    /// depends on; tables already in DIR are skipped, jobs still queued from an earlier submit are kept.
    Submit(SlurmSubmit),
    /// What is done, running, pending and failed of the jobs submitted for DIR.
    Status(SlurmStatus),
}

#[derive(Args, Debug)]
struct SlurmSubmit {
    #[command(flatten)]
    tables_of: TablesOf,
    /// The tables directory, shared by every node.
    #[arg(long)]
    tables: PathBuf,
    /// The Slurm partition of the jobs.
    #[arg(long)]
    partition: Option<String>,
    /// The most memory one job asks for (default: half this machine's RAM); a table needing more in memory builds
    /// out of core within it.
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    memory: Option<u64>,
    /// Cores per job (the threads of each build).
    #[arg(long, default_value_t = 1)]
    cpus: usize,
    /// Only write the batch scripts and DIR/slurm/submit.sh, which submits them in order.
    #[arg(long)]
    dry_run: bool,
    /// The retro binary the jobs run, where every node sees it (default: this one).
    #[arg(long, value_name = "PATH")]
    retro: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct SlurmStatus {
    /// The tables directory given to `retro slurm submit`.
    #[arg(long)]
    tables: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct Probe {
    /// The directory of tables (as given to `generate --out`).
    #[arg(long)]
    tables: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// The game.
    game: String,
    /// The position in the game's notation (a FEN, `startpos`, `6x5:4453`, a graph's `NAME POSITION`).
    #[arg(required = true, num_args = 1..)]
    position: Vec<String>,
}

#[derive(Args, Debug)]
struct Info {
    /// The directory of tables.
    #[arg(long)]
    tables: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// The game.
    game: String,
    /// The variant, as `generate` takes it (a graph: its table's name).
    variant: Vec<String>,
}

#[derive(Args, Debug)]
struct Verify {
    /// The directory of tables.
    #[arg(long)]
    tables: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// The most memory for reading tables whole, e.g. 16G (default: half the RAM). A larger table is read block by
    /// block through a cache, which is much slower.
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    memory: Option<u64>,
    /// The game.
    game: String,
    /// The variant, as `generate` takes it (a graph: its table's name).
    variant: Vec<String>,
}

#[derive(Args, Debug)]
struct Repack {
    /// The directory of tables, rewritten in place.
    #[arg(long)]
    tables: PathBuf,
    /// Every variant up to N (chess: every material of 3 to N men) instead of one.
    #[arg(long, value_name = "N")]
    all: Option<u32>,
    /// Misère play (graph games): the tables of the misère variant.
    #[arg(long)]
    misere: bool,
    /// The smallest files, as `generate --compact` writes them.
    #[arg(long)]
    compact: bool,
    /// Distance files of one side to move, as `generate --one-side` writes them; without it, of both sides.
    #[arg(long)]
    one_side: bool,
    /// Values per block of the distance files, as `generate --distance-block` takes it.
    #[arg(long, value_name = "VALUES")]
    distance_block: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// The game.
    game: String,
    /// The variant, as `generate` takes it (a graph: its table's name).
    variant: Vec<String>,
}

#[derive(Args, Debug)]
struct Serve {
    /// The directory of tables.
    #[arg(long)]
    tables: PathBuf,
    /// The address to listen on.
    #[arg(long, default_value = retro_server::DEFAULT_BIND, value_name = "ADDR:PORT")]
    bind: String,
}

#[derive(Args, Debug)]
struct Games {
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn games(args: &Games) -> Result<()> {
    let all = retro_driver::families();
    if args.json {
        let items = all
            .iter()
            .map(|a| {
                format!(
                    "{{\"name\":{},\"summary\":{},\"variants\":{},\"example_variant\":{},\"example_position\":{}}}",
                    json::string(a.name),
                    json::string(a.summary),
                    json::string(a.variants),
                    json::string(a.example_variant),
                    json::string(a.example_position)
                )
            })
            .collect::<Vec<_>>()
            .join(",");
        println!("[{items}]");
        return Ok(());
    }
    for a in all {
        println!("{:<10} {}", a.name, a.summary);
        if !a.variants.is_empty() {
            println!(
                "{:<10} variants: {} (e.g. {})",
                "", a.variants, a.example_variant
            );
        }
        println!("{:<10} position: {}", "", a.example_position);
    }
    Ok(())
}

/// Lets a closed pipe end retro quietly, as it ends `cat` or `grep`. Rust's runtime ignores SIGPIPE, so printing to
/// a reader that has gone (`retro info … | head`) would make `println!` panic instead.
#[cfg(unix)]
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: called first in `main`, before any other thread exists; giving a signal its default action touches no
    // memory of the program.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_on_a_closed_pipe() {}

fn main() -> ExitCode {
    end_quietly_on_a_closed_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(args) => solve::run(&args),
        Command::Generate(g) => retro_driver::generate::generate(&GenerateArgs {
            game: g.game,
            variant: g.variant,
            all: g.all,
            out: g.out,
            flags: Flags {
                misere: g.misere,
                edges: g.edges,
            },
            compact: g.compact,
            one_side: g.one_side,
            distance_block: g.distance_block,
            census: g.census,
            table: g.table,
            engine: g.engine,
        }),
        Command::Plan(p) => retro_driver::plan::plan(&PlanArgs {
            flags: p.tables_of.flags(),
            game: p.tables_of.game,
            variant: p.tables_of.variant,
            all: p.tables_of.all,
            memory: p.memory,
            threads: p.threads,
            json: p.json,
        }),
        Command::Slurm(Slurm::Submit(s)) => retro_driver::slurm::submit(&SubmitArgs {
            flags: s.tables_of.flags(),
            variant: s.tables_of.variant,
            all: s.tables_of.all,
            partition: s.partition,
            memory: s.memory,
            cpus: s.cpus,
            dry_run: s.dry_run,
            retro: s.retro,
            ..SubmitArgs::new(&s.tables_of.game, &s.tables)
        })
        .map(|_| ()),
        Command::Slurm(Slurm::Status(s)) => retro_driver::slurm::status(&StatusArgs {
            tables: s.tables,
            json: s.json,
            squeue: "squeue".into(),
            sacct: "sacct".into(),
        })
        .map(|_| ()),
        Command::Probe(p) => retro_driver::probe::probe(&p.tables, &p.game, &p.position, p.json),
        Command::Info(i) => retro_driver::info::info(&i.tables, &i.game, &i.variant, i.json),
        Command::Verify(v) => retro_driver::verify::verify(
            &v.tables,
            &VerifyArgs {
                game: v.game,
                variant: v.variant,
                threads: v.threads,
                memory: v.memory,
            },
        )
        .map(|_| ()),
        Command::Repack(r) => retro_driver::repack::repack(&RepackArgs {
            game: r.game,
            variant: r.variant,
            all: r.all,
            tables: r.tables,
            flags: Flags {
                misere: r.misere,
                edges: false,
            },
            compact: r.compact,
            one_side: r.one_side,
            distance_block: r.distance_block,
            threads: r.threads,
        }),
        Command::Games(g) => games(&g),
        Command::Grundy(args) => grundy::run(&args),
        Command::Sum(args) => sum::run(&args),
        Command::Serve(s) => retro_server::serve(&s.tables, &s.bind),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // One line: the error and its causes.
            eprintln!("retro: {error:#}");
            ExitCode::FAILURE
        }
    }
}
