//! Runs only the search of the positions reachable from the start, printing every ply with its time: for measuring
//! the search on its own. Usage: `reachable [THREADS]`.
use std::time::Instant;

use retro_dobutsu::Indexer;
use retro_dobutsu::analysis::Reachable;

fn main() {
    let threads: usize = std::env::args()
        .nth(1)
        .map_or(2, |t| t.parse().expect("a thread count"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let start = Instant::now();
    let table = Indexer::new();
    let reachable = pool.install(|| {
        Reachable::search_with_progress(&table, &|depth, new| {
            eprintln!(
                "[{:6.1}s] ply {depth}: {new} new",
                start.elapsed().as_secs_f64()
            )
        })
    });
    println!(
        "threads {threads}: {} (position, side to move) pairs, depth {}, in {:.1} s",
        reachable.with_side,
        reachable.depth,
        start.elapsed().as_secs_f64()
    );
}
