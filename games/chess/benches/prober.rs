//! Warm probes per second through the `Prober`, the path an engine takes: random legal positions of every material
//! the shipped tables hold (3 and 4 men), each probed once to warm the cache, then the timed loops. Run with
//! `cargo bench -p retro-chess --bench prober`; compare its figures within one run only.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use common::{Rng, random_position};
use retro_chess::{Material, Position, Prober};

const POSITIONS: usize = 200_000;
const ROUNDS: usize = 20;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tablebases/chess");
    let prober = Prober::open(&dir, 256 << 20).expect("the shipped tables open");
    // `-- KRvK` (a material's name) probes that material only: a working set that fits in the CPU's caches, to
    // tell the cost of computing an index from the cost of fetching a value from memory.
    let chosen: Option<Material> = std::env::args()
        .skip(1)
        .find_map(|a| Material::parse(&a).ok());
    let materials: Vec<Material> = match chosen {
        Some(material) => vec![material],
        None => prober.materials().filter(|m| m.men() >= 3).collect(),
    };
    let mut rng = Rng(7);
    let mut positions: Vec<Position> = (0..POSITIONS)
        .map(|i| random_position(materials[i % materials.len()], &mut rng))
        .filter(|p| p.ep_square().is_none())
        .collect();
    // `-- sorted` probes the positions grouped by material, as an engine's search probes one material many times in
    // a row: each table's blocks and index stay in the processor's caches while its turn lasts.
    if std::env::args().any(|a| a == "sorted") {
        positions.sort_by_key(|p| Material::of(p).key());
    }
    let started = Instant::now();
    for p in &positions {
        prober.wdl(p).expect("warm-up probe");
        prober.value(p).expect("warm-up probe");
    }
    println!(
        "{} positions of {} materials, warm-up (cold probes) {:.2} s",
        positions.len(),
        materials.len(),
        started.elapsed().as_secs_f64()
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Each round is timed alone: the mean says what a run gave, the best round what the code gives when nothing
    // else on the machine (a neighbour sharing the processor's last-level cache) gets in the way.
    let time = |name: &str, each: &(dyn Fn(&Position) -> u32 + Sync), threads: usize| {
        let probes = (positions.len() * threads) as f64;
        let mut rates = Vec::with_capacity(ROUNDS);
        for _ in 0..ROUNDS {
            let start = Instant::now();
            std::thread::scope(|s| {
                for t in 0..threads {
                    let positions = &positions;
                    s.spawn(move || {
                        let mut sum = 0u32;
                        for p in positions.iter().skip(t) {
                            sum = sum.wrapping_add(each(black_box(p)));
                        }
                        black_box(sum);
                    });
                }
            });
            rates.push(probes / start.elapsed().as_secs_f64() / 1e6);
        }
        let mean = rates.len() as f64 / rates.iter().map(|r| 1.0 / r).sum::<f64>();
        let best = rates.iter().cloned().fold(0.0, f64::max);
        println!(
            "{name:<12} {threads} thread(s): {:>6.2} M probes/s in all, {:>6.2} M/s per thread (best round {:.2})",
            mean,
            mean / threads as f64,
            best / threads as f64
        );
    };
    // `cargo bench -p retro-chess --bench prober -- wdl` times only the WDL probes (for a profiler).
    let only_wdl = std::env::args().any(|a| a == "wdl");
    for n in [1, threads] {
        time("wdl", &|p| prober.wdl(p).unwrap() as u32, n);
        if !only_wdl {
            time(
                "value",
                &|p| prober.value(p).unwrap().plies().unwrap_or(0),
                n,
            );
        }
    }
}
