//! The block index of a file: where each block lies, and the checksum of its stored bytes.
//!
//! Up to format version 6 the whole index is part of the header, checked with it when the file is opened. A large
//! table's index is long (KQRvKR's distance file: 13,440 blocks, 161 KB of header), and checking and decoding it
//! took most of a first probe's time (78 us of a cold probe on a new handle). Version 7 splits the index into
//! chunks of 2^`chunk_shift` blocks: the header that is checked at open holds only where each chunk's blocks start
//! and each chunk's checksum, and a chunk's entries are checked and decoded the first time one of its blocks is
//! read. A damaged chunk is caught then, before any of its offsets is trusted.

use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use crate::checksum::checksum;
use crate::error::{ErrorKind, ProbeError};

/// The bytes of one block's entry in a chunk: a u32 length and a u64 checksum.
pub(crate) const ENTRY_BYTES: u64 = 12;

/// Where each block of a file lies and what its checksum is.
#[derive(Clone, Debug)]
pub(crate) enum BlockIndex {
    /// Versions 1 to 6: the whole index, checked with the header at open: the offset of each block and of the end
    /// of the last one, and where in the file the blocks' checksums lie (u64 each, in order).
    Whole { offsets: Vec<u64>, sums_at: usize },
    /// Version 7: the index in chunks, each checked when first read.
    Chunked(ChunkedIndex),
}

impl BlockIndex {
    /// The end of the last block (where the file must end).
    pub(crate) fn end(&self) -> u64 {
        match self {
            BlockIndex::Whole { offsets, .. } => {
                *offsets.last().expect("one offset more than blocks")
            }
            BlockIndex::Chunked(index) => *index.starts.last().expect("one start more than chunks"),
        }
    }

    /// The bytes of block `block` in the file `bytes` (which the index belongs to) and their stored checksum. In a
    /// chunked index, the block's chunk is checked first if it was not yet: `path` names the file in that error.
    pub(crate) fn block(
        &self,
        path: &Path,
        bytes: &[u8],
        block: u64,
    ) -> Result<(Range<usize>, u64), ProbeError> {
        match self {
            BlockIndex::Whole { offsets, sums_at } => {
                let b = block as usize;
                let sum = read_u64(bytes, sums_at + 8 * b);
                Ok((offsets[b] as usize..offsets[b + 1] as usize, sum))
            }
            BlockIndex::Chunked(index) => index.block(path, bytes, block),
        }
    }
}

/// A version 7 index: the chunk table read from the checked header, and the chunks checked so far.
#[derive(Clone, Debug)]
pub(crate) struct ChunkedIndex {
    chunk_shift: u8,
    block_count: u64,
    /// Where the entries of chunk 0 start in the file (the others follow, `ENTRY_BYTES` a block).
    entries_at: u64,
    /// The offset of each chunk's first block, then the end of the last block (the end of the file).
    starts: Vec<u64>,
    /// The checksum of each chunk's entries.
    sums: Vec<u64>,
    /// Each chunk once checked: the offset of each of its blocks and of the end of its last block. (The blocks'
    /// checksums are read from the file.)
    checked: Vec<OnceLock<Box<[u64]>>>,
}

/// Why a chunk table read from a checked header cannot be right (a writer bug or a forged file).
pub(crate) enum ChunkTableError {
    /// The blocks do not start where the header ends.
    FirstBlock { found: u64 },
    /// A chunk spans fewer bytes than it has blocks (each takes one at least).
    ShortChunk { chunk: u64 },
}

impl ChunkedIndex {
    /// The index whose chunk table is `starts` and `sums` (`chunk_count(block_count, chunk_shift)` checksums and one
    /// start more), for a file whose blocks start at `header_len`, the entries at `header_len` − `ENTRY_BYTES` ·
    /// `block_count`. The caller checks that the last start is the end of the file.
    pub(crate) fn new(
        chunk_shift: u8,
        block_count: u64,
        header_len: u64,
        starts: Vec<u64>,
        sums: Vec<u64>,
    ) -> Result<ChunkedIndex, ChunkTableError> {
        debug_assert_eq!(sums.len() as u64, chunk_count(block_count, chunk_shift));
        debug_assert_eq!(starts.len(), sums.len() + 1);
        if starts[0] != header_len {
            return Err(ChunkTableError::FirstBlock { found: starts[0] });
        }
        for (chunk, pair) in starts.windows(2).enumerate() {
            let blocks = chunk_blocks(block_count, chunk_shift, chunk as u64);
            if pair[1] < pair[0] || pair[1] - pair[0] < blocks {
                return Err(ChunkTableError::ShortChunk {
                    chunk: chunk as u64,
                });
            }
        }
        let checked = (0..sums.len()).map(|_| OnceLock::new()).collect();
        Ok(ChunkedIndex {
            chunk_shift,
            block_count,
            entries_at: header_len - ENTRY_BYTES * block_count,
            starts,
            sums,
            checked,
        })
    }

    fn block(
        &self,
        path: &Path,
        bytes: &[u8],
        block: u64,
    ) -> Result<(Range<usize>, u64), ProbeError> {
        let chunk = block >> self.chunk_shift;
        let slot = &self.checked[chunk as usize];
        let offsets = match slot.get() {
            Some(offsets) => offsets,
            None => {
                // Two threads may check the same chunk at once: both find the same offsets, one keeps them.
                let offsets = self.check_chunk(path, bytes, chunk)?;
                slot.get_or_init(|| offsets)
            }
        };
        let b = (block - (chunk << self.chunk_shift)) as usize;
        let blocks = offsets.len() - 1;
        let sum = read_u64(bytes, self.entries(chunk) + 4 * blocks + 8 * b);
        Ok((offsets[b] as usize..offsets[b + 1] as usize, sum))
    }

    /// Where the entries of chunk `chunk` start in the file.
    fn entries(&self, chunk: u64) -> usize {
        (self.entries_at + ENTRY_BYTES * (chunk << self.chunk_shift)) as usize
    }

    /// Checks chunk `chunk`'s entries against their checksum and its span, and returns its blocks' offsets.
    fn check_chunk(&self, path: &Path, bytes: &[u8], chunk: u64) -> Result<Box<[u64]>, ProbeError> {
        let blocks = chunk_blocks(self.block_count, self.chunk_shift, chunk) as usize;
        let at = self.entries(chunk);
        let entries = &bytes[at..at + ENTRY_BYTES as usize * blocks];
        if checksum(entries) != self.sums[chunk as usize] {
            return Err(ProbeError::new(path, ErrorKind::IndexChecksum { chunk }));
        }
        let offsets = offsets_of(
            path,
            self.starts[chunk as usize],
            chunk << self.chunk_shift,
            &entries[..4 * blocks],
        )?;
        if offsets.last() != Some(&self.starts[chunk as usize + 1]) {
            return Err(ProbeError::malformed(
                path,
                format!("the blocks of index chunk {chunk} do not end where the next chunk starts"),
            ));
        }
        Ok(offsets.into())
    }
}

/// The offsets of consecutive blocks whose stored lengths are `lengths` (u32 each), the first block, numbered
/// `first_block`, starting at `start`; then the end of the last one. An empty block is malformed: every stored block
/// has at least its layout byte.
pub(crate) fn offsets_of(
    path: &Path,
    start: u64,
    first_block: u64,
    lengths: &[u8],
) -> Result<Vec<u64>, ProbeError> {
    let mut offsets = Vec::with_capacity(lengths.len() / 4 + 1);
    let mut end = start;
    offsets.push(end);
    for (i, len) in lengths.chunks_exact(4).enumerate() {
        let len = u32::from_le_bytes(len.try_into().expect("4 bytes"));
        if len == 0 {
            let block = first_block + i as u64;
            return Err(ProbeError::malformed(
                path,
                format!("block {block} is empty"),
            ));
        }
        end += u64::from(len);
        offsets.push(end);
    }
    Ok(offsets)
}

/// The little-endian u64 at `at` in `bytes`.
pub(crate) fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// The number of chunks of 2^`chunk_shift` blocks that hold `block_count` blocks.
pub(crate) fn chunk_count(block_count: u64, chunk_shift: u8) -> u64 {
    block_count.div_ceil(1 << chunk_shift)
}

/// The number of blocks of chunk `chunk` (all but the last are full).
fn chunk_blocks(block_count: u64, chunk_shift: u8, chunk: u64) -> u64 {
    (block_count - (chunk << chunk_shift)).min(1 << chunk_shift)
}

/// What a writer stores for a chunked index: the chunk table (the start of each chunk's blocks, then the end of
/// the last block; each chunk's checksum) and the entries, for blocks of `block_lens` bytes and checksums
/// `block_sums` that start at `header_len`.
pub(crate) struct ChunkedEntries {
    pub starts: Vec<u64>,
    pub chunk_sums: Vec<u64>,
    pub entries: Vec<u8>,
}

/// Lays out the index of blocks of `block_lens` bytes (each fits a u32, checked by the caller) and checksums
/// `block_sums` in chunks of 2^`chunk_shift`, the first block at `header_len`.
pub(crate) fn chunked_entries(
    block_lens: &[u64],
    block_sums: &[u64],
    chunk_shift: u8,
    header_len: u64,
) -> ChunkedEntries {
    let per_chunk = 1usize << chunk_shift;
    let mut starts = vec![header_len];
    let mut chunk_sums = Vec::new();
    let mut entries = Vec::with_capacity(block_lens.len() * ENTRY_BYTES as usize);
    let mut end = header_len;
    for (lens, sums) in block_lens
        .chunks(per_chunk)
        .zip(block_sums.chunks(per_chunk))
    {
        let from = entries.len();
        for &len in lens {
            entries.extend_from_slice(&(len as u32).to_le_bytes());
            end += len;
        }
        for sum in sums {
            entries.extend_from_slice(&sum.to_le_bytes());
        }
        chunk_sums.push(checksum(&entries[from..]));
        starts.push(end);
    }
    ChunkedEntries {
        starts,
        chunk_sums,
        entries,
    }
}

/// Fuzzing: recomputes in place the checksum of every block that `index` (parsed from `bytes`) places within the
/// file and, in a chunked index, every chunk's checksum after its entries'. Leaves alone what it cannot place.
pub(crate) fn repair_checksums(index: &BlockIndex, bytes: &mut [u8], block_count: u64) {
    match index {
        BlockIndex::Whole { offsets, sums_at } => {
            for block in 0..block_count as usize {
                let sum = checksum(&bytes[offsets[block] as usize..offsets[block + 1] as usize]);
                let at = sums_at + 8 * block;
                bytes[at..at + 8].copy_from_slice(&sum.to_le_bytes());
            }
        }
        BlockIndex::Chunked(index) => {
            // The chunk checksums are the 8 · chunk_count bytes before the head's checksum, which ends the head.
            let chunks = index.sums.len();
            let chunk_sums = index.entries_at as usize - 8 - 8 * chunks;
            for chunk in 0..chunks as u64 {
                let blocks = chunk_blocks(block_count, index.chunk_shift, chunk) as usize;
                let at = index.entries(chunk);
                let lengths: Vec<usize> = bytes[at..at + 4 * blocks]
                    .chunks_exact(4)
                    .map(|len| u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize)
                    .collect();
                let mut start = index.starts[chunk as usize] as usize;
                for (block, len) in lengths.into_iter().enumerate() {
                    if let Some(data) = bytes.get(start..start + len) {
                        let sum = checksum(data).to_le_bytes();
                        let sum_at = at + 4 * blocks + 8 * block;
                        bytes[sum_at..sum_at + 8].copy_from_slice(&sum);
                    }
                    start += len;
                }
                let sum = checksum(&bytes[at..at + ENTRY_BYTES as usize * blocks]);
                let at = chunk_sums + 8 * chunk as usize;
                bytes[at..at + 8].copy_from_slice(&sum.to_le_bytes());
            }
        }
    }
}
