//! The table file format, versions 1 to 8: constants, value codes, block layouts, and the header in both
//! directions (parsed by the reader, built by the writer in `retro-table`), so that the two can never disagree.
//! FORMAT.md at the root of the repository describes the same bytes for readers in other languages.
//!
//! A file is a header (fixed fields, names, parameters, counts, an optional game payload, the block index and a
//! checksum of all of it) followed by blocks of values, each stored on its own (in version 2 as one of a few
//! [`Layout`]s, mostly a zstd frame) so that one probe decompresses one block. Version 2 differs from version 1 only
//! in size: small integers in the header, block lengths of 4 bytes instead of offsets of 8, and block layouts that
//! let a block of one value take two bytes and a small WDL block be compressed one value per byte. Once a block
//! is decoded, both versions give the same bytes (see [`Encoding`]), which is what the cache keeps and probes read.
//! Version 3 is version 2's layout for a WDL file whose values are *floors* (see [`Header::floors`]); version 4 is
//! version 2's layout for a WDL file that may store blocks transposed, its kind byte saying whether it holds floors.
//! Version 5 is version 2's layout for a distance file that leaves a range of indices out (see [`Header::omitted`]):
//! one side to move of a chess table, whose values a prober finds by searching their moves. Version 6 is version 4
//! for a WDL file of floors that terminal positions complete too (see [`Header::floors`]), whose blocks may also be
//! [`Layout::Permuted`]. Version 7 has the meanings of versions 4 to 6 for files of either kind, and a block index
//! in chunks, each checked when first read (FORMAT.md, *Header, version 7*).

use std::ops::Range;
use std::path::Path;

use retro_game::{Outcome, Value, varint};

use crate::checksum::checksum;
use crate::error::{ErrorKind, ProbeError};
use crate::index::{self, BlockIndex, ChunkTableError, ChunkedIndex, read_u64};
use crate::order::ValueOrder;

/// The first eight bytes of every table file. The final 0x1a (as in PNG) catches text-mode transfers.
pub const MAGIC: [u8; 8] = *b"RETROTB\x1a";
/// The newest format version this code writes and reads (it reads every older one too). Writers write version 8 for
/// a WDL file that stores its values in another order of the index's digits ([`Header::order`]), version 7 for a
/// file of more blocks than a chunk of its index holds; otherwise version 2, except for WDL files: version 6 for one
/// of floors (see [`Header::floors`]), version 4 for one of exact outcomes with transposed blocks; version 5 for a
/// distance file that leaves indices out ([`Header::omitted`]).
pub const VERSION: u32 = 8;
/// The version of a WDL file whose values are floors: version 2's layout, another meaning of the values.
pub const FLOORS_VERSION: u32 = 3;
/// The version of a WDL file with transposed blocks ([`Layout::Transposed`]): version 2's layout, in which the file
/// kind byte also says whether the values are floors ([`WDL_FLOORS_KIND`]).
pub const TRANSPOSED_WDL_VERSION: u32 = 4;
/// The file kind byte of a WDL file of floors in version 4 (1 is a WDL file of exact outcomes, 2 a distance file).
pub const WDL_FLOORS_KIND: u8 = 3;
/// The version of a distance file that does not store the values of a range of its indices ([`Header::omitted`]).
pub const OMITTING_VERSION: u32 = 5;
/// The version of a WDL file of floors that terminal positions complete as well as exits ([`Header::floors`]):
/// version 4's layout, its kind byte [`WDL_FLOORS_KIND`]. A reader of version 3 or 4 would take a stalemate stored
/// as a loss for a loss, so these files carry a version it refuses.
pub const TERMINAL_FLOORS_VERSION: u32 = 6;
/// The version whose block index is in chunks, each checked when first read (FORMAT.md, *Header, version 7*), so that
/// opening a large file does not read its whole index: version 6's meanings (the kind byte says floors, which
/// terminal positions complete too), version 5's range of indices left out, any layout, for files of either kind.
pub const INDEXED_VERSION: u32 = 7;
/// The version of a WDL file that stores its values in another order of the index's digits ([`Header::order`]):
/// version 7 with the order after the range of indices left out. A reader of version 7 would read every value at the
/// wrong index, so these files carry a version it refuses.
pub const ORDERED_VERSION: u32 = 8;
/// How many blocks a chunk of a version 7 index holds, as a power of two: 256 blocks, 3 KB of entries, checked the
/// first time one of their blocks is read. Writers write version 7 for files of more blocks than that.
pub const INDEX_CHUNK_SHIFT: u8 = 8;
/// The largest chunk of a version 7 index, as a power of two (it bounds the work of checking one chunk).
pub const MAX_INDEX_CHUNK_SHIFT: u8 = 16;
/// File extension of the win/draw/loss file.
pub const WDL_EXTENSION: &str = "rwdl";
/// File extension of the distance file.
pub const DISTANCE_EXTENSION: &str = "rdst";
/// The largest number of values in a block a reader accepts (it bounds the memory one block decompresses to).
pub const MAX_BLOCK_VALUES: u32 = 1 << 24;
/// Where the fixed part of the header ends and the names begin, in version 1 and in version 2.
const FIXED_LEN: usize = 48;
const FIXED_LEN_V2: usize = 20;
const FIXED_LEN_V7: usize = 25;
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
    /// The same widths with codes by parity (see [`parity_code`]), for a table whose every win takes an odd number
    /// of plies and every loss an even number (normal play gives that: the winner makes the last move). A code
    /// stands for twice as many plies, so that a table of long distances may take half the width (Dobutsu shogi's
    /// longest loss, 172 plies, fits a byte: its distance file 86.3 MB at two bytes, 65.2 MB at one).
    ParityDistance8,
    ParityDistance16,
    ParityDistance32,
}

impl Encoding {
    pub fn code(self) -> u32 {
        match self {
            Encoding::Wdl2 => 1,
            Encoding::Distance8 => 2,
            Encoding::Distance16 => 3,
            Encoding::Distance32 => 4,
            Encoding::ParityDistance8 => 5,
            Encoding::ParityDistance16 => 6,
            Encoding::ParityDistance32 => 7,
        }
    }

    fn from_code(code: u32) -> Option<Encoding> {
        match code {
            1 => Some(Encoding::Wdl2),
            2 => Some(Encoding::Distance8),
            3 => Some(Encoding::Distance16),
            4 => Some(Encoding::Distance32),
            5 => Some(Encoding::ParityDistance8),
            6 => Some(Encoding::ParityDistance16),
            7 => Some(Encoding::ParityDistance32),
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
            _ => values * self.code_width() as u64,
        }
    }

    /// Bytes of one value's code in a [`Layout::Constant`] block, and of each code of a distance block.
    pub fn code_width(self) -> usize {
        match self {
            Encoding::Wdl2 | Encoding::Distance8 | Encoding::ParityDistance8 => 1,
            Encoding::Distance16 | Encoding::ParityDistance16 => 2,
            Encoding::Distance32 | Encoding::ParityDistance32 => 4,
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

    /// The narrowest encoding by parity that holds every [`parity_code`] up to `max_code`.
    pub fn parity_distance_for(max_code: u64) -> Option<Encoding> {
        Encoding::distance_for(max_code).map(|plain| match plain {
            Encoding::Distance8 => Encoding::ParityDistance8,
            Encoding::Distance16 => Encoding::ParityDistance16,
            _ => Encoding::ParityDistance32,
        })
    }

    /// Whether the distance codes are by parity ([`parity_code`]) rather than plain ([`distance_code`]).
    pub fn by_parity(self) -> bool {
        matches!(
            self,
            Encoding::ParityDistance8 | Encoding::ParityDistance16 | Encoding::ParityDistance32
        )
    }

    /// The code of a value in a distance file of this encoding.
    #[inline]
    pub fn distance_code(self, value: Option<Value>) -> u64 {
        self.stored_code(distance_code(value))
    }

    /// [`Encoding::distance_code`] of the value of a (plain) distance code.
    #[inline]
    pub fn stored_code(self, code: u64) -> u64 {
        if self.by_parity() {
            debug_assert!(code_has_parity(code), "code {code} has no code by parity");
            parity_code_of(code)
        } else {
            code
        }
    }

    /// The value of a code of a distance file of this encoding; `None` for a hole.
    #[inline]
    pub fn distance_value(self, code: u32) -> Option<Value> {
        if self.by_parity() {
            parity_value(code)
        } else {
            distance_value(code)
        }
    }

    /// A short name for `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Wdl2 => "wdl-2bit",
            Encoding::Distance8 => "distance-u8",
            Encoding::Distance16 => "distance-u16",
            Encoding::Distance32 => "distance-u32",
            Encoding::ParityDistance8 => "distance-parity-u8",
            Encoding::ParityDistance16 => "distance-parity-u16",
            Encoding::ParityDistance32 => "distance-parity-u32",
        }
    }
}

/// How a block is stored in a version 2 file: its first byte, before the data. Version 1 blocks are always a zstd
/// frame of the block's decoded bytes ([`Layout::Packed`] without the layout byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// A zstd frame of the decoded bytes ([`Encoding::bytes_for`] the block's values).
    Packed,
    /// WDL files only: a zstd frame of one byte per value (the 2-bit code in the low bits, the other bits 0). Byte
    /// aligned, the data gives zstd longer matches, which pays for small tables (KQvK: 414 bytes instead of 479).
    Bytes,
    /// Every value of the block is the same: its code follows, in the width of one value (1 byte for WDL files).
    Constant,
    /// A u32 column count `c` (at least 2), then a zstd frame of the block's values read as rows of `c` values,
    /// column by column: distance codes in the file's width, or in a WDL file (version 4) one code a byte. When a
    /// table's index has a period (a chess index: the squares of its last piece), the values of one column are
    /// neighbours in the game and zstd finds longer matches (KNPvK's distance file: 11% smaller).
    Transposed,
    /// WDL files of version 6 only: the block's index read as the digits of a mixed radix, in another order. A u8
    /// digit count `d` (2 to [`MAX_DIGITS`]), `d` u32 radices (most significant first, their product the block's
    /// value count), `d` u8 digits naming them in stored order (a permutation of `0..d`, the last the fastest), a
    /// u8 packing (1: one code a byte; 4: four codes a byte, the first in the lowest bits, as in a packed block),
    /// then a zstd frame of the codes in that order (see [`for_each_permuted`]). A chess table's index is
    /// side to move, king pair and one digit per group of men: storing, say, KRvKB's bishop first and its side to
    /// move after its king pair gives zstd longer matches than any rotation a transposed block can make.
    Permuted,
}

/// The most digits a [`Layout::Permuted`] block names.
pub const MAX_DIGITS: usize = 8;

impl Layout {
    pub fn code(self) -> u8 {
        match self {
            Layout::Packed => 0,
            Layout::Bytes => 1,
            Layout::Constant => 2,
            Layout::Transposed => 3,
            Layout::Permuted => 4,
        }
    }

    pub fn from_code(code: u8) -> Option<Layout> {
        match code {
            0 => Some(Layout::Packed),
            1 => Some(Layout::Bytes),
            2 => Some(Layout::Constant),
            3 => Some(Layout::Transposed),
            4 => Some(Layout::Permuted),
            _ => None,
        }
    }
}

/// Where value `k` of a block of `n` values stands once the block is transposed with `columns` columns (see
/// [`Layout::Transposed`]): values are read column by column from rows of `columns` values (the last row may be
/// short). Calls `f(stored, k)` for every value, in stored order.
pub fn for_each_transposed(n: usize, columns: usize, mut f: impl FnMut(usize, usize)) {
    let mut stored = 0;
    for column in 0..columns.min(n) {
        for k in (column..n).step_by(columns) {
            f(stored, k);
            stored += 1;
        }
    }
}

/// Where value `k` of a block stands once its index, read as digits of `radices` (most significant first; their
/// product is the block's value count), is enumerated in the digit order `order` (a permutation of the digits, the
/// last the fastest; see [`Layout::Permuted`]). Calls `f(stored, k)` for every value, in stored order. Panics unless
/// [`ValueOrder::new`] accepts `radices` and `order` (callers pass what [`Permutation::parse`] checked).
pub fn for_each_permuted(radices: &[u64], order: &[u8], mut f: impl FnMut(usize, usize)) {
    // The same numbering as a file's order of values (format version 8), here within one block.
    let order = ValueOrder::new(radices, order).expect("a permutation of the digits");
    for (stored, k) in order.indices(0..order.size()).enumerate() {
        f(stored, k as usize);
    }
}

/// What comes before the zstd frame of a [`Layout::Permuted`] block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permutation {
    /// The radices of the index's digits, most significant first.
    pub radices: Vec<u64>,
    /// The digits in stored order, the last the fastest.
    pub order: Vec<u8>,
    /// Codes per byte of the frame: 1 or 4.
    pub packing: u8,
}

impl Permutation {
    /// The bytes of the description (after the layout byte).
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = vec![self.radices.len() as u8];
        for &radix in &self.radices {
            out.extend_from_slice(&(radix as u32).to_le_bytes());
        }
        out.extend_from_slice(&self.order);
        out.push(self.packing);
        out
    }

    /// The length in bytes of the description of `digits` digits: their count, radices and order, and the packing.
    pub const fn len_of(digits: usize) -> usize {
        2 + 5 * digits
    }

    /// Reads the description at the start of `data` (a permuted block after its layout byte) for a block of
    /// `values` values, with its length in bytes; `None` when it does not describe the block (a digit count outside
    /// 2 to [`MAX_DIGITS`], a radix of 0, a product other than `values`, an order that is no permutation, a packing
    /// other than 1 and 4).
    pub fn parse(data: &[u8], values: usize) -> Option<(Permutation, usize)> {
        let d = usize::from(*data.first()?);
        if !(2..=MAX_DIGITS).contains(&d) || data.len() < Self::len_of(d) {
            return None;
        }
        let radices: Vec<u64> = data[1..1 + 4 * d]
            .chunks_exact(4)
            .map(|r| u64::from(u32::from_le_bytes(r.try_into().expect("4 bytes"))))
            .collect();
        let product = radices
            .iter()
            .try_fold(1u64, |p, &r| p.checked_mul(r).filter(|_| r > 0))?;
        let order = data[1 + 4 * d..1 + 5 * d].to_vec();
        // A permutation of the digits, as a file's order of values is.
        ValueOrder::new(&radices, &order)?;
        let packing = data[1 + 5 * d];
        (product == values as u64 && matches!(packing, 1 | 4)).then_some((
            Permutation {
                radices,
                order,
                packing,
            },
            Self::len_of(d),
        ))
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
    Value::code(value)
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

/// Whether a value may be stored by parity ([`parity_code`]): a hole, a draw, a win in an odd number of plies or a
/// loss in an even number.
pub fn has_parity(value: Option<Value>) -> bool {
    code_has_parity(distance_code(value))
}

/// [`has_parity`] of the value of a distance code: a win in an odd number of plies is a code of 4k, a loss in an
/// even number one of 4k + 3; the codes of 4k + 2 (wins in even numbers) and of 4k + 1 above 1 (losses in odd
/// numbers) have none.
#[inline]
pub fn code_has_parity(code: u64) -> bool {
    // `|`, not `||`: no branch, for the writer's count of every index.
    code.is_multiple_of(4) | (code % 4 == 3) | (code == 1)
}

/// The code of a value in a distance file by parity: 0 a hole, 1 a draw, `d + 1` a win in `d` plies (odd: the code
/// is even), `d + 3` a loss in `d` plies (even: the code is odd). Only for values that [`has_parity`].
pub fn parity_code(value: Option<Value>) -> u64 {
    debug_assert!(has_parity(value), "{value:?} has no code by parity");
    parity_code_of(distance_code(value))
}

/// [`parity_code`] of the value of a distance code: a hole and a draw keep theirs, a win's `2 + 2d` becomes
/// `d + 1`, a loss's `3 + 2d` becomes `d + 3`.
#[inline]
pub fn parity_code_of(code: u64) -> u64 {
    if code < 2 {
        code
    } else {
        (code + 3 * (code & 1)) / 2
    }
}

/// The value of a code by parity; `None` for a hole. Every code up to `u32::MAX` is valid.
pub fn parity_value(code: u32) -> Option<Value> {
    match code {
        0 => None,
        1 => Some(Value::DRAW),
        c if c % 2 == 0 => Some(Value::win(c - 1)),
        c => Some(Value::loss(c - 3)),
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
    /// The format version the file was written in (1 to 7).
    pub version: u32,
    pub kind: FileKind,
    /// Whether the values are floors (a WDL file of version 3 or 6, or one of version 4 or 7 whose kind says so).
    floors: bool,
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
    /// The indices whose values the file does not store (a distance file of version 5).
    omitted: Option<Range<u64>>,
    /// The order in which a WDL file of version 8 stores its values; `None`: index order.
    order: Option<ValueOrder>,
    /// Where each block lies in the file and the checksum of its stored bytes.
    pub(crate) index: BlockIndex,
}

impl Header {
    /// Whether the values of this WDL file are floors (version 3 or 6, or 4 or 7 with [`WDL_FLOORS_KIND`]): a
    /// position's stored outcome may be worse for the side to move than its value when one of its exits (a move into
    /// another table: for chess, a capture or a promotion) reaches that value, or, from version 6, when it is a
    /// terminal position whose value the rules give (a stalemate's draw). The writer stores whatever compresses best
    /// among the outcomes no better than the value, and a prober takes the better of the stored outcome, the exits'
    /// outcomes and a terminal position's value.
    pub fn floors(&self) -> bool {
        self.floors
    }

    /// The indices whose values this distance file leaves out (version 5 or 7): for a chess table, one side to
    /// move, whose values a prober finds by searching their moves into the side stored. The blocks hold filler there.
    pub fn omitted(&self) -> Option<Range<u64>> {
        self.omitted.clone()
    }

    /// The order in which this WDL file (of version 8) stores its values, the index's digits in another order;
    /// `None` when it stores them in index order. Blocks hold values by stored position.
    pub fn order(&self) -> Option<&ValueOrder> {
        self.order.as_ref()
    }

    /// Where the value of `index` is stored: `index` itself, unless the file has an [`order`](Self::order).
    #[inline]
    pub fn stored_position(&self, index: u64) -> u64 {
        self.order
            .as_ref()
            .map_or(index, |order| order.stored_position(index))
    }

    /// The index whose value is stored at `stored`: the inverse of [`stored_position`](Self::stored_position).
    #[inline]
    pub fn index_at(&self, stored: u64) -> u64 {
        self.order
            .as_ref()
            .map_or(stored, |order| order.index_at(stored))
    }

    /// Whether the file stores the value of `index` (every index but the [`omitted`](Self::omitted) ones).
    #[inline]
    pub fn stores(&self, index: u64) -> bool {
        self.omitted.as_ref().is_none_or(|r| !r.contains(&index))
    }

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
        match version {
            0 => Err(ProbeError::malformed(path, "format version 0")),
            1 => Self::parse_v1(path, bytes),
            _ => Self::parse_v2(path, bytes, version),
        }
    }

    /// Version 1: fixed-width fields, absolute block offsets.
    fn parse_v1(path: &Path, bytes: &[u8]) -> Result<Header, ProbeError> {
        let mut r = Cursor {
            bytes,
            pos: 12,
            path,
        };
        let kind_code = r.u32("file kind")?;
        let header_len = r.u64("header length")?;
        let header_bytes = checked_header(path, bytes, header_len, FIXED_LEN as u64 + 8)?;
        // From here on the header is what the writer wrote (up to a 2^-64 chance); the checks below guard against
        // a writer bug or a forged file, so that no field can make the reader panic or allocate without bound.
        let mut r = Cursor {
            bytes: header_bytes,
            pos: 24,
            path,
        };
        let kind = FileKind::from_code(kind_code)
            .ok_or_else(|| ProbeError::malformed(path, format!("unknown file kind {kind_code}")))?;
        let index_size = r.u64("index size")?;
        let encoding = encoding_of(path, r.u32("value encoding")?, kind)?;
        let block_values = r.u32("values per block")?;
        check_block_values(path, block_values)?;
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
        let mut params = Vec::new();
        for _ in 0..param_count {
            let key = r.string("parameter name")?;
            let value = r.string("parameter value")?;
            params.push((key, value));
        }
        let side_count = r.u8("side count")?;
        let mut sides = Vec::new();
        for _ in 0..side_count {
            sides.push(SideCounts {
                wins: r.u64("win count")?,
                draws: r.u64("draw count")?,
                losses: r.u64("loss count")?,
                longest_win: distance_field(r.u32("longest win")?),
                longest_loss: distance_field(r.u32("longest loss")?),
            });
        }
        let holes = r.u64("hole count")?;
        let meta = Metadata {
            game,
            name,
            params,
            index_size,
            sides,
            holes,
        };
        check_counts(path, &meta)?;
        let payload_len = r.u64("payload length")?;
        let stored_len = r.u64("stored payload length")?;
        let payload_range = r.payload(payload_len, stored_len)?;
        let index_len = block_count
            .checked_add(1)
            .and_then(|n| n.checked_add(block_count))
            .and_then(|n| n.checked_mul(8));
        if index_len != Some(r.remaining() as u64) {
            return Err(ProbeError::malformed(
                path,
                "the block index does not fill the rest of the header",
            ));
        }
        // The index fits in the header (checked just above), so these vectors are bounded by the file's size.
        let offsets: Vec<u64> = (0..=block_count)
            .map(|_| r.u64("block offset"))
            .collect::<Result<_, _>>()?;
        let sums_at = r.pos;
        r.take(block_count as usize * 8, "block checksums")?;
        // Block offsets must start right after the header, never go backwards and end at the end of the file.
        let mut previous = header_len;
        for (block, &offset) in offsets.iter().enumerate() {
            if offset < previous || (block == 0 && offset != header_len) {
                return Err(ProbeError::malformed(
                    path,
                    format!("block {block} has a bad offset {offset}"),
                ));
            }
            previous = offset;
        }
        check_file_end(path, previous, bytes.len() as u64)?;
        Ok(Header {
            version: 1,
            kind,
            floors: false,
            encoding,
            block_values,
            block_count,
            header_len,
            meta,
            payload_len,
            payload_range,
            omitted: None,
            order: None,
            index: BlockIndex::Whole { offsets, sums_at },
        })
    }

    /// Version 2 (and 3, which has its layout): small fields, variable-length integers, block lengths instead of
    /// offsets.
    fn parse_v2(path: &Path, bytes: &[u8], version: u32) -> Result<Header, ProbeError> {
        let chunked = version >= INDEXED_VERSION;
        let mut r = Cursor {
            bytes,
            pos: 12,
            path,
        };
        let header_len = u64::from(r.u32("header length")?);
        // Version 7 checks its head at open, the chunks of its block index when they are read.
        let (checked_len, fixed_len) = if chunked {
            (u64::from(r.u32("head length")?), FIXED_LEN_V7)
        } else {
            (header_len, FIXED_LEN_V2)
        };
        let header_bytes = checked_header(path, bytes, checked_len, fixed_len as u64 + 8)?;
        // As in version 1, the checks below only guard against writer bugs and forged files. The file kind comes
        // after the lengths: one in version 2, two in version 7.
        let mut r = Cursor {
            bytes: header_bytes,
            pos: if chunked { 20 } else { 16 },
            path,
        };
        let kind_code = r.u8("file kind")?;
        let (kind, floors) = if version >= TRANSPOSED_WDL_VERSION && kind_code == WDL_FLOORS_KIND {
            (FileKind::Wdl, true)
        } else {
            let kind = FileKind::from_code(u32::from(kind_code)).ok_or_else(|| {
                ProbeError::malformed(path, format!("unknown file kind {kind_code}"))
            })?;
            (kind, version == FLOORS_VERSION && kind == FileKind::Wdl)
        };
        let encoding = encoding_of(path, u32::from(r.u8("value encoding")?), kind)?;
        let block_shift = r.u8("block size")?;
        if u32::from(block_shift) > MAX_BLOCK_VALUES.trailing_zeros() {
            return Err(ProbeError::malformed(
                path,
                format!("2^{block_shift} values per block (at most {MAX_BLOCK_VALUES})"),
            ));
        }
        let block_values = 1u32 << block_shift;
        let side_count = r.u8("side count")?;
        let chunk_shift = if chunked {
            let shift = r.u8("index chunk size")?;
            if shift > MAX_INDEX_CHUNK_SHIFT {
                return Err(ProbeError::malformed(
                    path,
                    format!(
                        "index chunks of 2^{shift} blocks (at most 2^{})",
                        MAX_INDEX_CHUNK_SHIFT
                    ),
                ));
            }
            shift
        } else {
            0
        };
        debug_assert!(!chunked || r.pos == fixed_len);
        let index_size = r.varint("index size")?;
        let block_count = index_size.div_ceil(u64::from(block_values));
        let game = r.string8("game name")?;
        let name = r.string8("table name")?;
        let param_count = r.varint("parameter count")?;
        let mut params = Vec::new();
        for _ in 0..param_count {
            let key = r.string_var("parameter name")?;
            let value = r.string_var("parameter value")?;
            params.push((key, value));
        }
        let mut sides = Vec::new();
        for _ in 0..side_count {
            sides.push(SideCounts {
                wins: r.varint("win count")?,
                draws: r.varint("draw count")?,
                losses: r.varint("loss count")?,
                longest_win: r.distance_varint("longest win")?,
                longest_loss: r.distance_varint("longest loss")?,
            });
        }
        let positions = sides.iter().try_fold(0u64, |sum, s| {
            sum.checked_add(s.wins)?
                .checked_add(s.draws)?
                .checked_add(s.losses)
        });
        let holes = match positions {
            Some(p) if p <= index_size => index_size - p,
            _ => {
                return Err(ProbeError::malformed(
                    path,
                    format!("more positions than the index size {index_size}"),
                ));
            }
        };
        let meta = Metadata {
            game,
            name,
            params,
            index_size,
            sides,
            holes,
        };
        check_counts(path, &meta)?;
        let omitted = if version == OMITTING_VERSION || chunked {
            let start = r.varint("start of the omitted indices")?;
            let end = r.varint("end of the omitted indices")?;
            if chunked && (start, end) == (0, 0) {
                None
            } else if start >= end || end > index_size {
                return Err(ProbeError::malformed(
                    path,
                    format!(
                        "omitted indices {start}..{end} are no range of the {index_size} indices"
                    ),
                ));
            } else {
                Some(start..end)
            }
        } else {
            None
        };
        let order = if version >= ORDERED_VERSION {
            let digits = usize::from(r.u8("digit count")?);
            if !(2..=MAX_DIGITS).contains(&digits) {
                return Err(ProbeError::malformed(
                    path,
                    format!("an order of {digits} digits (2 to {MAX_DIGITS})"),
                ));
            }
            let radices = (0..digits)
                .map(|_| r.varint("digit radix"))
                .collect::<Result<Vec<_>, _>>()?;
            let digit_order = (0..digits)
                .map(|_| r.u8("digit number"))
                .collect::<Result<Vec<_>, _>>()?;
            let order = ValueOrder::new(&radices, &digit_order)
                .filter(|order| order.size() == index_size && !order.is_identity())
                .ok_or_else(|| {
                    ProbeError::malformed(
                        path,
                        format!(
                            "an order of digits {digit_order:?} of radices {radices:?} for {index_size} indices"
                        ),
                    )
                })?;
            if kind != FileKind::Wdl {
                return Err(ProbeError::malformed(
                    path,
                    "a distance file that stores its values in another order (only WDL files do)",
                ));
            }
            Some(order)
        } else {
            None
        };
        let payload_len = r.varint("payload length")?;
        let stored_len = r.varint("stored payload length")?;
        let payload_range = r.payload(payload_len, stored_len)?;
        let index = if chunked {
            chunked_index(
                path,
                &mut r,
                block_count,
                chunk_shift,
                header_len,
                checked_len,
            )?
        } else {
            whole_index(path, &mut r, block_count, header_len)?
        };
        check_file_end(path, index.end(), bytes.len() as u64)?;
        if chunked && omitted.is_some() && kind != FileKind::Distance {
            return Err(ProbeError::malformed(
                path,
                "a WDL file that leaves indices out (only distance files do)",
            ));
        }
        if (FLOORS_VERSION..OMITTING_VERSION).contains(&version) && kind != FileKind::Wdl {
            return Err(ProbeError::malformed(
                path,
                format!(
                    "a distance file of format version {version} (only WDL files are written in it)"
                ),
            ));
        }
        if version == OMITTING_VERSION && kind != FileKind::Distance {
            return Err(ProbeError::malformed(
                path,
                format!(
                    "a WDL file of format version {version} (only distance files are written in it)"
                ),
            ));
        }
        if version == TERMINAL_FLOORS_VERSION && !floors {
            return Err(ProbeError::malformed(
                path,
                format!(
                    "a file of format version {version} that is no WDL file of floors (only those are written in it)"
                ),
            ));
        }
        Ok(Header {
            version,
            kind,
            floors,
            encoding,
            block_values,
            block_count,
            header_len,
            meta,
            payload_len,
            payload_range,
            omitted,
            order,
            index,
        })
    }

    /// Where the header checksum lies (in version 7, the head's), for a file of any version: `None` if the length
    /// field is implausible. (Used to repair checksums when fuzzing.)
    pub(crate) fn checksum_at(bytes: &[u8]) -> Option<usize> {
        let version = u32::from_le_bytes(bytes.get(8..12)?.try_into().ok()?);
        let header_len = match version {
            1 => usize::try_from(u64::from_le_bytes(bytes.get(16..24)?.try_into().ok()?)).ok()?,
            INDEXED_VERSION.. => u32::from_le_bytes(bytes.get(16..20)?.try_into().ok()?) as usize,
            _ => u32::from_le_bytes(bytes.get(12..16)?.try_into().ok()?) as usize,
        };
        (header_len >= 16 && header_len <= bytes.len()).then(|| header_len - 8)
    }
}

/// Checks the header's length and checksum; returns the header without its checksum.
fn checked_header<'a>(
    path: &Path,
    bytes: &'a [u8],
    header_len: u64,
    shortest: u64,
) -> Result<&'a [u8], ProbeError> {
    let file_len = bytes.len() as u64;
    if header_len > file_len {
        return Err(ProbeError::malformed(
            path,
            format!("header length {header_len} is past the end of the {file_len}-byte file"),
        ));
    }
    if header_len < shortest {
        return Err(ProbeError::malformed(
            path,
            format!("header length {header_len} is too short"),
        ));
    }
    let end = header_len as usize - 8;
    let stored_sum = read_u64(bytes, end);
    if checksum(&bytes[..end]) != stored_sum {
        return Err(ProbeError::new(path, ErrorKind::HeaderChecksum));
    }
    Ok(&bytes[..end])
}

/// Versions 2 to 6: the block index that fills the rest of the header `r` reads, for blocks from `header_len` on.
fn whole_index(
    path: &Path,
    r: &mut Cursor<'_>,
    block_count: u64,
    header_len: u64,
) -> Result<BlockIndex, ProbeError> {
    if block_count.checked_mul(index::ENTRY_BYTES) != Some(r.remaining() as u64) {
        return Err(ProbeError::malformed(
            path,
            "the block index does not fill the rest of the header",
        ));
    }
    // Bounded by the header's size, as just checked. Read as whole slices rather than field by field: a first
    // probe opens the table, and a large table's index has tens of thousands of entries.
    let lengths = r.take(block_count as usize * 4, "block lengths")?;
    let offsets = index::offsets_of(path, header_len, 0, lengths)?;
    // The checksums are read from the file when needed: copying them would cost a first probe more than it saves.
    let sums_at = r.pos;
    r.take(block_count as usize * 8, "block checksums")?;
    Ok(BlockIndex::Whole { offsets, sums_at })
}

/// Version 7: the chunk table that fills the rest of the head `r` reads (which ends at `head_len`), for chunks of
/// 2^`chunk_shift` blocks whose entries lie between the head and `header_len`.
fn chunked_index(
    path: &Path,
    r: &mut Cursor<'_>,
    block_count: u64,
    chunk_shift: u8,
    header_len: u64,
    head_len: u64,
) -> Result<BlockIndex, ProbeError> {
    let chunks = index::chunk_count(block_count, chunk_shift);
    // Both bounded by the head's size once these equalities hold.
    let table_len = chunks.checked_mul(16).and_then(|n| n.checked_add(8));
    let entries_len = block_count.checked_mul(index::ENTRY_BYTES);
    if table_len != Some(r.remaining() as u64) {
        return Err(ProbeError::malformed(
            path,
            "the chunk table does not fill the rest of the header",
        ));
    }
    if entries_len.and_then(|n| n.checked_add(head_len)) != Some(header_len) {
        return Err(ProbeError::malformed(
            path,
            format!("a header of {header_len} bytes cannot hold the index of {block_count} blocks"),
        ));
    }
    let words = |r: &mut Cursor<'_>, n: u64, what: &str| -> Result<Vec<u64>, ProbeError> {
        Ok(r.take(n as usize * 8, what)?
            .chunks_exact(8)
            .map(|word| u64::from_le_bytes(word.try_into().expect("8 bytes")))
            .collect())
    };
    let starts = words(r, chunks + 1, "chunk starts")?;
    let sums = words(r, chunks, "chunk checksums")?;
    ChunkedIndex::new(chunk_shift, block_count, header_len, starts, sums)
        .map(BlockIndex::Chunked)
        .map_err(|e| {
            ProbeError::malformed(
                path,
                match e {
                    ChunkTableError::FirstBlock { found } => {
                        format!("the first block starts at {found}, not after the header at {header_len}")
                    }
                    ChunkTableError::ShortChunk { chunk } => {
                        format!("index chunk {chunk} spans fewer bytes than it has blocks")
                    }
                },
            )
        })
}

fn encoding_of(path: &Path, code: u32, kind: FileKind) -> Result<Encoding, ProbeError> {
    let encoding = Encoding::from_code(code)
        .ok_or_else(|| ProbeError::malformed(path, format!("unknown value encoding {code}")))?;
    if encoding.kind() != kind {
        return Err(ProbeError::malformed(
            path,
            format!("value encoding {} in a {kind:?} file", encoding.as_str()),
        ));
    }
    Ok(encoding)
}

fn check_block_values(path: &Path, block_values: u32) -> Result<(), ProbeError> {
    if !block_values.is_power_of_two() || block_values > MAX_BLOCK_VALUES {
        return Err(ProbeError::malformed(
            path,
            format!(
                "{block_values} values per block (must be a power of two up to {MAX_BLOCK_VALUES})"
            ),
        ));
    }
    Ok(())
}

/// At least one side; longest wins and losses present exactly when there are wins and losses; counts and holes add
/// up to the index size.
fn check_counts(path: &Path, meta: &Metadata) -> Result<(), ProbeError> {
    if meta.sides.is_empty() {
        return Err(ProbeError::malformed(path, "no side to move"));
    }
    for (side, counts) in meta.sides.iter().enumerate() {
        if (counts.wins == 0) != counts.longest_win.is_none()
            || (counts.losses == 0) != counts.longest_loss.is_none()
        {
            return Err(ProbeError::malformed(
                path,
                format!("side {side}: longest win or loss does not agree with the counts"),
            ));
        }
    }
    let total = meta.sides.iter().try_fold(meta.holes, |sum, s| {
        sum.checked_add(s.wins)?
            .checked_add(s.draws)?
            .checked_add(s.losses)
    });
    if total != Some(meta.index_size) {
        return Err(ProbeError::malformed(
            path,
            format!(
                "counts of positions and holes do not add up to the index size {}",
                meta.index_size
            ),
        ));
    }
    Ok(())
}

/// The blocks must end exactly at the end of the file.
fn check_file_end(path: &Path, end: u64, file_len: u64) -> Result<(), ProbeError> {
    if end != file_len {
        return Err(ProbeError::new(
            path,
            ErrorKind::Truncated {
                expected: end,
                found: file_len,
            },
        ));
    }
    Ok(())
}

fn distance_field(raw: u32) -> Option<u32> {
    (raw != NO_DISTANCE).then_some(raw)
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

    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Skips the stored payload and returns where it lies.
    fn payload(&mut self, payload_len: u64, stored_len: u64) -> Result<Range<usize>, ProbeError> {
        if (payload_len == 0) != (stored_len == 0) {
            return Err(ProbeError::malformed(self.path, "payload lengths disagree"));
        }
        let n = usize::try_from(stored_len)
            .map_err(|_| ProbeError::malformed(self.path, "payload is too long"))?;
        let start = self.pos;
        self.take(n, "payload")?;
        Ok(start..start + n)
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

    /// An unsigned LEB128 integer: 7 bits per byte, low bits first, the high bit set on every byte but the last.
    fn varint(&mut self, what: &str) -> Result<u64, ProbeError> {
        let mut value = 0u64;
        for k in 0..10 {
            let byte = self.u8(what)?;
            let bits = u64::from(byte & 0x7f);
            if k == 9 && bits > 1 {
                break;
            }
            value |= bits << (7 * k);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ProbeError::malformed(
            self.path,
            format!("the {what} does not fit in 64 bits"),
        ))
    }

    /// A longest win or loss: 0 for none, else plies + 1.
    fn distance_varint(&mut self, what: &str) -> Result<Option<u32>, ProbeError> {
        match self.varint(what)? {
            0 => Ok(None),
            n => u32::try_from(n - 1)
                .map(Some)
                .map_err(|_| ProbeError::malformed(self.path, format!("the {what} is too long"))),
        }
    }

    fn utf8(&mut self, len: usize, what: &str) -> Result<String, ProbeError> {
        let raw = self.take(len, what)?;
        String::from_utf8(raw.to_vec())
            .map_err(|_| ProbeError::malformed(self.path, format!("the {what} is not UTF-8")))
    }

    /// A string with a u16 length (version 1).
    fn string(&mut self, what: &str) -> Result<String, ProbeError> {
        let len = self.u16(what)?;
        self.utf8(usize::from(len), what)
    }

    /// A string with a u8 length (version 2 names).
    fn string8(&mut self, what: &str) -> Result<String, ProbeError> {
        let len = self.u8(what)?;
        self.utf8(usize::from(len), what)
    }

    /// A string with a varint length (version 2 parameters).
    fn string_var(&mut self, what: &str) -> Result<String, ProbeError> {
        let len = self.varint(what)?;
        let len = usize::try_from(len)
            .map_err(|_| ProbeError::malformed(self.path, format!("the {what} is too long")))?;
        self.utf8(len, what)
    }
}

/// Everything the writer decides about one file, from which [`build_header`] lays out its header.
pub struct HeaderSpec<'a> {
    /// The format version to write: 2, 1 for readers that know only version 1, for a WDL file 3 (floors), 4
    /// (transposed blocks, floors or not) or 6 (floors terminal positions complete), for a distance file 5 (indices
    /// left out), or 7 for a file of either kind with its block index in chunks.
    pub version: u32,
    pub kind: FileKind,
    /// Whether the values are floors: only for a WDL file of version 3 or 6 (where it is implied), 4 or 7.
    pub floors: bool,
    /// The indices whose values a distance file of version 5 or 7 leaves out; `None` in every other file.
    pub omitted: Option<Range<u64>>,
    /// Version 7: the index's chunks hold 2^`index_chunk_shift` blocks (at most 2^16). Ignored by other versions.
    pub index_chunk_shift: u8,
    /// The order in which a WDL file of version 8 stores its values (not the identity); `None` in every other file.
    pub order: Option<&'a ValueOrder>,
    pub encoding: Encoding,
    pub block_values: u32,
    pub meta: &'a Metadata,
    /// Size of the payload once decompressed (0 for none).
    pub payload_len: u64,
    /// The payload as stored: one zstd frame, or empty.
    pub stored_payload: &'a [u8],
    /// Stored length of every block, in order.
    pub block_lens: &'a [u64],
    /// Checksum of every stored block, in order.
    pub block_sums: &'a [u64],
}

/// The header bytes of a file, block index and checksum included. The blocks follow it in the file, in order.
/// Its length depends on the metadata and the number of blocks, not on the blocks' lengths, so a writer can leave
/// room for it before the blocks are compressed. Names and parameters longer than the format allows, too many
/// parameters or sides, or blocks too long for version 2, are a caller error.
pub fn build_header(spec: &HeaderSpec<'_>) -> Result<Vec<u8>, String> {
    if spec.block_sums.len() != spec.block_lens.len() {
        return Err("one checksum per block is needed".into());
    }
    let meta = spec.meta;
    if meta.sides.is_empty() || meta.sides.len() > usize::from(u8::MAX) {
        return Err("a table has 1 to 255 sides to move".into());
    }
    let block_count = spec.block_lens.len() as u64;
    if block_count != meta.index_size.div_ceil(u64::from(spec.block_values)) {
        return Err("the number of blocks does not match the index size".into());
    }
    if spec.floors && spec.version < FLOORS_VERSION {
        return Err(format!("format version {} has no floors", spec.version));
    }
    if let Some(omitted) = &spec.omitted
        && (!(spec.version == OMITTING_VERSION
            || (spec.version == INDEXED_VERSION && spec.kind == FileKind::Distance))
            || omitted.start >= omitted.end
            || omitted.end > meta.index_size)
    {
        return Err(format!(
            "indices {omitted:?} can be left out of a distance file of version {OMITTING_VERSION} or \
             {INDEXED_VERSION} only, as a range of its indices"
        ));
    }
    if spec.order.is_some() != (spec.version == ORDERED_VERSION)
        || spec.order.is_some_and(|order| {
            spec.kind != FileKind::Wdl || order.size() != meta.index_size || order.is_identity()
        })
    {
        return Err(format!(
            "a WDL file of version {ORDERED_VERSION}, and only it, stores its values in another order of its index's \
             digits, whose radices multiply to its index size"
        ));
    }
    if spec.version == INDEXED_VERSION || spec.version == ORDERED_VERSION {
        if spec.floors && spec.kind != FileKind::Wdl {
            return Err("only a WDL file holds floors".into());
        }
        if spec.index_chunk_shift > MAX_INDEX_CHUNK_SHIFT {
            return Err(format!(
                "index chunks of 2^{} blocks (at most 2^{})",
                spec.index_chunk_shift, MAX_INDEX_CHUNK_SHIFT
            ));
        }
        return header_v7(spec);
    }
    let mut out = match spec.version {
        1 => header_v1(spec)?,
        2 => header_v2(spec)?,
        FLOORS_VERSION | TERMINAL_FLOORS_VERSION if spec.kind == FileKind::Wdl && spec.floors => {
            header_v2(spec)?
        }
        TRANSPOSED_WDL_VERSION if spec.kind == FileKind::Wdl => header_v2(spec)?,
        OMITTING_VERSION if spec.kind == FileKind::Distance && spec.omitted.is_some() => {
            header_v2(spec)?
        }
        v => return Err(format!("cannot write format version {v}")),
    };
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// A version 7 header: the head (version 2's fields in version 7's order, then the chunk table) and its checksum,
/// then the chunks' entries.
fn header_v7(spec: &HeaderSpec<'_>) -> Result<Vec<u8>, String> {
    let meta = spec.meta;
    // The header length and the head length, patched below.
    let mut out = fixed_fields(spec, spec.version, 2, spec.floors);
    out.push(spec.index_chunk_shift);
    debug_assert_eq!(out.len(), FIXED_LEN_V7);
    put_fields(&mut out, meta)?;
    let omitted = spec.omitted.clone().unwrap_or(0..0);
    varint::put(&mut out, omitted.start);
    varint::put(&mut out, omitted.end);
    if let Some(order) = spec.order {
        out.push(order.radices().len() as u8);
        for &radix in order.radices() {
            varint::put(&mut out, radix);
        }
        out.extend_from_slice(order.order());
    }
    put_payload(&mut out, spec);
    let block_count = spec.block_lens.len() as u64;
    let chunks = index::chunk_count(block_count, spec.index_chunk_shift);
    let head_len = out.len() as u64 + 16 * chunks + 8 + 8;
    let header_len = head_len + index::ENTRY_BYTES * block_count;
    let lens_fit = spec
        .block_lens
        .iter()
        .all(|&len| len <= u64::from(u32::MAX));
    let (Ok(head_len32), Ok(header_len32), true) =
        (u32::try_from(head_len), u32::try_from(header_len), lens_fit)
    else {
        return Err("the header is too long (payload over 4 GB), or a block is".into());
    };
    let layout = index::chunked_entries(
        spec.block_lens,
        spec.block_sums,
        spec.index_chunk_shift,
        header_len,
    );
    for word in layout.starts.iter().chain(&layout.chunk_sums) {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out[12..16].copy_from_slice(&header_len32.to_le_bytes());
    out[16..20].copy_from_slice(&head_len32.to_le_bytes());
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    debug_assert_eq!(out.len() as u64, head_len);
    out.extend_from_slice(&layout.entries);
    Ok(out)
}

/// The fixed fields of versions 2 to 7: the magic, the version, `lengths` u32 lengths left 0 for the caller to
/// patch, the file kind ([`WDL_FLOORS_KIND`] with `floors_kind`), the encoding, the block size and the side count.
fn fixed_fields(spec: &HeaderSpec<'_>, version: u32, lengths: usize, floors_kind: bool) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.resize(out.len() + 4 * lengths, 0);
    out.push(if floors_kind {
        WDL_FLOORS_KIND
    } else {
        spec.kind.code() as u8
    });
    out.push(spec.encoding.code() as u8);
    out.push(spec.block_values.trailing_zeros() as u8);
    out.push(spec.meta.sides.len() as u8);
    out
}

/// Version 2's fields from the index size to the per-side counts (also version 7's).
fn put_fields(out: &mut Vec<u8>, meta: &Metadata) -> Result<(), String> {
    varint::put(out, meta.index_size);
    for name in [&meta.game, &meta.name] {
        let len = u8::try_from(name.len()).map_err(|_| format!("name too long: {name:.40}…"))?;
        out.push(len);
        out.extend_from_slice(name.as_bytes());
    }
    varint::put(out, meta.params.len() as u64);
    for (key, value) in &meta.params {
        for s in [key, value] {
            varint::put(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
    }
    for side in &meta.sides {
        for n in [side.wins, side.draws, side.losses] {
            varint::put(out, n);
        }
        for longest in [side.longest_win, side.longest_loss] {
            varint::put(out, longest.map_or(0, |d| u64::from(d) + 1));
        }
    }
    Ok(())
}

/// The payload's lengths and bytes (versions 2 to 7).
fn put_payload(out: &mut Vec<u8>, spec: &HeaderSpec<'_>) {
    varint::put(out, spec.payload_len);
    varint::put(out, spec.stored_payload.len() as u64);
    out.extend_from_slice(spec.stored_payload);
}

/// A version 1 header without its checksum.
fn header_v1(spec: &HeaderSpec<'_>) -> Result<Vec<u8>, String> {
    let meta = spec.meta;
    let block_count = spec.block_lens.len() as u64;
    if meta.params.len() > usize::from(u16::MAX) {
        return Err("too many parameters".into());
    }
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&1u32.to_le_bytes());
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
    Ok(out)
}

/// A version 2 header without its checksum.
fn header_v2(spec: &HeaderSpec<'_>) -> Result<Vec<u8>, String> {
    let meta = spec.meta;
    // The header length, patched below.
    let floors_kind = spec.version >= TRANSPOSED_WDL_VERSION && spec.floors;
    let mut out = fixed_fields(spec, spec.version, 1, floors_kind);
    debug_assert_eq!(out.len(), FIXED_LEN_V2);
    put_fields(&mut out, meta)?;
    if let Some(omitted) = &spec.omitted {
        varint::put(&mut out, omitted.start);
        varint::put(&mut out, omitted.end);
    }
    put_payload(&mut out, spec);
    for &len in spec.block_lens {
        let len = u32::try_from(len).map_err(|_| format!("a block of {len} bytes is too long"))?;
        out.extend_from_slice(&len.to_le_bytes());
    }
    for sum in spec.block_sums {
        out.extend_from_slice(&sum.to_le_bytes());
    }
    let header_len =
        u32::try_from(out.len() + 8).map_err(|_| "the header is too long (payload over 4 GB)")?;
    out[12..16].copy_from_slice(&header_len.to_le_bytes());
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
    fn parity_read_from_codes_agrees_with_the_values() {
        for d in 0..300u32 {
            for (value, parity) in [(Value::win(d), d % 2 == 1), (Value::loss(d), d % 2 == 0)] {
                let code = distance_code(Some(value));
                assert_eq!(code_has_parity(code), parity, "{value:?}");
                if parity {
                    let by_parity = match value.outcome() {
                        Outcome::Win => u64::from(d) + 1,
                        _ => u64::from(d) + 3,
                    };
                    assert_eq!(parity_code_of(code), by_parity, "{value:?}");
                    assert_eq!(parity_value(by_parity as u32), Some(value));
                }
            }
        }
        for value in [None, Some(Value::DRAW)] {
            let code = distance_code(value);
            assert!(code_has_parity(code));
            assert_eq!(parity_code_of(code), code);
        }
    }

    #[test]
    fn codes_by_parity_round_trip_and_every_code_is_one_value() {
        let values = [
            None,
            Some(Value::DRAW),
            Some(Value::win(1)),
            Some(Value::win(3)),
            Some(Value::loss(0)),
            Some(Value::loss(2)),
            Some(Value::loss(252)),
            Some(Value::win(253)),
            Some(Value::win(1_000_001)),
        ];
        for value in values {
            assert!(has_parity(value), "{value:?}");
            let code = parity_code(value);
            assert_eq!(parity_value(code as u32), value);
            for encoding in [Encoding::ParityDistance8, Encoding::ParityDistance32] {
                assert_eq!(encoding.distance_value(code as u32), value);
                assert_eq!(encoding.distance_code(value), code);
            }
        }
        // Codes are consecutive: 0 hole, 1 draw, 2 win in 1, 3 loss in 0, 4 win in 3, 5 loss in 2, ...
        let decoded: Vec<_> = (0..6).map(parity_value).collect();
        let expected = [
            None,
            Some(Value::DRAW),
            Some(Value::win(1)),
            Some(Value::loss(0)),
            Some(Value::win(3)),
            Some(Value::loss(2)),
        ];
        assert_eq!(decoded, expected);
        for wrong in [Value::win(0), Value::win(2), Value::loss(1)] {
            assert!(!has_parity(Some(wrong)), "{wrong}");
        }
        // A byte holds losses of up to 252 plies and wins of up to 253, where plain codes stop at 126.
        assert_eq!(
            Encoding::parity_distance_for(parity_code(Some(Value::loss(252)))),
            Some(Encoding::ParityDistance8)
        );
        assert_eq!(
            Encoding::parity_distance_for(parity_code(Some(Value::loss(254)))),
            Some(Encoding::ParityDistance16)
        );
        for encoding in [
            Encoding::ParityDistance8,
            Encoding::ParityDistance16,
            Encoding::ParityDistance32,
        ] {
            assert_eq!(Encoding::from_code(encoding.code()), Some(encoding));
            assert_eq!(encoding.kind(), FileKind::Distance);
            assert!(encoding.by_parity() && encoding.as_str().starts_with("distance-parity"));
        }
        assert!(!Encoding::Distance8.by_parity());
    }

    #[test]
    fn wdl_codes_round_trip_and_three_is_invalid() {
        for outcome in [Outcome::Loss, Outcome::Draw, Outcome::Win] {
            assert_eq!(wdl_outcome(wdl_code(outcome)), Some(outcome));
        }
        assert_eq!(wdl_outcome(3), None);
    }

    #[test]
    fn varints_round_trip_and_overlong_ones_are_refused() {
        let path = Path::new("v");
        for n in [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut bytes = Vec::new();
            varint::put(&mut bytes, n);
            let mut r = Cursor {
                bytes: &bytes,
                pos: 0,
                path,
            };
            assert_eq!(r.varint("n").unwrap(), n);
            assert_eq!(r.pos, bytes.len());
        }
        // Eleven bytes, or a tenth byte with more than the 64th bit: not a u64.
        for bytes in [vec![0x80; 10].into_iter().chain([0]).collect::<Vec<_>>(), {
            let mut b = vec![0xff; 9];
            b.push(0x02);
            b
        }] {
            let mut r = Cursor {
                bytes: &bytes,
                pos: 0,
                path,
            };
            assert!(r.varint("n").is_err());
        }
    }

    /// Headers of both versions, built and parsed back, over a file of dummy blocks.
    #[test]
    fn headers_of_both_versions_round_trip() {
        let meta = Metadata {
            game: "chess".into(),
            name: "KQvK".into(),
            params: vec![
                ("index".into(), "x".repeat(300)),
                ("k".into(), String::new()),
            ],
            index_size: 1000,
            sides: vec![
                SideCounts {
                    wins: 400,
                    draws: 0,
                    losses: 0,
                    longest_win: Some(19),
                    longest_loss: None,
                },
                SideCounts {
                    wins: 0,
                    draws: 50,
                    losses: 350,
                    longest_win: None,
                    longest_loss: Some(u32::MAX - 1),
                },
            ],
            holes: 200,
        };
        let block_lens = [5u64, 1, 70_000, 3];
        let block_sums = [1u64, 2, 3, u64::MAX];
        let mut sizes = Vec::new();
        for version in [1, 2, INDEXED_VERSION] {
            let header = build_header(&HeaderSpec {
                version,
                kind: FileKind::Distance,
                floors: false,
                omitted: None,
                // Two chunks of two blocks.
                index_chunk_shift: 1,
                order: None,
                encoding: Encoding::Distance32,
                block_values: 256,
                meta: &meta,
                payload_len: 10,
                stored_payload: b"zstd?",
                block_lens: &block_lens,
                block_sums: &block_sums,
            })
            .unwrap();
            sizes.push(header.len());
            let mut file = header.clone();
            file.resize(header.len() + block_lens.iter().sum::<u64>() as usize, 0);
            let parsed = Header::parse(Path::new("h"), &file).unwrap();
            assert_eq!(parsed.version, version);
            assert_eq!(parsed.meta, meta);
            assert_eq!(parsed.header_len, header.len() as u64);
            assert_eq!(parsed.block_values, 256);
            assert_eq!(parsed.encoding, Encoding::Distance32);
            assert_eq!(parsed.payload_len, 10);
            assert_eq!(&file[parsed.payload_range.clone()], b"zstd?");
            let mut start = header.len();
            for (b, (&len, &sum)) in block_lens.iter().zip(&block_sums).enumerate() {
                let end = start + len as usize;
                assert_eq!(
                    parsed.index.block(Path::new("h"), &file, b as u64).unwrap(),
                    (start..end, sum)
                );
                start = end;
            }
            // One byte more or less is a truncated file.
            file.push(0);
            assert!(Header::parse(Path::new("h"), &file).is_err());
            file.truncate(file.len() - 2);
            assert!(Header::parse(Path::new("h"), &file).is_err());
        }
        assert!(sizes[1] + 100 < sizes[0], "{sizes:?}");
        // Version 7 adds the chunk size, the range left out and two chunks' starts and checksums.
        assert_eq!(sizes[2], sizes[1] + 1 + 4 + 2 + 16 * 2 + 8, "{sizes:?}");
        // A wrong number of blocks for the index size is refused when writing.
        assert!(
            build_header(&HeaderSpec {
                version: 2,
                kind: FileKind::Distance,
                floors: false,
                omitted: None,
                encoding: Encoding::Distance32,
                block_values: 512,
                index_chunk_shift: INDEX_CHUNK_SHIFT,
                order: None,
                meta: &meta,
                payload_len: 0,
                stored_payload: b"",
                block_lens: &block_lens,
                block_sums: &block_sums,
            })
            .is_err()
        );
    }

    /// A file of one block (its single byte a stand-in) after a header built for a table of `index_size` wins in
    /// one ply, in one block: the version, kind, floors and indices left out as asked.
    fn one_block_file(
        index_size: u64,
        version: u32,
        kind: FileKind,
        floors: bool,
        omitted: Option<Range<u64>>,
    ) -> Result<Vec<u8>, String> {
        let meta = Metadata {
            game: "g".into(),
            name: "t".into(),
            params: Vec::new(),
            index_size,
            sides: vec![SideCounts {
                wins: index_size,
                longest_win: Some(1),
                ..SideCounts::default()
            }],
            holes: 0,
        };
        build_header(&HeaderSpec {
            version,
            kind,
            floors,
            omitted,
            encoding: match kind {
                FileKind::Wdl => Encoding::Wdl2,
                FileKind::Distance => Encoding::Distance8,
            },
            block_values: index_size.next_power_of_two() as u32,
            index_chunk_shift: INDEX_CHUNK_SHIFT,
            order: None,
            meta: &meta,
            payload_len: 0,
            stored_payload: b"",
            block_lens: &[1],
            block_sums: &[0],
        })
        .map(|mut file| {
            file.push(0);
            file
        })
    }

    /// A permuted block's order is the index's digits enumerated in the stored order, as a plain loop over them
    /// finds it; its description reads back, and one that does not describe the block is refused.
    #[test]
    fn permuted_blocks_enumerate_the_digits_in_their_order() {
        let radices = [3u64, 4, 5, 2];
        let order = [2u8, 0, 3, 1];
        let mut plain: Vec<usize> = Vec::new();
        for c in 0..5 {
            for a in 0..3 {
                for d in 0..2 {
                    for b in 0..4 {
                        plain.push(((a * 4 + b) * 5 + c) * 2 + d);
                    }
                }
            }
        }
        let mut found = vec![usize::MAX; 120];
        for_each_permuted(&radices, &order, |stored, k| found[stored] = k);
        assert_eq!(found, plain);
        let permutation = Permutation {
            radices: radices.to_vec(),
            order: order.to_vec(),
            packing: 4,
        };
        let bytes = permutation.bytes();
        assert_eq!(bytes.len(), 2 + 5 * 4);
        assert_eq!(
            Permutation::parse(&bytes, 120),
            Some((permutation.clone(), bytes.len()))
        );
        let refused = |edit: &dyn Fn(&mut Vec<u8>), values: usize| {
            let mut bytes = bytes.clone();
            edit(&mut bytes);
            Permutation::parse(&bytes, values).is_none()
        };
        assert!(
            refused(&|_| (), 119),
            "a product other than the block's values"
        );
        assert!(refused(&|b| b[0] = 1, 120), "one digit");
        assert!(refused(&|b| b[0] = 9, 120), "nine digits");
        assert!(
            refused(&|b| b[1..5].copy_from_slice(&0u32.to_le_bytes()), 0),
            "a radix of 0"
        );
        assert!(refused(&|b| b[18] = b[17], 120), "a digit named twice");
        assert!(refused(&|b| b[17] = 4, 120), "a digit that is not there");
        assert!(refused(&|b| b[21] = 2, 120), "a packing of 2");
        assert!(refused(&|b| b.truncate(21), 120), "no packing");
    }

    #[test]
    fn wdl_headers_say_whether_their_values_are_floors() {
        let header = |version: u32, kind: FileKind, floors: bool| {
            one_block_file(8, version, kind, floors, None)
        };
        for (version, floors) in [(2, false), (3, true), (4, false), (4, true), (6, true)] {
            let file = header(version, FileKind::Wdl, floors).unwrap();
            let parsed = Header::parse(Path::new("h"), &file).unwrap();
            assert_eq!((parsed.version, parsed.floors()), (version, floors));
            assert_eq!(parsed.kind, FileKind::Wdl);
        }
        // Versions 3 and 6 mean floors; version 2 cannot say them; versions 3, 4 and 6 hold WDL files only.
        assert!(header(3, FileKind::Wdl, false).is_err());
        assert!(header(6, FileKind::Wdl, false).is_err());
        assert!(header(6, FileKind::Distance, false).is_err());
        assert!(header(2, FileKind::Wdl, true).is_err());
        assert!(header(4, FileKind::Distance, false).is_err());
        // A distance file of version 4, or the floors' kind byte before version 4, is corrupt.
        let mut file = header(4, FileKind::Wdl, false).unwrap();
        file[16] = 2;
        file[17] = Encoding::Distance8.code() as u8;
        let at = Header::checksum_at(&file).unwrap();
        let sum = checksum(&file[..at]);
        file[at..at + 8].copy_from_slice(&sum.to_le_bytes());
        assert!(Header::parse(Path::new("h"), &file).is_err());
        let mut file = header(2, FileKind::Wdl, false).unwrap();
        file[16] = WDL_FLOORS_KIND;
        let sum = checksum(&file[..at]);
        file[at..at + 8].copy_from_slice(&sum.to_le_bytes());
        assert!(Header::parse(Path::new("h"), &file).is_err());
        // A file of version 6 whose kind byte says exact outcomes is corrupt too.
        let mut file = header(6, FileKind::Wdl, true).unwrap();
        file[16] = FileKind::Wdl.code() as u8;
        let sum = checksum(&file[..at]);
        file[at..at + 8].copy_from_slice(&sum.to_le_bytes());
        let err = Header::parse(Path::new("h"), &file).unwrap_err();
        assert!(err.to_string().contains("version 6"), "{err}");
    }

    #[test]
    fn distance_files_of_version_5_say_which_indices_they_leave_out() {
        let header = |version: u32, kind: FileKind, omitted: Option<Range<u64>>| {
            one_block_file(100, version, kind, false, omitted)
        };
        let file = header(5, FileKind::Distance, Some(40..100)).unwrap();
        let parsed = Header::parse(Path::new("h"), &file).unwrap();
        assert_eq!(parsed.version, 5);
        assert_eq!(parsed.omitted(), Some(40..100));
        assert!(parsed.stores(39) && !parsed.stores(40) && !parsed.stores(99));
        let plain = Header::parse(
            Path::new("h"),
            &header(2, FileKind::Distance, None).unwrap(),
        );
        assert_eq!(plain.unwrap().omitted(), None);
        // Only a distance file of version 5 leaves indices out, and only a range of them; it must leave some out.
        assert!(header(2, FileKind::Distance, Some(0..50)).is_err());
        assert!(header(5, FileKind::Wdl, Some(0..50)).is_err());
        assert!(header(5, FileKind::Distance, None).is_err());
        assert!(header(5, FileKind::Distance, Some(50..50)).is_err());
        assert!(header(5, FileKind::Distance, Some(50..101)).is_err());
        // A range that is empty or past the index size, forged with a good checksum, is corrupt.
        let forge = |end: u8| {
            let mut file = header(5, FileKind::Distance, Some(40..100)).unwrap();
            let at = file.windows(2).position(|w| w == [40, 100]).unwrap();
            file[at + 1] = end;
            let sum_at = Header::checksum_at(&file).unwrap();
            let sum = checksum(&file[..sum_at]);
            file[sum_at..sum_at + 8].copy_from_slice(&sum.to_le_bytes());
            Header::parse(Path::new("h"), &file)
        };
        assert!(forge(99).is_ok());
        assert!(
            forge(40)
                .unwrap_err()
                .to_string()
                .contains("omitted indices 40..40")
        );
        assert!(forge(101).is_err());
    }

    #[test]
    fn names_that_are_not_file_names_are_refused() {
        assert!(check_name("table", "KQvK").is_ok());
        for bad in ["", ".hidden", "a/b", "a\\b", "a\0b"] {
            assert!(check_name("table", bad).is_err(), "{bad:?}");
        }
    }
}
