//! Solves every tier of a board in memory and prints the time each took and the start's value: a benchmark of the
//! tiers as the engine sees them, without the driver's files.
//!
//! `cargo run --release -p retro-connect4 --example connect4_solve -- 5x4`

use std::collections::HashMap;
use std::time::Instant;

use retro_connect4::{ConnectFour, Shape};
use retro_engine::{SolveOptions, solve};
use retro_family::{Family, Location, SubTables, Values};

fn main() {
    let word = std::env::args().nth(1).unwrap_or_else(|| "5x4".into());
    let shape = Shape::parse(&word).unwrap_or_else(|e| panic!("{e}"));
    let all = Instant::now();
    let mut solved: HashMap<retro_connect4::Tier, retro_engine::Solution> = HashMap::new();
    for tier in ConnectFour.tables(&shape) {
        let started = Instant::now();
        let solution = {
            let mut sub = SubTables::new();
            for dep in ConnectFour.dependencies(&tier) {
                sub.insert(dep, &solved[&dep] as &dyn Values);
            }
            let game = ConnectFour.game(&tier, &sub).unwrap();
            solve(&game, &SolveOptions::default()).unwrap()
        };
        println!(
            "{tier}: {:>12} indices in {:.2?}",
            solution.size(),
            started.elapsed()
        );
        // Only the tier just solved is read by the next one.
        solved.retain(|t, _| t.stones == tier.stones + 1);
        solved.insert(tier, solution);
    }
    let start = ConnectFour.start(&shape).unwrap();
    let Ok(Location::Stored { table, index }) = ConnectFour.locate(&start) else {
        unreachable!()
    };
    println!(
        "{shape}: start {} (all tiers in {:.2?})",
        solved[&table].value(index).unwrap(),
        all.elapsed()
    );
}
