//! Compressed sparse rows: the adjacency lists of every position in two flat arrays.
//!
//! `offsets[p]..offsets[p + 1]` is the range of `targets` that holds the neighbours of `p`. Ten million positions
//! with thirty million moves cost 80 MB of offsets and 120 MB of targets, and no allocation per position.

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
    pub(crate) fn from_pairs<'a, I>(positions: usize, pairs: I) -> Csr
    where
        I: Iterator<Item = (u32, u32)> + Clone + 'a,
    {
        let mut offsets = vec![0u64; positions + 1];
        for (row, _) in pairs.clone() {
            offsets[row as usize + 1] += 1;
        }
        for p in 0..positions {
            offsets[p + 1] += offsets[p];
        }
        let mut targets = vec![0u32; offsets[positions] as usize];
        // `offsets[p]` serves as the write cursor of row p - 1 shifted by one; a separate cursor array would
        // cost another 8 bytes per position.
        let mut cursor: Vec<u64> = offsets[..positions].to_vec();
        for (row, target) in pairs {
            let slot = &mut cursor[row as usize];
            targets[*slot as usize] = target;
            *slot += 1;
        }
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
