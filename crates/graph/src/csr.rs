//! Compressed sparse rows: the adjacency lists of every position in two flat arrays.
//!
//! `offsets[p]..offsets[p + 1]` is the range of `targets` that holds the neighbours of `p`. Ten million positions
//! with thirty million moves cost 80 MB of offsets and 120 MB of targets, and no allocation per position.

use rayon::prelude::*;

/// Rows per bucket of [`Csr::from_pairs`]: 16384 rows keep a bucket's counters in 64 KB.
const BUCKET_ROWS: usize = 1 << 14;

/// Adjacency lists in compressed-sparse-row form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Csr {
    /// `positions + 1` entries, non-decreasing, first 0, last `targets.len()`.
    offsets: Vec<u64>,
    targets: Vec<u32>,
}

impl Csr {
    /// Builds the rows from `(row, target)` pairs by counting sort, keeping the order of the pairs inside each row.
    /// Every row and target must be below `positions`.
    ///
    /// A plain counting sort over ten million rows misses the cache on every pair (the counters and the output are
    /// hundreds of megabytes). So the pairs are first distributed, in order, into buckets of [`BUCKET_ROWS`]
    /// consecutive rows (a few hundred sequential write streams), and each bucket is then counting-sorted on its own,
    /// in parallel, with counters and output that fit in cache.
    pub(crate) fn from_pairs<I>(positions: usize, pairs: I) -> Csr
    where
        I: Iterator<Item = (u32, u32)> + Clone,
    {
        let buckets = positions.div_ceil(BUCKET_ROWS);
        let bucket_of = |row: u32| row as usize / BUCKET_ROWS;

        // Where each bucket's pairs start in the staging array (and in the output, which has the same order of
        // buckets).
        let mut bucket_start = vec![0usize; buckets + 1];
        for (row, _) in pairs.clone() {
            bucket_start[bucket_of(row) + 1] += 1;
        }
        for b in 0..buckets {
            bucket_start[b + 1] += bucket_start[b];
        }
        let total = bucket_start[buckets];

        let mut staging = vec![(0u32, 0u32); total];
        let mut cursor = bucket_start[..buckets].to_vec();
        for (row, target) in pairs {
            let slot = &mut cursor[bucket_of(row)];
            staging[*slot] = (row, target);
            *slot += 1;
        }

        let mut offsets = vec![0u64; positions + 1];
        offsets[positions] = total as u64;
        let mut targets = vec![0u32; total];
        // Cut the output into one piece per bucket: its rows' offsets and its targets.
        let mut pieces = Vec::with_capacity(buckets);
        let mut rest_targets = &mut targets[..];
        for (b, rows) in offsets[..positions].chunks_mut(BUCKET_ROWS).enumerate() {
            let (piece, rest) = rest_targets.split_at_mut(bucket_start[b + 1] - bucket_start[b]);
            rest_targets = rest;
            pieces.push((b, rows, piece));
        }
        pieces.into_par_iter().for_each(|(b, rows, piece)| {
            let first_row = b * BUCKET_ROWS;
            let pairs = &staging[bucket_start[b]..bucket_start[b + 1]];
            // local[r] counts row first_row + r, then becomes its start inside the piece, then its write cursor.
            let mut local = vec![0usize; rows.len() + 1];
            for &(row, _) in pairs {
                local[row as usize - first_row + 1] += 1;
            }
            for r in 0..rows.len() {
                local[r + 1] += local[r];
            }
            for (r, offset) in rows.iter_mut().enumerate() {
                *offset = (bucket_start[b] + local[r]) as u64;
            }
            for &(row, target) in pairs {
                let slot = &mut local[row as usize - first_row];
                piece[*slot] = target;
                *slot += 1;
            }
        });
        Csr { offsets, targets }
    }

    /// Builds the rows from their lengths and the concatenated targets, which the caller has validated.
    pub(crate) fn from_parts(offsets: Vec<u64>, targets: Vec<u32>) -> Csr {
        debug_assert_eq!(offsets.last().copied(), Some(targets.len() as u64));
        Csr { offsets, targets }
    }

    /// The reverse adjacency: row `q` of the result lists every `p` with `q` in row `p`, as often as it appears,
    /// in increasing `p`.
    pub(crate) fn transpose(&self) -> Csr {
        let positions = self.rows();
        Csr::from_pairs(
            positions,
            (0..positions)
                .flat_map(move |p| self.row(p as u32).iter().map(move |&q| (q, p as u32))),
        )
    }

    /// Number of rows (positions).
    pub(crate) fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Total number of entries (moves).
    pub(crate) fn len(&self) -> u64 {
        self.targets.len() as u64
    }

    #[inline]
    pub(crate) fn row(&self, p: u32) -> &[u32] {
        let p = p as usize;
        &self.targets[self.offsets[p] as usize..self.offsets[p + 1] as usize]
    }

    /// The length of the longest row.
    pub(crate) fn max_row(&self) -> u64 {
        self.offsets
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }

    pub(crate) fn targets(&self) -> &[u32] {
        &self.targets
    }

    pub(crate) fn offsets(&self) -> &[u64] {
        &self.offsets
    }
}
