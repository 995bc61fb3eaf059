//! The engine against the bounded-horizon brute force, on many random games.

mod common;

use common::{Entry, ListGame, Rng, brute_force};
use retro_engine::{Move, PlayConvention, SolveOptions, Value, certify, solve};

fn random_value(rng: &mut Rng) -> Value {
    match rng.below(3) {
        0 => Value::win(rng.below(6) as u32),
        1 => Value::loss(rng.below(6) as u32),
        _ => Value::DRAW,
    }
}

/// A random game: `positions` positions; impartial (one index per position) or partizan (index 2p + mover, a move of
/// either player leading to the other player's turn). Holes, terminal positions, exits and repeated moves appear.
fn random_game(rng: &mut Rng, partizan: bool, with_exits: bool) -> ListGame {
    let positions = 1 + rng.below(9) as usize;
    let density = 1 + rng.below(4);
    let movers = if partizan { 2 } else { 1 };
    let n = positions * movers;
    let hole: Vec<bool> = (0..positions)
        .map(|p| p > 0 && with_exits && rng.chance(8))
        .collect();
    let live: Vec<usize> = (0..positions).filter(|&p| !hole[p]).collect();
    let mut entries = Vec::with_capacity(n);
    for index in 0..n {
        let (position, mover) = (index / movers, index % movers);
        if hole[position] {
            entries.push(Entry::Hole);
            continue;
        }
        if with_exits && rng.chance(5) {
            entries.push(Entry::Terminal(random_value(rng)));
            continue;
        }
        let count = rng.below(2 * density + 1);
        let mut moves = Vec::new();
        for _ in 0..count {
            if with_exits && rng.chance(15) {
                moves.push(Move::Exit(random_value(rng)));
            } else {
                let to = live[rng.below(live.len() as u64) as usize];
                let to_index = to * movers + (1 - mover) * (movers - 1);
                moves.push(Move::To(to_index as u64));
                if rng.chance(10) {
                    // A repeated move.
                    moves.push(Move::To(to_index as u64));
                }
            }
        }
        entries.push(Entry::Moves(moves));
    }
    ListGame::new(entries)
}

fn check_many(seed: u64, games: usize, partizan: bool, with_exits: bool) {
    let mut rng = Rng(seed);
    let mut seen = [0usize; 3];
    for case in 0..games {
        let game = random_game(&mut rng, partizan, with_exits);
        for convention in [PlayConvention::Normal, PlayConvention::Misere] {
            let options = SolveOptions {
                convention,
                ..Default::default()
            };
            let solution = solve(&game, &options).unwrap();
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
            certify(&game, convention, |i| solution.value(i)).unwrap();
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
