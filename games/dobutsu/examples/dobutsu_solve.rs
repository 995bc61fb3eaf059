//! Solves the whole of Dobutsu shogi with the engine alone (no reachable search, no files) and checks the result:
//! the engine's certificate over every index, then a million random legal positions played by the rules on the
//! board. Usage: `cargo run --release -p retro-dobutsu --example dobutsu_solve [-- THREADS]`.
use std::time::Instant;

use retro_dobutsu::analysis::{check_positions, position_value, table_counts};
use retro_dobutsu::{DobutsuGame, Position};
use retro_engine::{PlayConvention, Progress, SolveOptions, certify, solve_with_progress};

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
    pool.install(|| {
        let solution = solve_with_progress(&game, &SolveOptions::default(), &|p| {
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
        .expect("the solve succeeds");
        println!(
            "threads {threads}: solved in {:.1} s",
            start.elapsed().as_secs_f64()
        );
        println!("{:?}", solution.stats());
        let value = |i| solution.value(i);
        let p = Position::startpos();
        println!(
            "startpos {p}: {}",
            position_value(game.indexer(), p.board(), value).expect("a value")
        );
        println!(
            "counts over the table's numbering (stored and won in 1): {:?}",
            table_counts(game.indexer(), value)
        );
        let t = Instant::now();
        let certified =
            certify(&game, PlayConvention::Normal, value).expect("the certificate holds");
        println!(
            "certified {certified} positions in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        let t = Instant::now();
        check_positions(game.indexer(), value, 1_000_000, 1)
            .expect("random positions agree with their moves");
        println!(
            "1000000 random legal positions agree with their moves ({:.1} s)",
            t.elapsed().as_secs_f64()
        );
    });
}
