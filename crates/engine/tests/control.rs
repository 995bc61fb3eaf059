//! The control cases of the seeds: games whose answers are known by inspection.

mod common;

use common::{Entry, ListGame};
use retro_engine::{Move, PlayConvention, SolveOptions, Value, solve};

fn solve_normal(game: &ListGame) -> Vec<Option<Value>> {
    let s = solve(game, &SolveOptions::default()).unwrap();
    (0..game.entries.len() as u64).map(|i| s.value(i)).collect()
}

/// Partizan positions as indices 2p (Left to move) and 2p + 1 (Right to move).
fn partizan(left: &[Vec<usize>], right: &[Vec<usize>]) -> ListGame {
    let mut entries = Vec::new();
    for p in 0..left.len() {
        entries.push(Entry::Moves(
            left[p]
                .iter()
                .map(|&q| Move::To(2 * q as u64 + 1))
                .collect(),
        ));
        entries.push(Entry::Moves(
            right[p].iter().map(|&q| Move::To(2 * q as u64)).collect(),
        ));
    }
    ListGame::new(entries)
}

#[test]
fn the_three_position_figure_is_a_win_for_left_moving_first_and_a_draw_otherwise() {
    // top: Left may go to second or end; Right only to second. second: either player back to top. end: no moves.
    let (top, second, end) = (0, 1, 2);
    let game = partizan(
        &[vec![second, end], vec![top], vec![]],
        &[vec![second], vec![top], vec![]],
    );
    let v = solve_normal(&game);
    assert_eq!(
        v[2 * top],
        Some(Value::win(1)),
        "Left moving first takes the exit"
    );
    assert_eq!(
        v[2 * top + 1],
        Some(Value::DRAW),
        "Right moving first has only the loop"
    );
    assert_eq!(v[2 * second], Some(Value::DRAW));
    assert_eq!(
        v[2 * second + 1],
        Some(Value::loss(2)),
        "Right must step back to where Left wins"
    );
    assert_eq!(v[2 * end], Some(Value::loss(0)));
}

#[test]
fn on_never_ends_and_still_wins_for_left() {
    // on = { on | }: Left can always move, Right never can.
    let on = partizan(&[vec![0]], &[vec![]]);
    let v = solve_normal(&on);
    assert_eq!(v[0], Some(Value::win(1)), "Left moves, and Right is stuck");
    assert_eq!(
        v[1],
        Some(Value::loss(0)),
        "Right moving first is stuck at once"
    );
    // off is its mirror.
    let off = partizan(&[vec![]], &[vec![0]]);
    let v = solve_normal(&off);
    assert_eq!(v[0], Some(Value::loss(0)));
    assert_eq!(v[1], Some(Value::win(1)));
}

#[test]
fn the_loop_with_an_exit_is_decided() {
    // a <-> b, b -> end: b steps out and wins, a must enter b and loses.
    let game = ListGame::from_graph(&[vec![1], vec![0, 2], vec![]]);
    let v = solve_normal(&game);
    assert_eq!(
        v,
        vec![
            Some(Value::loss(2)),
            Some(Value::win(1)),
            Some(Value::loss(0))
        ]
    );
}

#[test]
fn the_three_cycle_is_drawn() {
    let game = ListGame::from_graph(&[vec![1], vec![2], vec![0]]);
    assert_eq!(solve_normal(&game), vec![Some(Value::DRAW); 3]);
}

#[test]
fn an_acyclic_game_has_no_draws() {
    // Every position may move to any lower one: positions alternate loss, win, ... by parity? No: 0 loses, every
    // other position wins by moving to 0. A second acyclic game, a path, alternates.
    let all_lower: Vec<Vec<usize>> = (0..50).map(|p| (0..p).collect()).collect();
    let s = solve(&ListGame::from_graph(&all_lower), &SolveOptions::default()).unwrap();
    assert_eq!(s.stats().draws, 0);
    assert_eq!(s.value(0), Some(Value::loss(0)));
    assert!((1..50).all(|p| s.value(p) == Some(Value::win(1))));
    let path: Vec<Vec<usize>> = (0..200)
        .map(|p| if p == 0 { vec![] } else { vec![p - 1] })
        .collect();
    let s = solve(&ListGame::from_graph(&path), &SolveOptions::default()).unwrap();
    assert_eq!(s.stats().draws, 0);
    for p in 0..200u64 {
        let expected = if p % 2 == 0 {
            Value::loss(p as u32)
        } else {
            Value::win(p as u32)
        };
        assert_eq!(s.value(p), Some(expected));
    }
}

#[test]
fn misere_play_turns_the_stuck_player_into_the_winner() {
    let path: Vec<Vec<usize>> = (0..5)
        .map(|p| if p == 0 { vec![] } else { vec![p - 1] })
        .collect();
    let options = SolveOptions {
        convention: PlayConvention::Misere,
        ..Default::default()
    };
    let s = solve(&ListGame::from_graph(&path), &options).unwrap();
    let values: Vec<_> = (0..5).map(|p| s.value(p).unwrap()).collect();
    assert_eq!(
        values,
        vec![
            Value::win(0),
            Value::loss(1),
            Value::win(2),
            Value::loss(3),
            Value::win(4)
        ]
    );
}
