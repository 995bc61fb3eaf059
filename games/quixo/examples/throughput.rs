//! The cost of the game's side of a solve, per position, on a sample of one tier: `count_moves` (what the engine's
//! initialisation calls on every index) and `unmoves` (what each generation calls on every position it resolves).
//! The exits read fake values. For estimating boards too large to solve here:
//! `cargo run --release -p retro-quixo --example throughput -- 5x5 17`.

use std::time::Instant;

use retro_family::contract::AnyValue;
use retro_family::{Family, Flags, Game, Values};
use retro_quixo::{Quixo, QuixoGame};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [size, cubes] = &args[..] else {
        return Err("usage: throughput NxN CUBES".into());
    };
    let size = Quixo.parse_variant(std::slice::from_ref(size), &Flags::default())?;
    let n = u32::from(size.0);
    let cubes: u32 = cubes.parse().map_err(|e| format!("{cubes:?}: {e}"))?;
    let t0 = Instant::now();
    retro_quixo::index::classes(n);
    println!("{size}: class tables built in {:.2?}", t0.elapsed());
    let next = (cubes < n * n).then_some(&AnyValue as &dyn Values);
    let game = QuixoGame::new(n, cubes, next);
    let samples = 2_000_000u64;
    let mut seed = 1u64;
    let indices: Vec<u64> = (0..samples)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) % game.size()
        })
        .collect();
    let t0 = Instant::now();
    let mut moves = 0u64;
    for &i in &indices {
        let (_, inside) = game.count_moves(i, |_| moves += 1);
        moves += inside;
    }
    let count = t0.elapsed();
    let t0 = Instant::now();
    let mut predecessors = 0u64;
    for &i in &indices {
        game.unmoves(i, |_| predecessors += 1);
    }
    let unmoves = t0.elapsed();
    println!(
        "{size} tier {cubes} ({} indices): count_moves {:.0} ns/index ({:.1} moves), unmoves {:.0} ns/index ({:.1} predecessors)",
        game.size(),
        count.as_nanos() as f64 / samples as f64,
        moves as f64 / samples as f64,
        unmoves.as_nanos() as f64 / samples as f64,
        predecessors as f64 / samples as f64,
    );
    Ok(())
}
