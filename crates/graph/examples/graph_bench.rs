//! Measures the graph side on big random graphs.
//!
//! ```text
//! cargo run --release -p retro-graph --example graph_bench -- gen N LAMBDA P_DOWN SEED OUT.edges
//! cargo run --release -p retro-graph --example graph_bench -- bench FILE.edges THREADS
//! ```
//!
//! `gen` writes a random edge list (see `retro_graph::random`); `bench` reads it and computes its Grundy values in
//! a pool of THREADS threads, printing the time of each step.

use std::path::Path;
use std::time::Instant;

use retro_graph::grundy::GrundyValues;
use retro_graph::{Format, Graph};

fn main() -> Result<(), Box<dyn std::error::Error>> {
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
        ["bench", file, threads] => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads.parse()?)
                .build()?;
            pool.install(|| -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
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
                    "threads {threads}: grundy in {grundy:.2} s ({:.0} positions/s), largest finite value {:?}, {} positions of value ∞",
                    graph.positions() as f64 / grundy,
                    values.max_finite(),
                    values.infinite_count()
                );
                Ok(())
            })
            .map_err(|e| e.to_string())?;
        }
        _ => {
            return Err(
                "usage: graph_bench gen N LAMBDA P_DOWN SEED OUT | graph_bench bench FILE THREADS"
                    .into(),
            );
        }
    }
    Ok(())
}
