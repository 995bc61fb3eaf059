//! Solves the whole of Dobutsu shogi with the engine and prints the figures (used by `scripts/dobutsu-solve.sh`).
//! Usage: `solve [THREADS]`.
use std::time::Instant;

use retro_dobutsu::{DobutsuGame, Position, excluded_value};
use retro_engine::{Progress, SolveOptions, solve_with_progress};

fn main() {
    let threads: usize = std::env::args()
        .nth(1)
        .map_or(2, |t| t.parse().expect("a thread count"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let start = Instant::now();
    let game = DobutsuGame::new();
    let solution = pool
        .install(|| {
            solve_with_progress(&game, &SolveOptions::default(), &|p| {
                if let Progress::Generation {
                    generation,
                    frontier,
                    resolved,
                } = p
                {
                    eprintln!(
                        "[{:6.1}s] generation {generation}: {frontier} new, {resolved} resolved",
                        start.elapsed().as_secs_f64()
                    );
                }
            })
        })
        .expect("the solve succeeds");
    let elapsed = start.elapsed();
    let stats = solution.stats();
    println!(
        "threads {threads}: solved in {:.1} s",
        elapsed.as_secs_f64()
    );
    println!("{stats:?}");
    let p = Position::startpos();
    let value = excluded_value(p.board())
        .or_else(|| {
            game.indexer()
                .encode(p.board())
                .and_then(|i| solution.value(i))
        })
        .expect("the start is a position");
    println!("startpos {p}: {value}");
}
