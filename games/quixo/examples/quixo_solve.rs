//! Solves every tier of a Quixo board with the engine, in memory, and prints the time, the sizes and the value of
//! the start: `cargo run --release -p retro-quixo --example quixo_solve [-- 4x4]` (threads: `RAYON_NUM_THREADS`).

use std::time::Instant;

use retro_engine::{SolveOptions, solve};
use retro_family::{Family, Flags, Game, Location, SubTables, Values};
use retro_quixo::Quixo;

fn main() -> Result<(), String> {
    let words: Vec<String> = std::env::args().skip(1).collect();
    let words = if words.is_empty() {
        vec!["4x4".to_string()]
    } else {
        words
    };
    let size = Quixo.parse_variant(&words, &Flags::default())?;
    let start = Instant::now();
    // The tables the classes need are built once per board size: time them apart.
    retro_quixo::index::classes(size.0.into());
    println!("{size}: class tables built in {:.2?}", start.elapsed());
    println!(
        "{:>6} {:>11} {:>11} {:>10} {:>10} {:>10} {:>6} {:>9}",
        "cubes", "indices", "positions", "wins", "losses", "draws", "plies", "seconds"
    );
    let (mut indices, mut positions) = (0u64, 0u64);
    let mut previous = None;
    for table in Quixo.tables(&size) {
        let t0 = Instant::now();
        // The game borrows the previous solution through `sub`: both end with this block, before it is replaced.
        let (size, solution) = {
            let mut sub = SubTables::new();
            if let Some(values) = &previous {
                sub.insert(Quixo.dependencies(&table)[0], values as &dyn Values);
            }
            let game = Quixo.game(&table, &sub)?;
            let solution = solve(&game, &SolveOptions::default()).map_err(|e| e.to_string())?;
            (game.size(), solution)
        };
        let stats = solution.stats().clone();
        println!(
            "{:>6} {:>11} {:>11} {:>10} {:>10} {:>10} {:>6} {:>9.2}",
            table.cubes,
            size,
            stats.positions,
            stats.wins,
            stats.losses,
            stats.draws,
            stats.max_plies,
            t0.elapsed().as_secs_f64()
        );
        indices += size;
        positions += stats.positions;
        previous = Some(solution);
    }
    let elapsed = start.elapsed();
    let start_position = Quixo.start(&size).expect("a start");
    let Location::Stored { index, .. } = Quixo.locate(&start_position)? else {
        return Err("the start is not stored".into());
    };
    let value = previous.expect("tier 0").value(index).expect("a position");
    println!(
        "{size}: {indices} indices, {positions} positions, solved in {:.2} s with {} threads; start: {value} (X to move)",
        elapsed.as_secs_f64(),
        rayon::current_num_threads()
    );
    Ok(())
}
