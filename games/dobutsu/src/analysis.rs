//! Figures about the solved game: counts of wins, draws and losses over all legal positions and over the positions
//! reachable from the start, and the value of any position, in the table or not.
//!
//! Positions are counted as the table numbers them: seen from the player to move (a position with Sente to move and
//! the same position turned round with Gote to move are one) and up to the left–right mirror. The reachable search
//! also records which side was to move, so that it can say how many (position, side to move) pairs the start
//! reaches as well.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use retro_game::{Index, Outcome, Value};

use crate::board::Board;
use crate::game::known_value;
use crate::index::{Indexer, excluded_value};
use crate::notation::Position;

/// Counts of values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub positions: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The longest win and the longest loss, in plies (0 if none).
    pub longest_win: u32,
    pub longest_loss: u32,
    /// Positions equal to their mirror image (each stands for one board; the others for two).
    pub symmetric: u64,
}

impl Counts {
    pub fn add(&mut self, value: Value, symmetric: bool) {
        self.positions += 1;
        self.symmetric += symmetric as u64;
        match value.outcome() {
            Outcome::Win => {
                self.wins += 1;
                self.longest_win = self.longest_win.max(value.plies().unwrap_or(0));
            }
            Outcome::Loss => {
                self.losses += 1;
                self.longest_loss = self.longest_loss.max(value.plies().unwrap_or(0));
            }
            Outcome::Draw => self.draws += 1,
        }
    }

    pub fn merge(mut self, other: Counts) -> Counts {
        self.positions += other.positions;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.symmetric += other.symmetric;
        self.longest_win = self.longest_win.max(other.longest_win);
        self.longest_loss = self.longest_loss.max(other.longest_loss);
        self
    }

    /// The number of boards these positions stand for without the mirror folding.
    pub fn unfolded(&self) -> u64 {
        2 * self.positions - self.symmetric
    }
}

/// The value of any position for its player to move: known from the board (see [`known_value`]) or read from the
/// table (`values`, by table index).
pub fn position_value<V: Fn(Index) -> Option<Value>>(
    table: &Indexer,
    board: &Board,
    values: V,
) -> Option<Value> {
    match known_value(board) {
        Some(v) => Some(v),
        None => table.encode(board).and_then(values),
    }
}

const CHUNK: u64 = 1 << 16;

/// Counts over every position the table numbers: stored ones from their values, the others (won in 1) from the
/// board.
pub fn table_counts<V: Fn(Index) -> Option<Value> + Sync>(table: &Indexer, values: V) -> Counts {
    let size = table.size();
    (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut counts = Counts::default();
            for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(size) {
                let stored = values(i);
                if !table.class_is_symmetric(i) {
                    // Not stored: won in 1. No hole here is a mirror image, and no position its own mirror image.
                    counts.add(stored.unwrap_or(Value::win(1)), false);
                    continue;
                }
                let Some(board) = table.decode(i) else {
                    continue; // The mirror image of a position numbered elsewhere.
                };
                let value = stored
                    .or_else(|| known_value(&board))
                    .expect("a numbered position has a value");
                counts.add(value, board == board.mirror());
            }
            counts
        })
        .reduce(Counts::default, Counts::merge)
}

/// Counts over the legal positions the table leaves out (their values are known without solving).
pub fn outside_table_counts() -> Counts {
    let all = Indexer::complete();
    let rest = all.rest_size();
    (0..all.classes())
        .filter(|&c| !all.class_in_table(c))
        .flat_map(|c| (0..rest.div_ceil(CHUNK)).map(move |chunk| (c as u64, chunk)))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|(class, chunk)| {
            let mut counts = Counts::default();
            let base = class * rest;
            for i in base + chunk * CHUNK..base + ((chunk + 1) * CHUNK).min(rest) {
                if let Some(b) = all.decode(i) {
                    counts.add(
                        excluded_value(&b).expect("outside the table"),
                        b == b.mirror(),
                    );
                }
            }
            counts
        })
        .reduce(Counts::default, Counts::merge)
}

/// The value a position must have given the values of the positions its moves reach, played by the rules on the
/// board (every legal move, none left out): the check of [`check_positions`], independent of how the table numbers
/// and prunes moves. `None` if a position reached has no value.
pub fn value_from_moves<V: Fn(Index) -> Option<Value>>(
    table: &Indexer,
    board: &Board,
    values: V,
) -> Option<Value> {
    if board.try_lost() {
        return Some(Value::loss(0));
    }
    let mut best: Option<Value> = None;
    let mut missing = false;
    board.moves(|m| {
        let value = if board.is_winning_move(m) {
            Some(Value::win(1))
        } else {
            position_value(table, &board.play(m).0.flip(), &values).map(Value::back)
        };
        match value {
            None => missing = true,
            Some(v) => {
                if best.is_none_or(|b| v.preference(b).is_gt()) {
                    best = Some(v);
                }
            }
        }
    });
    if missing {
        return None;
    }
    Some(best.unwrap_or(Value::loss(0)))
}

/// Checks `samples` positions drawn at random (seeded) from all legal positions: the value the table gives each
/// (or the board, where the table stores none) must be the one its moves give. Returns the first position that
/// fails, written in the notation, with both values.
pub fn check_positions<V: Fn(Index) -> Option<Value> + Sync>(
    table: &Indexer,
    values: V,
    samples: u64,
    seed: u64,
) -> Result<(), String> {
    let all = Indexer::complete();
    (0..samples).into_par_iter().try_for_each(|k| {
        // SplitMix64 of (seed, k): independent draws, the same for any number of threads.
        let mut z = seed.wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let Some(board) = all.decode(z % all.size()) else {
            return Ok(());
        };
        let stored = position_value(table, &board, &values);
        let expected = value_from_moves(table, &board, &values);
        if stored.is_none() || stored != expected {
            let text = Position::new(crate::types::Side::Sente, board).to_string();
            return Err(format!(
                "{text}: the table gives {stored:?}, its moves give {expected:?}"
            ));
        }
        Ok(())
    })
}

/// A set of indices, shared between threads.
struct Bits(Vec<AtomicU64>);

impl Bits {
    fn new(size: u64) -> Bits {
        Bits((0..size.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }

    /// Adds `i`; true if it was not there.
    fn insert(&self, i: u64) -> bool {
        let bit = 1 << (i % 64);
        self.0[(i / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    fn clear(&mut self) {
        self.0.par_iter_mut().for_each(|w| *w.get_mut() = 0);
    }

    fn count(&self) -> u64 {
        self.0
            .iter()
            .map(|w| w.load(Ordering::Relaxed).count_ones() as u64)
            .sum()
    }
}

/// The positions reachable from the start: a forward search that plays every legal move and stops where the game
/// ends (a move that captures the lion or makes a successful try is not followed).
pub struct Reachable {
    /// The reached positions that the table stores, by table index (either side to move).
    in_table: Bits,
    /// Counts over the reached positions the table does not store (valued from the board).
    outside: Counts,
    /// The number of (position, side to move) pairs reached, mirror-folded.
    pub with_side: u64,
    /// The number of plies of the longest shortest path from the start.
    pub depth: u32,
}

impl Reachable {
    /// Runs the search (in the current rayon pool). While it runs it holds six bitmaps of the complete numbering,
    /// about 640 MB; what it keeps afterwards is one bitmap of the table, about 42 MB.
    pub fn search(table: &Indexer) -> Reachable {
        Reachable::search_with_progress(table, &|_, _| {})
    }

    /// [`Reachable::search`], calling `progress(depth, new)` after each ply of the search with the number of
    /// positions first reached at that depth.
    pub fn search_with_progress(
        table: &Indexer,
        progress: &(dyn Fn(u32, u64) + Sync),
    ) -> Reachable {
        let all = Indexer::complete();
        let size = all.size();
        let reached = [Bits::new(size), Bits::new(size)];
        let mut frontier = [Bits::new(size), Bits::new(size)];
        let mut next = [Bits::new(size), Bits::new(size)];
        let first = all.encode(Position::startpos().board()).expect("numbered");
        reached[0].insert(first); // Sente to move.
        frontier[0].insert(first);
        let mut depth = 0;
        loop {
            let found: u64 = blocks(&frontier[0])
                .map(|words| {
                    let mut found = 0;
                    for w in words {
                        for side in 0..2 {
                            let mut word = frontier[side].0[w].load(Ordering::Relaxed);
                            while word != 0 {
                                let i = w as u64 * 64 + word.trailing_zeros() as u64;
                                word &= word - 1;
                                let board = all.decode(i).expect("reached positions are numbered");
                                board.moves(|m| {
                                    if board.is_winning_move(m) {
                                        return;
                                    }
                                    let c = all.encode(&board.play(m).0.flip()).expect("numbered");
                                    if reached[1 - side].insert(c) {
                                        next[1 - side].insert(c);
                                        found += 1;
                                    }
                                });
                            }
                        }
                    }
                    found
                })
                .sum();
            if found == 0 {
                break;
            }
            depth += 1;
            progress(depth, found);
            std::mem::swap(&mut frontier, &mut next);
            next[0].clear();
            next[1].clear();
        }
        drop((frontier, next));
        let with_side = reached[0].count() + reached[1].count();
        let in_table = Bits::new(table.size());
        let outside = blocks(&reached[0])
            .map(|words| {
                let mut counts = Counts::default();
                for w in words {
                    let mut word = reached[0].0[w].load(Ordering::Relaxed)
                        | reached[1].0[w].load(Ordering::Relaxed);
                    while word != 0 {
                        let i = w as u64 * 64 + word.trailing_zeros() as u64;
                        word &= word - 1;
                        let board = all.decode(i).expect("numbered");
                        match known_value(&board) {
                            Some(v) => counts.add(v, board == board.mirror()),
                            None => {
                                in_table.insert(table.encode(&board).expect("in the table"));
                            }
                        }
                    }
                }
                counts
            })
            .reduce(Counts::default, Counts::merge);
        Reachable {
            in_table,
            outside,
            with_side,
            depth,
        }
    }

    /// Counts over the reached positions (either side to move), valued from the table.
    pub fn counts<V: Fn(Index) -> Option<Value> + Sync>(
        &self,
        table: &Indexer,
        values: V,
    ) -> Counts {
        let inside = blocks(&self.in_table)
            .map(|words| {
                let mut counts = Counts::default();
                for w in words {
                    let mut word = self.in_table.0[w].load(Ordering::Relaxed);
                    while word != 0 {
                        let i = w as u64 * 64 + word.trailing_zeros() as u64;
                        word &= word - 1;
                        let value = values(i).expect("a reached position has a value");
                        let symmetric = table.class_is_symmetric(i)
                            && table.decode(i).is_some_and(|b| b == b.mirror());
                        counts.add(value, symmetric);
                    }
                }
                counts
            })
            .reduce(Counts::default, Counts::merge);
        inside.merge(self.outside)
    }
}

/// The words of a bitmap in parallel blocks.
fn blocks(bits: &Bits) -> impl ParallelIterator<Item = std::ops::Range<usize>> + '_ {
    let words = bits.0.len();
    (0..words.div_ceil(1024))
        .into_par_iter()
        .map(move |b| b * 1024..((b + 1) * 1024).min(words))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_merge_and_unfold() {
        let mut a = Counts::default();
        a.add(Value::win(3), false);
        a.add(Value::DRAW, true);
        let mut b = Counts::default();
        b.add(Value::loss(8), false);
        let c = a.merge(b);
        assert_eq!((c.positions, c.wins, c.draws, c.losses), (3, 1, 1, 1));
        assert_eq!((c.longest_win, c.longest_loss), (3, 8));
        assert_eq!(c.unfolded(), 5);
    }

    #[test]
    fn values_outside_the_table_are_known() {
        let table = Indexer::new();
        let adjacent: Position = "3/3/1l1/1L1 b GGEECC".parse().unwrap();
        assert_eq!(
            position_value(&table, adjacent.board(), |_| None),
            Some(Value::win(1))
        );
        let tried: Position = "3/2L/3/l2 b GGEECC".parse().unwrap();
        assert_eq!(
            position_value(&table, tried.board(), |_| None),
            Some(Value::loss(0))
        );
        let inside = Position::startpos();
        let index = table.encode(inside.board()).unwrap();
        assert_eq!(
            position_value(&table, inside.board(), |i| (i == index)
                .then_some(Value::DRAW)),
            Some(Value::DRAW)
        );
    }
}
