//! What can go wrong when reading a table, always with the file it happened in.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// An error of the probe library: the file concerned (or the directory, or the table name) and what is wrong.
///
/// Boxed, so that it is one pointer: a probe returns `Result<Outcome, ProbeError>` in registers rather than
/// through memory (an error is rare, a probe is not).
#[derive(Debug)]
pub struct ProbeError(Box<Inner>);

#[derive(Debug)]
struct Inner {
    path: PathBuf,
    kind: ErrorKind,
}

/// What is wrong, without the file.
#[derive(Debug)]
pub enum ErrorKind {
    /// The file does not exist.
    Missing,
    /// The operating system refused to read it.
    Io(io::Error),
    /// The file does not start with the magic bytes of a retro table.
    NotATable,
    /// The file was written in a format version this reader does not know.
    NewerVersion { found: u32, supported: u32 },
    /// The header's checksum does not match: the header or block index is damaged.
    HeaderChecksum,
    /// The checksum of a chunk of a version 7 block index does not match: the index is damaged.
    IndexChecksum { chunk: u64 },
    /// A block's checksum does not match: the block is damaged.
    BlockChecksum { block: u64 },
    /// The file is shorter or longer than its header says.
    Truncated { expected: u64, found: u64 },
    /// A field of the header, or a block, does not make sense.
    Malformed(String),
    /// The file holds another table than the one asked for.
    WrongTable { expected: String, found: String },
    /// The win/draw/loss file and the distance file of a table do not belong together.
    Mismatch(String),
    /// A game or table name that cannot name a file.
    BadName(String),
    /// An index past the end of the table.
    OutOfRange { index: u64, size: u64 },
    /// An index whose value the distance file leaves out (format version 5): a prober that knows the game's moves
    /// finds it by searching them.
    NotStored { index: u64 },
}

impl ProbeError {
    pub fn new(path: impl Into<PathBuf>, kind: ErrorKind) -> ProbeError {
        ProbeError(Box::new(Inner {
            path: path.into(),
            kind,
        }))
    }

    /// A malformed-file error with a message.
    pub(crate) fn malformed(path: &Path, what: impl Into<String>) -> ProbeError {
        ProbeError::new(path, ErrorKind::Malformed(what.into()))
    }

    /// An error from opening or reading a file: a missing file is told apart from other I/O errors.
    pub(crate) fn io(path: &Path, error: io::Error) -> ProbeError {
        let kind = if error.kind() == io::ErrorKind::NotFound {
            ErrorKind::Missing
        } else {
            ErrorKind::Io(error)
        };
        ProbeError::new(path, kind)
    }

    /// The file (or directory) the error is about.
    pub fn path(&self) -> &Path {
        &self.0.path
    }

    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path().display();
        match self.kind() {
            ErrorKind::Missing => write!(f, "{path}: no such file"),
            ErrorKind::Io(e) => write!(f, "{path}: {e}"),
            ErrorKind::NotATable => write!(f, "{path}: not a retro table (bad magic bytes)"),
            ErrorKind::NewerVersion { found, supported } => write!(
                f,
                "{path}: table format version {found} is newer than this reader, which knows versions up to \
                 {supported}; upgrade retro"
            ),
            ErrorKind::HeaderChecksum => {
                write!(
                    f,
                    "{path}: header checksum mismatch: the header or block index is corrupt"
                )
            }
            ErrorKind::IndexChecksum { chunk } => {
                write!(
                    f,
                    "{path}: checksum mismatch in chunk {chunk} of the block index: the file is corrupt"
                )
            }
            ErrorKind::BlockChecksum { block } => {
                write!(
                    f,
                    "{path}: checksum mismatch in block {block}: the file is corrupt"
                )
            }
            ErrorKind::Truncated { expected, found } => write!(
                f,
                "{path}: file is {found} bytes but its header says {expected}: truncated or damaged"
            ),
            ErrorKind::Malformed(what) => write!(f, "{path}: malformed table: {what}"),
            ErrorKind::WrongTable { expected, found } => {
                write!(f, "{path}: holds the table {found}, not {expected}")
            }
            ErrorKind::Mismatch(what) => {
                write!(f, "{path}: does not match its companion file: {what}")
            }
            ErrorKind::BadName(what) => write!(f, "{path}: {what}"),
            ErrorKind::OutOfRange { index, size } => {
                write!(
                    f,
                    "{path}: index {index} is past the end of the table (size {size})"
                )
            }
            ErrorKind::NotStored { index } => write!(
                f,
                "{path}: index {index} is not stored: the file holds one side to move only, and the other is \
                 found by searching the moves of the position"
            ),
        }
    }
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self.kind() {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}
