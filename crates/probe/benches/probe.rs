//! Random probes per second, with a warm cache (every block already decompressed) and a cold one (a cache of zero
//! bytes: every probe checks and decompresses its block), on a synthetic table of 2^24 positions whose values come
//! in runs, as in real tables.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use retro_game::{Index, Value};
use retro_probe::Table;
use retro_table::{TableSpec, WriteOptions, write_table};

const SIZE: Index = 1 << 24;
const PROBES: u64 = 10_000;

fn value(i: Index) -> Option<Value> {
    let run = (i / 13).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let h = run ^ (run >> 29);
    match h % 16 {
        0 => None,
        1..=6 => Some(Value::win((h >> 8) as u32 % 60)),
        7..=12 => Some(Value::loss((h >> 8) as u32 % 60)),
        _ => Some(Value::DRAW),
    }
}

/// xorshift64: cheap random indices that the compiler cannot predict.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let spec = TableSpec {
        game: "bench",
        name: "synthetic",
        params: vec![],
        sides: 1,
        side_of: |_| 0,
        size: SIZE,
        payload: b"",
        exits: None,
        index_periods: &[],
        index_digits: &[],
        distance_omitted: None,
        options: WriteOptions {
            wdl_level: 9,
            distance_level: 3,
            ..WriteOptions::default()
        },
    };
    let written = write_table(dir.path(), &spec, value).unwrap();
    eprintln!(
        "synthetic table: {SIZE} positions, WDL {} bytes, distance {} bytes",
        written.wdl_bytes, written.distance_bytes
    );
    let warm = Table::open(dir.path(), "bench", "synthetic", 1 << 30).unwrap();
    let cold = Table::open(dir.path(), "bench", "synthetic", 0).unwrap();
    // Warm every block up.
    for i in (0..SIZE).step_by(1 << 12) {
        warm.probe_wdl(i).unwrap();
        warm.probe(i).unwrap();
    }
    let mut group = c.benchmark_group("probe");
    group.throughput(Throughput::Elements(PROBES));
    let mut state = 0x1234_5678_9abc_def1u64;
    group.bench_function("wdl_warm", |b| {
        b.iter(|| {
            let mut wins = 0u64;
            for _ in 0..PROBES {
                let i = next(&mut state) % SIZE;
                wins += (warm.probe_wdl(i).unwrap() == retro_game::Outcome::Win) as u64;
            }
            wins
        })
    });
    group.bench_function("distance_warm", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for _ in 0..PROBES {
                let i = next(&mut state) % SIZE;
                sum += warm.probe(i).unwrap().and_then(|v| v.plies()).unwrap_or(0) as u64;
            }
            sum
        })
    });
    group.throughput(Throughput::Elements(PROBES / 100));
    group.sample_size(10);
    group.bench_function("wdl_cold", |b| {
        b.iter(|| {
            let mut wins = 0u64;
            for _ in 0..PROBES / 100 {
                let i = next(&mut state) % SIZE;
                wins += (cold.probe_wdl(i).unwrap() == retro_game::Outcome::Win) as u64;
            }
            wins
        })
    });
    group.bench_function("distance_cold", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for _ in 0..PROBES / 100 {
                let i = next(&mut state) % SIZE;
                sum += cold.probe(i).unwrap().and_then(|v| v.plies()).unwrap_or(0) as u64;
            }
            sum
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
