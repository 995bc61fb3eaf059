//! The index of a position inside its tier, and back.
//!
//! A tier is every board with `k` stones: `x`, who moves first, has `ceil(k/2)` of them and `o` `floor(k/2)`. A
//! board of the tier is its *heights*, the number of stones in each column, and its *colouring*, which of the `k`
//! stones are `x`'s, the stones taken in the canonical order: column by column from the left, bottom to top in each
//! column. So
//!
//! ```text
//! index = rank(heights) * C(k, ceil(k/2)) + rank(colouring)
//! ```
//!
//! - `rank(heights)` is the rank of the heights `(h_1, ..., h_W)`, each `0..=H` and summing to `k`, among all such
//!   vectors in lexicographic order (column 1 most significant). It is computed with a table of counts,
//!   `vectors[i][s]`: how many vectors of `i` columns sum to `s`.
//! - `rank(colouring)` ranks the set of canonical positions `p_1 < ... < p_n` of `x`'s stones in the combinatorial
//!   number system: `C(p_1, 1) + C(p_2, 2) + ... + C(p_n, n)`.
//!
//! The tier has `vectors[W][k] * C(k, ceil(k/2))` indices. Every index is a board with stacked stones and the right
//! counts; which of them are holes (four in a row for the player to move) is [`crate::board::Board::node`]'s call.
//! Nothing is folded: the mirror image of a board has an index of its own.

use std::sync::OnceLock;

use crate::board::{Board, MAX_SIDE, MIN_SIDE, Shape};

/// The most cells of a board, 7 x 7.
const MAX_CELLS: usize = 49;

/// `BINOMIAL[n][k]` = C(n, k) for `n, k ≤ 49`; C(49, 24) ≈ 6.3e13 fits a `u64`.
static BINOMIAL: [[u64; MAX_CELLS + 1]; MAX_CELLS + 1] = binomials();

const fn binomials() -> [[u64; MAX_CELLS + 1]; MAX_CELLS + 1] {
    let mut table = [[0; MAX_CELLS + 1]; MAX_CELLS + 1];
    let mut n = 0;
    while n <= MAX_CELLS {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + table[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    table
}

/// C(n, k), 0 when `k > n`.
pub fn binomial(n: u32, k: u32) -> u64 {
    BINOMIAL[n as usize][k as usize]
}

/// The stones `x` has in a tier of `k` stones.
pub fn x_stones(k: u32) -> u32 {
    k.div_ceil(2)
}

/// The numbering of the tiers of one board size: a few tens of kilobytes, built in microseconds.
#[derive(Clone, Debug)]
pub struct Layout {
    shape: Shape,
    /// `vectors[i][s]`: the heights vectors of `i` columns (each `0..=H`) summing to `s`.
    vectors: [[u64; MAX_CELLS + 1]; 8],
    /// `below[i][s][v]`: the vectors of `i + 1` columns summing to `s` whose first column is lower than `v`, that is
    /// `vectors[i][s] + vectors[i][s - 1] + ... + vectors[i][s - v + 1]`. One lookup per column ranks a vector, and
    /// counting the `v` with `below[..][v] ≤ rank` unranks it without a branch.
    below: [[[u64; 8]; MAX_CELLS + 1]; 7],
}

impl Layout {
    pub fn new(shape: Shape) -> Layout {
        let (w, h) = (shape.width() as usize, shape.height() as usize);
        let mut vectors = [[0; MAX_CELLS + 1]; 8];
        vectors[0][0] = 1;
        for i in 1..=w {
            for s in 0..=i * h {
                vectors[i][s] = (0..=h.min(s)).map(|v| vectors[i - 1][s - v]).sum();
            }
        }
        let mut below = [[[0; 8]; MAX_CELLS + 1]; 7];
        for (i, rows) in below.iter_mut().enumerate() {
            for (s, row) in rows.iter_mut().enumerate() {
                for v in 1..8 {
                    row[v] = row[v - 1] + s.checked_sub(v - 1).map_or(0, |t| vectors[i][t]);
                }
            }
        }
        Layout {
            shape,
            vectors,
            below,
        }
    }

    /// The layout of `shape`, built once per board size for the process: [`Family::locate`] needs one per call.
    ///
    /// [`Family::locate`]: retro_family::Family::locate
    pub fn of(shape: Shape) -> &'static Layout {
        static LAYOUTS: OnceLock<Vec<Layout>> = OnceLock::new();
        let layouts = LAYOUTS.get_or_init(|| {
            let sides = MIN_SIDE..=MAX_SIDE;
            sides
                .clone()
                .flat_map(|w| {
                    sides
                        .clone()
                        .map(move |h| Layout::new(Shape::new(w, h).expect("in range")))
                })
                .collect()
        });
        let side = usize::from(MAX_SIDE - MIN_SIDE + 1);
        let (w, h) = (shape.width() as usize, shape.height() as usize);
        let min = usize::from(MIN_SIDE);
        &layouts[(w - min) * side + (h - min)]
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The colourings of a tier of `k` stones: C(k, ceil(k/2)).
    pub fn colourings(&self, k: u32) -> u64 {
        binomial(k, x_stones(k))
    }

    /// The heights vectors of a tier of `k` stones.
    pub fn height_vectors(&self, k: u32) -> u64 {
        self.vectors[self.shape.width() as usize][k as usize]
    }

    /// The indices of the tier of `k` stones.
    pub fn tier_size(&self, k: u32) -> u64 {
        self.height_vectors(k) * self.colourings(k)
    }

    /// The index of `board` in the tier of its number of stones.
    pub fn encode(&self, board: &Board) -> u64 {
        let shape = self.shape;
        let (w, stride) = (shape.width(), shape.stride());
        let k = board.stones();
        let x = board.stones_of(crate::board::Player::X);
        let mut heights_rank = 0;
        let mut left = k as usize;
        // The canonical positions of x's stones, as a bit set: column c's stones are canonical positions
        // `start..start + height`, and its x stones the low bits of its part of the bitboard.
        let mut canonical_x = 0u64;
        let mut start = 0;
        for c in 0..w {
            let height = board.height(c);
            heights_rank += self.below[(w - 1 - c) as usize][left][height as usize];
            left -= height as usize;
            canonical_x |= ((x >> (c * stride)) & ((1 << height) - 1)) << start;
            start += height;
        }
        let mut colour_rank = 0;
        let mut bits = canonical_x;
        let mut j = 1;
        while bits != 0 {
            colour_rank += binomial(bits.trailing_zeros(), j);
            bits &= bits - 1;
            j += 1;
        }
        heights_rank * self.colourings(k) + colour_rank
    }

    /// The board at `index` of the tier of `k` stones (`index < tier_size(k)`).
    pub fn decode(&self, k: u32, index: u64) -> Board {
        debug_assert!(index < self.tier_size(k));
        let shape = self.shape;
        let (w, stride) = (shape.width(), shape.stride());
        let colourings = self.colourings(k);
        let mut heights_rank = index / colourings;
        let mut colour_rank = index % colourings;

        // The colouring, from the last canonical position down: position p is x's when the colourings of the x
        // stones left (`j`) among the positions below it, C(p, j), do not exceed the rank left. Branch-free: the
        // test goes either way about as often.
        let mut canonical_x = 0u64;
        let mut j = x_stones(k);
        for p in (0..k).rev() {
            let c = binomial(p, j);
            let take = u64::from(colour_rank >= c);
            colour_rank -= c * take;
            j -= take as u32;
            canonical_x |= take << p;
        }

        let mut left = k as usize;
        let (mut x, mut occupied) = (0u64, 0u64);
        let mut start = 0;
        for c in 0..w {
            let below = &self.below[(w - 1 - c) as usize][left];
            let height = (1..=shape.height() as usize)
                .map(|v| usize::from(below[v] <= heights_rank))
                .sum::<usize>();
            heights_rank -= below[height];
            left -= height;
            let column = (1u64 << height) - 1;
            x |= ((canonical_x >> start) & column) << (c * stride);
            occupied |= column << (c * stride);
            start += height as u32;
        }
        Board::from_bits(shape, x, occupied & !x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(w: u8, h: u8) -> Layout {
        Layout::new(Shape::new(w, h).unwrap())
    }

    #[test]
    fn tier_sizes_are_the_expected_ones() {
        let total = |l: &Layout| (0..=l.shape().cells()).map(|k| l.tier_size(k)).sum::<u64>();
        let six_five = layout(6, 5);
        // C(10, 5) heights of 25 stones (5 empty cells over 6 columns), C(25, 13) colourings.
        assert_eq!(six_five.tier_size(25), 252 * 5_200_300);
        assert_eq!(six_five.tier_size(0), 1);
        assert_eq!(six_five.tier_size(30), binomial(30, 15));
        assert!((9.8e9..1.0e10).contains(&(total(&six_five) as f64)));
        assert!((1.9e5..2.1e5).contains(&(total(&layout(4, 4)) as f64)));
        assert!((5.5e6..5.7e6).contains(&(total(&layout(5, 4)) as f64)));
        assert!((4.5e9..4.7e9).contains(&(total(&layout(7, 4)) as f64)));
    }

    #[test]
    fn every_index_round_trips_on_small_boards() {
        for (w, h) in [(4, 4), (5, 4), (4, 5)] {
            let l = layout(w, h);
            for k in 0..=l.shape().cells() {
                for index in 0..l.tier_size(k) {
                    let board = l.decode(k, index);
                    assert_eq!(board.stones(), k);
                    assert_eq!(l.encode(&board), index, "{w}x{h} k={k}");
                }
            }
        }
    }

    #[test]
    fn sampled_indices_round_trip_on_large_boards() {
        for (w, h) in [(7, 7), (6, 5), (7, 4)] {
            let l = layout(w, h);
            for k in 0..=l.shape().cells() {
                let size = l.tier_size(k);
                let step = (size / 997).max(1);
                for index in (0..size).step_by(step as usize).chain([size - 1]) {
                    let board = l.decode(k, index);
                    assert_eq!(l.encode(&board), index, "{w}x{h} k={k}");
                    assert_eq!(
                        board.stones_of(crate::board::Player::X).count_ones(),
                        x_stones(k)
                    );
                }
            }
        }
    }

    #[test]
    fn the_first_indices_fill_the_last_columns_first() {
        // Lexicographic heights, column 1 most significant: index 0 of tier 1 is a stone in the last column.
        let l = layout(4, 4);
        let board = l.decode(1, 0);
        assert_eq!(board.height(3), 1);
        assert_eq!(l.decode(1, 3).height(0), 1);
    }
}
