//! The family against its contract, and the engine's values against a forward minimax that shares nothing with the
//! crate but the notation.

use std::collections::HashMap;

use retro_engine::{Solution, SolveOptions, solve};
use retro_family::{NoPayloads, contract};

use super::*;

fn variant() -> Standard {
    TicTacToe.parse_variant(&[], &Flags::default()).unwrap()
}

fn solved() -> Solution {
    let sub = SubTables::new();
    let game = TicTacToe.game(&Standard, &sub).unwrap();
    solve(&game, &SolveOptions::default()).unwrap()
}

fn read(text: &str) -> Board {
    TicTacToe.parse_position(text, &NoPayloads).unwrap()
}

#[test]
fn the_contract_holds_on_every_index() {
    let checked = contract::check(&TicTacToe, &variant(), u64::MAX, &NoPayloads).unwrap();
    assert_eq!((checked.tables, checked.indices), (1, SIZE));
    // The holes are exactly the boards no game reaches (the count is checked by forward search below).
    assert_eq!(checked.positions, 5478);
}

/// The oracle: boards as nine chars, `x` first, solved forward from the empty board with memoised negamax. A
/// score is `100 - plies` for a win, `plies - 100` for a loss, `0` for a draw, so that the largest score is the
/// fastest win, or the slowest loss.
struct Oracle {
    scores: HashMap<[char; 9], i32>,
}

impl Oracle {
    fn line(board: &[char; 9], who: char) -> bool {
        let at = |row: usize, column: usize| board[3 * row + column] == who;
        (0..3).any(|i| (0..3).all(|j| at(i, j)) || (0..3).all(|j| at(j, i)))
            || (0..3).all(|i| at(i, i))
            || (0..3).all(|i| at(i, 2 - i))
    }

    fn score(&mut self, board: [char; 9], mover: char) -> i32 {
        if let Some(&score) = self.scores.get(&board) {
            return score;
        }
        let other = if mover == 'x' { 'o' } else { 'x' };
        let score = if Self::line(&board, other) {
            -100 // The other player just made three in a row: lost in 0.
        } else if !board.contains(&'.') {
            0
        } else {
            let mut best = i32::MIN;
            for square in 0..9 {
                if board[square] == '.' {
                    let mut after = board;
                    after[square] = mover;
                    let theirs = self.score(after, other);
                    // Their win in d is our loss in d + 1, their loss in d our win in d + 1.
                    best = best.max(-theirs + theirs.signum());
                }
            }
            best
        };
        self.scores.insert(board, score);
        score
    }

    fn text(board: &[char; 9]) -> String {
        let rows: Vec<String> = board.chunks(3).map(|row| row.iter().collect()).collect();
        rows.join("/")
    }

    fn value(score: i32) -> Value {
        match score {
            0 => Value::DRAW,
            s if s > 0 => Value::win((100 - s) as u32),
            s => Value::loss((100 + s) as u32),
        }
    }
}

#[test]
fn the_engine_agrees_with_forward_minimax_on_every_reachable_position() {
    let mut oracle = Oracle {
        scores: HashMap::new(),
    };
    oracle.score(['.'; 9], 'x');
    assert_eq!(
        oracle.scores.len(),
        5478,
        "the positions reachable from the empty board"
    );

    let solution = solved();
    let mut reached = vec![false; SIZE as usize];
    for (board, &score) in &oracle.scores {
        let text = Oracle::text(board);
        let Ok(Location::Stored { index, .. }) = TicTacToe.locate(&read(&text)) else {
            panic!("{text} is not stored");
        };
        assert_eq!(solution.value(index), Some(Oracle::value(score)), "{text}");
        reached[index as usize] = true;
    }
    // Every other index is a hole.
    for index in 0..SIZE {
        assert_eq!(
            solution.value(index).is_some(),
            reached[index as usize],
            "index {index}"
        );
    }
    assert_eq!(solution.stats().positions, 5478);
}

#[test]
fn the_start_is_a_draw_and_known_positions_have_their_values() {
    let solution = solved();
    let start = TicTacToe.start(&variant()).unwrap();
    assert_eq!(TicTacToe.show_position(&start), ".../.../...");
    let value = |text: &str| solution.value(read(text).encode()).unwrap();
    assert_eq!(value(".../.../..."), Value::DRAW);
    assert_eq!(value("xx./oo./..."), Value::win(1)); // x plays c3.
    assert_eq!(value("xx./oo./x.."), Value::win(1)); // o plays c2.
    assert_eq!(value("xxx/oo./..."), Value::loss(0));
    assert_eq!(value("xox/xoo/oxx"), Value::DRAW);
    // A corner answered by the edge beside it loses: x b2 (o must block c1), x a2 threatens a1 and c2.
    assert_eq!(value("xo./.../..."), Value::win(5));
}

#[test]
fn moves_are_named_by_square_and_the_diagram_shows_them() {
    let board = read("x.o/.x./...");
    let moves: Vec<String> = TicTacToe
        .moves(&board)
        .iter()
        .map(|(m, _)| m.to_string())
        .collect();
    assert_eq!(moves, ["b3", "a2", "c2", "a1", "b1", "c1"]);
    let Played::Position(after) = &TicTacToe.moves(&board)[5].1 else {
        panic!()
    };
    assert_eq!(TicTacToe.show_position(after), "x.o/.x./..o");
    assert_eq!(
        TicTacToe.diagram(&board),
        "3 x . o\n2 . x .\n1 . . .\n  a b c  o to move\n"
    );
    assert!(TicTacToe.moves(&read("xxx/oo./...")).is_empty());
    assert_eq!(TicTacToe.flags(&read("xxx/oo./...")), [("game_over", true)]);
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let error = |text: &str| TicTacToe.parse_position(text, &NoPayloads).unwrap_err();
    for (text, expected) in [
        ("x.o/.x.", "not three rows of three squares"),
        ("x.o/.x./....", "not three rows of three squares"),
        ("x.o/.z./...", "'z' in \"x.o/.z./...\" is no square"),
        ("xx./.../...", "x has as many stones as o or one more"),
        ("o../.../...", "x has as many stones as o or one more"),
        ("xxx/ooo/...", "both x and o have three in a row"),
        ("xxx/oo./o..", "x has three in a row, yet o moved after it"),
        ("ooo/xx./xx.", "o has three in a row, yet x moved after it"),
    ] {
        let e = error(text);
        assert!(e.contains(expected), "{text}: {e}");
        assert!(!e.contains('\n'), "{text}: {e}");
    }
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(
        TicTacToe
            .parse_variant(&words(&["3x3"]), &Flags::default())
            .is_err()
    );
    let misere = Flags {
        misere: true,
        ..Flags::default()
    };
    assert_eq!(
        TicTacToe.parse_variant(&[], &misere).unwrap_err(),
        "--misere does not apply to tictactoe"
    );
}
