//! One table file, opened: its checked header, its bytes (memory-mapped), and reading its blocks.

use std::fs::File;
use std::io::Read;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;
use retro_game::{Outcome, Value};

use crate::block::BlockShape;
use crate::cache::BlockSlots;
use crate::checksum::checksum;
use crate::error::{ErrorKind, ProbeError};
use crate::format::{self, Encoding, FileKind, Header, Layout};

enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(vec) => vec,
        }
    }
}

/// One file of a table (the WDL file or the distance file), with its header parsed and checked.
pub struct TableFile {
    path: PathBuf,
    bytes: Bytes,
    header: Header,
    /// Where the shared block cache keeps this file's decompressed blocks.
    slots: Arc<BlockSlots>,
}

impl TableFile {
    /// Opens and memory-maps a file, and checks its header (in version 7, the head: the chunks of its block index
    /// are checked when first read) and its checksum. Blocks are checked when they are read (or all at once by
    /// [`check_blocks`](TableFile::check_blocks)).
    pub fn open(path: &Path) -> Result<TableFile, ProbeError> {
        let file = File::open(path).map_err(|e| ProbeError::io(path, e))?;
        let len = file.metadata().map_err(|e| ProbeError::io(path, e))?.len();
        let bytes = if len < 64 {
            // Too short to be a table (and an empty file cannot be mapped): read it, the header check says why.
            let mut bytes = Vec::new();
            (&file)
                .read_to_end(&mut bytes)
                .map_err(|e| ProbeError::io(path, e))?;
            Bytes::Owned(bytes)
        } else {
            // SAFETY: the map is only read. It is sound as long as no one truncates or rewrites the file while it
            // is mapped; retro never does (tables are written under a temporary name and renamed into place, so a
            // rebuilt table is a new file and the old mapping keeps the old one alive). Like every memory-mapped
            // reader, we rely on other programs not modifying tables in place either.
            Bytes::Mapped(unsafe { Mmap::map(&file) }.map_err(|e| ProbeError::io(path, e))?)
        };
        Self::with_bytes(path.to_path_buf(), bytes)
    }

    /// Checks a file given as bytes (tests, fuzzing, tables held in memory). `path` only names it in errors.
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: Vec<u8>) -> Result<TableFile, ProbeError> {
        Self::with_bytes(path.into(), Bytes::Owned(bytes))
    }

    fn with_bytes(path: PathBuf, bytes: Bytes) -> Result<TableFile, ProbeError> {
        let header = Header::parse(&path, &bytes)?;
        let slots = Arc::new(BlockSlots::new(header.block_count));
        Ok(TableFile {
            path,
            bytes,
            header,
            slots,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Gives the pages of the file read so far back to the kernel; they are read from the file again when needed.
    /// For a reader that walks a large file once (a check, or reading a table whole): the mapped pages it has read
    /// would otherwise count in its resident memory until the kernel needs them.
    pub fn release_pages(&self) {
        if let Bytes::Mapped(map) = &self.bytes {
            // SAFETY: the mapping is shared and read-only, so MADV_DONTNEED only drops clean references to the page
            // cache: any later read faults the file's same bytes back in (retro never rewrites a table in place,
            // see `open`), and no reference into the map can observe a difference. Failure changes nothing.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }

    /// Size of the file in bytes.
    pub fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// Whether the file is empty (never true of a file that opened).
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The game payload, decompressed (empty if the table has none).
    pub fn payload(&self) -> Result<Vec<u8>, ProbeError> {
        let stored = &self.bytes[self.header.payload_range.clone()];
        let expected = self.header.payload_len;
        if expected == 0 {
            return Ok(Vec::new());
        }
        // Streamed with a limit rather than into a buffer of the announced size, so that a forged length cannot
        // make us allocate without bound.
        let mut out = Vec::new();
        zstd::stream::read::Decoder::new(stored)
            .and_then(|d| d.take(expected.saturating_add(1)).read_to_end(&mut out))
            .map_err(|e| {
                ProbeError::malformed(&self.path, format!("payload does not decompress: {e}"))
            })?;
        if out.len() as u64 != expected {
            return Err(ProbeError::malformed(
                &self.path,
                format!(
                    "payload decompresses to {} bytes, not {expected}",
                    out.len()
                ),
            ));
        }
        Ok(out)
    }

    pub(crate) fn slots(&self) -> &Arc<BlockSlots> {
        &self.slots
    }

    fn compressed_block(&self, block: u64) -> Result<&[u8], ProbeError> {
        if block >= self.header.block_count {
            return Err(ProbeError::new(
                &self.path,
                ErrorKind::OutOfRange {
                    index: block,
                    size: self.header.block_count,
                },
            ));
        }
        // Offsets were checked at open (or, in a chunked index, when the chunk was first read): increasing, inside
        // the file.
        let (span, sum) = self.header.index.block(&self.path, &self.bytes, block)?;
        let data = &self.bytes[span];
        if checksum(data) != sum {
            return Err(ProbeError::new(
                &self.path,
                ErrorKind::BlockChecksum { block },
            ));
        }
        Ok(data)
    }

    /// How many bytes block `block` takes in the file (layout byte included).
    pub fn stored_block_len(&self, block: u64) -> Result<u64, ProbeError> {
        self.compressed_block(block).map(|data| data.len() as u64)
    }

    /// Checks the checksum of one block without decompressing it.
    pub fn check_block(&self, block: u64) -> Result<(), ProbeError> {
        self.compressed_block(block).map(|_| ())
    }

    /// How block `block` is stored (checksum checked, and the layout one that the file's version and encoding
    /// allow): `None` in a version 1 file, which has no layouts.
    pub fn block_layout(&self, block: u64) -> Result<Option<Layout>, ProbeError> {
        let data = self.compressed_block(block)?;
        self.shape(block)
            .layout(data)
            .map_err(|what| self.bad_block(block, what))
    }

    /// Checks the checksums of every block.
    pub fn check_blocks(&self) -> Result<(), ProbeError> {
        (0..self.header.block_count).try_for_each(|b| self.check_block(b))
    }

    /// Checks and decodes one block: the raw encoded values (see [`Encoding`]), the same bytes for every version
    /// and layout.
    pub fn load_block(&self, block: u64) -> Result<Box<[u8]>, ProbeError> {
        let data = self.compressed_block(block)?;
        self.shape(block)
            .decode(data)
            .map_err(|what| self.bad_block(block, what))
    }

    /// What decoding block `block` depends on besides its bytes.
    fn shape(&self, block: u64) -> BlockShape {
        BlockShape {
            version: self.header.version,
            encoding: self.header.encoding,
            values: self.header.values_in_block(block) as usize,
        }
    }

    fn bad_block(&self, block: u64, what: String) -> ProbeError {
        ProbeError::malformed(&self.path, format!("block {block}: {what}"))
    }

    /// The outcomes of a whole block of a WDL file (holes carry filler values).
    pub fn wdl_block(&self, block: u64) -> Result<Vec<Outcome>, ProbeError> {
        self.expect_kind(FileKind::Wdl)?;
        let raw = self.load_block(block)?;
        (0..self.header.values_in_block(block) as usize)
            .map(|i| self.wdl_in(&raw, i))
            .collect()
    }

    /// The values of a whole block of a distance file (`None` for holes). A block with indices the file leaves out
    /// ([`Header::omitted`]) is an error of kind [`NotStored`](ErrorKind::NotStored): read it with
    /// [`stored_distance_block`](TableFile::stored_distance_block).
    pub fn distance_block(&self, block: u64) -> Result<Vec<Option<Value>>, ProbeError> {
        if let Some(omitted) = self.header.omitted() {
            let start = block * u64::from(self.header.block_values);
            let end = start + self.header.values_in_block(block);
            if start < omitted.end && omitted.start < end {
                let index = start.max(omitted.start);
                return Err(ProbeError::new(&self.path, ErrorKind::NotStored { index }));
            }
        }
        self.stored_distance_block(block)
    }

    /// The values of a whole block of a distance file, `None` for holes and for the indices the file leaves out:
    /// ask [`Header::stores`] which are which.
    pub fn stored_distance_block(&self, block: u64) -> Result<Vec<Option<Value>>, ProbeError> {
        self.expect_kind(FileKind::Distance)?;
        let raw = self.load_block(block)?;
        Ok((0..self.header.values_in_block(block) as usize)
            .map(|i| distance_in(self.header.encoding, &raw, i))
            .collect())
    }

    fn expect_kind(&self, kind: FileKind) -> Result<(), ProbeError> {
        if self.header.kind == kind {
            Ok(())
        } else {
            Err(ProbeError::malformed(
                &self.path,
                format!("not a {kind:?} file"),
            ))
        }
    }

    /// The outcome at position `i` of a decompressed WDL block.
    #[inline]
    pub(crate) fn wdl_in(&self, raw: &[u8], i: usize) -> Result<Outcome, ProbeError> {
        self.wdl_code((raw[i >> 2] >> ((i & 3) * 2)) & 3)
    }

    /// The outcome of a two-bit code of this WDL file.
    #[inline]
    pub(crate) fn wdl_code(&self, code: u8) -> Result<Outcome, ProbeError> {
        format::wdl_outcome(code).ok_or_else(|| {
            ProbeError::malformed(&self.path, format!("invalid win/draw/loss code {code}"))
        })
    }
}

/// The value at position `i` of a decompressed distance block.
#[inline]
pub(crate) fn distance_in(encoding: Encoding, raw: &[u8], i: usize) -> Option<Value> {
    let code = match encoding.code_width() {
        1 => u32::from(raw[i]),
        2 => u32::from(u16::from_le_bytes([raw[2 * i], raw[2 * i + 1]])),
        _ => u32::from_le_bytes(raw[4 * i..4 * i + 4].try_into().expect("4 bytes")),
    };
    encoding.distance_value(code)
}
