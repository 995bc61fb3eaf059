//! Connect Four for retro: four in a row on boards of `W` columns and `H` rows, `4 ≤ W, H ≤ 7`, solved by
//! retrograde analysis one tier of stones at a time.
//!
//! # Rules
//!
//! `x` moves first; the players drop a stone in turn into a column that is not full. The game ends when a player
//! makes four in a row (along a row, a column or a diagonal), who wins, or when the board is full, a draw.
//!
//! # Notation
//!
//! A position is written in one of two forms (`probe` reads both, and shows the second):
//! - `WxH:MOVES`, the columns played from the empty board, `1` to `W` from the left: `6x5:4453`, and `6x5:` for the
//!   empty board. A move after the end of the game is refused.
//! - `WxH/ROW/.../ROW`, the `H` rows from the top, each `W` cells `x`, `o` or `.`: `4x4/..../..../.o../.xx.`
//!   (`x` to move). Stones must rest on the bottom or on a stone, `x` must have as many stones as `o` or one more,
//!   and only the player who moved last may have four in a row.
//!
//! A move is named by its column, `1` to `W`.
//!
//! # Tables and index
//!
//! A variant is a board size, `6x5`. Its tables are its *tiers*: tier `k` holds the boards with `k` stones, with
//! `x` to move when `k` is even. A move adds a stone, so every move of tier `k` is an exit into tier `k + 1`, which
//! is built first: the tables are listed from the full board down to the empty one. Within a tier the index is the
//! rank of the column heights times `C(k, ceil(k/2))` plus the rank of `x`'s stones among the `k` (see [`index`]).
//! Nothing is folded: a board and its mirror image both have an index.
//!
//! An index is a hole when the player to move has four in a row (alone or with the opponent): no game reaches
//! it. It is terminal, `loss in 0`, when the player who moved last has four in a row, and a draw when the board is
//! full without one. Every other index is in play, finished or not by any game: boards no game reaches but
//! which break none of these rules (an `o` at the bottom with `x` on it, `4x4/..../..../x.../o...`) are solved like
//! the others.

pub mod board;
pub mod family;
pub mod game;
pub mod index;
pub mod notation;

pub use board::{Board, Player, Shape};
pub use family::{ConnectFour, INDEX_LAYOUT, Tier};
pub use game::TierGame;
pub use index::Layout;
pub use notation::Column;
