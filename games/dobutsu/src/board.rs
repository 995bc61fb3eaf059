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
//!
//! ## Representation
//! A board is a handful of 12-bit square sets (bit `i` is square `i`): the squares of each owner and the squares of
//! each kind, plus the hands. Turning the board round is reversing the 12 bits of every set, mirroring it is swapping
//! the outer files, and the squares attacked by all pieces of a side are a few shifts: the engine calls these
//! hundreds of millions of times, so none of them loops over squares or allocates.
//!
//! Boards normally hold the game's full material (one lion each, two giraffes, two elephants, two chicks or hens).
//! [`Board::from_parts_with`] also accepts less, for the small sub-games the tests solve by brute force: every rule
//! above works the same with fewer pieces.

use crate::types::{BACK_RANK, FAR_RANK, HandKind, Kind, STEPS, Square, count, squares};

/// Every square.
const ALL_SQUARES: u16 = 0xfff;
/// The squares of file a and of file c.
const FILE_A: u16 = 0b001_001_001_001;
const FILE_C: u16 = 0b100_100_100_100;

/// The squares one rank up (towards rank 4) of those of `set`.
const fn up(set: u16) -> u16 {
    (set << 3) & ALL_SQUARES
}

/// The squares one rank down.
const fn down(set: u16) -> u16 {
    set >> 3
}

/// The squares one file to the right (towards file c).
const fn right(set: u16) -> u16 {
    (set & !FILE_C) << 1
}

/// The squares one file to the left.
const fn left(set: u16) -> u16 {
    (set & !FILE_A) >> 1
}

/// Every 12-bit set turned by 180 degrees (8 KB): a look-up is cheaper than reversing bits, which x86 has no
/// instruction for.
static ROTATED: [u16; 4096] = {
    let mut table = [0; 4096];
    let mut set = 0;
    while set < 4096 {
        table[set] = (set as u16).reverse_bits() >> 4;
        set += 1;
    }
    table
};

/// A square set turned by 180 degrees: square `i` goes to `11 - i`.
#[inline]
pub fn rotate_set(set: u16) -> u16 {
    ROTATED[(set & ALL_SQUARES) as usize]
}

/// `kinds[kind] ^= bit`, written without indexing the array by a variable: that would keep the board in memory and
/// make the next read of it wait for the store (the loop unrolls to five masked operations on registers).
#[inline(always)]
fn toggle(kinds: &mut [u16; 5], kind: usize, bit: u16) {
    for (k, set) in kinds.iter_mut().enumerate() {
        *set ^= bit & 0u16.wrapping_sub(u16::from(k == kind));
    }
}

/// A square set reflected left–right: files a and c swap.
pub const fn mirror_set(set: u16) -> u16 {
    ((set & FILE_A) << 2) | (set & !(FILE_A | FILE_C)) | ((set & FILE_C) >> 2)
}

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

/// The kind numbers of the square sets, as in [`Kind`].
const LION: usize = Kind::Lion as usize;
const GIRAFFE: usize = Kind::Giraffe as usize;
const ELEPHANT: usize = Kind::Elephant as usize;
const CHICK: usize = Kind::Chick as usize;
const HEN: usize = Kind::Hen as usize;

/// The hand slot of each kind number (a hen goes to hand as a chick); the lion's entry is never used.
const HAND_OF_KIND: [usize; 5] = [usize::MAX, 0, 1, 2, 2];

/// A position with the player to move as "us": one lion per player, and at most two giraffes, two elephants and two
/// chicks (or hens) on the board or in the hands ([`Board::from_parts`] asks for exactly two of each, the game's
/// material; [`Board::from_parts_with`] for a given number).
///
/// Every field is a function of the position, so equal positions are equal boards (and hash alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    /// The squares of our pieces and of theirs, `[owner]`, lions included.
    sides: [u16; 2],
    /// The squares of the pieces of each kind, both owners, by `Kind as usize`.
    kinds: [u16; 5],
    /// Pieces in hand, two bits per owner and hand kind: bits `2 (3 owner + kind)`. One small integer, so that
    /// swapping the hands in a flip is a shift.
    hands: u16,
}

/// The shift of the hand count of `kind` (a [`HandKind`] number) of "us"; "them" is 6 more.
const fn hand_shift(kind: usize) -> u32 {
    2 * kind as u32
}

/// Packs hands given as `[owner][hand kind]` counts (each at most 2).
fn pack_hands(hands: [[u8; 3]; 2]) -> u16 {
    let mut packed = 0;
    for (owner, hand) in hands.iter().enumerate() {
        for (kind, &n) in hand.iter().enumerate() {
            packed |= u16::from(n.min(3)) << (6 * owner as u32 + hand_shift(kind));
        }
    }
    packed
}

/// Why cells and hands do not make a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaterialError {
    /// Not exactly one lion for each player.
    Lions,
    /// Not the right number of pieces of this kind (a hen counting as a chick) on the board and in the hands
    /// together.
    Count(HandKind),
}

impl Board {
    /// A board from its cells and hands (`[owner][kind]`), if the material is exactly the game's: two giraffes, two
    /// elephants, two chicks.
    pub fn from_parts(cells: [Cell; 12], hands: [[u8; 3]; 2]) -> Result<Board, MaterialError> {
        Board::from_parts_with(cells, hands, [2, 2, 2])
    }

    /// A board from its cells and hands whose material is `material` pieces of each hand kind (at most two each)
    /// besides the two lions.
    pub fn from_parts_with(
        cells: [Cell; 12],
        hands: [[u8; 3]; 2],
        material: [u8; 3],
    ) -> Result<Board, MaterialError> {
        let mut board = Board {
            sides: [0; 2],
            kinds: [0; 5],
            hands: pack_hands(hands),
        };
        // Counts above 2 do not fit the packed hands, but they fail the material test below anyway.
        let mut counts = [0u32; 3];
        for hand in &hands {
            for (k, &n) in hand.iter().enumerate() {
                counts[k] += n as u32;
            }
        }
        for sq in Square::ALL {
            let Some((owner, kind)) = cells[sq.index()].piece() else {
                continue;
            };
            if kind == Kind::Lion && board.sides[owner as usize] & board.kinds[LION] != 0 {
                return Err(MaterialError::Lions);
            }
            if let Some(hk) = kind.in_hand() {
                counts[hk.index()] += 1;
            }
            board.sides[owner as usize] |= sq.bit();
            board.kinds[kind as usize] |= sq.bit();
        }
        if board.kinds[LION].count_ones() != 2 || board.sides[0] & board.kinds[LION] == 0 {
            return Err(MaterialError::Lions);
        }
        for hk in HandKind::ALL {
            if counts[hk.index()] != u32::from(material[hk.index()].min(2)) {
                return Err(MaterialError::Count(hk));
            }
        }
        Ok(board)
    }

    /// A board from its square sets (`[owner]`, `[kind]`) and hands, which the caller guarantees to be a position:
    /// disjoint owners and kinds covering the same squares, one lion each. For the index's decoder.
    pub(crate) fn from_sets(sides: [u16; 2], kinds: [u16; 5], hands: [[u8; 3]; 2]) -> Board {
        debug_assert_eq!(sides[0] & sides[1], 0);
        debug_assert_eq!(kinds.iter().fold(0, |a, k| a | k), sides[0] | sides[1]);
        debug_assert_eq!((kinds[LION] & sides[0]).count_ones(), 1);
        debug_assert_eq!((kinds[LION] & sides[1]).count_ones(), 1);
        Board {
            sides,
            kinds,
            hands: pack_hands(hands),
        }
    }

    /// The kind number of the piece on `sq`, which must be occupied.
    fn kind_at(&self, sq: Square) -> usize {
        let bit = sq.bit();
        self.kinds
            .iter()
            .position(|&set| set & bit != 0)
            .expect("an occupied square")
    }

    pub fn cell(&self, sq: Square) -> Cell {
        let bit = sq.bit();
        let owner = if self.sides[0] & bit != 0 {
            Owner::Us
        } else if self.sides[1] & bit != 0 {
            Owner::Them
        } else {
            return Cell::EMPTY;
        };
        Cell::new(owner, Kind::ALL[self.kind_at(sq)])
    }

    /// What stands on every square, `a1` first.
    pub fn cells(&self) -> [Cell; 12] {
        Square::ALL.map(|sq| self.cell(sq))
    }

    /// How many pieces of `kind` `owner` holds in hand.
    pub fn hand(&self, owner: Owner, kind: HandKind) -> u8 {
        ((self.hands >> (6 * owner as u32 + hand_shift(kind.index()))) & 3) as u8
    }

    /// Both hands, `[owner][hand kind]`.
    pub fn hands(&self) -> [[u8; 3]; 2] {
        [Owner::Us, Owner::Them].map(|o| HandKind::ALL.map(|k| self.hand(o, k)))
    }

    #[inline]
    pub fn lion(&self, owner: Owner) -> Square {
        Square::from_index(
            (self.kinds[LION] & self.sides[owner as usize]).trailing_zeros() as usize,
        )
    }

    /// The squares holding pieces of `owner`, lion included.
    pub fn occupied(&self, owner: Owner) -> u16 {
        self.sides[owner as usize]
    }

    /// The squares holding pieces of `kind`, whoever owns them.
    pub fn kind_set(&self, kind: Kind) -> u16 {
        self.kinds[kind as usize]
    }

    /// The squares attacked by the pieces of `owner`: the union of the step tables of its pieces, by shifting whole
    /// square sets (a test checks it against [`STEPS`]).
    pub fn attacks(&self, owner: Owner) -> u16 {
        let own = self.sides[owner as usize];
        let lion = self.kinds[LION] & own;
        let hen = self.kinds[HEN] & own;
        // Pieces stepping orthogonally in all four directions, and pieces stepping along all four diagonals.
        let orthogonal = lion | self.kinds[GIRAFFE] & own | hen;
        let diagonal = lion | self.kinds[ELEPHANT] & own;
        let forward_only = orthogonal | self.kinds[CHICK] & own;
        let forward_diagonal = diagonal | hen;
        let (forward, backward) = match owner {
            Owner::Us => (up(forward_only), down(orthogonal)),
            Owner::Them => (down(forward_only), up(orthogonal)),
        };
        let (ahead, behind) = match owner {
            Owner::Us => (up(forward_diagonal), down(diagonal)),
            Owner::Them => (down(forward_diagonal), up(diagonal)),
        };
        forward
            | backward
            | left(orthogonal)
            | right(orthogonal)
            | left(ahead)
            | right(ahead)
            | left(behind)
            | right(behind)
    }

    /// The squares of the pieces of `owner` that attack `target`. A piece on `s` attacks `target` when `s` is one of
    /// the other side's steps from `target` (every kind moves the same to the left and to the right).
    pub fn attackers(&self, owner: Owner, target: Square) -> u16 {
        let reverse = &STEPS[1 - owner as usize];
        let mut set = 0;
        for (k, steps) in reverse.iter().enumerate() {
            set |= self.kinds[k] & steps[target.index()];
        }
        set & self.sides[owner as usize]
    }

    /// The board seen by the other player: turned by 180 degrees, colours and hands swapped.
    pub fn flip(&self) -> Board {
        Board {
            sides: [rotate_set(self.sides[1]), rotate_set(self.sides[0])],
            kinds: self.kinds.map(rotate_set),
            hands: (self.hands >> 6) | ((self.hands & 0x3f) << 6),
        }
    }

    /// The board reflected left–right. The game is symmetric under it.
    pub fn mirror(&self) -> Board {
        Board {
            sides: self.sides.map(mirror_set),
            kinds: self.kinds.map(mirror_set),
            hands: self.hands,
        }
    }

    /// Visits every move of the player to move: steps of each piece (origins in square order), then drops (one per
    /// kind in hand and empty square, however many of that kind are in hand).
    pub fn moves<F: FnMut(BoardMove)>(&self, mut visit: F) {
        let ours = self.sides[0];
        for from in squares(ours) {
            let kind = self.kind_at(from);
            for to in squares(STEPS[0][kind][from.index()] & !ours) {
                visit(BoardMove::Step { from, to });
            }
        }
        let empty = !(ours | self.sides[1]) & ALL_SQUARES;
        for kind in HandKind::ALL {
            if self.hand(Owner::Us, kind) > 0 {
                for to in squares(empty) {
                    visit(BoardMove::Drop { kind, to });
                }
            }
        }
    }

    /// Visits the board after every move of the player to move, not flipped, with whether the move captured their
    /// lion: the same as [`Board::moves`] followed by [`Board::play`], in another order and without building the
    /// moves. The hot loop of the engine and of the reachable search.
    #[inline]
    pub fn children<F: FnMut(Board, bool)>(&self, mut visit: F) {
        let ours = self.sides[0];
        let theirs = self.sides[1];
        for (kind, &set) in self.kinds.iter().enumerate() {
            for from in squares(set & ours) {
                let mut lifted = *self;
                lifted.sides[0] ^= from.bit();
                toggle(&mut lifted.kinds, kind, from.bit());
                let steps = STEPS[0][kind][from.index()] & !ours;
                for to in squares(steps) {
                    let bit = to.bit();
                    let mut next = lifted;
                    let mut lion_taken = false;
                    if theirs & bit != 0 {
                        let captured = self.kind_at(to);
                        next.sides[1] ^= bit;
                        toggle(&mut next.kinds, captured, bit);
                        if captured == LION {
                            lion_taken = true;
                        } else {
                            next.hands += 1 << hand_shift(HAND_OF_KIND[captured]);
                        }
                    }
                    let landing = if kind == CHICK && bit & FAR_RANK != 0 {
                        HEN
                    } else {
                        kind
                    };
                    next.sides[0] |= bit;
                    toggle(&mut next.kinds, landing, bit);
                    visit(next, lion_taken);
                }
            }
        }
        let empty = !(ours | theirs) & ALL_SQUARES;
        for hk in HandKind::ALL {
            if self.hand(Owner::Us, hk) == 0 {
                continue;
            }
            let mut held = *self;
            held.hands -= 1 << hand_shift(hk.index());
            let kind = hk.kind() as usize;
            for to in squares(empty) {
                let mut next = held;
                next.sides[0] |= to.bit();
                toggle(&mut next.kinds, kind, to.bit());
                visit(next, false);
            }
        }
    }

    /// Plays `mv` for the player to move. The result is still seen by the same player (not flipped); it says
    /// whether the move captured their lion (then the board has no enemy lion, and only its pieces mean anything).
    pub fn play(&self, mv: BoardMove) -> (Board, bool) {
        let mut next = *self;
        match mv {
            BoardMove::Step { from, to } => {
                let kind = self.kind_at(from);
                let mut lion_taken = false;
                if self.sides[1] & to.bit() != 0 {
                    let captured = self.kind_at(to);
                    next.sides[1] ^= to.bit();
                    next.kinds[captured] ^= to.bit();
                    if captured == LION {
                        lion_taken = true;
                    } else {
                        next.hands += 1 << hand_shift(HAND_OF_KIND[captured]);
                    }
                }
                let landing = if kind == CHICK && to.bit() & FAR_RANK != 0 {
                    HEN
                } else {
                    kind
                };
                next.sides[0] ^= from.bit() | to.bit();
                next.kinds[kind] ^= from.bit();
                next.kinds[landing] |= to.bit();
                (next, lion_taken)
            }
            BoardMove::Drop { kind, to } => {
                next.hands -= 1 << hand_shift(kind.index());
                next.sides[0] |= to.bit();
                next.kinds[kind.kind() as usize] |= to.bit();
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
    pub fn try_succeeds(&self) -> bool {
        let lion = self.kinds[LION] & self.sides[0];
        lion & FAR_RANK != 0 && self.attacks(Owner::Them) & lion == 0
    }

    /// Whether the player to move can capture the enemy lion.
    pub fn can_capture_lion(&self) -> bool {
        self.attacks(Owner::Us) & self.kinds[LION] & self.sides[1] != 0
    }

    /// Whether the player to move has a move that wins at once (so the position is won in 1 ply). The same answer
    /// as trying every move with [`Board::is_winning_move`], found from attack sets without playing the moves.
    pub fn has_winning_move(&self) -> bool {
        self.wins_at_once(Owner::Us)
    }

    /// Whether the other player, once the turn passes, has a move that wins at once: `self.flip().has_winning_move()`
    /// without turning the board. Asked of every position after a move when the engine counts moves.
    pub fn opponent_has_winning_move(&self) -> bool {
        self.wins_at_once(Owner::Them)
    }

    /// Whether `mover`, were it to move, could capture the enemy lion or make a successful try.
    #[inline(always)]
    fn wins_at_once(&self, mover: Owner) -> bool {
        let (own, enemy) = (self.sides[mover as usize], mover.other());
        let enemy_lion = self.kinds[LION] & self.sides[enemy as usize];
        if self.attacks(mover) & enemy_lion != 0 {
            return true;
        }
        // The rank where the mover's lion makes a try: the far rank for us, our back rank for them.
        let far = match mover {
            Owner::Us => FAR_RANK,
            Owner::Them => BACK_RANK,
        };
        let lion = self.kinds[LION] & own;
        let lion_square = lion.trailing_zeros() as usize;
        let lion_steps = STEPS[mover as usize][LION][lion_square] & !own;
        if lion_steps & far & !self.attacks(enemy) != 0 {
            return true;
        }
        if lion & far == 0 {
            return false;
        }
        // The mover's lion already stands on its far rank: a move of another piece wins if it leaves the lion
        // unattacked.
        let attackers = self.attackers(enemy, Square::from_index(lion_square));
        match count(u32::from(attackers)) {
            0 => self.has_move_besides_lion(mover),
            1 => {
                let mut others = *self;
                others.sides[mover as usize] = own & !lion;
                others.attacks(mover) & attackers != 0
            }
            _ => false,
        }
    }

    /// Whether some piece other than our lion can move (or a piece in hand be dropped).
    fn has_move_besides_lion(&self, mover: Owner) -> bool {
        if (self.hands >> (6 * mover as u32)) & 0x3f != 0 {
            return true; // At most 8 pieces on 12 squares: there is always an empty square to drop on.
        }
        let own = self.sides[mover as usize];
        let lion = self.kinds[LION] & own;
        let steps = &STEPS[mover as usize];
        self.kinds.iter().enumerate().any(|(kind, &set)| {
            squares(set & own & !lion).any(|sq| steps[kind][sq.index()] & !own != 0)
        })
    }

    /// Whether the game is already over, lost for the player to move: their lion stands on our back rank (their far
    /// rank) and we cannot capture it. (Their try succeeded on the move that made this position.)
    pub fn try_lost(&self) -> bool {
        let their_lion = self.kinds[LION] & self.sides[1];
        their_lion & BACK_RANK != 0 && self.attacks(Owner::Us) & their_lion == 0
    }

    /// Visits every board `p` (with "us" to move) from which a move of ours leads to `self` after our move — that is,
    /// `self` is the board right after our move and before the turn passes. Each predecessor comes with the move
    /// played, once per move. Un-moves are: un-drops (a giraffe, elephant or unpromoted chick of ours goes back to
    /// our hand), steps backwards (a hen on the far rank may have been a chick), each optionally un-capturing a piece
    /// of theirs from our hand (a chick in hand may come back as a chick or a hen). Lions are never un-captured: a
    /// lion capture ends the game and is not a move inside the table.
    pub fn unmoves<F: FnMut(Board)>(&self, mut visit: F) {
        let ours = self.sides[0];
        let occupied = ours | self.sides[1];
        for (kind, &set) in self.kinds.iter().enumerate() {
            for to in squares(set & ours) {
                let bit = to.bit();
                let mut lifted = *self;
                lifted.sides[0] ^= bit;
                toggle(&mut lifted.kinds, kind, bit);
                if kind != LION && kind != HEN {
                    let mut p = lifted;
                    p.hands += 1 << hand_shift(HAND_OF_KIND[kind]);
                    visit(p);
                }
                // The kinds the piece may have had before its step, with the squares it may have come from: a chick
                // on the far rank was dropped there, a hen there may have been a chick one step below.
                let far = bit & FAR_RANK != 0;
                let origins: [(usize, u16); 2] = match kind {
                    CHICK if far => [(CHICK, 0), (CHICK, 0)],
                    HEN if far => [
                        (HEN, STEPS[1][HEN][to.index()]),
                        (CHICK, STEPS[1][CHICK][to.index()]),
                    ],
                    _ => [(kind, STEPS[1][kind][to.index()]), (kind, 0)],
                };
                for (before, from_set) in origins {
                    for from in squares(from_set & !occupied) {
                        let mut p = lifted;
                        p.sides[0] |= from.bit();
                        toggle(&mut p.kinds, before, from.bit());
                        visit(p);
                        for hk in HandKind::ALL {
                            if self.hand(Owner::Us, hk) == 0 {
                                continue;
                            }
                            let mut q = p;
                            q.hands -= 1 << hand_shift(hk.index());
                            q.sides[1] |= bit;
                            let back = hk.kind() as usize;
                            toggle(&mut q.kinds, back, bit);
                            visit(q);
                            if hk == HandKind::Chick {
                                q.kinds[CHICK] ^= bit;
                                q.kinds[HEN] |= bit;
                                visit(q);
                            }
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

    /// The winning test from attack sets, for the player to move against playing every move, and for the opponent
    /// against the turned board's.
    #[test]
    fn fast_winning_tests_agree_with_playing_every_move() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let (mut wins, mut opponent_wins) = (0, 0);
        for _ in 0..200_000 {
            let b = random_board(&mut rng);
            let mut slow = false;
            b.moves(|m| slow |= b.is_winning_move(m));
            assert_eq!(b.has_winning_move(), slow, "{b:?}");
            wins += slow as u32;
            let flipped = b.flip().has_winning_move();
            assert_eq!(b.opponent_has_winning_move(), flipped, "{b:?}");
            opponent_wins += flipped as u32;
        }
        assert!(wins > 1000 && wins < 199_000);
        assert!(
            opponent_wins > 1000 && opponent_wins < 199_000,
            "{opponent_wins}"
        );
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

    fn swap_owner(cell: Cell) -> Cell {
        match cell.piece() {
            None => cell,
            Some((owner, kind)) => Cell::new(owner.other(), kind),
        }
    }

    /// The attacks of a side as the union of the step tables of its pieces, square by square.
    fn attacks_by_steps(b: &Board, owner: Owner) -> u16 {
        let mut set = 0;
        for sq in Square::ALL {
            if let Some((o, kind)) = b.cell(sq).piece()
                && o == owner
            {
                set |= STEPS[owner as usize][kind as usize][sq.index()];
            }
        }
        set
    }

    #[test]
    fn attack_sets_agree_with_the_step_tables() {
        let mut rng = Rng(99);
        for _ in 0..20_000 {
            let b = random_board(&mut rng);
            for owner in [Owner::Us, Owner::Them] {
                assert_eq!(b.attacks(owner), attacks_by_steps(&b, owner), "{b:?}");
                for target in Square::ALL {
                    let expected = squares(b.occupied(owner))
                        .filter(|&sq| {
                            let kind = b.cell(sq).piece().unwrap().1;
                            STEPS[owner as usize][kind as usize][sq.index()] & target.bit() != 0
                        })
                        .fold(0, |set, sq| set | sq.bit());
                    assert_eq!(b.attackers(owner, target), expected);
                }
            }
        }
    }

    #[test]
    fn children_are_the_moves_played() {
        let mut rng = Rng(3);
        for _ in 0..20_000 {
            let b = random_board(&mut rng);
            let mut played = Vec::new();
            b.moves(|m| played.push(b.play(m)));
            let mut children = Vec::new();
            b.children(|c, lion| children.push((c, lion)));
            let key = |x: &(Board, bool)| format!("{x:?}");
            played.sort_by_key(key);
            children.sort_by_key(key);
            assert_eq!(played, children);
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
                Board::from_parts(b.flip().cells(), b.flip().hands()),
                Ok(b.flip())
            );
            assert_eq!(
                Board::from_parts(b.mirror().cells(), b.mirror().hands()),
                Ok(b.mirror())
            );
            for sq in Square::ALL {
                assert_eq!(b.flip().cell(sq.rotate()), swap_owner(b.cell(sq)));
                assert_eq!(b.mirror().cell(sq.mirror()), b.cell(sq));
            }
        }
    }
}
