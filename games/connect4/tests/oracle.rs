//! The engine's values, tier by tier, against a forward minimax that shares nothing with the crate but the
//! notation: every position reachable from the empty 4x4 and 5x4 boards.

use std::collections::HashMap;
use std::time::Instant;

use retro_connect4::{ConnectFour, Shape, Tier};
use retro_engine::{Solution, SolveOptions, solve};
use retro_family::{Family, Location, NoPayloads, SubTables, Value, Values};

/// A board as the oracle sees it: one bit per cell, row-major from the bottom left (`r * w + c`), per player.
type Cells = (u64, u64);

/// Memoised negamax over the positions reachable from the empty board. A score is `100 - plies` for a win,
/// `plies - 100` for a loss and 0 for a draw, so that the largest score is the fastest win or the slowest loss.
struct Oracle {
    w: usize,
    h: usize,
    /// Every line of four cells, as a mask.
    lines: Vec<u64>,
    scores: HashMap<Cells, i32>,
}

impl Oracle {
    fn new(w: usize, h: usize) -> Oracle {
        let mut lines = Vec::new();
        for r in 0..h as i32 {
            for c in 0..w as i32 {
                for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    let cells: Vec<(i32, i32)> = (0..4).map(|i| (c + i * dc, r + i * dr)).collect();
                    if cells
                        .iter()
                        .all(|&(c, r)| (0..w as i32).contains(&c) && (0..h as i32).contains(&r))
                    {
                        lines.push(
                            cells
                                .iter()
                                .fold(0, |m, &(c, r)| m | 1 << (r as usize * w + c as usize)),
                        );
                    }
                }
            }
        }
        Oracle {
            w,
            h,
            lines,
            scores: HashMap::new(),
        }
    }

    fn line(&self, stones: u64) -> bool {
        self.lines.iter().any(|&l| l & !stones == 0)
    }

    /// The score of `cells` for its player to move; `x` moves when the stones are even.
    fn score(&mut self, cells: Cells) -> i32 {
        if let Some(&score) = self.scores.get(&cells) {
            return score;
        }
        let stones = (cells.0 | cells.1).count_ones() as usize;
        let x_moves = stones.is_multiple_of(2);
        let last = if x_moves { cells.1 } else { cells.0 };
        let score = if self.line(last) {
            -100
        } else if stones == self.w * self.h {
            0
        } else {
            let mut best = i32::MIN;
            for c in 0..self.w {
                let Some(r) =
                    (0..self.h).find(|&r| (cells.0 | cells.1) & 1 << (r * self.w + c) == 0)
                else {
                    continue;
                };
                let bit = 1 << (r * self.w + c);
                let after = if x_moves {
                    (cells.0 | bit, cells.1)
                } else {
                    (cells.0, cells.1 | bit)
                };
                let theirs = self.score(after);
                best = best.max(-theirs + theirs.signum());
            }
            best
        };
        self.scores.insert(cells, score);
        score
    }

    /// The rows form of the notation, top row first.
    fn text(&self, cells: Cells) -> String {
        let mut text = format!("{}x{}", self.w, self.h);
        for r in (0..self.h).rev() {
            text.push('/');
            for c in 0..self.w {
                let bit = 1 << (r * self.w + c);
                text.push(if cells.0 & bit != 0 {
                    'x'
                } else if cells.1 & bit != 0 {
                    'o'
                } else {
                    '.'
                });
            }
        }
        text
    }

    fn value(score: i32) -> Value {
        match score {
            0 => Value::DRAW,
            s if s > 0 => Value::win((100 - s) as u32),
            s => Value::loss((100 + s) as u32),
        }
    }
}

/// Solves every tier of `shape`, the full board first, each reading the one solved before.
fn solve_all(shape: Shape) -> HashMap<Tier, Solution> {
    let mut solved: HashMap<Tier, Solution> = HashMap::new();
    for tier in ConnectFour.tables(&shape) {
        let solution = {
            let mut sub = SubTables::new();
            for dep in ConnectFour.dependencies(&tier) {
                sub.insert(dep, &solved[&dep] as &dyn Values);
            }
            let game = ConnectFour.game(&tier, &sub).unwrap();
            solve(&game, &SolveOptions::default()).unwrap()
        };
        solved.insert(tier, solution);
    }
    solved
}

/// Checks every reachable position of a `w` x `h` board and returns how many there are and the start's value.
fn compare(w: u8, h: u8) -> (usize, Value) {
    let shape = Shape::new(w, h).unwrap();
    let started = Instant::now();
    let solved = solve_all(shape);
    eprintln!(
        "{shape}: the engine solved {} tiers in {:.2?}",
        solved.len(),
        started.elapsed()
    );

    let started = Instant::now();
    let mut oracle = Oracle::new(usize::from(w), usize::from(h));
    let start = Oracle::value(oracle.score((0, 0)));
    eprintln!(
        "{shape}: the oracle searched {} positions in {:.2?}",
        oracle.scores.len(),
        started.elapsed()
    );

    for (&cells, &score) in &oracle.scores {
        let text = oracle.text(cells);
        let board = ConnectFour.parse_position(&text, &NoPayloads).unwrap();
        let Ok(Location::Stored { table, index }) = ConnectFour.locate(&board) else {
            panic!("{text} is not stored");
        };
        assert_eq!(
            solved[&table].value(index),
            Some(Oracle::value(score)),
            "{text}"
        );
    }
    let engine_start = {
        let board = ConnectFour.start(&shape).unwrap();
        let Ok(Location::Stored { table, index }) = ConnectFour.locate(&board) else {
            panic!()
        };
        solved[&table].value(index).unwrap()
    };
    assert_eq!(engine_start, start);
    eprintln!(
        "{shape}: {} reachable positions, start {start}",
        oracle.scores.len()
    );
    (oracle.scores.len(), start)
}

#[test]
fn the_engine_agrees_with_forward_minimax_on_4x4() {
    let (reachable, start) = compare(4, 4);
    // The counts of this forward search (see the README); the values are the oracle's, not written here.
    assert_eq!(reachable, REACHABLE_4X4);
    assert_eq!(start, Value::DRAW);
}

#[test]
fn the_engine_agrees_with_forward_minimax_on_5x4() {
    let (reachable, start) = compare(5, 4);
    assert_eq!(reachable, REACHABLE_5X4);
    assert_eq!(start, Value::DRAW);
}

/// Positions reachable from the empty board (the empty board and finished games included), by this forward search.
const REACHABLE_4X4: usize = 161_029;
const REACHABLE_5X4: usize = 3_945_711;
