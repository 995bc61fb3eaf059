//! A fuzz loop that runs in every `cargo test`: valid tables mutated at random in many ways (bit flips, random bytes,
//! forged header fields, insertions, deletions, truncations), read with `retro_probe::fuzz::exercise`, which also
//! repairs checksums so that the mutations reach the parser and the decoder. Nothing may panic. The same function is
//! the libFuzzer target in crates/probe/fuzz.

use retro_game::{Index, Outcome, Value};
use retro_table::{TableSpec, WriteOptions, write_table};

/// splitmix64: a seeded, reproducible stream of random numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The files of a few small tables (both kinds, several blocks, with and without payload, every block layout), in
/// every format version written (a WDL file of exact outcomes with a transposed block is version 4, a distance file
/// that leaves indices out version 5, a WDL file of floors version 6, a file of more blocks than a chunk of the
/// index holds version 7).
fn seeds() -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    // The last field: the index's chunks hold 2^that many blocks (version 7 for files of more blocks than that).
    for (k, size, max_plies, version, chunk_shift) in [
        (0u64, 200u64, 20u32, 2u32, 8u8),
        (1, 1000, 300, 2, 8),
        (2, 3, 2, 2, 8),
        (3, 300, 20, 2, 8),
        (4, 3000, 20, 2, 8),
        (5, 1000, 30, 2, 8),
        (6, 2048, 30, 2, 8),
        (7, 2048, 30, 2, 8),
        (8, 8192, 30, 2, 8),
        (0, 200, 20, 1, 8),
        (1, 1000, 300, 1, 8),
        (1, 1000, 300, 2, 2),
        (5, 1000, 30, 2, 3),
    ] {
        let name = format!("s{k}v{version}c{chunk_shift}");
        let payload = vec![k as u8; (k * 50) as usize];
        let value = |i: Index| match (i / 3 + k) % 5 {
            // Table 3 starts with blocks of one value (holes, then draws).
            _ if k == 3 && i < 64 => None,
            _ if k == 3 && i < 128 => Some(Value::DRAW),
            // Table 4 has a period of 29 (see the transposed layout).
            // Tables 6 and 7 have columns of 37 in runs of their own lengths: their WDL blocks are stored transposed.
            _ if k == 6 || k == 7 => {
                let (row, column) = (i / 37, i % 37);
                match (((column * 0x9E37_79B9) ^ (row / (4 + column % 11)))
                    .wrapping_mul(0x2545_F491)
                    >> 20)
                    & 3
                {
                    0 => None,
                    1 => Some(Value::DRAW),
                    2 => Some(Value::win((row % 30) as u32)),
                    _ => Some(Value::loss((row % 30) as u32)),
                }
            }
            // Table 8 hangs on the first and third of its four digits (4, 32, 16, 4): its one WDL block is stored
            // with its digits in another order.
            _ if k == 8 => match (i / 2048 * 16 + i / 4 % 16).wrapping_mul(0x9E37_79B9) >> 7 & 3 {
                0 => None,
                1 => Some(Value::DRAW),
                2 => Some(Value::win(3)),
                _ => Some(Value::loss(2)),
            },
            _ if k == 4 => match (i % 29) % 4 {
                0 => None,
                1 => Some(Value::DRAW),
                2 => Some(Value::win((i / 29 / 8 + i % 29) as u32 % (max_plies + 1))),
                _ => Some(Value::loss((i / 29 / 8) as u32 % (max_plies + 1))),
            },
            0 => None,
            1 => Some(Value::DRAW),
            2 => Some(Value::win((i as u32 * 7) % (max_plies + 1))),
            _ => Some(Value::loss((i as u32 * 3) % (max_plies + 1))),
        };
        // The WDL files of tables 5, 6 and 8 hold floors: every third position's exits reach its value.
        let floors = k == 5 || k == 6 || k == 8;
        let best_exit = |i: Index| match value(i) {
            Some(v) if i.is_multiple_of(3) => v.outcome(),
            _ => Outcome::Loss,
        };
        let spec = TableSpec {
            game: "graph",
            name: &name,
            params: vec![("k".into(), k.to_string())],
            sides: 2,
            side_of: |i: Index| (i % 2) as u8,
            size,
            payload: &payload,
            exits: floors.then_some(&best_exit as &(dyn Fn(Index) -> Outcome + Sync)),
            index_periods: &[],
            index_digits: if k == 8 { &[4, 32, 16, 4] } else { &[] },
            // Table 1 of version 2 leaves out a range of its distance file: whole blocks and parts of two.
            distance_omitted: (k == 1 && version == 2).then_some(100..600),
            options: WriteOptions {
                wdl_block_values: match k {
                    8 => 8192,
                    6 | 7 => 1024,
                    _ => 64,
                },
                // Table 4 has distance blocks long enough to be stored transposed.
                distance_block_values: if k == 4 { 2048 } else { 32 },
                wdl_level: 3,
                distance_level: 3,
                payload_level: 3,
                try_transposed: true,
                version,
                index_chunk_shift: chunk_shift,
                ..WriteOptions::default()
            },
        };
        let written = write_table(dir.path(), &spec, value).unwrap();
        files.push(std::fs::read(written.wdl_path).unwrap());
        files.push(std::fs::read(written.distance_path).unwrap());
    }
    files
}

fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        match rng.below(7) {
            0 if len > 0 => {
                let at = rng.below(len);
                bytes[at] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let at = rng.below(len);
                bytes[at] = rng.next() as u8;
            }
            2 if len >= 8 => {
                // Forge a u32 or u64 field with an interesting value, mostly inside the header.
                let at = rng.below(len.min(160).saturating_sub(8) + 1);
                let interesting = [
                    0,
                    1,
                    2,
                    3,
                    4,
                    7,
                    8,
                    63,
                    64,
                    65,
                    255,
                    256,
                    u32::MAX as u64,
                    u64::MAX,
                    len as u64,
                ];
                let v = interesting[rng.below(interesting.len())];
                if rng.below(2) == 0 {
                    bytes[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes());
                } else {
                    bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
                }
            }
            3 => {
                let at = rng.below(len + 1);
                bytes.insert(at, rng.next() as u8);
            }
            4 if len > 0 => {
                let at = rng.below(len);
                bytes.remove(at);
            }
            5 => bytes.truncate(rng.below(len + 1)),
            _ => {
                let n = rng.below(16);
                let at = rng.below(len + 1);
                let junk: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                bytes.splice(at..at, junk);
            }
        }
    }
}

#[test]
fn mutated_tables_never_panic_the_reader() {
    let seeds = seeds();
    // Sanity: the seeds themselves are read fully, and hold every layout of version 2.
    let mut layouts = std::collections::HashSet::new();
    for seed in &seeds {
        let file = retro_probe::TableFile::from_bytes("seed", seed.clone()).unwrap();
        file.check_blocks().unwrap();
        for block in 0..file.header().block_count {
            layouts.extend(file.block_layout(block).unwrap());
        }
    }
    assert_eq!(layouts.len(), 5, "{layouts:?}");
    let versions: std::collections::HashSet<u32> = seeds
        .iter()
        .map(|seed| u32::from_le_bytes(seed[8..12].try_into().unwrap()))
        .collect();
    // Every version the writer writes: version 3 (floors without transposed blocks) is read but no longer written.
    assert_eq!(versions, [1, 2, 4, 5, 6, 7].into(), "{versions:?}");
    let mut rng = Rng(2024);
    let tries = 30_000;
    let mut reached_blocks = 0;
    for _ in 0..tries {
        let mut bytes = seeds[rng.below(seeds.len())].clone();
        mutate(&mut rng, &mut bytes);
        retro_probe::fuzz::exercise(&bytes);
        let mut repaired = bytes.clone();
        retro_probe::fuzz::repair_checksums(&mut repaired);
        if retro_probe::TableFile::from_bytes("m", repaired).is_ok() {
            reached_blocks += 1;
        }
    }
    // The checksum repair lets a good share of mutations through the header to the blocks.
    assert!(
        reached_blocks > tries / 50,
        "only {reached_blocks} of {tries} mutated files opened"
    );
    // Pure noise too.
    for _ in 0..2_000 {
        let n = rng.below(300);
        let mut bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        if n >= 8 && rng.below(2) == 0 {
            bytes[..8].copy_from_slice(&retro_probe::format::MAGIC);
        }
        retro_probe::fuzz::exercise(&bytes);
    }
}
