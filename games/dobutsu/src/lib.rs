//! Dobutsu shogi ("animal shogi"), solved by retro.
//!
//! A 3 × 4 board, a lion, a giraffe, an elephant and a chick for each player, captured pieces returning to the
//! captor's hand, a chick promoting to a hen, and the lion's *try*. The crate gives:
//! - [`types`]: squares, sides, kinds and their step tables;
//! - [`board`]: the board seen from the player to move, its moves, un-moves and end-of-game rules (read its module
//!   documentation for the exact rules);
//! - [`notation`]: positions and moves in text (`gle/1c1/1C1/ELG b -`, `b2b3`, `C*b2`);
//! - [`index`]: the dense, mirror-folded numbering of positions;
//! - [`game`]: [`DobutsuGame`], the [`retro_game::Game`] the engine solves;
//! - [`analysis`]: counts over the legal and the reachable positions, values of positions outside the table.

pub mod analysis;
pub mod board;
pub mod family;
pub mod game;
pub mod index;
pub mod notation;
pub mod types;

pub use board::{Board, BoardMove, Owner};
pub use game::{DobutsuGame, known_value};
pub use index::{Indexer, excluded_value};
pub use notation::{Move, NotationError, Played, Position};
pub use types::{HandKind, Kind, Side, Square};
