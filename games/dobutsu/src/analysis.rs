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

use crate::board::{Board, Owner};
use crate::game::{MAX_MOVES, known_value};
use crate::index::{FULL_MATERIAL, Indexer, excluded_value};
use crate::notation::Position;
use crate::types::Kind;

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

    /// The counts of `n` copies of these positions.
    pub fn times(mut self, n: u64) -> Counts {
        self.positions *= n;
        self.wins *= n;
        self.draws *= n;
        self.losses *= n;
        self.symmetric *= n;
        self
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
    outside_table_counts_for(FULL_MATERIAL)
}

/// [`outside_table_counts`] for the sub-game with `material`.
///
/// Such a position is lost (the enemy lion's try has succeeded) or won in 1, which depends on the pieces on the
/// board only: outside the classes whose lions stand on file b, every index is a position and the value is found
/// once per board for all the hands it can come with ([`Indexer::board_runs`]). In those classes, where half the
/// indices are mirror images, index by index.
pub fn outside_table_counts_for(material: [u8; 3]) -> Counts {
    let all = Indexer::complete_for_material(material);
    let rest = all.rest_size();
    let runs: Vec<(u64, u64)> = all.board_runs().collect();
    (0..all.classes())
        .filter(|&c| !all.class_in_table(c))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|class| {
            let base = class as u64 * rest;
            let mut counts = Counts::default();
            if all.class_is_symmetric(base) {
                for i in base..base + rest {
                    if let Some(b) = all.decode(i) {
                        counts.add(
                            excluded_value(&b).expect("outside the table"),
                            b == b.mirror(),
                        );
                    }
                }
                return counts;
            }
            for &(first, length) in &runs {
                let b = all.decode(base + first).expect("no holes in this class");
                let value = excluded_value(&b).expect("outside the table");
                let mut run = Counts::default();
                run.add(value, false);
                counts = counts.merge(run.times(length));
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

    /// Adds `i`.
    fn insert(&self, i: u64) {
        self.0[(i / 64) as usize].fetch_or(1 << (i % 64), Ordering::Relaxed);
    }
}

/// The search state of 64 consecutive indices of the complete numbering, for each side to move: two bit planes
/// `[a, b]` per side, `[a Sente, b Sente, a Gote, b Gote]`. Each (index, side) is in one of four states:
/// unseen `(0, 0)`, found in this ply `(1, 0)`, to expand in this ply (the frontier) `(0, 1)`, expanded `(1, 1)`.
/// A ply only ever turns unseen entries into found ones, by setting `a`; between plies, found becomes frontier and
/// frontier expanded: `(a, b) -> (b, a | b)`. The four words share one 32-byte block, so that testing and marking
/// a position touches a single cache line.
#[derive(Default)]
#[repr(C, align(32))]
struct Group([AtomicU64; 4]);

/// How many groups one parallel task walks.
const GROUPS_PER_TASK: usize = 1 << 12;

/// Where the search of the positions reachable from the start stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Where the game ends: a move that captures the lion or makes a successful try is not followed.
    GameOver,
    /// Also at a position whose player to move can capture the enemy lion: it is counted, not expanded (the
    /// convention of the published solution, where such a position is as good as over).
    LionCapturable,
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
    /// Runs the search from the start position (in the current rayon pool). While it runs it holds four bit planes
    /// over the complete numbering, about 430 MB; what it keeps afterwards is one bitmap of the table, about 42 MB.
    pub fn search(table: &Indexer) -> Reachable {
        Reachable::search_with_progress(table, &|_, _| {})
    }

    /// [`Reachable::search`], calling `progress(depth, new)` after each ply of the search with the number of
    /// positions first reached at that depth.
    pub fn search_with_progress(
        table: &Indexer,
        progress: &(dyn Fn(u32, u64) + Sync),
    ) -> Reachable {
        Reachable::search_from(
            table,
            Position::startpos().board(),
            Stop::GameOver,
            progress,
        )
    }

    /// The search from `start` (with Sente to move), in the sub-game of `table`'s material.
    ///
    /// Ply by ply: every frontier position of either side is decoded, its moves played, and each position reached
    /// is looked up in the state of the other side to move; an unseen one is marked found with one atomic `or`,
    /// which also tells which thread found it first (and counts it). Nothing is allocated per position.
    pub fn search_from(
        table: &Indexer,
        start: &Board,
        stop: Stop,
        progress: &(dyn Fn(u32, u64) + Sync),
    ) -> Reachable {
        let all = Indexer::complete_for_material(table.material());
        let mut groups: Vec<Group> = Vec::new();
        groups.resize_with(all.size().div_ceil(64) as usize, Group::default);
        let first = all.encode(start).expect("numbered");
        // The start is the frontier of ply 0, with Sente to move.
        *groups[(first / 64) as usize].0[1].get_mut() |= 1 << (first % 64);
        let mut depth = 0;
        loop {
            let found: u64 = groups
                .par_chunks(GROUPS_PER_TASK)
                .enumerate()
                .map(|(task, chunk)| {
                    let mut found = 0;
                    for (offset, group) in chunk.iter().enumerate() {
                        let g = (task * GROUPS_PER_TASK + offset) as u64;
                        for side in 0..2 {
                            let [a, b] = [&group.0[2 * side], &group.0[2 * side + 1]];
                            let mut frontier =
                                b.load(Ordering::Relaxed) & !a.load(Ordering::Relaxed);
                            while frontier != 0 {
                                let i = g * 64 + u64::from(frontier.trailing_zeros());
                                frontier &= frontier - 1;
                                found += expand(&all, &groups, i, 1 - side, stop);
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
            groups.par_iter_mut().for_each(|group| {
                for side in 0..2 {
                    let a = *group.0[2 * side].get_mut();
                    let b = *group.0[2 * side + 1].get_mut();
                    *group.0[2 * side].get_mut() = b;
                    *group.0[2 * side + 1].get_mut() = a | b;
                }
            });
        }
        let in_table = Bits::new(table.size());
        let (outside, with_side) = groups
            .par_chunks(GROUPS_PER_TASK)
            .enumerate()
            .map(|(task, chunk)| {
                let mut counts = Counts::default();
                let mut with_side = 0;
                for (offset, group) in chunk.iter().enumerate() {
                    let g = (task * GROUPS_PER_TASK + offset) as u64;
                    let seen = group.0.each_ref().map(|w| w.load(Ordering::Relaxed));
                    let sente = seen[0] | seen[1];
                    let gote = seen[2] | seen[3];
                    with_side += u64::from(sente.count_ones() + gote.count_ones());
                    let mut word = sente | gote;
                    while word != 0 {
                        let i = g * 64 + u64::from(word.trailing_zeros());
                        word &= word - 1;
                        let board = all.decode(i).expect("reached positions are numbered");
                        match known_value(&board) {
                            Some(v) => counts.add(v, board == board.mirror()),
                            None => in_table.insert(table.encode(&board).expect("in the table")),
                        }
                    }
                }
                (counts, with_side)
            })
            .reduce(
                || (Counts::default(), 0),
                |(a, n), (b, m)| (a.merge(b), n + m),
            );
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
        let words = &self.in_table.0;
        let inside = words
            .par_chunks(1024)
            .enumerate()
            .map(|(chunk, block)| {
                let mut counts = Counts::default();
                for (offset, w) in block.iter().enumerate() {
                    let mut word = w.load(Ordering::Relaxed);
                    let base = (chunk * 1024 + offset) as u64 * 64;
                    while word != 0 {
                        let i = base + u64::from(word.trailing_zeros());
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

/// Expands the frontier position `i` of the complete numbering `all`: every move that does not end the game is
/// played, and each position reached (with `side` to move) that nobody has seen is marked found. Returns how many
/// this call found first.
#[inline]
fn expand(all: &Indexer, groups: &[Group], i: u64, side: usize, stop: Stop) -> u64 {
    let mut board = all.decode(i).expect("reached positions are numbered");
    if stop == Stop::LionCapturable && board.can_capture_lion() {
        return 0;
    }
    // A move of a piece other than the lion leaves the lions where they are, so most positions reached share one
    // class, known before the moves are played: the board is put in that class's orientation first (a mirror image
    // has the mirror images of its moves), and those positions are numbered without looking the class up again.
    let (ours, theirs) = (board.lion(Owner::Us), board.lion(Owner::Them));
    let (base, mirrored, symmetric) = all
        .class_of(theirs.rotate(), ours.rotate())
        .expect("the complete numbering has every placement");
    if mirrored {
        board = board.mirror();
    }
    let lion = board.kind_set(Kind::Lion) & board.occupied(Owner::Us);
    // The indices are computed first and looked up after, so that the look-ups (cache misses, mostly) overlap.
    let mut reached = [0u64; MAX_MOVES];
    let mut n = 0;
    board.children(|next, lion_taken| {
        if lion_taken || next.try_succeeds() {
            return;
        }
        let moved_lion = next.kind_set(Kind::Lion) & next.occupied(Owner::Us) != lion;
        reached[n] = if moved_lion || symmetric {
            all.encode(&next.flip()).expect("numbered")
        } else {
            all.encode_in_class(base, &next.flip())
        };
        n += 1;
    });
    let mut found = 0;
    for &c in &reached[..n] {
        let group = &groups[(c / 64) as usize].0;
        let bit = 1u64 << (c % 64);
        let seen =
            group[2 * side].load(Ordering::Relaxed) | group[2 * side + 1].load(Ordering::Relaxed);
        if seen & bit == 0 && group[2 * side].fetch_or(bit, Ordering::Relaxed) & bit == 0 {
            found += 1;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

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

    /// A position of a sub-game as a plain key, the same for a board and its mirror image: not the index.
    type Key = ([u8; 12], [[u8; 3]; 2]);

    fn key(board: &Board) -> Key {
        let plain = |b: &Board| {
            let cells = b.cells().map(|c| match c.piece() {
                None => 0,
                Some((owner, kind)) => 1 + kind as u8 + 8 * owner as u8,
            });
            (cells, b.hands())
        };
        plain(board).min(plain(&board.mirror()))
    }

    /// The reachable search done plainly: breadth first over hash sets of boards, every move played by
    /// [`Board::play`]. Returns the (position, side to move) pairs reached, the depth, and the positions reached
    /// with either side to move.
    fn plain_search(start: &Board, stop: Stop) -> (u64, u32, Vec<Board>) {
        let mut seen: HashSet<(Key, usize)> = HashSet::new();
        let mut positions: HashMap<Key, Board> = HashMap::new();
        let mut frontier = vec![(*start, 0)];
        seen.insert((key(start), 0));
        positions.insert(key(start), *start);
        let mut depth = 0;
        loop {
            let mut next = Vec::new();
            for (board, side) in frontier {
                if stop == Stop::LionCapturable && board.can_capture_lion() {
                    continue;
                }
                board.moves(|m| {
                    if board.is_winning_move(m) {
                        return;
                    }
                    let child = board.play(m).0.flip();
                    if seen.insert((key(&child), 1 - side)) {
                        positions.entry(key(&child)).or_insert(child);
                        next.push((child, 1 - side));
                    }
                });
            }
            if next.is_empty() {
                break;
            }
            depth += 1;
            frontier = next;
        }
        (seen.len() as u64, depth, positions.into_values().collect())
    }

    /// Made-up values by index, so that the counts depend on exactly which indices were reached.
    fn made_up(i: Index) -> Option<Value> {
        Some(match i % 3 {
            0 => Value::win((i % 11) as u32),
            1 => Value::loss((i % 13) as u32),
            _ => Value::DRAW,
        })
    }

    #[test]
    fn the_reachable_search_agrees_with_a_plain_search() {
        for (text, material) in [
            ("1l1/1c1/1C1/1L1 b -", [0, 0, 2]),
            ("1l1/1c1/3/GL1 b -", [1, 0, 1]),
            ("el1/3/1C1/1L1 b -", [0, 1, 1]),
        ] {
            let start = Position::parse_with(text, material).expect("a sub-game position");
            let table = Indexer::for_material(material);
            let mut found = Vec::new();
            for stop in [Stop::GameOver, Stop::LionCapturable] {
                let reachable = Reachable::search_from(&table, start.board(), stop, &|_, _| {});
                let (with_side, depth, positions) = plain_search(start.board(), stop);
                assert!(with_side > 1000, "{text}: {with_side}");
                assert_eq!(reachable.with_side, with_side, "{text} {stop:?}");
                assert_eq!(reachable.depth, depth, "{text} {stop:?}");
                let mut expected = Counts::default();
                for b in &positions {
                    let value = position_value(&table, b, made_up).expect("a value");
                    expected.add(value, b == &b.mirror());
                }
                assert_eq!(
                    reachable.counts(&table, made_up),
                    expected,
                    "{text} {stop:?}"
                );
                found.push(with_side);
            }
            // Stopping at capturable lions reaches fewer positions.
            assert!(found[1] < found[0], "{text}: {found:?}");
        }
    }

    #[test]
    fn outside_counts_by_runs_are_the_plain_ones() {
        for material in [[1, 0, 1], [0, 2, 1]] {
            let all = Indexer::complete_for_material(material);
            let mut plain = Counts::default();
            for i in 0..all.size() {
                if let Some(b) = all.decode(i)
                    && !all.in_table(&b)
                {
                    plain.add(excluded_value(&b).unwrap(), b == b.mirror());
                }
            }
            let fast = outside_table_counts_for(material);
            assert_eq!(fast, plain, "{material:?}");
            assert!(fast.losses > 0 && fast.wins > 0 && fast.symmetric > 0);
        }
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
