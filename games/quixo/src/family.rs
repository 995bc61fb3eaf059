//! Quixo as a [`Family`]: variants (board sizes), tiers, the notation of positions and moves.

use std::fmt;

use retro_family::{About, Family, Flags, Index, Location, Payloads, Played, Rates, SubTables};

use crate::board::{self, Board};
use crate::game::QuixoGame;
use crate::index;

/// The family: Quixo on boards of 3×3 to 5×5.
pub struct Quixo;

/// A board size, written `NxN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Size(pub u8);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{0}x{0}", self.0)
    }
}

/// One table: the positions of a board size with a number of cubes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tier {
    pub n: u8,
    pub cubes: u8,
}

/// A position with its colours: X's and O's cubes and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub n: u8,
    pub x: u32,
    pub o: u32,
    pub x_to_move: bool,
}

impl Position {
    /// The board seen by the player to move.
    pub fn board(&self) -> Board {
        if self.x_to_move {
            board::pack(self.x, self.o)
        } else {
            board::pack(self.o, self.x)
        }
    }

    /// The position of a board seen by its mover, who plays `x` or not.
    pub fn from_board(n: u8, board: Board, x_to_move: bool) -> Position {
        let (mine, theirs) = (board::mine(board), board::theirs(board));
        let (x, o) = if x_to_move {
            (mine, theirs)
        } else {
            (theirs, mine)
        };
        Position { n, x, o, x_to_move }
    }

    fn geometry(&self) -> &'static board::Geometry {
        board::geometry(self.n.into())
    }
}

/// A move: the cube taken at `from` re-enters at `to`, written `b1-d1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuixoMove {
    pub n: u8,
    pub from: u8,
    pub to: u8,
}

impl fmt::Display for QuixoMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = u32::from(self.n);
        write!(
            f,
            "{}-{}",
            square_name(n, self.from.into()),
            square_name(n, self.to.into())
        )
    }
}

/// A square's name: its column as a letter from the left (`a`), its row as a number from the bottom (`1`).
pub fn square_name(n: u32, square: u32) -> String {
    let (row, col) = (square / n, square % n);
    format!("{}{}", (b'a' + col as u8) as char, n - row)
}

fn parse_size(word: &str) -> Result<u8, String> {
    let bad = || format!("{word:?} is not a board size: write NxN with N in 3..=5, e.g. 4x4");
    let (a, b) = word.split_once(['x', 'X']).ok_or_else(bad)?;
    let (a, b): (u8, u8) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
    if a != b || !(3..=5).contains(&a) {
        return Err(bad());
    }
    Ok(a)
}

/// Reads `[NxN/]ROW/ROW/.../ROW SIDE`: rows from the top, each `x`, `o` or `.` per square from the left, then the
/// side to move, `x` or `o`.
pub fn parse_position(text: &str) -> Result<Position, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [rows, side] = words[..] else {
        return Err(format!(
            "{text:?}: expected the rows and the side to move, e.g. \"4x4/x.../..../..../.... o\""
        ));
    };
    let mut rows: Vec<&str> = rows.split('/').collect();
    let declared =
        if rows[0].contains(['x', 'X']) && rows[0].starts_with(|c: char| c.is_ascii_digit()) {
            Some(parse_size(rows.remove(0))?)
        } else {
            None
        };
    let n = rows.len();
    if !(3..=5).contains(&n) {
        return Err(format!("{n} rows: a board has 3 to 5"));
    }
    if let Some(d) = declared
        && usize::from(d) != n
    {
        return Err(format!("the board is declared {d}x{d} but has {n} rows"));
    }
    let (mut x, mut o) = (0u32, 0u32);
    for (r, row) in rows.iter().enumerate() {
        if row.chars().count() != n {
            return Err(format!("row {} ({row:?}) has not {n} squares", r + 1));
        }
        for (c, ch) in row.chars().enumerate() {
            let bit = 1 << (r * n + c);
            match ch {
                'x' | 'X' => x |= bit,
                'o' | 'O' => o |= bit,
                '.' => {}
                _ => return Err(format!("{ch:?} in row {}: squares are x, o or .", r + 1)),
            }
        }
    }
    let x_to_move = match side {
        "x" | "X" => true,
        "o" | "O" => false,
        _ => return Err(format!("{side:?}: the side to move is x or o")),
    };
    Ok(Position {
        n: n as u8,
        x,
        o,
        x_to_move,
    })
}

/// The notation [`parse_position`] reads, with the board size first.
pub fn show_position(position: &Position) -> String {
    let n = u32::from(position.n);
    let mut out = format!("{0}x{0}", n);
    for r in 0..n {
        out.push('/');
        for c in 0..n {
            let bit = 1 << (r * n + c);
            out.push(if position.x & bit != 0 {
                'x'
            } else if position.o & bit != 0 {
                'o'
            } else {
                '.'
            });
        }
    }
    out.push_str(if position.x_to_move { " x" } else { " o" });
    out
}

impl Family for Quixo {
    type Variant = Size;
    type Table = Tier;
    type Position = Position;
    type Move = QuixoMove;
    type Game<'a> = QuixoGame<'a>;

    fn about(&self) -> About {
        About {
            name: "quixo",
            summary: "Quixo: push cubes in from the border to make a line of your symbol",
            variants: "NxN, N in 3..=5 (e.g. 4x4)",
            example_variant: "4x4",
            example_position: "4x4/...x/..../..../.... o",
            position_key: "position",
            move_key: "move",
        }
    }

    fn parse_variant(&self, words: &[String], flags: &Flags) -> Result<Size, String> {
        flags.refuse_all("quixo")?;
        match words {
            [word] => Ok(Size(parse_size(word)?)),
            _ => Err("quixo takes one variant word, the board size: 3x3, 4x4 or 5x5".into()),
        }
    }

    fn tables(&self, variant: &Size) -> Vec<Tier> {
        let n = variant.0;
        (0..=n * n).rev().map(|cubes| Tier { n, cubes }).collect()
    }

    fn dependencies(&self, table: &Tier) -> Vec<Tier> {
        if table.cubes < table.n * table.n {
            vec![Tier {
                n: table.n,
                cubes: table.cubes + 1,
            }]
        } else {
            Vec::new()
        }
    }

    fn table_name(&self, table: &Tier) -> String {
        format!("{0}x{0}-{1:02}", table.n, table.cubes)
    }

    fn params(&self, table: &Tier) -> Vec<(String, String)> {
        vec![
            ("layout".into(), "quixo-classes-1".into()),
            ("board".into(), Size(table.n).to_string()),
            ("cubes".into(), table.cubes.to_string()),
        ]
    }

    fn rates(&self, _: &Tier) -> Rates {
        // 4x4, its 17 tiers (5.9 M indices): 4.2 s with 2 threads, 1.5 MB of files (2026-12-02). Larger boards
        // spend less of their time starting and writing, so this errs on the slow side.
        Rates {
            indices_per_second: 0.70e6,
            file_bytes_per_index: 0.25,
        }
    }

    fn game<'a>(
        &'a self,
        table: &Tier,
        sub: &'a SubTables<'a, Tier>,
    ) -> Result<QuixoGame<'a>, String> {
        if !(3..=5).contains(&table.n) || table.cubes > table.n * table.n {
            return Err(format!("no table {}", self.table_name(table)));
        }
        let next = match self.dependencies(table).first() {
            Some(t) => Some(sub.need(t, || self.table_name(t))?),
            None => None,
        };
        Ok(QuixoGame::new(table.n.into(), table.cubes.into(), next))
    }

    fn parse_position(&self, text: &str, _: &dyn Payloads) -> Result<Position, String> {
        parse_position(text)
    }

    fn show_position(&self, position: &Position) -> String {
        show_position(position)
    }

    fn diagram(&self, position: &Position) -> String {
        let n = u32::from(position.n);
        let mut out = String::new();
        for r in 0..n {
            out.push_str(&format!("{} ", n - r));
            for c in 0..n {
                let bit = 1 << (r * n + c);
                out.push(if position.x & bit != 0 {
                    'X'
                } else if position.o & bit != 0 {
                    'O'
                } else {
                    '.'
                });
                out.push(' ');
            }
            out.pop();
            out.push('\n');
        }
        out.push_str("  ");
        for c in 0..n {
            out.push((b'a' + c as u8) as char);
            out.push(' ');
        }
        out.pop();
        out.push('\n');
        out.push_str(if position.x_to_move {
            "X to move\n"
        } else {
            "O to move\n"
        });
        out
    }

    fn locate(&self, position: &Position) -> Result<Location<Tier>, String> {
        let board = position.board();
        let cubes = (board::mine(board) | board::theirs(board)).count_ones() as u8;
        let (index, _) = index::classes(position.n.into()).encode(board);
        Ok(Location::Stored {
            table: Tier {
                n: position.n,
                cubes,
            },
            index,
        })
    }

    /// An index stands for a board seen by its mover, whichever symbol that is: it is shown with X to move.
    fn position(&self, game: &QuixoGame<'_>, index: Index) -> Option<Position> {
        let n = game.classes().geometry().n as u8;
        let board = game.classes().decode(game.cubes(), index)?;
        Some(Position::from_board(n, board, true))
    }

    fn moves(&self, position: &Position) -> Vec<(QuixoMove, Played<Position>)> {
        let geo = position.geometry();
        let board = position.board();
        if geo.is_over(board) {
            return Vec::new();
        }
        let takeable = geo.border & !board::theirs(board);
        geo.pushes
            .iter()
            .filter(|p| takeable >> p.from & 1 == 1)
            .map(|p| {
                let reached = board::swap(p.apply(board));
                (
                    QuixoMove {
                        n: position.n,
                        from: p.from,
                        to: p.to,
                    },
                    Played::Position(Position::from_board(
                        position.n,
                        reached,
                        !position.x_to_move,
                    )),
                )
            })
            .collect()
    }

    fn start(&self, variant: &Size) -> Option<Position> {
        Some(Position {
            n: variant.0,
            x: 0,
            o: 0,
            x_to_move: true,
        })
    }

    fn flags(&self, position: &Position) -> Vec<(&'static str, bool)> {
        vec![("game_over", position.geometry().is_over(position.board()))]
    }

    fn images(&self, position: &Position) -> u64 {
        index::classes(position.n.into())
            .images(position.board())
            .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_family::{NoPayloads, contract};

    #[test]
    fn the_contract_holds_on_3x3_everywhere() {
        let checked = contract::check(&Quixo, &Size(3), u64::MAX, &NoPayloads).unwrap();
        assert_eq!(checked.tables, 10);
        assert_eq!(checked.positions, 2862);
    }

    #[test]
    fn the_contract_holds_on_4x4_sampled() {
        let checked = contract::check(&Quixo, &Size(4), 20_000, &NoPayloads).unwrap();
        assert_eq!(checked.tables, 17);
        assert!(checked.moves > 100_000, "{checked:?}");
    }

    #[test]
    fn notation_reads_back() {
        for text in [
            "4x4/...x/..../..../.... o",
            "3x3/xo./.x./..o x",
            "5x5/xxxxo/...../..o../...../oooox o",
        ] {
            let p = parse_position(text).unwrap();
            assert_eq!(show_position(&p), text);
        }
        let short = parse_position("xo./.x./..o x").unwrap();
        assert_eq!(show_position(&short), "3x3/xo./.x./..o x");
    }

    #[test]
    fn bad_input_is_refused_in_one_line() {
        for text in [
            "",
            "4x4/..../..../..../....",
            "4x4/..../..../..../.... z",
            "4x4/..../..../..../... x",
            "4x4/..../..../..../...y x",
            "3x3/..../..../..../.... x",
            "../.. x",
            "6x6/....../....../....../....../....../...... x",
            "4x4/..../..../..../.... x extra",
        ] {
            let e = Quixo.parse_position(text, &NoPayloads).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
        }
        for words in [
            vec![],
            vec!["4x5"],
            vec!["6x6"],
            vec!["2x2"],
            vec!["4x4", "5x5"],
            vec!["four"],
        ] {
            let words: Vec<String> = words.into_iter().map(String::from).collect();
            let e = Quixo.parse_variant(&words, &Flags::default()).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
        }
        let misere = Flags {
            misere: true,
            ..Flags::default()
        };
        assert!(Quixo.parse_variant(&["4x4".into()], &misere).is_err());
        assert_eq!(
            Quixo.parse_variant(&["4x4".into()], &Flags::default()),
            Ok(Size(4))
        );
    }

    #[test]
    fn start_and_moves() {
        let start = Quixo.start(&Size(4)).unwrap();
        assert_eq!(show_position(&start), "4x4/..../..../..../.... x");
        let moves = Quixo.moves(&start);
        assert_eq!(moves.len(), 32);
        let (m, Played::Position(after)) = &moves[0] else {
            panic!("the first move does not end the game")
        };
        assert_eq!(m.to_string(), "a4-d4");
        assert_eq!(show_position(after), "4x4/...x/..../..../.... o");
        assert_eq!(Quixo.images(&start), 1);
        assert_eq!(Quixo.images(after), 4);
        // A finished game has no moves.
        let over = parse_position("3x3/xxx/oo./... o").unwrap();
        assert!(Quixo.moves(&over).is_empty());
        assert_eq!(Quixo.flags(&over), vec![("game_over", true)]);
        assert_eq!(
            Quixo.tables(&Size(3)).first(),
            Some(&Tier { n: 3, cubes: 9 })
        );
        assert_eq!(Quixo.table_name(&Tier { n: 4, cubes: 7 }), "4x4-07");
    }
}
