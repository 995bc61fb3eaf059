//! Quixo for retro: the board game of pushing cubes, on boards of 3×3, 4×4 and 5×5.
//!
//! # Rules
//!
//! The board is `n × n` cubes, each blank or showing X or O; all are blank at the start and X moves first. The
//! player to move takes a cube from the border that is blank or shows their own symbol and pushes it back, showing
//! their symbol, in at one far end of its row or column, the cubes in between sliding one square towards the gap;
//! not at the place it came from, so a corner cube has two pushes and another border cube three. A full row, column
//! or diagonal of one symbol ends the game: a move that makes a line of the opponent's symbol loses (even if it also
//! makes one of the mover's), otherwise one that makes a line of the mover's wins. Play may go on for ever: a draw.
//!
//! # Notation
//!
//! A position is `NxN/ROW/.../ROW SIDE`: the rows from the top, each square from the left as `x`, `o` or `.`, then
//! the side to move, `x` or `o`; the `NxN/` prefix may be left out. `4x4/...x/..../..../.... o` is the position after
//! X took the top-left corner and pushed it in at the top-right. Squares are named as on a chess board: columns
//! `a`.. from the left, rows `1`.. from the bottom. A move is the square the cube is taken from and the square it
//! re-enters at, `a4-d4`.
//!
//! # Tables
//!
//! Positions are seen from the player to move (their cubes and the opponent's), with the eight symmetries of the
//! square folded ([`index`]). A variant is the tiers of its board by number of cubes, the full board first: taking a
//! blank cube leads to the next tier, solved before ([`game`]). A table index shows as a position with X to move.

pub mod board;
pub mod family;
pub mod game;
pub mod index;

#[cfg(test)]
mod oracle;

pub use family::{Position, Quixo, QuixoMove, Size, Tier};
pub use game::QuixoGame;
