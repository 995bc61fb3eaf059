//! Probing a directory of chess tables from an engine's search: a position in, its win/draw/loss or its distance
//! to mate out, from many threads at once.
//!
//! A [`Prober`] lists the directory's chess tables once, when it is made, into a table sorted by material; each
//! table is opened and checked on its first probe (a `OnceLock`, so a table is opened once however many threads
//! ask for it first). After that a probe is: count the material, find its key by binary search (among the tables'
//! materials in both orientations, so that `KvKQ` finds `KQvK` with its colours to exchange), number the position,
//! read one value through the probe library's block cache. No lock is taken and nothing is allocated unless a block
//! has to be decompressed.
//!
//! The tables store positions without en-passant rights. A position with a legal en-passant capture is valued by
//! searching its moves (see [`crate::analysis::value_of`]), which is exact and rare.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use retro_family::Family;
use retro_game::{Outcome, Value};
use retro_probe::{Table, Tables};

use crate::analysis::{self, Analysis};
use crate::family::Chess;
use crate::index::TableIndex;
use crate::material::{MAX_MEN, Material};
use crate::position::Position;

/// Why a probe has no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// The directory has no table for the position's material.
    #[error(
        "no table {material} in {dir} (`retro generate chess {material} --out {dir}` builds it)"
    )]
    Missing { material: String, dir: String },
    /// The position has more men than any table can hold.
    #[error("{men} men: chess tables hold at most {MAX_MEN}")]
    TooManyMen { men: u32 },
    /// A table is there but cannot be read, or does not match this version of retro.
    #[error("{0}")]
    Unreadable(String),
}

/// A material a table answers for, as the side to move's pieces may stand: the table's own orientation, or (unless
/// the material is symmetric) the one with colours exchanged.
#[derive(Clone, Copy)]
struct Entry {
    /// [`Material::key`] of the position's material.
    key: u64,
    /// The table's place in `Prober::slots`.
    slot: u32,
    /// Whether a position of this material is numbered with its colours exchanged.
    flipped: bool,
}

/// The first bucket of `key` among `buckets` (a power of two): the top bits of a multiplicative hash.
#[inline]
fn bucket(key: u64, buckets: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - buckets.trailing_zeros())) as usize
}

/// A [`LookupError`] on the way through the probes: boxed, one pointer, so that `Result<Outcome, Failed>` and the
/// other results of the hot path come back in registers rather than through memory (an error is rare, a probe is
/// not). The public functions give the error itself.
#[derive(Debug)]
struct Failed(Box<LookupError>);

impl From<LookupError> for Failed {
    #[cold]
    fn from(e: LookupError) -> Failed {
        Failed(Box::new(e))
    }
}

impl From<Failed> for LookupError {
    fn from(e: Failed) -> LookupError {
        *e.0
    }
}

/// A table that cannot be read, as a [`Failed`].
#[cold]
fn unreadable(e: retro_probe::ProbeError) -> Failed {
    LookupError::Unreadable(e.to_string()).into()
}

/// One material's table, opened on first use.
struct Slot {
    material: Material,
    opened: OnceLock<Result<Opened, LookupError>>,
}

struct Opened {
    index: TableIndex,
    table: Arc<Table>,
}

/// The chess tables of a directory, ready to probe from any number of threads.
pub struct Prober {
    tables: Arc<Tables>,
    /// Sorted by material, for binary search.
    slots: Vec<Slot>,
    /// Every material the tables answer for, in both orientations, by key in an open-addressing hash table (a
    /// power of two of buckets, at most a quarter full, linear probing): one or two loads a probe, where a binary
    /// search over a few hundred materials took a chain of dependent ones.
    entries: Vec<Option<Entry>>,
    largest: u32,
}

impl Prober {
    /// Opens the chess tables of `dir` (its `chess/` subdirectory) with a block cache of about `cache_bytes` bytes.
    pub fn open(dir: &Path, cache_bytes: usize) -> Result<Prober, LookupError> {
        let tables = Tables::open(dir, cache_bytes)
            .map_err(|e| LookupError::Unreadable(format!("cannot open the tables: {e}")))?;
        Prober::over(Arc::new(tables))
    }

    /// The chess tables among `tables` (which may be shared with probes of other games).
    pub fn over(tables: Arc<Tables>) -> Result<Prober, LookupError> {
        let game = Chess.about().name;
        let names = if tables.dir().join(game).is_dir() {
            tables
                .names(game)
                .map_err(|e| LookupError::Unreadable(e.to_string()))?
        } else {
            Vec::new()
        };
        let mut slots: Vec<Slot> = names
            .iter()
            // Other files in the folder are not chess tables; they are skipped, not errors.
            .filter_map(|name| {
                Material::parse(name)
                    .ok()
                    .filter(|m| m.to_string() == *name)
            })
            .filter(|m| m.is_canonical())
            .map(|material| Slot {
                material,
                opened: OnceLock::new(),
            })
            .collect();
        slots.sort_by_key(|s| s.material);
        slots.dedup_by_key(|s| s.material);
        let largest = slots.iter().map(|s| s.material.men()).max().unwrap_or(0);
        let mut entries: Vec<Entry> = Vec::with_capacity(2 * slots.len());
        for (at, s) in slots.iter().enumerate() {
            let slot = at as u32;
            entries.push(Entry {
                key: s.material.key(),
                slot,
                flipped: false,
            });
            if !s.material.is_symmetric() {
                entries.push(Entry {
                    key: s.material.flipped().key(),
                    slot,
                    flipped: true,
                });
            }
        }
        let mut buckets = vec![None; (4 * entries.len()).next_power_of_two().max(8)];
        for entry in entries {
            let mut at = bucket(entry.key, buckets.len());
            while buckets[at].is_some() {
                at = (at + 1) & (buckets.len() - 1);
            }
            buckets[at] = Some(entry);
        }
        Ok(Prober {
            tables,
            slots,
            entries: buckets,
            largest,
        })
    }

    /// The directory probed.
    pub fn dir(&self) -> &Path {
        self.tables.dir()
    }

    /// The tables shared with other probes.
    pub fn tables(&self) -> &Arc<Tables> {
        &self.tables
    }

    /// The most men of any table in the directory (0 when it has none). KvK needs no table.
    pub fn largest(&self) -> u32 {
        self.largest.max(2)
    }

    /// The materials of the directory's tables, in their canonical orientation.
    pub fn materials(&self) -> impl Iterator<Item = Material> + '_ {
        self.slots.iter().map(|s| s.material)
    }

    /// Whether the directory has the table a position of `material` is read from (KvK needs none).
    pub fn has(&self, material: Material) -> bool {
        material == Material::KVK || self.slot(material.canonical()).is_some()
    }

    /// Win, draw or loss for the side to move of a legal position. With a warm cache this takes no lock and
    /// allocates nothing.
    pub fn wdl(&self, pos: &Position) -> Result<Outcome, LookupError> {
        if pos.ep_square().is_none() {
            return Ok(self.stored_wdl(pos)?);
        }
        // Search the moves on outcomes alone: a stand-in distance of 0 keeps the search's order of outcomes.
        let as_value = |p: &Position| {
            self.stored_wdl(p).map(|o| match o {
                Outcome::Win => Value::win(0),
                Outcome::Loss => Value::loss(0),
                Outcome::Draw => Value::DRAW,
            })
        };
        Ok(analysis::value_of(pos, &as_value)?.outcome())
    }

    /// The value of a legal position for its side to move: the outcome and, for a win or a loss, the plies to mate
    /// with best play (the winner mating as soon as it can, the loser holding out as long as it can).
    pub fn value(&self, pos: &Position) -> Result<Value, LookupError> {
        Ok(analysis::value_of(pos, &|p: &Position| {
            self.stored_value(p)
        })?)
    }

    /// The value of a position, every legal move with its value for the side making it (best first), and the line
    /// to mate.
    pub fn analyse(&self, pos: &Position) -> Result<Analysis, LookupError> {
        Ok(analysis::analyse(pos, &|p: &Position| {
            self.stored_value(p)
        })?)
    }

    /// The outcome of a position without en-passant rights. A WDL file of floors (see
    /// [`Table::wdl_floors`]) stores a win exactly, and anything else as a floor that the captures and promotions
    /// (the moves into other tables) may raise: they are searched, in the smaller tables, only then, with a look
    /// for stalemate ([`look_one_ply`](Prober::look_one_ply); since format version 6 a stalemate may store a loss,
    /// older files store its draw, which the look leaves as it is).
    fn stored_wdl(&self, pos: &Position) -> Result<Outcome, Failed> {
        let Some((opened, index)) = self.locate(pos)? else {
            return Ok(Outcome::Draw);
        };
        let stored = opened.table.probe_wdl_floor(index).map_err(unreadable)?;
        if stored == Outcome::Win || !opened.table.wdl_floors() {
            return Ok(stored);
        }
        match self.look_one_ply(pos, stored) {
            Ok(best) => Ok(best),
            // Without the smaller tables the distance file still knows the outcome (slower, but exact).
            Err(Failed(e)) if matches!(*e, LookupError::Missing { .. }) => opened
                .table
                .probe(index)
                .map_err(unreadable)
                .map(|v| v.map_or(Outcome::Draw, Value::outcome)),
            Err(e) => Err(e),
        }
    }

    /// What looking one ply ahead finds from `floor` up (the prober's side of [`Game::best_exit`]): the better, for
    /// the side to move, of `floor` and the outcomes its captures and promotions reach, and a draw if that leaves a
    /// loss and the position is a stalemate (terminal: the rules give its value, with no table).
    ///
    /// [`Game::best_exit`]: retro_game::Game::best_exit
    fn look_one_ply(&self, pos: &Position, floor: Outcome) -> Result<Outcome, Failed> {
        let mut best = floor;
        let mut error = None;
        let mut converts = false;
        let mut visit = |m| {
            converts = true;
            if best == Outcome::Win || error.is_some() {
                return;
            }
            // A capture or a promotion gives no en-passant right: the position reached is stored as it is.
            match self.stored_wdl(&pos.play(&m)) {
                Ok(reached) => best = best.max(reached.flip()),
                Err(e) => error = Some(e),
            }
        };
        // A loss may be a stalemate: no legal move, and not in check. Listing the conversions and asking for a
        // quiet move finds the squares the king may not go to once for both, where a separate look for stalemate
        // found them again.
        let quiet = if floor == Outcome::Loss {
            pos.visit_conversions_find_quiet(&mut visit)
        } else {
            pos.visit_conversions(&mut visit);
            true
        };
        match error {
            Some(e) => Err(e),
            None if best == Outcome::Loss && !quiet && !converts && !pos.in_check(pos.turn()) => {
                Ok(Outcome::Draw)
            }
            None => Ok(best),
        }
    }

    fn stored_value(&self, pos: &Position) -> Result<Value, Failed> {
        let Some((opened, index)) = self.locate(pos)? else {
            return Ok(Value::DRAW);
        };
        if !opened.table.stores(index) {
            // A distance file of one side to move: the moves reach the other side, or other tables.
            return analysis::searched(pos, &|p: &Position| self.stored_value(p));
        }
        match opened.table.probe(index) {
            Ok(Some(value)) => Ok(value),
            Ok(None) => Err(LookupError::Unreadable(format!(
                "{}: {} reads as a hole: the table does not match this version of retro",
                opened.table.distance_file().path().display(),
                pos.fen()
            ))
            .into()),
            Err(e) => Err(unreadable(e)),
        }
    }

    /// The opened table and the index of a position without en-passant rights; `None` for KvK, a draw that needs
    /// no table.
    #[inline]
    fn locate(&self, pos: &Position) -> Result<Option<(&Opened, u64)>, Failed> {
        let men = pos.occupied().count();
        if men == 2 {
            return Ok(None);
        }
        if men > MAX_MEN {
            return Err(LookupError::TooManyMen { men }.into());
        }
        let Some(entry) = self.entry(Material::key_of(pos)) else {
            let canonical = Material::of(pos).canonical();
            return Err(LookupError::Missing {
                material: canonical.to_string(),
                dir: self.tables.dir().display().to_string(),
            }
            .into());
        };
        let slot = &self.slots[entry.slot as usize];
        let opened = match slot.opened.get_or_init(|| self.open_table(slot.material)) {
            Ok(opened) => opened,
            Err(e) => return Err(e.clone().into()),
        };
        let index = if entry.flipped {
            opened.index.encode_oriented(&pos.color_flipped())
        } else {
            opened.index.encode_oriented(pos)
        };
        Ok(Some((opened, index)))
    }

    #[inline]
    fn entry(&self, key: u64) -> Option<Entry> {
        let mask = self.entries.len() - 1;
        let mut at = bucket(key, self.entries.len());
        loop {
            match self.entries[at] {
                Some(entry) if entry.key == key => return Some(entry),
                Some(_) => at = (at + 1) & mask,
                None => return None,
            }
        }
    }

    fn slot(&self, canonical: Material) -> Option<&Slot> {
        self.slots
            .binary_search_by_key(&canonical, |s| s.material)
            .ok()
            .map(|at| &self.slots[at])
    }

    fn open_table(&self, material: Material) -> Result<Opened, LookupError> {
        let name = material.to_string();
        let table = self
            .tables
            .table(Chess.about().name, &name)
            .map_err(|e| LookupError::Unreadable(format!("cannot open table chess {name}: {e}")))?;
        Chess
            .check_params(&material, &table.meta().params)
            .map_err(|e| {
                LookupError::Unreadable(format!(
                    "{}: not a table of this version: {e}",
                    table.distance_file().path().display()
                ))
            })?;
        Ok(Opened {
            index: TableIndex::new(material),
            table,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{Color, Role};

    /// FORMAT.md's numbering of chess positions, written again from its text alone (not from `index.rs`), for a
    /// position of a canonical, non-symmetric material or a symmetric one with White to move.
    fn index_by_the_book(pos: &Position) -> u64 {
        fn binomial(n: u64, k: u64) -> u64 {
            if k > n {
                return 0;
            }
            (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
        }
        let material = Material::of(pos);
        let pawns = material.has_pawns();
        let touch = |a: u8, b: u8| (a % 8).abs_diff(b % 8) <= 1 && (a / 8).abs_diff(b / 8) <= 1;
        let canonical = |w: u8, b: u8| {
            let (wf, wr, bf, br) = (w % 8, w / 8, b % 8, b / 8);
            if pawns {
                wf < 4
            } else {
                wf < 4 && wr <= wf && (wr != wf || br <= bf)
            }
        };
        let pairs: Vec<(u8, u8)> = (0..64)
            .flat_map(|w| (0..64).map(move |b| (w, b)))
            .filter(|&(w, b)| w != b && !touch(w, b) && canonical(w, b))
            .collect();
        let map = |t: u8, mut s: u8| {
            if t & 1 != 0 {
                s ^= 7;
            }
            if t & 2 != 0 {
                s ^= 56;
            }
            if t & 4 != 0 {
                s = (s % 8) * 8 + s / 8;
            }
            s
        };
        let squares_of = |color: Color, role: Role| -> Vec<u8> {
            (0..64u8)
                .filter(|&s| {
                    pos.by_piece(color, role)
                        .contains(crate::types::Square::new(s))
                })
                .collect()
        };
        let kings = (
            squares_of(Color::White, Role::King)[0],
            squares_of(Color::Black, Role::King)[0],
        );
        let number = |t: u8| -> u64 {
            let (wk, bk) = (map(t, kings.0), map(t, kings.1));
            let pair = pairs.iter().position(|&p| p == (wk, bk)).unwrap() as u64;
            let mut index = pair;
            for color in [Color::White, Color::Black] {
                for role in [
                    Role::Queen,
                    Role::Rook,
                    Role::Bishop,
                    Role::Knight,
                    Role::Pawn,
                ] {
                    let k = u64::from(material.count(color, role));
                    if k == 0 {
                        continue;
                    }
                    let range = if role == Role::Pawn { 48 } else { 62 };
                    let mut r: Vec<u64> = squares_of(color, role)
                        .into_iter()
                        .map(|s| {
                            let s = map(t, s);
                            if role == Role::Pawn {
                                u64::from(s) - 8
                            } else {
                                u64::from(s - u8::from(s > wk) - u8::from(s > bk))
                            }
                        })
                        .collect();
                    r.sort();
                    let digit: u64 = r
                        .iter()
                        .enumerate()
                        .map(|(i, &x)| binomial(x, i as u64 + 1))
                        .sum();
                    index = index * binomial(range, k) + digit;
                }
            }
            index
        };
        let symmetries = if pawns { 2 } else { 8 };
        let first = (0..symmetries)
            .find(|&t| canonical(map(t, kings.0), map(t, kings.1)))
            .unwrap();
        let (wk, bk) = (map(first, kings.0), map(first, kings.1));
        let mut index = number(first);
        if !pawns && wk % 8 == wk / 8 && bk % 8 == bk / 8 {
            let second = (first + 1..8)
                .find(|&t| canonical(map(t, kings.0), map(t, kings.1)))
                .unwrap();
            index = index.min(number(second));
        }
        if pos.turn() == Color::Black {
            let radices: u64 = [Color::White, Color::Black]
                .into_iter()
                .flat_map(|c| Role::NON_KING.map(|r| (c, r)))
                .map(|(c, r)| {
                    let range = if r == Role::Pawn { 48 } else { 62 };
                    binomial(range, u64::from(material.count(c, r)))
                })
                .product();
            index += pairs.len() as u64 * radices;
        }
        index
    }

    #[test]
    fn the_index_is_the_one_format_md_describes() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        for name in [
            "KQvK", "KRvKB", "KPvK", "KBNvK", "KQvKR", "KPvKP", "KRvKR", "KNNvKP", "KQRvKR",
        ] {
            let index = TableIndex::new(Material::parse(name).unwrap());
            for _ in 0..300 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let Some(pos) = index.position(state % index.size()) else {
                    continue;
                };
                // The book's number is the index the position came from; the colour-flipped position (looked up
                // in the same table) numbers the same.
                let book = index_by_the_book(&pos);
                assert_eq!(book, state % index.size(), "{name} {}", pos.fen());
                assert_eq!(index.encode(&pos), Some(book), "{name} {}", pos.fen());
                let flipped = pos.color_flipped();
                assert_eq!(
                    index.encode(&flipped),
                    Some(book),
                    "{name} {}",
                    flipped.fen()
                );
                checked += 1;
            }
        }
        assert!(checked > 500, "{checked}");
    }
}
