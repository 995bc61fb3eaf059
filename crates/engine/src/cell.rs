//! One cell per position: the degree counter while the position is open, its value once it is resolved.
//!
//! A position needs its counter only until it is resolved, and its value only after; so both share one unsigned
//! integer of `BITS` bits:
//!
//! ```text
//!   0ccc…c   open: c = moves not yet refuted, 0 = not counted yet (all ones: a hole, never touched again)
//!   10pp…p   lost in p plies
//!   11pp…p   won in p plies
//! ```
//!
//! except for the bytes by parity ([`P8`]), whose 256 codes are counters (0 to 78), the hole (79), the losses
//! (80 + p / 2 for a loss in p plies, p even) and the wins (168 + p / 2, p odd).
//!
//! Cells start as narrow as the game allows and the engine widens them to 16 and then 32 bits when a distance or a
//! counter no longer fits. Small cells are what make large tables fit in memory: Dobutsu shogi and most 5-man chess
//! tables run at one byte per position.
//!
//! The byte cells ([`P8`]) store distances by parity. Under normal play every win of most games takes an odd number
//! of plies and every loss an even number (the winner makes the last move): chess, Dobutsu shogi, Connect Four and
//! every graph game do. A byte then stores half the distance, `p >> 1`, which the outcome completes; with counters
//! capped at 78 (see [`PARITY_HOLE`]) it holds distances up to 174 plies instead of 63: a five-man chess table with a
//! mate in 35 moves stays at one byte per position instead of two, and so do KQRvKR, whose captures lead to mates in
//! 35 moves, and Dobutsu shogi, whose longest loss takes 172 plies. Whether a game's distances follow their parity
//! is sampled before a build starts. A game that does not (misère play, Quixo's positions won before the move), or
//! whose first pass finds a position off parity, is built out of core in plain byte cells ([`W8`]: distances up to
//! 63 plies) and in memory in 16-bit cells: the in-memory engine is not compiled for plain bytes, as a fourth cell
//! type made its hot loops about 3% slower on chess (KQRvKR, side by side).

use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, Ordering};

use retro_game::Value;

use crate::mapped::{Atomic, Backing, MappedArray};
use crate::solution::SolvedCells;

/// The decoded state of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Hole,
    /// Still open, with this many moves not yet refuted; zero when they are not counted yet ([`State::UNCOUNTED`]).
    Open(u32),
    Won(u32),
    Lost(u32),
}

impl State {
    /// An open position whose moves inside the table initialisation did not count (see
    /// [`Game::survey`](retro_game::Game::survey)): they are counted when the first of them is refuted. An open
    /// position with no move left is resolved at once, so a counter of zero is free to mean this.
    pub const UNCOUNTED: State = State::Open(0);

    /// Whether a resolved state's distance follows its parity (a win odd, a loss even); true of the others.
    pub fn on_parity(self) -> bool {
        match self {
            State::Won(p) => p % 2 == 1,
            State::Lost(p) => p % 2 == 0,
            State::Open(_) | State::Hole => true,
        }
    }
}

/// The hole of a byte by parity, which splits its 256 codes: counters below it (up to 78: the 74 moves of Dobutsu
/// shogi and of every five-man chess material but three queens, plus one for an exit to a draw), then 88 codes of
/// losses (0 to 174 plies) and 88 of wins (1 to 173 plies; the last code, a win in 175, is left unused so that
/// wins and losses share one limit, `MAX_PLIES`). Dobutsu shogi's longest distance, 173 plies, fits: its cells never
/// widen.
const PARITY_HOLE: u32 = 79;

/// A cell width: the integer type and its atomic operations.
pub trait Width: Send + Sync + Sized + 'static {
    type Atomic: Atomic;
    /// The width to move to when this one overflows (the widest is its own).
    type Wider: Width;
    const BITS: u32;
    /// A short name, for messages and file names.
    const NAME: &'static str;
    fn load(a: &Self::Atomic) -> u32;
    fn store(a: &Self::Atomic, v: u32);
    fn compare_exchange(a: &Self::Atomic, old: u32, new: u32) -> bool;
    /// Hands finished cells over to a [`Solution`](crate::Solution).
    fn into_solved(cells: Cells<Self>) -> SolvedCells;

    /// Whether distances are stored by parity: `p >> 1`, every win taking an odd number of plies and every loss an
    /// even one ([`State::on_parity`]). Only a game whose distances all do may use these cells.
    const BY_PARITY: bool = false;

    const RESOLVED: u32 = 1 << (Self::BITS - 1);
    const WON: u32 = 1 << (Self::BITS - 2);
    const HOLE: u32 = if Self::BY_PARITY {
        PARITY_HOLE
    } else {
        Self::RESOLVED - 1
    };
    /// The largest counter a cell holds.
    const MAX_COUNT: u32 = Self::HOLE - 1;
    /// The bits of a resolved cell that hold its distance.
    const DISTANCE_BITS: u32 = Self::WON - 1;
    /// By parity: the code of a loss in 0 plies, and of a win in 1 ply; the others follow each, a code per 2 plies.
    const LOST_BASE: u32 = Self::HOLE + 1;
    const WON_BASE: u32 =
        Self::LOST_BASE + ((1u64 << Self::BITS) - Self::LOST_BASE as u64).div_ceil(2) as u32;
    /// The largest distance a cell holds.
    const MAX_PLIES: u32 = if Self::BY_PARITY {
        2 * (Self::WON_BASE - Self::LOST_BASE - 1)
    } else {
        Self::DISTANCE_BITS
    };

    #[inline(always)]
    fn decode(raw: u32) -> State {
        if Self::BY_PARITY {
            return if raw < Self::HOLE {
                State::Open(raw)
            } else if raw == Self::HOLE {
                State::Hole
            } else if raw < Self::WON_BASE {
                State::Lost(2 * (raw - Self::LOST_BASE))
            } else {
                State::Won(2 * (raw - Self::WON_BASE) + 1)
            };
        }
        let stored = raw & Self::DISTANCE_BITS;
        if raw & Self::RESOLVED == 0 {
            if raw == Self::HOLE {
                State::Hole
            } else {
                State::Open(raw)
            }
        } else if raw & Self::WON != 0 {
            State::Won(stored)
        } else {
            State::Lost(stored)
        }
    }

    #[inline(always)]
    fn won(plies: u32) -> u32 {
        debug_assert!(plies <= Self::MAX_PLIES);
        if Self::BY_PARITY {
            debug_assert!(plies % 2 == 1, "a win in {plies} plies");
            Self::WON_BASE + (plies >> 1)
        } else {
            Self::RESOLVED | Self::WON | plies
        }
    }

    #[inline(always)]
    fn lost(plies: u32) -> u32 {
        debug_assert!(plies <= Self::MAX_PLIES);
        if Self::BY_PARITY {
            debug_assert!(plies.is_multiple_of(2), "a loss in {plies} plies");
            Self::LOST_BASE + (plies >> 1)
        } else {
            Self::RESOLVED | plies
        }
    }

    /// The code ([`Value::code`]) of the final value of a cell (open cells are draws): what [`Width::decode`] and
    /// [`Cells::value`] give, found by arithmetic and selects instead of their branches, since a table's writer reads
    /// every cell and the outcomes of neighbouring cells follow no pattern a branch predictor learns.
    #[inline(always)]
    fn final_code(raw: u32) -> u64 {
        let r = u64::from(raw);
        let unresolved = u64::from(raw != Self::HOLE);
        if Self::BY_PARITY {
            // A loss in 2k plies is LOST_BASE + k, code 3 + 4k; a win in 2k + 1 is WON_BASE + k, code 4 + 4k. Both
            // are computed for every cell and one kept: the other wraps, harmlessly.
            let lost = r
                .wrapping_sub(u64::from(Self::LOST_BASE))
                .wrapping_mul(4)
                .wrapping_add(3);
            let won = r
                .wrapping_sub(u64::from(Self::WON_BASE))
                .wrapping_mul(4)
                .wrapping_add(4);
            let resolved = if raw < Self::WON_BASE { lost } else { won };
            if raw <= Self::HOLE {
                unresolved
            } else {
                resolved
            }
        } else {
            let plies = u64::from(raw & Self::DISTANCE_BITS);
            let resolved = 2 + 2 * plies + u64::from(raw & Self::WON == 0);
            if raw & Self::RESOLVED != 0 {
                resolved
            } else {
                unresolved
            }
        }
    }

    /// Whether cells of this width can hold `state` (its distance, and its parity when they store by parity).
    fn holds(state: State) -> bool {
        match state {
            State::Won(p) | State::Lost(p) => {
                p <= Self::MAX_PLIES && (!Self::BY_PARITY || state.on_parity())
            }
            State::Open(c) => c <= Self::MAX_COUNT,
            State::Hole => true,
        }
    }

    /// The encoding of a decoded state (which must fit).
    #[inline(always)]
    fn encode(state: State) -> u32 {
        match state {
            State::Hole => Self::HOLE,
            State::Open(c) => c,
            State::Won(p) => Self::won(p),
            State::Lost(p) => Self::lost(p),
        }
    }
}

macro_rules! width {
    ($name:ident, $wider:ident, $atomic:ty, $int:ty, $bits:expr, $parity:expr, $label:expr, $doc:expr) => {
        #[doc = $doc]
        pub struct $name;
        impl Width for $name {
            type Atomic = $atomic;
            type Wider = $wider;
            const BITS: u32 = $bits;
            const BY_PARITY: bool = $parity;
            const NAME: &'static str = $label;
            #[inline(always)]
            fn load(a: &$atomic) -> u32 {
                a.load(Ordering::Relaxed) as u32
            }
            #[inline(always)]
            fn store(a: &$atomic, v: u32) {
                a.store(v as $int, Ordering::Relaxed)
            }
            #[inline(always)]
            fn compare_exchange(a: &$atomic, old: u32, new: u32) -> bool {
                a.compare_exchange(
                    old as $int,
                    new as $int,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_ok()
            }
            fn into_solved(cells: Cells<Self>) -> SolvedCells {
                SolvedCells::$name(cells)
            }
        }
    };
}

width!(
    W8,
    W16,
    AtomicU8,
    u8,
    8,
    false,
    "u8",
    "One byte: distances up to 63 plies, counters below 126."
);
width!(
    P8,
    W16,
    AtomicU8,
    u8,
    8,
    true,
    "u8-parity",
    "One byte by parity: distances up to 174 plies (wins odd, losses even), counters up to 78."
);
width!(
    W16,
    W32,
    AtomicU16,
    u16,
    16,
    false,
    "u16",
    "Two bytes: distances below 16384 plies."
);
width!(
    W32,
    W32,
    AtomicU32,
    u32,
    32,
    false,
    "u32",
    "Four bytes: distances below 2^30 plies."
);

/// The width a build's cells start with, or have reached: what the engine dispatches on and what a checkpoint records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CellWidth {
    P8,
    W8,
    W16,
    W32,
}

impl CellWidth {
    const ALL: [CellWidth; 4] = [CellWidth::P8, CellWidth::W8, CellWidth::W16, CellWidth::W32];

    /// The width of cells of type `W`.
    pub(crate) fn of<W: Width>() -> CellWidth {
        let of = |w: CellWidth| w.bits() == W::BITS && w.by_parity() == W::BY_PARITY;
        Self::ALL
            .into_iter()
            .find(|&w| of(w))
            .expect("every cell type has its width")
    }

    pub(crate) fn bits(self) -> u32 {
        match self {
            CellWidth::P8 => P8::BITS,
            CellWidth::W8 => W8::BITS,
            CellWidth::W16 => W16::BITS,
            CellWidth::W32 => W32::BITS,
        }
    }

    fn by_parity(self) -> bool {
        self == CellWidth::P8
    }

    /// How a checkpoint's manifest writes it: the bits, and `p` for cells by parity.
    pub(crate) fn label(self) -> &'static str {
        match self {
            CellWidth::P8 => "8p",
            CellWidth::W8 => "8",
            CellWidth::W16 => "16",
            CellWidth::W32 => "32",
        }
    }

    pub(crate) fn from_label(label: &str) -> Option<CellWidth> {
        Self::ALL.into_iter().find(|w| w.label() == label)
    }
}

/// The cells of a whole table.
pub struct Cells<W: Width> {
    array: MappedArray<W::Atomic>,
    backing: Backing,
}

impl<W: Width> Cells<W> {
    pub fn new(len: usize, backing: &Backing) -> std::io::Result<Self> {
        Ok(Cells {
            array: MappedArray::new(len, backing, W::NAME)?,
            backing: backing.clone(),
        })
    }

    /// The first `len` cells stored in `file`, an open file without a name in the directory `dir` (see
    /// [`MappedArray::from_unlinked_file`]).
    pub fn from_unlinked_file(
        file: std::fs::File,
        len: usize,
        dir: &std::path::Path,
    ) -> std::io::Result<Self> {
        Ok(Cells {
            array: MappedArray::from_unlinked_file(file, len)?,
            backing: Backing::Directory(dir.to_owned()),
        })
    }

    /// Gives the memory of cells `start..end` back to the kernel; they must not be read again.
    pub fn release(&mut self, start: usize, end: usize) {
        self.array.release(start, end);
    }

    /// Where the cells are stored.
    pub fn backing(&self) -> &Backing {
        &self.backing
    }

    pub fn len(&self) -> usize {
        self.array.len()
    }

    #[inline(always)]
    pub fn raw(&self, i: usize) -> u32 {
        W::load(&self.array.as_slice()[i])
    }

    /// Asks the processor to bring cell `i` into the cache, ahead of an update ([`crate::prefetch`]).
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        crate::prefetch::prefetch(&self.array.as_slice()[i]);
    }

    #[inline(always)]
    pub fn state(&self, i: usize) -> State {
        W::decode(self.raw(i))
    }

    #[inline(always)]
    pub fn set_raw(&self, i: usize, raw: u32) {
        W::store(&self.array.as_slice()[i], raw)
    }

    #[inline(always)]
    pub fn compare_exchange(&self, i: usize, old: u32, new: u32) -> bool {
        W::compare_exchange(&self.array.as_slice()[i], old, new)
    }

    /// Replaces cell `i`, last read as `old`, by `new`: a compare-and-swap when other threads may write the cells
    /// at the same time (`SHARED`), else a plain store, which always succeeds. A locked compare-and-swap also orders
    /// every memory access around it, so a thread alone cannot overlap the cache misses of successive updates; with
    /// one thread, the store lets it (KQRvKR with one thread: see `Context::walk`).
    #[inline(always)]
    pub fn replace<const SHARED: bool>(&self, i: usize, old: u32, new: u32) -> bool {
        if SHARED {
            self.compare_exchange(i, old, new)
        } else {
            debug_assert_eq!(self.raw(i), old, "cell {i} changed under a thread alone");
            self.set_raw(i, new);
            true
        }
    }

    /// The bytes of the first `len` cells (native byte order), to be filled from a file.
    pub fn bytes_mut(&mut self, len: usize) -> &mut [u8] {
        self.array.bytes_mut(len)
    }

    /// The bytes of the first `len` cells (native byte order), to be written to a file.
    pub fn bytes(&mut self, len: usize) -> &[u8] {
        self.array.bytes(len)
    }

    /// The final values of the cells from `first` on as codes ([`Value::code`]), one for each entry of `out`.
    pub fn codes(&self, first: usize, out: &mut [u64]) {
        let cells = &self.array.as_slice()[first..first + out.len()];
        for (cell, code) in cells.iter().zip(out) {
            *code = W::final_code(W::load(cell));
        }
    }

    /// The final value of a position once the engine has finished: open cells are draws.
    pub fn value(&self, i: usize) -> Option<Value> {
        match self.state(i) {
            State::Hole => None,
            State::Open(_) => Some(Value::DRAW),
            State::Won(p) => Some(Value::win(p)),
            State::Lost(p) => Some(Value::loss(p)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips<W: Width>() {
        for state in [
            State::Hole,
            State::Open(1),
            State::Open(W::MAX_COUNT),
            State::Won(0),
            State::Won(W::MAX_PLIES),
            State::Lost(0),
            State::Lost(W::MAX_PLIES),
        ] {
            assert!(W::holds(state));
            assert_eq!(W::decode(W::encode(state)), state, "{}", W::NAME);
        }
        assert!(W::MAX_COUNT < W::HOLE);
        assert!(!W::holds(State::Lost(W::MAX_PLIES + 1)));
        let width = CellWidth::of::<W>();
        assert_eq!((width.bits(), width.by_parity()), (W::BITS, W::BY_PARITY));
        assert_eq!(CellWidth::from_label(width.label()), Some(width));
    }

    /// The code of every raw cell agrees with its decoded value: every cell of the narrow widths, and a spread of
    /// the 32-bit ones with each flag.
    #[test]
    fn final_codes_are_the_codes_of_the_decoded_values() {
        fn agrees<W: Width>(raws: impl Iterator<Item = u32>) {
            for raw in raws {
                let value = match W::decode(raw) {
                    State::Hole => None,
                    State::Open(_) => Some(Value::DRAW),
                    State::Won(p) => Some(Value::win(p)),
                    State::Lost(p) => Some(Value::loss(p)),
                };
                assert_eq!(
                    W::final_code(raw),
                    Value::code(value),
                    "{} {raw:#x}",
                    W::NAME
                );
            }
        }
        agrees::<P8>(0..=0xff);
        agrees::<W8>(0..=0xff);
        agrees::<W16>(0..=0xffff);
        let spread = (0..=0xffffu32)
            .flat_map(|low| [low, low << 16 | low, !low, low | 1 << 31, low | 3 << 30]);
        agrees::<W32>(spread);
    }

    #[test]
    fn cells_by_parity_hold_every_odd_win_and_even_loss_in_a_byte() {
        for p in (1..=173).step_by(2) {
            assert!(P8::holds(State::Won(p)));
            assert_eq!(P8::decode(P8::won(p)), State::Won(p));
        }
        for p in (0..=174).step_by(2) {
            assert!(P8::holds(State::Lost(p)));
            assert_eq!(P8::decode(P8::lost(p)), State::Lost(p));
        }
        // Two states share no byte, and no resolved byte reads as a counter or a hole.
        let raws: std::collections::HashSet<u32> = (1..=173)
            .step_by(2)
            .map(P8::won)
            .chain((0..=174).step_by(2).map(P8::lost))
            .collect();
        assert_eq!(raws.len(), 87 + 88);
        assert!(raws.iter().all(|&r| (P8::HOLE + 1..=0xff).contains(&r)));
        for state in [
            State::Won(0),
            State::Won(126),
            State::Won(175),
            State::Lost(1),
            State::Lost(127),
            State::Lost(176),
            State::Open(79),
        ] {
            assert!(!P8::holds(state), "{state:?}");
        }
        for c in 1..=78 {
            assert_eq!(P8::decode(P8::encode(State::Open(c))), State::Open(c));
        }
        assert_eq!(P8::decode(P8::HOLE), State::Hole);
        // A counter decremented is the next lower counter, as the engine's compare-and-swap expects.
        assert_eq!(P8::encode(State::Open(40)) - 1, P8::encode(State::Open(39)));
        assert_eq!(CellWidth::of::<P8>(), CellWidth::P8);
        assert_eq!(CellWidth::from_label("8p"), Some(CellWidth::P8));
        assert_eq!(CellWidth::from_label("9"), None);
    }

    #[test]
    fn every_width_round_trips_its_extremes() {
        round_trips::<W8>();
        round_trips::<W16>();
        round_trips::<W32>();
        assert_eq!(W8::MAX_PLIES, 63);
        assert_eq!(W8::MAX_COUNT, 126);
        assert_eq!(P8::MAX_PLIES, 174);
        assert_eq!(P8::MAX_COUNT, 78);
        assert_eq!(W16::MAX_PLIES, 16383);
    }
}
