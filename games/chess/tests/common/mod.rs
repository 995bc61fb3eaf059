//! Helpers shared by the integration tests: a small deterministic random generator and random legal positions.
#![allow(dead_code)]

use retro_chess::{Color, Material, Piece, Position, Role, Square};

/// SplitMix64: tiny, deterministic, good enough to scatter pieces.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random legal position of `material` (as named, White the first side).
pub fn random_position(material: Material, rng: &mut Rng) -> Position {
    loop {
        let turn = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut pos = Position::empty(turn);
        let place = |piece: Piece, pos: &mut Position, rng: &mut Rng| loop {
            let sq = Square::new(rng.below(64) as u8);
            if piece.role == Role::Pawn && (sq.rank() == 0 || sq.rank() == 7) {
                continue;
            }
            if !pos.occupied().contains(sq) {
                pos.put(sq, piece);
                return;
            }
        };
        for color in [Color::White, Color::Black] {
            place(
                Piece {
                    color,
                    role: Role::King,
                },
                &mut pos,
                rng,
            );
            for role in Role::NON_KING {
                for _ in 0..material.count(color, role) {
                    place(Piece { color, role }, &mut pos, rng);
                }
            }
        }
        if pos.validate().is_ok() {
            return pos;
        }
    }
}

/// Materials of 3 to 5 men that exercise every rule: sliders, knights, pawns on both sides (en passant),
/// promotions with capture, identical pieces.
pub const MATERIALS: [&str; 14] = [
    "KQvK", "KRvK", "KPvK", "KBNvK", "KRvKR", "KPvKP", "KQRvKR", "KRBvKR", "KBBvKN", "KRPvKR",
    "KPPvKP", "KQvKRP", "KNNvKP", "KPPvKQ",
];
