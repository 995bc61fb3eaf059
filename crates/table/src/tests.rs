//! Writer and reader together: round trips, determinism, and damaged files of every kind.

use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

use retro_game::{Index, Outcome, Value};
use retro_probe::format::{FileKind, table_path};
use retro_probe::{ErrorKind, ProbeError, Table, TableFile};

use crate::write::{Sink, write_table_to};
use crate::{TableSpec, WdlOrder, WriteError, WriteOptions, write_table};

/// A deterministic pseudo-random table: runs of equal values (as real tables have), holes, draws, and distances up
/// to `max_plies`.
struct Synthetic {
    seed: u64,
    max_plies: u32,
    hole_rate: u64,
}

impl Synthetic {
    fn value(&self, i: Index) -> Option<Value> {
        let run = i / (1 + self.seed % 7);
        let h = mix(self.seed ^ run.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        if h % 100 < self.hole_rate {
            return None;
        }
        let plies = (mix(h) % (u64::from(self.max_plies) + 1)) as u32;
        Some(match (h >> 8) % 3 {
            0 => Value::win(plies),
            1 => Value::loss(plies),
            _ => Value::DRAW,
        })
    }
}

/// `value` moved to the nearest plies of normal play's parity: a win in an odd number of plies, a loss in an even one.
fn with_parity(value: Option<Value>) -> Option<Value> {
    value.map(|v| match (v.outcome(), v.plies()) {
        (Outcome::Win, Some(d)) => Value::win(d | 1),
        (Outcome::Loss, Some(d)) => Value::loss(d & !1),
        _ => v,
    })
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 32)
}

fn small_blocks() -> WriteOptions {
    WriteOptions {
        wdl_block_values: 64,
        distance_block_values: 32,
        wdl_level: 3,
        distance_level: 3,
        payload_level: 3,
        ..WriteOptions::default()
    }
}

fn spec<'a>(
    name: &'a str,
    size: Index,
    sides: u8,
    payload: &'a [u8],
) -> TableSpec<'a, impl Fn(Index) -> u8 + Sync> {
    spec_version(name, size, sides, payload, WriteOptions::default().version)
}

/// The format versions the writer can write and the reader must read.
const VERSIONS: [u32; 2] = [1, 2];

fn spec_version<'a>(
    name: &'a str,
    size: Index,
    sides: u8,
    payload: &'a [u8],
    version: u32,
) -> TableSpec<'a, impl Fn(Index) -> u8 + Sync> {
    TableSpec {
        game: "graph",
        name,
        params: vec![("convention".into(), "normal".into())],
        sides,
        side_of: move |i: Index| (i % u64::from(sides)) as u8,
        size,
        payload,
        exits: None,
        index_periods: &[],
        index_digits: &[],
        distance_omitted: None,
        options: WriteOptions {
            version,
            ..small_blocks()
        },
    }
}

/// Probes every index and compares with the values written.
fn assert_reads_back(table: &Table, values: &dyn Fn(Index) -> Option<Value>) {
    for i in 0..table.size() {
        assert_eq!(table.probe(i).unwrap(), values(i), "index {i}");
        if let Some(v) = values(i) {
            assert_eq!(table.probe_wdl(i).unwrap(), v.outcome(), "index {i}");
        }
    }
}

/// Writes a graph table `name` of `size` indices and `sides` sides (alternating) whose WDL file holds floors
/// (`best_exit`), in WDL blocks of 2^14 values; checks that every value reads back and returns the table.
fn write_floors(
    name: &str,
    size: Index,
    sides: u8,
    values: &(dyn Fn(Index) -> Option<Value> + Sync),
    best_exit: &(dyn Fn(Index) -> Outcome + Sync),
) -> (tempfile::TempDir, Table) {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = TableSpec {
        exits: Some(best_exit),
        ..spec(name, size, sides, b"")
    };
    spec.options.wdl_block_values = 1 << 14;
    write_table(dir.path(), &spec, values).unwrap();
    let table = Table::open(dir.path(), "graph", name, 1 << 20).unwrap();
    assert_reads_back(&table, values);
    (dir, table)
}

/// Where positions that must store another outcome repeat regularly in a sea of the most frequent one, and free
/// positions (holes, wins whose exits reach a win) lie at random, continuing runs would make the random positions
/// visible; the writer keeps the fill by the most frequent outcome instead, which leaves only the regular pattern.
/// Every free win then stores a draw, and everything reads back exactly.
#[test]
fn free_positions_take_the_most_frequent_outcome_when_that_is_smaller() {
    // A win that must be stored every 16th index; elsewhere a hole, a free win or a draw, at random.
    let required = |i: Index| i.is_multiple_of(16);
    let values = |i: Index| match mix(i) % 10 {
        _ if required(i) => Some(Value::win(1)),
        0 | 1 => None,
        2 => Some(Value::win(3)),
        _ => Some(Value::DRAW),
    };
    let best_exit = |i: Index| match values(i) {
        Some(v) if !required(i) => v.outcome(),
        _ => Outcome::Loss,
    };
    let size = 1 << 16;
    let (_dir, table) = write_floors("sea", size, 1, &values, &best_exit);
    let mut free_wins = 0;
    for i in (0..size).filter(|&i| !required(i)) {
        if values(i).is_some_and(|v| v.outcome() == Outcome::Win) {
            assert_eq!(
                table.probe_wdl_floor(i).unwrap(),
                Outcome::Draw,
                "index {i}"
            );
            free_wins += 1;
        }
    }
    assert!(free_wins > size / 20, "{free_wins} free wins");
}

/// A large table's WDL file (more than `large_table` indices) takes blocks of `large_wdl_block_values` when given;
/// a table that is not large, and a large one without it, keep `wdl_block_values`. Every value reads back.
#[test]
fn large_tables_take_the_large_wdl_blocks_when_given() {
    let size: Index = 1 << 16;
    let values = |i: Index| {
        Synthetic {
            seed: 5,
            max_plies: 20,
            hole_rate: 10,
        }
        .value(i)
    };
    for (large_table, large_wdl_block_values, blocks) in [
        (size - 1, Some(1 << 14), 4),
        (size - 1, None, 16),
        (size, Some(1 << 14), 16),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = spec("wide", size, 2, b"");
        spec.options.wdl_block_values = 1 << 12;
        spec.options.large_table = large_table;
        spec.options.large_wdl_block_values = large_wdl_block_values;
        write_table(dir.path(), &spec, values).unwrap();
        let table = Table::open(dir.path(), "graph", "wide", 1 << 20).unwrap();
        assert_reads_back(&table, &values);
        assert_eq!(
            table.wdl_file().header().block_count,
            blocks,
            "large table from {large_table}, {large_wdl_block_values:?}"
        );
    }
}

/// Where the sides to move alternate and each side's outcomes come in runs of its own, a free position continues
/// its own side's run, not the other side's (the fill by side): every free win stores the outcome of the last
/// position of its side before it that has to store its own, and everything reads back exactly.
#[test]
fn free_positions_continue_the_runs_of_their_own_side() {
    let outcome = |code: u64| match code % 3 {
        0 => Outcome::Loss,
        1 => Outcome::Draw,
        _ => Outcome::Win,
    };
    // Side 0 (even indices) changes outcome every 600 indices, side 1 every 700; two positions in five are wins
    // whose exits reach a win, free to store any outcome.
    let run_outcome = |i: Index| outcome(mix(i / (600 + 100 * (i % 2)) * 2 + i % 2));
    let free = |i: Index| mix(i ^ 0xF4EE) % 5 < 2;
    let values = |i: Index| {
        Some(match (free(i), run_outcome(i)) {
            (true, _) | (false, Outcome::Win) => Value::win(1),
            (false, Outcome::Draw) => Value::DRAW,
            (false, Outcome::Loss) => Value::loss(0),
        })
    };
    let best_exit = |i: Index| match free(i) {
        true => Outcome::Win,
        false => Outcome::Loss,
    };
    let size = 1 << 16;
    let (_dir, table) = write_floors("lanes", size, 2, &values, &best_exit);
    let mut checked = 0;
    for i in (2..size).filter(|&i| free(i) && i % (1 << 14) >= 2) {
        let Some(before) = (1..=i / 2).map(|back| i - 2 * back).find(|&j| !free(j)) else {
            continue;
        };
        if before / (1 << 14) == i / (1 << 14) {
            assert_eq!(
                table.probe_wdl_floor(i).unwrap(),
                run_outcome(before),
                "index {i}"
            );
            checked += 1;
        }
    }
    assert!(checked > size / 4, "{checked} free wins checked");
}

/// The WDL blocks that compress least take the heavy level and the others the WDL level: a table of a light block
/// (random runs of 1,024 values: stored in 258 bytes at level 1, 364 at 19) and a heavy one (phrases of 32 values drawn from
/// 64), written with a heavy level and without. The light block keeps its bytes, the heavy one shrinks, and every
/// value reads back.
#[test]
fn only_heavy_wdl_blocks_take_the_heavy_level() {
    const BLOCK: Index = 1 << 18;
    let value = |i: Index| {
        let code = if i < BLOCK {
            mix(i / 1024) % 3
        } else {
            mix(mix((i - BLOCK) / 32) % 64 * 32 + i % 32) % 3
        };
        Some(match code {
            0 => Value::win(1),
            1 => Value::DRAW,
            _ => Value::loss(0),
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let mut stored = Vec::new();
    for (name, heavy) in [("plain", None), ("heavy", Some(19))] {
        let mut spec = spec(name, 2 * BLOCK, 2, b"");
        spec.options.wdl_block_values = BLOCK as u32;
        spec.options.wdl_level = 1;
        spec.options.heavy_wdl_level = heavy;
        write_table(dir.path(), &spec, value).unwrap();
        let table = Table::open(dir.path(), "graph", name, 1 << 20).unwrap();
        assert_reads_back(&table, &value);
        let file = table.wdl_file();
        stored.push([0, 1].map(|b| file.stored_block_len(b).unwrap()));
    }
    let [plain, heavy] = [stored[0], stored[1]];
    assert_eq!(heavy[0], plain[0], "the light block: {stored:?}");
    assert!(heavy[1] < plain[1], "the heavy block: {stored:?}");
}

/// A table whose index has digits (side, 8, 64, 64), holes where the last two digits are equal, and values that
/// depend on the side and the last digit: a pattern that repeats only every 4096 indices in index order, but every
/// two with the last digit first and the side last.
const ORDERED_DIGITS: [u64; 4] = [2, 8, 64, 64];

fn ordered_value(i: Index) -> Option<Value> {
    let (side, last, third) = (i / 32768, i % 64, i / 64 % 64);
    if last == third {
        return None;
    }
    Some(match mix(side * 64 + last) % 3 {
        0 => Value::win(1 + 2 * (mix(i) % 5) as u32),
        1 => Value::DRAW,
        _ => Value::loss(2 * (mix(i) % 5) as u32),
    })
}

fn ordered_spec<'a>(name: &'a str, order: WdlOrder) -> TableSpec<'a, impl Fn(Index) -> u8 + Sync> {
    let mut spec = TableSpec {
        index_digits: &ORDERED_DIGITS,
        ..spec(name, 1 << 16, 2, b"")
    };
    spec.options.wdl_block_values = 4096;
    spec.options.wdl_order = order;
    spec
}

/// A WDL file may store its values in another order of the index's digits (format version 8): given, or searched,
/// which here finds one that makes the file smaller. Every value reads back exactly either way.
#[test]
fn a_wdl_file_stores_its_values_in_the_order_of_digits_given_or_found() {
    let dir = tempfile::tempdir().unwrap();
    let mut sizes = Vec::new();
    for (name, order) in [
        ("index", WdlOrder::Index),
        ("given", WdlOrder::Given([3, 1, 2, 0, 0, 0, 0, 0])),
        ("found", WdlOrder::Search),
    ] {
        let written = write_table(dir.path(), &ordered_spec(name, order), ordered_value).unwrap();
        sizes.push(written.wdl_bytes);
        let table = Table::open(dir.path(), "graph", name, 1 << 20).unwrap();
        let header = table.wdl_file().header();
        let stored_order = header.order().map(|o| o.order().to_vec());
        match order {
            WdlOrder::Index => assert_eq!(stored_order, None),
            WdlOrder::Given(_) => assert_eq!(stored_order, Some(vec![3, 1, 2, 0])),
            WdlOrder::Search => assert!(stored_order.is_some(), "no other order found"),
        }
        assert_eq!(
            header.version == 8,
            stored_order.is_some(),
            "version {}",
            header.version
        );
        assert_reads_back(&table, &ordered_value);
        for i in 0..table.size() {
            if let Some(v) = ordered_value(i) {
                assert_eq!(
                    table.probe_wdl_floor(i).unwrap(),
                    v.outcome(),
                    "{name}: index {i}"
                );
            }
        }
    }
    assert!(sizes[2] * 2 < sizes[0], "{sizes:?}");
    // An order that is no permutation of the digits is refused.
    let err = write_table(
        dir.path(),
        &ordered_spec("bad", WdlOrder::Given([3, 3, 2, 0, 0, 0, 0, 0])),
        ordered_value,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("no order of the index's digits"),
        "{err}"
    );
}

/// A version 8 file whose order does not describe its index (its checksums repaired, as a writer bug or a forged
/// file would have them) is refused at open with a clear error.
#[test]
fn an_order_that_does_not_describe_the_index_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_table(
        dir.path(),
        &ordered_spec("order", WdlOrder::Given([3, 1, 2, 0, 0, 0, 0, 0])),
        ordered_value,
    )
    .unwrap();
    let path = table_path(dir.path(), "graph", "order", FileKind::Wdl);
    let bytes = std::fs::read(&path).unwrap();
    // The order's digit numbers 3, 1, 2, 0 follow its radices 2, 8, 64, 64 (varints of one byte each).
    let at = bytes
        .windows(9)
        .position(|w| w == [4, 2, 8, 64, 64, 3, 1, 2, 0])
        .expect("the order in the header");
    for (offset, byte) in [(5, 1), (1, 3), (0, 1)] {
        let mut damaged = bytes.clone();
        damaged[at + offset] = byte;
        retro_probe::fuzz::repair_checksums(&mut damaged);
        let err = TableFile::from_bytes(&path, damaged).err().unwrap();
        assert!(
            err.to_string().contains("order") || err.to_string().contains("digit"),
            "{err}"
        );
    }
}

/// A WDL file of floors: where the exits reach a position's value, any outcome no better may be stored, and the
/// writer picks what makes the fewest runs. Every stored outcome is a floor the exits complete, the file is version 6,
/// `probe_wdl` still answers exactly (through the distance file), and the file is smaller than the exact one.
#[test]
fn floors_are_no_better_than_the_values_and_the_exits_reach_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    // Outcomes at random, position by position (a file of 1.6 bits a value), but four positions in five have exits
    // that reach their value (as a capture into a smaller table may); the others' exits reach at most a loss.
    let values = |i: Index| match mix(i) % 10 {
        0 => None,
        1..=3 => Some(Value::loss(0)),
        4..=6 => Some(Value::DRAW),
        _ => Some(Value::win(1)),
    };
    let best_exit = |i: Index| match values(i) {
        Some(v) if !mix(i ^ 0x5eed).is_multiple_of(5) => v.outcome(),
        _ => Outcome::Loss,
    };
    let size = 20_000;
    let mut sizes = Vec::new();
    for (name, floors) in [("exact", false), ("floors", true)] {
        let mut spec = TableSpec {
            exits: floors.then_some(&best_exit as &(dyn Fn(Index) -> Outcome + Sync)),
            index_periods: &[],
            index_digits: &[],
            distance_omitted: None,
            ..spec(name, size, 2, b"")
        };
        // Blocks large enough to compress (64 values are 16 bytes, which zstd stores as they are).
        spec.options.wdl_block_values = 4096;
        let written = write_table(dir.path(), &spec, values).unwrap();
        sizes.push(written.wdl_bytes);
        let table = Table::open(dir.path(), "graph", name, 1 << 20).unwrap();
        assert_eq!(table.wdl_floors(), floors);
        assert_eq!(
            table.wdl_file().header().version,
            if floors { 6 } else { 2 }
        );
        // 625 distance blocks of 32 values: more than a chunk of the index holds.
        assert_eq!(table.distance_file().header().version, 7);
        assert_reads_back(&table, &values);
        let mut below = 0;
        for i in 0..size {
            let Some(v) = values(i) else { continue };
            let stored = table.probe_wdl_floor(i).unwrap();
            assert!(stored <= v.outcome(), "index {i}: {stored} above {v}");
            if stored < v.outcome() {
                assert!(floors, "index {i}: an exact file stores {stored} for {v}");
                assert_eq!(best_exit(i), v.outcome(), "index {i}");
                below += 1;
            }
        }
        assert_eq!(
            below > 0,
            floors,
            "{name}: {below} stored below their value"
        );
    }
    // A quarter smaller at least (measured: 4378 bytes exact, 2930 with floors).
    assert!(sizes[1] * 4 < sizes[0] * 3, "{sizes:?}");
}

#[test]
fn random_tables_read_back_exactly() {
    for version in VERSIONS {
        random_tables_read_back_exactly_in(version);
    }
}

fn random_tables_read_back_exactly_in(version: u32) {
    let dir = tempfile::tempdir().unwrap();
    // Distances of up to 100, 1000 and 100000 plies exercise the 1-, 2- and 4-byte distance codes.
    for (seed, size, sides, max_plies) in [
        (1, 1, 1, 3),
        (2, 63, 2, 100),
        (3, 64, 1, 100),
        (4, 65, 2, 1000),
        (5, 1000, 2, 100),
        (6, 4097, 1, 100_000),
        (7, 3000, 2, 126),
        (8, 0, 1, 1),
    ] {
        let synthetic = Synthetic {
            seed,
            max_plies,
            hole_rate: 20,
        };
        let values = |i| synthetic.value(i);
        let name = format!("t{seed}");
        let payload = format!("payload of {name}").repeat(seed as usize);
        let written = write_table(
            dir.path(),
            &spec_version(&name, size, sides, payload.as_bytes(), version),
            values,
        )
        .unwrap();
        let table = Table::open(dir.path(), "graph", &name, 1 << 20).unwrap();
        assert_eq!(table.wdl_file().header().version, version);
        assert_eq!(table.distance_file().header().version, version);
        assert_reads_back(&table, &values);
        assert_eq!(table.payload().unwrap(), payload.as_bytes());
        table.check_blocks().unwrap();
        let meta = table.meta();
        assert_eq!(meta, &written.meta);
        assert_eq!(meta.param("convention"), Some("normal"));
        // The header's counts are those of the values.
        for side in 0..sides {
            let (mut wins, mut draws, mut losses, mut longest_win) = (0, 0, 0, None);
            for i in (0..size).filter(|i| i % u64::from(sides) == u64::from(side)) {
                match values(i) {
                    Some(v) if v.outcome() == Outcome::Win => {
                        wins += 1;
                        longest_win = longest_win.max(v.plies());
                    }
                    Some(v) if v.outcome() == Outcome::Loss => losses += 1,
                    Some(_) => draws += 1,
                    None => {}
                }
            }
            let counts = meta.sides[usize::from(side)];
            assert_eq!(
                (counts.wins, counts.draws, counts.losses),
                (wins, draws, losses)
            );
            assert_eq!(counts.longest_win, longest_win);
        }
        assert_eq!(
            meta.holes,
            (0..size).filter(|&i| values(i).is_none()).count() as u64
        );
        assert_eq!(
            written.wdl_bytes,
            std::fs::metadata(&written.wdl_path).unwrap().len()
        );
    }
}

/// Distances of normal play's parity are stored by parity where that takes fewer bytes a code, and plainly
/// otherwise: where the plain codes are as narrow, or where one value has the other parity. Every value reads back.
#[test]
fn distances_of_one_parity_take_half_the_codes_where_that_narrows_them() {
    use retro_probe::Encoding::{Distance8, Distance16, ParityDistance8, ParityDistance16};
    let dir = tempfile::tempdir().unwrap();
    // (name, longest plies, one value of the other parity, the encoding expected)
    for (name, max_plies, odd_one_out, expected) in [
        ("short", 120, false, Distance8),
        ("long", 250, false, ParityDistance8),
        ("broken", 250, true, Distance16),
        ("longer", 60_000, false, ParityDistance16),
    ] {
        let synthetic = Synthetic {
            seed: 11,
            max_plies,
            hole_rate: 10,
        };
        let values = |i: Index| match i {
            // A loss in the longest plies (even) and a win in one ply fewer (odd): the widest codes.
            0 => Some(Value::loss(max_plies)),
            1 => Some(Value::win(max_plies - 1)),
            2 if odd_one_out => Some(Value::win(2)),
            _ => with_parity(synthetic.value(i)),
        };
        write_table(dir.path(), &spec(name, 5000, 2, b""), values).unwrap();
        let table = Table::open(dir.path(), "graph", name, 1 << 20).unwrap();
        assert_eq!(table.distance_file().header().encoding, expected, "{name}");
        assert_reads_back(&table, &values);
        table.check_blocks().unwrap();
    }
}

/// A distance file that leaves a range of indices out (one side to move of a chess table) is version 5: every
/// index outside the range reads back, every index inside is an error that says so, the WDL file still holds all,
/// and leaving out more makes a smaller file. Ranges that are empty or past the end are refused.
#[test]
fn a_distance_file_leaves_out_the_indices_asked_and_reads_back_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let synthetic = Synthetic {
        seed: 5,
        max_plies: 300,
        hole_rate: 10,
    };
    let values = |i| synthetic.value(i);
    let size = 2000;
    let mut sizes = Vec::new();
    for (name, omitted) in [
        ("all", None),
        ("half", Some(1000..2000)),
        ("inner", Some(333..1500)),
    ] {
        let spec = TableSpec {
            distance_omitted: omitted.clone(),
            ..spec(name, size, 2, b"")
        };
        let written = write_table(dir.path(), &spec, values).unwrap();
        sizes.push(written.distance_bytes);
        let table = Table::open(dir.path(), "graph", name, 1 << 20).unwrap();
        let header = table.distance_file().header();
        assert_eq!(header.version, if omitted.is_some() { 5 } else { 2 });
        assert_eq!(header.omitted(), omitted);
        assert_eq!(table.meta(), &written.meta);
        table.check_blocks().unwrap();
        for i in 0..size {
            let left_out = omitted.as_ref().is_some_and(|r| r.contains(&i));
            assert_eq!(table.stores(i), !left_out);
            match table.probe(i) {
                Ok(v) => assert!(!left_out && v == values(i), "index {i}"),
                Err(e) => {
                    assert!(left_out, "index {i}: {e}");
                    assert!(matches!(e.kind(), ErrorKind::NotStored { index } if *index == i));
                    assert!(e.to_string().contains("not stored"), "{e}");
                }
            }
            if let Some(v) = values(i) {
                assert_eq!(table.probe_wdl_floor(i).unwrap(), v.outcome(), "index {i}");
            }
        }
        // Whole blocks are read only where nothing is left out; the partial reader gives the rest.
        let file = table.distance_file();
        for block in 0..header.block_count {
            let start = block * u64::from(header.block_values);
            let touches = (start..start + header.values_in_block(block)).any(|i| !table.stores(i));
            assert_eq!(
                file.distance_block(block).is_err(),
                touches,
                "block {block}"
            );
            for (k, v) in file
                .stored_distance_block(block)
                .unwrap()
                .into_iter()
                .enumerate()
            {
                let i = start + k as u64;
                if table.stores(i) {
                    assert_eq!(v, values(i), "index {i}");
                }
            }
        }
    }
    assert!(
        sizes[1] * 4 < sizes[0] * 3 && sizes[2] < sizes[1],
        "{sizes:?}"
    );
    for bad in [5..5, 1990..2001] {
        let spec = TableSpec {
            distance_omitted: Some(bad.clone()),
            ..spec("bad", size, 2, b"")
        };
        let err = write_table(dir.path(), &spec, values).unwrap_err();
        assert!(
            err.to_string().contains("cannot be left out"),
            "{bad:?}: {err}"
        );
    }
}

#[test]
fn a_table_with_only_holes_or_only_one_value_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    type Values = fn(Index) -> Option<Value>;
    let cases: [(&str, Values); 3] = [
        ("holes", |_| None),
        ("draws", |_| Some(Value::DRAW)),
        ("wins", |i| Some(Value::win(i as u32 % 5))),
    ];
    for version in VERSIONS {
        for (name, values) in cases {
            write_table(
                dir.path(),
                &spec_version(name, 777, 1, b"", version),
                values,
            )
            .unwrap();
            let table = Table::open(dir.path(), "graph", name, 0).unwrap();
            assert_reads_back(&table, &values);
        }
    }
}

#[test]
fn a_rebuilt_table_replaces_the_old_one_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path(), &spec("t", 500, 1, b""), |_| Some(Value::DRAW)).unwrap();
    write_table(dir.path(), &spec("t", 500, 1, b""), |_| Some(Value::win(1))).unwrap();
    let table = Table::open(dir.path(), "graph", "t", 1 << 20).unwrap();
    assert_eq!(table.probe(3).unwrap(), Some(Value::win(1)));
    let mut names: Vec<_> = std::fs::read_dir(dir.path().join("graph"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["t.rdst", "t.rwdl"]);
}

#[test]
fn the_same_table_gives_the_same_bytes_with_one_or_two_threads() {
    let synthetic = Synthetic {
        seed: 11,
        max_plies: 200,
        hole_rate: 10,
    };
    let mut files = Vec::new();
    for threads in [1, 2] {
        let dir = tempfile::tempdir().unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let written = pool
            .install(|| {
                write_table(dir.path(), &spec("d", 20_000, 2, b"names"), |i| {
                    synthetic.value(i)
                })
            })
            .unwrap();
        files.push((
            std::fs::read(&written.wdl_path).unwrap(),
            std::fs::read(&written.distance_path).unwrap(),
        ));
    }
    assert!(
        files[0] == files[1],
        "1 and 2 threads wrote different bytes"
    );
}

#[test]
fn bad_names_and_sides_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["", "../up", ".hidden"] {
        let err = write_table(dir.path(), &spec(name, 10, 1, b""), |_| None).unwrap_err();
        assert!(matches!(err, WriteError::Spec(_)), "{err}");
    }
    /// A table of one side and ten indices, whose indices have the sides `side_of` gives.
    fn one_side<S: Fn(Index) -> u8 + Sync>(name: &str, side_of: S) -> TableSpec<'_, S> {
        TableSpec {
            game: "graph",
            name,
            params: Vec::new(),
            sides: 1,
            side_of,
            size: 10,
            payload: b"",
            exits: None,
            index_periods: &[],
            index_digits: &[],
            distance_omitted: None,
            options: WriteOptions::default(),
        }
    }
    let bad_side = one_side("s", |_| 1);
    let err = write_table(dir.path(), &bad_side, |_| Some(Value::DRAW)).unwrap_err();
    assert!(err.to_string().contains("side_of"), "{err}");
    assert!(!table_path(dir.path(), "graph", "s", FileKind::Wdl).exists());
    // The first position of a side the table does not have is named; holes may have any side.
    let err = write_table(dir.path(), &bad_side, |i| (i >= 3).then_some(Value::DRAW)).unwrap_err();
    assert!(err.to_string().contains("side_of(3) = 1"), "{err}");
    let sides_of_holes = one_side("h", |i| u8::from(i >= 5));
    let written = write_table(dir.path(), &sides_of_holes, |i| {
        (i < 5).then_some(Value::DRAW)
    })
    .unwrap();
    assert_eq!((written.meta.holes, written.meta.sides[0].draws), (5, 5));
}

// --- damaged files ---------------------------------------------------------------------------------------------

/// One kind of file damaged below.
#[derive(Clone, Copy)]
struct Damaged {
    /// The layout version asked for (1 or 2).
    version: u32,
    /// A WDL file of floors (version 6).
    floors: bool,
    /// A WDL file with a transposed block (version 4).
    transposed: bool,
    /// A distance file that leaves a range of indices out (version 5), whose distances, long and of normal play's
    /// parity, are stored by parity.
    omitted: bool,
    /// Both files with their block index in chunks of two blocks (version 7).
    chunked: bool,
    /// A WDL file whose values are stored in another order of the index's digits (version 8).
    ordered: bool,
}

/// The files damaged below: each layout version, each version 2 to 6 file, version 7's chunked index with the
/// meanings of versions 4 to 6, and version 8's order.
const DAMAGED: [Damaged; 10] = {
    const fn file(
        version: u32,
        floors: bool,
        transposed: bool,
        omitted: bool,
        chunked: bool,
    ) -> Damaged {
        Damaged {
            version,
            floors,
            transposed,
            omitted,
            chunked,
            ordered: false,
        }
    }
    [
        file(1, false, false, false, false),
        file(2, false, false, false, false),
        file(2, false, true, false, false),
        file(2, true, false, false, false),
        file(2, true, true, false, false),
        file(2, false, false, true, false),
        file(2, false, false, false, true),
        file(2, true, true, false, true),
        file(2, false, false, true, true),
        Damaged {
            ordered: true,
            ..file(2, true, false, false, false)
        },
    ]
};

/// The indices the fixture's distance file leaves out when asked to: whole blocks and parts of two.
const FIXTURE_OMITTED: std::ops::Range<Index> = 100..220;

/// A small table of many blocks, written once as `file` says, as (WDL bytes, distance bytes, values). With
/// `transposed`, a table with a period whose one WDL block is stored transposed.
fn damaged_fixture(file: Damaged) -> (Vec<u8>, Vec<u8>, impl Fn(Index) -> Option<Value>) {
    let Damaged {
        version,
        floors,
        transposed,
        omitted,
        chunked,
        ordered,
    } = file;
    let dir = tempfile::tempdir().unwrap();
    let synthetic = Synthetic {
        seed: 3,
        max_plies: if omitted { 250 } else { 40 },
        hole_rate: 15,
    };
    let values = move |i| {
        if transposed {
            columnar(i)
        } else if omitted {
            with_parity(synthetic.value(i))
        } else {
            synthetic.value(i)
        }
    };
    // Every other position's exits reach its value.
    let best_exit = |i: Index| match values(i) {
        Some(v) if i.is_multiple_of(2) => v.outcome(),
        _ => Outcome::Loss,
    };
    let mut spec = TableSpec {
        exits: floors.then_some(&best_exit as &(dyn Fn(Index) -> Outcome + Sync)),
        index_periods: &[],
        // Side to move and 150 positions a side; with `ordered`, the side to move varies fastest.
        index_digits: if ordered { &[2, 150] } else { &[] },
        distance_omitted: omitted.then_some(FIXTURE_OMITTED),
        ..spec_version(
            "c",
            if transposed { 1024 } else { 300 },
            2,
            b"a payload",
            version,
        )
    };
    if transposed {
        spec.options.wdl_block_values = 1024;
        spec.options.distance_block_values = 256;
        spec.options.try_transposed = true;
    }
    if chunked {
        spec.options.wdl_block_values = spec.options.wdl_block_values.min(256);
        spec.options.index_chunk_shift = 1;
    }
    if ordered {
        spec.options.wdl_order = WdlOrder::Given([1, 0, 0, 0, 0, 0, 0, 0]);
    }
    let written = write_table(dir.path(), &spec, &values).unwrap();
    let header = TableFile::open(&written.wdl_path).unwrap().header().clone();
    assert_eq!(header.floors(), floors);
    let wdl_version = if ordered {
        8
    } else if chunked {
        7
    } else if floors {
        6
    } else if transposed {
        4
    } else {
        version
    };
    assert_eq!(header.version, wdl_version);
    let distance = TableFile::open(&written.distance_path).unwrap();
    let distance_version = match (chunked, omitted) {
        (true, _) => 7,
        (false, true) => 5,
        (false, false) => version,
    };
    assert_eq!(distance.header().version, distance_version);
    assert_eq!(distance.header().omitted().is_some(), omitted);
    assert_eq!(distance.header().encoding.by_parity(), omitted);
    (
        std::fs::read(written.wdl_path).unwrap(),
        std::fs::read(written.distance_path).unwrap(),
        values,
    )
}

fn open_pair(wdl: Vec<u8>, distance: Vec<u8>) -> Result<Table, ProbeError> {
    let wdl = TableFile::from_bytes("c.rwdl", wdl)?;
    let distance = TableFile::from_bytes("c.rdst", distance)?;
    Table::from_files(wdl, distance, "graph", "c", 1 << 20)
}

/// Every flipped bit of either file is caught: opening fails, or checking the blocks does, and no probe ever gives
/// a wrong value.
#[test]
fn every_flipped_bit_is_an_error_never_a_wrong_value() {
    for file in DAMAGED {
        every_flipped_bit_is_an_error_in(file);
    }
}

fn every_flipped_bit_is_an_error_in(file: Damaged) {
    let Damaged {
        floors, omitted, ..
    } = file;
    let (wdl, distance, values) = damaged_fixture(file);
    for which in [FileKind::Wdl, FileKind::Distance] {
        let original = if which == FileKind::Wdl {
            &wdl
        } else {
            &distance
        };
        for bit in 0..original.len() * 8 {
            let mut damaged = original.clone();
            damaged[bit / 8] ^= 1 << (bit % 8);
            let (w, d) = match which {
                FileKind::Wdl => (damaged, distance.clone()),
                FileKind::Distance => (wdl.clone(), damaged),
            };
            let table = match open_pair(w, d) {
                Err(e) => {
                    let expected_name = if which == FileKind::Wdl {
                        "c.rwdl"
                    } else {
                        "c.rdst"
                    };
                    assert!(
                        e.to_string().starts_with(expected_name),
                        "{which:?} bit {bit}: {e}"
                    );
                    continue;
                }
                Ok(table) => table,
            };
            assert!(
                table.check_blocks().is_err(),
                "{which:?}: flip of bit {bit} went unnoticed"
            );
            let mut errors = 0;
            for i in 0..table.size() {
                if table.stores(i) {
                    match table.probe(i) {
                        Ok(v) => {
                            assert_eq!(v, values(i), "{which:?} bit {bit}: wrong value at {i}")
                        }
                        Err(_) => errors += 1,
                    }
                } else {
                    // Never a value for an index left out, damaged or not.
                    assert!(
                        table.probe(i).is_err(),
                        "{which:?} bit {bit}: a value at {i}"
                    );
                    assert!(
                        omitted && FIXTURE_OMITTED.contains(&i),
                        "{which:?} bit {bit}: {i}"
                    );
                }
                match (table.probe_wdl(i), values(i)) {
                    (Ok(o), Some(v)) => {
                        assert_eq!(o, v.outcome(), "{which:?} bit {bit}: wrong WDL at {i}")
                    }
                    (Err(_), _) => errors += 1,
                    (Ok(_), None) => {}
                }
                // The WDL file itself (what `probe_wdl` reads through the distance file when it holds floors).
                match (table.probe_wdl_floor(i), values(i)) {
                    (Ok(o), Some(v)) => assert!(
                        o == v.outcome() || (floors && o < v.outcome()),
                        "{which:?} bit {bit}: WDL {o} for {v} at {i}"
                    ),
                    (Err(_), _) => errors += 1,
                    (Ok(_), None) => {}
                }
            }
            // A block of indices all left out is never probed: reading it whole finds the damage.
            let distance_file = table.distance_file();
            errors += (0..distance_file.header().block_count)
                .filter(|&b| distance_file.stored_distance_block(b).is_err())
                .count();
            assert!(
                errors > 0,
                "{which:?} bit {bit}: a damaged block was never reported"
            );
        }
    }
}

/// In version 7 a damaged chunk of the block index does not stop the file from opening, nor the blocks of the other
/// chunks from being read: the blocks of that chunk are refused, naming it.
#[test]
fn a_damaged_index_chunk_refuses_its_blocks_only() {
    let (wdl, mut distance, values) = damaged_fixture(DAMAGED[6]);
    // The head ends at the u32 at offset 16; the entries of chunk 1 (blocks 2 and 3) follow those of chunk 0.
    let head_len = u32::from_le_bytes(distance[16..20].try_into().unwrap()) as usize;
    distance[head_len + 2 * 12 + 5] ^= 0x10;
    let table = open_pair(wdl, distance).unwrap();
    let file = table.distance_file();
    assert_eq!(file.header().version, 7);
    for block in 0..file.header().block_count {
        match file.check_block(block) {
            Ok(()) => assert!(!(2..4).contains(&block), "block {block} read"),
            Err(e) => {
                assert!((2..4).contains(&block), "block {block}: {e}");
                assert!(
                    matches!(e.kind(), ErrorKind::IndexChecksum { chunk: 1 }),
                    "{e}"
                );
                assert!(e.to_string().contains("chunk 1 of the block index"), "{e}");
            }
        }
    }
    for i in 0..table.size() {
        let in_damaged_chunk = (64..128).contains(&i);
        assert_eq!(table.probe(i).is_err(), in_damaged_chunk, "index {i}");
        if !in_damaged_chunk {
            assert_eq!(table.probe(i).unwrap(), values(i), "index {i}");
        }
    }
}

#[test]
fn every_truncation_is_an_error_naming_the_file() {
    for file in DAMAGED {
        every_truncation_is_an_error_in(file);
    }
}

fn every_truncation_is_an_error_in(file: Damaged) {
    let (wdl, distance, _) = damaged_fixture(file);
    for len in 0..wdl.len() {
        let err = open_pair(wdl[..len].to_vec(), distance.clone())
            .err()
            .expect("truncated WDL opened");
        assert!(err.to_string().starts_with("c.rwdl: "), "{err}");
    }
    for len in 0..distance.len() {
        let err = open_pair(wdl.clone(), distance[..len].to_vec())
            .err()
            .expect("truncated distance opened");
        assert!(err.to_string().starts_with("c.rdst: "), "{err}");
    }
    // Bytes appended are caught too.
    let mut longer = wdl.clone();
    longer.push(0);
    assert!(matches!(
        open_pair(longer, distance).err().unwrap().kind(),
        ErrorKind::Truncated { .. }
    ));
}

#[test]
fn a_newer_format_version_is_refused_as_such() {
    let (mut wdl, distance, _) = damaged_fixture(DAMAGED[1]);
    wdl[8..12].copy_from_slice(&(retro_probe::format::VERSION + 1).to_le_bytes());
    let err = open_pair(wdl, distance).err().unwrap();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::NewerVersion {
                found: 9,
                supported: 8
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("version 9 is newer"), "{err}");
    let err = write_table(
        tempfile::tempdir().unwrap().path(),
        &spec_version("v", 10, 1, b"", 3),
        |_| Some(Value::DRAW),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("cannot write format version 3"),
        "{err}"
    );
}

#[test]
fn version_2_holds_the_same_values_as_version_1_in_fewer_bytes() {
    let synthetic = Synthetic {
        seed: 21,
        max_plies: 60,
        hole_rate: 30,
    };
    let values = |i| synthetic.value(i);
    let mut sizes = Vec::new();
    let mut tables = Vec::new();
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    for (dir, version) in dirs.iter().zip(VERSIONS) {
        let mut spec = spec_version("same", 5000, 2, b"payload", version);
        spec.options = WriteOptions {
            version,
            ..WriteOptions::default()
        };
        let written = write_table(dir.path(), &spec, values).unwrap();
        sizes.push((written.wdl_bytes, written.distance_bytes));
        tables.push(Table::open(dir.path(), "graph", "same", 1 << 20).unwrap());
    }
    assert_eq!(tables[0].meta(), tables[1].meta());
    for i in 0..5000 {
        assert_eq!(tables[0].probe(i).unwrap(), tables[1].probe(i).unwrap());
        assert_eq!(tables[0].probe(i).unwrap(), values(i));
        if values(i).is_some() {
            assert_eq!(
                tables[0].probe_wdl(i).unwrap(),
                tables[1].probe_wdl(i).unwrap()
            );
        }
    }
    // The header alone shrinks by more than 80 bytes (fixed-width counts and offsets).
    assert!(sizes[1].0 + 80 < sizes[0].0, "{sizes:?}");
    assert!(sizes[1].1 + 80 < sizes[0].1, "{sizes:?}");
}

/// A value with a period of 37 indices (like the last piece's squares in a chess index): distances that change
/// slowly along a column and jump between neighbouring columns.
fn periodic(i: Index) -> Option<Value> {
    let (row, column) = (i / 37, i % 37);
    let h = mix(column);
    match h % 5 {
        0 => None,
        1 => Some(Value::DRAW),
        2 | 3 => Some(Value::win((row / 4 + h % 50) as u32 % 300)),
        _ => Some(Value::loss((row / 4 + h % 40) as u32 % 300)),
    }
}

/// Distance blocks of a table with a period are stored transposed when that is smaller, read back exactly, and
/// give a smaller file than without transposition (a large table, which is not tried).
#[test]
fn periodic_distance_blocks_are_stored_transposed_and_read_back() {
    use retro_probe::Layout;
    let dir = tempfile::tempdir().unwrap();
    let size = 40_000;
    let options = WriteOptions {
        distance_block_values: 1 << 13,
        distance_level: 9,
        try_transposed: true,
        ..small_blocks()
    };
    let mut spec = spec("periodic", size, 1, b"");
    spec.options = options;
    let written = write_table(dir.path(), &spec, periodic).unwrap();
    let table = Table::open(dir.path(), "graph", "periodic", 1 << 22).unwrap();
    assert_reads_back(&table, &periodic);
    let file = table.distance_file();
    assert_eq!(file.header().encoding, retro_probe::Encoding::Distance16);
    let layouts: Vec<_> = (0..file.header().block_count)
        .map(|b| file.block_layout(b).unwrap().unwrap())
        .collect();
    assert!(layouts.contains(&Layout::Transposed), "{layouts:?}");
    // The same table written as a large one (no transposition) takes more room.
    let other = tempfile::tempdir().unwrap();
    spec.options = WriteOptions {
        large_table: 0,
        large_distance_block_values: 1 << 13,
        large_distance_level: 9,
        ..options
    };
    let large = write_table(other.path(), &spec, periodic).unwrap();
    assert!(
        written.distance_bytes < large.distance_bytes,
        "{} >= {}",
        written.distance_bytes,
        large.distance_bytes
    );
    let table = Table::open(other.path(), "graph", "periodic", 1 << 22).unwrap();
    assert_reads_back(&table, &periodic);
}

/// Values in columns of 37 (as a chess index has the squares of its last man), each column in runs of its own length
/// along the rows (as a man's square changes the outcome little): rows seldom repeat, columns do.
fn columnar(i: Index) -> Option<Value> {
    columnar_in(37, i)
}

/// [`columnar`] with `columns` columns.
fn columnar_in(columns: u64, i: Index) -> Option<Value> {
    let (row, column) = (i / columns, i % columns);
    let run = 4 + mix(column) % 29;
    let h = mix(column.wrapping_mul(0x1234_5678_9abc) ^ (row / run));
    if mix(i ^ 0xabc).is_multiple_of(10) {
        return None;
    }
    let plies = (row % 50) as u32;
    Some(match h % 3 {
        0 => Value::DRAW,
        1 => Value::win(plies),
        _ => Value::loss(plies),
    })
}

/// Writes `spec`'s table with WDL blocks of `block_values` at level 9, transposed blocks tried if `try_transposed`,
/// checks that it reads back, and returns its directory, the WDL file's size and the table.
fn write_transposable<S: Fn(Index) -> u8 + Sync>(
    mut spec: TableSpec<'_, S>,
    block_values: u32,
    try_transposed: bool,
    values: impl Fn(Index) -> Option<Value> + Sync,
) -> (tempfile::TempDir, u64, Table) {
    let dir = tempfile::tempdir().unwrap();
    spec.options.wdl_block_values = block_values;
    spec.options.wdl_level = 9;
    spec.options.try_transposed = try_transposed;
    let written = write_table(dir.path(), &spec, &values).unwrap();
    let table = Table::open(dir.path(), spec.game, spec.name, 1 << 22).unwrap();
    assert_reads_back(&table, &values);
    (dir, written.wdl_bytes, table)
}

/// A row length the game gives ([`TableSpec::index_periods`]) is tried even where the writer's own search for
/// periods (up to 256) cannot find it: 700 columns.
#[test]
fn the_index_periods_a_game_gives_are_tried() {
    use retro_probe::Layout;
    let values = |i: Index| columnar_in(700, i);
    let mut sizes = Vec::new();
    for index_periods in [&[][..], &[700][..]] {
        let spec = TableSpec {
            index_periods,
            ..spec("wide", 1 << 16, 1, b"")
        };
        let (_dir, bytes, table) = write_transposable(spec, 1 << 16, true, values);
        sizes.push(bytes);
        let layout = table.wdl_file().block_layout(0).unwrap().unwrap();
        assert_eq!(
            layout == Layout::Transposed,
            !index_periods.is_empty(),
            "{index_periods:?}"
        );
    }
    assert!(sizes[1] * 2 < sizes[0], "{sizes:?}");
}

/// The digits of the index of [`two_digit_value`]'s table.
const TWO_DIGIT_DIGITS: &[u64] = &[4, 64, 16, 32];

/// A table whose values hang on two of its four digits ([`TWO_DIGIT_DIGITS`]) that no rotation brings together (the
/// first and the third), one index in twenty a hole.
fn two_digit_value(i: Index) -> Option<Value> {
    let (first, third) = (i / (64 * 16 * 32), i / 32 % 16);
    match mix(i) % 20 {
        0 => None,
        _ => Some(match mix(first * 16 + third) % 3 {
            0 => Value::loss(0),
            1 => Value::DRAW,
            _ => Value::win(1),
        }),
    }
}

/// A WDL file of floors that is one block, of a table whose values hang on two of its four digits that no rotation
/// brings together (the first and the third): the writer stores the block with its digits in another order
/// ([`Layout::Permuted`]), which reads back exactly and is smaller than anything it finds without the digits; a file
/// of exact outcomes (version 2 or 4, which have no permuted blocks) and a table of several blocks are not permuted.
#[test]
fn a_whole_table_block_of_floors_is_stored_with_its_digits_in_the_best_order() {
    use retro_probe::Layout;
    let digits = TWO_DIGIT_DIGITS;
    let size: Index = digits.iter().product();
    let values = two_digit_value;
    let no_exit = |_: Index| Outcome::Loss;
    let write = |index_digits: &[u64], floors: bool, block_values: u32| {
        let spec = TableSpec {
            index_digits,
            exits: floors.then_some(&no_exit as &(dyn Fn(Index) -> Outcome + Sync)),
            ..spec("digits", size, 1, b"")
        };
        let (dir, bytes, table) = write_transposable(spec, block_values, true, values);
        let layouts: Vec<Layout> = (0..table.wdl_file().header().block_count)
            .map(|b| table.wdl_file().block_layout(b).unwrap().unwrap())
            .collect();
        (dir, bytes, table.wdl_file().header().version, layouts)
    };
    let whole = 1 << 21;
    let (_dir, without, _, _) = write(&[], true, whole);
    let (_dir, with, version, layouts) = write(digits, true, whole);
    assert_eq!((version, layouts), (6, vec![Layout::Permuted]));
    assert!(
        with * 2 < without,
        "{with} bytes permuted, {without} without"
    );
    let (_dir, _, version, layouts) = write(digits, false, whole);
    assert!(version < 6, "version {version}");
    assert!(!layouts.contains(&Layout::Permuted), "{layouts:?}");
    let (_dir, _, _, layouts) = write(digits, true, 1 << 16);
    assert!(!layouts.contains(&Layout::Permuted), "{layouts:?}");
}

/// The orders of a file of one block are tried on several threads at once: its bytes are the same with one, two or
/// three threads, of a block permuted in a better order of its digits, with floors whose free positions hang on the
/// orders tried (each looked up once whichever thread asks first).
#[test]
fn a_one_block_file_is_the_same_whatever_the_threads_trying_its_orders() {
    use retro_probe::Layout;
    let digits = TWO_DIGIT_DIGITS;
    let size: Index = digits.iter().product();
    let values = two_digit_value;
    // One position in seven has an exit reaching its own outcome, so it may store a worse one.
    let best_exit = |i: Index| match values(i) {
        Some(v) if mix(i ^ 0x5eed).is_multiple_of(7) => v.outcome(),
        _ => Outcome::Loss,
    };
    let mut files = Vec::new();
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let spec = TableSpec {
            index_digits: digits,
            exits: Some(&best_exit as &(dyn Fn(Index) -> Outcome + Sync)),
            ..spec("digits", size, 1, b"")
        };
        let (dir, _, table) = pool.install(|| write_transposable(spec, 1 << 21, true, values));
        assert_eq!(
            table.wdl_file().block_layout(0).unwrap(),
            Some(Layout::Permuted)
        );
        // Each stored outcome is the position's own, or a worse one where its exits reach its own.
        for i in 0..size {
            if let Some(v) = values(i) {
                let stored = table.probe_wdl_floor(i).unwrap();
                assert!(
                    stored == v.outcome() || (stored < v.outcome() && best_exit(i) == v.outcome()),
                    "index {i}: {stored:?} stored for {v:?}"
                );
            }
        }
        files.push(std::fs::read(dir.path().join("graph/digits.rwdl")).unwrap());
    }
    assert!(
        files[0] == files[1] && files[1] == files[2],
        "1, 2 and 3 threads wrote different bytes"
    );
}

/// WDL blocks of a table with a period are stored transposed (one code a byte, version 4) when that is smaller,
/// with or without floors, read back exactly, and the file is smaller than without trying.
#[test]
fn columnar_wdl_blocks_are_stored_transposed_in_version_4() {
    use retro_probe::Layout;
    let size = 40_000;
    // Two positions in three have exits that reach their value.
    let best_exit = |i: Index| match columnar(i) {
        Some(v) if !i.is_multiple_of(3) => v.outcome(),
        _ => Outcome::Loss,
    };
    for floors in [false, true] {
        let mut sizes = Vec::new();
        for try_transposed in [false, true] {
            let spec = TableSpec {
                exits: floors.then_some(&best_exit as &(dyn Fn(Index) -> Outcome + Sync)),
                ..spec("columnar", size, 1, b"")
            };
            let (_dir, bytes, table) = write_transposable(spec, 1 << 13, try_transposed, columnar);
            sizes.push(bytes);
            let file = table.wdl_file();
            assert_eq!(file.header().floors(), floors);
            let layouts: Vec<_> = (0..file.header().block_count)
                .map(|b| file.block_layout(b).unwrap().unwrap())
                .collect();
            let transposed = layouts.contains(&Layout::Transposed);
            assert_eq!(transposed, try_transposed, "{layouts:?}");
            let version = match (transposed, floors) {
                (_, true) => 6,
                (true, false) => 4,
                (false, false) => 2,
            };
            assert_eq!(file.header().version, version);
            for i in 0..size {
                let Some(value) = columnar(i) else { continue };
                let stored = table.probe_wdl_floor(i).unwrap();
                assert!(
                    stored == value.outcome()
                        || (stored < value.outcome() && best_exit(i) == value.outcome())
                );
            }
        }
        assert!(sizes[1] < sizes[0], "floors {floors}: {sizes:?}");
    }
}

/// With `transpose_wdl` (what `--compact` sets, and chess up to 4 men), WDL blocks are tried transposed whatever
/// the table's size and `try_transposed`; without it, only with `try_transposed` in a table that is not large
/// (more indices than `large_table`). Distance blocks are never tried transposed in a large table, nor without
/// `try_transposed`.
#[test]
fn transpose_wdl_tries_wdl_blocks_transposed_alone() {
    use retro_probe::Layout;
    let size = 40_000;
    for (large, try_transposed) in [(true, true), (false, false)] {
        let mut sizes = Vec::new();
        for transpose_wdl in [false, true] {
            let mut spec = spec("columnar", size, 1, b"");
            if large {
                spec.options.large_table = 1000;
                spec.options.large_distance_block_values = 1 << 13;
            }
            spec.options.transpose_wdl = transpose_wdl;
            let (_dir, bytes, table) = write_transposable(spec, 1 << 13, try_transposed, columnar);
            sizes.push(bytes);
            let layouts = |file: &TableFile| -> Vec<Layout> {
                (0..file.header().block_count)
                    .map(|b| file.block_layout(b).unwrap().unwrap())
                    .collect()
            };
            let wdl = layouts(table.wdl_file());
            assert_eq!(
                wdl.contains(&Layout::Transposed),
                transpose_wdl,
                "large {large}: {wdl:?}"
            );
            let distance = layouts(table.distance_file());
            assert!(
                !distance.contains(&Layout::Transposed),
                "large {large}: {distance:?}"
            );
        }
        assert!(sizes[1] < sizes[0], "large {large}: {sizes:?}");
    }
}

/// Blocks where every value is the same (holes filled included) take two bytes; small WDL blocks are stored in
/// whichever of the packed and the one-value-per-byte layouts is smaller; every layout reads back.
#[test]
fn blocks_of_one_value_are_constant_and_every_layout_reads_back() {
    use retro_probe::Layout;
    // Blocks of 64 WDL values and 32 distance values: block 0 is all holes, block 1 all draws (holes between
    // them), then a region of wins at one distance, then mixed values.
    let values = |i: Index| match i {
        0..64 => None,
        64..128 => (!i.is_multiple_of(3)).then_some(Value::DRAW),
        128..256 => Some(Value::win(7)),
        _ => Synthetic {
            seed: 4,
            max_plies: 300,
            hole_rate: 25,
        }
        .value(i),
    };
    let dir = tempfile::tempdir().unwrap();
    write_table(dir.path(), &spec("layouts", 2000, 1, b""), values).unwrap();
    let table = Table::open(dir.path(), "graph", "layouts", 1 << 20).unwrap();
    assert_reads_back(&table, &values);
    let layouts = |file: &TableFile| -> Vec<Layout> {
        (0..file.header().block_count)
            .map(|b| file.block_layout(b).unwrap().unwrap())
            .collect()
    };
    let wdl = layouts(table.wdl_file());
    let distance = layouts(table.distance_file());
    assert_eq!(&wdl[..4], [Layout::Constant; 4]);
    assert_eq!(&distance[..2], [Layout::Constant; 2]);
    assert_eq!(&distance[4..8], [Layout::Constant; 4]);
    assert!(wdl[4..].iter().all(|&l| l != Layout::Constant), "{wdl:?}");
    assert!(
        distance[8..].iter().all(|&l| l == Layout::Packed),
        "{distance:?}"
    );
    // A constant block is a layout byte and one code: one byte in the WDL file, two with the 16-bit distance
    // codes here.
    let file = table.distance_file();
    assert_eq!(file.header().encoding, retro_probe::Encoding::Distance16);
    for block in [0, 1, 4, 7] {
        assert_eq!(file.stored_block_len(block).unwrap(), 3, "block {block}");
    }
    for block in 0..4 {
        assert_eq!(table.wdl_file().stored_block_len(block).unwrap(), 2);
    }
    // Both WDL layouts of compressed blocks occur in a table of many small random blocks, and read back.
    let mixed = |i: Index| {
        Synthetic {
            seed: 9 + i / 640,
            max_plies: 10,
            hole_rate: 10,
        }
        .value(i)
    };
    write_table(dir.path(), &spec("mixed", 64 * 400, 1, b""), mixed).unwrap();
    let table = Table::open(dir.path(), "graph", "mixed", 1 << 20).unwrap();
    assert_reads_back(&table, &mixed);
    let wdl = layouts(table.wdl_file());
    for layout in [Layout::Packed, Layout::Bytes] {
        assert!(wdl.contains(&layout), "{layout:?} never chosen: {wdl:?}");
    }
}

#[test]
fn another_table_a_mismatched_pair_and_a_missing_file_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_table(
        root,
        &TableSpec {
            game: "chess",
            ..spec("x", 100, 2, b"")
        },
        |_| Some(Value::DRAW),
    )
    .unwrap();
    write_table(root, &spec("y", 100, 2, b""), |_| Some(Value::DRAW)).unwrap();
    write_table(root, &spec("z", 100, 2, b""), |_| Some(Value::loss(0))).unwrap();

    // A chess table put where the graph table "x" should be.
    std::fs::create_dir_all(root.join("graph")).unwrap();
    for kind in [FileKind::Wdl, FileKind::Distance] {
        std::fs::copy(
            table_path(root, "chess", "x", kind),
            table_path(root, "graph", "x", kind),
        )
        .unwrap();
    }
    let err = Table::open(root, "graph", "x", 0).err().unwrap();
    assert!(matches!(err.kind(), ErrorKind::WrongTable { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("x.rwdl: holds the table chess x, not graph x"),
        "{err}"
    );

    // The distance file of another table of the same size.
    std::fs::rename(
        table_path(root, "graph", "z", FileKind::Distance),
        table_path(root, "graph", "y", FileKind::Distance),
    )
    .unwrap();
    let err = Table::open(root, "graph", "y", 0).err().unwrap();
    assert!(matches!(err.kind(), ErrorKind::WrongTable { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("y.rdst: holds the table graph z, not graph y"),
        "{err}"
    );

    // A missing distance file, a missing table.
    let err = Table::open(root, "graph", "z", 0).err().unwrap();
    assert!(matches!(err.kind(), ErrorKind::Missing), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "{}: no such file",
            table_path(root, "graph", "z", FileKind::Distance).display()
        )
    );
    let err = Table::open(root, "graph", "nothing", 0).err().unwrap();
    assert!(
        err.to_string().ends_with("nothing.rwdl: no such file"),
        "{err}"
    );
}

#[test]
fn a_pair_of_files_of_different_tables_is_a_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_table(root, &spec("y", 100, 2, b""), |_| Some(Value::DRAW)).unwrap();
    let other = tempfile::tempdir().unwrap();
    write_table(other.path(), &spec("y", 100, 2, b""), |_| {
        Some(Value::loss(0))
    })
    .unwrap();
    std::fs::copy(
        table_path(other.path(), "graph", "y", FileKind::Distance),
        table_path(root, "graph", "y", FileKind::Distance),
    )
    .unwrap();
    let err = Table::open(root, "graph", "y", 0).err().unwrap();
    assert!(matches!(err.kind(), ErrorKind::Mismatch(_)), "{err}");
}

// --- a full disk ---------------------------------------------------------------------------------------------

/// A file that accepts `room` bytes and then fails as a full disk does (ENOSPC).
struct FullDisk {
    file: std::fs::File,
    room: u64,
}

impl Write for FullDisk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() as u64 > self.room {
            return Err(io::Error::from_raw_os_error(28));
        }
        self.room -= buf.len() as u64;
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Seek for FullDisk {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
    }
}

impl Sink for FullDisk {
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_all()
    }
}

/// A file that changes one bit of what is written at offset `at`, as a faulty disk or driver would.
struct FlippingDisk {
    file: std::fs::File,
    at: u64,
}

impl Write for FlippingDisk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let start = self.file.stream_position()?;
        let mut buf = buf.to_vec();
        if (start..start + buf.len() as u64).contains(&self.at) {
            buf[(self.at - start) as usize] ^= 0x10;
        }
        self.file.write_all(&buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Seek for FlippingDisk {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.file.seek(pos)
    }
}

impl Sink for FlippingDisk {
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_all()
    }
}

/// A file whose bytes on disk are not those written, in its header or in a block, fails the read-back check: the
/// write is an error that says so, and no file is left, under a final name or a temporary one.
#[test]
fn a_file_that_does_not_read_back_as_written_is_not_kept() {
    let synthetic = Synthetic {
        seed: 3,
        max_plies: 40,
        hole_rate: 5,
    };
    let table_spec = || {
        let mut spec = spec("flip", 5000, 2, b"");
        // Several blocks in each file.
        spec.options.wdl_block_values = 1024;
        spec.options.distance_block_values = 1024;
        spec
    };
    let reference = tempfile::tempdir().unwrap();
    let written = write_table(reference.path(), &table_spec(), |i| synthetic.value(i)).unwrap();
    let smaller = written.wdl_bytes.min(written.distance_bytes);
    // The magic, a header field, the middle of the file (a block), the last byte of the smaller file.
    for at in [0, 20, smaller / 2, smaller - 1] {
        let dir = tempfile::tempdir().unwrap();
        let make = move |file| Ok(Box::new(FlippingDisk { file, at }) as Box<dyn Sink>);
        let err = write_table_to(dir.path(), &table_spec(), &|i| synthetic.value(i), &make)
            .err()
            .unwrap_or_else(|| panic!("a bit flipped at {at} went unnoticed"));
        assert!(err.to_string().contains("read-back check failed"), "{err}");
        assert_eq!(
            files_in(&dir.path().join("graph")),
            Vec::<String>::new(),
            "flipped at {at}"
        );
    }
}

fn files_in(dir: &Path) -> Vec<String> {
    match std::fs::read_dir(dir) {
        Err(_) => Vec::new(),
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect(),
    }
}

#[test]
fn a_full_disk_is_a_clear_error_and_leaves_no_file() {
    let synthetic = Synthetic {
        seed: 5,
        max_plies: 50,
        hole_rate: 5,
    };
    let reference = tempfile::tempdir().unwrap();
    let written = write_table(reference.path(), &spec("full", 3000, 2, b""), |i| {
        synthetic.value(i)
    })
    .unwrap();
    // Each file gets `room` bytes: the write fails while the larger of the two does not fit.
    let larger = written.wdl_bytes.max(written.distance_bytes);
    for room in [
        0,
        10,
        100,
        written.wdl_bytes.min(written.distance_bytes),
        larger - 1,
    ] {
        let dir = tempfile::tempdir().unwrap();
        let make = move |file| Ok(Box::new(FullDisk { file, room }) as Box<dyn Sink>);
        let err = write_table_to(
            dir.path(),
            &spec("full", 3000, 2, b""),
            &|i| synthetic.value(i),
            &make,
        )
        .err()
        .unwrap_or_else(|| panic!("{room} bytes were enough?"));
        assert!(matches!(err, WriteError::DiskFull { .. }), "{err}");
        assert!(err.to_string().contains("disk full"), "{err}");
        assert_eq!(
            files_in(&dir.path().join("graph")),
            Vec::<String>::new(),
            "room {room}"
        );
    }
}

/// The compact options write a distance file no larger than the default ones (here smaller: the blocks have a
/// period, which only they try), and both read back exactly.
#[test]
fn compact_options_write_smaller_distance_files() {
    let size = 300_000;
    let mut sizes = Vec::new();
    for options in [WriteOptions::default(), WriteOptions::compact()] {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = spec("periodic", size, 1, b"");
        spec.options = options;
        let written = write_table(dir.path(), &spec, periodic).unwrap();
        let table = Table::open(dir.path(), "graph", "periodic", 1 << 22).unwrap();
        assert_reads_back(&table, &periodic);
        sizes.push(written.distance_bytes);
    }
    assert!(sizes[1] < sizes[0], "{sizes:?}");
}

/// WDL blocks compressed again with a longer shortest match keep whichever frame is smaller: the file is never
/// larger than without, sometimes smaller, and reads back exactly.
#[test]
fn a_second_shortest_match_never_makes_a_wdl_file_larger() {
    let size = 200_000;
    let noisy = |i: Index| match mix(i / 7) % 5 {
        0 => None,
        1 | 2 => Some(Value::win(1 + (i % 3) as u32)),
        3 => Some(Value::DRAW),
        _ => Some(Value::loss(2)),
    };
    let tables: [&(dyn Fn(Index) -> Option<Value> + Sync); 3] = [&noisy, &periodic, &columnar];
    for (t, values) in tables.into_iter().enumerate() {
        let mut sizes = Vec::new();
        for min_match in [None, Some(6)] {
            let dir = tempfile::tempdir().unwrap();
            let mut spec = spec("second", size, 1, b"");
            spec.options = WriteOptions {
                wdl_block_values: 1 << 16,
                wdl_min_match: min_match,
                ..WriteOptions::compact()
            };
            let written = write_table(dir.path(), &spec, values).unwrap();
            let table = Table::open(dir.path(), "graph", "second", 1 << 22).unwrap();
            assert_reads_back(&table, values);
            sizes.push(written.wdl_bytes);
        }
        assert!(sizes[1] <= sizes[0], "table {t}: {sizes:?}");
        // The noisy table's blocks do shrink (9,338 bytes to 9,336 with zstd 1.5.7): the second frame is kept.
        if t == 0 {
            assert!(sizes[1] < sizes[0], "{sizes:?}");
        }
    }
}
