//! The engine against the bounded-horizon brute force, on many random games.

mod common;

use common::{ListGame, Rng, brute_force, random_game, random_partizan_graph};
use retro_engine::{Game, PlayConvention, Pulling, SolveOptions, Testing, Value, certify, solve};
use retro_game::{Outcome, Values, best_exit_by_counting};

fn check_many(seed: u64, games: usize, partizan: bool, with_exits: bool) {
    let mut rng = Rng(seed);
    let mut seen = [0usize; 3];
    for case in 0..games {
        let game = random_game(&mut rng, partizan, with_exits);
        for convention in [PlayConvention::Normal, PlayConvention::Misere] {
            let options = SolveOptions {
                convention,
                best_exits: true,
                ..Default::default()
            };
            let mut solution = solve(&game, &options).unwrap();
            // The best exits kept from initialisation are what the game's own moves say.
            let exits = solution
                .take_best_exits()
                .expect("an in-memory solve keeps the best exits asked for");
            for i in 0..game.size() {
                assert_eq!(
                    exits.get(i),
                    best_exit_by_counting(&game, i),
                    "case {case}, index {i}, game {game:?}"
                );
            }
            let expected = brute_force(&game, convention);
            for (i, e) in expected.iter().enumerate() {
                assert_eq!(
                    solution.value(i as u64),
                    *e,
                    "case {case} ({convention:?}), index {i}, game {game:?}"
                );
                if let Some(v) = e {
                    seen[v.outcome() as usize] += 1;
                }
            }
            // The totals, and the values read as codes a run at a time, are those of the values one by one.
            let stats = solution.stats();
            let of = |outcome| {
                expected
                    .iter()
                    .flatten()
                    .filter(|v| v.outcome() == outcome)
                    .count() as u64
            };
            let plies = expected.iter().flatten().filter_map(|v| v.plies());
            assert_eq!(
                (stats.positions, stats.wins, stats.draws, stats.losses),
                (
                    expected.iter().flatten().count() as u64,
                    of(Outcome::Win),
                    of(Outcome::Draw),
                    of(Outcome::Loss)
                ),
                "case {case}"
            );
            assert_eq!(
                stats.max_plies,
                plies.clone().max().unwrap_or(0),
                "case {case}"
            );
            assert_eq!(
                stats.sum_plies,
                plies.map(u64::from).sum::<u64>(),
                "case {case}"
            );
            let mut codes = vec![0; expected.len().saturating_sub(1)];
            Values::codes(&solution, 1, &mut codes);
            assert!(
                codes
                    .iter()
                    .zip(&expected[1..])
                    .all(|(&c, &e)| c == Value::code(e)),
                "case {case}"
            );
            certify(&game, convention, |i| solution.value(i)).unwrap();
            // Counted only when a move is first refuted, the moves give the same values.
            let uncounted = solve(&game.clone().surveyed_uncounted(), &options).unwrap();
            for (i, e) in expected.iter().enumerate() {
                assert_eq!(
                    uncounted.value(i as u64),
                    *e,
                    "case {case} ({convention:?}), uncounted, index {i}, game {game:?}"
                );
            }
            // Laid out by turns, its wins pulled forward from the open positions (always, never, or as the costs
            // say), counted at once or not: the same values.
            if partizan {
                let n = game.size();
                for turned in [
                    game.by_turns(),
                    game.clone().surveyed_uncounted().by_turns(),
                ] {
                    for pulling in [Pulling::Always, Pulling::Never, Pulling::Auto] {
                        let options = SolveOptions {
                            convention,
                            testing: Testing {
                                pulling,
                                ..Default::default()
                            },
                            ..Default::default()
                        };
                        let solution = solve(&turned, &options).unwrap();
                        for (i, e) in expected.iter().enumerate() {
                            assert_eq!(
                                solution.value(ListGame::turn_index(n, i as u64)),
                                *e,
                                "case {case} ({convention:?}), by turns, {pulling:?}, index {i}, game {game:?}"
                            );
                        }
                    }
                }
            }
        }
    }
    // The random games must exercise every outcome, or the comparison proves little.
    assert!(
        seen.iter().all(|&k| k > games / 10),
        "outcomes seen: {seen:?}"
    );
}

#[test]
fn impartial_graphs_agree_with_brute_force() {
    check_many(1, 4000, false, false);
}

#[test]
fn partizan_graphs_agree_with_brute_force() {
    check_many(2, 3000, true, false);
}

#[test]
fn games_with_exits_terminals_and_holes_agree_with_brute_force() {
    check_many(3, 2000, false, true);
    check_many(4, 1000, true, true);
}

#[test]
fn a_large_game_by_turns_pulls_its_wins_exactly() {
    let game = random_partizan_graph(40_000, 11).by_turns();
    let solve_pulling = |pulling| {
        let options = SolveOptions {
            testing: Testing {
                pulling,
                ..Default::default()
            },
            ..Default::default()
        };
        solve(&game, &options).unwrap()
    };
    let walked = solve_pulling(Pulling::Never);
    assert_eq!(walked.report().pulls, 0);
    certify(&game, PlayConvention::Normal, |i| walked.value(i)).unwrap();
    let outcomes = |outcome| {
        (0..game.size())
            .filter(|&i| walked.value(i).map(|v| v.outcome()) == Some(outcome))
            .count()
    };
    assert!(
        [Outcome::Win, Outcome::Draw, Outcome::Loss]
            .iter()
            .all(|&o| outcomes(o) > 1000),
        "the game has too few of an outcome to prove much"
    );
    // As the costs say, a random graph's wins are seldom pulled (chess tables are: see retro-chess's tests).
    for pulling in [Pulling::Always, Pulling::Auto] {
        let pulled = solve_pulling(pulling);
        assert!(
            pulling == Pulling::Auto || pulled.report().pulls > 0,
            "never pulled"
        );
        for i in 0..game.size() {
            assert_eq!(pulled.value(i), walked.value(i), "{pulling:?}, index {i}");
        }
    }
}

#[test]
fn the_certificate_rejects_a_wrong_value() {
    let mut rng = Rng(99);
    let mut rejected = 0;
    for _ in 0..300 {
        let game = random_game(&mut rng, false, true);
        let solution = solve(&game, &SolveOptions::default()).unwrap();
        let n = game.entries.len() as u64;
        let victim = rng.below(n);
        let Some(right) = solution.value(victim) else {
            continue;
        };
        let wrong = match right.plies() {
            Some(p) => Value::win(p + 1),
            None => Value::loss(0),
        };
        let result = certify(&game, PlayConvention::Normal, |i| {
            if i == victim {
                Some(wrong)
            } else {
                solution.value(i)
            }
        });
        let err = result.expect_err("a changed value must be caught");
        assert!(err.index <= victim.max(err.index));
        rejected += 1;
    }
    assert!(rejected > 200);
}
