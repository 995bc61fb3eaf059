//! Tic-tac-toe, solved by retro: the smallest complete family, and the worked example of `docs/new-game.md`.
//!
//! The whole game is one table of 3^9 = 19683 indices, one per way of filling the nine squares with `x`, `o` or
//! nothing. The index is the board read as a number in base 3, so it needs no table of its own. `x` moves first,
//! so the counts of stones tell whose turn it is and the player to move is no part of the index.
//!
//! An index is:
//! - a hole when no game reaches the board: the counts are wrong (`x` has as many stones as `o` or one more), both
//!   players have three in a row, or the player to move has (the game ended before the last stone);
//! - terminal when the player who just moved has three in a row (a loss in 0 for the player to move) or the board
//!   is full (a draw);
//! - in play otherwise, with one move per empty square, each to another index of the table: the game has no exits.
//!
//! Positions are written as rows from the top, `x`, `o` and `.` for the squares: `x.o/.x./...` is `o` to move.
//! Squares are named like a chess board's: columns `a` to `c` from the left, rows `1` to `3` from the bottom.

use std::fmt;

use retro_family::{
    About, Family, Flags, Game, Index, Location, Move, Node, Payloads, Played, SubTables, Value,
};

#[cfg(test)]
mod tests;

/// The content of a square.
const EMPTY: u8 = 0;
const X: u8 = 1;
const O: u8 = 2;

/// The eight lines of three, squares numbered 0 to 8 row by row from the top left.
#[rustfmt::skip]
const LINES: [[usize; 3]; 8] = [
    [0, 1, 2], [3, 4, 5], [6, 7, 8], // rows
    [0, 3, 6], [1, 4, 7], [2, 5, 8], // columns
    [0, 4, 8], [2, 4, 6],            // diagonals
];

/// 3^9: every filling of the nine squares, reachable or not.
pub const SIZE: Index = 19683;

/// A board: its nine squares row by row from the top left, each `EMPTY`, `X` or `O`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board([u8; 9]);

impl Board {
    pub const EMPTY: Board = Board([EMPTY; 9]);

    /// The board of an index: its squares are the base-3 digits, the top left one the most significant.
    pub fn decode(mut index: Index) -> Board {
        let mut squares = [EMPTY; 9];
        for square in squares.iter_mut().rev() {
            *square = (index % 3) as u8;
            index /= 3;
        }
        Board(squares)
    }

    pub fn encode(&self) -> Index {
        self.0.iter().fold(0, |n, &s| n * 3 + Index::from(s))
    }

    /// Whose turn it is, from the counts (`x` moves first); `None` when the counts are impossible.
    fn mover(&self) -> Option<u8> {
        let count = |who| self.0.iter().filter(|&&s| s == who).count();
        match count(X) as i32 - count(O) as i32 {
            0 => Some(X),
            1 => Some(O),
            _ => None,
        }
    }

    fn has_line(&self, who: u8) -> bool {
        LINES
            .iter()
            .any(|line| line.iter().all(|&s| self.0[s] == who))
    }

    /// Why no game reaches this board, or `None` when one does. A `&'static str`, not a `String`: the engine calls
    /// this on every index from many threads, and should not allocate.
    fn illegal(&self) -> Option<&'static str> {
        let Some(mover) = self.mover() else {
            return Some("x moves first, so x has as many stones as o or one more");
        };
        // Three in a row for the player to move means the game was already over when the other player moved.
        match (self.has_line(X), self.has_line(O)) {
            (true, true) => Some("both x and o have three in a row"),
            (true, false) if mover == X => Some("x has three in a row, yet o moved after it"),
            (false, true) if mover == O => Some("o has three in a row, yet x moved after it"),
            _ => None,
        }
    }

    /// What the board's index is to the engine, without its moves.
    pub fn node(&self) -> Node {
        let Some(mover) = self.mover().filter(|_| self.illegal().is_none()) else {
            return Node::Hole;
        };
        if self.has_line(X + O - mover) {
            Node::Terminal(Value::loss(0)) // The player who just moved made three in a row.
        } else if !self.0.contains(&EMPTY) {
            Node::Terminal(Value::DRAW)
        } else {
            Node::Playable
        }
    }

    /// The board after the player to move puts a stone on `square` (empty, on a board in play).
    pub fn play(&self, square: Square) -> Board {
        let mut after = *self;
        after.0[usize::from(square.0)] = self.mover().expect("a board in play");
        after
    }

    /// The legal moves: every empty square, unless the game is over.
    fn moves(&self) -> impl Iterator<Item = Square> + '_ {
        let playing = self.node() == Node::Playable;
        (0..9u8)
            .filter(move |&s| playing && self.0[usize::from(s)] == EMPTY)
            .map(Square)
    }
}

/// A square, 0 to 8 row by row from the top left, written `a3` to `c1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Square(pub u8);

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.0 % 3), 3 - self.0 / 3)
    }
}

/// The one table of tic-tac-toe, as the engine solves it.
pub struct TicTacToeGame;

impl Game for TicTacToeGame {
    fn size(&self) -> Index {
        SIZE
    }

    fn max_moves(&self) -> u64 {
        9
    }

    fn expand<F: FnMut(Move)>(&self, index: Index, mut visit: F) -> Node {
        let board = Board::decode(index);
        for square in board.moves() {
            visit(Move::To(board.play(square).encode()));
        }
        board.node()
    }

    fn unmoves<F: FnMut(Index)>(&self, index: Index, mut visit: F) {
        let board = Board::decode(index);
        let Some(mover) = board.mover().filter(|_| board.node() != Node::Hole) else {
            return;
        };
        // Take back each stone of the player who just moved. The board before must be in play, or `expand` would
        // not list this index from it: after two lines made at once, taking back a stone of one line only leaves
        // the other, and that board is a hole.
        for square in 0..9 {
            if board.0[square] == X + O - mover {
                let mut before = board;
                before.0[square] = EMPTY;
                if before.node() == Node::Playable {
                    visit(before.encode());
                }
            }
        }
    }
}

/// The family: `retro generate tictactoe`.
pub struct TicTacToe;

/// The one variant of tic-tac-toe, and its one table.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Standard;

impl fmt::Display for Standard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tictactoe")
    }
}

impl Family for TicTacToe {
    type Variant = Standard;
    type Table = Standard;
    type Position = Board;
    type Move = Square;
    type Game<'a> = TicTacToeGame;

    fn about(&self) -> About {
        About {
            name: "tictactoe",
            summary: "tic-tac-toe: three in a row on 3 x 3, x first (a draw)",
            variants: "",
            example_variant: "",
            example_position: "x.o/.x./...",
            position_key: "position",
            move_key: "move",
        }
    }

    fn parse_variant(&self, words: &[String], flags: &Flags) -> Result<Standard, String> {
        flags.refuse_all("tictactoe")?;
        match words {
            [] => Ok(Standard),
            _ => Err(format!(
                "tictactoe has no variants, but was given {:?}",
                words.join(" ")
            )),
        }
    }

    fn tables(&self, _: &Standard) -> Vec<Standard> {
        vec![Standard]
    }

    fn dependencies(&self, _: &Standard) -> Vec<Standard> {
        Vec::new() // No exits: every move stays in the table.
    }

    fn table_name(&self, _: &Standard) -> String {
        "tictactoe".into()
    }

    fn params(&self, _: &Standard) -> Vec<(String, String)> {
        // Names the index layout, so that tables written with another one are refused.
        let layout = "retro-tictactoe-1: base 3, a3 b3 c3 a2 b2 c2 a1 b1 c1 most significant first, 0 empty 1 x 2 o";
        vec![("index".into(), layout.into())]
    }

    fn sides(&self, _: &Standard) -> Vec<&'static str> {
        vec!["x", "o"]
    }

    fn side_of<'a>(&'a self, _: &Standard) -> Box<dyn Fn(Index) -> usize + Sync + 'a> {
        Box::new(|index| usize::from(Board::decode(index).mover() == Some(O)))
    }

    fn game<'a>(
        &'a self,
        _: &Standard,
        _: &'a SubTables<'a, Standard>,
    ) -> Result<TicTacToeGame, String> {
        Ok(TicTacToeGame)
    }

    fn parse_position(&self, text: &str, _: &dyn Payloads) -> Result<Board, String> {
        let text = text.trim();
        let rows: Vec<&str> = text.split('/').collect();
        if rows.len() != 3 || rows.iter().any(|row| row.chars().count() != 3) {
            return Err(format!(
                "{text:?} is not three rows of three squares, like x.o/.x./..."
            ));
        }
        let mut board = Board::EMPTY;
        for (square, c) in rows.concat().chars().enumerate() {
            board.0[square] = match c {
                '.' => EMPTY,
                'x' | 'X' => X,
                'o' | 'O' => O,
                _ => return Err(format!("{c:?} in {text:?} is no square: write x, o or .")),
            };
        }
        match board.illegal() {
            Some(why) => Err(format!("no game reaches {text:?}: {why}")),
            None => Ok(board),
        }
    }

    fn show_position(&self, board: &Board) -> String {
        let mut text = String::new();
        for (square, &s) in board.0.iter().enumerate() {
            if square > 0 && square % 3 == 0 {
                text.push('/');
            }
            text.push(['.', 'x', 'o'][usize::from(s)]);
        }
        text
    }

    fn diagram(&self, board: &Board) -> String {
        let mut out = String::new();
        for (row, text) in self.show_position(board).split('/').enumerate() {
            let spaced: String = text.chars().flat_map(|c| [' ', c]).collect();
            out += &format!("{}{spaced}\n", 3 - row);
        }
        let turn = match (board.node(), board.mover()) {
            (Node::Playable, Some(X)) => "x to move",
            (Node::Playable, _) => "o to move",
            _ => "game over",
        };
        out + &format!("  a b c  {turn}\n")
    }

    fn locate(&self, board: &Board) -> Result<Location<Standard>, String> {
        Ok(Location::Stored {
            table: Standard,
            index: board.encode(),
        })
    }

    fn position(&self, _: &TicTacToeGame, index: Index) -> Option<Board> {
        let board = Board::decode(index);
        (board.node() != Node::Hole).then_some(board)
    }

    fn moves(&self, board: &Board) -> Vec<(Square, Played<Board>)> {
        board
            .moves()
            .map(|s| (s, Played::Position(board.play(s))))
            .collect()
    }

    fn start(&self, _: &Standard) -> Option<Board> {
        Some(Board::EMPTY)
    }

    fn flags(&self, board: &Board) -> Vec<(&'static str, bool)> {
        vec![("game_over", matches!(board.node(), Node::Terminal(_)))]
    }
}
