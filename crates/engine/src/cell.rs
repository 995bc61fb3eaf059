//! One cell per position: the degree counter while the position is open, its value once it is resolved.
//!
//! A position needs its counter only until it is resolved, and its value only after; so both share one unsigned
//! integer of `BITS` bits:
//!
//! ```text
//!   0ccc…c   open: c = moves not yet refuted (all ones: a hole, which is never touched again)
//!   10pp…p   lost in p plies
//!   11pp…p   won in p plies
//! ```
//!
//! Cells start as narrow as the game allows (8 bits while every distance is below 64 plies) and the engine widens
//! them to 16 and then 32 bits when a distance or a counter no longer fits. Small cells are what make large tables
//! fit in memory: Dobutsu shogi and 5-man chess run at about one byte per position.

use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, Ordering};

use retro_game::Value;

use crate::mapped::{Atomic, Backing, MappedArray};
use crate::solution::SolvedCells;

/// The decoded state of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Hole,
    /// Still open, with this many moves not yet refuted. Zero never occurs: such a position is resolved at once.
    Open(u32),
    Won(u32),
    Lost(u32),
}

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

    const RESOLVED: u32 = 1 << (Self::BITS - 1);
    const WON: u32 = 1 << (Self::BITS - 2);
    const HOLE: u32 = Self::RESOLVED - 1;
    /// The largest counter a cell holds.
    const MAX_COUNT: u32 = Self::HOLE - 1;
    /// The largest distance a cell holds.
    const MAX_PLIES: u32 = Self::WON - 1;

    fn decode(raw: u32) -> State {
        if raw & Self::RESOLVED == 0 {
            if raw == Self::HOLE {
                State::Hole
            } else {
                State::Open(raw)
            }
        } else if raw & Self::WON != 0 {
            State::Won(raw & Self::MAX_PLIES)
        } else {
            State::Lost(raw & Self::MAX_PLIES)
        }
    }

    fn won(plies: u32) -> u32 {
        debug_assert!(plies <= Self::MAX_PLIES);
        Self::RESOLVED | Self::WON | plies
    }

    fn lost(plies: u32) -> u32 {
        debug_assert!(plies <= Self::MAX_PLIES);
        Self::RESOLVED | plies
    }

    /// The encoding of a decoded state (which must fit).
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
    ($name:ident, $wider:ident, $atomic:ty, $int:ty, $bits:expr, $doc:expr) => {
        #[doc = $doc]
        pub struct $name;
        impl Width for $name {
            type Atomic = $atomic;
            type Wider = $wider;
            const BITS: u32 = $bits;
            const NAME: &'static str = stringify!($int);
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
    "One byte: distances below 64 plies, counters below 126."
);
width!(
    W16,
    W32,
    AtomicU16,
    u16,
    16,
    "Two bytes: distances below 16384 plies."
);
width!(
    W32,
    W32,
    AtomicU32,
    u32,
    32,
    "Four bytes: distances below 2^30 plies."
);

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

    /// The bytes of the first `len` cells (native byte order), to be filled from a file.
    pub fn bytes_mut(&mut self, len: usize) -> &mut [u8] {
        self.array.bytes_mut(len)
    }

    /// The bytes of the first `len` cells (native byte order), to be written to a file.
    pub fn bytes(&mut self, len: usize) -> &[u8] {
        self.array.bytes(len)
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
            assert_eq!(W::decode(W::encode(state)), state, "{}", W::NAME);
        }
        assert!(W::MAX_COUNT < W::HOLE);
    }

    #[test]
    fn every_width_round_trips_its_extremes() {
        round_trips::<W8>();
        round_trips::<W16>();
        round_trips::<W32>();
        assert_eq!(W8::MAX_PLIES, 63);
        assert_eq!(W8::MAX_COUNT, 126);
        assert_eq!(W16::MAX_PLIES, 16383);
    }
}
