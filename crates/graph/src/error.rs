//! What can go wrong when reading a graph: every error names the line it was found on.

use std::path::PathBuf;

use thiserror::Error;

/// A graph file could not be read. The `Display` text is one line that says where and what.
#[derive(Debug, Error)]
pub enum ParseError {
    /// An option names a position that has no line of its own.
    #[error(
        "line {line}: unknown position `{name}` (every option needs its own `{name} : ...` line)"
    )]
    UnknownName { line: u64, name: String },
    /// Two lines define the same position.
    #[error("line {line}: position `{name}` is already defined on line {first}")]
    DuplicateName { line: u64, name: String, first: u64 },
    /// The line does not have the shape of the format.
    #[error("line {line}: {reason}")]
    Syntax { line: u64, reason: &'static str },
    /// A token of an edge list is not a position number in `0..=4294967295`.
    #[error("line {line}: `{text}` is not a position number (0 to 4294967295)")]
    Number { line: u64, text: String },
    /// The file holds no position at all (it is empty or only has comments).
    /// The largest number in an edge list asks for more memory than the machine has.
    #[error(
        "the file names position {largest}: a graph of that many positions needs about {needed_mib} MiB, more than \
         the {available_mib} MiB of memory available"
    )]
    TooBig {
        largest: u32,
        needed_mib: u64,
        available_mib: u64,
    },
    #[error("the file has no position")]
    Empty,
    /// More positions than a graph can number (2^32).
    #[error("line {line}: too many positions (at most 4294967296)")]
    TooManyPositions { line: u64 },
    /// The file could not be read.
    // The I/O error is part of the message rather than a `source`, so that printing the error chain does not say it
    // twice.
    #[error("cannot read {}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// Bytes given to [`Graph::from_bytes`](crate::Graph::from_bytes) are not a graph that
/// [`Graph::to_bytes`](crate::Graph::to_bytes) could have written.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum DecodeError {
    #[error("not a serialized retro graph (bad magic)")]
    Magic,
    #[error("serialized graph format version {0} is not supported (this build reads version 1)")]
    Version(u32),
    #[error("serialized graph is truncated (while reading {0})")]
    Truncated(&'static str),
    #[error("serialized graph is corrupt: {0}")]
    Corrupt(&'static str),
}

/// Text from a file as an error shows it: control characters (which could move the terminal's cursor or end the
/// line) are replaced by `?`, so that the message stays one readable line.
pub(crate) fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}
