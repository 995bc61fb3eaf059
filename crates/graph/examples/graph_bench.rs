//! Measures the graph side on big random graphs.
//!
//! ```text
//! cargo run --release -p retro-graph --example graph_bench -- gen N LAMBDA P_DOWN SEED OUT.edges
//! cargo run --release -p retro-graph --example graph_bench -- parse FILE.edges THREADS
//! cargo run --release -p retro-graph --example graph_bench -- bench FILE.edges THREADS [--check]
//! ```
//!
//! `gen` writes a random edge list (see `retro_graph::random`); `parse` only reads it; `bench` reads it and computes its Grundy values in
//! a pool of THREADS threads, printing the time of each step; `--check` also solves the graph with the engine and
//! checks that every position's outcome from γ is the engine's.

use std::path::Path;
use std::time::Instant;

use retro_game::Outcome;
use retro_graph::grundy::GrundyValues;
use retro_graph::{Format, Graph};

type Error = Box<dyn std::error::Error + Send + Sync>;

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["gen", n, lambda, p_down, seed, out] => {
            let start = Instant::now();
            let file = std::fs::File::create(out)?;
            let moves = retro_graph::random::write_edges(
                n.parse()?,
                lambda.parse()?,
                p_down.parse()?,
                seed.parse()?,
                file,
            )?;
            println!(
                "wrote {moves} moves to {out} in {:.2} s",
                start.elapsed().as_secs_f64()
            );
        }
        ["parse", file, threads] => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads.parse()?)
                .build()?;
            let start = Instant::now();
            let graph = pool.install(|| Graph::read(Path::new(file), Format::Edges))?;
            println!(
                "threads {threads}: parsed {} positions, {} moves in {:.2} s",
                graph.positions(),
                graph.moves(),
                start.elapsed().as_secs_f64()
            );
        }
        ["bench", file, threads, rest @ ..] => {
            let check = match rest {
                [] => false,
                ["--check"] => true,
                _ => return Err("bench takes FILE THREADS [--check]".into()),
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads.parse()?)
                .build()?;
            pool.install(|| bench(file, threads, check))?;
        }
        _ => {
            return Err(
                "usage: graph_bench gen N LAMBDA P_DOWN SEED OUT | parse FILE THREADS | bench FILE THREADS [--check]".into(),
            );
        }
    }
    Ok(())
}

/// Reads, computes γ, and with `check` compares the single-game outcomes γ gives with the engine's.
fn bench(file: &str, threads: &str, check: bool) -> Result<(), Error> {
    let start = Instant::now();
    let graph = Graph::read(Path::new(file), Format::Edges)?;
    let parse = start.elapsed().as_secs_f64();
    println!(
        "threads {threads}: parsed {} positions, {} moves in {parse:.2} s",
        graph.positions(),
        graph.moves()
    );
    let start = Instant::now();
    let values = GrundyValues::compute(&graph)?;
    let grundy = start.elapsed().as_secs_f64();
    println!(
        "threads {threads}: grundy in {grundy:.2} s ({:.0} positions/s), largest finite value {:?}, \
         {} positions of value ∞",
        graph.positions() as f64 / grundy,
        values.max_finite(),
        values.infinite_count()
    );
    let n = graph.positions() as u32;
    let outcomes: Vec<Outcome> = (0..n).map(|p| values.outcome(p)).collect();
    let count = |o| outcomes.iter().filter(|&&x| x == o).count();
    println!(
        "outcomes from γ: win {}, loss {}, draw {}",
        count(Outcome::Win),
        count(Outcome::Loss),
        count(Outcome::Draw)
    );
    if check {
        let start = Instant::now();
        let solution = retro_engine::solve(&graph.game(), &retro_engine::SolveOptions::default())?;
        let disagreements = (0..n)
            .filter(|&p| {
                solution.value(p as u64).map(|v| v.outcome()) != Some(outcomes[p as usize])
            })
            .count();
        println!(
            "engine solved in {:.2} s; positions where γ's outcome differs from the engine's: {disagreements}",
            start.elapsed().as_secs_f64()
        );
        if disagreements > 0 {
            return Err("γ disagrees with the engine".into());
        }
    }
    Ok(())
}
