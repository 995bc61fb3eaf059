//! Graph games for retro: games given as explicit graphs rather than by rules.
//!
//! - [`text`] and [`edges`] read the two file formats (hand-written `name : options` lines, and `u v` edge lists of
//!   tens of millions of moves);
//! - [`Graph`] holds a graph compactly (forward and backward moves in compressed-sparse-row form, per player for a
//!   partizan graph), and [`GraphGame`] shows it to the retrograde engine as a [`retro_game::Game`];
//! - [`Graph::to_bytes`] / [`Graph::from_bytes`] store a graph inside a table so that tools can list moves without
//!   the source file;
//! - [`grundy`] computes the generalized Sprague–Grundy values of loopy impartial graphs and decides sums;
//! - [`random`] generates seeded random graphs for tests and benchmarks.

mod bytes;
mod csr;
pub mod edges;
mod error;
pub mod family;
mod graph;
pub mod grundy;
pub mod random;
mod read;
pub mod text;

pub use error::{DecodeError, ParseError};
pub use graph::{Graph, GraphGame, Kind, Name, Player};
pub use read::Format;
