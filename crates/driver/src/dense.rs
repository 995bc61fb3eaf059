//! A solved table held in memory whole: looking a value up is one array read.
//!
//! A chess build looks up the tables its captures and promotions lead into once per converting move of every
//! position, and `verify` looks up every move of every position: hundreds of millions of lookups for a five-man
//! table, scattered over the whole table. Through the probe library each lookup would find and decompress a block;
//! here the table is decompressed once, block by block in parallel, into one code per index (the distance file's
//! value codes: one byte each while every distance is at most 126 plies, two while they fit, four otherwise). The
//! narrowest codes matter: the lookups of a build are scattered, and a five-man table's sub-tables at one byte an
//! index stay in the processor's last-level cache where at two they spill to memory.

use rayon::prelude::*;
use retro_game::{Index, Value, Values};
use retro_probe::format::{distance_code, distance_value};
use retro_probe::{ProbeError, Table};

/// The longest distance whose codes fit one byte: a loss in 126 plies is code 255.
const MAX_BYTE_PLIES: u32 = 126;

/// Every value of a table, decoded.
pub struct DenseValues {
    codes: Codes,
    /// The longest win or loss, from the table's header.
    longest: u32,
}

enum Codes {
    Byte(Vec<u8>),
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl DenseValues {
    /// Reads every block of `table`'s distance file (checking each block's checksum as it is read), into one byte
    /// per index when the header's longest distance allows (codes up to 255), else two, or four when some code
    /// does not fit two.
    pub fn read(table: &Table) -> Result<DenseValues, ProbeError> {
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
                for (slot, value) in chunk.iter_mut().zip(file.distance_block(block)?) {
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
            distance_omitted: None,
            options: WriteOptions::default(),
        };
        write_table(dir.path(), &spec, |i| values[i as usize]).unwrap();
        let table = Table::open(dir.path(), "graph", "dense", 1 << 20).unwrap();
        (DenseValues::read(&table).unwrap(), values)
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
