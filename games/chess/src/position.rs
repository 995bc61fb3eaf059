//! A position: where the pieces stand and who is to move, with exact legal move generation and the un-moves that
//! the retrograde engine walks backwards.
//!
//! There is no castling in endgame tables. En passant is kept as the target square, and only when the capture is
//! legal: a position typed by a user may have it, and so do the positions of the solver's en-passant region (see
//! [`crate::ep`]); the tables themselves store positions without en-passant rights.

use std::fmt;

use crate::attacks;
use crate::types::{Bitboard, Color, Piece, Role, Square};

/// One legal move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ChessMove {
    pub role: Role,
    pub from: Square,
    pub to: Square,
    /// The role taken, if the move captures (a pawn for en passant).
    pub capture: Option<Role>,
    pub promotion: Option<Role>,
    pub en_passant: bool,
}

impl ChessMove {
    /// Whether the move leaves the material it was played in (a capture or a promotion).
    pub fn converts(&self) -> bool {
        self.capture.is_some() || self.promotion.is_some()
    }

    /// The move in UCI notation: `e7e8q`.
    pub fn uci(&self) -> String {
        match self.promotion {
            Some(role) => format!(
                "{}{}{}",
                self.from,
                self.to,
                role.upper().to_ascii_lowercase()
            ),
            None => format!("{}{}", self.from, self.to),
        }
    }
}

/// A fixed-capacity list of moves, so that move generation never allocates.
pub struct MoveList {
    moves: [ChessMove; MoveList::CAPACITY],
    len: usize,
}

impl MoveList {
    /// More than any position of up to six men can have (four queens: 4 · 27 + 8 < 128, with
    /// promotions at most 4 moves per pawn step).
    pub const CAPACITY: usize = 256;

    pub fn new() -> MoveList {
        const NONE: ChessMove = ChessMove {
            role: Role::King,
            from: Square::new(0),
            to: Square::new(0),
            capture: None,
            promotion: None,
            en_passant: false,
        };
        MoveList {
            moves: [NONE; MoveList::CAPACITY],
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, m: ChessMove) {
        self.moves[self.len] = m;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[ChessMove] {
        &self.moves[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

/// A move that neither captures nor promotes, seen from the position it reached: the man of `role` of the side not
/// to move there went from `from` to `to`. [`Position::before`] gives the position it was played from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unmove {
    pub role: Role,
    pub from: Square,
    pub to: Square,
}

/// Why a FEN or a placement is not a position we can work with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("malformed FEN: {0}")]
    Malformed(String),
    #[error("illegal position: {0}")]
    Illegal(String),
}

/// Which of [`Position::validate`]'s checks a position fails.
#[derive(Clone, Copy)]
enum Illegality {
    /// That colour has no king or more than one.
    Kings(Color),
    KingsAdjacent,
    PawnOnEdge,
    /// The side not to move is in check.
    InCheckNotToMove,
}

/// Where the pieces stand, who is to move, and (only for positions typed by users) the en-passant target square.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    by_color: [Bitboard; 2],
    by_role: [Bitboard; 6],
    turn: Color,
    ep_square: Option<Square>,
}

impl Position {
    /// An empty board with `turn` to move.
    pub fn empty(turn: Color) -> Position {
        Position {
            by_color: [Bitboard::EMPTY; 2],
            by_role: [Bitboard::EMPTY; 6],
            turn,
            ep_square: None,
        }
    }

    /// A position from its bitboards: the men of each colour, and of each role (indexed by [`Role::index`]), which
    /// must agree. Decoding builds the bitboards in registers and the position once, rather than man by man in
    /// memory, which the processor would read back before its writes had settled.
    #[inline]
    pub(crate) fn from_bitboards(
        by_color: [Bitboard; 2],
        by_role: [Bitboard; 6],
        turn: Color,
    ) -> Position {
        Position {
            by_color,
            by_role,
            turn,
            ep_square: None,
        }
    }

    /// The legal position that bitboards describe, as an engine hands them over: the squares of each colour, and
    /// of each role (indexed by [`Role::index`]). Every man must be in one colour and one role; then the position
    /// must be legal ([`validate`](Self::validate)). Built at once, not man by man; inlined, so that the position
    /// stays in registers on its way to a probe (copied through memory, its wide reads waited on narrow writes).
    #[inline(always)]
    pub fn from_men(
        by_color: [Bitboard; 2],
        by_role: [Bitboard; 6],
        turn: Color,
    ) -> Result<Position, PositionError> {
        // The position first, then the checks: built after them, it was copied from the checks' array in 16-byte
        // pieces whose loads waited on the array's 8-byte stores (with the C glue's guard inlined, 4 to 6% more
        // probes a second through the C API).
        let pos = Position::from_bitboards(by_color, by_role, turn);
        let mut covered = 0;
        let mut twice = 0;
        for bits in by_role {
            twice |= covered & bits.0;
            covered |= bits.0;
        }
        let both = by_color[0].0 & by_color[1].0;
        let stray = covered ^ (by_color[0].0 | by_color[1].0);
        if both | twice | stray != 0 {
            return Err(Position::disagreement(both, twice, stray, pos.by_role));
        }
        pos.validate()?;
        Ok(pos)
    }

    /// Why the bitboards given to [`from_men`](Self::from_men) describe no placement, from what it found: the
    /// squares of both colours, the squares of two roles, the squares in a colour but no role or the other way.
    #[cold]
    fn disagreement(both: u64, twice: u64, stray: u64, by_role: [Bitboard; 6]) -> PositionError {
        let first = |bits: u64| Square::new(bits.trailing_zeros() as u8);
        PositionError::Illegal(if both != 0 {
            format!("square {} is both White's and Black's", first(both))
        } else if twice != 0 {
            let sq = first(twice);
            let role = Role::ALL
                .into_iter()
                .rev()
                .find(|r| by_role[r.index()].contains(sq))
                .expect("a square of two roles is in one");
            format!("square {sq} holds a {role:?} and another piece")
        } else {
            format!(
                "square {} is in a colour's bitboard or a piece's, not in both",
                first(stray)
            )
        })
    }

    #[inline]
    pub fn turn(&self) -> Color {
        self.turn
    }

    pub fn set_turn(&mut self, turn: Color) {
        self.turn = turn;
    }

    /// The square behind a pawn that has just advanced two squares, if the side to move can capture it en passant.
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    #[inline]
    pub fn by_piece(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let color = if self.by_color[0].contains(sq) {
            Color::White
        } else if self.by_color[1].contains(sq) {
            Color::Black
        } else {
            return None;
        };
        let role = Role::NON_KING
            .into_iter()
            .chain([Role::King])
            .find(|r| self.by_role[r.index()].contains(sq))?;
        Some(Piece { color, role })
    }

    /// Puts a piece on an empty square.
    #[inline]
    pub fn put(&mut self, sq: Square, piece: Piece) {
        debug_assert!(!self.occupied().contains(sq));
        self.by_color[piece.color.index()] = self.by_color[piece.color.index()].with(sq);
        self.by_role[piece.role.index()] = self.by_role[piece.role.index()].with(sq);
    }

    #[inline]
    fn remove(&mut self, sq: Square, piece: Piece) {
        self.by_color[piece.color.index()] = self.by_color[piece.color.index()].without(sq);
        self.by_role[piece.role.index()] = self.by_role[piece.role.index()].without(sq);
    }

    /// The square of the king of `color`. Positions always have exactly one king of each colour.
    #[inline]
    pub fn king(&self, color: Color) -> Square {
        self.by_piece(color, Role::King)
            .first()
            .expect("a position has both kings")
    }

    /// Whether `sq` is attacked by a piece of `by`, given the occupied squares, ignoring pieces on `ignore`.
    #[inline]
    fn attacked_with(&self, sq: Square, by: Color, occupied: Bitboard, ignore: Bitboard) -> bool {
        let them = self.by_color[by.index()] & !ignore;
        // Most squares of a sparse endgame board have no enemy man on any line or knight square: no test needed.
        if (them & attacks::reach(sq)).is_empty() {
            return false;
        }
        let r = &self.by_role;
        (attacks::knight(sq) & them & r[Role::Knight.index()]).nonempty()
            || (attacks::king(sq) & them & r[Role::King.index()]).nonempty()
            || (attacks::pawn(by.other(), sq) & them & r[Role::Pawn.index()]).nonempty()
            || (attacks::rook(sq, occupied)
                & them
                & (r[Role::Rook.index()] | r[Role::Queen.index()]))
            .nonempty()
            || (attacks::bishop(sq, occupied)
                & them
                & (r[Role::Bishop.index()] | r[Role::Queen.index()]))
            .nonempty()
    }

    /// Whether `sq` is attacked by a piece of `by`.
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.attacked_with(sq, by, self.occupied(), Bitboard::EMPTY)
    }

    /// How many squares hold something else (another man, or none) in this position and in its reflection in the
    /// a1–h8 diagonal. Two moves of a position lead to positions that are reflections of each other only if this
    /// is at most 4: each move changes two squares.
    #[inline]
    pub fn diagonal_asymmetry(&self) -> u32 {
        let differing = self
            .by_color
            .iter()
            .chain(&self.by_role)
            .fold(0u64, |diff, bb| diff | (bb.0 ^ bb.flip_diagonal().0));
        differing.count_ones()
    }

    /// Whether the king of `color` is attacked.
    #[inline]
    pub fn in_check(&self, color: Color) -> bool {
        self.is_attacked(self.king(color), color.other())
    }

    /// Whether the move of a man other than the king from `from` to `to` (taking what stands on `taken`, which may
    /// be empty) leaves the mover's king safe. (King moves are tested against [`king_danger`](Self::king_danger).)
    #[inline]
    fn leaves_king_safe(&self, from: Square, to: Square, taken: Bitboard) -> bool {
        let us = self.turn;
        let occupied = Bitboard((self.occupied().0 & !from.bb().0 & !taken.0) | to.bb().0);
        !self.attacked_with(self.king(us), us.other(), occupied, taken)
    }

    /// Whether the side to move is stalemated: not in check, and without a legal move. Its king's moves are looked
    /// at first: they settle almost every position without generating the others.
    pub fn is_stalemate(&self) -> bool {
        let us = self.turn;
        let king = self.king(us);
        if self.is_attacked(king, us.other()) {
            return false;
        }
        let steps = attacks::king(king) & !self.by_color(us) & !self.king_danger(king);
        if steps.nonempty() {
            return false;
        }
        let mut moves = 0;
        self.visit_legal_moves(|_| moves += 1);
        moves == 0
    }

    /// Whether the side to move has a legal move that neither captures nor promotes. Its king's steps are looked at
    /// first, then one empty square of each other man: they settle almost every position without listing a move.
    /// (What [`visit_conversions_find_quiet`](Self::visit_conversions_find_quiet) says, its conversions unused.)
    pub fn has_quiet_move(&self) -> bool {
        self.visit_conversions_find_quiet(|_| {})
    }

    /// Whether a man other than the king has a legal move that neither captures nor promotes; `exposed` holds the
    /// men whose moves must be tested one by one ([`dangers`](Self::dangers)).
    #[inline]
    fn has_quiet_move_of_men(&self, exposed: Bitboard) -> bool {
        let us = self.turn;
        let occupied = self.occupied();
        let empty = !occupied;
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for from in self.by_piece(us, role) {
                let targets = attacks::attacks(us, role, from, occupied) & empty;
                let found = if exposed.contains(from) {
                    targets
                        .into_iter()
                        .any(|to| self.leaves_king_safe(from, to, Bitboard::EMPTY))
                } else {
                    targets.nonempty()
                };
                if found {
                    return true;
                }
            }
        }
        let mut found = false;
        if self.by_piece(us, Role::Pawn).nonempty() {
            self.visit_pawn_moves(exposed, |m| found |= !m.converts());
        }
        found
    }

    /// Appends every legal move of the side to move.
    pub fn legal_moves(&self, out: &mut MoveList) {
        self.visit_legal_moves(|m| out.push(m));
    }

    /// Visits every legal move of the side to move, in the order [`legal_moves`](Self::legal_moves) lists them.
    #[inline]
    pub fn visit_legal_moves<F: FnMut(ChessMove)>(&self, mut visit: F) {
        let (danger, exposed) = self.dangers();
        self.visit_piece_moves::<true, F>(danger, exposed, &mut visit);
        self.visit_pawn_moves(exposed, visit);
    }

    /// The squares the opponent attacks with the king of the side to move off the board ([`king_danger`]), and the
    /// squares of the men of the side to move whose moves must each be tested: the pinned ones, or every square when
    /// the king is in check. Any other man cannot expose the king: all its moves are legal. (The king is in check
    /// when its square is in danger: one map answers both.)
    ///
    /// [`king_danger`]: Self::king_danger
    #[inline]
    fn dangers(&self) -> (Bitboard, Bitboard) {
        let king = self.king(self.turn);
        let danger = self.king_danger(king);
        (danger, self.exposed(king, danger))
    }

    /// The men of the side to move whose moves must each be tested, given its king's square and the squares it may
    /// not go to ([`dangers`](Self::dangers)).
    #[inline]
    fn exposed(&self, king: Square, danger: Bitboard) -> Bitboard {
        if danger.contains(king) {
            Bitboard(!0)
        } else {
            self.pinned(king)
        }
    }

    /// The men of the side to move that stand alone between its king (on `king`, not in check) and an enemy slider
    /// on the same line. Testing every man on a line through the king instead (the common case for a queen or a
    /// rook of a sparse endgame) made counting moves test each of their moves one by one.
    #[inline]
    fn pinned(&self, king: Square) -> Bitboard {
        let us = self.turn;
        let (own, theirs) = (self.by_color(us), self.by_color(us.other()));
        let r = &self.by_role;
        let queens = r[Role::Queen.index()];
        let straight =
            theirs & (r[Role::Rook.index()] | queens) & attacks::rook(king, Bitboard::EMPTY);
        let diagonal =
            theirs & (r[Role::Bishop.index()] | queens) & attacks::bishop(king, Bitboard::EMPTY);
        let occupied = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        // A man seen both from the king and from a slider aligned with it along that line is the only man between
        // them: the two sliders' other lines run parallel to the king's and never meet them.
        if straight.nonempty() {
            let from_king = attacks::rook(king, occupied) & own;
            for slider in straight {
                pinned = pinned | (from_king & attacks::rook(slider, occupied));
            }
        }
        if diagonal.nonempty() {
            let from_king = attacks::bishop(king, occupied) & own;
            for slider in diagonal {
                pinned = pinned | (from_king & attacks::bishop(slider, occupied));
            }
        }
        pinned
    }

    /// Whether the side to move may have a capture or a promotion: false means it has none. A quick test that
    /// errs only towards yes (legality is not checked): one of the opponent's men other than the king is attacked,
    /// or one of our pawns stands a step from its last rank. En passant is not looked at: a caller of a position
    /// with en-passant rights searches it anyway.
    #[inline]
    pub fn may_convert(&self) -> bool {
        let us = self.turn;
        let pawns = self.by_piece(us, Role::Pawn);
        let before_last = match us {
            Color::White => Bitboard(0x00ff_0000_0000_0000),
            Color::Black => Bitboard(0x0000_0000_0000_ff00),
        };
        if (pawns & before_last).nonempty() {
            return true;
        }
        let prey = self.by_color(us.other()) & !self.by_role[Role::King.index()];
        let occupied = self.occupied();
        prey.into_iter()
            .any(|sq| self.attacked_with(sq, us, occupied, Bitboard::EMPTY))
    }

    /// The squares attacked by the side not to move, with the king of the side to move (on `king`) taken off the
    /// board: the squares that king may not move to. A slider's line goes through the square the king leaves, and
    /// a man the king would capture is seen by whatever defends it.
    #[inline]
    fn king_danger(&self, king: Square) -> Bitboard {
        let them = self.turn.other();
        let occupied = Bitboard(self.occupied().0 & !king.bb().0);
        let r = &self.by_role;
        let theirs = self.by_color(them);
        let mut danger = attacks::king(self.king(them));
        for sq in theirs & r[Role::Knight.index()] {
            danger = danger | attacks::knight(sq);
        }
        for sq in theirs & (r[Role::Bishop.index()] | r[Role::Queen.index()]) {
            danger = danger | attacks::bishop(sq, occupied);
        }
        for sq in theirs & (r[Role::Rook.index()] | r[Role::Queen.index()]) {
            danger = danger | attacks::rook(sq, occupied);
        }
        for sq in theirs & r[Role::Pawn.index()] {
            danger = danger | attacks::pawn(them, sq);
        }
        danger
    }

    /// Visits the legal moves of the side to move's pieces and king (not its pawns), in square order. With
    /// `LIST_QUIET` false, the quiet moves of unpinned pieces other than the king are counted instead, at once by
    /// population count; returns that count (0 with `LIST_QUIET`).
    #[inline]
    fn visit_piece_moves<const LIST_QUIET: bool, F: FnMut(ChessMove)>(
        &self,
        danger: Bitboard,
        exposed: Bitboard,
        visit: &mut F,
    ) -> (u64, Bitboard) {
        let us = self.turn;
        let own = self.by_color(us);
        let theirs = self.by_color(us.other());
        let occupied = self.occupied();
        let mut quiet = 0u64;
        let mut king_steps = Bitboard::EMPTY;
        for role in [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ] {
            for from in self.by_piece(us, role) {
                let mut targets = attacks::attacks(us, role, from, occupied) & !own;
                if role == Role::King {
                    // One map of the squares the opponent attacks, rather than one test per king move.
                    targets = targets & !danger;
                }
                let free = role != Role::King && !exposed.contains(from);
                let one_by_one = if !LIST_QUIET && free {
                    quiet += u64::from((targets & !occupied).count());
                    targets & theirs
                } else if !LIST_QUIET && role == Role::King {
                    // The king's targets are safe already: its quiet moves are told as a set.
                    king_steps = targets & !occupied;
                    targets & theirs
                } else {
                    targets
                };
                for to in one_by_one {
                    let capture = if theirs.contains(to) {
                        self.role_at(to)
                    } else {
                        None
                    };
                    if capture == Some(Role::King) {
                        continue; // only in positions where the side not to move is in check, which we never store
                    }
                    let taken = if capture.is_some() {
                        to.bb()
                    } else {
                        Bitboard::EMPTY
                    };
                    if !free && role != Role::King && !self.leaves_king_safe(from, to, taken) {
                        continue;
                    }
                    if !LIST_QUIET && capture.is_none() {
                        quiet += 1;
                    } else {
                        visit(ChessMove {
                            role,
                            from,
                            to,
                            capture,
                            promotion: None,
                            en_passant: false,
                        });
                    }
                }
            }
        }
        (quiet, king_steps)
    }

    /// Visits every legal pawn move of the side to move; `exposed` holds the squares from which a man may be
    /// pinned (all squares when the king is in check).
    #[inline]
    fn visit_pawn_moves<F: FnMut(ChessMove)>(&self, exposed: Bitboard, mut visit: F) {
        let us = self.turn;
        let theirs = self.by_color(us.other());
        let occupied = self.occupied();
        let (forward, start_rank, last_rank): (i8, u8, u8) = match us {
            Color::White => (8, 1, 7),
            Color::Black => (-8, 6, 0),
        };
        for from in self.by_piece(us, Role::Pawn) {
            let push_targets = |to: Square, capture: Option<Role>, visit: &mut F| {
                let taken = if capture.is_some() {
                    to.bb()
                } else {
                    Bitboard::EMPTY
                };
                if exposed.contains(from) && !self.leaves_king_safe(from, to, taken) {
                    return;
                }
                if to.rank() == last_rank {
                    for promotion in Role::PROMOTIONS {
                        visit(ChessMove {
                            role: Role::Pawn,
                            from,
                            to,
                            capture,
                            promotion: Some(promotion),
                            en_passant: false,
                        });
                    }
                } else {
                    visit(ChessMove {
                        role: Role::Pawn,
                        from,
                        to,
                        capture,
                        promotion: None,
                        en_passant: false,
                    });
                }
            };
            let one = Square::new((from.index() as i8 + forward) as u8);
            if !occupied.contains(one) {
                push_targets(one, None, &mut visit);
                if from.rank() == start_rank {
                    let two = Square::new((one.index() as i8 + forward) as u8);
                    if !occupied.contains(two) {
                        push_targets(two, None, &mut visit);
                    }
                }
            }
            for to in attacks::pawn(us, from) & theirs {
                let capture = self.role_at(to);
                if capture != Some(Role::King) {
                    push_targets(to, capture, &mut visit);
                }
            }
            if let Some(ep) = self.ep_square
                && attacks::pawn(us, from).contains(ep)
            {
                let victim = Square::new((ep.index() as i8 - forward) as u8);
                if self.leaves_king_safe(from, ep, victim.bb()) {
                    visit(ChessMove {
                        role: Role::Pawn,
                        from,
                        to: ep,
                        capture: Some(Role::Pawn),
                        promotion: None,
                        en_passant: true,
                    });
                }
            }
        }
    }

    /// Visits the legal captures and promotions of the side to move (its conversions: the moves into other tables),
    /// in the order [`visit_legal_moves`](Self::visit_legal_moves) lists them. Nothing is generated when
    /// [`may_convert`](Self::may_convert) says there are none, and no other move is looked at.
    #[inline]
    pub fn visit_conversions<F: FnMut(ChessMove)>(&self, mut visit: F) {
        if self.may_convert() {
            let (danger, exposed) = self.dangers();
            self.visit_conversions_with(danger, exposed, &mut visit);
        }
    }

    /// Visits the conversions as [`visit_conversions`](Self::visit_conversions) does, and says whether the side to
    /// move also has a legal move that neither captures nor promotes: what surveying a position needs, with the
    /// squares its king may not go to found once for both.
    #[inline]
    pub fn visit_conversions_find_quiet<F: FnMut(ChessMove)>(&self, mut visit: F) -> bool {
        let king = self.king(self.turn);
        let danger = self.king_danger(king);
        let quiet_step = (attacks::king(king) & !self.occupied() & !danger).nonempty();
        let converts = self.may_convert();
        if quiet_step && !converts {
            return true;
        }
        let exposed = self.exposed(king, danger);
        if converts {
            self.visit_conversions_with(danger, exposed, &mut visit);
        }
        quiet_step || self.has_quiet_move_of_men(exposed)
    }

    /// The conversions, given the squares the king may not go to and the men whose moves must be tested one by
    /// one ([`dangers`](Self::dangers)).
    #[inline]
    fn visit_conversions_with<F: FnMut(ChessMove)>(
        &self,
        danger: Bitboard,
        exposed: Bitboard,
        visit: &mut F,
    ) {
        let us = self.turn;
        let king = self.king(us);
        let occupied = self.occupied();
        // A king is never taken: only positions whose side not to move is in check would allow it.
        let prey = self.by_color(us.other()) & !self.by_role[Role::King.index()];
        for role in [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ] {
            for from in self.by_piece(us, role) {
                let mut targets = attacks::attacks(us, role, from, occupied) & prey;
                if from == king {
                    targets = targets & !danger;
                }
                for to in targets {
                    if from != king
                        && exposed.contains(from)
                        && !self.leaves_king_safe(from, to, to.bb())
                    {
                        continue;
                    }
                    visit(ChessMove {
                        role,
                        from,
                        to,
                        capture: self.role_at(to),
                        promotion: None,
                        en_passant: false,
                    });
                }
            }
        }
        if self.by_piece(us, Role::Pawn).nonempty() {
            self.visit_pawn_moves(exposed, |m| {
                if m.converts() {
                    visit(m);
                }
            });
        }
    }

    /// Counts the legal moves of the side to move that neither capture nor promote, other than the king's; visits
    /// the others that do (captures, promotions) as [`visit_legal_moves`](Self::visit_legal_moves) does; and gives
    /// the squares the king may step to without capturing. What counting moves needs, faster: a man off every line
    /// through its king, when the king is not in check, may go to every empty square it attacks, and the king to
    /// every empty square the opponent does not attack; those are counted at once.
    #[inline]
    pub fn count_quiet_visit_conversions<F: FnMut(ChessMove)>(
        &self,
        mut visit: F,
    ) -> (u64, Bitboard) {
        let (danger, exposed) = self.dangers();
        let us = self.turn;
        let (mut quiet, king_steps) =
            self.visit_piece_moves::<false, F>(danger, exposed, &mut visit);
        if self.by_piece(us, Role::Pawn).nonempty() {
            self.visit_pawn_moves(exposed, |m| {
                if m.converts() {
                    visit(m);
                } else {
                    quiet += 1;
                }
            });
        }
        (quiet, king_steps)
    }

    #[inline]
    fn role_at(&self, sq: Square) -> Option<Role> {
        Role::ALL
            .into_iter()
            .find(|r| self.by_role[r.index()].contains(sq))
    }

    /// The position after a legal move of this position. After a double pawn push the en-passant square is set only
    /// if the opponent has a legal en-passant capture (as a FEN written by a careful program would say).
    pub fn play(&self, m: &ChessMove) -> Position {
        let us = self.turn;
        let (from, to) = (m.from.bb().0, m.to.bb().0);
        let victim = match m.capture {
            Some(_) if m.en_passant => Square::from_coords(m.to.file(), m.from.rank()).bb().0,
            Some(_) => to,
            None => 0,
        };
        let taken = m.capture.map_or(usize::MAX, Role::index);
        let placed = m.promotion.unwrap_or(m.role).index();
        // Every bitboard is computed from the old ones by selection, in registers, and the position written once:
        // flipping bits in place at an index known only at run time makes the processor read back writes that
        // have not settled when the position is next copied.
        let by_color = [0, 1].map(|c| {
            let b = self.by_color[c].0;
            Bitboard(if c == us.index() {
                b ^ from ^ to
            } else {
                b & !victim
            })
        });
        let by_role = [0, 1, 2, 3, 4, 5].map(|r| {
            let mut b = self.by_role[r].0;
            if r == taken {
                b &= !victim;
            }
            if r == m.role.index() {
                b &= !from;
            }
            if r == placed {
                b |= to;
            }
            Bitboard(b)
        });
        let mut next = Position {
            by_color,
            by_role,
            turn: us,
            ep_square: None,
        };
        next.turn = us.other();
        if m.role == Role::Pawn && m.from.rank().abs_diff(m.to.rank()) == 2 {
            let ep = Square::from_coords(m.from.file(), (m.from.rank() + m.to.rank()) / 2);
            next.ep_square = Some(ep);
            if !next.has_legal_ep() {
                next.ep_square = None;
            }
        }
        next
    }

    /// The position after a move of the side to move's `role` from `from` to the empty square `to` that neither
    /// captures nor promotes, without en-passant rights: [`play`](Self::play) for the moves that stay in a table.
    #[inline]
    pub fn after_quiet(&self, role: Role, from: Square, to: Square) -> Position {
        self.with_man_moved(self.turn, role, from.bb().0 | to.bb().0, self.turn.other())
    }

    /// This position with `moved` (a man's origin and target squares) flipped in the bitboards of `color` and
    /// `role`, `turn` to move and no en-passant rights. The bitboards are selected in registers and the position
    /// written once (see [`play`](Self::play)).
    #[inline]
    fn with_man_moved(&self, color: Color, role: Role, moved: u64, turn: Color) -> Position {
        Position {
            by_color: [0, 1]
                .map(|c| Bitboard(self.by_color[c].0 ^ if c == color.index() { moved } else { 0 })),
            by_role: [0, 1, 2, 3, 4, 5]
                .map(|r| Bitboard(self.by_role[r].0 ^ if r == role.index() { moved } else { 0 })),
            turn,
            ep_square: None,
        }
    }

    /// Whether the side to move has a legal en-passant capture.
    fn has_legal_ep(&self) -> bool {
        let Some(ep) = self.ep_square else {
            return false;
        };
        let us = self.turn;
        let forward: i8 = if us == Color::White { 8 } else { -8 };
        let victim = Square::new((ep.index() as i8 - forward) as u8);
        (attacks::pawn(us.other(), ep) & self.by_piece(us, Role::Pawn))
            .any(|from| self.leaves_king_safe(from, ep, victim.bb()))
    }

    /// The same position without en-passant rights: what a table stores.
    pub fn without_ep(&self) -> Position {
        Position {
            ep_square: None,
            ..*self
        }
    }

    /// Visits every predecessor of this position inside the same material: the positions, with the other side to
    /// move, from which a legal move that neither captures nor promotes reaches this one. Each predecessor is
    /// visited once per such move (a predecessor differs by exactly one piece, so each is reached by one move).
    ///
    /// A double push that gives the opponent an en-passant capture does not reach this position (without en-passant
    /// rights) but its twin with them, so it is left out here.
    pub fn unmoves<F: FnMut(Position)>(&self, mut visit: F) {
        self.visit_unmoves(|u| visit(self.before(&u)));
    }

    /// [`unmoves`](Self::unmoves), each given as the move that was undone rather than as a whole position: a caller
    /// that needs only the moved man's squares builds no position (see [`before`](Self::before)).
    pub fn visit_unmoves<F: FnMut(Unmove)>(&self, mut visit: F) {
        self.visit_unmove_origins(|role, to, origins| {
            for from in origins {
                visit(Unmove { role, from, to });
            }
        });
    }

    /// [`visit_unmoves`](Self::visit_unmoves) a man at a time: for each man of the side not to move here (its king
    /// first), its role, its square and the set of squares it came from, never empty. A caller that numbers the
    /// predecessors from the man's squares alone works through each set in a plain loop.
    ///
    /// A predecessor is legal when the side to move here was not in check in it. When it is not in check here
    /// either, that needs no test per predecessor for most men: the moved man gave check from its origin only if the
    /// origin is one of the squares from which its role attacks the king, which are left out at once; and it can
    /// have blocked a check only if vacating its square here opens a line onto the king, which one test per man
    /// tells. Only then, or when the king is in check here, is each predecessor tested in full.
    #[inline]
    pub fn visit_unmove_origins<F: FnMut(Role, Square, Bitboard)>(&self, mut visit: F) {
        let mover = self.turn.other();
        let victim = self.turn;
        let occupied = self.occupied();
        let empty = !occupied;
        let victim_king = self.king(victim);
        let in_check = self.attacked_with(victim_king, mover, occupied, Bitboard::EMPTY);
        // Whether every predecessor of the man on `to` must be tested: the king is in check here, or vacating `to`
        // opens a line of another man of the mover onto it.
        let test_each = |to: Square| {
            in_check
                || self.attacked_with(
                    victim_king,
                    mover,
                    Bitboard(occupied.0 & !to.bb().0),
                    to.bb(),
                )
        };
        // The origins of `role`'s man on `to` whose predecessors leave the side to move here out of check.
        let tested = |role: Role, to: Square, origins: Bitboard| {
            let mut legal = Bitboard::EMPTY;
            for from in origins {
                if !self.before(&Unmove { role, from, to }).in_check(victim) {
                    legal = legal.with(from);
                }
            }
            legal
        };
        for role in [
            Role::King,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ] {
            for to in self.by_piece(mover, role) {
                let mut origins = attacks::attacks(mover, role, to, occupied) & empty;
                if role == Role::King {
                    // Kings never stand side by side.
                    origins = origins & !attacks::king(victim_king);
                }
                if test_each(to) {
                    origins = tested(role, to, origins);
                } else if role != Role::King {
                    // The squares from which this man would give check, with its own square `to` vacated (leapers
                    // and sliders attack symmetrically).
                    let without_to = Bitboard(occupied.0 & !to.bb().0);
                    origins = Bitboard(
                        origins.0 & !attacks::attacks(mover, role, victim_king, without_to).0,
                    );
                }
                if origins.0 != 0 {
                    visit(role, to, origins);
                }
            }
        }
        let back: i8 = if mover == Color::White { -8 } else { 8 };
        // The rank a pawn of the mover stands on after a single step from its start, and after a double step.
        let (single_rank_min, double_rank) = if mover == Color::White {
            (2, 3)
        } else {
            (5, 4)
        };
        // The squares from which a pawn of the mover attacks the king.
        let pawn_checks = attacks::pawn(victim, victim_king);
        for to in self.by_piece(mover, Role::Pawn) {
            let can_step_back = if mover == Color::White {
                to.rank() >= single_rank_min
            } else {
                to.rank() <= single_rank_min
            };
            if !can_step_back {
                continue;
            }
            let one = Square::new((to.index() as i8 + back) as u8);
            if occupied.contains(one) {
                continue;
            }
            let mut origins = one.bb();
            if to.rank() == double_rank {
                let two = Square::new((one.index() as i8 + back) as u8);
                if !occupied.contains(two) {
                    // The double push from two squares back reaches this position only if it gives no en-passant capture.
                    let mut after = *self;
                    after.ep_square = Some(one);
                    if !after.has_legal_ep() {
                        origins = origins.with(two);
                    }
                }
            }
            origins = if test_each(to) {
                tested(Role::Pawn, to, origins)
            } else {
                Bitboard(origins.0 & !pawn_checks.0)
            };
            if origins.0 != 0 {
                visit(Role::Pawn, to, origins);
            }
        }
    }

    /// This position before the un-move `u` (a move of the side not to move here), with that side to move.
    #[inline]
    pub fn before(&self, u: &Unmove) -> Position {
        let mover = self.turn.other();
        self.with_man_moved(mover, u.role, u.from.bb().0 | u.to.bb().0, mover)
    }

    /// Checks what makes a placement a legal table position: one king each, kings not adjacent, no pawn on the first
    /// or last rank, the side not to move not in check. Returns a one-line reason otherwise. A probe checks every
    /// position it is given: the checks are made inline, the reason is written apart.
    #[inline]
    pub fn validate(&self) -> Result<(), PositionError> {
        match self.illegality() {
            None => Ok(()),
            Some(why) => Err(self.reason(why)),
        }
    }

    /// The first of [`validate`](Self::validate)'s checks that the position fails.
    #[inline]
    fn illegality(&self) -> Option<Illegality> {
        for color in [Color::White, Color::Black] {
            if !self.by_piece(color, Role::King).0.is_power_of_two() {
                return Some(Illegality::Kings(color));
            }
        }
        if attacks::king(self.king(Color::White)).contains(self.king(Color::Black)) {
            return Some(Illegality::KingsAdjacent);
        }
        if (self.by_role[Role::Pawn.index()] & Bitboard(0xff00_0000_0000_00ff)).nonempty() {
            return Some(Illegality::PawnOnEdge);
        }
        if self.in_check(self.turn.other()) {
            return Some(Illegality::InCheckNotToMove);
        }
        None
    }

    /// The one-line reason for `why`.
    #[cold]
    fn reason(&self, why: Illegality) -> PositionError {
        PositionError::Illegal(match why {
            Illegality::Kings(color) => format!(
                "{} has {} kings",
                color.name(),
                self.by_piece(color, Role::King).count()
            ),
            Illegality::KingsAdjacent => "the kings are adjacent".into(),
            Illegality::PawnOnEdge => "a pawn stands on the first or last rank".into(),
            Illegality::InCheckNotToMove => format!(
                "{} is not to move but is in check",
                self.turn.other().name()
            ),
        })
    }

    /// Parses a FEN as people paste it: placement and side to move are required; castling, en passant, halfmove
    /// and fullmove fields are optional. Castling rights must be absent (`-`). The position must be legal.
    pub fn from_fen(fen: &str) -> Result<Position, PositionError> {
        let bad = |why: &str| PositionError::Malformed(format!("{why} in {fen:?}"));
        let mut fields = fen.split_whitespace();
        let placement = fields.next().ok_or_else(|| bad("no placement"))?;
        let turn = match fields.next() {
            Some("w") => Color::White,
            Some("b") => Color::Black,
            Some(_) => return Err(bad("side to move is not 'w' or 'b'")),
            None => return Err(bad("no side to move")),
        };
        let mut pos = Position::empty(turn);
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 8 {
            return Err(bad("placement does not have 8 ranks"));
        }
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = 7 - i as u8;
            let mut file = 0u8;
            for c in rank_text.chars() {
                if let Some(d) = c.to_digit(10) {
                    if !(1..=8).contains(&d) {
                        return Err(bad("bad digit in placement"));
                    }
                    file += d as u8;
                } else {
                    let piece =
                        Piece::from_char(c).ok_or_else(|| bad(&format!("unknown piece '{c}'")))?;
                    if file >= 8 {
                        return Err(bad("a rank has more than 8 squares"));
                    }
                    pos.put(Square::from_coords(file, rank), piece);
                    file += 1;
                }
                if file > 8 {
                    return Err(bad("a rank has more than 8 squares"));
                }
            }
            if file != 8 {
                return Err(bad("a rank does not have 8 squares"));
            }
        }
        if let Some(castling) = fields.next()
            && castling != "-"
        {
            if castling.chars().all(|c| "KQkqABCDEFGHabcdefgh".contains(c)) {
                return Err(PositionError::Illegal(
                    "castling rights are not supported in endgame tables".into(),
                ));
            }
            return Err(bad("bad castling field"));
        }
        let ep_text = fields.next();
        for (name, field) in [("halfmove", fields.next()), ("fullmove", fields.next())] {
            if let Some(f) = field
                && f.parse::<u32>().is_err()
            {
                return Err(bad(&format!("bad {name} clock")));
            }
        }
        if fields.next().is_some() {
            return Err(bad("too many fields"));
        }
        pos.validate()?;
        if let Some(ep) = ep_text
            && ep != "-"
        {
            let sq = Square::parse(ep).ok_or_else(|| bad("bad en-passant square"))?;
            let expected_rank = if turn == Color::White { 5 } else { 2 };
            let forward: i8 = if turn == Color::White { 8 } else { -8 };
            let pusher = Piece {
                color: turn.other(),
                role: Role::Pawn,
            };
            let pawn_sq = Square::new((sq.index() as i8 - forward) as u8);
            let origin = Square::new((sq.index() as i8 + forward) as u8);
            if sq.rank() != expected_rank
                || pos.piece_at(pawn_sq) != Some(pusher)
                || pos.occupied().contains(sq)
                || pos.occupied().contains(origin)
            {
                return Err(PositionError::Illegal(format!(
                    "en-passant square {sq} does not follow a double push"
                )));
            }
            pos.ep_square = Some(sq);
            // Like a careful FEN writer, keep the square only when the capture is legal.
            if !pos.has_legal_ep() {
                pos.ep_square = None;
            }
        }
        Ok(pos)
    }

    /// The FEN of the position (castling `-`, clocks `0 1`).
    pub fn fen(&self) -> String {
        let mut s = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.piece_at(Square::from_coords(file, rank)) {
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s.push_str(if self.turn == Color::White {
            " w - "
        } else {
            " b - "
        });
        match self.ep_square {
            Some(sq) => s.push_str(&sq.to_string()),
            None => s.push('-'),
        }
        s.push_str(" 0 1");
        s
    }

    /// The position mirrored by `f` applied to every square (the side to move is unchanged).
    pub fn map_squares(&self, f: impl Fn(Square) -> Square) -> Position {
        let mut out = Position::empty(self.turn);
        for sq in self.occupied() {
            let piece = self.piece_at(sq).expect("occupied");
            out.put(f(sq), piece);
        }
        out.ep_square = self.ep_square.map(f);
        out
    }

    /// The same position with the colours exchanged and the board turned top to bottom: White's pieces become Black's,
    /// and the other side is to move. Its value is the same.
    #[inline]
    pub fn color_flipped(&self) -> Position {
        Position {
            by_color: [
                self.by_color[1].flip_vertical(),
                self.by_color[0].flip_vertical(),
            ],
            by_role: self.by_role.map(Bitboard::flip_vertical),
            turn: self.turn.other(),
            ep_square: self.ep_square.map(Square::flip_vertical),
        }
    }
}

impl fmt::Display for Position {
    /// A board for people: rank 8 on top, White in capitals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            write!(f, "{} ", rank + 1)?;
            for file in 0..8 {
                let c = self
                    .piece_at(Square::from_coords(file, rank))
                    .map_or('.', Piece::char);
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "   a b c d e f g h")?;
        write!(
            f,
            "{} to move",
            if self.turn == Color::White {
                "White"
            } else {
                "Black"
            }
        )
    }
}

/// En passant in the tables: a position with en-passant rights is numbered in a region of its own (see
/// [`crate::ep`]); these are the steps between it and the placement without the rights.
impl Position {
    /// The direction a pawn of `color` advances, and the rank (0-based) of the square it passes over in a double push.
    #[inline]
    fn double_push_of(color: Color) -> (i8, u8) {
        match color {
            Color::White => (8, 2),
            Color::Black => (-8, 5),
        }
    }

    /// This placement with the en-passant square `ep`, as if a pawn of the side not to move had just advanced two
    /// squares over `ep`: `Some` only when that pawn stands in front of `ep`, `ep` and the square behind it are
    /// empty, and the side to move has a legal en-passant capture (positions whose rights cannot be used are the
    /// positions without them).
    pub fn with_ep_square(&self, ep: Square) -> Option<Position> {
        let pusher = self.turn.other();
        let (forward, ep_rank) = Position::double_push_of(pusher);
        if ep.rank() != ep_rank {
            return None;
        }
        let pawn = Square::new((ep.index() as i8 + forward) as u8);
        let origin = Square::new((ep.index() as i8 - forward) as u8);
        let occupied = self.occupied();
        if !self.by_piece(pusher, Role::Pawn).contains(pawn)
            || occupied.contains(ep)
            || occupied.contains(origin)
        {
            return None;
        }
        let mut pos = *self;
        pos.ep_square = Some(ep);
        pos.has_legal_ep().then_some(pos)
    }

    /// Visits this placement with en-passant rights, once for each pawn of the side not to move that may just have
    /// advanced two squares and that the side to move can legally take en passant (see
    /// [`with_ep_square`](Self::with_ep_square)). The position itself must have no en-passant rights.
    #[inline]
    pub fn visit_with_ep_rights<F: FnMut(Position)>(&self, mut visit: F) {
        debug_assert!(self.ep_square.is_none());
        let pusher = self.turn.other();
        let (forward, ep_rank) = Position::double_push_of(pusher);
        let pushed_rank = (ep_rank as i8 + forward / 8) as u8;
        let takers = self.by_piece(self.turn, Role::Pawn);
        for pawn in self.by_piece(pusher, Role::Pawn) {
            // A pawn that just advanced two squares stands beside a pawn that can take it: a cheap test first.
            if pawn.rank() != pushed_rank
                || (attacks::pawn(pusher, Square::new((pawn.index() as i8 - forward) as u8))
                    & takers)
                    .is_empty()
            {
                continue;
            }
            if let Some(with) =
                self.with_ep_square(Square::new((pawn.index() as i8 - forward) as u8))
            {
                visit(with);
            }
        }
    }

    /// The position before the double push that gave this position its en-passant rights: the pawn back on its
    /// starting square, the other side to move. `None` when the position has no en-passant rights, or when that
    /// predecessor is illegal (the side not to move in it would be in check).
    pub fn undo_double_push(&self) -> Option<Position> {
        let ep = self.ep_square?;
        let pusher = self.turn.other();
        let (forward, _) = Position::double_push_of(pusher);
        let pawn = Square::new((ep.index() as i8 + forward) as u8);
        let origin = Square::new((ep.index() as i8 - forward) as u8);
        let piece = Piece {
            color: pusher,
            role: Role::Pawn,
        };
        let mut before = *self;
        before.ep_square = None;
        before.remove(pawn, piece);
        before.put(origin, piece);
        before.turn = pusher;
        (!before.in_check(pusher.other())).then_some(before)
    }
}
