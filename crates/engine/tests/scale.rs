//! Larger games: determinism across thread counts, the certificate, wide counters and deep games, file backing.

mod common;

use common::{Entry, ListGame, random_graph};
use retro_engine::{Move, PlayConvention, Solution, SolveOptions, Value, certify, solve};

fn solve_with_threads(game: &ListGame, threads: usize, options: &SolveOptions) -> Solution {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| solve(game, options).unwrap())
}

fn all_values(s: &Solution) -> Vec<Option<Value>> {
    (0..s.size()).map(|i| s.value(i)).collect()
}

#[test]
fn every_thread_count_gives_the_same_values_and_they_are_certified() {
    let game = random_graph(300_000, 7);
    let options = SolveOptions::default();
    let one = solve_with_threads(&game, 1, &options);
    let stats = one.stats();
    assert!(
        stats.wins > 0 && stats.losses > 0 && stats.draws > 0,
        "{stats:?}"
    );
    let reference = all_values(&one);
    for threads in [2, 3, 8] {
        let other = solve_with_threads(&game, threads, &options);
        assert_eq!(other.stats(), one.stats());
        assert!(all_values(&other) == reference, "{threads} threads differ");
    }
    // Moves counted only when the first of them is refuted, with one thread (plain stores) or several
    // (compare-and-swaps, two threads perhaps counting one position at once): the same values.
    let uncounted = game.clone().surveyed_uncounted();
    for threads in [1, 3] {
        let other = solve_with_threads(&uncounted, threads, &options);
        assert_eq!(other.stats(), one.stats());
        assert!(
            all_values(&other) == reference,
            "{threads} threads differ, uncounted"
        );
    }
    let checked = certify(&game, PlayConvention::Normal, |i| one.value(i)).unwrap();
    assert_eq!(checked, 300_000);
}

#[test]
fn file_backed_arrays_give_the_same_values() {
    let game = random_graph(50_000, 8);
    let dir = tempfile::tempdir().unwrap();
    let in_memory = solve(&game, &SolveOptions::default()).unwrap();
    let options = SolveOptions {
        work_dir: Some(dir.path().to_owned()),
        ..Default::default()
    };
    let on_disk = solve(&game, &options).unwrap();
    assert!(all_values(&in_memory) == all_values(&on_disk));
}

#[test]
fn long_paths_widen_the_cells_and_stay_exact() {
    // 20,001 positions in a path: distances up to 20,000 plies, beyond both 8- and 16-bit cells.
    let n = 20_001;
    let path: Vec<Vec<usize>> = (0..n)
        .map(|p| if p == 0 { vec![] } else { vec![p - 1] })
        .collect();
    let s = solve(&ListGame::from_graph(&path), &SolveOptions::default()).unwrap();
    assert_eq!(s.stats().cell_bytes, 4);
    assert_eq!(s.stats().max_plies, 20_000);
    for p in [0u64, 1, 63, 64, 65, 16_383, 16_384, 20_000] {
        let expected = if p % 2 == 0 {
            Value::loss(p as u32)
        } else {
            Value::win(p as u32)
        };
        assert_eq!(s.value(p), Some(expected), "position {p}");
    }
}

#[test]
fn a_position_with_a_million_moves_is_exact() {
    // Position 0 has a million moves to positions that all win, then one more: it loses, and only after the last.
    let n = 1_000_000;
    let mut entries = vec![Entry::Moves((1..=n).map(|q| Move::To(q as u64)).collect())];
    for _ in 1..=n {
        // Each target wins at once by an exit into a lost position.
        entries.push(Entry::Moves(vec![Move::Exit(Value::loss(0))]));
    }
    // And one target that wins only in 3 plies: the loss of position 0 waits for it.
    if let Entry::Moves(m) = &mut entries[0] {
        m.push(Move::To(n as u64 + 1));
    }
    entries.push(Entry::Moves(vec![Move::Exit(Value::loss(2))]));
    let game = ListGame::new(entries);
    let s = solve(&game, &SolveOptions::default()).unwrap();
    assert_eq!(s.stats().cell_bytes, 4);
    assert_eq!(s.value(0), Some(Value::loss(4)));
    assert_eq!(s.value(1), Some(Value::win(1)));
    certify(&game, PlayConvention::Normal, |i| s.value(i)).unwrap();
}

#[test]
fn deep_exits_restart_with_wider_cells() {
    // An exit into a loss in 500 plies: the win is in 501, too deep for 8-bit cells from the start.
    let game = ListGame::new(vec![
        Entry::Moves(vec![Move::Exit(Value::loss(500)), Move::To(1)]),
        Entry::Moves(vec![Move::To(0)]),
    ]);
    let s = solve(&game, &SolveOptions::default()).unwrap();
    assert_eq!(s.value(0), Some(Value::win(501)));
    assert_eq!(s.value(1), Some(Value::loss(502)));
}

#[test]
fn a_loss_waits_for_its_slowest_exit() {
    // Position 0 has one move inside (to a quick win for the opponent) and an exit into a win in 9.
    let game = ListGame::new(vec![
        Entry::Moves(vec![Move::To(1), Move::Exit(Value::win(9))]),
        Entry::Moves(vec![Move::Exit(Value::loss(0))]),
    ]);
    let s = solve(&game, &SolveOptions::default()).unwrap();
    assert_eq!(s.value(1), Some(Value::win(1)));
    assert_eq!(s.value(0), Some(Value::loss(10)));
}
