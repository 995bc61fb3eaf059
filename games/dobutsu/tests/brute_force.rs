//! An independent check of the engine on small Dobutsu sub-games: the positions are enumerated by playing moves
//! forward from a few starts, each keeps the explicit list of its successors, and the values come from a naive
//! fixpoint iteration over those lists, ply by ply. No un-move, no index and no pruning is used on this side; the
//! engine's values come from [`retro_engine::solve`] on [`DobutsuGame`] for the same sub-game (with its index, its
//! un-moves and its won-in-1 holes), read through [`position_value`]. Both must agree position by position, outcome
//! and plies.

use std::collections::HashMap;

use retro_dobutsu::analysis::position_value;
use retro_dobutsu::{Board, DobutsuGame, Position};
use retro_engine::{SolveOptions, Value, solve};

/// What a move leads to: a win on the spot (lion captured or successful try), or a position.
enum Successor {
    WinNow,
    To(usize),
}

/// Every position reachable from `starts` by legal moves (a move that ends the game is not followed), each with its
/// successors.
fn enumerate(starts: &[Board]) -> (Vec<Board>, Vec<Vec<Successor>>) {
    let mut ids: HashMap<Board, usize> = HashMap::new();
    let mut boards = Vec::new();
    for &b in starts {
        ids.entry(b).or_insert_with(|| {
            boards.push(b);
            boards.len() - 1
        });
    }
    let mut successors = Vec::new();
    let mut at = 0;
    while at < boards.len() {
        let board = boards[at];
        let mut list = Vec::new();
        if !board.try_lost() {
            board.moves(|m| {
                if board.is_winning_move(m) {
                    list.push(Successor::WinNow);
                    return;
                }
                let child = board.play(m).0.flip();
                let id = *ids.entry(child).or_insert_with(|| {
                    boards.push(child);
                    boards.len() - 1
                });
                list.push(Successor::To(id));
            });
        }
        successors.push(list);
        at += 1;
    }
    (boards, successors)
}

/// The values by naive iteration: in round `n`, a position is won in `n` if a move wins on the spot (`n = 1`) or
/// reaches a position lost in `n - 1`; lost in `n` if it has no move left to play (`try_lost`: the game is over,
/// or it has no move, `n = 0`) or every move reaches a position won in fewer than `n`. Rounds go on until two in a row decide nothing;
/// what is left is drawn.
fn fixpoint(boards: &[Board], successors: &[Vec<Successor>]) -> Vec<Value> {
    // A player with no move at all loses at once, like one whose opponent's try has succeeded.
    let mut values: Vec<Option<Value>> = boards
        .iter()
        .zip(successors)
        .map(|(b, list)| (b.try_lost() || list.is_empty()).then_some(Value::loss(0)))
        .collect();
    let mut idle = 0;
    let mut n = 1;
    while idle < 2 {
        let mut decided = Vec::new();
        for (p, list) in successors.iter().enumerate() {
            if values[p].is_some() {
                continue;
            }
            let wins = list.iter().any(|s| match s {
                Successor::WinNow => n == 1,
                Successor::To(c) => values[*c] == Some(Value::loss(n - 1)),
            });
            let loses = list.iter().all(|s| match s {
                Successor::WinNow => false,
                Successor::To(c) => {
                    matches!(values[*c], Some(v) if v.outcome() == retro_engine::Outcome::Win)
                }
            });
            if wins {
                decided.push((p, Value::win(n)));
            } else if loses {
                decided.push((p, Value::loss(n)));
            }
        }
        idle = if decided.is_empty() { idle + 1 } else { 0 };
        for (p, v) in decided {
            values[p] = Some(v);
        }
        n += 1;
    }
    values
        .into_iter()
        .map(|v| v.unwrap_or(Value::DRAW))
        .collect()
}

fn check(material: [u8; 3], starts: &[&str]) -> usize {
    let starts: Vec<Board> = starts
        .iter()
        .map(|t| *Position::parse_with(t, material).expect(t).board())
        .collect();
    let (boards, successors) = enumerate(&starts);
    let expected = fixpoint(&boards, &successors);
    let game = DobutsuGame::for_material(material);
    let solution = solve(&game, &SolveOptions::default()).expect("the sub-game solves");
    let mut decisive = 0;
    for (board, want) in boards.iter().zip(&expected) {
        let got = position_value(game.indexer(), board, |i| solution.value(i));
        assert_eq!(
            got,
            Some(*want),
            "material {material:?}: {} (seen from the player to move)",
            Position::new(retro_dobutsu::Side::Sente, *board)
        );
        decisive += usize::from(want.plies().is_some_and(|p| p > 2));
    }
    // The check means something only if it met long wins and losses, not only the trivial ones.
    assert!(
        decisive > boards.len() / 10,
        "{decisive} of {}",
        boards.len()
    );
    boards.len()
}

/// Lions, one giraffe and one chick: orthogonal steps, promotion, drops (of a chick on the far rank too), a hen
/// going back to hand as a chick, the try.
#[test]
fn a_giraffe_and_a_chick() {
    let n = check(
        [1, 0, 1],
        &[
            "1l1/1c1/3/GL1 b -",
            "1l1/3/3/1L1 b GC",
            "2l/1H1/3/L2 w g",
            "gl1/3/3/1LC w -",
        ],
    );
    assert!(n > 40_000, "{n} positions");
}

/// Lions, one elephant and one chick: diagonal steps.
#[test]
fn an_elephant_and_a_chick() {
    let n = check([0, 1, 1], &["el1/3/1C1/1L1 b -", "1l1/3/3/1L1 w ec"]);
    assert!(n > 40_000, "{n} positions");
}

/// Lions and two chicks, which can both be on the board as hens, both in one hand, or one of each.
#[test]
fn two_chicks() {
    let n = check([0, 0, 2], &["1l1/1c1/1C1/1L1 b -", "l2/3/3/2L w Cc"]);
    assert!(n > 40_000, "{n} positions");
}
