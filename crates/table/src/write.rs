//! The table writer: see the crate documentation for the steps.

use std::fs::{self, File};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use rayon::prelude::*;

use crate::source::{ValueSource, for_each_code, for_each_run};
use retro_game::{Index, Outcome, Value};
use retro_probe::block::BlockShape;
use retro_probe::checksum::checksum;
use retro_probe::format::{
    self, Encoding, FileKind, HeaderSpec, Layout, MAX_BLOCK_VALUES, Metadata, SideCounts,
};
use retro_probe::order::ValueOrder;
use retro_probe::{ProbeError, TableFile};

/// What the writer needs to know about a table besides its values.
pub struct TableSpec<'a, S> {
    /// The game family, which is also the subdirectory: "graph", "chess", "dobutsu".
    pub game: &'a str,
    /// The table's name inside its game (the file stem).
    pub name: &'a str,
    /// Game parameters, stored as they are and shown by `retro info`.
    pub params: Vec<(String, String)>,
    /// How many sides to move the game has (1 for an impartial game, 2 for chess).
    pub sides: u8,
    /// The side to move of a position, `0..sides`. Called for holes too (whose WDL codes take their side's most
    /// frequent outcome), so it must answer any index.
    pub side_of: S,
    /// Number of indices, holes included.
    pub size: Index,
    /// Opaque bytes the game needs to interpret the table (a graph with its position names); stored compressed.
    pub payload: &'a [u8],
    /// For a game whose prober searches the exits (the moves into other tables) of a position: what that look finds
    /// of index `i` ([`Game::best_exit`](retro_game::Game::best_exit)): the best outcome its exits reach for its
    /// side to move, or a terminal position's own (a loss when there is neither). With it, the WDL file holds floors
    /// (format version 6): a position whose look reaches its outcome may store any outcome no better, and the writer
    /// picks what compresses best. `None` writes exact outcomes.
    pub exits: Option<&'a (dyn Fn(Index) -> Outcome + Sync)>,
    /// Row lengths of the index that the game knows of (for chess, the numbers of placements of the last men: a
    /// transposed block with that many columns brings those men in front of the others). The writer tries them as
    /// column counts of transposed WDL blocks, beside the periods it finds itself. Empty when the game knows none.
    pub index_periods: &'a [u64],
    /// The radices of the index's digits, most significant first, if the game knows them (for chess: side to move,
    /// king pair, one digit per group of men). A WDL block of floors that holds the whole table is also tried with
    /// its digits in every other order ([`Layout::Permuted`]). Empty when the game knows none.
    pub index_digits: &'a [u64],
    /// Indices whose values the distance file leaves out (format version 5): for a chess table, the side to move
    /// whose values a prober finds by searching their moves into the other. Their codes are free, and each
    /// continues the run before it. `None` stores every index.
    pub distance_omitted: Option<std::ops::Range<Index>>,
    pub options: WriteOptions,
}

/// Block sizes, compression levels and the format version. The defaults suit tables from a few positions to a
/// billion and keep writing a small part of building them: the WDL file, which ships with engines, gets a strong
/// level; the distance file a fast one, in large blocks for tables of up to `large_table` indices (every chess table
/// up to 4 men) and small ones beyond. [`WriteOptions::compact`] trades writing time for the smallest files, for
/// tables that ship.
#[derive(Clone, Copy, Debug)]
pub struct WriteOptions {
    /// Values per block in the WDL file (a power of two; 2^20 values are 256 KiB decompressed). Larger blocks
    /// compress better (KRvKR: 83.6 KB with 2^18, 69.8 KB with 2^20, 63.9 KB with 2^22) at the cost of slower
    /// cold probes.
    pub wdl_block_values: u32,
    /// Values per block in the distance file of a table of at most `large_table` indices (a power of two).
    pub distance_block_values: u32,
    /// zstd level of WDL blocks: high, as the WDL file is what ships with engines.
    pub wdl_level: i32,
    /// zstd level of the WDL blocks that compress least ([`is_heavy`]: a quick compression keeps more than 1/128 of
    /// their packed codes), instead of `wdl_level`: where a file's bytes are. A table whose blocks all compress well
    /// pays no time for it (KQRvKR's, 2.3 KB a block of 2^22 values, keep level 17 and their bytes); KBNvKQ's WDL
    /// file, all heavy blocks, is 1,143,341 bytes at 19 against 1,239,540 at 17.
    pub heavy_wdl_level: Option<i32>,
    /// zstd level of the distance blocks of a table of at most `large_table` indices.
    pub distance_level: i32,
    /// The number of indices above which a table is large: its distance file is written with
    /// `large_distance_block_values` and `large_distance_level` instead.
    pub large_table: u64,
    pub large_distance_block_values: u32,
    pub large_distance_level: i32,
    /// Values per WDL block of a large table (more than `large_table` indices), if not `wdl_block_values`: larger
    /// blocks give zstd more of the table to match against, at the cost of more to decompress for a probe whose block
    /// is not cached. `--compact` takes 2^24 (KBBvKR's WDL file: 608,172 bytes in blocks of 2^22 values, 567,605 in
    /// blocks of 2^24, against Syzygy's 574,864; KNNNvK's 101,305 and 80,025 against 85,712; KBBvKR's blocks of 2^24
    /// values decompress in 0.54 ms, of 2^22 in 0.10 ms).
    pub large_wdl_block_values: Option<u32>,
    /// Whether the blocks of tables that are not large are also tried transposed ([`Layout::Transposed`]): smaller
    /// for some tables, at the cost of a second compression of the block. A WDL file with a transposed block is
    /// written in version 4 (KNvKP's WDL file: 143.5 KB plain, 133.3 KB with two of its three blocks transposed).
    pub try_transposed: bool,
    /// Whether the WDL blocks are tried transposed whatever `try_transposed` and the table's size (a large table's
    /// distance blocks never are: too slow). KBNvKQ's WDL file: 2,284,394 bytes plain, 1,886,617 with; KBBvKR's
    /// 837,868 and 721,840, written in 37 s instead of 17 s.
    pub transpose_wdl: bool,
    /// WDL blocks of at most this many values are also tried one value per byte ([`Layout::Bytes`]), which wins for
    /// small tables (KQvK, KRvK) and for a few large ones (KBBvK in one block of 2^22 values: 67.7 KB against 97.1 KB
    /// packed) and loses for most (KPvK, KRvKR): a small block is cheap to compress twice, a large one is not.
    pub bytes_layout_max_values: u32,
    /// WDL blocks are compressed a second time with zstd's shortest match set to this many bytes (its level 22 looks
    /// for matches from three bytes), and the smaller frame kept; both decode the same way. The compact 3- and 4-man
    /// WDL files: 799,681 → 798,982 bytes (KRvKB 186 less, KQvKN 13, now 10,055 against Syzygy's 10,064; KBBvK
    /// would have grown by 170 without the choice), written in 2 min 10 s instead of 2 min 3 s.
    pub wdl_min_match: Option<u32>,
    /// zstd level of the game payload (a graph's payload can be larger than its values).
    pub payload_level: i32,
    /// Files of more blocks than 2^`index_chunk_shift` are written in version 7, their block index in chunks of that
    /// many blocks, each checked when first read rather than all at open: a first probe of KQRvKR (13,440 distance
    /// blocks) on a new handle took 78 us with the whole index checked at open.
    pub index_chunk_shift: u8,
    /// The layout to write: 2, or 1 for readers that know nothing newer. A WDL file of floors (see
    /// [`TableSpec::exits`]) takes version 6, and a WDL file of exact outcomes with a transposed block version 4,
    /// both version 2's layout; version 1 has neither.
    pub version: u32,
    /// In which order of the index's digits ([`TableSpec::index_digits`]) a WDL file of several blocks stores its
    /// values (format version 8 for another than the index's own).
    pub wdl_order: WdlOrder,
}

/// The order of a WDL file's values ([`WriteOptions::wdl_order`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WdlOrder {
    /// The index's own order.
    Index,
    /// The order whose samples compress smallest, among a few: the first digit last (for chess, the side to move),
    /// and with it each other digit first.
    Search,
    /// The digits in this order (the first `index_digits.len()` entries), most significant first.
    Given([u8; format::MAX_DIGITS]),
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            wdl_block_values: 1 << 20,
            // KRvKP's distance file: 2.89 MB with 2^16 values per block at level 12, 2.27 MB with 2^20 at level 19
            // (but 5 to 10 times the compression time, which KQRvKR's 220 M indices could not afford), 2.16 MB with
            // transposed blocks, 2.01 MB with blocks of 2^22 (4 MiB of u8 codes to decompress for a cold probe of
            // the distance file, which serves the root and analysis, not the search).
            distance_block_values: 1 << 22,
            wdl_level: 19,
            heavy_wdl_level: None,
            // KQvKP's distance file: 2.21 MB at level 12, 1.71 MB at level 19 (with 2^22 values per block), which
            // took 3.5 times as long to write as the whole table took to solve.
            distance_level: 12,
            large_table: 1 << 24,
            // A probe whose block is not cached decompresses the whole block: KQRvKR's takes 60 us with blocks
            // of 2^16 values, 20 us with 2^14 and 7 us with 2^12, for a distance file 4.1% and 9.7% larger
            // (47.7, 49.7 and 52.4 MB at level 1; KRNvKN 73.2, 75.6 and 78.4 MB). Opening a table reads its block
            // index, which grows the other way (a first probe on a new handle: 99 us with 2^14, 347 us with 2^12).
            large_distance_block_values: 1 << 14,
            // KQRvKR's distance file (220 M indices, blocks of 2^16 values): 47.7 MB at level 1, 43.7 MB at level 9,
            // 43.1 MB at level 12, compressed in 0.5, 3.8 and 10.4 s of one core. Levels 2 to 5 are both larger and
            // slower than 1.
            large_distance_level: 1,
            large_wdl_block_values: None,
            try_transposed: false,
            transpose_wdl: false,
            bytes_layout_max_values: 1 << 18,
            wdl_min_match: None,
            payload_level: 3,
            index_chunk_shift: format::INDEX_CHUNK_SHIFT,
            version: LAYOUT_VERSION,
            wdl_order: WdlOrder::Search,
        }
    }
}

impl WriteOptions {
    /// The smallest files this writer makes, for tables that ship (`tablebases/`): WDL blocks at zstd's highest
    /// level, 22 (the 3- and 4-man WDL files 4.5% smaller than at 19: 837,864 → 800,241 bytes, KRRvK 17% smaller,
    /// for 1.6 times the time of writing the set), distance blocks at the default WDL level, 19, and tried
    /// transposed, and large tables' distance blocks of 2^16 values at level 9 (beyond it, 8% smaller than level 1,
    /// each further level costs much time for little: 1.3% more for 2.7 times the time at 12), and their WDL blocks
    /// tried transposed and of 2^24 values (the most a reader takes).
    /// Writing a 4-man chess table takes several times as long as solving it.
    pub fn compact() -> WriteOptions {
        let default = WriteOptions::default();
        WriteOptions {
            wdl_level: 22,
            heavy_wdl_level: None,
            distance_level: default.wdl_level,
            large_distance_level: 9,
            // The smallest files, at the cost of four times the decompression for a probe whose block is not
            // cached (see the default).
            large_distance_block_values: 1 << 16,
            large_wdl_block_values: Some(MAX_BLOCK_VALUES),
            try_transposed: true,
            transpose_wdl: true,
            bytes_layout_max_values: MAX_BLOCK_VALUES,
            wdl_min_match: Some(6),
            ..default
        }
    }

    /// The most memory the writer is expected to take for a table of `size` indices written by `threads` threads,
    /// on top of the values it is given: per thread, the zstd contexts of both files (each file keeps one set a
    /// thread, sized for its blocks as [`zstd_context_bytes`] measures them) and the larger of what compressing a
    /// block of either takes besides (the block's codes, their layouts, the compressed results and the stored block
    /// decoded to check it); plus the compressed blocks of a batch waiting to be written in order, for both files at
    /// once. Distance codes are counted at four bytes, the widest, since the longest distance is not known before
    /// the table is solved.
    /// The bytes written do not depend on `threads`, so a build short of memory can write with fewer.
    pub fn peak_bytes(&self, size: Index, threads: usize) -> u64 {
        let threads = threads.max(1) as u64;
        let (distance_values, distance_level) = self.distance_settings(size);
        let wdl_values = u64::from(self.wdl_block_values_for(size)).min(size.max(1));
        let distance_values = u64::from(distance_values).min(size.max(1));
        // WDL: one code byte a value, packed four to a byte; both layouts compressed for small blocks. With floors,
        // the own codes and the floored codes besides (a byte a value each), and both packed for a quick compression.
        let wdl_raw = wdl_values;
        let bytes_layout = wdl_values <= u64::from(self.bytes_layout_max_values);
        let transposing = self.try_transposed && size <= self.large_table;
        let transposing_wdl = self.transpose_wdl || transposing;
        let wdl_contexts = zstd_context_bytes(
            self.wdl_level,
            if bytes_layout || transposing_wdl {
                wdl_raw
            } else {
                wdl_raw / 4
            },
        ) * if self.wdl_min_match.is_some() { 2 } else { 1 }
            + self
                .heavy_wdl_level
                .map_or(0, |level| zstd_context_bytes(level, wdl_raw))
            + zstd_context_bytes(PROXY_LEVEL, wdl_raw);
        let wdl_buffers = wdl_raw * 3
            + wdl_raw / 4 * 4
            + if bytes_layout { wdl_raw * 2 } else { 0 }
            // Transposed candidates: the order (four bytes a value), the holes marked, the transposed own codes,
            // their exact and floored fills, the two leaders kept, and the compressed blocks.
            + if transposing_wdl { wdl_raw * 12 } else { 0 }
            // The check: the stored block decompressed (one code a byte at most) and packed.
            + wdl_raw
            + wdl_raw / 4
            // Each position's side to move, for the fill by the most frequent outcome of each side.
            + wdl_raw;
        let distance_raw = distance_values * 4;
        let distance_contexts = zstd_context_bytes(distance_level, distance_raw)
            + zstd_context_bytes(PROXY_LEVEL, distance_raw);
        // The codes and the compressed block; transposed candidates and their quick compressions besides; the
        // check's decompressed block, and its codes put back in order if it was transposed.
        let distance_buffers = distance_raw * if transposing { 7 } else { 3 };
        // Each file keeps its compressors from block to block, one set a thread, while a thread works on a block of
        // either file: both files' contexts, and the buffers of one block.
        let per_thread = wdl_contexts + distance_contexts + wdl_buffers.max(distance_buffers);
        let waiting = batch_blocks(wdl_raw / 4, threads as usize) * wdl_raw / 4
            + batch_blocks(distance_raw, threads as usize) * distance_raw;
        per_thread * threads + waiting
    }

    /// Values per block of the WDL file of a table of `size` indices.
    pub fn wdl_block_values_for(&self, size: Index) -> u32 {
        match self.large_wdl_block_values {
            Some(values) if size > self.large_table => values,
            _ => self.wdl_block_values,
        }
    }

    /// Values per block and zstd level of the distance file of a table of `size` indices.
    fn distance_settings(&self, size: Index) -> (u32, i32) {
        if size > self.large_table {
            (self.large_distance_block_values, self.large_distance_level)
        } else {
            (self.distance_block_values, self.distance_level)
        }
    }
}

/// Whether blocks of `values` values can be written: a power of two up to [`MAX_BLOCK_VALUES`], the largest a
/// header can say.
pub fn block_values_allowed(values: u32) -> bool {
    values.is_power_of_two() && values <= MAX_BLOCK_VALUES
}

/// What was written.
#[derive(Clone, Debug)]
pub struct Written {
    pub wdl_path: PathBuf,
    pub distance_path: PathBuf,
    /// File sizes in bytes.
    pub wdl_bytes: u64,
    pub distance_bytes: u64,
    pub meta: Metadata,
    pub distance_encoding: Encoding,
}

/// Why a table could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{}: disk full while writing the table (no file was left under a final name)", path.display())]
    DiskFull { path: PathBuf },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("cannot write table: {0}")]
    Spec(String),
    #[error("{}: read-back check failed: {what}", path.display())]
    ReadBack { path: PathBuf, what: String },
    #[error("read-back check failed: {0}")]
    Probe(#[from] ProbeError),
}

impl WriteError {
    fn io(path: &Path, source: io::Error) -> WriteError {
        // ENOSPC and EDQUOT: no room left, for the disk or for this user.
        if matches!(source.raw_os_error(), Some(28) | Some(122))
            || source.kind() == io::ErrorKind::StorageFull
        {
            WriteError::DiskFull {
                path: path.to_path_buf(),
            }
        } else {
            WriteError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    }
}

/// Writes the two files of a table into `dir/GAME/`, checked and renamed into place. `values(i)` is the value of
/// index `i` from the point of view of its player to move, `None` for a hole; it is called several times per index,
/// from many threads, so it should be a cheap lookup.
pub fn write_table<S, V>(
    dir: &Path,
    spec: &TableSpec<'_, S>,
    values: V,
) -> Result<Written, WriteError>
where
    S: Fn(Index) -> u8 + Sync,
    V: ValueSource,
{
    write_table_to(dir, spec, &values, &|file| Ok(Box::new(file)))
}

/// Where a file's bytes go: a real file, or (in tests) a file that fails like a full disk.
pub(crate) trait Sink: Write + Seek + Send {
    fn sync(&mut self) -> io::Result<()>;
}

impl Sink for File {
    fn sync(&mut self) -> io::Result<()> {
        self.sync_all()
    }
}

type MakeSink<'a> = &'a (dyn Fn(File) -> io::Result<Box<dyn Sink>> + Sync);

/// Removes the temporary files of a write that did not complete.
struct TempFiles(Vec<PathBuf>);

impl Drop for TempFiles {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = fs::remove_file(path);
        }
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

pub(crate) fn write_table_to<S, V>(
    dir: &Path,
    spec: &TableSpec<'_, S>,
    values: &V,
    make_sink: MakeSink<'_>,
) -> Result<Written, WriteError>
where
    S: Fn(Index) -> u8 + Sync,
    V: ValueSource,
{
    format::check_name("game", spec.game).map_err(WriteError::Spec)?;
    format::check_name("table", spec.name).map_err(WriteError::Spec)?;
    let options = spec.options;
    if !(1..=LAYOUT_VERSION).contains(&options.version) {
        return Err(WriteError::Spec(format!(
            "cannot write format version {} (this writer writes 1 or {LAYOUT_VERSION})",
            options.version,
        )));
    }
    if options.index_chunk_shift > format::MAX_INDEX_CHUNK_SHIFT {
        return Err(WriteError::Spec(format!(
            "index chunks of 2^{} blocks (at most 2^{})",
            options.index_chunk_shift,
            format::MAX_INDEX_CHUNK_SHIFT
        )));
    }
    // Floors need version 2's layout; version 1 stores exact outcomes.
    let exits = spec.exits.filter(|_| options.version >= 2);
    if let Some(omitted) = &spec.distance_omitted
        && (options.version < 2 || omitted.start >= omitted.end || omitted.end > spec.size)
    {
        return Err(WriteError::Spec(format!(
            "indices {omitted:?} cannot be left out of a distance file of version {} and {} indices",
            options.version, spec.size
        )));
    }
    let (distance_block_values, distance_level) = options.distance_settings(spec.size);
    let wdl_block_values = options.wdl_block_values_for(spec.size);
    for block_values in [wdl_block_values, distance_block_values] {
        if !block_values_allowed(block_values) {
            return Err(WriteError::Spec(format!(
                "{block_values} values per block: must be a power of two up to {MAX_BLOCK_VALUES}"
            )));
        }
    }
    if spec.sides == 0 {
        return Err(WriteError::Spec(
            "a table needs at least one side to move".into(),
        ));
    }

    let (meta, parity) = count(spec, values)?;
    let total = meta.total();
    let max_code = |code: fn(Option<Value>) -> u64| {
        [
            total.longest_win.map(|d| code(Some(Value::win(d)))),
            total.longest_loss.map(|d| code(Some(Value::loss(d)))),
            Some(1),
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(1)
    };
    let plain_code = max_code(format::distance_code);
    let plain = Encoding::distance_for(plain_code).ok_or_else(|| {
        WriteError::Spec(format!("distances too long to store (code {plain_code})"))
    })?;
    // Codes by parity only where they take fewer bytes: at the same width the plain codes compress as well (the
    // distance codes of KRvKN and KQvKR, by zstd: within 0.1%), and the files stay as they were.
    let distance_encoding = if parity && options.version >= 2 {
        Encoding::parity_distance_for(max_code(format::parity_code))
            .filter(|by_parity| by_parity.code_width() < plain.code_width())
            .unwrap_or(plain)
    } else {
        plain
    };

    let payload = if spec.payload.is_empty() {
        Vec::new()
    } else {
        zstd::bulk::compress(spec.payload, options.payload_level)
            .map_err(|e| WriteError::Spec(format!("cannot compress the payload: {e}")))?
    };

    let game_dir = dir.join(spec.game);
    fs::create_dir_all(&game_dir).map_err(|e| WriteError::io(&game_dir, e))?;
    let final_path = |kind| format::table_path(dir, spec.game, spec.name, kind);
    let temp_path = |kind: FileKind| {
        game_dir.join(format!(
            ".{}.{}.{}.{}.tmp",
            spec.name,
            kind.extension(),
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ))
    };
    let files = [
        (
            FileKind::Wdl,
            Encoding::Wdl2,
            wdl_block_values,
            options.wdl_level,
        ),
        (
            FileKind::Distance,
            distance_encoding,
            distance_block_values,
            distance_level,
        ),
    ];
    let wdl_order = match options.wdl_order {
        _ if options.version < 2 => None,
        WdlOrder::Index => None,
        WdlOrder::Search => {
            wdl_order(spec, values, exits, wdl_block_values).map_err(zstd_failed)?
        }
        WdlOrder::Given(digits) => {
            let d = spec.index_digits.len();
            let order = ValueOrder::new(spec.index_digits, &digits[..d.min(digits.len())])
                .filter(|order| order.size() == spec.size)
                .ok_or_else(|| {
                    WriteError::Spec(format!(
                        "the order {:?} is no order of the index's digits {:?}",
                        &digits[..d.min(digits.len())],
                        spec.index_digits
                    ))
                })?;
            (!order.is_identity()).then_some(order)
        }
    };
    let mut temps = TempFiles(Vec::new());
    let writers: Vec<FileWriter<'_>> = files
        .into_iter()
        .map(|(kind, encoding, block_values, level)| {
            let path = temp_path(kind);
            temps.0.push(path.clone());
            // The payload goes into the distance file only: the WDL file stays small, and the tools that need the
            // payload (probe's move lists, verify) read the distance file anyway.
            let (payload_len, stored_payload) = match kind {
                FileKind::Wdl => (0, &[][..]),
                FileKind::Distance => (spec.payload.len() as u64, &payload[..]),
            };
            let floors = kind == FileKind::Wdl && exits.is_some();
            let omitted = match kind {
                FileKind::Wdl => None,
                FileKind::Distance => spec.distance_omitted.clone(),
            };
            FileWriter {
                path,
                version: if floors {
                    format::TERMINAL_FLOORS_VERSION
                } else if omitted.is_some() {
                    format::OMITTING_VERSION
                } else {
                    options.version
                },
                omitted,
                exits: if floors { exits } else { None },
                index_periods: spec.index_periods,
                index_digits: spec.index_digits,
                order: match kind {
                    FileKind::Wdl => wdl_order.clone(),
                    FileKind::Distance => None,
                },
                try_transposed: options.version >= 2
                    && ((options.try_transposed && spec.size <= options.large_table)
                        || (kind == FileKind::Wdl && options.transpose_wdl)),
                bytes_layout_max_values: options.bytes_layout_max_values,
                encoding,
                block_values,
                level,
                heavy_level: match kind {
                    FileKind::Wdl => options.heavy_wdl_level,
                    FileKind::Distance => None,
                },
                min_match: options.wdl_min_match,
                index_chunk_shift: options.index_chunk_shift,
                meta: &meta,
                payload_len,
                stored_payload,
            }
        })
        .collect();
    // Both files at once: each writes in batches of blocks, and a thread left without work at the end of one file's
    // batch takes blocks of the other's (the WDL file's few large blocks at a high level would otherwise leave a
    // thread idle at every batch's end).
    let write_and_check = |file: &FileWriter<'_>| -> Result<u64, WriteError> {
        let size = file.write(values, &spec.side_of, make_sink)?;
        file.read_back()?;
        Ok(size)
    };
    let (wdl_bytes, distance_bytes) = rayon::join(
        || write_and_check(&writers[0]),
        || write_and_check(&writers[1]),
    );
    let sizes = [wdl_bytes?, distance_bytes?];
    // Distance file first: a table is only found through its WDL file's name... and both are checked to match when
    // opened, so a crash between the two renames leaves at worst a lone distance file, never a wrong pair.
    for (i, kind) in [FileKind::Distance, FileKind::Wdl].into_iter().enumerate() {
        let from = &temps.0[1 - i];
        let to = final_path(kind);
        fs::rename(from, &to).map_err(|e| WriteError::io(&to, e))?;
    }
    temps.0.clear();
    // Make the renames durable.
    File::open(&game_dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| WriteError::io(&game_dir, e))?;
    Ok(Written {
        wdl_path: final_path(FileKind::Wdl),
        distance_path: final_path(FileKind::Distance),
        wdl_bytes: sizes[0],
        distance_bytes: sizes[1],
        meta,
        distance_encoding,
    })
}

/// Counts per side to move and holes, in parallel over chunks of the index space, and whether every value
/// [`has parity`](format::has_parity).
fn count<S, V>(spec: &TableSpec<'_, S>, values: &V) -> Result<(Metadata, bool), WriteError>
where
    S: Fn(Index) -> u8 + Sync,
    V: ValueSource,
{
    const CHUNK: u64 = 1 << 16;
    let sides = usize::from(spec.sides);
    let chunks = spec.size.div_ceil(CHUNK);
    let partial = (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            // One slot per side, and one for the indices of a side the table does not have (an error unless all are
            // holes). Each run of indices of one side is counted by one loop over its codes, whose counts stay in
            // registers: counted in its side's slot, each index would wait for the last one's store.
            let wrong_slot = sides;
            let mut counts = vec![CodeCounts::default(); sides + 1];
            let mut parity = true;
            let range = chunk * CHUNK..((chunk + 1) * CHUNK).min(spec.size);
            for_each_run(values, range.clone(), |first, codes| {
                parity &= codes
                    .iter()
                    .fold(true, |parity, &code| parity & format::code_has_parity(code));
                let side_at = |k: usize| usize::from((spec.side_of)(first + k as Index));
                let mut start = 0;
                while start < codes.len() {
                    let side = side_at(start);
                    let end = (start + 1..codes.len())
                        .find(|&k| side_at(k) != side)
                        .unwrap_or(codes.len());
                    let slot = if side < sides { side } else { wrong_slot };
                    counts[slot].merge(&CodeCounts::of(&codes[start..end]));
                    start = end;
                }
            });
            if counts[wrong_slot].positions() > 0 {
                // Found again, for the message.
                let index = range
                    .clone()
                    .find(|&i| values.value(i).is_some() && usize::from((spec.side_of)(i)) >= sides)
                    .expect("a position of a side counted as none");
                return Err(WriteError::Spec(format!(
                    "side_of({index}) = {}, but the table has {sides} sides",
                    (spec.side_of)(index)
                )));
            }
            let holes: u64 = counts.iter().map(|c| c.holes).sum();
            let counts: Vec<SideCounts> = counts[..sides]
                .iter()
                .map(CodeCounts::side_counts)
                .collect();
            Ok((counts, holes, parity))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut meta = Metadata {
        game: spec.game.to_owned(),
        name: spec.name.to_owned(),
        params: spec.params.clone(),
        index_size: spec.size,
        sides: vec![SideCounts::default(); sides],
        holes: 0,
    };
    let mut parity = true;
    for (counts, holes, part_parity) in partial {
        for (total, part) in meta.sides.iter_mut().zip(&counts) {
            total.merge(part);
        }
        meta.holes += holes;
        parity &= part_parity;
    }
    Ok((meta, parity))
}

/// The code of a hole ([`Value::code`]).
const HOLE_CODE: u64 = 0;

/// The counts of one side's positions as [`count`] gathers them, from their values' codes ([`Value::code`]): each
/// code added by arithmetic, the longest win and loss kept as their codes, since a branch on the outcome mispredicts
/// on tables of mixed outcomes.
#[derive(Clone, Copy, Default)]
struct CodeCounts {
    holes: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    /// The largest code of a win, and of a loss (0: none).
    win_code: u64,
    loss_code: u64,
}

impl CodeCounts {
    /// The positions counted (not the holes).
    fn positions(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// The counts of the indices of codes `codes`.
    fn of(codes: &[u64]) -> CodeCounts {
        let mut counts = CodeCounts::default();
        for &code in codes {
            counts.add(code);
        }
        counts
    }

    /// Counts the index of code `code`.
    #[inline]
    fn add(&mut self, code: u64) {
        // `&`, not `&&`: no branch.
        let resolved = code >= 2;
        let win = resolved & (code & 1 == 0);
        let loss = resolved & (code & 1 == 1);
        self.holes += u64::from(code == HOLE_CODE);
        self.draws += u64::from(code == 1);
        self.wins += u64::from(win);
        self.losses += u64::from(loss);
        self.win_code = self.win_code.max(if win { code } else { 0 });
        self.loss_code = self.loss_code.max(if loss { code } else { 0 });
    }

    fn merge(&mut self, other: &CodeCounts) {
        self.holes += other.holes;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.win_code = self.win_code.max(other.win_code);
        self.loss_code = self.loss_code.max(other.loss_code);
    }

    fn side_counts(&self) -> SideCounts {
        SideCounts {
            wins: self.wins,
            draws: self.draws,
            losses: self.losses,
            longest_win: (self.win_code != 0).then(|| ((self.win_code - 2) / 2) as u32),
            longest_loss: (self.loss_code != 0).then(|| ((self.loss_code - 3) / 2) as u32),
        }
    }
}

/// A zstd error met while writing a file, as the writer reports it.
fn zstd_failed(e: io::Error) -> WriteError {
    WriteError::Spec(format!("zstd failed: {e}"))
}

/// Windows of consecutive stored positions that [`wdl_order`] compresses per candidate, each of a block's values:
/// the gain of an order shows at the scale of a block (KBNvKB with Black's bishop first and the side to move last:
/// 58% larger than the index's order with its last two digits swapped in windows of 2^18 values, 16% smaller in
/// windows of 2^22).
const ORDER_SAMPLES: u64 = 2;

/// The order in which a WDL file stores its values, if not the index's: the index's digits
/// ([`TableSpec::index_digits`]) in the order whose samples ([`ORDER_SAMPLES`] windows of a block's values, filled as
/// [`majority_codes`] fills them) a quick compression finds smallest, the index's own order first (kept on ties).
/// The orders tried put the first digit last (for chess, the side to move), and with it each other digit first:
/// chess tables gain most with a man of the weaker side first and the side to move last (KBNvKB's WDL file, 1,080,224
/// bytes in index order, 711,184 with Black's bishop first and the side to move last; blocks of 2^22 values at level
/// 17). Only for a table of several WDL blocks whose digits the game gives (a table of one block may permute its
/// block instead, [`Layout::Permuted`]).
fn wdl_order<S, V>(
    spec: &TableSpec<'_, S>,
    values: &V,
    exits: Option<&(dyn Fn(Index) -> Outcome + Sync)>,
    block_values: u32,
) -> io::Result<Option<ValueOrder>>
where
    S: Fn(Index) -> u8 + Sync,
    V: ValueSource,
{
    let radices = spec.index_digits;
    let d = radices.len();
    let identity: Vec<u8> = (0..d as u8).collect();
    let Some(own_order) = ValueOrder::new(radices, &identity) else {
        return Ok(None);
    };
    let window = u64::from(block_values);
    if own_order.size() != spec.size || spec.size < ORDER_SAMPLES * window {
        return Ok(None);
    }
    let first_last: Vec<u8> = (1..d as u8).chain([0]).collect();
    let mut candidates: Vec<Vec<u8>> = vec![identity.clone(), first_last];
    for front in 1..d as u8 {
        let order: Vec<u8> = std::iter::once(front)
            .chain((1..d as u8).filter(|&x| x != front))
            .chain([0])
            .collect();
        if !candidates.contains(&order) {
            candidates.push(order);
        }
    }
    let size = spec.size;
    let side_of = &spec.side_of;
    let sample_size = |digits: &[u8], window: u64| -> io::Result<usize> {
        let order = ValueOrder::new(radices, digits).expect("a permutation of the digits");
        let mut total = 0;
        for w in 0..ORDER_SAMPLES {
            let start = (2 * w + 1) * (size - window) / (2 * ORDER_SAMPLES);
            let stored = start..start + window;
            let (own, sides) = own_and_sides(stored.clone(), Some(&order), values, side_of);
            let codes = majority_codes(&own, &sides, |k| {
                exits.is_some_and(|best_exit| {
                    let outcome = format::wdl_outcome(own[k]).expect("a position's code");
                    best_exit(order.index_at(stored.start + k as Index)) == outcome
                })
            });
            total += zstd::bulk::compress(&pack_wdl(&codes), PROXY_LEVEL)?.len();
        }
        Ok(total)
    };
    // A file whose blocks compress to a few kilobytes has little to gain, and gathering other orders' samples reads
    // the values out of order: KQRvKR's (2.3 KB a block) is not searched. A small sample tells it first: samples of
    // larger blocks compress no worse, and KQRvKR's blocks of 2^24 values took 0.25 s of one core to sample whole.
    let light = |sample: usize, window: u64| {
        (sample as u64) < ORDER_SAMPLES * window / 4 / ORDER_WORTH_SEARCHING
    };
    let glance = window.min(ORDER_GLANCE_VALUES);
    if glance < window && light(sample_size(&identity, glance)?, glance) {
        return Ok(None);
    }
    let own_size = sample_size(&identity, window)?;
    if light(own_size, window) {
        return Ok(None);
    }
    let sizes = candidates[1..]
        .par_iter()
        .map(|digits| sample_size(digits, window))
        .collect::<io::Result<Vec<usize>>>()?;
    // The first of the smallest, and the index's own order unless another is smaller.
    let best = (0..sizes.len()).min_by_key(|&c| (sizes[c], c));
    Ok(best
        .filter(|&c| sizes[c] < own_size)
        .map(|c| ValueOrder::new(radices, &candidates[c + 1]).expect("a permutation")))
}

/// The values of each window of the sample that first tells [`wdl_order`] whether a file of larger blocks is worth
/// searching.
const ORDER_GLANCE_VALUES: u64 = 1 << 22;

/// [`wdl_order`] tries no other order for a file whose sample compresses this many times or more (blocks of 2^22
/// values, a megabyte packed: under 8 KB).
const ORDER_WORTH_SEARCHING: u64 = 128;

/// One file to write.
struct FileWriter<'a> {
    path: PathBuf,
    version: u32,
    /// The exits' best outcome by index, for a WDL file of floors.
    exits: Option<&'a (dyn Fn(Index) -> Outcome + Sync)>,
    /// The indices a distance file leaves out ([`TableSpec::distance_omitted`]).
    omitted: Option<std::ops::Range<Index>>,
    /// The index's row lengths the game knows of ([`TableSpec::index_periods`]), tried for transposed WDL blocks.
    index_periods: &'a [u64],
    /// The radices of the index's digits ([`TableSpec::index_digits`]), tried for permuted WDL blocks.
    index_digits: &'a [u64],
    /// The order in which a WDL file stores its values (format version 8), if not the index's.
    order: Option<ValueOrder>,
    /// Whether blocks are also tried transposed (version 2; with [`WriteOptions::try_transposed`], the blocks of
    /// tables that are not large, and with [`WriteOptions::transpose_wdl`] every WDL block: it costs more
    /// compressions of some blocks).
    try_transposed: bool,
    /// WDL blocks of at most this many values are also tried one value per byte.
    bytes_layout_max_values: u32,
    encoding: Encoding,
    block_values: u32,
    level: i32,
    /// The level of a WDL file's heavy blocks ([`WriteOptions::heavy_wdl_level`]).
    heavy_level: Option<i32>,
    /// A second shortest match for WDL blocks ([`WriteOptions::wdl_min_match`]).
    min_match: Option<u32>,
    /// [`WriteOptions::index_chunk_shift`].
    index_chunk_shift: u8,
    meta: &'a Metadata,
    payload_len: u64,
    stored_payload: &'a [u8],
}

impl FileWriter<'_> {
    fn block_count(&self) -> u64 {
        self.meta.index_size.div_ceil(u64::from(self.block_values))
    }

    fn block_range(&self, block: u64) -> std::ops::Range<Index> {
        let start = block * u64::from(self.block_values);
        start..(start + u64::from(self.block_values)).min(self.meta.index_size)
    }

    /// The header; `transposed_wdl` when a block of this WDL file is transposed, which takes version 4 for a file of
    /// exact outcomes (a file of floors has version 6, which allows it). A file of more blocks than an index chunk
    /// holds takes version 7, which allows everything.
    fn header(
        &self,
        block_lens: &[u64],
        block_sums: &[u64],
        transposed_wdl: bool,
    ) -> Result<Vec<u8>, WriteError> {
        format::build_header(&HeaderSpec {
            version: if self.order.is_some() {
                format::ORDERED_VERSION
            } else if self.version >= 2 && self.block_count() > 1 << self.index_chunk_shift {
                format::INDEXED_VERSION
            } else if transposed_wdl && self.exits.is_none() {
                format::TRANSPOSED_WDL_VERSION
            } else {
                self.version
            },
            kind: self.encoding.kind(),
            floors: self.exits.is_some(),
            omitted: self.omitted.clone(),
            index_chunk_shift: self.index_chunk_shift,
            order: self.order.as_ref(),
            encoding: self.encoding,
            block_values: self.block_values,
            meta: self.meta,
            payload_len: self.payload_len,
            stored_payload: self.stored_payload,
            block_lens,
            block_sums,
        })
        .map_err(WriteError::Spec)
    }

    /// Whether the position at index `i`, of outcome `value`, may store a worse outcome: in a file of floors, when
    /// its exits reach `value` or it is terminal (the prober takes the better of the stored outcome and what its
    /// look finds).
    fn may_store_below(&self, i: Index, value: Outcome) -> bool {
        self.exits.is_some_and(|best_exit| best_exit(i) == value)
    }

    /// Writes the file: blocks first, after room for the header, then the header. Returns the file size.
    fn write<S, V>(
        &self,
        values: &V,
        side_of: &S,
        make_sink: MakeSink<'_>,
    ) -> Result<u64, WriteError>
    where
        S: Fn(Index) -> u8 + Sync,
        V: ValueSource,
    {
        let io_err = |e| WriteError::io(&self.path, e);
        let blocks = self.block_count();
        // The header's length depends only on the block count, so a header with dummy offsets has the right size.
        let zeros = vec![0u64; blocks as usize];
        let header_len = self.header(&zeros, &zeros, false)?.len() as u64;
        let file = File::create(&self.path).map_err(io_err)?;
        let mut out = make_sink(file).map_err(io_err)?;
        out.seek(SeekFrom::Start(header_len)).map_err(io_err)?;
        let mut lens = Vec::with_capacity(blocks as usize);
        let mut sums = Vec::with_capacity(blocks as usize);
        let mut transposed_wdl = false;
        // Batches bound the memory held by compressed blocks waiting to be written in order.
        let block_bytes = match self.encoding {
            Encoding::Wdl2 => u64::from(self.block_values) / 4,
            encoding => u64::from(self.block_values) * encoding.code_width() as u64,
        };
        let batch = batch_blocks(block_bytes, rayon::current_num_threads());
        // Compressors are kept from one block to the next, across batches: a new one allocates its workspace afresh
        // (tens of MiB for a large block at a high level), and the kernel's zeroing of those pages took 0.8 s of
        // rewriting KQRvKR's WDL blocks of 2^24 values. At most one a thread is ever out of the pool.
        let pool: Mutex<Vec<(Squeezer, zstd::bulk::Compressor<'static>)>> = Mutex::new(Vec::new());
        let store = |block: u64| -> Result<Vec<u8>, WriteError> {
            let taken = pool.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let (mut compressor, mut proxy) = match taken {
                Some(compressors) => compressors,
                None => (
                    self.squeezer().map_err(zstd_failed)?,
                    self.compressor(PROXY_LEVEL).map_err(zstd_failed)?,
                ),
            };
            let stored = self.store(block, values, side_of, &mut compressor, &mut proxy);
            pool.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((compressor, proxy));
            stored
        };
        let mut first = 0;
        while first < blocks {
            let last = (first + batch).min(blocks);
            let compressed = (first..last)
                .into_par_iter()
                .map(store)
                .collect::<Result<Vec<_>, _>>()?;
            for data in compressed {
                transposed_wdl |=
                    self.encoding == Encoding::Wdl2 && data[0] == Layout::Transposed.code();
                out.write_all(&data).map_err(io_err)?;
                lens.push(data.len() as u64);
                sums.push(checksum(&data));
            }
            first = last;
        }
        // Versions 2 to 6 have the same header length (only the version and the file kind byte differ), and version 7
        // is always chosen by the block count alone.
        let header = self.header(&lens, &sums, transposed_wdl)?;
        debug_assert_eq!(header.len() as u64, header_len);
        out.seek(SeekFrom::Start(0)).map_err(io_err)?;
        out.write_all(&header).map_err(io_err)?;
        out.flush().map_err(io_err)?;
        out.sync().map_err(io_err)?;
        Ok(header_len + lens.iter().sum::<u64>())
    }

    /// The compressor of this file's blocks: at its level, and for a WDL file with a second, longer shortest match
    /// when the options ask for it ([`WriteOptions::wdl_min_match`]).
    fn squeezer(&self) -> io::Result<Squeezer> {
        let longer_matches = match self.min_match {
            Some(bytes) if self.encoding == Encoding::Wdl2 => {
                let mut compressor = self.compressor(self.level)?;
                compressor.set_parameter(zstd::zstd_safe::CParameter::MinMatch(bytes))?;
                Some(compressor)
            }
            _ => None,
        };
        Ok(Squeezer {
            main: self.compressor(self.level)?,
            heavy: match self.heavy_level {
                Some(level) => Some(self.compressor(level)?),
                None => None,
            },
            heavy_block: false,
            longer_matches,
        })
    }

    /// A zstd context with this file's settings. Version 2 frames do not record their decompressed size: the
    /// reader knows it, and small files are smaller without it.
    fn compressor(&self, level: i32) -> io::Result<zstd::bulk::Compressor<'static>> {
        let mut compressor = zstd::bulk::Compressor::new(level)?;
        if self.version >= 2 {
            compressor.set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(false))?;
        }
        Ok(compressor)
    }

    /// The stored bytes of one block, checked: decoded as a reader decodes them ([`BlockShape::decode`]), they must
    /// give every position its value, or in a file of floors a worse one where it may store that, and every index
    /// left out of a distance file its filler. Checking here, while the block's values are at hand, is what lets
    /// [`read_back`](FileWriter::read_back) check only that the file holds these bytes.
    fn store<S, V>(
        &self,
        block: u64,
        values: &V,
        side_of: &S,
        compressor: &mut Squeezer,
        proxy: &mut zstd::bulk::Compressor<'static>,
    ) -> Result<Vec<u8>, WriteError>
    where
        S: Fn(Index) -> u8 + Sync,
        V: ValueSource,
    {
        let range = self.block_range(block);
        // Any version with layouts decodes them alike; which the file's version allows is checked on reading back.
        let shape = BlockShape {
            version: if self.version == 1 {
                1
            } else {
                format::INDEXED_VERSION
            },
            encoding: self.encoding,
            values: (range.end - range.start) as usize,
        };
        let wrong = |what: String| WriteError::ReadBack {
            path: self.path.to_path_buf(),
            what: format!("block {block} (from index {}) {what}", range.start),
        };
        match self.encoding {
            Encoding::Wdl2 => {
                // The block holds stored positions: indices, unless the file has another order. Each position's own
                // code, and its side to move (for the fill by the most frequent outcome of each side).
                let (own, sides) =
                    own_and_sides(range.clone(), self.order.as_ref(), values, side_of);
                let index_of = |k: usize| {
                    let stored = range.start + k as Index;
                    self.order
                        .as_ref()
                        .map_or(stored, |order| order.index_at(stored))
                };
                // Whether the position at offset `k` may store a worse outcome, looked up once (it costs a look at
                // the position's moves) however many orders the block is filled in: 0 = not yet known. Atomic, so
                // that orders may be tried on several threads; two threads that look up the same offset at once
                // store the same answer.
                let lowerable: Vec<AtomicU8> = match self.exits {
                    Some(_) => (0..own.len()).map(|_| AtomicU8::new(0)).collect(),
                    None => Vec::new(),
                };
                let may_lower = |k: usize| {
                    let Some(cell) = lowerable.get(k) else {
                        return false;
                    };
                    let mut known = cell.load(Ordering::Relaxed);
                    if known == 0 {
                        let i = index_of(k);
                        let lower = values
                            .value(i)
                            .is_some_and(|v| self.may_store_below(i, v.outcome()));
                        known = 1 + u8::from(lower);
                        cell.store(known, Ordering::Relaxed);
                    }
                    known == 2
                };
                let stored = self
                    .store_wdl(&own, &sides, &may_lower, compressor, proxy)
                    .map_err(zstd_failed)?;
                let decoded = shape
                    .decode(&stored)
                    .map_err(|what| wrong(format!("does not decode: {what}")))?;
                match misread_wdl(&own, &decoded, may_lower) {
                    None => Ok(stored),
                    Some(k) => Err(wrong(format!(
                        "would read back wrong at index {}",
                        index_of(k)
                    ))),
                }
            }
            _ => {
                let raw = self.encode_distance(range.clone(), values);
                let stored = self
                    .store_distance(&raw, compressor, proxy)
                    .map_err(zstd_failed)?;
                let decoded = shape
                    .decode(&stored)
                    .map_err(|what| wrong(format!("does not decode: {what}")))?;
                if *decoded == *raw {
                    return Ok(stored);
                }
                let width = self.encoding.code_width();
                let k = decoded
                    .chunks_exact(width)
                    .zip(raw.chunks_exact(width))
                    .position(|(read, written)| read != written)
                    .unwrap_or(0);
                Err(wrong(format!(
                    "would read back wrong at index {}",
                    range.start + k as Index
                )))
            }
        }
    }

    /// The stored bytes of a WDL block whose positions have the codes `own` ([`own_code`]): in version 1 a zstd
    /// frame of the packed exact codes; in version 2 a layout byte and the data of the smallest layout tried.
    fn store_wdl(
        &self,
        own: &[u8],
        sides: &[u8],
        may_lower: &(impl Fn(usize) -> bool + Sync),
        compressor: &mut Squeezer,
        proxy: &mut zstd::bulk::Compressor<'static>,
    ) -> io::Result<Vec<u8>> {
        if self.version == 1 {
            return compressor.compress(&pack_wdl(&wdl_codes(own, |_| false)));
        }
        let (measured, codes) = self.fill(own, sides, may_lower, |codes| {
            Ok(proxy.compress(&pack_wdl(codes))?.len())
        })?;
        if codes.iter().all(|&c| c == codes[0]) {
            return Ok(with_layout(Layout::Constant, &codes[..1]));
        }
        let packed = pack_wdl(&codes);
        if self.heavy_level.is_some() {
            let quick = match measured {
                Some(quick) => quick,
                None => proxy.compress(&packed)?.len(),
            };
            compressor.set_heavy_block(is_heavy(quick, packed.len()));
        }
        let mut best = with_layout(Layout::Packed, &compressor.compress(&packed)?);
        if codes.len() as u64 <= u64::from(self.bytes_layout_max_values) {
            let bytes = with_layout(Layout::Bytes, &compressor.compress(&codes)?);
            if bytes.len() < best.len() {
                best = bytes;
            }
        }
        if self.try_transposed
            && let Some(reordered) = self.wdl_reordered(own, sides, may_lower, compressor, proxy)?
            && reordered.len() < best.len()
        {
            best = reordered;
        }
        compressor.shorten(best, codes.len())
    }

    /// The stored bytes of a distance block of codes `raw` ([`encode_distance`](FileWriter::encode_distance)): in
    /// version 1 a zstd frame of them; in version 2 a layout byte and the data of the smallest layout tried.
    fn store_distance(
        &self,
        raw: &[u8],
        compressor: &mut Squeezer,
        proxy: &mut zstd::bulk::Compressor<'static>,
    ) -> io::Result<Vec<u8>> {
        if self.version == 1 {
            return compressor.compress(raw);
        }
        let width = self.encoding.code_width();
        if raw.chunks_exact(width).all(|code| code == &raw[..width]) {
            return Ok(with_layout(Layout::Constant, &raw[..width]));
        }
        let transposed = if self.try_transposed {
            self.transposed(raw, compressor, proxy)?
        } else {
            Transposed::Behind
        };
        let mut plain = || -> io::Result<Vec<u8>> {
            Ok(with_layout(Layout::Packed, &compressor.compress(raw)?))
        };
        match transposed {
            Transposed::Ahead(stored) => Ok(stored),
            Transposed::Close(stored) => {
                let plain = plain()?;
                Ok(if stored.len() < plain.len() {
                    stored
                } else {
                    plain
                })
            }
            Transposed::Behind => plain(),
        }
    }

    /// The codes to store for the positions `own` ([`own_code`]), `may_lower(k)` telling whether the one at `k`
    /// may store a worse outcome, with their measure when the fills were measured (they are not when all are the
    /// same): whichever of these fills `measure` finds smallest (the first of equals):
    /// - the exact outcomes, holes continuing runs ([`wdl_codes`] without floors);
    /// - with floors, the floored codes, where free positions continue runs too ([`wdl_codes`]): fewer runs, but
    ///   not always a smaller block (KBBvK: 100.3 KB with floors, 97.1 KB without);
    /// - the block's most frequent code wherever a position may store it ([`majority_codes`]): the runs are then
    ///   those of the positions that must store another code, the same from one part of the index to the next, which
    ///   zstd matches better (KBBvKR's WDL file at level 17: 921,940 bytes with the floored fill, 772,127 with this);
    /// - in a block of several sides to move, the floored codes with each side's runs kept apart ([`lane_run_codes`]):
    ///   a chess block stored with the side to move last alternates sides, and a free position of one side would
    ///   otherwise continue the run of the other's (KBNvKQ's WDL file: 1,143,341 bytes without, 1,018,292 with).
    fn fill(
        &self,
        own: &[u8],
        sides: &[u8],
        may_lower: impl Fn(usize) -> bool,
        mut measure: impl FnMut(&[u8]) -> io::Result<usize>,
    ) -> io::Result<(Option<usize>, Vec<u8>)> {
        let exact = wdl_codes(own, |_| false);
        let floored = match self.exits {
            Some(_) => wdl_codes(own, &may_lower),
            None => exact.clone(),
        };
        let majority = majority_codes(own, sides, &may_lower);
        // Runs by side, when the block has more than one.
        let by_side = match sides.iter().any(|&side| side != sides[0]) {
            true => lane_run_codes(own, |k| sides[k], &may_lower),
            false => exact.clone(),
        };
        if floored == exact && majority == exact && by_side == exact {
            return Ok((None, exact));
        }
        let mut best = (measure(&exact)?, exact);
        for candidate in [floored, majority, by_side] {
            if candidate != best.1 {
                let size = measure(&candidate)?;
                if size < best.0 {
                    best = (size, candidate);
                }
            }
        }
        Ok((Some(best.0), best.1))
    }

    /// A WDL block (positions `own`, `may_lower` as for [`fill`](FileWriter::fill)) stored in another order than
    /// the index's, the most promising found: transposed ([`Layout::Transposed`], one code a byte) with a column
    /// count among the index's periods ([`periods`]), their products with the first, and the row lengths the game
    /// knows of ([`TableSpec::index_periods`]); or permuted ([`Layout::Permuted`]) with the index's digits in another
    /// order ([`digit_orders`](FileWriter::digit_orders)). Each candidate is filled in its own order (a free index
    /// continues the run before it in the stored order, which is what pays: filled in index order and then
    /// transposed, the 3- and 4-man WDL files shrink 1.2%, filled in stored order 11%) and judged by a quick
    /// compression; the [`LEADERS`] best are compressed in earnest and the smallest kept. `None` without candidates.
    fn wdl_reordered(
        &self,
        own: &[u8],
        sides: &[u8],
        may_lower: impl Fn(usize) -> bool + Sync,
        compressor: &mut Squeezer,
        proxy: &mut zstd::bulk::Compressor<'static>,
    ) -> io::Result<Option<Vec<u8>>> {
        // Periods are found on codes where 0 marks a hole, as in a distance block.
        let marked: Vec<u8> = own
            .iter()
            .map(|&code| if code == HOLE { 0 } else { code + 1 })
            .collect();
        // The two candidates a quick compression finds smallest, as (quick size, order, codes), best first.
        let mut leaders: Vec<(usize, Order, Vec<u8>)> = Vec::with_capacity(3);
        // Beside the periods, their products with the first: rows that are a pair of the index's last digits (two
        // men of a chess table moved in front of the others). KPvKP: 131.4 KB with the periods alone, 118.3 KB.
        // And the row lengths the game knows of, which the sampled periods may miss: KQvKQ's 62 squares of the last
        // queen (22.5 KB without, 16.5 KB with).
        let mut candidates = periods(&marked, 1);
        if let Some(&first) = candidates.first() {
            let products: Vec<usize> = candidates.iter().map(|&period| period * first).collect();
            candidates.extend(products);
        }
        for &known in self.index_periods {
            if let Ok(known) = usize::try_from(known)
                && !candidates.contains(&known)
            {
                candidates.push(known);
            }
        }
        candidates.retain(|&columns| columns >= 2 && columns < own.len() / 2);
        let mut orders: Vec<Order> = candidates.into_iter().map(Order::Columns).collect();
        orders.extend(self.digit_orders(own.len()));
        // A candidate's codes in its order, and their quick size.
        let try_order = |candidate: &Order,
                         proxy: &mut zstd::bulk::Compressor<'static>|
         -> io::Result<(usize, Vec<u8>)> {
            let mut order = vec![0u32; own.len()];
            match candidate {
                Order::Columns(columns) => {
                    format::for_each_transposed(own.len(), *columns, |to, from| {
                        order[to] = from as u32
                    })
                }
                Order::Digits(radices, digits) => {
                    format::for_each_permuted(radices, digits, |to, from| order[to] = from as u32)
                }
            }
            let own_transposed: Vec<u8> = order.iter().map(|&k| own[k as usize]).collect();
            let sides_transposed: Vec<u8> = order.iter().map(|&k| sides[k as usize]).collect();
            let (measured, codes) = self.fill(
                &own_transposed,
                &sides_transposed,
                |t| may_lower(order[t] as usize),
                |codes| Ok(proxy.compress(codes)?.len()),
            )?;
            // The fills were measured by the same quick compression, unless there was only one.
            let mut quick = match measured {
                Some(quick) => quick,
                None => proxy.compress(&codes)?.len(),
            };
            if let Order::Digits(..) = candidate {
                // A permuted block may pack its codes four a byte, which is mostly smaller.
                quick = quick.min(proxy.compress(&pack_wdl(&codes))?.len());
            }
            Ok((quick, codes))
        };
        // The block of a file of one block is the whole file, written by one thread while the others soon run out
        // of work (a 4-man chess table: two dozen orders tried, most of its writing time): its candidates are tried
        // a few at a time, one a thread, each with a quick compressor of its own. The leaders are picked in the
        // candidates' order whatever the threads, so the bytes do not depend on them. A block among others is left
        // to its thread: the others have blocks of their own. A thread trying an order holds what
        // [`WriteOptions::peak_bytes`] counts a thread's transposed candidates at, and a quick compressor; one
        // compressing a leader in earnest (below), a compressor of the file's level: what it counts for a thread
        // writing a WDL block of its own.
        let lanes = if self.block_count() == 1 {
            rayon::current_num_threads().min(orders.len()).max(1)
        } else {
            1
        };
        let mut more_proxies = (1..lanes)
            .map(|_| self.compressor(PROXY_LEVEL))
            .collect::<io::Result<Vec<_>>>()?;
        in_lanes(
            orders,
            proxy,
            &mut more_proxies,
            try_order,
            |candidate, (quick, codes)| {
                // Ties go to the candidate tried first.
                let at = leaders.partition_point(|leader| leader.0 <= quick);
                if at < LEADERS {
                    leaders.insert(at, (quick, candidate, codes));
                    leaders.truncate(LEADERS);
                }
            },
        )?;
        // Quick sizes rank candidates only roughly (KNvKP: with the chess index's row lengths among the candidates,
        // the quick pick alone made the file 143.5 KB against 124.4 KB), so the leaders are compressed in earnest
        // and the smallest kept: a transposed leader once, a permuted one with both packings (four codes a byte make
        // the smaller file for most chess tables, KQvKB and KRvKB; one a byte for some).
        // Each as (order, codes per byte, the codes so packed).
        let mut earnest: Vec<(Order, u8, Vec<u8>)> = Vec::with_capacity(2 * LEADERS);
        for (_, candidate, codes) in leaders {
            if let Order::Digits(..) = candidate {
                let packed = pack_wdl(&codes);
                earnest.push((candidate.clone(), 1, codes));
                earnest.push((candidate, 4, packed));
            } else {
                earnest.push((candidate, 1, codes));
            }
        }
        let stored_as = |(candidate, packing, data): &(Order, u8, Vec<u8>),
                         compressor: &mut Squeezer|
         -> io::Result<Vec<u8>> {
            let frame = compressor.compress(data)?;
            Ok(match candidate {
                Order::Columns(columns) => transposed_block(*columns, &frame),
                Order::Digits(radices, order) => {
                    let permutation = format::Permutation {
                        radices: radices.clone(),
                        order: order.clone(),
                        packing: *packing,
                    };
                    permuted_block(&permutation, &frame)
                }
            })
        };
        // In a file of one block they are compressed a few at a time too, each lane with a compressor of the file's
        // level of its own: they had run on one thread while the others waited (`retro repack` of KRvKN with two
        // threads, 5.4 and 5.8 s before, 4.4 and 4.7 s after). The smallest is the first smallest in the leaders'
        // order, whatever the threads.
        let lanes = lanes.min(earnest.len()).max(1);
        let mut more_compressors = (1..lanes)
            .map(|_| {
                let mut squeezer = self.squeezer()?;
                squeezer.set_heavy_block(compressor.heavy_block);
                Ok(squeezer)
            })
            .collect::<io::Result<Vec<_>>>()?;
        let mut best: Option<Vec<u8>> = None;
        in_lanes(
            earnest,
            compressor,
            &mut more_compressors,
            stored_as,
            |_, stored| {
                // Ties go to the one first in the leaders' order.
                if best.as_ref().is_none_or(|b| stored.len() < b.len()) {
                    best = Some(stored);
                }
            },
        )?;
        Ok(best)
    }

    /// The orders of the index's digits ([`TableSpec::index_digits`]) other than its own, for a WDL block of `len`
    /// values: every one, if the block holds the whole table, the file holds floors (version 6, which has permuted
    /// blocks) and the digits are at most [`format::MAX_DIGITS`] (digits of radix 1 left out); else none.
    fn digit_orders(&self, len: usize) -> Vec<Order> {
        let radices: Vec<u64> = self
            .index_digits
            .iter()
            .copied()
            .filter(|&r| r > 1)
            .collect();
        let whole = self.index_digits.iter().product::<u64>() == len as u64
            && len as u64 == self.meta.index_size;
        if self.exits.is_none()
            || !whole
            || radices.len() < 2
            || radices.len() > format::MAX_DIGITS
            || radices.iter().any(|&r| r > u64::from(u32::MAX))
        {
            return Vec::new();
        }
        let mut orders = Vec::new();
        let mut order: Vec<u8> = (0..radices.len() as u8).collect();
        permutations(&mut order, 0, &mut |order| {
            if order.windows(2).any(|w| w[0] > w[1]) {
                orders.push(Order::Digits(radices.clone(), order.to_vec()));
            }
        });
        orders
    }

    /// The block `raw` (distance codes) stored transposed with the most promising column count, if one is
    /// promising: the candidates are the periods at which values repeat most often (see [`periods`]), judged by
    /// the size of a quick compression; the best is compressed in earnest only if it comes close to the plain
    /// block's quick size (the caller keeps whichever is smaller).
    fn transposed(
        &self,
        raw: &[u8],
        compressor: &mut Squeezer,
        proxy: &mut zstd::bulk::Compressor<'static>,
    ) -> io::Result<Transposed> {
        let width = self.encoding.code_width();
        let candidates = periods(raw, width);
        if candidates.is_empty() {
            return Ok(Transposed::Behind);
        }
        let plain = proxy.compress(raw)?.len();
        let mut best: Option<(usize, Vec<u8>, usize)> = None;
        for columns in candidates {
            let data = transpose(raw, width, columns);
            let quick = proxy.compress(&data)?.len();
            if best.as_ref().is_none_or(|b| quick < b.2) {
                best = Some((columns, data, quick));
            }
        }
        let (columns, data, quick) = best.expect("at least one candidate");
        // Quick sizes predict full ones only roughly: a candidate clearly ahead (by 5%) is taken alone, one close to
        // the plain block (at most 2% behind) is compressed in full and compared, one further behind is dropped.
        let verdict = if quick * 20 < plain * 19 {
            Verdict::Ahead
        } else if quick * 50 <= plain * 51 {
            Verdict::Close
        } else {
            return Ok(Transposed::Behind);
        };
        let stored = transposed_block(columns, &compressor.compress(&data)?);
        Ok(match verdict {
            Verdict::Ahead => Transposed::Ahead(stored),
            Verdict::Close => Transposed::Close(stored),
        })
    }

    /// The decoded bytes of one block of a distance file.
    fn encode_distance<V>(&self, range: std::ops::Range<Index>, values: &V) -> Vec<u8>
    where
        V: ValueSource,
    {
        // An index left out continues the run before it (the first of a block takes the code of a hole).
        let encoding = self.encoding;
        debug_assert!(
            encoding != Encoding::Wdl2,
            "a WDL file has no distance codes"
        );
        let mut previous = encoding.stored_code(HOLE_CODE);
        let mut code = |i: Index, code: u64| {
            if self.omitted.as_ref().is_none_or(|r| !r.contains(&i)) {
                previous = encoding.stored_code(code);
            }
            previous
        };
        let width = encoding.code_width();
        let mut raw = Vec::with_capacity((range.end - range.start) as usize * width);
        // A loop for each width, so that each pushes its codes without asking the width.
        match width {
            1 => for_each_code(values, range, |i, c| raw.push(code(i, c) as u8)),
            2 => for_each_code(values, range, |i, c| {
                raw.extend_from_slice(&(code(i, c) as u16).to_le_bytes())
            }),
            _ => for_each_code(values, range, |i, c| {
                raw.extend_from_slice(&(code(i, c) as u32).to_le_bytes())
            }),
        }
        raw
    }

    /// Opens the written file with the probe library and checks that it holds what was written: the header read
    /// back as it was meant, and every block the bytes that [`store`](FileWriter::store) decoded and checked (its
    /// checksum, computed from those bytes before they were written) in a layout that the file's version allows.
    fn read_back(&self) -> Result<(), WriteError> {
        let file = TableFile::open(&self.path)?;
        let header = file.header();
        let differs = |what: &str| WriteError::ReadBack {
            path: self.path.to_path_buf(),
            what: format!("the header's {what} reads back differently"),
        };
        if header.meta != *self.meta {
            return Err(differs("metadata"));
        }
        if header.encoding != self.encoding || header.block_values != self.block_values {
            return Err(differs("encoding"));
        }
        if header.floors() != self.exits.is_some() || header.omitted() != self.omitted {
            return Err(differs("kind"));
        }
        // In batches, giving the pages read back to the kernel after each: a large table's file would otherwise
        // end up resident whole.
        let blocks = self.block_count();
        let batch = 64 * rayon::current_num_threads() as u64;
        for first in (0..blocks).step_by(batch as usize) {
            (first..(first + batch).min(blocks))
                .into_par_iter()
                .try_for_each(|block| file.block_layout(block).map(|_| ()))?;
            file.release_pages();
        }
        Ok(())
    }
}

/// A stored block: its layout's byte, then `data`.
fn with_layout(layout: Layout, data: &[u8]) -> Vec<u8> {
    let mut stored = Vec::with_capacity(1 + data.len());
    stored.push(layout.code());
    stored.extend_from_slice(data);
    stored
}

/// A block's compressor: zstd at the file's level, and possibly the same level with a longer shortest match, which
/// compresses the block that won again (see [`Squeezer::shorten`]).
struct Squeezer {
    main: zstd::bulk::Compressor<'static>,
    /// The compressor of heavy blocks ([`WriteOptions::heavy_wdl_level`]), used while `heavy_block`.
    heavy: Option<zstd::bulk::Compressor<'static>>,
    heavy_block: bool,
    longer_matches: Option<zstd::bulk::Compressor<'static>>,
}

impl Squeezer {
    fn compress(&mut self, data: &[u8]) -> io::Result<Vec<u8>> {
        match &mut self.heavy {
            Some(heavy) if self.heavy_block => heavy.compress(data),
            _ => self.main.compress(data),
        }
    }

    /// Whether the block about to be compressed is heavy, for a squeezer that has a level for those.
    fn set_heavy_block(&mut self, heavy: bool) {
        self.heavy_block = heavy && self.heavy.is_some();
    }

    /// The stored block `stored` (its layout's bytes, then a zstd frame of at most `capacity` bytes decompressed)
    /// with its frame compressed again with longer matches, when that is smaller. Only the winner among a block's
    /// layouts is compressed so, once: compressing every candidate both ways took the compact 3- and 4-man set half
    /// as long again to write (3 min 8 s against 2 min 10 s), for the same bytes.
    fn shorten(&mut self, stored: Vec<u8>, capacity: usize) -> io::Result<Vec<u8>> {
        let Some(longer) = &mut self.longer_matches else {
            return Ok(stored);
        };
        // The layout byte, and what comes before the frame: a transposed block's column count, a permuted block's
        // digits.
        let prefix = match Layout::from_code(stored[0]) {
            Some(Layout::Transposed) => 5,
            Some(Layout::Permuted) => 1 + format::Permutation::len_of(usize::from(stored[1])),
            _ => 1,
        };
        let data = zstd::bulk::decompress(&stored[prefix..], capacity)?;
        let frame = longer.compress(&data)?;
        // Ties keep the main frame, as without the second compressor.
        Ok(if frame.len() < stored.len() - prefix {
            let mut shorter = stored[..prefix].to_vec();
            shorter.extend_from_slice(&frame);
            shorter
        } else {
            stored
        })
    }
}

/// How a block's best transposition compares with the plain block after quick compressions, with the stored block
/// when it is worth keeping.
enum Transposed {
    Ahead(Vec<u8>),
    Close(Vec<u8>),
    Behind,
}

enum Verdict {
    Ahead,
    Close,
}

/// The compressed bytes a batch of blocks may hold while they wait to be written in order, for each thread: enough
/// blocks that a thread is rarely idle at a batch's end, few enough that large blocks do not pile up.
const BATCH_BYTES_PER_THREAD: u64 = 4 << 20;

/// The blocks of `block_bytes` (before compression) in one batch for `threads` threads: eight per thread for small
/// blocks, fewer for large ones, at least one per thread. The bytes written do not depend on it.
fn batch_blocks(block_bytes: u64, threads: usize) -> u64 {
    let per_thread = (BATCH_BYTES_PER_THREAD / block_bytes.max(1)).clamp(1, 8);
    per_thread * threads.max(1) as u64
}

/// The memory a zstd context of `level` takes once it has compressed blocks of `block_bytes`, with the compressed
/// block, as measured with zstd 1.5.7 (resident bytes after compressing a block of each size: level 19, 18 MB for
/// 1 MiB, 53 MB for 4 MiB, 88 MB for 8 MiB; level 12, 11 MB, 44 MB, 46 MB; levels 4 to 9, 11 to 14 MB; levels up
/// to 3, 1 to 5 MB; level 22, 16 MB more than level 19), rounded up: zstd sizes its tables from the level and the
/// block's size.
pub fn zstd_context_bytes(level: i32, block_bytes: u64) -> u64 {
    let n = block_bytes.max(1 << 10).next_power_of_two();
    match level {
        ..=3 => (2 << 20) + n / 2 + n / 4,
        4..=9 => (11 << 20) + n,
        // Past 4 MiB the level's tables stop growing with the block: 44 MB at 4 MiB, 46 MB at 8 MiB.
        10..=15 => ((1 << 20) + 11 * n).min((40 << 20) + n),
        16..=19 => (6 << 20) + 12 * n,
        // Level 22 took 16 MB more than level 19 for a block of 4 MiB (the zstd tool's peak resident set).
        _ => (24 << 20) + 12 * n,
    }
}

/// zstd level of the quick compressions that choose between candidate layouts.
const PROXY_LEVEL: i32 = 3;

/// Whether a WDL block of `packed` bytes (four codes a byte) is heavy: a quick compression ([`PROXY_LEVEL`]) keeps
/// more than 1/128 of it (8 KB of a block of 2^22 values).
fn is_heavy(quick: usize, packed: usize) -> bool {
    quick * 128 > packed
}

/// How many transposed WDL candidates, the best by a quick compression, are compressed in earnest.
const LEADERS: usize = 2;

/// The longest period looked for by [`periods`], and how many of the best periods are tried.
const MAX_PERIOD: usize = 256;
const PERIODS_TRIED: usize = 3;

/// The periods of a block of distance codes (`width` bytes each), best first: the lags `p` in `2..=MAX_PERIOD` at
/// which a value most often equals the value `p` before it, counted over positions (holes, code 0, left out) in a
/// few windows spread over the block. Empty for blocks too short to have rows.
fn periods(raw: &[u8], width: usize) -> Vec<usize> {
    const WINDOW: usize = 1 << 13;
    const WINDOWS: usize = 4;
    let n = raw.len() / width;
    if n < 4 * MAX_PERIOD {
        return Vec::new();
    }
    // Codes as integers, so that the inner loop compares numbers.
    let code = |i: usize| {
        raw[i * width..(i + 1) * width]
            .iter()
            .rev()
            .fold(0u32, |c, &b| (c << 8) | u32::from(b))
    };
    let mut agree = [0u32; MAX_PERIOD + 1];
    let mut window = Vec::with_capacity(WINDOW + MAX_PERIOD);
    for w in 0..WINDOWS {
        let start = MAX_PERIOD + (n - MAX_PERIOD - WINDOW.min(n - MAX_PERIOD)) * w / WINDOWS;
        let end = (start + WINDOW).min(n);
        window.clear();
        window.extend((start - MAX_PERIOD..end).map(code));
        for i in MAX_PERIOD..window.len() {
            let here = window[i];
            if here == 0 {
                continue;
            }
            for (lag, count) in agree.iter_mut().enumerate().skip(2) {
                *count += u32::from(window[i - lag] == here);
            }
        }
    }
    let mut lags: Vec<usize> = (2..=MAX_PERIOD).collect();
    // Ties go to the shorter period (sort is stable).
    lags.sort_by_key(|&lag| std::cmp::Reverse(agree[lag]));
    lags.truncate(PERIODS_TRIED);
    lags
}

/// Runs `work` on every item a few at a time, one a lane, a lane for `first` and one for each of `more` (the tools):
/// each item of a chunk on a thread, with a tool of its own. The results go to `keep` in the items' order, whatever
/// the threads, and a chunk's results are kept before the next chunk starts, so that only one chunk of them is held
/// at a time.
fn in_lanes<I, T, R>(
    items: Vec<I>,
    first: &mut T,
    more: &mut [T],
    work: impl Fn(&I, &mut T) -> io::Result<R> + Sync,
    mut keep: impl FnMut(I, R),
) -> io::Result<()>
where
    I: Sync,
    T: Send,
    R: Send,
{
    let mut tools: Vec<&mut T> = std::iter::once(first).chain(more.iter_mut()).collect();
    let mut items = items.into_iter();
    loop {
        let few: Vec<I> = items.by_ref().take(tools.len()).collect();
        if few.is_empty() {
            return Ok(());
        }
        let done = few
            .par_iter()
            .zip(tools.par_iter_mut())
            .map(|(item, tool)| work(item, tool))
            .collect::<io::Result<Vec<_>>>()?;
        for (item, result) in few.into_iter().zip(done) {
            keep(item, result);
        }
    }
}

/// An order of a block's values other than the index's, for a WDL block of one code a byte.
#[derive(Clone)]
enum Order {
    /// Transposed ([`Layout::Transposed`]) with this many columns.
    Columns(usize),
    /// Permuted ([`Layout::Permuted`]): the radices of the index's digits, and the digits in stored order.
    Digits(Vec<u64>, Vec<u8>),
}

/// Calls `visit` with every order of `items[from..]` after `items[..from]` (each once; `items` ends as it began).
fn permutations(items: &mut [u8], from: usize, visit: &mut impl FnMut(&[u8])) {
    if from + 1 >= items.len() {
        visit(items);
        return;
    }
    for k in from..items.len() {
        items.swap(from, k);
        permutations(items, from + 1, visit);
        items.swap(from, k);
    }
}

/// The stored bytes of a permuted block ([`Layout::Permuted`]): the layout, the permutation, the zstd frame.
fn permuted_block(permutation: &format::Permutation, frame: &[u8]) -> Vec<u8> {
    let mut stored = vec![Layout::Permuted.code()];
    stored.extend_from_slice(&permutation.bytes());
    stored.extend_from_slice(frame);
    stored
}

/// The stored bytes of a transposed block ([`Layout::Transposed`]): the layout, the column count, the zstd frame.
fn transposed_block(columns: usize, frame: &[u8]) -> Vec<u8> {
    let mut stored = Vec::with_capacity(5 + frame.len());
    stored.push(Layout::Transposed.code());
    stored.extend_from_slice(&(columns as u32).to_le_bytes());
    stored.extend_from_slice(frame);
    stored
}

/// The codes of a block (`width` bytes each) as rows of `columns`, read column by column ([`Layout::Transposed`]).
fn transpose(raw: &[u8], width: usize, columns: usize) -> Vec<u8> {
    let n = raw.len() / width;
    let mut out = vec![0u8; raw.len()];
    format::for_each_transposed(n, columns, |to, from| {
        out[to * width..(to + 1) * width].copy_from_slice(&raw[from * width..(from + 1) * width]);
    });
    out
}

/// The layout version writers write (a WDL file of floors is [`format::TERMINAL_FLOORS_VERSION`]).
const LAYOUT_VERSION: u32 = 2;

/// What [`own_code`] gives a hole: not a code (codes are 0 = loss, 1 = draw, 2 = win).
const HOLE: u8 = 3;

/// Each index's own 2-bit code: its outcome's, or [`HOLE`].
#[cfg(test)]
fn own_codes<V>(range: std::ops::Range<Index>, values: &V) -> Vec<u8>
where
    V: ValueSource,
{
    range.map(|i| own_code(values.value(i))).collect()
}

/// The own code ([`own_code`]) and the side to move of each stored position of `range`: the indices of the range, or
/// in a file of another order the indices that order stores there, whose values are read one at a time.
fn own_and_sides<S, V>(
    range: std::ops::Range<Index>,
    order: Option<&ValueOrder>,
    values: &V,
    side_of: &S,
) -> (Vec<u8>, Vec<u8>)
where
    S: Fn(Index) -> u8,
    V: ValueSource,
{
    if let Some(order) = order {
        return order
            .indices(range)
            .map(|i| (own_code(values.value(i)), side_of(i)))
            .unzip();
    }
    let len = (range.end - range.start) as usize;
    let (mut own, mut sides) = (Vec::with_capacity(len), Vec::with_capacity(len));
    for_each_run(values, range, |first, codes| {
        own.extend(codes.iter().map(|&code| own_code_of(code)));
        sides.extend((first..first + codes.len() as Index).map(side_of));
    });
    (own, sides)
}

/// [`own_code`] of the value of code `code` ([`Value::code`]): a hole's 0 gives [`HOLE`], a draw's 1 its 1, a win's
/// even code 2 and a loss's odd code 0.
#[inline]
fn own_code_of(code: u64) -> u8 {
    if code < 2 {
        (3 - 2 * code) as u8
    } else {
        2 - 2 * (code & 1) as u8
    }
}

/// A value's own 2-bit code: its outcome's ([`format::wdl_code`]), or [`HOLE`].
#[inline]
fn own_code(value: Option<Value>) -> u8 {
    own_code_of(Value::code(value))
}

/// The 2-bit codes of a block, one per byte. `own` is each index's own code ([`own_code`]); `may_lower(k)` says
/// whether the position at `k` may store a worse code (in a file of floors: whether its exits reach its value, see
/// [`FileWriter::may_store_below`]), and is asked only where that would continue a run, which is rare: finding out
/// costs a look at the position's moves. Codes run from loss to win, so "worse" is "lower".
///
/// A free index continues the run of the code before it when it may; a position that cannot starts a run of its own
/// outcome, and a hole at the block's start the run of the first position after it (ties of an all-hole block go to
/// the lowest code). For holes this is the value of the nearest position before them, or after them at the block's
/// start: measured on chess tables, that beats the value one row of the index before and the prediction of a context
/// model, and on the 3- and 4-man tables the block's majority value (which [`majority_codes`] gives, and
/// [`FileWriter::fill`] tries beside this). For floors, starting the run of the position's own outcome rather than
/// the run that reaches furthest came out smaller on most chess tables (KRvKP 123.2 KB against 125.0 KB, KNvKP
/// 157.8 KB against 160.4 KB).
///
/// Eight codes at a time where they continue the run (each the run's code or a hole, the bulk of a chess block), one
/// at a time elsewhere: the same codes as [`lane_run_codes`] with one lane, in a fraction of the time.
fn wdl_codes(own: &[u8], may_lower: impl Fn(usize) -> bool) -> Vec<u8> {
    let mut codes = Vec::with_capacity(own.len());
    let mut current: Option<u8> = None;
    for (start, eight) in (0..).step_by(8).zip(own.chunks(8)) {
        if let Some(code) = current
            && eight.len() == 8
            && bytes_all_in(eight, code, HOLE)
        {
            codes.extend_from_slice(&[code; 8]);
            continue;
        }
        for (k, &mine) in (start..).zip(eight) {
            let code = match current {
                Some(code) if mine == HOLE || mine == code => code,
                Some(code) if code < mine && may_lower(k) => code,
                _ if mine != HOLE => mine,
                _ => own[k..]
                    .iter()
                    .copied()
                    .find(|&next| next != HOLE)
                    .unwrap_or(0),
            };
            codes.push(code);
            current = Some(code);
        }
    }
    codes
}

/// Whether each of eight bytes is `a` or `b`, tested on the eight as one word.
#[inline]
fn bytes_all_in(eight: &[u8], a: u8, b: u8) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let word = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
    // The top bit of each byte of `nonzero(t)` says whether that byte of `t` is not zero; no carry crosses bytes.
    let nonzero = |t: u64| (((t & LOW7) + LOW7) | t) & !LOW7;
    nonzero(word ^ (ONES * u64::from(a))) & nonzero(word ^ (ONES * u64::from(b))) == 0
}

/// [`wdl_codes`] with runs kept apart by lane: the code before an index is that of the nearest index before it in
/// the same lane (`lane(k)`), as if each lane's indices were filled on their own and then put back in place. With
/// the side to move as the lane, a block that alternates sides continues each side's runs, not the other side's:
/// KBNvKQ's third block, 37 KB filled across sides, is 14 KB filled by side.
fn lane_run_codes(
    own: &[u8],
    lane: impl Fn(usize) -> u8,
    may_lower: impl Fn(usize) -> bool,
) -> Vec<u8> {
    let mut codes = Vec::with_capacity(own.len());
    let mut current: [Option<u8>; 256] = [None; 256];
    for (k, &mine) in own.iter().enumerate() {
        let my_lane = lane(k);
        let current = &mut current[usize::from(my_lane)];
        let code = match *current {
            Some(code) if mine == HOLE || mine == code => code,
            Some(code) if code < mine && may_lower(k) => code,
            _ if mine != HOLE => mine,
            _ => (k..own.len())
                .find(|&next| own[next] != HOLE && lane(next) == my_lane)
                .map_or(0, |next| own[next]),
        };
        codes.push(code);
        *current = Some(code);
    }
    codes
}

/// The first offset at which the packed WDL block `decoded` does not give the position there what it may store:
/// its own code `own[k]`, or a worse one where `may_lower(k)`; holes may store any code.
fn misread_wdl(own: &[u8], decoded: &[u8], may_lower: impl Fn(usize) -> bool) -> Option<usize> {
    let misread_at = |k: usize| {
        let code = (decoded[k >> 2] >> ((k & 3) * 2)) & 3;
        own[k] != HOLE && code != own[k] && !(code < own[k] && may_lower(k))
    };
    // Four codes at a time: a decoded byte equal to the four own codes packed (a hole packs as 3, which no decoded
    // code is) gives each position its own; only the other bytes are looked at code by code. Most bytes are equal,
    // and this takes a fraction of the time of looking at every code.
    let whole = own.len() / 4;
    for (b, (four, &byte)) in own.chunks_exact(4).zip(decoded).enumerate() {
        if byte != pack_four(four)
            && let Some(k) = (4 * b..4 * b + 4).find(|&k| misread_at(k))
        {
            return Some(k);
        }
    }
    (4 * whole..own.len()).find(|&k| misread_at(k))
}

/// The 2-bit codes of a block, one per byte, where every position that may store the most frequent code of its side
/// to move in the block (`sides[k]`; among the own codes of that side's positions; of equals, the lowest) stores it:
/// holes, the positions of that outcome, and those of a better one that `may_lower` (asked only of these). Every
/// other position stores its own outcome. Per side, because a chess block stored with the side to move last
/// alternates sides, whose outcomes differ (KBNvKQ: most positions of White to move are lost, of Black won).
fn majority_codes(own: &[u8], sides: &[u8], may_lower: impl Fn(usize) -> bool) -> Vec<u8> {
    let mut counts = vec![[0usize; 3]; 256];
    for (&mine, &side) in own.iter().zip(sides) {
        if mine != HOLE {
            counts[usize::from(side)][usize::from(mine)] += 1;
        }
    }
    // `max_by_key` keeps the last of equals: counting down, the lowest code.
    let majority: Vec<u8> = counts
        .iter()
        .map(|counts| {
            (0..3u8)
                .rev()
                .max_by_key(|&code| counts[usize::from(code)])
                .expect("three codes")
        })
        .collect();
    // Eight at a time where they have one side to move and each is a hole or of that side's majority.
    let mut codes = Vec::with_capacity(own.len());
    for (start, (eight, eight_sides)) in (0..).step_by(8).zip(own.chunks(8).zip(sides.chunks(8))) {
        let side = eight_sides[0];
        let majority_of_side = majority[usize::from(side)];
        if eight.len() == 8
            && bytes_all_in(eight_sides, side, side)
            && bytes_all_in(eight, majority_of_side, HOLE)
        {
            codes.extend_from_slice(&[majority_of_side; 8]);
            continue;
        }
        for (k, (&mine, &side)) in (start..).zip(eight.iter().zip(eight_sides)) {
            let majority = majority[usize::from(side)];
            let code = if mine == HOLE || mine == majority || (majority < mine && may_lower(k)) {
                majority
            } else {
                mine
            };
            codes.push(code);
        }
    }
    codes
}

/// Packs codes of two bits four to a byte, the first in the lowest bits.
fn pack_wdl(codes: &[u8]) -> Vec<u8> {
    let mut fours = codes.chunks_exact(4);
    let mut packed: Vec<u8> = Vec::with_capacity(codes.len().div_ceil(4));
    packed.extend(fours.by_ref().map(pack_four));
    if !fours.remainder().is_empty() {
        let mut last = [0; 4];
        last[..fours.remainder().len()].copy_from_slice(fours.remainder());
        packed.push(pack_four(&last));
    }
    packed
}

/// Four codes of two bits, one a byte, packed into one byte, the first in the lowest bits: the four bytes read as one
/// word and their low bits gathered, rather than a shift and an or for each code.
#[inline]
fn pack_four(four: &[u8]) -> u8 {
    let v = u32::from_le_bytes(four.try_into().expect("four codes"));
    ((v & 0x3) | ((v >> 6) & 0xC) | ((v >> 12) & 0x30) | ((v >> 18) & 0xC0)) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random blocks of codes in runs, with holes, and random positions that may store lower.
    fn random_blocks() -> impl Iterator<Item = (Vec<u8>, Vec<u8>, Vec<bool>)> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        (0..200).map(move |_| {
            let len = next(300) as usize;
            let (mut own, mut sides, mut lower) = (Vec::new(), Vec::new(), Vec::new());
            let (mut code, mut side) = (0, 0);
            for _ in 0..len {
                if next(6) == 0 {
                    code = next(4) as u8;
                }
                if next(40) == 0 {
                    side = next(2) as u8;
                }
                own.push(if next(5) == 0 { HOLE } else { code });
                sides.push(side);
                lower.push(next(2) == 0);
            }
            (own, sides, lower)
        })
    }

    #[test]
    fn runs_filled_eight_at_a_time_are_the_runs_filled_one_at_a_time() {
        for (own, sides, lower) in random_blocks() {
            let may_lower = |k: usize| lower[k];
            assert_eq!(
                wdl_codes(&own, may_lower),
                lane_run_codes(&own, |_| 0, may_lower)
            );
            assert_eq!(
                wdl_codes(&own, |_| false),
                lane_run_codes(&own, |_| 0, |_| false)
            );
            // Each position the majority of its side where it may store it, its own code elsewhere.
            let majority = majority_codes(&own, &sides, may_lower);
            for side in 0..2u8 {
                let of_side = |k: &usize| sides[*k] == side;
                let Some(most) = (0..3u8).rev().max_by_key(|&code| {
                    (0..own.len())
                        .filter(of_side)
                        .filter(|&k| own[k] == code)
                        .count()
                }) else {
                    continue;
                };
                for k in (0..own.len()).filter(of_side) {
                    let mine = own[k];
                    let free = mine == HOLE || mine == most || (most < mine && lower[k]);
                    assert_eq!(
                        majority[k],
                        if free { most } else { mine },
                        "{k} of {own:?}"
                    );
                }
            }
        }
        assert!(bytes_all_in(&[1, 3, 1, 1, 3, 3, 1, 1], 1, HOLE));
        assert!(!bytes_all_in(&[1, 3, 1, 1, 3, 3, 1, 0], 1, HOLE));
        assert!(!bytes_all_in(&[2, 1, 1, 1, 1, 1, 1, 1], 1, 1));
    }

    #[test]
    fn own_codes_read_from_value_codes_are_the_values_own_codes() {
        let values = (0..300).flat_map(|d| [Some(Value::win(d)), Some(Value::loss(d))]);
        for value in values.chain([None, Some(Value::DRAW)]) {
            let own = value.map_or(HOLE, |v| format::wdl_code(v.outcome()));
            assert_eq!(own_code(value), own, "{value:?}");
        }
        let mut counts = CodeCounts::default();
        let mut expected = SideCounts::default();
        for value in [
            Value::win(7),
            Value::DRAW,
            Value::loss(0),
            Value::win(3),
            Value::loss(12),
        ] {
            counts.add(Value::code(Some(value)));
            expected.add(value);
        }
        counts.add(Value::code(None));
        assert_eq!(counts.side_counts(), expected);
        assert_eq!((counts.holes, counts.positions()), (1, 5));
        assert_eq!(CodeCounts::default().side_counts(), SideCounts::default());
    }

    /// The fill of free indices: holes and floors continue the run before them when they may; otherwise a position
    /// starts a run of its own outcome, and holes at the block's start take the first position's.
    #[test]
    fn free_indices_continue_runs_or_start_their_own() {
        const L: u8 = 0;
        const D: u8 = 1;
        const W: u8 = 2;
        // (value, exits reach it): `None` is a hole.
        let cells: &[Option<(Outcome, bool)>] = &[
            None,                         // the block starts free: the run of the first position, a win
            Some((Outcome::Win, true)),   // may store L, D, W: continues W
            Some((Outcome::Draw, false)), // D only
            Some((Outcome::Draw, true)),  // L or D: continues D
            Some((Outcome::Loss, false)), // L only
            Some((Outcome::Win, true)),   // continues L
            Some((Outcome::Draw, true)),  // continues L
            Some((Outcome::Win, false)),  // W only
            Some((Outcome::Win, true)),   // continues W
            None,                         // continues W
            Some((Outcome::Draw, true)),  // L or D, not W: starts its own run, D
            Some((Outcome::Draw, true)),
            Some((Outcome::Loss, false)),
        ];
        let values = |i: Index| {
            cells[i as usize].map(|(o, _)| match o {
                Outcome::Win => Value::win(1),
                Outcome::Draw => Value::DRAW,
                Outcome::Loss => Value::loss(0),
            })
        };
        let best_exit = |i: Index| match cells[i as usize] {
            Some((o, true)) => o,
            _ => Outcome::Loss,
        };
        let own = own_codes(0..cells.len() as Index, &values);
        let may_lower =
            |k: usize| values(k as Index).is_some_and(|v| best_exit(k as Index) == v.outcome());
        assert_eq!(
            wdl_codes(&own, may_lower),
            [W, W, D, D, L, L, L, W, W, W, D, D, L]
        );
        // Without floors only the holes are free.
        assert_eq!(
            wdl_codes(&own, |_| false),
            [W, W, D, D, L, W, D, W, W, W, D, D, L]
        );
    }

    /// Runs kept apart by lane: a free index continues the run of the nearest index before it in its own lane, and
    /// one before any in its lane takes the first outcome after it in its lane.
    #[test]
    fn free_indices_continue_the_runs_of_their_own_lane() {
        const L: u8 = 0;
        const D: u8 = 1;
        const W: u8 = 2;
        // Lanes alternate: lane 0 at even offsets, lane 1 at odd ones.
        let own = [HOLE, HOLE, W, L, HOLE, HOLE, D, W, W, HOLE, HOLE, D];
        let lane = |k: usize| (k % 2) as u8;
        // Lane 0: _ W _ D W _ -> W W W D W W; lane 1: _ L _ W _ D -> L L L W W D.
        assert_eq!(
            lane_run_codes(&own, lane, |_| false),
            [W, L, W, L, W, L, D, W, W, W, W, D]
        );
        // Across lanes, a hole continues whatever came just before it.
        assert_eq!(
            wdl_codes(&own, |_| false),
            [W, W, W, L, L, L, D, W, W, W, W, D]
        );
        // Lowering continues the lane's run too: the win at 8 may store lane 0's draw.
        assert_eq!(
            lane_run_codes(&own, lane, |k| k == 8),
            [W, L, W, L, W, L, D, W, D, W, D, D]
        );
    }

    /// The majority fill: holes and the positions that may store the block's most frequent outcome store it; a
    /// position of a worse outcome, or of a better one that may not store a worse, keeps its own.
    #[test]
    fn free_indices_take_the_most_frequent_outcome_where_they_may() {
        const L: u8 = 0;
        const D: u8 = 1;
        const W: u8 = 2;
        let own = [W, D, HOLE, D, W, L, D, HOLE, W];
        // Draws are the most frequent (3 of 7 positions); the wins at 0 and 8 may store a worse outcome.
        let may_lower = |k: usize| k == 0 || k == 8;
        let one_side = [0; 9];
        assert_eq!(
            majority_codes(&own, &one_side, may_lower),
            [D, D, D, D, W, L, D, D, D]
        );
        // Of equals, the lowest: two wins and two losses.
        assert_eq!(
            majority_codes(&[W, L, HOLE, W, L], &[0; 5], |_| true),
            [L, L, L, L, L]
        );
        assert_eq!(majority_codes(&[HOLE, HOLE], &[0; 2], |_| false), [L, L]);
        // Each side its own: side 1 mostly wins, side 0 mostly losses; the holes of each take their side's.
        assert_eq!(
            majority_codes(
                &[W, L, W, L, HOLE, HOLE, W, D],
                &[1, 0, 1, 0, 1, 0, 1, 0],
                |_| true
            ),
            [W, L, W, L, W, L, W, L]
        );
    }

    /// The check of a stored WDL block: a position reads back its own code, or a worse one where it may store that;
    /// a hole reads back anything. A better code, or a worse one where the position may not store it, is caught at
    /// its offset.
    #[test]
    fn a_stored_wdl_block_is_checked_against_what_each_index_may_store() {
        const L: u8 = 0;
        const D: u8 = 1;
        const W: u8 = 2;
        let own = [W, D, HOLE, W, L, D];
        // Offsets 0 and 5 may store worse codes.
        let may_lower = |k: usize| k == 0 || k == 5;
        let check = |read: [u8; 6]| misread_wdl(&own, &pack_wdl(&read), may_lower);
        assert_eq!(check([W, D, L, W, L, D]), None);
        assert_eq!(
            check([L, D, W, W, L, L]),
            None,
            "lowered where allowed, a hole"
        );
        assert_eq!(
            check([W, L, D, W, L, D]),
            Some(1),
            "lowered where not allowed"
        );
        assert_eq!(check([W, D, D, W, D, D]), Some(4), "a loss read as a draw");
        assert_eq!(
            check([W, D, D, W, L, W]),
            Some(5),
            "raised, though lowerable"
        );
    }

    /// Work spread over lanes comes back in the items' order whatever the lanes and the threads, every item once, each
    /// done with a tool of its own chunk; an error stops it.
    #[test]
    fn lanes_keep_the_items_order_whatever_the_threads() {
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for lanes in 1..=4 {
                let mut tools: Vec<usize> = vec![0; lanes];
                let mut kept = Vec::new();
                pool.install(|| {
                    let (first, more) = tools.split_first_mut().expect("a lane at least");
                    in_lanes(
                        (0..11u32).collect(),
                        first,
                        more,
                        |&item, uses| {
                            *uses += 1;
                            Ok(item * item)
                        },
                        |item, square| kept.push((item, square)),
                    )
                })
                .unwrap();
                let expected: Vec<(u32, u32)> = (0..11).map(|i| (i, i * i)).collect();
                assert_eq!(kept, expected, "{threads} threads, {lanes} lanes");
                // Chunks of `lanes` items: the first tool works in every chunk, the last in the full ones.
                assert_eq!(tools[0], 11usize.div_ceil(lanes));
                assert_eq!(tools[lanes - 1], 11 / lanes);
                assert_eq!(tools.iter().sum::<usize>(), 11);
            }
        }
        let failed = in_lanes(
            vec![1, 2, 3],
            &mut (),
            &mut [],
            |&item, _| match item {
                2 => Err(io::Error::other("the second item fails")),
                _ => Ok(item),
            },
            |_, _| {},
        );
        assert_eq!(failed.unwrap_err().to_string(), "the second item fails");
    }
}
