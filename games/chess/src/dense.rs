//! A solved table held in memory whole, for the exits of a build: looking a value up is one array read.
//!
//! A build looks up the tables its captures and promotions lead into once per converting move of every position:
//! hundreds of millions of lookups for a five-man table. Through the probe library each lookup would find and
//! decompress a block; here the table is decompressed once, block by block in parallel, into one code per index
//! (the distance file's value codes, two bytes each while they fit, four otherwise).

use rayon::prelude::*;
use retro_game::{Index, Value};
use retro_probe::format::{distance_code, distance_value};
use retro_probe::{ProbeError, Table};

use crate::game::Values;

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
            longest: crate::game::longest_in_header(table),
        })
    }

    /// Number of indices.
    pub fn len(&self) -> usize {
        match &self.codes {
            Codes::Narrow(codes) => codes.len(),
            Codes::Wide(codes) => codes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Values for DenseValues {
    #[inline]
    fn value(&self, index: Index) -> Option<Value> {
        let code = match &self.codes {
            Codes::Narrow(codes) => u32::from(*codes.get(index as usize)?),
            Codes::Wide(codes) => *codes.get(index as usize)?,
        };
        distance_value(code)
    }

    fn longest_plies(&self) -> u32 {
        self.longest
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
    let fits = codes
        .par_chunks_mut(per_block)
        .enumerate()
        .map(|(b, chunk)| -> Result<bool, ProbeError> {
            for (slot, value) in chunk.iter_mut().zip(file.distance_block(b as u64)?) {
                match C::try_from(distance_code(value) as u32) {
                    Ok(code) => *slot = code,
                    Err(_) => return Ok(false),
                }
            }
            Ok(true)
        })
        .try_reduce(|| true, |a, b| Ok(a && b))?;
    Ok(fits.then_some(codes))
}
