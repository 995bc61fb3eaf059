//! The out-of-core path: forced by a tiny memory budget, it must give exactly the values (and totals) of the
//! in-memory path; interrupted at any step and started again, it must resume and still give them; it refuses a work
//! directory without enough space, and a checkpoint of another game.

mod common;

use std::path::Path;

use common::{Entry, ListGame, Rng, random_game, random_graph};
use retro_engine::{
    EngineError, Move, PlayConvention, Solution, SolveOptions, Stats, Testing, Value, certify,
    solve,
};

/// A solution's totals but its cell width: out of core, a game whose distances do not follow their parity is built
/// in plain bytes, and in memory in 16-bit cells.
fn table_stats(solution: &Solution) -> Stats {
    Stats {
        cell_bytes: 0,
        ..solution.stats().clone()
    }
}

fn all_values(s: &Solution) -> Vec<Option<Value>> {
    (0..s.size()).map(|i| s.value(i)).collect()
}

/// Options of the sliced path in `dir` with a budget of `memory` bytes (tiny budgets give slices of 4 indices).
fn sliced(dir: &Path, memory: u64, convention: PlayConvention) -> SolveOptions {
    SolveOptions {
        convention,
        work_dir: Some(dir.to_owned()),
        memory: Some(memory),
        testing: Testing {
            skip_sync: true,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn in_memory(game: &ListGame, convention: PlayConvention) -> Solution {
    let options = SolveOptions {
        convention,
        ..Default::default()
    };
    solve(game, &options).unwrap()
}

fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn check_many(seed: u64, games: usize, partizan: bool, with_exits: bool) {
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let mut sliced_builds = 0;
    for case in 0..games {
        let game = random_game(&mut rng, partizan, with_exits);
        for convention in [PlayConvention::Normal, PlayConvention::Misere] {
            let expected = in_memory(&game, convention);
            let mut options = sliced(dir.path(), 1, convention);
            // The next frontiers read off the cells, gathered as positions are resolved, or gathered until a
            // generation resolves too many.
            options.testing.gathered_cap = Some(match case % 3 {
                0 => 0,
                1 => u64::MAX,
                _ => rng.below(40),
            });
            // Every other game leaves its moves uncounted until the engine needs them.
            let solution = if case % 2 == 0 {
                solve(&game, &options).unwrap()
            } else {
                solve(&game.clone().surveyed_uncounted(), &options).unwrap()
            };
            assert_eq!(
                all_values(&solution),
                all_values(&expected),
                "case {case} ({convention:?}), game {game:?}"
            );
            assert_eq!(
                table_stats(&solution),
                table_stats(&expected),
                "case {case}"
            );
            if solution.report().slices > 1 {
                sliced_builds += 1;
            }
            drop(solution);
            assert!(
                files_in(dir.path()).is_empty(),
                "leftovers after case {case}"
            );
        }
    }
    // Most games must really be cut into several slices, or the comparison proves little.
    assert!(sliced_builds > games, "only {sliced_builds} sliced builds");
}

#[test]
fn impartial_graphs_give_the_in_memory_values() {
    check_many(11, 600, false, false);
}

#[test]
fn partizan_graphs_give_the_in_memory_values() {
    check_many(12, 400, true, false);
}

#[test]
fn exits_terminals_and_holes_give_the_in_memory_values() {
    check_many(13, 500, false, true);
    check_many(14, 300, true, true);
}

#[test]
fn a_larger_graph_gives_the_same_values_totals_and_a_certificate() {
    let game = random_graph(20_000, 21);
    let expected = in_memory(&game, PlayConvention::Normal);
    let dir = tempfile::tempdir().unwrap();
    let solution = solve(&game, &sliced(dir.path(), 2000, PlayConvention::Normal)).unwrap();
    assert!(all_values(&solution) == all_values(&expected));
    assert_eq!(table_stats(&solution), table_stats(&expected));
    let report = solution.report();
    // An eighth of the budget for one slice of one-byte cells: 128 indices (of which about 10 slices stay resident).
    assert_eq!(report.slice_positions, 128);
    assert_eq!(report.slices, 157);
    assert!(report.bytes_read > 0 && report.bytes_written > report.bytes_read / 2);
    assert_eq!(report.resumed_at, None);
    certify(&game, PlayConvention::Normal, |i| solution.value(i)).unwrap();
}

#[test]
fn long_paths_widen_sliced_cells_and_stay_exact() {
    // Distances up to 17,000 plies: the cells widen from 8 to 16 to 32 bits, each time cut into shorter slices.
    let n = 17_001;
    let path: Vec<Vec<usize>> = (0..n)
        .map(|p| if p == 0 { vec![] } else { vec![p - 1] })
        .collect();
    let game = ListGame::from_graph(&path);
    let dir = tempfile::tempdir().unwrap();
    let s = solve(&game, &sliced(dir.path(), 4096, PlayConvention::Normal)).unwrap();
    assert_eq!(s.stats().cell_bytes, 4);
    assert_eq!(s.report().slice_positions, 128);
    assert!(all_values(&s) == all_values(&in_memory(&game, PlayConvention::Normal)));
}

#[test]
fn deep_exits_and_slow_refutations_match_in_memory() {
    let games = [
        // An exit into a loss in 500 plies: too deep for 8-bit cells from the start.
        ListGame::new(vec![
            Entry::Moves(vec![Move::Exit(Value::loss(500)), Move::To(1)]),
            Entry::Moves(vec![Move::To(0)]),
        ]),
        // A loss that waits for its slowest exit.
        ListGame::new(vec![
            Entry::Moves(vec![Move::To(1), Move::Exit(Value::win(9))]),
            Entry::Moves(vec![Move::Exit(Value::loss(0))]),
            Entry::Hole,
            Entry::Terminal(Value::loss(3)),
            Entry::Moves(vec![Move::To(3), Move::To(0)]),
        ]),
    ];
    for game in games {
        let dir = tempfile::tempdir().unwrap();
        let s = solve(&game, &sliced(dir.path(), 1, PlayConvention::Normal)).unwrap();
        assert!(s.report().slices >= 1);
        assert_eq!(
            all_values(&s),
            all_values(&in_memory(&game, PlayConvention::Normal))
        );
    }
}

/// Solves with a crash after a random number of steps, again and again, until a build finishes.
fn crash_until_done(
    game: &ListGame,
    dir: &Path,
    memory: u64,
    rng: &mut Rng,
    limit: u64,
) -> (Solution, u32) {
    crash_in_rounds_until_done(game, dir, memory, None, rng, limit)
}

/// Builds `game` in `dir`, crashing after a random number of steps and resuming, until the build completes; the
/// generations go in rounds of at most `round_bytes` of buckets when given.
fn crash_in_rounds_until_done(
    game: &ListGame,
    dir: &Path,
    memory: u64,
    round_bytes: Option<u64>,
    rng: &mut Rng,
    limit: u64,
) -> (Solution, u32) {
    let mut crashes = 0;
    loop {
        let mut options = sliced(dir, memory, PlayConvention::Normal);
        options.testing.round_bytes = round_bytes;
        options.testing.crash_after = Some(rng.below(limit));
        options.testing.gathered_cap = Some(match rng.below(3) {
            0 => 0,
            1 => u64::MAX,
            _ => rng.below(40),
        });
        match solve(game, &options) {
            Ok(solution) => return (solution, crashes),
            Err(EngineError::Interrupted) => crashes += 1,
            Err(e) => panic!("after {crashes} crashes: {e}"),
        }
        assert!(crashes < 10_000, "no progress");
    }
}

#[test]
fn generations_walked_in_small_rounds_give_the_in_memory_values() {
    // A few bucket entries per round: most generations take several rounds, some crash between two of them.
    let mut rng = Rng(41);
    let mut total_crashes = 0;
    for case in 0..120 {
        let game = random_game(&mut rng, case % 2 == 1, true);
        let expected = in_memory(&game, PlayConvention::Normal);
        let dir = tempfile::tempdir().unwrap();
        let round = 4 * (1 + rng.below(8));
        let (solution, crashes) = if case % 2 == 0 {
            crash_in_rounds_until_done(&game, dir.path(), 1, Some(round), &mut rng, 10)
        } else {
            let mut options = sliced(dir.path(), 1, PlayConvention::Normal);
            options.testing.round_bytes = Some(round);
            (solve(&game, &options).unwrap(), 0)
        };
        total_crashes += crashes;
        assert!(
            all_values(&solution) == all_values(&expected),
            "case {case}, rounds of {round} bytes"
        );
        assert_eq!(
            table_stats(&solution),
            table_stats(&expected),
            "case {case}"
        );
    }
    assert!(total_crashes > 50, "only {total_crashes} crashes");
}

#[test]
fn builds_interrupted_at_random_steps_resume_to_the_same_values() {
    let mut rng = Rng(31);
    let mut total_crashes = 0;
    for case in 0..80 {
        let game = if case % 2 == 0 {
            random_graph(500 + rng.below(1500) as usize, case)
        } else {
            random_game(&mut rng, case % 4 == 1, true)
        };
        let expected = in_memory(&game, PlayConvention::Normal);
        let dir = tempfile::tempdir().unwrap();
        // Slices of 512 indices: four or fewer, so initialisation takes at most five steps and a generation at most
        // six; a crash after 0 to 11 steps often lets a build make progress, and often stops it halfway.
        let (solution, crashes) = crash_until_done(&game, dir.path(), 4096, &mut rng, 12);
        total_crashes += crashes;
        assert!(
            all_values(&solution) == all_values(&expected),
            "case {case}"
        );
        assert_eq!(
            table_stats(&solution),
            table_stats(&expected),
            "case {case}"
        );
        if crashes > 0 {
            assert!(solution.report().resumed_at.is_some() || solution.report().checkpoints > 0);
        }
        drop(solution);
        assert!(
            files_in(dir.path()).is_empty(),
            "leftovers after case {case}"
        );
    }
    assert!(total_crashes > 200, "only {total_crashes} crashes");
}

#[test]
fn builds_with_more_slices_than_resident_slots_resume_to_the_same_values() {
    // A budget of 2 KiB: slices of 256 one-byte cells, five of them resident; the graphs have 8 to 16 slices, so
    // every generation moves slices in and out of the slot used last, and crashes come between any two steps.
    let mut rng = Rng(47);
    let mut total_crashes = 0;
    for case in 0..40 {
        let game = random_graph(2000 + rng.below(2000) as usize, 100 + case);
        let expected = in_memory(&game, PlayConvention::Normal);
        let dir = tempfile::tempdir().unwrap();
        let (solution, crashes) = crash_until_done(&game, dir.path(), 2048, &mut rng, 40);
        total_crashes += crashes;
        assert_eq!(solution.report().slice_positions, 256);
        assert!(solution.report().slices >= 8);
        assert!(
            all_values(&solution) == all_values(&expected),
            "case {case}"
        );
        assert_eq!(
            table_stats(&solution),
            table_stats(&expected),
            "case {case}"
        );
    }
    assert!(total_crashes > 40, "only {total_crashes} crashes");
}

#[test]
fn a_resumed_build_says_where_it_resumed() {
    let game = random_graph(3000, 41);
    let dir = tempfile::tempdir().unwrap();
    let mut options = sliced(dir.path(), 1024, PlayConvention::Normal);
    // 24 slices: initialisation takes one step per slice and one for its checkpoint; stop well after it.
    options.testing.crash_after = Some(60);
    assert!(matches!(
        solve(&game, &options),
        Err(EngineError::Interrupted)
    ));
    assert!(files_in(dir.path()).contains(&"retro-engine-manifest".to_string()));
    options.testing.crash_after = None;
    let resumed = solve(&game, &options).unwrap();
    assert!(resumed.report().resumed_at.unwrap() > 0);
    assert!(all_values(&resumed) == all_values(&in_memory(&game, PlayConvention::Normal)));
}

#[test]
fn a_checkpoint_of_another_game_is_refused_unless_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = sliced(dir.path(), 1024, PlayConvention::Normal);
    options.testing.crash_after = Some(30);
    let first = random_graph(3000, 51);
    assert!(matches!(
        solve(&first, &options),
        Err(EngineError::Interrupted)
    ));
    options.testing.crash_after = None;
    let second = random_graph(3000, 52);
    let err = solve(&second, &options).err().expect("another game");
    assert!(matches!(err, EngineError::Checkpoint(_)), "{err}");
    // The other convention is another build too.
    let misere = SolveOptions {
        convention: PlayConvention::Misere,
        ..options.clone()
    };
    assert!(matches!(
        solve(&first, &misere),
        Err(EngineError::Checkpoint(_))
    ));
    options.fresh = true;
    let s = solve(&second, &options).unwrap();
    assert!(all_values(&s) == all_values(&in_memory(&second, PlayConvention::Normal)));
}

#[test]
fn a_damaged_manifest_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let game = random_graph(3000, 61);
    let mut options = sliced(dir.path(), 1024, PlayConvention::Normal);
    options.testing.crash_after = Some(50);
    assert!(solve(&game, &options).is_err());
    let manifest = dir.path().join("retro-engine-manifest");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("generation", "generatiom")).unwrap();
    options.testing.crash_after = None;
    let err = solve(&game, &options).err().expect("damaged");
    assert!(err.to_string().contains("checksum"), "{err}");
}

#[test]
fn a_damaged_cells_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let game = random_graph(3000, 67);
    let mut options = sliced(dir.path(), 1024, PlayConvention::Normal);
    options.testing.crash_after = Some(50);
    assert!(solve(&game, &options).is_err());
    // The first slice's cells file the checkpoint names, one byte changed: it must not be read back as cells.
    let manifest = std::fs::read_to_string(dir.path().join("retro-engine-manifest")).unwrap();
    let tags: Vec<&str> = manifest
        .lines()
        .find_map(|l| l.strip_prefix("cells "))
        .unwrap()
        .split(' ')
        .collect();
    let cells = dir.path().join(format!("retro-engine-cells-0-{}", tags[0]));
    let mut bytes = std::fs::read(&cells).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&cells, bytes).unwrap();
    options.testing.crash_after = None;
    let err = solve(&game, &options).err().expect("damaged");
    assert!(err.to_string().contains("corrupt"), "{err}");
}

#[test]
fn a_work_dir_without_enough_space_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let game = random_graph(10_000, 71);
    let mut options = sliced(dir.path(), 1 << 20, PlayConvention::Normal);
    options.testing.free_space = Some(50_000);
    let err = solve(&game, &options).err().expect("no space");
    assert!(
        matches!(err, EngineError::NoSpace { available: 50_000, needed, .. } if needed > 50_000),
        "{err}"
    );
    assert!(err.to_string().contains("bytes free"));
    assert!(files_in(dir.path()).is_empty());
}

#[test]
fn without_a_work_dir_a_table_larger_than_the_budget_is_refused() {
    let game = random_graph(10_000, 81);
    let options = SolveOptions {
        memory: Some(5000),
        ..Default::default()
    };
    let err = solve(&game, &options).err().expect("too small a budget");
    assert!(
        matches!(err, EngineError::NeedsWorkDir { budget: 5000, .. }),
        "{err}"
    );
}
