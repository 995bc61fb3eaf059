//! Chess endgame tablebases for retro: the board, exact move and un-move generation, the dense index of a material,
//! and the [`ChessGame`] that the retrograde engine solves.
//!
//! Modules, from the ground up:
//! - [`types`]: squares, bitboards, colours, roles, pieces;
//! - [`attacks`]: attack tables;
//! - [`position`]: a position, its legal moves and its un-moves, FEN;
//! - [`material`]: which pieces each side has, canonical names, the tables a table depends on;
//! - [`index`]: the dense, symmetry-folded numbering of a material's positions;
//! - [`ep`]: the numbers of the positions with en-passant rights, which a table's solver needs but does not store;
//! - [`game`]: one material's table as a [`retro_game::Game`], with exits into smaller tables;
//! - [`analysis`]: a probed position's value, moves best first, and line to mate;
//! - [`prober`]: probing a directory of tables from an engine's threads;
//! - [`san`]: moves in standard algebraic notation, written and read;
//! - [`solve`]: solving a material and its dependency tree with the engine.

pub mod analysis;
pub mod attacks;
mod divisor;
pub mod ep;
pub mod family;
pub mod game;
pub mod index;
pub mod material;
pub mod position;
pub mod prober;
pub mod san;
pub mod solve;
pub mod types;

pub use game::{ChessGame, GameError, SubTables, TableSet, Values};
pub use index::TableIndex;
pub use material::{Material, MaterialError};
pub use position::{ChessMove, MoveList, Position, PositionError, Unmove};
pub use prober::{LookupError, Prober};
pub use types::{Bitboard, Color, Piece, Role, Square};
