//! The board seen from the player to move, with its moves, its un-moves and the end-of-game rules.
//!
//! A [`Board`] never says whose turn it is in absolute terms: "us" is the player to move and moves up the board
//! (towards rank 4), "them" is the opponent. Playing a move and handing the turn over is [`Board::flip`]: the board
//! is turned by 180 degrees and the colours swapped, so that the next player is "us" again. This halves the index
//! (only one side is ever to move) and lets the move generator know one direction only.
//!
//! ## The rules as implemented
//! - A lion steps one square in any direction, a giraffe orthogonally, an elephant diagonally, a chick forward, a
//!   hen anywhere except diagonally backward. A chick that steps onto the far rank becomes a hen.
//! - A captured piece goes to the captor's hand, a hen as a chick. A piece in hand may be dropped on any empty square
//!   instead of a move; a chick dropped on the far rank stays a chick and can never move.
//! - After a move, the mover has won if it captured the enemy lion, or if its own lion stands on its far rank and no
//!   enemy piece attacks it (the *try*). A lion on the far rank that can be captured is not yet a win: the opponent
//!   moves (and captures it, which wins). This end test is made after every move, so the try also counts when the
//!   lion was already on the far rank and the move removed its last attacker; in every other respect it is the
//!   issue's rule "moving one's lion onto the far rank when it cannot be captured on the next move".
//! - A player with no move at all loses (it does not happen in practice; the engine's normal convention).
//!
//! Both wins end the game on the ply of the move, so a position whose mover has such a move is won in 1 ply.

use crate::types::{BACK_RANK, FAR_RANK, HandKind, Kind, STEPS, Square, squares};

/// The player a piece belongs to, relative to the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    Us = 0,
    Them = 1,
}

impl Owner {
    pub fn other(self) -> Owner {
        match self {
            Owner::Us => Owner::Them,
            Owner::Them => Owner::Us,
        }
    }
}

/// What stands on a square: nothing, or a piece of some kind and owner. One byte: `0` empty, else bits 0–2 hold the
/// kind number plus one and bit 3 is set for their pieces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cell(u8);

impl Cell {
    pub const EMPTY: Cell = Cell(0);

    pub fn new(owner: Owner, kind: Kind) -> Cell {
        Cell(kind as u8 + 1 + ((owner as u8) << 3))
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The piece on the square, if any.
    pub fn piece(self) -> Option<(Owner, Kind)> {
        if self.0 == 0 {
            None
        } else {
            let owner = if self.0 & 8 == 0 {
                Owner::Us
            } else {
                Owner::Them
            };
            Some((owner, Kind::ALL[((self.0 & 7) - 1) as usize]))
        }
    }

    /// The same piece owned by the other player.
    fn swap_owner(self) -> Cell {
        if self.0 == 0 { self } else { Cell(self.0 ^ 8) }
    }
}

/// A move of the player to move, in its own coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardMove {
    /// The piece on `from` steps to `to`, capturing what is there (a chick reaching the far rank promotes).
    Step { from: Square, to: Square },
    /// A piece from our hand is put on the empty square `to`.
    Drop { kind: HandKind, to: Square },
}

impl BoardMove {
    /// The same move seen after turning the board (for printing a Gote move in absolute squares).
    pub fn rotate(self) -> BoardMove {
        match self {
            BoardMove::Step { from, to } => BoardMove::Step {
                from: from.rotate(),
                to: to.rotate(),
            },
            BoardMove::Drop { kind, to } => BoardMove::Drop {
                kind,
                to: to.rotate(),
            },
        }
    }
}

/// A position with the player to move as "us". There are exactly one lion per player, and two giraffes, two
/// elephants and two chicks (or hens) on the board or in the hands; [`Board::from_parts`] checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [Cell; 12],
    /// Pieces in hand, `[owner][hand kind]`.
    hands: [[u8; 3]; 2],
    /// Where the lions stand, `[owner]`; kept in step with `cells`.
    lions: [Square; 2],
}

/// Why cells and hands do not make a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaterialError {
    /// Not exactly one lion for each player.
    Lions,
    /// Not exactly two pieces of this kind (a hen counting as a chick) on the board and in the hands together.
    Count(HandKind),
}

impl Board {
    /// A board from its cells and hands (`[owner][kind]`), if the material is exactly the game's.
    pub fn from_parts(cells: [Cell; 12], hands: [[u8; 3]; 2]) -> Result<Board, MaterialError> {
        let mut lions = [None, None];
        let mut counts = [0u32; 3];
        for hand in &hands {
            for (k, &n) in hand.iter().enumerate() {
                counts[k] += n as u32;
            }
        }
        for sq in Square::ALL {
            match cells[sq.index()].piece() {
                None => {}
                Some((owner, Kind::Lion)) if lions[owner as usize].is_some() => {
                    return Err(MaterialError::Lions);
                }
                Some((owner, Kind::Lion)) => lions[owner as usize] = Some(sq),
                Some((_, kind)) => counts[kind.in_hand().expect("not a lion").index()] += 1,
            }
        }
        let (Some(ours), Some(theirs)) = (lions[0], lions[1]) else {
            return Err(MaterialError::Lions);
        };
        for hk in HandKind::ALL {
            if counts[hk.index()] != 2 {
                return Err(MaterialError::Count(hk));
            }
        }
        Ok(Board {
            cells,
            hands,
            lions: [ours, theirs],
        })
    }

    pub fn cell(&self, sq: Square) -> Cell {
        self.cells[sq.index()]
    }

    /// How many pieces of `kind` `owner` holds in hand.
    pub fn hand(&self, owner: Owner, kind: HandKind) -> u8 {
        self.hands[owner as usize][kind.index()]
    }

    pub fn lion(&self, owner: Owner) -> Square {
        self.lions[owner as usize]
    }

    /// The squares holding pieces of `owner`, lion included.
    pub fn occupied(&self, owner: Owner) -> u16 {
        let mut set = 0;
        for (i, c) in self.cells.iter().enumerate() {
            if c.0 != 0 && (c.0 >> 3) == owner as u8 {
                set |= 1 << i;
            }
        }
        set
    }

    /// The squares attacked by the pieces of `owner`.
    pub fn attacks(&self, owner: Owner) -> u16 {
        let mut set = 0;
        for (i, c) in self.cells.iter().enumerate() {
            if c.0 != 0 && (c.0 >> 3) == owner as u8 {
                set |= STEPS[owner as usize][((c.0 & 7) - 1) as usize][i];
            }
        }
        set
    }

    /// The squares of the pieces of `owner` that attack `target`.
    pub fn attackers(&self, owner: Owner, target: Square) -> u16 {
        let mut set = 0;
        for (i, c) in self.cells.iter().enumerate() {
            if c.0 != 0
                && (c.0 >> 3) == owner as u8
                && STEPS[owner as usize][((c.0 & 7) - 1) as usize][i] & target.bit() != 0
            {
                set |= 1 << i;
            }
        }
        set
    }

    /// The board seen by the other player: turned by 180 degrees, colours and hands swapped.
    pub fn flip(&self) -> Board {
        let mut cells = [Cell::EMPTY; 12];
        for (i, c) in self.cells.iter().enumerate() {
            cells[11 - i] = c.swap_owner();
        }
        Board {
            cells,
            hands: [self.hands[1], self.hands[0]],
            lions: [self.lions[1].rotate(), self.lions[0].rotate()],
        }
    }

    /// The board reflected left–right. The game is symmetric under it.
    pub fn mirror(&self) -> Board {
        let mut cells = [Cell::EMPTY; 12];
        for sq in Square::ALL {
            cells[sq.mirror().index()] = self.cells[sq.index()];
        }
        Board {
            cells,
            hands: self.hands,
            lions: [self.lions[0].mirror(), self.lions[1].mirror()],
        }
    }

    /// Visits every move of the player to move: steps of each piece, then drops (one per kind in hand and empty
    /// square, however many of that kind are in hand).
    pub fn moves<F: FnMut(BoardMove)>(&self, mut visit: F) {
        let ours = self.occupied(Owner::Us);
        for from in squares(ours) {
            let kind = self.cells[from.index()].0 & 7;
            for to in squares(STEPS[0][(kind - 1) as usize][from.index()] & !ours) {
                visit(BoardMove::Step { from, to });
            }
        }
        let empty = !(ours | self.occupied(Owner::Them)) & 0xfff;
        for kind in HandKind::ALL {
            if self.hands[0][kind.index()] > 0 {
                for to in squares(empty) {
                    visit(BoardMove::Drop { kind, to });
                }
            }
        }
    }

    /// Plays `mv` for the player to move. The result is still seen by the same player (not flipped); it says
    /// whether the move captured their lion.
    pub fn play(&self, mv: BoardMove) -> (Board, bool) {
        let mut next = *self;
        match mv {
            BoardMove::Step { from, to } => {
                let moving = self.cells[from.index()];
                let captured = self.cells[to.index()];
                let mut lion_taken = false;
                if let Some((_, kind)) = captured.piece() {
                    match kind.in_hand() {
                        Some(hk) => next.hands[0][hk.index()] += 1,
                        None => lion_taken = true,
                    }
                }
                let mut landing = moving;
                if moving == Cell::new(Owner::Us, Kind::Chick) && to.bit() & FAR_RANK != 0 {
                    landing = Cell::new(Owner::Us, Kind::Hen);
                }
                if moving == Cell::new(Owner::Us, Kind::Lion) {
                    next.lions[0] = to;
                }
                next.cells[from.index()] = Cell::EMPTY;
                next.cells[to.index()] = landing;
                (next, lion_taken)
            }
            BoardMove::Drop { kind, to } => {
                next.hands[0][kind.index()] -= 1;
                next.cells[to.index()] = Cell::new(Owner::Us, kind.kind());
                (next, false)
            }
        }
    }

    /// Whether playing `mv` wins at once: it captures their lion, or leaves our lion on the far rank unattacked.
    pub fn is_winning_move(&self, mv: BoardMove) -> bool {
        let (next, lion_taken) = self.play(mv);
        lion_taken || next.try_succeeds()
    }

    /// After our move: does our lion stand on the far rank where no enemy piece attacks it?
    fn try_succeeds(&self) -> bool {
        let lion = self.lions[0];
        lion.bit() & FAR_RANK != 0 && self.attacks(Owner::Them) & lion.bit() == 0
    }

    /// Whether the player to move has a move that wins at once (so the position is won in 1 ply). The same answer
    /// as trying every move with [`Board::is_winning_move`], found from attack sets without playing the moves.
    pub fn has_winning_move(&self) -> bool {
        let ours = self.occupied(Owner::Us);
        let their_lion = self.lions[1];
        if self.attacks(Owner::Us) & their_lion.bit() != 0 {
            return true;
        }
        let their_attacks = self.attacks(Owner::Them);
        let lion = self.lions[0];
        let lion_steps = STEPS[0][Kind::Lion as usize][lion.index()] & !ours;
        if lion_steps & FAR_RANK & !their_attacks != 0 {
            return true;
        }
        if lion.bit() & FAR_RANK == 0 {
            return false;
        }
        // Our lion already stands on the far rank: a move of another piece wins if it leaves the lion unattacked.
        let attackers = self.attackers(Owner::Them, lion);
        match attackers.count_ones() {
            0 => self.has_move_besides_lion(ours),
            1 => {
                let mut our_non_lion_attacks = 0;
                for sq in squares(ours & !lion.bit()) {
                    let kind = self.cells[sq.index()].0 & 7;
                    our_non_lion_attacks |= STEPS[0][(kind - 1) as usize][sq.index()];
                }
                our_non_lion_attacks & attackers != 0
            }
            _ => false,
        }
    }

    /// Whether some piece other than our lion can move (or a piece in hand be dropped).
    fn has_move_besides_lion(&self, ours: u16) -> bool {
        if self.hands[0].iter().any(|&n| n > 0) {
            return true; // 8 pieces on 12 squares: there is always an empty square to drop on.
        }
        squares(ours & !self.lions[0].bit()).any(|sq| {
            let kind = self.cells[sq.index()].0 & 7;
            STEPS[0][(kind - 1) as usize][sq.index()] & !ours != 0
        })
    }

    /// Whether the game is already over, lost for the player to move: their lion stands on our back rank (their far
    /// rank) and we cannot capture it. (Their try succeeded on the move that made this position.)
    pub fn try_lost(&self) -> bool {
        let their_lion = self.lions[1];
        their_lion.bit() & BACK_RANK != 0 && self.attacks(Owner::Us) & their_lion.bit() == 0
    }

    /// Visits every board `p` (with "us" to move) from which a move of ours leads to `self` after our move — that is,
    /// `self` is the board right after our move and before the turn passes. Each predecessor comes with the move
    /// played, once per move. Un-moves are: un-drops (a giraffe, elephant or unpromoted chick of ours goes back to
    /// our hand), steps backwards (a hen on the far rank may have been a chick), each optionally un-capturing a piece
    /// of theirs from our hand (a chick in hand may come back as a chick or a hen). Lions are never un-captured: a
    /// lion capture ends the game and is not a move inside the table.
    pub fn unmoves<F: FnMut(Board)>(&self, mut visit: F) {
        let ours = self.occupied(Owner::Us);
        let occupied = ours | self.occupied(Owner::Them);
        for to in squares(ours) {
            let (_, kind) = self.cells[to.index()].piece().expect("occupied");
            if let Some(hk) = kind.in_hand()
                && kind != Kind::Hen
            {
                let mut p = *self;
                p.cells[to.index()] = Cell::EMPTY;
                p.hands[0][hk.index()] += 1;
                visit(p);
            }
            // The kinds the piece may have had before its step, with the squares it may have come from.
            let far = to.bit() & FAR_RANK != 0;
            let origins: [(Kind, u16); 2] = match kind {
                Kind::Chick if far => [(Kind::Chick, 0), (Kind::Chick, 0)],
                Kind::Hen if far => [
                    (Kind::Hen, STEPS[1][Kind::Hen as usize][to.index()]),
                    (Kind::Chick, STEPS[1][Kind::Chick as usize][to.index()]),
                ],
                _ => [(kind, STEPS[1][kind as usize][to.index()]), (kind, 0)],
            };
            for (before, from_set) in origins {
                for from in squares(from_set & !occupied) {
                    let mut p = *self;
                    p.cells[from.index()] = Cell::new(Owner::Us, before);
                    p.cells[to.index()] = Cell::EMPTY;
                    if kind == Kind::Lion {
                        p.lions[0] = from;
                    }
                    visit(p);
                    for hk in HandKind::ALL {
                        if self.hands[0][hk.index()] == 0 {
                            continue;
                        }
                        let mut q = p;
                        q.hands[0][hk.index()] -= 1;
                        q.cells[to.index()] = Cell::new(Owner::Them, hk.kind());
                        visit(q);
                        if hk == HandKind::Chick {
                            q.cells[to.index()] = Cell::new(Owner::Them, Kind::Hen);
                            visit(q);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small deterministic generator for tests (xorshift).
    pub struct Rng(pub u64);

    impl Rng {
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        pub fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A random board with the full material: lions anywhere, other pieces on a random square or in a random hand.
    pub fn random_board(rng: &mut Rng) -> Board {
        let mut cells = [Cell::EMPTY; 12];
        let mut hands = [[0u8; 3]; 2];
        let mut free: Vec<usize> = (0..12).collect();
        let mut take = |rng: &mut Rng| free.swap_remove(rng.below(free.len() as u64) as usize);
        cells[take(rng)] = Cell::new(Owner::Us, Kind::Lion);
        cells[take(rng)] = Cell::new(Owner::Them, Kind::Lion);
        for hk in HandKind::ALL {
            for _ in 0..2 {
                let owner = if rng.below(2) == 0 {
                    Owner::Us
                } else {
                    Owner::Them
                };
                if rng.below(3) == 0 {
                    hands[owner as usize][hk.index()] += 1;
                } else {
                    let kind = if hk == HandKind::Chick && rng.below(2) == 0 {
                        Kind::Hen
                    } else {
                        hk.kind()
                    };
                    cells[take(rng)] = Cell::new(owner, kind);
                }
            }
        }
        Board::from_parts(cells, hands).expect("full material")
    }

    #[test]
    fn fast_winning_test_agrees_with_playing_every_move() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut wins = 0;
        for _ in 0..200_000 {
            let b = random_board(&mut rng);
            let mut slow = false;
            b.moves(|m| slow |= b.is_winning_move(m));
            assert_eq!(b.has_winning_move(), slow, "{b:?}");
            wins += slow as u32;
        }
        assert!(wins > 1000 && wins < 199_000);
    }

    #[test]
    fn unmoves_invert_moves() {
        let mut rng = Rng(42);
        for _ in 0..20_000 {
            let b = random_board(&mut rng);
            let mut children = Vec::new();
            b.moves(|m| {
                let (c, lion) = b.play(m);
                if !lion {
                    children.push(c);
                }
            });
            for c in &children {
                let mut found = 0;
                c.unmoves(|p| found += (p == b) as u32);
                let expected = children.iter().filter(|x| *x == c).count() as u32;
                assert_eq!(found, expected, "{b:?} -> {c:?}");
            }
            // And every un-move leads back by a move.
            let mut parents = Vec::new();
            b.unmoves(|p| parents.push(p));
            for p in &parents {
                let mut n = 0;
                p.moves(|m| n += (p.play(m) == (b, false)) as u32);
                let expected = parents.iter().filter(|x| *x == p).count() as u32;
                assert_eq!(n, expected, "{p:?} -> {b:?}");
            }
        }
    }

    #[test]
    fn flip_and_mirror_are_involutions() {
        let mut rng = Rng(7);
        for _ in 0..1000 {
            let b = random_board(&mut rng);
            assert_eq!(b.flip().flip(), b);
            assert_eq!(b.mirror().mirror(), b);
            assert_eq!(
                Board::from_parts(b.flip().cells, b.flip().hands),
                Ok(b.flip())
            );
        }
    }
}
