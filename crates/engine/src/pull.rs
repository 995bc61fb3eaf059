//! Pulling a generation's wins: looking forward from the positions still open instead of back from the losses.
//!
//! A generation walks back from each of its losses to every predecessor, which is won at the next generation unless
//! it is resolved already. Late in a chess table almost every predecessor is: in KQRvKR, 98% of the 1.29 billion
//! predecessors of Black's losses are found won before. Where the game splits its positions by the player to move
//! ([`Game::turns`]), the wins that the losses of one range give can be found the other way round: every position
//! outside the range that is still open is expanded, and won if one of its moves reaches a loss of this generation.
//! The frontier's bitmap answers "is it a loss of this generation" for each move. That costs the moves of the open
//! positions instead of the un-moves of the losses, and late in a table there are far fewer of the first.
//!
//! Either way the same cells change in the same way: a position with a lost successor gets [`update`]'s transition
//! once, as the walk would have given it (the walk's further calls find it settled). So the choice, made per
//! generation and per range from what the build has measured so far ([`Turns::plan`]), changes only the time.

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use retro_game::{Game, Move};

use crate::cell::{Cells, State, Width};
use crate::frontier::{Frontier, Gathered, Settled};
use crate::kernel::{Effect, update};

/// Indices one task of a pull looks at, when it scans the cells.
const SCAN_CHUNK: u64 = 1 << 14;

/// Positions one task of a pull looks at, when it reads them from the list the last pull left.
const LIST_CHUNK: u64 = 1 << 12;

/// Cells a pull scans for the cost of looking at one move: the scan for open positions reads every cell outside
/// the range.
const CELLS_PER_MOVE: u64 = 16;

/// The most positions a pull leaves in a list for the next one, per index of the game: beyond, the next pull scans
/// the cells again. Eight bytes a position, so the list takes at most a sixteenth of a byte per index
/// ([`Turns::list_bytes`]).
const LIST_SHARE: u64 = 128;

/// Whether a build pulls its wins: as the measured costs say (the default), always, or never (for tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pulling {
    #[default]
    Auto,
    Always,
    Never,
}

/// How many of something were seen, and the steps they took: un-moves per loss walked back from, moves per
/// position pulled.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    pub items: u64,
    pub steps: u64,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.items += other.items;
        self.steps += other.steps;
    }

    fn mean(self) -> Option<f64> {
        (self.items > 0).then(|| self.steps as f64 / self.items as f64)
    }
}

/// The same tally, added to by many threads.
#[derive(Default)]
pub(crate) struct SharedTally {
    items: AtomicU64,
    steps: AtomicU64,
}

impl SharedTally {
    pub fn add(&self, tally: Tally) {
        self.items.fetch_add(tally.items, Ordering::Relaxed);
        self.steps.fetch_add(tally.steps, Ordering::Relaxed);
    }

    pub fn take(&self) -> Tally {
        Tally {
            items: self.items.swap(0, Ordering::Relaxed),
            steps: self.steps.swap(0, Ordering::Relaxed),
        }
    }
}

/// A game's split by the player to move ([`Game::turns`]), and what the build has measured of both ways of
/// finding wins.
pub(crate) struct Turns {
    ranges: [Range<u64>; 2],
    size: u64,
    /// The positions of each range, and of the indices outside both, not yet in a frontier (holes are not
    /// positions): what a pull would look at, give or take the losses held up by exits.
    unresolved: [u64; 3],
    /// The losses of each range walked back from, and their un-moves.
    unmoves: [Tally; 2],
    /// The positions pulled, and their moves.
    moves: Tally,
    /// The pulls made.
    pub pulls: u64,
    /// The losses of each range in the next frontier, as the walk that found them counted them (`None` before the
    /// first walk: counted from the cells).
    losses: Option<[u64; 2]>,
    /// For each range, the positions outside it that the last pull left open, in index order: a superset of those
    /// the next pull must look at, since positions only ever leave that set. `None` when there were too many.
    lists: [Option<Vec<u64>>; 2],
    policy: Pulling,
}

impl Turns {
    /// The turns of a game of `size` indices, with `positions` positions in each range and outside both.
    pub fn new(ranges: [Range<u64>; 2], size: u64, positions: [u64; 3], policy: Pulling) -> Turns {
        Turns {
            ranges,
            size,
            unresolved: positions,
            unmoves: [Tally::default(); 2],
            moves: Tally::default(),
            pulls: 0,
            losses: None,
            lists: [None, None],
            policy,
        }
    }

    /// The most bytes the lists a pull leaves for the next take, for a game of `size` indices.
    pub fn list_bytes(size: u64) -> u64 {
        size / LIST_SHARE * 8
    }

    pub fn ranges(&self) -> &[Range<u64>; 2] {
        &self.ranges
    }

    /// Which of `range`'s index the position at `index` is in: 0 or 1, or 2 outside both.
    #[inline(always)]
    pub fn side(ranges: &[Range<u64>; 2], index: u64) -> usize {
        if ranges[0].contains(&index) {
            0
        } else if ranges[1].contains(&index) {
            1
        } else {
            2
        }
    }

    /// Takes in the frontier of generation `g`, with `seeded_losses` of each range among the positions the
    /// schedule published into it, and says, per range, whether to pull the wins its losses give rather than walk
    /// back from them: when the positions outside the range still open, times the moves a pulled position has,
    /// plus finding them (a scan of the cells, or the list the last pull left), cost less than the range's losses
    /// times their un-moves, as measured so far. A range is walked back from until its first losses have been, so
    /// that their un-moves are known.
    pub fn plan<W: Width>(
        &mut self,
        frontier: &Frontier,
        cells: &Cells<W>,
        seeded_losses: [u64; 2],
        g: u32,
    ) -> [bool; 2] {
        let mut in_ranges = 0;
        for r in 0..2 {
            let resolved = frontier.count_range(self.ranges[r].clone());
            self.unresolved[r] = self.unresolved[r].saturating_sub(resolved);
            in_ranges += resolved;
        }
        self.unresolved[2] = self.unresolved[2].saturating_sub(frontier.len() - in_ranges);
        let walked = self.losses.take();
        let Some(lost) = lost_raw::<W>(g) else {
            // Cells by parity and an odd generation: no losses to pull from.
            return [false; 2];
        };
        let losses: [u64; 2] = match walked {
            Some(walked) => std::array::from_fn(|r| walked[r] + seeded_losses[r]),
            None => std::array::from_fn(|r| {
                frontier.count_in(self.ranges[r].clone(), |i| cells.raw(i as usize) == lost)
            }),
        };
        std::array::from_fn(|r| {
            let losses = losses[r];
            match self.policy {
                Pulling::Never => return false,
                Pulling::Always => return losses > 0,
                Pulling::Auto if losses == 0 => return false,
                Pulling::Auto => {}
            }
            let Some(unmoves) = self.unmoves[r].mean() else {
                return false;
            };
            // Before the first pull, a pulled position is taken to have twice the un-moves of a loss: the open
            // positions are the hard ones, with the most moves.
            let moves = self.moves.mean().unwrap_or(2.0 * unmoves);
            let mut open = self.unresolved[1 - r] + self.unresolved[2];
            let finding = match &self.lists[r] {
                Some(list) => {
                    open = open.min(list.len() as u64);
                    list.len() as u64
                }
                None => (self.size - (self.ranges[r].end - self.ranges[r].start)) / CELLS_PER_MOVE,
            };
            let pull = open as f64 * moves + finding as f64;
            pull < losses as f64 * unmoves
        })
    }

    /// Takes in what a walk back measured: the losses of each range it walked back from and their un-moves, and
    /// the losses of each range it found for the next generation.
    pub fn walked(&mut self, unmoves: [Tally; 2], losses: [u64; 2]) {
        for (total, seen) in self.unmoves.iter_mut().zip(unmoves) {
            total.add(seen);
        }
        self.losses = Some(losses);
    }

    /// Pulls the wins that the losses of range `r` at generation `g` give ([`pull`]), into the next frontier's
    /// collectors.
    pub fn pull<G: Game, W: Width>(
        &mut self,
        r: usize,
        game: &G,
        arrays: Arrays<W>,
        g: u32,
    ) -> Vec<Gathered> {
        let cap = self.size / LIST_SHARE;
        let range = self.ranges[r].clone();
        let (gathered, moves, list) = pull(game, arrays, range, g, self.lists[r].take(), cap);
        self.lists[r] = list;
        self.pulls += 1;
        self.moves.add(moves);
        gathered
    }
}

/// The engine's arrays a pull reads and writes.
pub(crate) struct Arrays<'a, W: Width> {
    pub cells: &'a Cells<W>,
    pub settled: &'a Settled,
    /// The frontier of the generation pulled from.
    pub frontier: &'a Frontier,
    /// The next frontier, which the wins join.
    pub next: &'a Frontier,
}

/// The cell of a loss at generation `g`, if cells of width `W` hold one (cells by parity hold even losses only).
#[inline]
fn lost_raw<W: Width>(g: u32) -> Option<u32> {
    (!W::BY_PARITY || g.is_multiple_of(2)).then(|| W::lost(g))
}

/// Pulls the wins at `g + 1` that the losses at `g` inside `range` give (see the module's documentation): every
/// position outside `range` that is open, or won later through an exit, is expanded, and won at `g + 1` if one of
/// its moves reaches a position of `range` in the frontier whose cell is a loss at `g`. The positions looked at are
/// those of `list` when the last pull left one, else every index outside `range` not marked settled. The wins join
/// the next frontier's collectors, returned for [`Frontier::absorb`]. No other thread may update the cells
/// meanwhile: each position pulled is updated by the one task that looks at it, with a plain store. Returns too the
/// positions expanded and their moves, and the list of those left open, in index order, if there are at most `cap`.
pub(crate) fn pull<G: Game, W: Width>(
    game: &G,
    arrays: Arrays<W>,
    range: Range<u64>,
    g: u32,
    list: Option<Vec<u64>>,
    cap: u64,
) -> (Vec<Gathered>, Tally, Option<Vec<u64>>) {
    let Arrays {
        cells,
        settled,
        frontier,
        next,
    } = arrays;
    let Some(lost) = lost_raw::<W>(g) else {
        return (Vec::new(), Tally::default(), list);
    };
    let size = cells.len() as u64;
    let chunks: Vec<Range<u64>> = match &list {
        Some(list) => chunked(0..list.len() as u64, LIST_CHUNK).collect(),
        None => chunked(0..range.start.min(size), SCAN_CHUNK)
            .chain(chunked(range.end.min(size)..size, SCAN_CHUNK))
            .collect(),
    };
    let measured = SharedTally::default();
    // The positions left open, per chunk, while there are at most `cap` of them.
    let left_open = Mutex::new(Vec::new());
    let kept = AtomicU64::new(0);
    let gathered = next.gather(&chunks, |chunk, collector| {
        let mut tally = Tally::default();
        let mut still_open = Vec::new();
        let mut look = |p: u64| {
            let open = match cells.state(p as usize) {
                State::Open(_) => true,
                State::Won(plies) => plies > g + 1,
                _ => false,
            };
            if !open {
                return;
            }
            tally.items += 1;
            let mut reaches_loss = false;
            game.expand(p, |m| {
                if let Move::To(q) = m {
                    tally.steps += 1;
                    reaches_loss = reaches_loss
                        || (range.contains(&q)
                            && frontier.contains(q)
                            && cells.raw(q as usize) == lost);
                }
            });
            if !reaches_loss {
                still_open.push(p);
            } else if update::<W, false>(false, cells, p as usize, g, || 0, || 0)
                == Effect::Resolved
            {
                collector.push(p);
            }
        };
        let start = chunk.start;
        match &list {
            Some(list) => list[chunk.start as usize..chunk.end as usize]
                .iter()
                .for_each(|&p| look(p)),
            None => {
                // Settled positions are skipped by their bits, 64 at a time where all are.
                let mut p = chunk.start;
                while p < chunk.end {
                    if p.is_multiple_of(64)
                        && p + 64 <= chunk.end
                        && settled.word(p / 64) == u64::MAX
                    {
                        p += 64;
                        continue;
                    }
                    if !settled.has(p) {
                        look(p);
                    }
                    p += 1;
                }
            }
        }
        measured.add(tally);
        let count = still_open.len() as u64;
        if kept.fetch_add(count, Ordering::Relaxed) + count <= cap {
            left_open
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((start, still_open));
        }
    });
    let list = (kept.into_inner() <= cap).then(|| {
        let mut parts = left_open.into_inner().unwrap_or_else(|e| e.into_inner());
        parts.sort_unstable_by_key(|&(start, _)| start);
        parts.into_iter().flat_map(|(_, part)| part).collect()
    });
    (gathered, measured.take(), list)
}

/// `range` in pieces of `step`.
fn chunked(range: Range<u64>, step: u64) -> impl Iterator<Item = Range<u64>> {
    (range.start..range.end)
        .step_by(step as usize)
        .map(move |start| start..(start + step).min(range.end))
}
