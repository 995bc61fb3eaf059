//! A directory of tables, and one table (its two files) probed through the shared block cache.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use retro_game::{Index, Outcome, Value};

use crate::cache::BlockCache;
use crate::chunked;
use crate::error::{ErrorKind, ProbeError};
use crate::file::{TableFile, distance_in};
use crate::format::{self, FileKind, Metadata};

/// A directory of tables, laid out as `DIR/GAME/NAME.rwdl` and `DIR/GAME/NAME.rdst`, with one cache of decompressed
/// blocks for all of them. Share it between threads (it is `Sync`); tables are opened once, on first use.
pub struct Tables {
    dir: PathBuf,
    cache: Arc<BlockCache>,
    opened: Mutex<HashMap<(String, String), Arc<Table>>>,
}

impl Tables {
    /// Opens a directory of tables with a cache of about `cache_bytes` bytes of decompressed blocks.
    pub fn open(dir: impl Into<PathBuf>, cache_bytes: usize) -> Result<Tables, ProbeError> {
        let dir = dir.into();
        match std::fs::metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(ProbeError::new(
                    &dir,
                    ErrorKind::Io(std::io::Error::other("not a directory")),
                ));
            }
            Err(e) => return Err(ProbeError::io(&dir, e)),
        }
        Ok(Tables {
            dir,
            cache: Arc::new(BlockCache::new(cache_bytes)),
            opened: Mutex::default(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The table `name` of game `game`, opened and checked on first use.
    pub fn table(&self, game: &str, name: &str) -> Result<Arc<Table>, ProbeError> {
        let key = (game.to_owned(), name.to_owned());
        if let Some(table) = self.lock().get(&key) {
            return Ok(Arc::clone(table));
        }
        // Opened outside the lock: opening checks whole headers, and other threads may be probing other tables.
        let table = Arc::new(Table::open_with_cache(
            &self.dir,
            game,
            name,
            Arc::clone(&self.cache),
        )?);
        Ok(Arc::clone(self.lock().entry(key).or_insert(table)))
    }

    /// The names of the tables of `game` in the directory (those with a WDL file), sorted.
    pub fn names(&self, game: &str) -> Result<Vec<String>, ProbeError> {
        let dir = self.dir.join(game);
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(|e| ProbeError::io(&dir, e))? {
            let entry = entry.map_err(|e| ProbeError::io(&dir, e))?;
            let file_name = entry.file_name();
            let Some(file_name) = file_name.to_str() else {
                continue;
            };
            if let Some(stem) = file_name.strip_suffix(&format!(".{}", format::WDL_EXTENSION))
                && !stem.starts_with('.')
            {
                names.push(stem.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Arc<Table>>> {
        // The map is only ever inserted into; a panic elsewhere cannot leave it half-updated.
        self.opened.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One table: its WDL file and its distance file, which must describe the same table.
pub struct Table {
    wdl: TableFile,
    distance: TableFile,
    cache: Arc<BlockCache>,
}

impl Table {
    /// Opens one table of a directory with a cache of its own (see [`Tables`] to share a cache between tables).
    pub fn open(
        dir: &Path,
        game: &str,
        name: &str,
        cache_bytes: usize,
    ) -> Result<Table, ProbeError> {
        Self::open_with_cache(dir, game, name, Arc::new(BlockCache::new(cache_bytes)))
    }

    fn open_with_cache(
        dir: &Path,
        game: &str,
        name: &str,
        cache: Arc<BlockCache>,
    ) -> Result<Table, ProbeError> {
        for (what, word) in [("game", game), ("table", name)] {
            format::check_name(what, word)
                .map_err(|e| ProbeError::new(dir, ErrorKind::BadName(e)))?;
        }
        let wdl = TableFile::open(&format::table_path(dir, game, name, FileKind::Wdl))?;
        let distance = TableFile::open(&format::table_path(dir, game, name, FileKind::Distance))?;
        Self::pair(wdl, distance, game, name, cache)
    }

    /// Pairs two opened files (tests and fuzzing use this with files held in memory).
    pub fn from_files(
        wdl: TableFile,
        distance: TableFile,
        game: &str,
        name: &str,
        cache_bytes: usize,
    ) -> Result<Table, ProbeError> {
        Self::pair(
            wdl,
            distance,
            game,
            name,
            Arc::new(BlockCache::new(cache_bytes)),
        )
    }

    fn pair(
        wdl: TableFile,
        distance: TableFile,
        game: &str,
        name: &str,
        cache: Arc<BlockCache>,
    ) -> Result<Table, ProbeError> {
        for (file, kind) in [(&wdl, FileKind::Wdl), (&distance, FileKind::Distance)] {
            let meta = &file.header().meta;
            if meta.game != game || meta.name != name {
                return Err(ProbeError::new(
                    file.path(),
                    ErrorKind::WrongTable {
                        expected: format!("{game} {name}"),
                        found: format!("{} {}", meta.game, meta.name),
                    },
                ));
            }
            if file.header().kind != kind {
                return Err(ProbeError::malformed(
                    file.path(),
                    format!(
                        "expected a {kind:?} file, found a {:?} file",
                        file.header().kind
                    ),
                ));
            }
        }
        if wdl.header().meta != distance.header().meta {
            return Err(ProbeError::new(
                wdl.path(),
                ErrorKind::Mismatch(format!(
                    "{} describes another table (sizes, counts or parameters differ)",
                    distance.path().display()
                )),
            ));
        }
        Ok(Table {
            wdl,
            distance,
            cache,
        })
    }

    /// Which table this is and what it holds.
    pub fn meta(&self) -> &Metadata {
        &self.distance.header().meta
    }

    /// Number of indices, holes included.
    pub fn size(&self) -> Index {
        self.meta().index_size
    }

    pub fn wdl_file(&self) -> &TableFile {
        &self.wdl
    }

    pub fn distance_file(&self) -> &TableFile {
        &self.distance
    }

    /// The game payload stored with the table (decompressed).
    pub fn payload(&self) -> Result<Vec<u8>, ProbeError> {
        self.distance.payload()
    }

    fn check_index(&self, file: &TableFile, index: Index) -> Result<(), ProbeError> {
        let size = self.size();
        if index < size {
            Ok(())
        } else {
            Err(ProbeError::new(
                file.path(),
                ErrorKind::OutOfRange { index, size },
            ))
        }
    }

    /// The outcome of the position at `index`. The WDL file does not know holes: probing a hole gives a meaningless
    /// outcome (the game tells holes apart; [`probe`](Table::probe) does too).
    ///
    /// When the WDL file holds floors ([`wdl_floors`](Table::wdl_floors)), the outcome is read from the distance
    /// file instead, which is exact but slower: a prober that knows the game's moves reads the floor with
    /// [`probe_wdl_floor`](Table::probe_wdl_floor) and searches the exits itself.
    pub fn probe_wdl(&self, index: Index) -> Result<Outcome, ProbeError> {
        if self.wdl_floors() {
            return Ok(self.probe(index)?.map_or(Outcome::Draw, Value::outcome));
        }
        self.probe_wdl_floor(index)
    }

    /// Whether the WDL file's values are floors (format version 3 or 6, or 4 with floors; see
    /// [`Header::floors`](crate::format::Header)): the outcome of a position is the better, for its side to move, of
    /// the stored one, those its exits reach and, in version 6, a terminal position's own.
    pub fn wdl_floors(&self) -> bool {
        self.wdl.header().floors()
    }

    /// The outcome stored in the WDL file at `index`: the position's outcome, or a floor of it when
    /// [`wdl_floors`](Table::wdl_floors). A stored win is always exact.
    pub fn probe_wdl_floor(&self, index: Index) -> Result<Outcome, ProbeError> {
        let file = &self.wdl;
        self.check_index(file, index)?;
        // A file of version 8 stores its values in another order of the index's digits.
        let stored = file.header().stored_position(index);
        let shift = file.header().block_values.trailing_zeros();
        let block = stored >> shift;
        let within = (stored & (u64::from(file.header().block_values) - 1)) as usize;
        // The read gives the bare code, not a `Result`, so that it comes back in a register rather than as a nested
        // result through memory (about 3% more probes a second, 15 alternated runs, 10 of them faster).
        let code = self.cache.with_block(
            file.slots(),
            block,
            || {
                file.load_block(block)
                    .map(|plain| chunked::from_plain(&plain))
            },
            |kept| chunked::code_at(kept, within),
        )?;
        file.wdl_code(code)
    }

    /// The value of the position at `index` (outcome and plies), from the distance file; `None` for a hole. An
    /// index the distance file leaves out (see [`stores`](Table::stores)) is an error of kind
    /// [`NotStored`](crate::ErrorKind::NotStored).
    pub fn probe(&self, index: Index) -> Result<Option<Value>, ProbeError> {
        let file = &self.distance;
        self.check_index(file, index)?;
        let header = file.header();
        if !header.stores(index) {
            return Err(ProbeError::new(file.path(), ErrorKind::NotStored { index }));
        }
        let shift = header.block_values.trailing_zeros();
        let block = index >> shift;
        let within = (index & (u64::from(header.block_values) - 1)) as usize;
        let encoding = header.encoding;
        self.cache.with_block(
            file.slots(),
            block,
            || file.load_block(block),
            |raw| distance_in(encoding, raw, within),
        )
    }

    /// Whether the distance file stores the value of `index`: every index, except in a file that leaves one side
    /// to move out (format version 5), whose values are found by searching their moves.
    pub fn stores(&self, index: Index) -> bool {
        self.distance.header().stores(index)
    }

    /// Checks the checksum of every block of both files.
    pub fn check_blocks(&self) -> Result<(), ProbeError> {
        self.wdl.check_blocks()?;
        self.distance.check_blocks()
    }
}
