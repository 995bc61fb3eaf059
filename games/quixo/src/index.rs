//! Numbering the positions of a tier, the eight symmetries folded.
//!
//! A tier holds the boards with `t` cubes (of either symbol). A board is its *occupied set* `S` (the squares that
//! hold a cube) and the subset of `S` that is the mover's. The symmetries are folded on `S` first: the occupied sets
//! of a tier fall into classes under the eight symmetries, each class is represented by its least member (as a
//! number), and the classes of a tier are numbered in the order of their representatives. The index of a board is
//!
//! ```text
//!     class(S) · 2^t + pattern
//! ```
//!
//! where the board is first carried by a symmetry `g` with `g(S)` the representative, and `pattern` says, bit `i`,
//! whether the `i`-th square of `g(S)` (in square order) holds a mover's cube (a `pext`). The canonical board of an
//! orbit is the one whose occupied set is the representative and whose mover's cubes are the least number among
//! the images that keep the representative: those images are `h ∘ g` for the symmetries `h` that fix the
//! representative, mostly only the identity. So an index is a hole only when its class is symmetric and its pattern
//! not the least of its images: 8 % of the indices on 4×4, 1.2 % on 5×5, instead of seven in eight if every board were
//! numbered and the non-canonical ones left as holes.
//!
//! Encoding costs one table look-up for the class of `S` and the symmetry to apply, the symmetry itself (a look-up per
//! byte of squares) and a `pext`; decoding a `pdep`. The table of classes has one entry per subset of the squares:
//! 2^16 on 4×4, 2^25 (128 MiB) on 5×5.

use crate::board::{self, Board, Geometry};

/// The tables of the classes of occupied sets of one board size.
pub struct Classes {
    geo: &'static Geometry,
    /// For every set of squares `S`, packed so that encoding reads one word: the symmetry `g` carrying `S` to its
    /// representative (bits 0..3), the symmetries fixing the representative (3..11), the representative (11..36)
    /// and its class's number within its tier (36..64).
    of_set: Vec<u64>,
    /// For every tier, its classes: the representative and the bitmask of the symmetries that fix it.
    tiers: Vec<Vec<(u32, u8)>>,
}

const FIXED: u32 = 3;
const REP: u32 = 11;
const CLASS: u32 = 36;

impl Classes {
    pub fn new(geo: &'static Geometry) -> Classes {
        let sets = 1usize << geo.squares;
        let mut of_set = vec![0u64; sets];
        let mut tiers = vec![Vec::new(); geo.squares as usize + 1];
        // Representatives first, in increasing order, so that each tier's classes are numbered in that order.
        for s in 0..sets as u32 {
            let least = (1..8).map(|g| geo.image(g, s)).min().expect("seven images");
            if s <= least {
                let tier = &mut tiers[s.count_ones() as usize];
                let fixed = (0..8)
                    .filter(|&g| geo.image(g, s) == s)
                    .fold(0u8, |m, g| m | 1 << g);
                of_set[s as usize] =
                    (tier.len() as u64) << CLASS | u64::from(s) << REP | u64::from(fixed) << FIXED;
                tier.push((s, fixed));
            }
        }
        for s in 0..sets as u32 {
            let (g, rep) = (0..8)
                .map(|g| (g, geo.image(g, s)))
                .min_by_key(|&(_, r)| r)
                .expect("eight images");
            if rep != s {
                of_set[s as usize] = of_set[rep as usize] | g as u64;
            }
        }
        Classes { geo, of_set, tiers }
    }

    pub fn geometry(&self) -> &'static Geometry {
        self.geo
    }

    /// The number of indices of tier `t`, holes included.
    pub fn tier_size(&self, t: u32) -> u64 {
        (self.tiers[t as usize].len() as u64) << t
    }

    /// The number of classes of occupied sets of tier `t`.
    pub fn tier_classes(&self, t: u32) -> usize {
        self.tiers[t as usize].len()
    }

    /// The canonical image of a board, the number of distinct images of the board (1, 2, 4 or 8), and the packed
    /// entry of its occupied set.
    #[inline(always)]
    fn fold(&self, board: Board) -> (u32, u32, u64) {
        let (mine, theirs) = (board::mine(board), board::theirs(board));
        let entry = self.of_set[(mine | theirs) as usize];
        let m = self.geo.image((entry & 7) as usize, mine);
        let fixed = (entry >> FIXED) as u8;
        if fixed == 1 {
            return (m, 8, entry);
        }
        let (least, same) = self.least_pattern(fixed, m);
        (least, 8 >> same.trailing_zeros(), entry)
    }

    /// The canonical image of a board and the number of its distinct images (1, 2, 4 or 8).
    #[inline(always)]
    pub fn canonical(&self, board: Board) -> (Board, u32) {
        let (m, images, entry) = self.fold(board);
        let rep = (entry >> REP) as u32 & self.geo.full;
        (board::pack(m, rep ^ m), images)
    }

    /// The least image of the mover's cubes `m` under the symmetries of `fixed`, and how many of them leave it as is.
    #[inline]
    fn least_pattern(&self, fixed: u8, m: u32) -> (u32, u32) {
        let mut least = m;
        let mut same = 0;
        for h in 0..8 {
            if fixed >> h & 1 == 1 {
                let image = self.geo.image(h, m);
                least = least.min(image);
                same += u32::from(image == m);
            }
        }
        (least, same)
    }

    /// The index of a board of `t` cubes in its tier, and the number of its distinct images.
    #[inline(always)]
    pub fn encode_in(&self, t: u32, board: Board) -> (u64, u32) {
        let (m, images, entry) = self.fold(board);
        let rep = (entry >> REP) as u32 & self.geo.full;
        ((entry >> CLASS) << t | u64::from(pext(m, rep)), images)
    }

    /// The index of a board in its tier (the number of its cubes), and the number of its distinct images.
    pub fn encode(&self, board: Board) -> (u64, u32) {
        let t = (board::mine(board) | board::theirs(board)).count_ones();
        self.encode_in(t, board)
    }

    /// The canonical board at an index of tier `t`, or `None` for a hole (a pattern that is not the least of its
    /// images, in a symmetric class).
    #[inline(always)]
    pub fn decode(&self, t: u32, index: u64) -> Option<Board> {
        let (set, fixed) = *self.tiers[t as usize].get((index >> t) as usize)?;
        let m = pdep((index & ((1 << t) - 1)) as u32, set);
        if fixed != 1 && self.least_pattern(fixed, m).0 != m {
            return None;
        }
        Some(board::pack(m, set ^ m))
    }

    /// The number of distinct images of a board.
    #[inline(always)]
    pub fn images(&self, board: Board) -> u32 {
        self.fold(board).1
    }
}

/// The classes of an `n × n` board, built on first use.
pub fn classes(n: u32) -> &'static Classes {
    static TABLES: [std::sync::OnceLock<Classes>; 3] = [const { std::sync::OnceLock::new() }; 3];
    TABLES[(n - 3) as usize].get_or_init(|| Classes::new(board::geometry(n)))
}

/// The bits of `x` at the squares of `mask`, packed together (BMI2's `pext`).
#[inline(always)]
pub fn pext(x: u32, mask: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2.
        return unsafe { pext_bmi2(x, mask) };
    }
    let (mut out, mut bit, mut m) = (0, 0, mask);
    while m != 0 {
        let low = m & m.wrapping_neg();
        if x & low != 0 {
            out |= 1 << bit;
        }
        bit += 1;
        m ^= low;
    }
    out
}

/// The low bits of `x` spread over the squares of `mask` (BMI2's `pdep`).
#[inline(always)]
pub fn pdep(x: u32, mask: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2.
        return unsafe { pdep_bmi2(x, mask) };
    }
    let (mut out, mut bit, mut m) = (0, 0, mask);
    while m != 0 {
        let low = m & m.wrapping_neg();
        if x >> bit & 1 != 0 {
            out |= low;
        }
        bit += 1;
        m ^= low;
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn pext_bmi2(x: u32, mask: u32) -> u32 {
    std::arch::x86_64::_pext_u32(x, mask)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn pdep_bmi2(x: u32, mask: u32) -> u32 {
    std::arch::x86_64::_pdep_u32(x, mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pext_and_pdep_agree_with_the_loops() {
        let mut seed = 7u64;
        for _ in 0..10_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (x, mask) = ((seed >> 7) as u32, (seed >> 31) as u32);
            let packed = pext(x, mask);
            assert_eq!(pdep(packed, mask), x & mask);
            assert!(u64::from(packed) < 1u64 << mask.count_ones());
        }
    }

    /// On 3×3, every board's index decodes to its canonical image, and the indices of a tier are exactly the
    /// orbits of its boards.
    #[test]
    fn indices_are_the_orbits() {
        let classes = classes(3);
        let geo = classes.geometry();
        let mut orbits = vec![std::collections::BTreeSet::new(); 10];
        for code in 0..3u32.pow(9) {
            let (mut m, mut o, mut c) = (0u32, 0u32, code);
            for s in 0..9 {
                match c % 3 {
                    1 => m |= 1 << s,
                    2 => o |= 1 << s,
                    _ => {}
                }
                c /= 3;
            }
            let b = board::pack(m, o);
            let t = (m | o).count_ones();
            let (index, images) = classes.encode(b);
            assert!(index < classes.tier_size(t));
            let canonical = classes.decode(t, index).expect("a position");
            let mut all: Vec<Board> = (0..8).map(|g| geo.image_board(g, b)).collect();
            assert!(all.contains(&canonical));
            all.sort();
            all.dedup();
            assert_eq!(all.len() as u32, images);
            orbits[t as usize].insert(all[0]);
        }
        for t in 0..=9 {
            let positions = (0..classes.tier_size(t))
                .filter(|&i| classes.decode(t, i).is_some())
                .count();
            assert_eq!(positions, orbits[t as usize].len(), "tier {t}");
        }
    }
}
