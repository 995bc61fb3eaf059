//! The small exact vocabulary of the game: squares, sides, kinds of piece, and the step tables that say where a
//! piece may go.
//!
//! Squares are numbered `rank * 3 + file` with file `a = 0`, rank `1 = 0`: square 0 is `a1`, Sente's left corner,
//! square 11 is `c4`. Most of the crate works on boards seen from the player to move ("us"), who always moves up
//! towards rank 4; the absolute board of the notation is recovered by rotating when Gote is to move.

use std::fmt;

/// One of the 12 squares of the 3 × 4 board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// Every square, `a1` first.
    pub const ALL: [Square; 12] = {
        let mut all = [Square(0); 12];
        let mut i = 0;
        while i < 12 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square of `file` (0..3) and `rank` (0..4), or `None` off the board.
    pub const fn new(file: i8, rank: i8) -> Option<Square> {
        if file >= 0 && file < 3 && rank >= 0 && rank < 4 {
            Some(Square((rank * 3 + file) as u8))
        } else {
            None
        }
    }

    /// The square numbered `index` (0..12).
    pub const fn from_index(index: usize) -> Square {
        assert!(index < 12);
        Square(index as u8)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn file(self) -> i8 {
        (self.0 % 3) as i8
    }

    pub const fn rank(self) -> i8 {
        (self.0 / 3) as i8
    }

    /// The bit of this square in a 12-bit square set.
    pub const fn bit(self) -> u16 {
        1 << self.0
    }

    /// The same square seen by the other player: the board turned by 180 degrees.
    pub const fn rotate(self) -> Square {
        Square(11 - self.0)
    }

    /// The square reflected left–right (file a ↔ file c).
    pub const fn mirror(self) -> Square {
        Square(self.0 - self.0 % 3 + (2 - self.0 % 3))
    }

    /// Parses `a1` .. `c4`.
    pub fn parse(text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return None;
        }
        let file = bytes[0].wrapping_sub(b'a') as i8;
        let rank = bytes[1].wrapping_sub(b'1') as i8;
        if !(0..3).contains(&file) || !(0..4).contains(&rank) {
            return None;
        }
        Square::new(file, rank)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file() as u8) as char,
            self.rank() + 1
        )
    }
}

/// The two players. Sente moves first and starts on rank 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Sente,
    Gote,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Sente => Side::Gote,
            Side::Gote => Side::Sente,
        }
    }
}

/// The kinds of piece. A hen is a promoted chick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Lion,
    Giraffe,
    Elephant,
    Chick,
    Hen,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Lion,
        Kind::Giraffe,
        Kind::Elephant,
        Kind::Chick,
        Kind::Hen,
    ];

    /// The upper-case letter of the notation: `L G E C H`.
    pub fn letter(self) -> char {
        match self {
            Kind::Lion => 'L',
            Kind::Giraffe => 'G',
            Kind::Elephant => 'E',
            Kind::Chick => 'C',
            Kind::Hen => 'H',
        }
    }

    pub fn from_letter(letter: char) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.letter() == letter.to_ascii_uppercase())
    }

    /// The kind a captured piece of this kind becomes in the captor's hand (a hen reverts to a chick).
    pub fn in_hand(self) -> Option<HandKind> {
        match self {
            Kind::Lion => None,
            Kind::Giraffe => Some(HandKind::Giraffe),
            Kind::Elephant => Some(HandKind::Elephant),
            Kind::Chick | Kind::Hen => Some(HandKind::Chick),
        }
    }

    /// The steps `(file, rank)` of this kind for a player moving up the board.
    const fn steps(self) -> &'static [(i8, i8)] {
        const ALL8: [(i8, i8); 8] = [
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ];
        match self {
            Kind::Lion => &ALL8,
            Kind::Giraffe => &[(0, -1), (-1, 0), (1, 0), (0, 1)],
            Kind::Elephant => &[(-1, -1), (1, -1), (-1, 1), (1, 1)],
            Kind::Chick => &[(0, 1)],
            Kind::Hen => &[(0, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)],
        }
    }
}

/// The kinds that can be held in hand, in the order hands are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandKind {
    Giraffe,
    Elephant,
    Chick,
}

impl HandKind {
    pub const ALL: [HandKind; 3] = [HandKind::Giraffe, HandKind::Elephant, HandKind::Chick];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The kind of the piece when it is dropped (a chick stays a chick, even on the far rank).
    pub fn kind(self) -> Kind {
        match self {
            HandKind::Giraffe => Kind::Giraffe,
            HandKind::Elephant => Kind::Elephant,
            HandKind::Chick => Kind::Chick,
        }
    }
}

/// The squares a piece of `kind` standing on each square attacks, for the player to move (moving up, `[0]`) and for
/// the opponent (moving down, `[1]`), as 12-bit square sets. Built at compile time.
pub const STEPS: [[[u16; 12]; 5]; 2] = {
    let mut table = [[[0u16; 12]; 5]; 2];
    let mut side = 0;
    while side < 2 {
        let mut k = 0;
        while k < 5 {
            let steps = Kind::ALL[k].steps();
            let mut s = 0;
            while s < 12 {
                let sq = Square(s as u8);
                let mut mask = 0u16;
                let mut i = 0;
                while i < steps.len() {
                    let (df, dr) = steps[i];
                    let dr = if side == 0 { dr } else { -dr };
                    if let Some(to) = Square::new(sq.file() + df, sq.rank() + dr) {
                        mask |= to.bit();
                    }
                    i += 1;
                }
                table[side][k][s] = mask;
                s += 1;
            }
            k += 1;
        }
        side += 1;
    }
    table
};

/// The squares of rank 4, the far rank of the player to move (where its chicks promote and its lion tries).
pub const FAR_RANK: u16 = 0b1110_0000_0000;
/// The squares of rank 1, the back rank of the player to move (the opponent's far rank).
pub const BACK_RANK: u16 = 0b111;

/// The number of squares in every 12-bit set (4 KB). The workspace builds for baseline x86-64, which has no
/// `popcnt` instruction: `count_ones` there is a dozen arithmetic steps, a look-up is one load from L1.
static SQUARE_COUNTS: [u8; 4096] = {
    let mut table = [0; 4096];
    let mut set = 0;
    while set < 4096 {
        table[set] = (set as u16).count_ones() as u8;
        set += 1;
    }
    table
};

/// The number of squares in a 12-bit set.
#[inline]
pub fn count(set: u32) -> u32 {
    u32::from(SQUARE_COUNTS[(set & 0xfff) as usize])
}

/// Iterates over the squares of a 12-bit set, lowest first.
pub fn squares(mut set: u16) -> impl Iterator<Item = Square> {
    std::iter::from_fn(move || {
        if set == 0 {
            None
        } else {
            let s = set.trailing_zeros() as u8;
            set &= set - 1;
            Some(Square(s))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_print_and_parse() {
        for sq in Square::ALL {
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        assert_eq!(Square::from_index(0).to_string(), "a1");
        assert_eq!(Square::from_index(11).to_string(), "c4");
        assert_eq!(Square::parse("d1"), None);
        assert_eq!(Square::parse("a5"), None);
        assert_eq!(Square::parse("a"), None);
    }

    #[test]
    fn square_counts() {
        for set in 0..4096u32 {
            assert_eq!(count(set), set.count_ones());
        }
        assert_eq!(count(0x1fff), 12);
    }

    #[test]
    fn rotation_and_mirror() {
        let b2 = Square::parse("b2").unwrap();
        assert_eq!(b2.rotate().to_string(), "b3");
        assert_eq!(Square::parse("a1").unwrap().rotate().to_string(), "c4");
        assert_eq!(Square::parse("a3").unwrap().mirror().to_string(), "c3");
        assert_eq!(b2.mirror(), b2);
    }

    #[test]
    fn step_tables() {
        let b2 = Square::parse("b2").unwrap();
        let set = |names: &[&str]| {
            names
                .iter()
                .map(|n| Square::parse(n).unwrap().bit())
                .fold(0, |a, b| a | b)
        };
        assert_eq!(STEPS[0][Kind::Lion as usize][b2.index()].count_ones(), 8);
        assert_eq!(STEPS[0][Kind::Chick as usize][b2.index()], set(&["b3"]));
        assert_eq!(STEPS[1][Kind::Chick as usize][b2.index()], set(&["b1"]));
        assert_eq!(
            STEPS[0][Kind::Hen as usize][b2.index()],
            set(&["a2", "c2", "a3", "b3", "c3", "b1"])
        );
        assert_eq!(
            STEPS[0][Kind::Elephant as usize][b2.index()],
            set(&["a1", "c1", "a3", "c3"])
        );
        assert_eq!(
            STEPS[0][Kind::Giraffe as usize][b2.index()],
            set(&["a2", "c2", "b1", "b3"])
        );
        assert_eq!(
            STEPS[0][Kind::Chick as usize][Square::parse("b4").unwrap().index()],
            0
        );
    }
}
