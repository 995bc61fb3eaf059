//! retro-table writes solved tables to disk in the format of FORMAT.md (read back by `retro-probe`).
//!
//! [`write_table`] takes a table's description ([`TableSpec`]) and its values, and writes the two files of the
//! table, `DIR/GAME/NAME.rwdl` (win/draw/loss, two bits per value) and `DIR/GAME/NAME.rdst` (outcome and plies):
//!
//! 1. a first parallel pass counts wins, draws and losses per side to move and finds the longest distances, which
//!    decide how wide a distance code must be;
//! 2. blocks are encoded and compressed with zstd in parallel, a batch at a time, and written in order to a file
//!    under a temporary name (`.NAME.rwdl.PID.N.tmp`), after room for the header, which is written last; each
//!    block takes the smallest of the layouts tried (a block of one value is two bytes; see `retro_probe::Layout`),
//!    and is decoded as the probe library decodes it and compared with the values before it is written;
//! 3. both files are synced and opened again with the probe library, which checks the header and the checksum of
//!    every block (computed from the bytes that were decoded and compared) and its layout;
//! 4. only then are they renamed to their final names (distance file first, WDL file last) and the directory synced.
//!
//! Whatever fails, the temporary files are removed, so a final name only ever holds a complete, checked file. The
//! bytes do not depend on the number of threads: each block is compressed on its own with the same settings.

mod source;
mod write;

pub use source::{Runs, ValueSource};

pub use write::{
    TableSpec, WdlOrder, WriteError, WriteOptions, Written, block_values_allowed, write_table,
    zstd_context_bytes,
};

#[cfg(test)]
mod tests;
