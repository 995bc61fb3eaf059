//! Runs only the search of the positions reachable from the start, printing every ply with its time: for measuring
//! the search on its own. Usage: `reachable [THREADS]`.
use std::time::Instant;

use retro_dobutsu::Indexer;
use retro_dobutsu::analysis::Reachable;

/// The CPU time of this process so far, in seconds (user + system, from /proc; 0 where there is none): with other
/// work on the machine, it says more about the search than the wall time.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // The fields after the command name (which is in parentheses): utime and stime are the 12th and 13th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11..13]
        .iter()
        .filter_map(|f| f.parse::<f64>().ok())
        .sum();
    ticks / 100.0
}

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
                "[{:6.1}s wall, {:6.1}s cpu] ply {depth}: {new} new",
                start.elapsed().as_secs_f64(),
                cpu_seconds()
            )
        })
    });
    println!(
        "threads {threads}: {} (position, side to move) pairs, depth {}, in {:.1} s ({:.1} s of CPU)",
        reachable.with_side,
        reachable.depth,
        start.elapsed().as_secs_f64(),
        cpu_seconds()
    );
}
