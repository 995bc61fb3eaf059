//! Positions in text: `WxH:MOVES` (the columns played from the empty board) and `WxH/ROW/.../ROW` (the rows from
//! the top). See the crate documentation for the syntax; every error is one line.

use crate::board::{Board, Player, Shape};

/// A move: the column a stone drops into, 0 on the left, written 1-based (`1` to `W`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Column(pub u8);

impl std::fmt::Display for Column {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0 + 1)
    }
}

/// Reads a position in either form.
pub fn parse(text: &str) -> Result<Board, String> {
    let text = text.trim();
    match text.find([':', '/']) {
        Some(at) => {
            let shape = Shape::parse(&text[..at])?;
            let rest = &text[at + 1..];
            if text.as_bytes()[at] == b':' {
                parse_moves(shape, rest, text)
            } else {
                parse_rows(shape, rest, text)
            }
        }
        None => Err(format!(
            "expected WxH:MOVES or WxH/ROW/.../ROW (like 6x5:4453 or 4x4/..../..../.o../.xx.), not {text:?}"
        )),
    }
}

fn parse_moves(shape: Shape, moves: &str, text: &str) -> Result<Board, String> {
    let mut board = Board::empty(shape);
    for (n, ch) in moves.chars().enumerate() {
        let column = ch
            .to_digit(10)
            .filter(|c| (1..=shape.width()).contains(c))
            .ok_or_else(|| {
                format!(
                    "move {} of {text:?}: {ch:?} is no column of a {shape} board (1 to {})",
                    n + 1,
                    shape.width()
                )
            })?;
        if board.is_over() {
            let why = if board.is_full() {
                "the board is full"
            } else {
                "four in a row"
            };
            return Err(format!("{text:?}: the game is over after move {n} ({why})"));
        }
        if !board.can_play(column - 1) {
            return Err(format!(
                "move {} of {text:?}: column {column} is full",
                n + 1
            ));
        }
        board = board.play(column - 1);
    }
    Ok(board)
}

fn parse_rows(shape: Shape, rows: &str, text: &str) -> Result<Board, String> {
    let rows: Vec<&str> = rows.split('/').collect();
    let (w, h) = (shape.width(), shape.height());
    if rows.len() != h as usize {
        return Err(format!(
            "{text:?} has {} rows, a {shape} board has {h}",
            rows.len()
        ));
    }
    let (mut x, mut o) = (0u64, 0u64);
    for (i, row) in rows.iter().enumerate() {
        if row.chars().count() != w as usize {
            return Err(format!(
                "row {} of {text:?} ({row:?}) has {} cells, a {shape} board has {w}",
                i + 1,
                row.chars().count()
            ));
        }
        let r = h - 1 - i as u32;
        for (c, ch) in (0..).zip(row.chars()) {
            match ch {
                '.' => {}
                'x' | 'X' => x |= shape.cell(c, r),
                'o' | 'O' => o |= shape.cell(c, r),
                _ => return Err(format!("{ch:?} in {text:?} is no cell: write x, o or .")),
            }
        }
    }
    for c in 0..w {
        let stones = (x | o) & shape.column(c);
        // Stacked stones are the low bits of the column: adding the bottom bit carries through all of them.
        if (stones + shape.cell(c, 0)) & stones != 0 {
            return Err(format!("{text:?}: a stone floats in column {}", c + 1));
        }
    }
    let (nx, no) = (x.count_ones(), o.count_ones());
    if nx != no && nx != no + 1 {
        return Err(format!(
            "{text:?}: x moves first, so x has as many stones as o or one more, not {nx} and {no}"
        ));
    }
    let board = Board::from_bits(shape, x, o);
    let mover = board.mover();
    match (board.has_line(mover), board.has_line(mover.other())) {
        (true, true) => Err(format!("{text:?}: both x and o have four in a row")),
        (true, false) => Err(format!(
            "{text:?}: {} has four in a row, yet {} moved after it",
            mover.letter(),
            mover.other().letter()
        )),
        _ => Ok(board),
    }
}

/// The letter of a cell.
fn cell(board: &Board, c: u32, r: u32) -> char {
    board.at(c, r).map_or('.', Player::letter)
}

/// The rows form, `WxH/ROW/.../ROW`, top row first.
pub fn show(board: &Board) -> String {
    let shape = board.shape();
    let mut text = shape.to_string();
    for r in (0..shape.height()).rev() {
        text.push('/');
        text.extend((0..shape.width()).map(|c| cell(board, c, r)));
    }
    text
}

/// The board for a person: the rows from the top, the column numbers, and whose turn it is.
pub fn diagram(board: &Board) -> String {
    let shape = board.shape();
    let mut out = String::new();
    for r in (0..shape.height()).rev() {
        let row: Vec<String> = (0..shape.width())
            .map(|c| cell(board, c, r).to_string())
            .collect();
        out += &format!("{}\n", row.join(" "));
    }
    let numbers: Vec<String> = (1..=shape.width()).map(|c| c.to_string()).collect();
    let state = match board.node() {
        retro_game::Node::Playable => format!("{} to move", board.mover().letter()),
        retro_game::Node::Terminal(v) if v.plies().is_some() => {
            format!("{} has four in a row", board.mover().other().letter())
        }
        _ => "the board is full".to_string(),
    };
    out + &format!("{}  {state}\n", numbers.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_read_the_same_board() {
        let moves = parse("4x4:2233").unwrap();
        assert_eq!(show(&moves), "4x4/..../..../.oo./.xx.");
        assert_eq!(parse(&show(&moves)).unwrap(), moves);
        assert_eq!(
            show(&parse("6x5:").unwrap()),
            "6x5/....../....../....../....../......"
        );
        assert_eq!(
            diagram(&moves),
            ". . . .\n. . . .\n. o o .\n. x x .\n1 2 3 4  x to move\n"
        );
        let won = parse("4x4:1213141").unwrap();
        assert!(diagram(&won).ends_with("x has four in a row\n"));
    }
}
