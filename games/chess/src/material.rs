//! Material: which pieces each side has, as in `KQvKR`. A table holds all positions of one material.
//!
//! The canonical name puts the stronger side first, as the Syzygy tables name theirs: the side with more pieces, and
//! between sides of as many pieces, the one whose strongest piece is stronger (then the next, and so on). In a table
//! the side written first plays White.

use std::fmt;

use crate::position::Position;
use crate::types::{Color, Role};

/// The most men a material may have (both kings included).
pub const MAX_MEN: u32 = 6;

/// Why a material name is not one we can build.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    #[error(
        "malformed material {0:?}: expected something like KQvKR (a king on each side, then Q R B N P)"
    )]
    Malformed(String),
    #[error("material {0} has {1} men; at most {MAX_MEN} are supported")]
    TooManyMen(String, u32),
}

/// The non-king pieces of each side: `counts[color][role]` for pawn..queen.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    counts: [[u8; 5]; 2],
}

impl Material {
    /// The material of the two bare kings.
    pub const KVK: Material = Material {
        counts: [[0; 5]; 2],
    };

    #[inline]
    pub fn count(&self, color: Color, role: Role) -> u8 {
        debug_assert!(role != Role::King);
        self.counts[color.index()][role.index()]
    }

    /// Number of men, kings included.
    pub fn men(&self) -> u32 {
        2 + self.counts.iter().flatten().map(|&c| c as u32).sum::<u32>()
    }

    pub fn has_pawns(&self) -> bool {
        self.counts[0][0] + self.counts[1][0] > 0
    }

    /// Whether both sides have pawns, so that en passant can arise.
    pub fn both_sides_have_pawns(&self) -> bool {
        self.counts[0][0] > 0 && self.counts[1][0] > 0
    }

    /// The material of a position.
    pub fn of(pos: &Position) -> Material {
        let mut counts = [[0u8; 5]; 2];
        for color in [Color::White, Color::Black] {
            for role in Role::NON_KING {
                counts[color.index()][role.index()] = pos.by_piece(color, role).count() as u8;
            }
        }
        Material { counts }
    }

    /// [`Material::of`]`(pos).`[`key`](Material::key)`()`, counted straight from the bitboards: a probe looks its
    /// table up by this key, and needs the material itself only to name a table that is missing.
    #[inline]
    pub fn key_of(pos: &Position) -> u64 {
        let mut key = 0;
        for color in [Color::White, Color::Black] {
            for role in Role::NON_KING {
                key = key << 6 | u64::from(pos.by_piece(color, role).count());
            }
        }
        key
    }

    /// A number that tells materials apart, cheaper to compare than the material: six bits per count (a position
    /// has at most 16 men of a colour), White's counts above Black's.
    #[inline]
    pub fn key(&self) -> u64 {
        self.counts
            .iter()
            .flatten()
            .fold(0, |key, &count| key << 6 | u64::from(count))
    }

    /// The same material with the sides exchanged.
    pub fn flipped(&self) -> Material {
        Material {
            counts: [self.counts[1], self.counts[0]],
        }
    }

    /// Strength key of one side: number of pieces, then roles from strongest to weakest.
    fn side_key(&self, color: Color) -> (u8, [u8; 5]) {
        let c = self.counts[color.index()];
        (c.iter().sum(), [c[4], c[3], c[2], c[1], c[0]])
    }

    /// Whether the side written first is at least as strong as the second: the canonical orientation.
    pub fn is_canonical(&self) -> bool {
        self.side_key(Color::White) >= self.side_key(Color::Black)
    }

    /// The canonical orientation: stronger side first.
    pub fn canonical(&self) -> Material {
        if self.is_canonical() {
            *self
        } else {
            self.flipped()
        }
    }

    /// Whether the two sides have the same pieces (`KRvKR`).
    pub fn is_symmetric(&self) -> bool {
        self.counts[0] == self.counts[1]
    }

    /// Parses `KQvKR`, `KRvKQ`, `kbnvk` (case-insensitive); the order of pieces within a side does not matter.
    pub fn parse(name: &str) -> Result<Material, MaterialError> {
        let bad = || MaterialError::Malformed(name.to_string());
        let upper = name.trim().to_ascii_uppercase();
        let (a, b) = upper.split_once('V').ok_or_else(bad)?;
        let mut counts = [[0u8; 5]; 2];
        for (side, text) in [a, b].into_iter().enumerate() {
            let mut chars = text.chars();
            if chars.next() != Some('K') {
                return Err(bad());
            }
            for c in chars {
                let role = Role::from_char(c).ok_or_else(bad)?;
                if role == Role::King {
                    return Err(bad());
                }
                counts[side][role.index()] += 1;
                if counts[side][role.index()] > 8 {
                    return Err(bad());
                }
            }
        }
        let material = Material { counts };
        if material.men() > MAX_MEN {
            return Err(MaterialError::TooManyMen(name.to_string(), material.men()));
        }
        Ok(material)
    }

    /// One side's letters, `KQR`.
    pub fn side_name(&self, color: Color) -> String {
        let mut s = String::from("K");
        for role in Role::NON_KING.iter().rev() {
            for _ in 0..self.counts[color.index()][role.index()] {
                s.push(role.upper());
            }
        }
        s
    }

    /// The materials one capture, promotion or capturing promotion away: the tables this one's exits look into.
    pub fn successors(&self) -> Vec<Material> {
        let mut out = Vec::new();
        for mover in [Color::White, Color::Black] {
            let victim = mover.other();
            // Captures by anything but a promoting pawn.
            for role in Role::NON_KING {
                if self.count(victim, role) > 0 {
                    let mut m = *self;
                    m.counts[victim.index()][role.index()] -= 1;
                    out.push(m);
                }
            }
            if self.count(mover, Role::Pawn) > 0 {
                for promoted in Role::PROMOTIONS {
                    let mut m = *self;
                    m.counts[mover.index()][Role::Pawn.index()] -= 1;
                    m.counts[mover.index()][promoted.index()] += 1;
                    out.push(m);
                    // A capture on the last rank takes a piece (never a pawn).
                    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
                        if self.count(victim, role) > 0 {
                            let mut c = m;
                            c.counts[victim.index()][role.index()] -= 1;
                            out.push(c);
                        }
                    }
                }
            }
        }
        let mut canonical: Vec<Material> = out.into_iter().map(|m| m.canonical()).collect();
        canonical.sort();
        canonical.dedup();
        canonical
    }

    /// The material after a move of `mover` that takes a piece of role `taken` and/or promotes a pawn to
    /// `promoted`; `None` when neither happens or the material cannot allow it (a promotion never takes a pawn).
    pub fn after_conversion(
        &self,
        mover: Color,
        taken: Option<Role>,
        promoted: Option<Role>,
    ) -> Option<Material> {
        if taken.is_none() && promoted.is_none() {
            return None;
        }
        let mut m = *self;
        if let Some(role) = taken {
            if role == Role::King || (promoted.is_some() && role == Role::Pawn) {
                return None;
            }
            let count = &mut m.counts[mover.other().index()][role.index()];
            *count = count.checked_sub(1)?;
        }
        if let Some(role) = promoted {
            if matches!(role, Role::King | Role::Pawn) {
                return None;
            }
            let pawns = &mut m.counts[mover.index()][Role::Pawn.index()];
            *pawns = pawns.checked_sub(1)?;
            m.counts[mover.index()][role.index()] += 1;
        }
        Some(m)
    }

    /// Every material this one depends on, itself last, each once, in an order where each table comes after the
    /// tables its exits look into. KvK is left out: every position of it is a draw.
    pub fn dependency_order(&self) -> Vec<Material> {
        fn visit(m: Material, done: &mut Vec<Material>) {
            if m == Material::KVK || done.contains(&m) {
                return;
            }
            for s in m.successors() {
                visit(s, done);
            }
            done.push(m);
        }
        let mut done = Vec::new();
        visit(self.canonical(), &mut done);
        done
    }

    /// Every canonical material of exactly `men` men.
    pub fn all_with_men(men: u32) -> Vec<Material> {
        fn sides(pieces: u32) -> Vec<[u8; 5]> {
            // All multisets of `pieces` roles out of 5.
            let mut out = Vec::new();
            let mut stack = vec![([0u8; 5], 0usize, pieces)];
            while let Some((c, from, left)) = stack.pop() {
                if left == 0 {
                    out.push(c);
                    continue;
                }
                for r in from..5 {
                    let mut d = c;
                    d[r] += 1;
                    stack.push((d, r, left - 1));
                }
            }
            out
        }
        let mut out = Vec::new();
        let pieces = men.saturating_sub(2);
        for white in 0..=pieces {
            for a in sides(white) {
                for b in sides(pieces - white) {
                    let m = Material { counts: [a, b] };
                    if m.is_canonical() {
                        out.push(m);
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out.retain(|m| m.canonical() == *m);
        out.sort_by_key(|m| m.to_string());
        out
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}v{}",
            self.side_name(Color::White),
            self.side_name(Color::Black)
        )
    }
}

impl fmt::Debug for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str) -> Material {
        Material::parse(s).unwrap()
    }

    #[test]
    fn the_key_counted_from_the_bitboards_is_the_materials() {
        let mut checked = 0;
        for name in [
            "KQvK", "KRvKB", "KPPvKP", "KBNvKQ", "KQQRvKN", "KNNNvKB", "KRPvKR",
        ] {
            let material = Material::parse(name).unwrap();
            let index = crate::index::TableIndex::new(material);
            for i in (0..index.size()).step_by(9973) {
                let Some(pos) = index.position(i) else {
                    continue;
                };
                for pos in [pos, pos.color_flipped()] {
                    assert_eq!(
                        Material::key_of(&pos),
                        Material::of(&pos).key(),
                        "{}",
                        pos.fen()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn names_are_canonical_with_the_stronger_side_first() {
        assert_eq!(m("KRvKQ").canonical().to_string(), "KQvKR");
        assert_eq!(m("kqvkr").to_string(), "KQvKR");
        assert_eq!(m("KvKBN").canonical().to_string(), "KBNvK");
        assert_eq!(m("KNvKB").canonical().to_string(), "KBvKN");
        assert_eq!(m("KPvKN").canonical().to_string(), "KNvKP");
        assert_eq!(m("KQvKRR").canonical().to_string(), "KRRvKQ");
        assert_eq!(m("KRQvKR").to_string(), "KQRvKR");
        assert!(m("KRvKR").is_symmetric());
    }

    #[test]
    fn bad_names_are_refused() {
        for bad in ["", "KQ", "QvK", "KQvQ", "KXvK", "KQvKK", "KQv"] {
            assert!(
                matches!(Material::parse(bad), Err(MaterialError::Malformed(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            Material::parse("KQRBvKRN"),
            Err(MaterialError::TooManyMen(_, 7))
        ));
        assert_eq!(Material::parse("KRNvKNN").unwrap().men(), 6);
    }

    #[test]
    fn dependencies_come_first_and_once() {
        let order = m("KQvKR").dependency_order();
        let names: Vec<String> = order.iter().map(|m| m.to_string()).collect();
        assert_eq!(names, ["KQvK", "KRvK", "KQvKR"]);
        let order = m("KPvK").dependency_order();
        let names: Vec<String> = order.iter().map(|m| m.to_string()).collect();
        assert_eq!(names.last().unwrap(), "KPvK");
        for needed in ["KQvK", "KRvK", "KBvK", "KNvK"] {
            assert!(names.contains(&needed.to_string()), "{needed} in {names:?}");
        }
        // A pawn that captures while promoting leads straight to a smaller table.
        assert!(m("KPvKR").successors().contains(&m("KQvK")));
    }

    #[test]
    fn all_materials_of_three_and_four_men() {
        let three: Vec<String> = Material::all_with_men(3)
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(three, ["KBvK", "KNvK", "KPvK", "KQvK", "KRvK"]);
        // 5 of one side (15 pairs of pieces) + the 15 pairs of one piece each side.
        assert_eq!(Material::all_with_men(4).len(), 15 + 15);
    }
}
