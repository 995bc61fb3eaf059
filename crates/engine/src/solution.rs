//! A solved table as the engine hands it over: one value per index, read straight from the engine's cells.

use rayon::prelude::*;
use retro_game::{Index, Value};

use crate::cell::{Cells, P8, State, W8, W16, W32, Width};
use crate::exits::BestExits;

/// Totals of a solved table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Indices that are positions (not holes).
    pub positions: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// The longest distance of any win or loss (0 when there are none).
    pub max_plies: u32,
    /// The sum of the distances of all wins and losses.
    pub sum_plies: u64,
    /// Generations the engine walked.
    pub generations: u32,
    /// Bytes per index of the cells the table ended in (1, 2 or 4).
    pub cell_bytes: u32,
}

/// How a solve went, besides its values: the out-of-core figures (all zero for an in-memory solve), and how an
/// in-memory solve found its wins.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Times an in-memory solve found the wins that one range's losses give by looking forward from the open
    /// positions rather than back from the losses (see [`Game::turns`](retro_game::Game::turns)).
    pub pulls: u64,
    /// Slices the index space was cut into (0: solved in memory, without a work directory).
    pub slices: u64,
    /// Indices per slice.
    pub slice_positions: u64,
    /// Bytes this process read from and wrote to the work directory's scratch files.
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Checkpoints committed by this process.
    pub checkpoints: u64,
    /// The generation this process resumed from, when it found a checkpoint.
    pub resumed_at: Option<u32>,
}

pub(crate) enum SolvedCells {
    P8(Cells<P8>),
    W8(Cells<W8>),
    W16(Cells<W16>),
    W32(Cells<W32>),
}

/// The value of every index of a game.
pub struct Solution {
    pub(crate) cells: SolvedCells,
    stats: Stats,
    report: Report,
    best_exits: Option<BestExits>,
}

impl Solution {
    pub(crate) fn new(cells: SolvedCells, generations: u32) -> Solution {
        let mut stats = match &cells {
            SolvedCells::P8(c) => count(c),
            SolvedCells::W8(c) => count(c),
            SolvedCells::W16(c) => count(c),
            SolvedCells::W32(c) => count(c),
        };
        stats.generations = generations;
        Solution {
            cells,
            stats,
            report: Report::default(),
            best_exits: None,
        }
    }

    pub fn size(&self) -> Index {
        match &self.cells {
            SolvedCells::P8(c) => c.len() as Index,
            SolvedCells::W8(c) => c.len() as Index,
            SolvedCells::W16(c) => c.len() as Index,
            SolvedCells::W32(c) => c.len() as Index,
        }
    }

    /// The value of the position at `index` for its player to move; `None` for a hole.
    #[inline]
    pub fn value(&self, index: Index) -> Option<Value> {
        let i = index as usize;
        match &self.cells {
            SolvedCells::P8(c) => c.value(i),
            SolvedCells::W8(c) => c.value(i),
            SolvedCells::W16(c) => c.value(i),
            SolvedCells::W32(c) => c.value(i),
        }
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The out-of-core figures of the solve.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// Hands over the best outcome of every position's exits, when the solve kept them
    /// ([`SolveOptions::best_exits`](crate::SolveOptions::best_exits)); the solution no longer holds them.
    pub fn take_best_exits(&mut self) -> Option<BestExits> {
        self.best_exits.take()
    }

    pub(crate) fn with_best_exits(mut self, best_exits: Option<BestExits>) -> Solution {
        self.best_exits = best_exits;
        self
    }

    pub(crate) fn with_report(mut self, report: Report) -> Solution {
        self.report = report;
        self
    }
}

fn count<W: Width>(cells: &Cells<W>) -> Stats {
    const CHUNK: usize = 1 << 16;
    let len = cells.len();
    let mut stats = (0..len.div_ceil(CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut s = Stats::default();
            for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(len) {
                match cells.state(i) {
                    State::Hole => continue,
                    State::Open(_) => s.draws += 1,
                    State::Won(p) => {
                        s.wins += 1;
                        s.max_plies = s.max_plies.max(p);
                        s.sum_plies += u64::from(p);
                    }
                    State::Lost(p) => {
                        s.losses += 1;
                        s.max_plies = s.max_plies.max(p);
                        s.sum_plies += u64::from(p);
                    }
                }
                s.positions += 1;
            }
            s
        })
        .reduce(Stats::default, |a, b| Stats {
            positions: a.positions + b.positions,
            wins: a.wins + b.wins,
            losses: a.losses + b.losses,
            draws: a.draws + b.draws,
            max_plies: a.max_plies.max(b.max_plies),
            sum_plies: a.sum_plies + b.sum_plies,
            generations: 0,
            cell_bytes: 0,
        });
    stats.cell_bytes = W::BITS / 8;
    stats
}

impl retro_game::Values for Solution {
    fn value(&self, index: Index) -> Option<Value> {
        Solution::value(self, index)
    }

    fn codes(&self, first: Index, out: &mut [u64]) {
        let first = first as usize;
        match &self.cells {
            SolvedCells::P8(c) => c.codes(first, out),
            SolvedCells::W8(c) => c.codes(first, out),
            SolvedCells::W16(c) => c.codes(first, out),
            SolvedCells::W32(c) => c.codes(first, out),
        }
    }

    fn longest_plies(&self) -> u32 {
        self.stats().max_plies
    }

    fn resident_bytes(&self) -> u64 {
        self.size() * u64::from(self.stats().cell_bytes)
    }
}
