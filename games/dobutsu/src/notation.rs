//! Positions as players write them, and moves in text.
//!
//! A position is written like shogi's SFEN: the four ranks from Gote's side (rank 4 first), each rank from file a to
//! file c, pieces `L G E C H` for Sente and `l g e c h` for Gote, digits for runs of empty squares, `/` between ranks;
//! then `b` (Sente to move) or `w` (Gote to move); then the pieces in hand in any order, upper case for Sente's,
//! lower case for Gote's, a letter per piece (`CCg`), or `-` if no one holds anything. The start is
//! `gle/1c1/1C1/ELG b -`, also spelled `startpos`.
//!
//! Moves are written in absolute squares: a step as origin and destination, `b2b3` (a chick reaching the far rank
//! promotes without a mark), a drop as the upper-case letter of the piece, a star and the square, `C*b2`.

use std::fmt;

use thiserror::Error;

use crate::board::{Board, BoardMove, Cell, MaterialError, Owner};
use crate::index::FULL_MATERIAL;
use crate::types::{HandKind, Kind, Side, Square};

/// A position: a board and who is to move. The board is kept from the point of view of the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    turn: Side,
    board: Board,
}

/// What is wrong with a written position or move.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum NotationError {
    #[error("a position has three fields (board, side to move, hands), found {0}")]
    FieldCount(usize),
    #[error("the board has 4 ranks separated by '/', found {0}")]
    RankCount(usize),
    #[error("rank {rank} does not describe exactly 3 squares")]
    RankLength { rank: usize },
    #[error("'{0}' is not a piece letter (L G E C H, lower case for Gote) or a digit 1-3")]
    BadPiece(char),
    #[error("the side to move is 'b' (Sente) or 'w' (Gote), found '{0}'")]
    BadSide(String),
    #[error("'{0}' cannot be in hand (only G E C, lower case for Gote, or '-')")]
    BadHand(char),
    #[error("each side needs exactly one lion on the board")]
    Lions,
    #[error(
        "there must be exactly two {0}s on the board and in hand together (a hen counts as a chick)"
    )]
    Count(&'static str),
    #[error("'{0}' is not a move: write a step as 'b2b3' or a drop as 'C*b2'")]
    BadMove(String),
    #[error("{0} is not a legal move in this position")]
    IllegalMove(String),
}

impl From<MaterialError> for NotationError {
    fn from(e: MaterialError) -> Self {
        match e {
            MaterialError::Lions => NotationError::Lions,
            MaterialError::Count(HandKind::Giraffe) => NotationError::Count("giraffe"),
            MaterialError::Count(HandKind::Elephant) => NotationError::Count("elephant"),
            MaterialError::Count(HandKind::Chick) => NotationError::Count("chick"),
        }
    }
}

/// A move of a position, remembered with the side that plays it so that it prints in absolute squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    turn: Side,
    relative: BoardMove,
}

impl Move {
    /// The move in the coordinates of the player who plays it.
    pub fn relative(self) -> BoardMove {
        self.relative
    }

    fn absolute(self) -> BoardMove {
        match self.turn {
            Side::Sente => self.relative,
            Side::Gote => self.relative.rotate(),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.absolute() {
            BoardMove::Step { from, to } => write!(f, "{from}{to}"),
            BoardMove::Drop { kind, to } => write!(f, "{}*{to}", kind.kind().letter()),
        }
    }
}

/// What playing a move leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Played {
    /// The game goes on in this position.
    Continues(Position),
    /// The mover has just won (captured the lion, or a successful try).
    Won,
}

impl Position {
    /// The start position, `gle/1c1/1C1/ELG b -`.
    pub fn startpos() -> Position {
        "gle/1c1/1C1/ELG b -"
            .parse()
            .expect("the start position is well written")
    }

    /// The position with `turn` to move and `board` seen from that player.
    pub fn new(turn: Side, board: Board) -> Position {
        Position { turn, board }
    }

    pub fn turn(&self) -> Side {
        self.turn
    }

    /// The board from the point of view of the player to move.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// What stands on an absolute square.
    pub fn piece_at(&self, sq: Square) -> Option<(Side, Kind)> {
        let rel = if self.turn == Side::Sente {
            sq
        } else {
            sq.rotate()
        };
        self.board.cell(rel).piece().map(|(owner, kind)| {
            let side = if owner == Owner::Us {
                self.turn
            } else {
                self.turn.other()
            };
            (side, kind)
        })
    }

    /// How many pieces of `kind` `side` holds.
    pub fn hand(&self, side: Side, kind: HandKind) -> u8 {
        let owner = if side == self.turn {
            Owner::Us
        } else {
            Owner::Them
        };
        self.board.hand(owner, kind)
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        self.board.moves(|m| {
            moves.push(Move {
                turn: self.turn,
                relative: m,
            })
        });
        moves
    }

    /// Plays a legal move of this position.
    pub fn play(&self, mv: Move) -> Played {
        debug_assert_eq!(mv.turn, self.turn);
        if self.board.is_winning_move(mv.relative) {
            return Played::Won;
        }
        let (next, _) = self.board.play(mv.relative);
        Played::Continues(Position {
            turn: self.turn.other(),
            board: next.flip(),
        })
    }

    /// Reads a move of this position in the notation of the module (`b2b3`, `C*b2`).
    pub fn parse_move(&self, text: &str) -> Result<Move, NotationError> {
        let bad = || NotationError::BadMove(text.to_string());
        let relative_sq = |sq: Square| {
            if self.turn == Side::Sente {
                sq
            } else {
                sq.rotate()
            }
        };
        let wanted = if let Some((piece, square)) = text.split_once('*') {
            let mut letters = piece.chars();
            let (Some(letter), None) = (letters.next(), letters.next()) else {
                return Err(bad());
            };
            let kind = Kind::from_letter(letter)
                .and_then(Kind::in_hand)
                .filter(|hk| hk.kind().letter() == letter);
            let (Some(kind), Some(to)) = (kind, Square::parse(square)) else {
                return Err(bad());
            };
            BoardMove::Drop {
                kind,
                to: relative_sq(to),
            }
        } else {
            if text.len() != 4 || !text.is_ascii() {
                return Err(bad());
            }
            let (Some(from), Some(to)) = (Square::parse(&text[..2]), Square::parse(&text[2..]))
            else {
                return Err(bad());
            };
            BoardMove::Step {
                from: relative_sq(from),
                to: relative_sq(to),
            }
        };
        self.legal_moves()
            .into_iter()
            .find(|m| m.relative == wanted)
            .ok_or_else(|| NotationError::IllegalMove(text.to_string()))
    }

    /// A picture of the board for people: rank 4 at the top, Sente's pieces upper case.
    pub fn diagram(&self) -> String {
        let mut out = String::new();
        let hand_text = |side: Side| {
            let mut s = String::new();
            for hk in HandKind::ALL {
                for _ in 0..self.hand(side, hk) {
                    s.push(hk.kind().letter());
                }
            }
            if s.is_empty() { "-".to_string() } else { s }
        };
        out.push_str(&format!(
            "  Gote's hand: {}\n",
            hand_text(Side::Gote).to_lowercase()
        ));
        for rank in (0..4).rev() {
            out.push_str(&format!("{} ", rank + 1));
            for file in 0..3 {
                let sq = Square::new(file, rank).expect("on the board");
                out.push(match self.piece_at(sq) {
                    None => '.',
                    Some((Side::Sente, k)) => k.letter(),
                    Some((Side::Gote, k)) => k.letter().to_ascii_lowercase(),
                });
                out.push(' ');
            }
            out.push('\n');
        }
        out.push_str("  a b c\n");
        out.push_str(&format!("  Sente's hand: {}\n", hand_text(Side::Sente)));
        let mover = match self.turn {
            Side::Sente => "Sente",
            Side::Gote => "Gote",
        };
        out.push_str(&format!("  {mover} to move\n"));
        out
    }
}

impl std::str::FromStr for Position {
    type Err = NotationError;

    fn from_str(text: &str) -> Result<Position, NotationError> {
        let text = text.trim();
        if text == "startpos" {
            return Ok(Position::startpos());
        }
        Position::parse_with(text, FULL_MATERIAL)
    }
}

impl Position {
    /// Parses a position of the sub-game with `material` giraffes, elephants and chicks besides the lions (the
    /// game's own is [`FULL_MATERIAL`]; `str::parse` asks for it). `startpos` is not accepted here.
    pub fn parse_with(text: &str, material: [u8; 3]) -> Result<Position, NotationError> {
        let text = text.trim();
        let fields: Vec<&str> = text.split_whitespace().collect();
        if fields.len() != 3 {
            return Err(NotationError::FieldCount(fields.len()));
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 4 {
            return Err(NotationError::RankCount(ranks.len()));
        }
        // Absolute cells: "us" is Sente for now; turned below if Gote is to move.
        let mut cells = [Cell::EMPTY; 12];
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = 3 - i as i8;
            let mut file = 0i8;
            for c in rank_text.chars() {
                if let Some(d) = c.to_digit(10).filter(|d| (1..=3).contains(d)) {
                    file += d as i8;
                } else {
                    let kind = Kind::from_letter(c).ok_or(NotationError::BadPiece(c))?;
                    let owner = if c.is_ascii_uppercase() {
                        Owner::Us
                    } else {
                        Owner::Them
                    };
                    let sq = Square::new(file, rank).ok_or(NotationError::RankLength {
                        rank: rank as usize + 1,
                    })?;
                    cells[sq.index()] = Cell::new(owner, kind);
                    file += 1;
                }
                if file > 3 {
                    return Err(NotationError::RankLength {
                        rank: rank as usize + 1,
                    });
                }
            }
            if file != 3 {
                return Err(NotationError::RankLength {
                    rank: rank as usize + 1,
                });
            }
        }
        let turn = match fields[1] {
            "b" => Side::Sente,
            "w" => Side::Gote,
            other => return Err(NotationError::BadSide(other.to_string())),
        };
        let mut hands = [[0u8; 3]; 2];
        if fields[2] != "-" {
            for c in fields[2].chars() {
                let hk = Kind::from_letter(c)
                    .and_then(Kind::in_hand)
                    .filter(|hk| hk.kind().letter() == c.to_ascii_uppercase());
                let hk = hk.ok_or(NotationError::BadHand(c))?;
                let owner = if c.is_ascii_uppercase() {
                    Owner::Us
                } else {
                    Owner::Them
                };
                let count = &mut hands[owner as usize][hk.index()];
                *count = count.saturating_add(1);
            }
        }
        let sente_view = Board::from_parts_with(cells, hands, material)?;
        let board = if turn == Side::Sente {
            sente_view
        } else {
            sente_view.flip()
        };
        Ok(Position { turn, board })
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..4).rev() {
            let mut empty = 0;
            for file in 0..3 {
                match self.piece_at(Square::new(file, rank).expect("on the board")) {
                    None => empty += 1,
                    Some((side, kind)) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        let letter = kind.letter();
                        let letter = if side == Side::Sente {
                            letter
                        } else {
                            letter.to_ascii_lowercase()
                        };
                        write!(f, "{letter}")?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        f.write_str(if self.turn == Side::Sente {
            " b "
        } else {
            " w "
        })?;
        let mut any = false;
        for side in [Side::Sente, Side::Gote] {
            for hk in HandKind::ALL {
                for _ in 0..self.hand(side, hk) {
                    let c = hk.kind().letter();
                    write!(
                        f,
                        "{}",
                        if side == Side::Sente {
                            c
                        } else {
                            c.to_ascii_lowercase()
                        }
                    )?;
                    any = true;
                }
            }
        }
        if !any {
            f.write_str("-")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tests::{Rng, random_board};

    fn pos(text: &str) -> Position {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn move_names(p: &Position) -> Vec<String> {
        let mut names: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
        names.sort();
        names
    }

    #[test]
    fn start_position() {
        let p = Position::startpos();
        assert_eq!(p.to_string(), "gle/1c1/1C1/ELG b -");
        assert_eq!(
            p.piece_at(Square::parse("b1").unwrap()),
            Some((Side::Sente, Kind::Lion))
        );
        assert_eq!(
            p.piece_at(Square::parse("a4").unwrap()),
            Some((Side::Gote, Kind::Giraffe))
        );
        assert_eq!(
            p.piece_at(Square::parse("b3").unwrap()),
            Some((Side::Gote, Kind::Chick))
        );
        // Chick takes chick, lion to a2 or c2, giraffe to c2.
        assert_eq!(move_names(&p), vec!["b1a2", "b1c2", "b2b3", "c1c2"]);
    }

    #[test]
    fn round_trips() {
        for text in [
            "2l/LC1/2g/EE1 w Cg",
            "gle/1c1/1C1/ELG b -",
            "l2/3/3/2L w GGEECc",
            "h1l/3/1H1/L2 b GEge",
        ] {
            assert_eq!(pos(text).to_string(), text);
        }
        let mut rng = Rng(99);
        for _ in 0..2000 {
            let b = random_board(&mut rng);
            for turn in [Side::Sente, Side::Gote] {
                let p = Position::new(turn, b);
                assert_eq!(pos(&p.to_string()), p);
            }
        }
    }

    #[test]
    fn errors_are_clear() {
        let err = |t: &str| t.parse::<Position>().unwrap_err();
        assert_eq!(err("gle/1c1/ELG b -"), NotationError::RankCount(3));
        assert_eq!(err("gle/1c1/1C1/ELG"), NotationError::FieldCount(1));
        assert_eq!(
            err("gle/1c1/1C1/ELG x -"),
            NotationError::BadSide("x".into())
        );
        assert_eq!(err("gxe/1c1/1C1/ELG b -"), NotationError::BadPiece('x'));
        assert_eq!(
            err("gle/2c1/1C1/ELG b -"),
            NotationError::RankLength { rank: 3 }
        );
        assert_eq!(
            err("gle/c/1C1/ELG b -"),
            NotationError::RankLength { rank: 3 }
        );
        assert_eq!(err("gle/1c1/1C1/ELG b C"), NotationError::Count("chick"));
        assert_eq!(err("gle/1c1/1C1/ELG b L"), NotationError::BadHand('L'));
        assert_eq!(err("gle/1c1/1C1/EGG b -"), NotationError::Lions);
        assert_eq!(err("g1e/1c1/1C1/ELG b G"), NotationError::Lions);
        assert_eq!(err("gge/1c1/1C1/ELG b -"), NotationError::Lions);
        assert_eq!(err("gle/1c1/1C1/ELG b Cx"), NotationError::BadHand('x'));
    }

    #[test]
    fn move_notation() {
        let p = pos("2l/LC1/2g/EE1 w Cg");
        for m in p.legal_moves() {
            assert_eq!(p.parse_move(&m.to_string()), Ok(m));
        }
        assert!(p.parse_move("G*c1").is_ok());
        assert!(matches!(
            p.parse_move("G*a1"),
            Err(NotationError::IllegalMove(_))
        ));
        assert!(matches!(
            p.parse_move("C*c1"),
            Err(NotationError::IllegalMove(_))
        ));
        assert!(matches!(
            p.parse_move("g*a1"),
            Err(NotationError::BadMove(_))
        ));
        assert!(matches!(
            p.parse_move("a1a9"),
            Err(NotationError::BadMove(_))
        ));
        assert!(p.parse_move("c4c3").is_ok());
    }

    fn after(p: &Position, mv: &str) -> Played {
        p.play(p.parse_move(mv).unwrap())
    }

    #[test]
    fn chick_promotes_on_the_far_rank() {
        let p = pos("1l1/C2/3/1L1 b GGEEc");
        assert_eq!(
            after(&p, "a3a4"),
            Played::Continues(pos("Hl1/3/3/1L1 w GGEEc"))
        );
        // Gote's chick promotes on rank 1.
        let p = pos("1l1/3/c2/2L w GGEEC");
        assert_eq!(
            after(&p, "a2a1"),
            Played::Continues(pos("1l1/3/3/h1L b GGEEC"))
        );
    }

    #[test]
    fn captured_hen_returns_to_hand_as_a_chick() {
        let p = pos("1l1/3/1h1/1GL b GEEc");
        assert_eq!(
            after(&p, "b1b2"),
            Played::Continues(pos("1l1/3/1G1/2L w GEECc"))
        );
    }

    #[test]
    fn drops_go_on_any_empty_square_and_a_dropped_chick_on_the_far_rank_stays_put() {
        let p = pos("2l/3/3/L2 b GGEECc");
        let drops = move_names(&p)
            .into_iter()
            .filter(|m| m.contains('*'))
            .count();
        assert_eq!(drops, 3 * 10);
        let dropped = match after(&p, "C*a4") {
            Played::Continues(q) => q,
            Played::Won => panic!("a drop does not win"),
        };
        assert_eq!(dropped.to_string(), "C1l/3/3/L2 w GGEEc");
        assert_eq!(
            dropped.piece_at(Square::parse("a4").unwrap()),
            Some((Side::Sente, Kind::Chick))
        );
        // Back to Sente: the chick on a4 cannot move.
        let q = pos("C1l/3/3/L2 b GGEEc");
        assert!(move_names(&q).iter().all(|m| !m.starts_with("a4")));
    }

    #[test]
    fn the_try_wins_only_when_the_lion_cannot_be_captured() {
        // The lion steps from b3 to b4 next to nothing of Gote's: a win.
        let p = pos("3/1L1/3/l2 b GGEECC");
        assert_eq!(after(&p, "b3b4"), Played::Won);
        assert!(p.board().has_winning_move());
        // Gote's giraffe on c4 guards b4 but not a4.
        let p = pos("2g/L2/3/2l b GEECC");
        assert_eq!(
            after(&p, "a3b4"),
            Played::Continues(pos("1Lg/3/3/2l w GEECC"))
        );
        assert_eq!(after(&p, "a3a4"), Played::Won);
        // Both squares of the far rank next to the lion are guarded (a4 by the elephant on b3, b4 by the giraffe
        // on c4): no try wins, and nothing can capture Gote's lion.
        let p = pos("2g/Le1/3/2l b GECC");
        let wins: Vec<String> = p
            .legal_moves()
            .into_iter()
            .filter(|m| p.play(*m) == Played::Won)
            .map(|m| m.to_string())
            .collect();
        assert_eq!(wins, Vec::<String>::new());
        assert!(!p.board().has_winning_move());
    }

    #[test]
    fn capturing_the_lion_wins() {
        let p = pos("3/1l1/1C1/L2 b GGEEc");
        assert_eq!(after(&p, "b2b3"), Played::Won);
    }

    #[test]
    fn a_lion_left_on_the_far_rank_wins_when_it_survives() {
        // Gote's lion stands on a1 (Gote's far rank), nothing of Sente attacks it: the game is over, Sente lost.
        let p = pos("3/2L/3/l2 b GGEECC");
        assert!(p.board().try_lost());
        // Attacked by Sente's giraffe: Sente takes it.
        let p = pos("3/2L/3/lG1 b GEECC");
        assert!(!p.board().try_lost());
        assert_eq!(after(&p, "b1a1"), Played::Won);
    }
}
