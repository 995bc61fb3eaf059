//! Attack tables: which squares a piece on a square attacks, given the occupied squares.
//!
//! Leapers (king, knight, pawn) are looked up in tables computed at compile time. Sliders use the classical ray
//! method: the ray from the square in each direction, cut after the first occupied square found by a bit scan. For
//! boards of five or six men this is as fast as magic bitboards and needs no large tables.

use crate::types::{Bitboard, Color, Role, Square};

/// The eight directions as (file step, rank step); the first four increase the square number, the last four
/// decrease it, which tells the bit scan which end of the ray is nearest.
const DIRECTIONS: [(i8, i8); 8] = [
    (1, 0),
    (0, 1),
    (1, 1),
    (-1, 1),
    (-1, 0),
    (0, -1),
    (-1, -1),
    (1, -1),
];

const fn leaper_table(steps: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut i = 0;
        while i < steps.len() {
            let (nf, nr) = (f + steps[i].0, r + steps[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                table[sq] |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

const fn ray_table() -> [[u64; 64]; 8] {
    let mut table = [[0u64; 64]; 8];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 64 {
            let (mut f, mut r) = ((sq % 8) as i8, (sq / 8) as i8);
            loop {
                f += DIRECTIONS[d].0;
                r += DIRECTIONS[d].1;
                if f < 0 || f >= 8 || r < 0 || r >= 8 {
                    break;
                }
                table[d][sq] |= 1 << (r * 8 + f);
            }
            sq += 1;
        }
        d += 1;
    }
    table
}

static KING: [u64; 64] = leaper_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
static KNIGHT: [u64; 64] = leaper_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static PAWN: [[u64; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];
static RAYS: [[u64; 64]; 8] = ray_table();

/// Every square from which some piece could attack a square on an empty board: its eight rays and its knight
/// squares (pawns and kings attack from squares on the rays).
const fn reach_table() -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            table[sq] |= RAYS[d][sq];
            d += 1;
        }
        table[sq] |= KNIGHT[sq];
        sq += 1;
    }
    table
}

static REACH: [u64; 64] = reach_table();

/// The squares from which any piece could attack `sq`, whatever stands between: a man outside them never does.
#[inline]
pub fn reach(sq: Square) -> Bitboard {
    Bitboard(REACH[sq.index()])
}

#[inline]
pub fn king(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

#[inline]
pub fn knight(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// The squares a pawn of `color` on `sq` attacks (captures on).
#[inline]
pub fn pawn(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

/// The squares a slider on `sq` attacks in direction `d`: up to and including the first man. Branch-free: a
/// sentinel bit at the far corner (h8 for the directions that raise the square number, a1 for the others) stands
/// for "no man", and the ray from that corner in that direction is empty, so nothing is cut off. (Whether a ray is
/// blocked depends on the placement and is what a branch predictor guesses worst.)
#[inline]
fn ray(d: usize, sq: Square, occupied: Bitboard) -> u64 {
    let ray = RAYS[d][sq.index()];
    let blockers = ray & occupied.0;
    let first = if d < 4 {
        (blockers | 1 << 63).trailing_zeros()
    } else {
        63 - (blockers | 1).leading_zeros()
    };
    ray ^ RAYS[d][first as usize]
}

#[inline]
pub fn rook(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(
        ray(0, sq, occupied) | ray(1, sq, occupied) | ray(4, sq, occupied) | ray(5, sq, occupied),
    )
}

#[inline]
pub fn bishop(sq: Square, occupied: Bitboard) -> Bitboard {
    Bitboard(
        ray(2, sq, occupied) | ray(3, sq, occupied) | ray(6, sq, occupied) | ray(7, sq, occupied),
    )
}

#[inline]
pub fn queen(sq: Square, occupied: Bitboard) -> Bitboard {
    rook(sq, occupied) | bishop(sq, occupied)
}

/// The squares a piece of `role` (and `color`, for pawns) on `sq` attacks.
#[inline]
pub fn attacks(color: Color, role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Pawn => pawn(color, sq),
        Role::Knight => knight(sq),
        Role::Bishop => bishop(sq, occupied),
        Role::Rook => rook(sq, occupied),
        Role::Queen => queen(sq, occupied),
        Role::King => king(sq),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn leapers_in_corners_and_centre() {
        assert_eq!(king(sq("a1")).count(), 3);
        assert_eq!(king(sq("e4")).count(), 8);
        assert_eq!(knight(sq("a1")).count(), 2);
        assert_eq!(knight(sq("d4")).count(), 8);
        assert_eq!(pawn(Color::White, sq("a2")), sq("b3").bb());
        assert_eq!(pawn(Color::Black, sq("e5")), sq("d4").bb() | sq("f4").bb());
    }

    #[test]
    fn every_attacker_stands_within_reach() {
        for sq in Square::all() {
            for from in Square::all() {
                let attacks_sq = [Role::Knight, Role::Queen, Role::King]
                    .into_iter()
                    .any(|role| attacks(Color::White, role, from, Bitboard::EMPTY).contains(sq))
                    || [Color::White, Color::Black]
                        .into_iter()
                        .any(|c| pawn(c, from).contains(sq));
                assert_eq!(reach(sq).contains(from), attacks_sq, "{from} -> {sq}");
            }
        }
    }

    #[test]
    fn sliders_stop_at_the_first_blocker() {
        let occupied = sq("d6").bb() | sq("b4").bb() | sq("f2").bb();
        let r = rook(sq("d4"), occupied);
        assert!(r.contains(sq("d6")) && !r.contains(sq("d7")));
        assert!(r.contains(sq("b4")) && !r.contains(sq("a4")));
        assert!(r.contains(sq("h4")) && r.contains(sq("d1")));
        assert_eq!(r.count(), 2 + 2 + 4 + 3);
        let b = bishop(sq("d4"), occupied);
        assert!(b.contains(sq("f2")) && !b.contains(sq("g1")));
        assert_eq!(bishop(sq("a1"), Bitboard::EMPTY).count(), 7);
        assert_eq!(queen(sq("d4"), Bitboard::EMPTY).count(), 27);
    }

    /// Slider attacks walked square by square, the plain way.
    fn walked(sq: Square, steps: &[(i8, i8)], occupied: Bitboard) -> Bitboard {
        let mut set = Bitboard::EMPTY;
        for &(df, dr) in steps {
            let (mut f, mut r) = ((sq.index() % 8) as i8, (sq.index() / 8) as i8);
            loop {
                (f, r) = (f + df, r + dr);
                if !(0..8).contains(&f) || !(0..8).contains(&r) {
                    break;
                }
                let to = Square::new((r * 8 + f) as u8);
                set = set | to.bb();
                if occupied.contains(to) {
                    break;
                }
            }
        }
        set
    }

    #[test]
    fn the_sentinel_corners_have_empty_rays() {
        for (d, rays) in RAYS.iter().enumerate() {
            let corner = if d < 4 { 63 } else { 0 };
            assert_eq!(rays[corner], 0, "direction {d}");
        }
    }

    #[test]
    fn sliders_agree_with_walking_the_board() {
        let rook_steps = [(1, 0), (0, 1), (-1, 0), (0, -1)];
        let bishop_steps = [(1, 1), (-1, 1), (-1, -1), (1, -1)];
        // Occupancies from a fixed generator, with the corners a1 and h8 (the ends of the rays) often set.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let sparse = x & x.rotate_left(23) & x.rotate_left(41);
            let corners = [0, 1, 1 << 63, 1 | 1 << 63][round % 4];
            let occupied = Bitboard(sparse | corners);
            for sq in Square::all() {
                assert_eq!(
                    rook(sq, occupied),
                    walked(sq, &rook_steps, occupied),
                    "rook {sq}"
                );
                assert_eq!(
                    bishop(sq, occupied),
                    walked(sq, &bishop_steps, occupied),
                    "bishop {sq}"
                );
            }
        }
    }
}
