//! Standard algebraic notation (SAN): `Nbd2`, `exd6`, `gxh8=Q+`, `Ra8#`.
//!
//! Table positions have no castling, so there is no `O-O`. A piece is disambiguated by its file, else its rank,
//! else both, among the *legal* moves of the same role to the same square only (a pinned twin does not count). A
//! pawn capture names the pawn's file (`exd5`), en passant too (`exd6`, without `e.p.`). `+` marks check, `#` mate.

use crate::position::{ChessMove, MoveList, Position};
use crate::types::{Role, Square};

/// The move `m`, legal in `position`, in SAN with its check or mate suffix.
pub fn san(position: &Position, m: &ChessMove) -> String {
    let mut out = san_without_suffix(position, m);
    let after = position.play(m);
    if after.in_check(after.turn()) {
        let mut replies = MoveList::new();
        after.legal_moves(&mut replies);
        out.push(if replies.is_empty() { '#' } else { '+' });
    }
    out
}

/// The SAN of `m` without the `+` or `#` suffix.
fn san_without_suffix(position: &Position, m: &ChessMove) -> String {
    let mut out = String::with_capacity(8);
    if m.role == Role::Pawn {
        if m.capture.is_some() {
            out.push(file_char(m.from));
            out.push('x');
        }
        out.push_str(&m.to.to_string());
        if let Some(role) = m.promotion {
            out.push('=');
            out.push(role.upper());
        }
        return out;
    }
    out.push(m.role.upper());
    if m.role != Role::King {
        let (mut ambiguous, mut same_file, mut same_rank) = (false, false, false);
        // Only a twin of the same colour and role can reach the same square: skip move generation otherwise.
        if position.by_piece(position.turn(), m.role).count() > 1 {
            let mut moves = MoveList::new();
            position.legal_moves(&mut moves);
            for other in moves.as_slice() {
                if other.role == m.role && other.to == m.to && other.from != m.from {
                    ambiguous = true;
                    same_file |= other.from.file() == m.from.file();
                    same_rank |= other.from.rank() == m.from.rank();
                }
            }
        }
        if ambiguous && (!same_file || same_rank) {
            out.push(file_char(m.from));
        }
        if same_file {
            out.push(rank_char(m.from));
        }
    }
    if m.capture.is_some() {
        out.push('x');
    }
    out.push_str(&m.to.to_string());
    out
}

fn file_char(sq: Square) -> char {
    char::from(b'a' + sq.file())
}

fn rank_char(sq: Square) -> char {
    char::from(b'1' + sq.rank())
}

/// The legal move of `position` that `text` names in SAN, or `None` when no legal move or more than one matches.
///
/// Accepts what [`san`] writes, and is tolerant of: a missing or wrong `+`/`#` (and trailing `!`/`?`), surrounding
/// spaces, a trailing `e.p.`, a promotion without `=` or in lower case (`e8Q`, `e8=q`), a `P` before a pawn move,
/// and more disambiguation than needed (`Ngf3`, `Qg1f3`). The capture mark `x` must be right: `e5` is never `dxe5`.
pub fn parse_san(position: &Position, text: &str) -> Option<ChessMove> {
    let mut s = text.trim();
    for ep in ["e.p.", "ep"] {
        if let Some(rest) = s.strip_suffix(ep) {
            s = rest.trim_end();
            break;
        }
    }
    let s = s.trim_end_matches(['+', '#', '!', '?']).as_bytes();
    let (role, mut rest) = match s.first()? {
        b'K' => (Role::King, &s[1..]),
        b'Q' => (Role::Queen, &s[1..]),
        b'R' => (Role::Rook, &s[1..]),
        b'B' => (Role::Bishop, &s[1..]),
        b'N' => (Role::Knight, &s[1..]),
        b'P' => (Role::Pawn, &s[1..]),
        _ => (Role::Pawn, s),
    };
    let mut promotion = None;
    if let [head @ .., last] = rest
        && last.is_ascii_alphabetic()
        && !(b'a'..=b'h').contains(last)
    {
        let promoted = match Role::from_char(char::from(*last))? {
            Role::Pawn | Role::King => return None,
            r => r,
        };
        promotion = Some(promoted);
        rest = head.strip_suffix(b"=").unwrap_or(head);
    } else if let [head @ .., b'=', last] = rest {
        // `=b` for a bishop: a lower-case `b` after `=` is not a file.
        promotion = Some(
            Role::from_char(char::from(*last)).filter(|r| !matches!(r, Role::Pawn | Role::King))?,
        );
        rest = head;
    }
    if rest.len() < 2 {
        return None;
    }
    let (head, dest) = rest.split_at(rest.len() - 2);
    let to = Square::parse(std::str::from_utf8(dest).ok()?)?;
    let (capture, mut head) = match head {
        [h @ .., b'x' | b':'] => (true, h),
        h => (false, h),
    };
    let mut file = None;
    if let [f @ b'a'..=b'h', h @ ..] = head {
        file = Some(f - b'a');
        head = h;
    }
    let mut rank = None;
    if let [r @ b'1'..=b'8', h @ ..] = head {
        rank = Some(r - b'1');
        head = h;
    }
    if !head.is_empty() {
        return None;
    }
    let mut moves = MoveList::new();
    position.legal_moves(&mut moves);
    let mut found = None;
    for m in moves.as_slice() {
        if m.role == role
            && m.to == to
            && m.promotion == promotion
            && m.capture.is_some() == capture
            && file.is_none_or(|f| f == m.from.file())
            && rank.is_none_or(|r| r == m.from.rank())
        {
            if found.is_some() {
                return None; // ambiguous
            }
            found = Some(*m);
        }
    }
    found
}

impl ChessMove {
    /// The move, legal in `position`, in SAN: [`san`].
    pub fn san(&self, position: &Position) -> String {
        san(position, self)
    }
}

impl Position {
    /// The legal move that `text` names in SAN: [`parse_san`].
    pub fn parse_san(&self, text: &str) -> Option<ChessMove> {
        parse_san(self, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// The SAN of the move given in UCI, checked to parse back to the same move, with and without its suffix.
    fn san_of(fen: &str, uci: &str) -> String {
        let p = pos(fen);
        let mut moves = MoveList::new();
        p.legal_moves(&mut moves);
        let m = *moves
            .as_slice()
            .iter()
            .find(|m| m.uci() == uci)
            .unwrap_or_else(|| panic!("{uci} is not legal in {fen}"));
        let text = san(&p, &m);
        assert_eq!(m.san(&p), text);
        assert_eq!(parse_san(&p, &text), Some(m), "{text} in {fen}");
        let bare = text.trim_end_matches(['+', '#']);
        assert_eq!(p.parse_san(bare), Some(m), "{bare} in {fen}");
        text
    }

    #[test]
    fn disambiguation_by_file() {
        let fen = "4k3/8/8/8/8/8/4K3/R6R w - - 0 1";
        assert_eq!(san_of(fen, "a1d1"), "Rad1");
        assert_eq!(san_of(fen, "h1d1"), "Rhd1");
        assert_eq!(san_of(fen, "a1a5"), "Ra5");
        assert_eq!(san_of(fen, "h1h8"), "Rh8+");
    }

    #[test]
    fn disambiguation_by_rank() {
        let fen = "4k3/8/8/R7/8/8/4K3/R7 w - - 0 1";
        assert_eq!(san_of(fen, "a1a3"), "R1a3");
        assert_eq!(san_of(fen, "a5a3"), "R5a3");
        assert_eq!(san_of(fen, "a5b5"), "Rb5");
    }

    #[test]
    fn disambiguation_by_file_and_rank_with_three_queens() {
        let fen = "8/7k/8/8/8/Q7/8/Q1Q4K w - - 0 1";
        assert_eq!(san_of(fen, "a1b2"), "Qa1b2");
        assert_eq!(san_of(fen, "a3b2"), "Q3b2");
        assert_eq!(san_of(fen, "c1b2"), "Qcb2");
        let p = pos(fen);
        assert_eq!(parse_san(&p, "Qb2"), None, "ambiguous");
        assert_eq!(parse_san(&p, "Qab2"), None, "still ambiguous");
        assert_eq!(parse_san(&p, "Q1b2"), None, "still ambiguous");
    }

    #[test]
    fn pawn_moves_and_captures() {
        let fen = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1";
        assert_eq!(san_of(fen, "e4d5"), "exd5");
        assert_eq!(san_of(fen, "e4e5"), "e5");
        assert_eq!(san_of("4k3/8/8/8/8/8/4P3/4K3 w - -", "e2e4"), "e4");
        let p = pos(fen);
        assert_eq!(parse_san(&p, "d5"), None, "a capture needs its x");
        assert_eq!(parse_san(&p, "Pe5").map(|m| m.uci()), Some("e4e5".into()));
    }

    #[test]
    fn en_passant() {
        let fen = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2";
        assert_eq!(san_of(fen, "e5d6"), "exd6");
        let p = pos(fen);
        assert!(parse_san(&p, "exd6 e.p.").unwrap().en_passant);
        assert!(parse_san(&p, "exd6e.p.").unwrap().en_passant);
    }

    #[test]
    fn promotions_with_capture_and_check() {
        let fen = "4k2r/6P1/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(san_of(fen, "g7h8q"), "gxh8=Q+");
        assert_eq!(san_of(fen, "g7h8r"), "gxh8=R+");
        assert_eq!(san_of(fen, "g7h8b"), "gxh8=B");
        assert_eq!(san_of(fen, "g7h8n"), "gxh8=N");
        assert_eq!(san_of(fen, "g7g8q"), "g8=Q+");
        let p = pos(fen);
        for text in ["gxh8Q", "gxh8=q", "gxh8=Q#", " gxh8=Q+ "] {
            assert_eq!(parse_san(&p, text).map(|m| m.uci()), Some("g7h8q".into()));
        }
        assert_eq!(
            parse_san(&p, "gxh8=b").map(|m| m.uci()),
            Some("g7h8b".into())
        );
        assert_eq!(parse_san(&p, "gxh8"), None, "a promotion needs its piece");
        assert_eq!(parse_san(&p, "gxh8=K"), None);
        // Black promotes too.
        assert_eq!(
            san_of("4k3/8/8/8/8/8/p7/1R2K3 b - - 0 1", "a2b1q"),
            "axb1=Q+"
        );
    }

    #[test]
    fn mate_and_check() {
        let fen = "7k/8/6K1/8/8/8/8/R7 w - - 0 1";
        assert_eq!(san_of(fen, "a1a8"), "Ra8#");
        assert_eq!(san_of(fen, "a1h1"), "Rh1+", "the king escapes to g8");
        assert_eq!(san_of(fen, "a1a7"), "Ra7");
        // Stalemate is no mate and no check.
        assert_eq!(san_of("7k/8/6K1/8/8/8/8/6R1 w - - 0 1", "g1g2"), "Rg2");
        assert_eq!(san_of("k7/8/1K6/8/8/8/7Q/8 w - - 0 1", "h2h8"), "Qh8#");
        assert_eq!(san_of("k7/8/1K6/8/8/8/7Q/8 w - - 0 1", "h2a2"), "Qa2+");
        assert_eq!(san_of("k7/8/8/1K6/8/8/7Q/8 w - - 0 1", "h2h8"), "Qh8+");
        assert_eq!(san_of("k7/8/8/1K6/8/8/7Q/8 w - - 0 1", "b5a6"), "Ka6");
    }

    #[test]
    fn a_pinned_twin_does_not_disambiguate() {
        // The knight on e2 is pinned by the rook on e8: only the knight on b5 can go to c3 or d4.
        let pinned = "4r3/7k/8/1N6/8/8/4N3/4K3 w - - 0 1";
        assert_eq!(san_of(pinned, "b5c3"), "Nc3");
        assert_eq!(san_of(pinned, "b5d4"), "Nd4");
        // Without the pin both can.
        let free = "8/7k/8/1N6/8/8/4N3/4K3 w - - 0 1";
        assert_eq!(san_of(free, "b5c3"), "Nbc3");
        assert_eq!(san_of(free, "e2c3"), "Nec3");
        assert_eq!(parse_san(&pos(free), "Nc3"), None);
        assert_eq!(parse_san(&pos(pinned), "Nec3"), None, "illegal");
    }

    #[test]
    fn nonsense_is_refused() {
        let p = pos("4k3/8/8/8/8/8/4K3/R6R w - - 0 1");
        for text in [
            "", "R", "Rd", "Rz1", "Rad9", "Raad1", "Xd1", "O-O", "Rxd1", "Rd1=Q", "d1",
        ] {
            assert_eq!(parse_san(&p, text), None, "{text:?}");
        }
        assert_eq!(parse_san(&p, "Ra1d1").map(|m| m.uci()), Some("a1d1".into()));
    }
}
