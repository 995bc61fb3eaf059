//! A brute-force oracle for 3×3 Quixo that shares nothing with the engine, the index or the bitboards: boards are
//! arrays of cells, moves follow the rules literally (remove the cube from its row or column, insert it at the far
//! end), and values come from a bounded-horizon iteration over every board: at step `d`, a board is won in `d` if a
//! move reaches a board lost in `d - 1`, and lost in `d` if every move reaches a won board (the longest then being
//! won in `d - 1`). Boards never settled are draws. The engine's tier-by-tier solution must agree on every index.

use retro_engine::{Solution, SolveOptions, solve};
use retro_family::{Family, Game, Location, SubTables, Value};

use crate::family::{Position, Quixo, Size, Tier};

const N: usize = 3;
const CELLS: usize = N * N;
const BOARDS: usize = 19683; // 3^9

/// A board seen by its mover: 0 blank, 1 the mover's cube, 2 the opponent's.
type Cells = [u8; CELLS];

fn cells_of(mut code: usize) -> Cells {
    let mut cells = [0; CELLS];
    for c in &mut cells {
        *c = (code % 3) as u8;
        code /= 3;
    }
    cells
}

fn code_of(cells: &Cells) -> usize {
    cells
        .iter()
        .rev()
        .fold(0, |code, &c| code * 3 + usize::from(c))
}

fn has_line(cells: &Cells, who: u8) -> bool {
    let at = |r: usize, c: usize| cells[r * N + c] == who;
    (0..N).any(|r| (0..N).all(|c| at(r, c)))
        || (0..N).any(|c| (0..N).all(|r| at(r, c)))
        || (0..N).all(|i| at(i, i))
        || (0..N).all(|i| at(i, N - 1 - i))
}

/// The boards the mover's moves reach, seen by the opponent.
fn successors(cells: &Cells) -> Vec<Cells> {
    let mut out = Vec::new();
    for r in 0..N {
        for c in 0..N {
            let on_border = r == 0 || c == 0 || r == N - 1 || c == N - 1;
            if !on_border || cells[r * N + c] == 2 {
                continue;
            }
            // Along the row (position c in it) and along the column (position r in it).
            let row: Vec<usize> = (0..N).map(|k| r * N + k).collect();
            let col: Vec<usize> = (0..N).map(|k| k * N + c).collect();
            for (line, at) in [(row, c), (col, r)] {
                for end in [0, N - 1] {
                    if end == at {
                        continue;
                    }
                    let mut values: Vec<u8> = line.iter().map(|&s| cells[s]).collect();
                    values.remove(at);
                    values.insert(end, 1);
                    let mut next = *cells;
                    for (&s, v) in line.iter().zip(values) {
                        next[s] = v;
                    }
                    // The opponent's view.
                    out.push(next.map(|v| [0, 2, 1][usize::from(v)]));
                }
            }
        }
    }
    out
}

/// The value of every board (by its base-3 code) for its mover.
fn brute_force() -> Vec<Option<Value>> {
    let succ: Vec<Vec<usize>> = (0..BOARDS)
        .map(|b| successors(&cells_of(b)).iter().map(code_of).collect())
        .collect();
    let mut value: Vec<Option<Value>> = (0..BOARDS)
        .map(|b| {
            let cells = cells_of(b);
            if has_line(&cells, 1) {
                Some(Value::win(0))
            } else if has_line(&cells, 2) {
                Some(Value::loss(0))
            } else {
                None
            }
        })
        .collect();
    for d in 1.. {
        let before = value.clone();
        let mut changed = false;
        for b in 0..BOARDS {
            if before[b].is_some() || is_over(b) {
                continue;
            }
            let wins = succ[b]
                .iter()
                .any(|&s| before[s] == Some(Value::loss(d - 1)));
            let all_lost_for_me = succ[b].iter().all(
                |&s| matches!(before[s], Some(v) if v.outcome() == retro_family::Outcome::Win),
            );
            if wins {
                value[b] = Some(Value::win(d));
                changed = true;
            } else if all_lost_for_me {
                value[b] = Some(Value::loss(d));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    value
}

fn is_over(code: usize) -> bool {
    let cells = cells_of(code);
    has_line(&cells, 1) || has_line(&cells, 2)
}

fn board_code(position: &Position) -> usize {
    let board = position.board();
    let mut cells = [0u8; CELLS];
    for (s, c) in cells.iter_mut().enumerate() {
        if crate::board::mine(board) >> s & 1 == 1 {
            *c = 1;
        } else if crate::board::theirs(board) >> s & 1 == 1 {
            *c = 2;
        }
    }
    code_of(&cells)
}

/// Solves every tier of a variant with the engine, the full board first; the solutions in the order of
/// `Quixo.tables`.
pub fn solve_all(size: Size) -> Vec<(Tier, Solution)> {
    let mut solved: Vec<(Tier, Solution)> = Vec::new();
    for table in Quixo.tables(&size) {
        let solution = {
            let mut sub = SubTables::new();
            if let Some((tier, values)) = solved.last() {
                sub.insert(*tier, values as &dyn retro_family::Values);
            }
            let game = Quixo.game(&table, &sub).expect("a table");
            solve(&game, &SolveOptions::default()).expect("solved")
        };
        solved.push((table, solution));
    }
    solved
}

#[test]
fn the_engine_agrees_with_brute_force_on_3x3() {
    let oracle = brute_force();
    let solved = solve_all(Size(3));
    let mut positions = 0;
    for (k, (tier, solution)) in solved.iter().enumerate() {
        let mut sub = SubTables::new();
        if k > 0 {
            sub.insert(
                solved[k - 1].0,
                &solved[k - 1].1 as &dyn retro_family::Values,
            );
        }
        let game = Quixo.game(tier, &sub).unwrap();
        for index in 0..game.size() {
            let Some(position) = Quixo.position(&game, index) else {
                assert_eq!(solution.value(index), None);
                continue;
            };
            positions += 1;
            let expected = oracle[board_code(&position)].unwrap_or(Value::DRAW);
            assert_eq!(
                solution.value(index),
                Some(expected),
                "{}",
                Quixo.show_position(&position)
            );
        }
    }
    // Every orbit of the 3^9 boards under the eight symmetries, once.
    assert_eq!(positions, 2862);
    // Every board's value is its canonical index's.
    for (code, expected) in oracle.iter().enumerate() {
        let cells = cells_of(code);
        let bit = |v: u8| {
            (0..CELLS)
                .filter(|&s| cells[s] == v)
                .fold(0u32, |m, s| m | 1 << s)
        };
        let position = Position {
            n: 3,
            x: bit(1),
            o: bit(2),
            x_to_move: true,
        };
        let Ok(Location::Stored { table, index }) = Quixo.locate(&position) else {
            panic!("not stored");
        };
        let solution = &solved.iter().find(|(t, _)| *t == table).unwrap().1;
        assert_eq!(solution.value(index), Some(expected.unwrap_or(Value::DRAW)));
    }
    let start = Quixo.start(&Size(3)).unwrap();
    let Ok(Location::Stored { index, .. }) = Quixo.locate(&start) else {
        panic!()
    };
    assert_eq!(solved.last().unwrap().0.cubes, 0);
    let value = solved.last().unwrap().1.value(index).unwrap();
    assert_eq!(Some(value), Some(oracle[0].unwrap_or(Value::DRAW)));
    // What both found: X wins 3x3 Quixo in 7 plies.
    assert_eq!(value, Value::win(7));
}

/// The full 4×4 solve, slow in a test build: `cargo test -p retro-quixo -- --ignored`. The value is what
/// `examples/quixo_solve.rs` computed (X wins in 21 plies), checked here against a fresh solve.
#[test]
#[ignore]
fn the_4x4_start_is_won_in_21() {
    let solved = solve_all(Size(4));
    let start = Quixo.start(&Size(4)).unwrap();
    let Ok(Location::Stored { table, index }) = Quixo.locate(&start) else {
        panic!()
    };
    let (tier, solution) = solved.last().unwrap();
    assert_eq!(*tier, table);
    assert_eq!(solution.value(index), Some(Value::win(21)));
    let positions: u64 = solved.iter().map(|(_, s)| s.stats().positions).sum();
    assert_eq!(positions, 5_398_083);
}
