//! Answers about positions, for the front-ends that embed retro's tables: the C library (`retro-c`), the Python
//! package (`retro-tablebase`) and the tablebase server (`retro serve`).
//!
//! - [`tablebase`]: a directory of tables opened once ([`Tablebase`]) and asked, from any thread, about a position
//!   of any game; chess through the lock-free [`retro_chess::Prober`];
//! - [`answer`]: what is answered ([`Answer`]), and its JSON in the shape of lichess's tablebase API.
//!
//! All three front-ends answer through this crate, so they agree with each other and with `retro probe`.

pub mod answer;
pub mod tablebase;

pub use answer::{Answer, MoveAnswer, View, signed_dtm};
pub use tablebase::{DEFAULT_CACHE_BYTES, QueryError, Tablebase};
