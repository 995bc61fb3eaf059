//! Boards and their rules, on bitboards.
//!
//! A board of `W` columns and `H` rows is two `u64`s, the stones of `x` and of `o`, column-major: the cell of
//! column `c` (0 on the left) and row `r` (0 at the bottom) is bit `c * (H + 1) + r`. Each column has one more bit
//! than it has rows, a *sentinel* that is never set, so that shifting a bitboard by one of the four directions never
//! carries a stone from one column into the next: four in a row is four shifts and ands (see [`has_line`]).
//! `7 * 8 = 56` bits fit in a `u64`.
//!
//! Every board built here has its stones stacked from the bottom of each column and `x` (who moves first) has as
//! many stones as `o` or one more: the index ([`crate::index`]), the notation ([`crate::notation`]) and
//! [`Board::play`] only make such boards.

use std::fmt;

use retro_game::{Node, Value};

/// The sides of the board: 4 to 7 columns, 4 to 7 rows.
pub const MIN_SIDE: u8 = 4;
pub const MAX_SIDE: u8 = 7;

/// A board size, `W` columns by `H` rows, written `WxH`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    width: u8,
    height: u8,
}

impl Shape {
    /// The size `width` x `height`, or an error when a side is outside 4 to 7.
    pub fn new(width: u8, height: u8) -> Result<Shape, String> {
        let range = MIN_SIDE..=MAX_SIDE;
        if range.contains(&width) && range.contains(&height) {
            Ok(Shape { width, height })
        } else {
            Err(format!(
                "board {width}x{height} is out of range: {MIN_SIDE} ≤ width, height ≤ {MAX_SIDE}"
            ))
        }
    }

    /// Reads `WxH`, as in `6x5`.
    pub fn parse(word: &str) -> Result<Shape, String> {
        let expected = || format!("expected WxH, like 6x5, not {word:?}");
        let (w, h) = word.split_once(['x', 'X']).ok_or_else(expected)?;
        let side = |s: &str| {
            // Sides of more than two digits are out of range anyway; refusing them here keeps `u8` from wrapping.
            if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(expected());
            }
            s.parse::<u8>().map_err(|_| expected())
        };
        Shape::new(side(w)?, side(h)?)
    }

    pub fn width(self) -> u32 {
        u32::from(self.width)
    }

    pub fn height(self) -> u32 {
        u32::from(self.height)
    }

    pub fn cells(self) -> u32 {
        self.width() * self.height()
    }

    /// Bits per column: the rows and the sentinel.
    pub fn stride(self) -> u32 {
        self.height() + 1
    }

    /// The `H` cells of column `c`.
    pub fn column(self, c: u32) -> u64 {
        ((1 << self.height()) - 1) << (c * self.stride())
    }

    /// Every cell of the board (no sentinel).
    pub fn all(self) -> u64 {
        (0..self.width()).fold(0, |all, c| all | self.column(c))
    }

    /// The bit of column `c`, row `r`.
    pub fn cell(self, c: u32, r: u32) -> u64 {
        1 << (c * self.stride() + r)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// Whether `bits` has four in a row, on a board of `stride` bits per column. The four directions are shifts by 1
/// (up a column), `stride` (along a row), `stride - 1` and `stride + 1` (the diagonals); the sentinel bits, never
/// set, stop a line from wrapping from the top of one column to the bottom of the next.
pub fn has_line(bits: u64, stride: u32) -> bool {
    [1, stride, stride - 1, stride + 1].into_iter().any(|d| {
        let pairs = bits & (bits >> d);
        pairs & (pairs >> (2 * d)) != 0
    })
}

/// One of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    X,
    O,
}

impl Player {
    pub fn other(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }

    pub fn letter(self) -> char {
        match self {
            Player::X => 'x',
            Player::O => 'o',
        }
    }
}

/// A position: the board size and the stones of each player. `x` moves first, so the number of stones tells who
/// is to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    shape: Shape,
    x: u64,
    o: u64,
}

impl Board {
    /// The empty board, `x` to move.
    pub fn empty(shape: Shape) -> Board {
        Board { shape, x: 0, o: 0 }
    }

    /// A board from its bitboards. The caller guarantees gravity and the counts (see the module documentation).
    pub(crate) fn from_bits(shape: Shape, x: u64, o: u64) -> Board {
        debug_assert_eq!(x & o, 0);
        debug_assert_eq!((x | o) & !shape.all(), 0);
        Board { shape, x, o }
    }

    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The stones of `player`, as a bitboard.
    pub fn stones_of(&self, player: Player) -> u64 {
        match player {
            Player::X => self.x,
            Player::O => self.o,
        }
    }

    pub fn occupied(&self) -> u64 {
        self.x | self.o
    }

    /// The number of stones on the board: the tier of the position.
    pub fn stones(&self) -> u32 {
        self.occupied().count_ones()
    }

    /// Whose turn it is: `x` when the stones are even.
    pub fn mover(&self) -> Player {
        if self.stones().is_multiple_of(2) {
            Player::X
        } else {
            Player::O
        }
    }

    /// The number of stones in column `c`.
    pub fn height(&self, c: u32) -> u32 {
        (self.occupied() & self.shape.column(c)).count_ones()
    }

    /// Whether a stone can drop into column `c` (it is not full).
    pub fn can_play(&self, c: u32) -> bool {
        self.height(c) < self.shape.height()
    }

    /// Whether `player` has four in a row.
    pub fn has_line(&self, player: Player) -> bool {
        has_line(self.stones_of(player), self.shape.stride())
    }

    pub fn is_full(&self) -> bool {
        self.stones() == self.shape.cells()
    }

    /// What the position is to the engine. Four in a row for the player to move cannot happen in a game (the game
    /// ended before the opponent's last stone), and neither can four in a row for both: such boards are holes.
    /// Four in a row for the player who just moved is a loss in 0 for the player to move, a full board without one
    /// a draw.
    pub fn node(&self) -> Node {
        let mover = self.mover();
        if self.has_line(mover) {
            Node::Hole
        } else if self.has_line(mover.other()) {
            Node::Terminal(Value::loss(0))
        } else if self.is_full() {
            Node::Terminal(Value::DRAW)
        } else {
            Node::Playable
        }
    }

    /// Whether the game is over (or the board is no position of a game).
    pub fn is_over(&self) -> bool {
        self.node() != Node::Playable
    }

    /// The board after the player to move drops a stone into column `c`, which is not full.
    pub fn play(&self, c: u32) -> Board {
        debug_assert!(self.can_play(c));
        // Adding the column's bottom bit to its stones carries into the lowest empty cell.
        let column = self.shape.column(c);
        let cell = (self.occupied() + self.shape.cell(c, 0)) & column;
        let mut after = *self;
        match self.mover() {
            Player::X => after.x |= cell,
            Player::O => after.o |= cell,
        }
        after
    }

    /// The stone at column `c`, row `r`, if any.
    pub fn at(&self, c: u32, r: u32) -> Option<Player> {
        let cell = self.shape.cell(c, r);
        if self.x & cell != 0 {
            Some(Player::X)
        } else if self.o & cell != 0 {
            Some(Player::O)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(w: u8, h: u8) -> Shape {
        Shape::new(w, h).unwrap()
    }

    /// Four in a row by brute force over the cells, to check the shifts against.
    fn slow_line(s: Shape, bits: u64) -> bool {
        let (w, h) = (s.width() as i32, s.height() as i32);
        let set = |c: i32, r: i32| {
            (0..w).contains(&c) && (0..h).contains(&r) && bits & s.cell(c as u32, r as u32) != 0
        };
        (0..w).any(|c| {
            (0..h).any(|r| {
                [(1, 0), (0, 1), (1, 1), (1, -1)]
                    .iter()
                    .any(|&(dc, dr)| (0..4).all(|i| set(c + i * dc, r + i * dr)))
            })
        })
    }

    #[test]
    fn lines_agree_with_brute_force() {
        // A cheap deterministic generator: no dependency for a few thousand boards.
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for (w, h) in [(4, 4), (7, 4), (4, 7), (6, 5), (7, 7)] {
            let s = shape(w, h);
            for _ in 0..20_000 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let bits = seed & (seed >> 3) & s.all();
                assert_eq!(
                    has_line(bits, s.stride()),
                    slow_line(s, bits),
                    "{s} {bits:#x}"
                );
            }
        }
    }

    #[test]
    fn stones_drop_and_the_turn_alternates() {
        let s = shape(4, 4);
        let b = Board::empty(s).play(1).play(1).play(2);
        assert_eq!((b.height(0), b.height(1), b.height(2)), (0, 2, 1));
        assert_eq!(b.at(1, 0), Some(Player::X));
        assert_eq!(b.at(1, 1), Some(Player::O));
        assert_eq!(b.at(2, 0), Some(Player::X));
        assert_eq!(b.mover(), Player::O);
        assert_eq!(b.node(), Node::Playable);
        // x along the bottom row, o on top of it: x's fourth stone ends the game.
        let mut b = Board::empty(s);
        for c in [0, 0, 1, 1, 2, 2] {
            b = b.play(c);
        }
        assert_eq!(b.node(), Node::Playable);
        let won = b.play(3);
        assert!(won.has_line(Player::X));
        assert_eq!(won.node(), Node::Terminal(Value::loss(0)));
    }

    #[test]
    fn shapes_read_and_refuse() {
        assert_eq!(Shape::parse("6x5").unwrap(), shape(6, 5));
        assert_eq!(Shape::parse("6x5").unwrap().to_string(), "6x5");
        assert_eq!(
            Shape::parse("8x5").unwrap_err(),
            "board 8x5 is out of range: 4 ≤ width, height ≤ 7"
        );
        for bad in ["6", "x5", "6x", "6x5x", "six", "-1x5", "300x5"] {
            assert!(
                Shape::parse(bad).unwrap_err().starts_with("expected WxH"),
                "{bad}"
            );
        }
    }
}
