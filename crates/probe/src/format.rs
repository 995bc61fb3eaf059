//! The table file format, version 1: constants, value codes, and the header in both directions (parsed by the
//! reader, built by the writer in `retro-table`), so that the two can never disagree. FORMAT.md at the root of the
//! repository describes the same bytes for readers in other languages.
//!
//! A file is a header (fixed fields, names, parameters, counts, an optional game payload, the block index and a
//! checksum of all of it) followed by blocks of values, each compressed on its own with zstd so that one probe
//! decompresses one block.

use std::ops::Range;
use std::path::Path;

use retro_game::{Outcome, Value};

use crate::checksum::checksum;
use crate::error::{ErrorKind, ProbeError};

/// The first eight bytes of every table file. The final 0x1a (as in PNG) catches text-mode transfers.
pub const MAGIC: [u8; 8] = *b"RETROTB\x1a";
/// The format version this code writes and the newest one it reads.
pub const VERSION: u32 = 1;
/// File extension of the win/draw/loss file.
pub const WDL_EXTENSION: &str = "rwdl";
/// File extension of the distance file.
pub const DISTANCE_EXTENSION: &str = "rdst";
/// The largest number of values in a block a reader accepts (it bounds the memory one block decompresses to).
pub const MAX_BLOCK_VALUES: u32 = 1 << 24;
/// Where the fixed part of the header ends and the names begin.
const FIXED_LEN: usize = 48;
/// Marks "no such distance" in the longest-win and longest-loss fields.
const NO_DISTANCE: u32 = u32::MAX;

/// Which of the two files of a table this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// The win/draw/loss file: what an engine probes during search.
    Wdl,
    /// The distance file: outcome and plies of every position, holes marked.
    Distance,
}

impl FileKind {
    pub fn code(self) -> u32 {
        match self {
            FileKind::Wdl => 1,
            FileKind::Distance => 2,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            FileKind::Wdl => WDL_EXTENSION,
            FileKind::Distance => DISTANCE_EXTENSION,
        }
    }

    fn from_code(code: u32) -> Option<FileKind> {
        match code {
            1 => Some(FileKind::Wdl),
            2 => Some(FileKind::Distance),
            _ => None,
        }
    }
}

/// How the values of a block are laid out once decompressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// Two bits per value, four values per byte, the first in the low bits: 0 loss, 1 draw, 2 win (3 is invalid).
    /// Holes carry whatever value compresses best: the WDL file does not tell holes apart.
    Wdl2,
    /// One little-endian distance code per value, of 1, 2 or 4 bytes (see [`distance_code`]).
    Distance8,
    Distance16,
    Distance32,
}

impl Encoding {
    pub fn code(self) -> u32 {
        match self {
            Encoding::Wdl2 => 1,
            Encoding::Distance8 => 2,
            Encoding::Distance16 => 3,
            Encoding::Distance32 => 4,
        }
    }

    fn from_code(code: u32) -> Option<Encoding> {
        match code {
            1 => Some(Encoding::Wdl2),
            2 => Some(Encoding::Distance8),
            3 => Some(Encoding::Distance16),
            4 => Some(Encoding::Distance32),
            _ => None,
        }
    }

    /// The file kind this encoding belongs to.
    pub fn kind(self) -> FileKind {
        match self {
            Encoding::Wdl2 => FileKind::Wdl,
            _ => FileKind::Distance,
        }
    }

    /// Bytes that `values` values take once decompressed.
    pub fn bytes_for(self, values: u64) -> u64 {
        match self {
            Encoding::Wdl2 => values.div_ceil(4),
            Encoding::Distance8 => values,
            Encoding::Distance16 => values * 2,
            Encoding::Distance32 => values * 4,
        }
    }

    /// The narrowest distance encoding that holds every code up to `max_code`.
    pub fn distance_for(max_code: u64) -> Option<Encoding> {
        match max_code {
            0..=0xff => Some(Encoding::Distance8),
            0x100..=0xffff => Some(Encoding::Distance16),
            0x1_0000..=0xffff_ffff => Some(Encoding::Distance32),
            _ => None,
        }
    }

    /// A short name for `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Wdl2 => "wdl-2bit",
            Encoding::Distance8 => "distance-u8",
            Encoding::Distance16 => "distance-u16",
            Encoding::Distance32 => "distance-u32",
        }
    }
}

/// The 2-bit code of an outcome in the WDL file.
pub fn wdl_code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Loss => 0,
        Outcome::Draw => 1,
        Outcome::Win => 2,
    }
}

/// The outcome of a 2-bit WDL code; `None` for the invalid code 3.
pub fn wdl_outcome(code: u8) -> Option<Outcome> {
    match code {
        0 => Some(Outcome::Loss),
        1 => Some(Outcome::Draw),
        2 => Some(Outcome::Win),
        _ => None,
    }
}

/// The code of a value in the distance file: 0 a hole, 1 a draw, `2 + 2d` a win in `d` plies, `3 + 2d` a loss in
/// `d` plies.
pub fn distance_code(value: Option<Value>) -> u64 {
    match value {
        None => 0,
        Some(v) => match (v.outcome(), v.plies()) {
            (Outcome::Win, Some(d)) => 2 + 2 * u64::from(d),
            (Outcome::Loss, Some(d)) => 3 + 2 * u64::from(d),
            _ => 1,
        },
    }
}

/// The value of a distance code; `None` for a hole. Every code up to `u32::MAX` is valid.
pub fn distance_value(code: u32) -> Option<Value> {
    match code {
        0 => None,
        1 => Some(Value::DRAW),
        c if c % 2 == 0 => Some(Value::win((c - 2) / 2)),
        c => Some(Value::loss((c - 3) / 2)),
    }
}

/// Checks that a game or table name can be used as a file name: not empty, at most 255 bytes, no path separator,
/// no NUL, no leading dot (temporary files start with one).
pub fn check_name(what: &str, name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 255 {
        return Err(format!("{what} name must have 1 to 255 bytes"));
    }
    if name.starts_with('.') || name.contains(['/', '\\', '\0']) {
        return Err(format!(
            "{what} name {name:?} may not start with a dot or contain '/', '\\' or NUL"
        ));
    }
    Ok(())
}

/// Where a table's file lives: `DIR/GAME/NAME.EXT`.
pub fn table_path(dir: &Path, game: &str, name: &str, kind: FileKind) -> std::path::PathBuf {
    dir.join(game).join(format!("{name}.{}", kind.extension()))
}

/// The wins, draws and losses of the positions with one side to move, and the longest of its wins and losses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideCounts {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub longest_win: Option<u32>,
    pub longest_loss: Option<u32>,
}

impl SideCounts {
    /// Positions (not holes) with this side to move.
    pub fn positions(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Counts one more value.
    pub fn add(&mut self, value: Value) {
        match (value.outcome(), value.plies()) {
            (Outcome::Win, Some(d)) => {
                self.wins += 1;
                self.longest_win = self.longest_win.max(Some(d));
            }
            (Outcome::Loss, Some(d)) => {
                self.losses += 1;
                self.longest_loss = self.longest_loss.max(Some(d));
            }
            _ => self.draws += 1,
        }
    }

    /// Adds the counts of another part of the table.
    pub fn merge(&mut self, other: &SideCounts) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.longest_win = self.longest_win.max(other.longest_win);
        self.longest_loss = self.longest_loss.max(other.longest_loss);
    }
}

/// What both files of a table say about it, identically: which table it is and what it holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    /// The game family: "graph", "chess", "dobutsu", …
    pub game: String,
    /// The table's name inside its game: a graph's file stem, a chess material such as "KQvK".
    pub name: String,
    /// Game parameters as key/value strings (for example the play convention).
    pub params: Vec<(String, String)>,
    /// Number of indices, holes included.
    pub index_size: u64,
    /// Counts per side to move, in the game's order of sides.
    pub sides: Vec<SideCounts>,
    /// Number of holes.
    pub holes: u64,
}

impl Metadata {
    /// The value of a parameter.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The counts of all sides together.
    pub fn total(&self) -> SideCounts {
        let mut total = SideCounts::default();
        for side in &self.sides {
            total.merge(side);
        }
        total
    }
}

/// The parsed header of one file.
#[derive(Clone, Debug)]
pub struct Header {
    pub version: u32,
    pub kind: FileKind,
    pub encoding: Encoding,
    /// Values per block (a power of two); the last block may hold fewer.
    pub block_values: u32,
    pub block_count: u64,
    /// Length of the header in bytes: the first block starts here.
    pub header_len: u64,
    pub meta: Metadata,
    /// Size of the game payload once decompressed (0: no payload).
    pub payload_len: u64,
    /// Where the stored (compressed) payload lies in the file.
    pub(crate) payload_range: Range<usize>,
    /// Where the block offsets start; the block checksums follow them.
    pub(crate) index_offset: usize,
}

impl Header {
    /// The values of block `block` (`block_values`, fewer for the last block).
    pub fn values_in_block(&self, block: u64) -> u64 {
        let start = block * u64::from(self.block_values);
        u64::from(self.block_values).min(self.meta.index_size - start)
    }

    /// Parses and checks the header of a whole file (`bytes` is the file). Blocks are not read.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Header, ProbeError> {
        if bytes.len() < 8 || bytes[..8] != MAGIC {
            return Err(ProbeError::new(path, ErrorKind::NotATable));
        }
        let mut r = Cursor {
            bytes,
            pos: 8,
            path,
        };
        // The version comes first, so that a newer layout is refused before anything else is misread.
        let version = r.u32("version")?;
        if version > VERSION {
            return Err(ProbeError::new(
                path,
                ErrorKind::NewerVersion {
                    found: version,
                    supported: VERSION,
                },
            ));
        }
        if version == 0 {
            return Err(ProbeError::malformed(path, "format version 0"));
        }
        let kind_code = r.u32("file kind")?;
        let header_len = r.u64("header length")?;
        let file_len = bytes.len() as u64;
        if header_len > file_len {
            return Err(ProbeError::malformed(
                path,
                format!("header length {header_len} is past the end of the {file_len}-byte file"),
            ));
        }
        if header_len < FIXED_LEN as u64 + 8 {
            return Err(ProbeError::malformed(
                path,
                format!("header length {header_len} is too short"),
            ));
        }
        let header_len_usize = header_len as usize;
        let stored_sum = u64::from_le_bytes(
            bytes[header_len_usize - 8..header_len_usize]
                .try_into()
                .expect("8 bytes"),
        );
        if checksum(&bytes[..header_len_usize - 8]) != stored_sum {
            return Err(ProbeError::new(path, ErrorKind::HeaderChecksum));
        }
        // From here on the header is what the writer wrote (up to a 2^-64 chance); the checks below guard against
        // a writer bug or a forged file, so that no field can make the reader panic or allocate without bound.
        let mut r = Cursor {
            bytes: &bytes[..header_len_usize - 8],
            pos: 24,
            path,
        };
        let kind = FileKind::from_code(kind_code)
            .ok_or_else(|| ProbeError::malformed(path, format!("unknown file kind {kind_code}")))?;
        let index_size = r.u64("index size")?;
        let encoding_code = r.u32("value encoding")?;
        let encoding = Encoding::from_code(encoding_code).ok_or_else(|| {
            ProbeError::malformed(path, format!("unknown value encoding {encoding_code}"))
        })?;
        if encoding.kind() != kind {
            return Err(ProbeError::malformed(
                path,
                format!("value encoding {} in a {kind:?} file", encoding.as_str()),
            ));
        }
        let block_values = r.u32("values per block")?;
        if !block_values.is_power_of_two() || block_values > MAX_BLOCK_VALUES {
            return Err(ProbeError::malformed(
                path,
                format!(
                    "{block_values} values per block (must be a power of two up to {MAX_BLOCK_VALUES})"
                ),
            ));
        }
        let block_count = r.u64("block count")?;
        if block_count != index_size.div_ceil(u64::from(block_values)) {
            return Err(ProbeError::malformed(
                path,
                format!(
                    "{block_count} blocks of {block_values} values cannot hold {index_size} values"
                ),
            ));
        }
        let game = r.string("game name")?;
        let name = r.string("table name")?;
        let param_count = r.u16("parameter count")?;
        let mut params = Vec::with_capacity(usize::from(param_count));
        for _ in 0..param_count {
            let key = r.string("parameter name")?;
            let value = r.string("parameter value")?;
            params.push((key, value));
        }
        let side_count = r.u8("side count")?;
        if side_count == 0 {
            return Err(ProbeError::malformed(path, "no side to move"));
        }
        let mut sides = Vec::with_capacity(usize::from(side_count));
        for side in 0..side_count {
            let counts = SideCounts {
                wins: r.u64("win count")?,
                draws: r.u64("draw count")?,
                losses: r.u64("loss count")?,
                longest_win: distance_field(r.u32("longest win")?),
                longest_loss: distance_field(r.u32("longest loss")?),
            };
            if (counts.wins == 0) != counts.longest_win.is_none()
                || (counts.losses == 0) != counts.longest_loss.is_none()
            {
                return Err(ProbeError::malformed(
                    path,
                    format!("side {side}: longest win or loss does not agree with the counts"),
                ));
            }
            sides.push(counts);
        }
        let holes = r.u64("hole count")?;
        let total = sides.iter().try_fold(holes, |sum, s| {
            sum.checked_add(s.wins)?
                .checked_add(s.draws)?
                .checked_add(s.losses)
        });
        if total != Some(index_size) {
            return Err(ProbeError::malformed(
                path,
                format!(
                    "counts of positions and holes do not add up to the index size {index_size}"
                ),
            ));
        }
        let payload_len = r.u64("payload length")?;
        let stored_len = r.u64("stored payload length")?;
        let payload_start = r.pos;
        r.skip(stored_len, "payload")?;
        if (payload_len == 0) != (stored_len == 0) {
            return Err(ProbeError::malformed(path, "payload lengths disagree"));
        }
        let index_offset = r.pos;
        let index_len = block_count
            .checked_add(1)
            .and_then(|n| n.checked_add(block_count))
            .and_then(|n| n.checked_mul(8));
        match index_len {
            Some(len) if len == (r.bytes.len() - r.pos) as u64 => {}
            _ => {
                return Err(ProbeError::malformed(
                    path,
                    "the block index does not fill the rest of the header",
                ));
            }
        }
        let header = Header {
            version,
            kind,
            encoding,
            block_values,
            block_count,
            header_len,
            meta: Metadata {
                game,
                name,
                params,
                index_size,
                sides,
                holes,
            },
            payload_len,
            payload_range: payload_start..payload_start + stored_len as usize,
            index_offset,
        };
        // Block offsets must start right after the header, never go backwards and end at the end of the file.
        let mut previous = header_len;
        for block in 0..=block_count {
            let offset = header.block_offset(bytes, block);
            if offset < previous || (block == 0 && offset != header_len) {
                return Err(ProbeError::malformed(
                    path,
                    format!("block {block} has a bad offset {offset}"),
                ));
            }
            previous = offset;
        }
        if previous != file_len {
            return Err(ProbeError::new(
                path,
                ErrorKind::Truncated {
                    expected: previous,
                    found: file_len,
                },
            ));
        }
        Ok(header)
    }

    /// Offset in the file of the start of block `block` (of the end of the last block for `block_count`).
    pub(crate) fn block_offset(&self, bytes: &[u8], block: u64) -> u64 {
        read_u64(bytes, self.index_offset + 8 * block as usize)
    }

    /// The stored checksum of block `block`.
    pub(crate) fn block_checksum(&self, bytes: &[u8], block: u64) -> u64 {
        let sums = self.index_offset + 8 * (self.block_count as usize + 1);
        read_u64(bytes, sums + 8 * block as usize)
    }
}

fn distance_field(raw: u32) -> Option<u32> {
    (raw != NO_DISTANCE).then_some(raw)
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// Reads header fields in order, with a clear error when the header ends inside one.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ProbeError> {
        match self.pos.checked_add(n) {
            Some(end) if end <= self.bytes.len() => {
                let slice = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(slice)
            }
            _ => Err(ProbeError::malformed(
                self.path,
                format!("header ends inside the {what}"),
            )),
        }
    }

    fn skip(&mut self, n: u64, what: &str) -> Result<(), ProbeError> {
        let n = usize::try_from(n)
            .map_err(|_| ProbeError::malformed(self.path, format!("{what} is too long")))?;
        self.take(n, what).map(|_| ())
    }

    fn u8(&mut self, what: &str) -> Result<u8, ProbeError> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, ProbeError> {
        Ok(u16::from_le_bytes(
            self.take(2, what)?.try_into().expect("2 bytes"),
        ))
    }

    fn u32(&mut self, what: &str) -> Result<u32, ProbeError> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self, what: &str) -> Result<u64, ProbeError> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().expect("8 bytes"),
        ))
    }

    fn string(&mut self, what: &str) -> Result<String, ProbeError> {
        let len = self.u16(what)?;
        let raw = self.take(usize::from(len), what)?;
        String::from_utf8(raw.to_vec())
            .map_err(|_| ProbeError::malformed(self.path, format!("the {what} is not UTF-8")))
    }
}

/// Everything the writer decides about one file, from which [`build_header`] lays out its header.
pub struct HeaderSpec<'a> {
    pub kind: FileKind,
    pub encoding: Encoding,
    pub block_values: u32,
    pub meta: &'a Metadata,
    /// Size of the payload once decompressed (0 for none).
    pub payload_len: u64,
    /// The payload as stored: one zstd frame, or empty.
    pub stored_payload: &'a [u8],
    /// Compressed length of every block, in order.
    pub block_lens: &'a [u64],
    /// Checksum of every compressed block, in order.
    pub block_sums: &'a [u64],
}

/// The header bytes of a file, block index and checksum included. The blocks follow it in the file, in order.
/// Names and parameters longer than 65535 bytes, or more than 65535 parameters or 255 sides, are a caller error.
pub fn build_header(spec: &HeaderSpec<'_>) -> Result<Vec<u8>, String> {
    let meta = spec.meta;
    let block_count = spec.block_lens.len() as u64;
    if spec.block_sums.len() != spec.block_lens.len() {
        return Err("one checksum per block is needed".into());
    }
    if meta.params.len() > usize::from(u16::MAX) {
        return Err("too many parameters".into());
    }
    if meta.sides.is_empty() || meta.sides.len() > usize::from(u8::MAX) {
        return Err("a table has 1 to 255 sides to move".into());
    }
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&spec.kind.code().to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes()); // header length, patched below
    out.extend_from_slice(&meta.index_size.to_le_bytes());
    out.extend_from_slice(&spec.encoding.code().to_le_bytes());
    out.extend_from_slice(&spec.block_values.to_le_bytes());
    out.extend_from_slice(&block_count.to_le_bytes());
    debug_assert_eq!(out.len(), FIXED_LEN);
    let string = |out: &mut Vec<u8>, s: &str| -> Result<(), String> {
        let len = u16::try_from(s.len()).map_err(|_| format!("string too long: {s:.40}…"))?;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(s.as_bytes());
        Ok(())
    };
    string(&mut out, &meta.game)?;
    string(&mut out, &meta.name)?;
    out.extend_from_slice(&(meta.params.len() as u16).to_le_bytes());
    for (key, value) in &meta.params {
        string(&mut out, key)?;
        string(&mut out, value)?;
    }
    out.push(meta.sides.len() as u8);
    for side in &meta.sides {
        out.extend_from_slice(&side.wins.to_le_bytes());
        out.extend_from_slice(&side.draws.to_le_bytes());
        out.extend_from_slice(&side.losses.to_le_bytes());
        out.extend_from_slice(&side.longest_win.unwrap_or(NO_DISTANCE).to_le_bytes());
        out.extend_from_slice(&side.longest_loss.unwrap_or(NO_DISTANCE).to_le_bytes());
    }
    out.extend_from_slice(&meta.holes.to_le_bytes());
    out.extend_from_slice(&spec.payload_len.to_le_bytes());
    out.extend_from_slice(&(spec.stored_payload.len() as u64).to_le_bytes());
    out.extend_from_slice(spec.stored_payload);
    let header_len = out.len() as u64 + 8 * (2 * block_count + 1) + 8;
    let mut offset = header_len;
    out.extend_from_slice(&offset.to_le_bytes());
    for len in spec.block_lens {
        offset += len;
        out.extend_from_slice(&offset.to_le_bytes());
    }
    for sum in spec.block_sums {
        out.extend_from_slice(&sum.to_le_bytes());
    }
    out[16..24].copy_from_slice(&header_len.to_le_bytes());
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    debug_assert_eq!(out.len() as u64, header_len);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_codes_round_trip() {
        for value in [
            None,
            Some(Value::DRAW),
            Some(Value::win(0)),
            Some(Value::win(1)),
            Some(Value::loss(0)),
            Some(Value::loss(126)),
            Some(Value::win(1_000_000)),
        ] {
            let code = distance_code(value);
            assert_eq!(distance_value(code as u32), value);
        }
        assert_eq!(
            Encoding::distance_for(distance_code(Some(Value::loss(126)))),
            Some(Encoding::Distance8)
        );
        assert_eq!(
            Encoding::distance_for(distance_code(Some(Value::win(127)))),
            Some(Encoding::Distance16)
        );
    }

    #[test]
    fn wdl_codes_round_trip_and_three_is_invalid() {
        for outcome in [Outcome::Loss, Outcome::Draw, Outcome::Win] {
            assert_eq!(wdl_outcome(wdl_code(outcome)), Some(outcome));
        }
        assert_eq!(wdl_outcome(3), None);
    }

    #[test]
    fn names_that_are_not_file_names_are_refused() {
        assert!(check_name("table", "KQvK").is_ok());
        for bad in ["", ".hidden", "a/b", "a\\b", "a\0b"] {
            assert!(check_name("table", bad).is_err(), "{bad:?}");
        }
    }
}
