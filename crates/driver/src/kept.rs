//! The tables a `generate` run keeps for the builds still to come, within their share of the memory budget.
//!
//! A table built in the run stays in memory while a later table exits into it. Past the share, the tables needed
//! furthest ahead are set aside on disk, in the run's work folder, as their value codes (one file each), and read
//! back whole when a build needs them: one sequential read. Reading a table's own files again would decode every
//! block and, for a distance file of one side to move, search every position of the other side through its own
//! sub-tables, read in turn: in the five-man set of one side, minutes for a table with pawns.

use std::collections::HashMap;
use std::fs::File;
use std::hash::Hash;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use rayon::prelude::*;
use retro_family::{Index, Values};
use retro_probe::format::distance_code;

use crate::dense::{Codes, DenseValues};

/// The share of the memory budget that the tables kept in memory for later builds may take (half), beside the
/// sub-tables of the table being built: without a bound, a build of every five-man chess table (`--all 5
/// --one-side`) went past 21 GB of anonymous memory with a budget of 12.
pub const KEPT_SHARE: u64 = 2;

/// Indices coded and written, or read and widened, at a time: the buffer of a set-aside file.
const CHUNK: usize = 1 << 22;

/// The tables kept for later builds: in memory, or set aside in a folder of their own.
pub struct Kept<T> {
    in_memory: HashMap<T, InMemory>,
    aside: HashMap<T, Aside>,
    folder: PathBuf,
    /// Tables set aside, and read back, so far.
    counts: Counts,
}

/// How often tables were set aside and read back, and the bytes written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub set_aside: u64,
    pub bytes: u64,
    pub read_back: u64,
}

/// A table held in memory with its number of indices.
struct InMemory {
    values: Box<dyn Values>,
    size: Index,
}

/// A table set aside: its file of codes, their width in bytes, its number of indices and its longest distance.
struct Aside {
    path: PathBuf,
    width: usize,
    size: Index,
    longest: u32,
}

impl<T: Clone + Eq + Hash> Kept<T> {
    /// Nothing kept yet; tables set aside go to `folder`, emptied now (of a run that was killed) and removed when
    /// this is dropped.
    pub fn new(folder: PathBuf) -> Kept<T> {
        let _ = std::fs::remove_dir_all(&folder);
        Kept {
            in_memory: HashMap::new(),
            aside: HashMap::new(),
            folder,
            counts: Counts::default(),
        }
    }

    /// The values of `table`, if it is in memory.
    pub fn get(&self, table: &T) -> Option<&dyn Values> {
        self.in_memory.get(table).map(|m| m.values.as_ref())
    }

    /// The bytes of the tables in memory.
    pub fn resident_bytes(&self) -> u64 {
        self.in_memory
            .values()
            .map(|m| m.values.resident_bytes())
            .sum()
    }

    /// Keeps `values`, the `size` indices of `table`, in memory.
    pub fn insert(&mut self, table: T, values: Box<dyn Values>, size: Index) {
        self.in_memory.insert(table, InMemory { values, size });
    }

    /// Forgets every table but those `wanted` (in memory, or its file set aside).
    pub fn retain(&mut self, wanted: impl Fn(&T) -> bool) {
        self.in_memory.retain(|t, _| wanted(t));
        self.aside.retain(|t, aside| {
            let keep = wanted(t);
            if !keep {
                let _ = std::fs::remove_file(&aside.path);
            }
            keep
        });
    }

    /// Sets aside the tables in memory, other than those `needed` now, whose next use (the place of the next build
    /// that needs them, [`to_set_aside`]) is furthest ahead, until the others take at most `allowance` bytes.
    /// `name` names a table's file. A table that cannot be written is dropped instead (said on stderr), and read
    /// from the directory when its turn comes.
    pub fn make_room(
        &mut self,
        needed: &[T],
        next_use: impl Fn(&T) -> usize,
        name: impl Fn(&T) -> String,
        allowance: u64,
    ) {
        let candidates = self
            .in_memory
            .iter()
            .filter(|(t, _)| !needed.contains(t))
            .map(|(t, m)| (t.clone(), m.values.resident_bytes()))
            .collect();
        for t in to_set_aside(candidates, next_use, &name, allowance) {
            let held = self.in_memory.remove(&t).expect("a table in memory");
            if self.aside.contains_key(&t) {
                continue; // its file is still there from an earlier time
            }
            let path = self.folder.join(format!("{}.codes", name(&t)));
            match set_aside(&held, &path) {
                Ok(width) => {
                    self.counts.set_aside += 1;
                    self.counts.bytes += held.size * width as u64;
                    let aside = Aside {
                        path,
                        width,
                        size: held.size,
                        longest: held.values.longest_plies(),
                    };
                    self.aside.insert(t, aside);
                }
                Err(e) => {
                    let _ = std::fs::remove_file(&path);
                    eprintln!(
                        "retro: cannot set {} aside in {} ({e}): it will be read from its files again",
                        name(&t),
                        self.folder.display()
                    );
                }
            }
        }
    }

    /// Brings `table` into memory: from its file set aside, or else from `read` (the directory).
    pub fn bring_in(
        &mut self,
        table: &T,
        read: impl FnOnce() -> Result<DenseValues>,
    ) -> Result<()> {
        if self.in_memory.contains_key(table) {
            return Ok(());
        }
        let values = match self.aside.get(table) {
            Some(aside) => match read_aside(aside) {
                Ok(values) => {
                    self.counts.read_back += 1;
                    values
                }
                Err(e) => {
                    eprintln!(
                        "retro: cannot read {} back ({e}): reading the table's files",
                        aside.path.display()
                    );
                    read()?
                }
            },
            None => read()?,
        };
        let size = values.size();
        self.insert(table.clone(), Box::new(values), size);
        Ok(())
    }

    /// How often tables were set aside and read back so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Whether `table` is set aside (and not in memory).
    pub fn is_aside(&self, table: &T) -> bool {
        self.aside.contains_key(table) && !self.in_memory.contains_key(table)
    }
}

impl<T> Drop for Kept<T> {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// Which of the `candidates` (with their bytes) to set aside so that the rest take at most `allowance` bytes: those
/// whose `next_use` is furthest ahead first, ties by `name`.
fn to_set_aside<T>(
    mut candidates: Vec<(T, u64)>,
    next_use: impl Fn(&T) -> usize,
    name: impl Fn(&T) -> String,
    allowance: u64,
) -> Vec<T> {
    let mut bytes: u64 = candidates.iter().map(|(_, b)| b).sum();
    candidates.sort_by_cached_key(|(t, _)| (std::cmp::Reverse(next_use(t)), name(t)));
    let mut chosen = Vec::new();
    for (t, b) in candidates {
        if bytes <= allowance {
            break;
        }
        bytes -= b;
        chosen.push(t);
    }
    chosen
}

/// Writes the codes of `held` (the distance file's codes, in the narrowest width that its longest distance allows)
/// to `path`; returns the width. A code wider than that (a longest distance that was only a hint) is an error, and
/// the table is read from its files instead.
fn set_aside(held: &InMemory, path: &Path) -> std::io::Result<usize> {
    let values = held.values.as_ref();
    let widest = distance_code(Some(retro_family::Value::loss(values.longest_plies())));
    let width = if widest <= u64::from(u8::MAX) {
        1
    } else if widest <= u64::from(u16::MAX) {
        2
    } else {
        4
    };
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)?;
    }
    let mut file = BufWriter::new(File::create(path)?);
    let mut buffer = vec![0u8; CHUNK * width];
    let mut start = 0;
    while start < held.size {
        let end = (start + CHUNK as Index).min(held.size);
        let bytes = &mut buffer[..(end - start) as usize * width];
        bytes
            .par_chunks_mut(width)
            .enumerate()
            .try_for_each(|(k, out)| {
                let i = start + k as Index;
                let code = distance_code(values.value(i)).to_le_bytes();
                if code[width..].iter().any(|&b| b != 0) {
                    return Err(std::io::Error::other(format!(
                        "index {i}: a distance past the longest, {} plies",
                        values.longest_plies()
                    )));
                }
                out.copy_from_slice(&code[..width]);
                Ok(())
            })?;
        file.write_all(bytes)?;
        start = end;
    }
    file.into_inner().map_err(|e| e.into_error())?.sync_data()?;
    Ok(width)
}

/// Reads a table set aside back.
fn read_aside(aside: &Aside) -> std::io::Result<DenseValues> {
    let mut file = File::open(&aside.path)?;
    let expected = aside.size * aside.width as u64;
    if file.metadata()?.len() != expected {
        return Err(std::io::Error::other(format!(
            "{} bytes where {expected} were written",
            file.metadata()?.len()
        )));
    }
    let size = aside.size as usize;
    let codes = match aside.width {
        1 => {
            let mut codes = vec![0u8; size];
            file.read_exact(&mut codes)?;
            Codes::Byte(codes)
        }
        2 => Codes::Narrow(read_wide(&mut file, size, u16::from_le_bytes)?),
        _ => Codes::Wide(read_wide(&mut file, size, u32::from_le_bytes)?),
    };
    Ok(DenseValues::from_codes(codes, aside.longest))
}

/// `size` little-endian codes of `N` bytes from `file`, a chunk at a time.
fn read_wide<C, const N: usize>(
    file: &mut File,
    size: usize,
    decode: fn([u8; N]) -> C,
) -> std::io::Result<Vec<C>> {
    let mut codes = Vec::with_capacity(size);
    let mut buffer = vec![0u8; CHUNK * N];
    while codes.len() < size {
        let n = (size - codes.len()).min(CHUNK);
        let bytes = &mut buffer[..n * N];
        file.read_exact(bytes)?;
        codes.extend(
            bytes
                .chunks_exact(N)
                .map(|c| decode(c.try_into().expect("N bytes"))),
        );
    }
    Ok(codes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_family::Value;

    /// Values of a made-up table: holes, draws, and wins and losses up to `longest` plies.
    struct Made {
        longest: u32,
    }

    impl Values for Made {
        fn value(&self, index: Index) -> Option<Value> {
            let plies = (index * 7919 % u64::from(self.longest + 1)) as u32;
            match index % 5 {
                0 => None,
                1 => Some(Value::DRAW),
                2 | 3 => Some(Value::win(plies | 1)),
                _ => Some(Value::loss(plies & !1)),
            }
        }

        fn longest_plies(&self) -> u32 {
            self.longest
        }

        fn resident_bytes(&self) -> u64 {
            1000
        }
    }

    /// Tables kept for later builds are set aside, those needed furthest ahead first, only as far as the allowance
    /// asks; a table no later build needs goes first.
    #[test]
    fn to_set_aside_takes_those_needed_furthest_ahead_first() {
        let kept = vec![("a", 40), ("b", 30), ("c", 20), ("d", 10)];
        let next_use = |t: &&str| match *t {
            "a" => 1,
            "b" => 5,
            "c" => usize::MAX,
            "d" => 5,
            other => panic!("{other}"),
        };
        let name = |t: &&str| t.to_string();
        assert_eq!(
            to_set_aside(kept.clone(), next_use, name, 100),
            Vec::<&str>::new()
        );
        assert_eq!(to_set_aside(kept.clone(), next_use, name, 80), ["c"]);
        // "b" and "d" are needed at the same build: by name.
        assert_eq!(to_set_aside(kept.clone(), next_use, name, 50), ["c", "b"]);
        assert_eq!(
            to_set_aside(kept.clone(), next_use, name, 40),
            ["c", "b", "d"]
        );
        assert_eq!(to_set_aside(kept, next_use, name, 0), ["c", "b", "d", "a"]);
    }

    /// A table set aside reads back the same values, at each width of the codes (one byte up to 126 plies, two,
    /// four), its longest distance kept.
    #[test]
    fn a_table_set_aside_reads_back_the_same_values() {
        let dir = tempfile::tempdir().unwrap();
        for (longest, width) in [(100, 1), (3000, 2), (70_000, 4)] {
            let size = (CHUNK + 1234) as Index;
            let mut kept = Kept::new(dir.path().join("kept"));
            kept.insert("t", Box::new(Made { longest }), size);
            kept.make_room(&[], |_| 1, |t| t.to_string(), 0);
            assert!(kept.is_aside(&"t"));
            assert_eq!(kept.aside[&"t"].width, width);
            kept.bring_in(&"t", || panic!("read from the directory"))
                .unwrap();
            let counts = Counts {
                set_aside: 1,
                bytes: size * width as u64,
                read_back: 1,
            };
            assert_eq!(kept.counts(), counts);
            let back = kept.get(&"t").unwrap();
            assert_eq!(back.longest_plies(), longest);
            let made = Made { longest };
            for i in (0..size).step_by(97).chain(size - 5..size) {
                assert_eq!(back.value(i), made.value(i), "index {i}");
            }
            assert_eq!(back.value(size), None);
        }
    }

    /// Only the tables past the allowance are set aside, those needed furthest ahead first; the ones needed now
    /// stay; a table no longer wanted loses its file; the folder goes with the run.
    #[test]
    fn the_tables_needed_furthest_ahead_are_set_aside_first() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("kept");
        let mut kept = Kept::new(folder.clone());
        for t in ["a", "b", "c", "d"] {
            kept.insert(t, Box::new(Made { longest: 10 }), 100);
        }
        let next_use = |t: &&str| match *t {
            "a" => 5,
            "b" => 9,
            "c" => 1,
            _ => 9,
        };
        kept.make_room(&["b"], next_use, |t| t.to_string(), 1000);
        // "b" is needed now, and the allowance is for the others (3000 bytes): "d" (9) goes, then "a" (5); "c" (1)
        // stays.
        assert!(kept.is_aside(&"d") && kept.is_aside(&"a"));
        assert!(kept.get(&"b").is_some() && kept.get(&"c").is_some());
        assert_eq!(kept.resident_bytes(), 2000);
        assert!(folder.join("a.codes").exists());
        kept.retain(|t| *t != "a");
        assert!(!folder.join("a.codes").exists() && folder.join("d.codes").exists());
        drop(kept);
        assert!(!folder.exists());
    }

    /// Values whose longest distance is a hint below their distances are not set aside in a width too narrow: the
    /// table is dropped, and its partial file with it.
    #[test]
    fn a_longest_distance_below_the_values_drops_the_table() {
        struct Lying(Made);
        impl Values for Lying {
            fn value(&self, index: Index) -> Option<Value> {
                self.0.value(index)
            }
            fn longest_plies(&self) -> u32 {
                10
            }
            fn resident_bytes(&self) -> u64 {
                1000
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let mut kept = Kept::new(dir.path().join("kept"));
        kept.insert("t", Box::new(Lying(Made { longest: 3000 })), 1000);
        kept.make_room(&[], |_| 1, |t| t.to_string(), 0);
        assert!(!kept.is_aside(&"t") && kept.get(&"t").is_none());
        assert!(!dir.path().join("kept/t.codes").exists());
    }

    /// A table that cannot be written is dropped, and read from the directory when its turn comes.
    #[test]
    fn a_table_that_cannot_be_set_aside_is_read_from_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("kept");
        let mut kept = Kept::new(blocker.join("under-a-file"));
        std::fs::write(&blocker, b"a file where the folder would be").unwrap();
        kept.insert("t", Box::new(Made { longest: 10 }), 100);
        kept.make_room(&[], |_| 1, |t| t.to_string(), 0);
        assert!(!kept.is_aside(&"t") && kept.get(&"t").is_none());
        let mut read = false;
        kept.bring_in(&"t", || {
            read = true;
            Err(anyhow::anyhow!("not in the directory either"))
        })
        .unwrap_err();
        assert!(read);
    }
}
