//! A solved table held in memory whole: looking a value up is one array read.
//!
//! A chess build looks up the tables its captures and promotions lead into once per converting move of every
//! position, and `verify` looks up every move of every position: hundreds of millions of lookups for a five-man
//! table, scattered over the whole table. Through the probe library each lookup would find and decompress a block;
//! here the table is decompressed once, block by block in parallel, into one code per index (the distance file's
//! value codes, two bytes each while they fit, four otherwise).

use rayon::prelude::*;
use retro_game::{Index, Value, Values};
use retro_probe::format::{distance_code, distance_value};
use retro_probe::{ProbeError, Table};

/// Every value of a table, decoded.
pub struct DenseValues {
    codes: Codes,
    /// The longest win or loss, from the table's header.
    longest: u32,
}

enum Codes {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl DenseValues {
    /// Reads every block of `table`'s distance file (checking each block's checksum as it is read), into two
    /// bytes per index, or four when some code does not fit two.
    pub fn read(table: &Table) -> Result<DenseValues, ProbeError> {
        let codes = match fill::<u16>(table)? {
            Some(codes) => Codes::Narrow(codes),
            None => Codes::Wide(fill::<u32>(table)?.expect("every code fits four bytes")),
        };
        Ok(DenseValues {
            codes,
            longest: longest_in_header(table),
        })
    }

    /// The bytes a table of `size` indices takes once read, at least.
    pub fn bytes_for(size: u64) -> u64 {
        size.saturating_mul(2)
    }

    /// The value at `index`; `None` for a hole or an index beyond the table.
    #[inline]
    pub fn value(&self, index: Index) -> Option<Value> {
        let code = match &self.codes {
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
