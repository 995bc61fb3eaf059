//! `retro solve`: solve a graph game given as a file and print every position's value, or the totals.

use std::io::{BufWriter, Write};

use anyhow::{Context, Result};
use clap::Args;
use retro_engine::{PlayConvention, Solution, Value};
use retro_graph::{Graph, GraphGame, Player};

use crate::graph_file::GraphFile;
use retro_driver::EngineArgs;
use retro_driver::json;

#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub graph: GraphFile,
    /// Misère play: the player who cannot move wins.
    #[arg(long)]
    pub misere: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Print only the totals.
    #[arg(long)]
    pub summary: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(args: &SolveArgs) -> Result<()> {
    let graph = args.graph.read()?;
    let game = graph.game();
    let solution = args
        .engine
        .solve(&game, convention(args.misere), "solving", None)?;
    let stdout = std::io::stdout().lock();
    let mut out = BufWriter::with_capacity(1 << 20, stdout);
    match (args.summary, args.json) {
        (true, true) => print_summary_json(&mut out, &graph, &solution)?,
        (true, false) => print_summary(&mut out, &graph, &solution)?,
        (false, true) => print_json(&mut out, &game, &solution)?,
        (false, false) => print_table(&mut out, &game, &solution)?,
    }
    out.flush().context("cannot write the output")
}

pub fn convention(misere: bool) -> PlayConvention {
    if misere {
        PlayConvention::Misere
    } else {
        PlayConvention::Normal
    }
}

fn value_of(game: &GraphGame, solution: &Solution, position: u32, mover: Player) -> Value {
    solution
        .value(game.index(position, mover))
        .expect("a graph has no holes")
}

fn print_json(out: &mut impl Write, game: &GraphGame, solution: &Solution) -> Result<()> {
    let graph = game.graph();
    out.write_all(b"{\"positions\":[")?;
    for p in 0..graph.positions() as u32 {
        if p > 0 {
            out.write_all(b",")?;
        }
        let name = json::string(&graph.name(p).to_string());
        if graph.is_partizan() {
            let left = value_of(game, solution, p, Player::Left);
            let right = value_of(game, solution, p, Player::Right);
            write!(
                out,
                "{{\"name\":{name},\"left\":{{{}}},\"right\":{{{}}}}}",
                json::value_fields(left),
                json::value_fields(right)
            )?;
        } else {
            let v = value_of(game, solution, p, Player::Left);
            write!(out, "{{\"name\":{name},{}}}", json::value_fields(v))?;
        }
    }
    out.write_all(b"]}\n")?;
    Ok(())
}

fn describe(v: Value) -> String {
    match v.plies() {
        Some(p) => format!("{:<5} {p:>6}", v.outcome().as_str()),
        None => format!("{:<5} {:>6}", "draw", "-"),
    }
}

fn print_table(out: &mut impl Write, game: &GraphGame, solution: &Solution) -> Result<()> {
    let graph = game.graph();
    let width = (0..graph.positions() as u32)
        .take(10_000)
        .map(|p| graph.name(p).to_string().len())
        .max()
        .unwrap_or(8)
        .max(8);
    if graph.is_partizan() {
        writeln!(
            out,
            "{:<width$}  {:<12}  {:<12}",
            "position", "Left first", "Right first"
        )?;
        for p in 0..graph.positions() as u32 {
            let left = describe(value_of(game, solution, p, Player::Left));
            let right = describe(value_of(game, solution, p, Player::Right));
            writeln!(
                out,
                "{:<width$}  {left}  {right}",
                graph.name(p).to_string()
            )?;
        }
    } else {
        writeln!(out, "{:<width$}  {:<5} {:>6}", "position", "value", "plies")?;
        for p in 0..graph.positions() as u32 {
            let v = describe(value_of(game, solution, p, Player::Left));
            writeln!(out, "{:<width$}  {v}", graph.name(p).to_string())?;
        }
    }
    Ok(())
}

fn print_summary_json(out: &mut impl Write, graph: &Graph, solution: &Solution) -> Result<()> {
    let s = solution.stats();
    writeln!(
        out,
        "{{\"positions\":{},\"moves\":{},\"win\":{},\"loss\":{},\"draw\":{},\"max_plies\":{},\"sum_plies\":{}}}",
        s.positions,
        graph.moves(),
        s.wins,
        s.losses,
        s.draws,
        s.max_plies,
        s.sum_plies
    )?;
    Ok(())
}

fn print_summary(out: &mut impl Write, graph: &Graph, solution: &Solution) -> Result<()> {
    let s = solution.stats();
    let unit = if graph.is_partizan() {
        "(position, mover) pairs"
    } else {
        "positions"
    };
    writeln!(out, "{} {unit}, {} moves", s.positions, graph.moves())?;
    writeln!(out, "win   {}", s.wins)?;
    writeln!(out, "loss  {}", s.losses)?;
    writeln!(out, "draw  {}", s.draws)?;
    writeln!(
        out,
        "longest {} plies, sum of plies {}",
        s.max_plies, s.sum_plies
    )?;
    Ok(())
}
