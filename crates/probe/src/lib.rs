//! retro-probe reads the tables that retro writes. It is the small library an engine links: it depends on the game
//! vocabulary, memmap2 and zstd, and nothing from the builder.
//!
//! ```no_run
//! # fn main() -> Result<(), retro_probe::ProbeError> {
//! let tables = retro_probe::Tables::open("tables", 64 << 20)?;   // 64 MiB of decompressed blocks
//! let table = tables.table("graph", "ladder")?;
//! let outcome = table.probe_wdl(17)?;      // win, draw or loss for the player to move
//! let value = table.probe(17)?;            // Some(win in 5), or None for a hole
//! # Ok(()) }
//! ```
//!
//! A table is two files in `DIR/GAME/`: `NAME.rwdl`, the win/draw/loss of every position in two bits, which an
//! engine probes during search, and `NAME.rdst`, outcome and plies of every position, for the root and analysis.
//! Both hold the same header (which table, its parameters and counts, an optional game payload) and fixed-size
//! blocks of values compressed one by one with zstd; a probe decompresses at most one block, and decompressed blocks
//! are kept in a bounded cache shared by all threads. Every header and every block carries a checksum, checked when
//! it is read: a damaged file gives an error naming it, never a wrong value. FORMAT.md at the repository root
//! describes the bytes.
//!
//! Modules: [`format`](mod@format) (layout, codes, header), [`checksum`], `index` (where each block lies: the block
//! index, whole or in chunks), [`block`] (decoding a stored block), [`order`] (the order of a version 8 file's values), `file` (one opened file), `tables` (a directory, a table, probing), `cache` (the
//! block cache), `chunked` (a WDL block as the cache keeps it), `error`.

pub mod block;
mod cache;
pub mod checksum;
mod chunked;
mod error;
mod file;
pub mod format;
#[doc(hidden)]
pub mod fuzz;
mod index;
pub mod order;
mod tables;

pub use error::{ErrorKind, ProbeError};
pub use file::TableFile;
pub use format::{Encoding, FileKind, Header, Layout, Metadata, SideCounts};
pub use tables::{Table, Tables};
