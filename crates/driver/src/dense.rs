//! A solved table held in memory whole: looking a value up is one array read.
//!
//! A chess build looks up the tables its captures and promotions lead into once per converting move of every
//! position, and `verify` looks up every move of every position: hundreds of millions of lookups for a five-man
//! table, scattered over the whole table. Through the probe library each lookup would find and decompress a block;
//! here the table is decompressed once, block by block in parallel, into one code per index (the distance file's
//! value codes: one byte each while every distance is at most 126 plies, two while they fit, four otherwise). The
//! narrowest codes matter: the lookups of a build are scattered, and a five-man table's sub-tables at one byte an
//! index stay in the processor's last-level cache where at two they spill to memory.

use std::ops::Range;

use rayon::prelude::*;
use retro_game::{Game, Index, Move, Node, PlayConvention, Value, Values};
use retro_probe::format::{distance_code, distance_value};
use retro_probe::{ErrorKind, ProbeError, Table};

/// The longest distance whose codes fit one byte: a loss in 126 plies is code 255.
const MAX_BYTE_PLIES: u32 = 126;

/// Every value of a table, decoded.
pub struct DenseValues {
    codes: Codes,
    /// The longest win or loss, from the table's header.
    longest: u32,
}

/// The codes of every index, in the narrowest width that holds them.
pub(crate) enum Codes {
    Byte(Vec<u8>),
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl DenseValues {
    /// Reads every block of `table`'s distance file (checking each block's checksum as it is read), into one byte
    /// per index when the header's longest distance allows (codes up to 255), else two, or four when some code
    /// does not fit two.
    ///
    /// A distance file that leaves indices out (one side to move) is an error of kind
    /// [`NotStored`](ErrorKind::NotStored): read it with [`read_completed`](DenseValues::read_completed).
    pub fn read(table: &Table) -> Result<DenseValues, ProbeError> {
        if let Some(omitted) = table.distance_file().header().omitted() {
            return Err(ProbeError::new(
                table.distance_file().path(),
                ErrorKind::NotStored {
                    index: omitted.start,
                },
            ));
        }
        Self::read_stored(table)
    }

    /// Reads every value a distance file stores, and finds the ones it leaves out by searching their moves in
    /// `game`, the table's game with the tables its exits reach: the best of the moves' values, each read from
    /// the values stored (a move of one side to move reaches the other) or, for a position that no table stores
    /// (a chess position with en-passant rights), searched in turn. `stored` is the number of indices the table
    /// stores ([`retro_family::Family::stored`]).
    pub fn read_completed<G: Game>(
        table: &Table,
        game: &G,
        stored: Index,
        convention: PlayConvention,
    ) -> Result<DenseValues, String> {
        let mut dense = Self::read_stored(table).map_err(|e| e.to_string())?;
        let Some(omitted) = table.distance_file().header().omitted() else {
            return Ok(dense);
        };
        // A chunk at a time, so that the values found wait in a small buffer: the search never reads the indices
        // left out, so those of one chunk are set before the next is searched.
        const CHUNK: u64 = 1 << 20;
        let mut start = omitted.start;
        while start < omitted.end {
            let end = (start + CHUNK).min(omitted.end);
            let search = Search {
                game,
                dense: &dense,
                omitted: omitted.clone(),
                stored,
                convention,
            };
            let found: Vec<Option<Value>> = (start..end)
                .into_par_iter()
                .map(|i| search.value(i, 0))
                .collect::<Result<_, _>>()
                .map_err(|e| format!("{}: {e}", table.distance_file().path().display()))?;
            for (i, value) in (start..end).zip(found) {
                dense.set(i, value);
            }
            start = end;
        }
        Ok(dense)
    }

    /// Every value the distance file stores; the indices it leaves out hold filler.
    fn read_stored(table: &Table) -> Result<DenseValues, ProbeError> {
        let longest = longest_in_header(table);
        let codes = if longest <= MAX_BYTE_PLIES
            && let Some(codes) = fill::<u8>(table)?
        {
            Codes::Byte(codes)
        } else if let Some(codes) = fill::<u16>(table)? {
            Codes::Narrow(codes)
        } else {
            Codes::Wide(fill::<u32>(table)?.expect("every code fits four bytes"))
        };
        Ok(DenseValues { codes, longest })
    }

    /// The bytes a table of `size` indices takes once read, at most while its distances fit two-byte codes (every
    /// table seen so far): what a plan reserves.
    pub fn bytes_for(size: u64) -> u64 {
        size.saturating_mul(2)
    }

    /// Values of the given codes (the distance file's, [`distance_code`]), whose longest distance is `longest`.
    pub(crate) fn from_codes(codes: Codes, longest: u32) -> DenseValues {
        DenseValues { codes, longest }
    }

    /// The number of indices.
    pub fn size(&self) -> Index {
        (match &self.codes {
            Codes::Byte(codes) => codes.len(),
            Codes::Narrow(codes) => codes.len(),
            Codes::Wide(codes) => codes.len(),
        }) as Index
    }

    /// Sets the value at `index`, which the header's longest distance covers.
    fn set(&mut self, index: Index, value: Option<Value>) {
        let code = distance_code(value);
        let i = index as usize;
        match &mut self.codes {
            Codes::Byte(codes) => codes[i] = code as u8,
            Codes::Narrow(codes) => codes[i] = code as u16,
            Codes::Wide(codes) => codes[i] = code as u32,
        }
    }

    /// The value at `index`; `None` for a hole or an index beyond the table.
    #[inline]
    pub fn value(&self, index: Index) -> Option<Value> {
        let code = match &self.codes {
            Codes::Byte(codes) => u32::from(*codes.get(index as usize)?),
            Codes::Narrow(codes) => u32::from(*codes.get(index as usize)?),
            Codes::Wide(codes) => *codes.get(index as usize)?,
        };
        distance_value(code)
    }
}

impl Values for DenseValues {
    #[inline]
    fn value(&self, index: Index) -> Option<Value> {
        DenseValues::value(self, index)
    }

    fn longest_plies(&self) -> u32 {
        self.longest
    }

    fn resident_bytes(&self) -> u64 {
        match &self.codes {
            Codes::Byte(codes) => codes.len() as u64,
            Codes::Narrow(codes) => codes.len() as u64 * 2,
            Codes::Wide(codes) => codes.len() as u64 * 4,
        }
    }
}

/// How deep [`Search`] may go through positions that no table stores before the game is said to be wrong: each such
/// step of a chess search follows a double push, which a pawn makes once.
const SEARCH_DEPTH: u32 = 32;

/// Finds the values a distance file leaves out, one ply at a time.
struct Search<'a, G> {
    game: &'a G,
    dense: &'a DenseValues,
    omitted: Range<Index>,
    stored: Index,
    convention: PlayConvention,
}

impl<G: Game> Search<'_, G> {
    /// The value of the position at `index`: read where the file stores it, else the best of its moves.
    fn value(&self, index: Index, depth: u32) -> Result<Option<Value>, String> {
        if index < self.stored && !self.omitted.contains(&index) {
            return Ok(self.dense.value(index));
        }
        if depth >= SEARCH_DEPTH {
            return Err(format!(
                "index {index} is {SEARCH_DEPTH} moves from every stored position: the game does not match \
                 the table"
            ));
        }
        let mut best: Option<Value> = None;
        let mut failed = None;
        let node = self.game.expand(index, |m| {
            let reached = match m {
                Move::To(target) => self.value(target, depth + 1),
                Move::Exit(value) => Ok(Some(value)),
            };
            match reached {
                Ok(Some(value)) => {
                    let value = value.back();
                    if best.is_none_or(|b| value.preference(b).is_gt()) {
                        best = Some(value);
                    }
                }
                Ok(None) => {
                    failed.get_or_insert_with(|| format!("a move of index {index} reaches a hole"));
                }
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(match node {
            Node::Hole => None,
            Node::Terminal(value) => Some(value),
            Node::Playable => Some(best.unwrap_or_else(|| self.convention.no_move_value())),
        })
    }
}

/// Decodes every block of a table's distance file straight into its place in one array; `None` when a code does not
/// fit `C`.
fn fill<C: TryFrom<u32> + Copy + Default + Send + Sync>(
    table: &Table,
) -> Result<Option<Vec<C>>, ProbeError> {
    let file = table.distance_file();
    let per_block = file.header().block_values as usize;
    let mut codes = vec![C::default(); table.size() as usize];
    // In batches of blocks, giving the file's pages back to the kernel after each, so that a large table is not
    // resident twice (its file and its codes).
    let batch = 64 * rayon::current_num_threads();
    let mut fits = true;
    for (n, chunks) in codes.chunks_mut(per_block * batch).enumerate() {
        fits &= chunks
            .par_chunks_mut(per_block)
            .enumerate()
            .map(|(b, chunk)| -> Result<bool, ProbeError> {
                let block = (n * batch + b) as u64;
                for (slot, value) in chunk.iter_mut().zip(file.stored_distance_block(block)?) {
                    match C::try_from(distance_code(value) as u32) {
                        Ok(code) => *slot = code,
                        Err(_) => return Ok(false),
                    }
                }
                Ok(true)
            })
            .try_reduce(|| true, |a, b| Ok(a && b))?;
        file.release_pages();
        if !fits {
            break;
        }
    }
    Ok(fits.then_some(codes))
}

/// The longest win or loss recorded in a table file's header.
pub fn longest_in_header(table: &Table) -> u32 {
    table
        .meta()
        .sides
        .iter()
        .flat_map(|side| [side.longest_win, side.longest_loss])
        .flatten()
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_table::{TableSpec, WriteOptions, write_table};

    /// A table whose distances reach `longest` plies, with holes and draws, read back whole.
    fn round_trip(longest: u32) -> (DenseValues, Vec<Option<Value>>) {
        let dir = tempfile::tempdir().unwrap();
        let size = 5000u64;
        let values: Vec<Option<Value>> = (0..size)
            .map(|i| {
                let plies = match i {
                    3 => longest,
                    _ => (i * 7919 % (u64::from(longest) + 1)) as u32,
                };
                match i % 5 {
                    0 => None,
                    1 => Some(Value::DRAW),
                    2 => Some(Value::loss(plies)),
                    _ => Some(Value::win(plies)),
                }
            })
            .collect();
        let spec = TableSpec {
            game: "graph",
            name: "dense",
            params: Vec::new(),
            sides: 1,
            side_of: |_| 0,
            size,
            payload: &[],
            exits: None,
            index_periods: &[],
            index_digits: &[],
            distance_omitted: None,
            options: WriteOptions::default(),
        };
        write_table(dir.path(), &spec, |i| values[i as usize]).unwrap();
        let table = Table::open(dir.path(), "graph", "dense", 1 << 20).unwrap();
        (DenseValues::read(&table).unwrap(), values)
    }

    /// A random game of two sides to move, `A` = `0..n` and `B` = `n..2n`, and `m` positions that no table stores
    /// (`2n..2n+m`, like chess positions with en-passant rights): a position of `A` moves into `B`, into the unstored
    /// ones, or out of the table; an unstored one into `B` or into the positions of `A` that have no unstored move;
    /// a position of `B` into `A` or out. Some positions have no move at all.
    struct Sides {
        moves: Vec<Vec<Move>>,
        unmoves: Vec<Vec<Index>>,
    }

    impl Sides {
        fn new(seed: u64, n: u64, m: u64) -> Sides {
            let mut state = seed;
            let mut next = |bound: u64| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (state >> 33) % bound
            };
            let size = (2 * n + m) as usize;
            let mut moves = vec![Vec::new(); size];
            // The first half of A never moves to an unstored position: the unstored ones may move there.
            for (p, list) in moves.iter_mut().enumerate() {
                let p = p as u64;
                for _ in 0..next(4) {
                    list.push(match (p < n, p < 2 * n, next(10)) {
                        (_, _, 0) => Move::Exit(if next(2) == 0 {
                            Value::win(next(5) as u32)
                        } else {
                            Value::loss(next(5) as u32)
                        }),
                        (true, _, 1..=3) if p >= n / 2 => Move::To(2 * n + next(m)),
                        (true, _, _) => Move::To(n + next(n)),
                        (false, true, _) => Move::To(next(n)),
                        (false, false, 1..=4) => Move::To(next(n / 2)),
                        (false, false, _) => Move::To(n + next(n)),
                    });
                }
            }
            let mut unmoves = vec![Vec::new(); size];
            for (p, list) in moves.iter().enumerate() {
                for m in list {
                    if let Move::To(q) = m {
                        unmoves[*q as usize].push(p as Index);
                    }
                }
            }
            Sides { moves, unmoves }
        }
    }

    impl Game for Sides {
        fn size(&self) -> Index {
            self.moves.len() as Index
        }
        fn max_moves(&self) -> u64 {
            4
        }
        fn longest_exit(&self) -> u32 {
            4
        }
        fn expand<F: FnMut(Move)>(&self, index: Index, mut visit: F) -> Node {
            for &m in &self.moves[index as usize] {
                visit(m);
            }
            Node::Playable
        }
        fn unmoves<F: FnMut(Index)>(&self, index: Index, mut visit: F) {
            for &p in &self.unmoves[index as usize] {
                visit(p);
            }
        }
    }

    /// The values a distance file leaves out are found by searching the moves, through positions no table stores,
    /// exactly as the engine solved them: on many random games, leaving out either side.
    #[test]
    fn the_values_left_out_are_found_by_searching_the_moves() {
        let dir = tempfile::tempdir().unwrap();
        for seed in 0..40 {
            let (n, m) = (200 + seed * 7, 30 + seed);
            let game = Sides::new(seed, n, m);
            let options = retro_engine::SolveOptions::default();
            let solution = retro_engine::solve(&game, &options).unwrap();
            for (k, omitted) in [0..n, n..2 * n].into_iter().enumerate() {
                let name = format!("sides{seed}_{k}");
                let spec = TableSpec {
                    game: "graph",
                    name: &name,
                    params: Vec::new(),
                    sides: 2,
                    side_of: |i: Index| u8::from(i >= n),
                    size: 2 * n,
                    payload: &[],
                    exits: None,
                    index_periods: &[],
                    index_digits: &[],
                    distance_omitted: Some(omitted.clone()),
                    options: WriteOptions::default(),
                };
                write_table(dir.path(), &spec, |i| solution.value(i)).unwrap();
                let table = Table::open(dir.path(), "graph", &name, 1 << 20).unwrap();
                assert!(DenseValues::read(&table).is_err());
                let dense =
                    DenseValues::read_completed(&table, &game, 2 * n, PlayConvention::Normal)
                        .unwrap();
                for i in 0..2 * n {
                    assert_eq!(
                        dense.value(i),
                        solution.value(i),
                        "seed {seed}, {omitted:?}: index {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn codes_take_the_narrowest_width_that_holds_the_longest_distance() {
        for (longest, width) in [(126, 1), (127, 2), (32_766, 2), (32_767, 4), (100_000, 4)] {
            let (dense, values) = round_trip(longest);
            assert_eq!(dense.longest_plies(), longest);
            assert_eq!(
                dense.resident_bytes(),
                values.len() as u64 * width,
                "{longest}"
            );
            for (i, &v) in values.iter().enumerate() {
                assert_eq!(dense.value(i as u64), v, "{longest}: index {i}");
            }
            assert_eq!(dense.value(values.len() as u64), None);
        }
    }
}
