//! The dense index of one material: every legal position up to symmetry gets one number in `0..size`.
//!
//! Layout, from the most significant digit down: side to move (2; 1 for a symmetric material such as `KRvKR`, whose
//! Black-to-move positions are numbered as their colour-flipped White-to-move images), king pair, then one digit per
//! group of identical pieces (White's strongest first, then Black's). The two kings take one of the king-pair placements that are
//! canonical under the board's symmetries: without pawns, White's king in the triangle a1–d1–d4 and, when it stands
//! on the a1–h8 diagonal, Black's king on or below it (462 pairs); with pawns, White's king on files a–d (left–right
//! mirror only). A group of `k` identical pieces is a combination of `k` squares, counted once: pieces range over
//! the 62 squares the kings leave free, pawns over the 48 squares of ranks 2–7.
//!
//! Indices whose placement overlaps, or whose side not to move is in check, are holes; so are the indices that are
//! not the canonical one of their position. When both kings stand on the diagonal the diagonal reflection keeps the
//! king pair canonical and yields a second index for the same position: the canonical index is the smaller of the
//! two, and the larger one is a hole.

use std::ops::Range;
use std::sync::OnceLock;

use crate::divisor::Divisor;
use crate::material::Material;
use crate::position::Position;
use crate::types::{Bitboard, Color, Piece, Role, Square};

/// The eight symmetries of the square, as square maps. Index 0 is the identity, 1 the left–right mirror; the
/// first two are the only ones allowed when pawns are on the board.
#[inline]
fn transform(t: usize, sq: Square) -> Square {
    Square::new(TRANSFORMS[t][sq.index()])
}

/// Bit 0 of a transform's number mirrors left–right, bit 1 top–bottom, bit 2 in the a1–h8 diagonal (last).
const fn transforms() -> [[u8; 64]; 8] {
    let mut table = [[0u8; 64]; 8];
    let mut t = 0;
    while t < 8 {
        let mut sq = 0;
        while sq < 64 {
            let mut s = sq as u8;
            if t & 1 != 0 {
                s ^= 7;
            }
            if t & 2 != 0 {
                s ^= 56;
            }
            if t & 4 != 0 {
                s = (s >> 3) | ((s & 7) << 3);
            }
            table[t][sq] = s;
            sq += 1;
        }
        t += 1;
    }
    table
}

static TRANSFORMS: [[u8; 64]; 8] = transforms();

/// `C(n, k)` for n ≤ 64, k ≤ 8.
const fn binomials() -> [[u64; 9]; 65] {
    let mut t = [[0u64; 9]; 65];
    let mut n = 0;
    while n <= 64 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= 8 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
}

static BINOMIAL: [[u64; 9]; 65] = binomials();

/// A set of squares moved by the transform numbered `t` (see [`transforms`]), all at once.
#[inline]
fn transform_board(t: usize, squares: Bitboard) -> Bitboard {
    let mut b = squares;
    if t & 1 != 0 {
        b = b.flip_horizontal();
    }
    if t & 2 != 0 {
        b = b.flip_vertical();
    }
    if t & 4 != 0 {
        b = b.flip_diagonal();
    }
    b
}

/// The digit of one group of identical pieces standing on `squares`: the rank of the combination of their square
/// numbers, counted on the squares the group may use (pawns: ranks 2–7; pieces: all but the two kings'). Squares come
/// out of a bitboard in increasing order, which is the order the combinatorial number system sums them in.
#[inline(always)]
fn group_code(group: &Group, squares: Bitboard, low_king: usize, high_king: usize) -> u64 {
    let mut code = 0;
    for (i, sq) in squares.enumerate() {
        code += BINOMIAL[rank(group.piece.role, sq, low_king, high_king)][i + 1];
    }
    code
}

/// The digit of one group of identical pieces standing on `squares` once moved by the transform numbered `t`:
/// [`group_code`] of the moved squares. A group of one or two men, nearly every group of a table of up to six, moves
/// its squares one by one through the transform's table of squares, where moving the bitboard took up to three
/// rounds of bit swaps; a larger group moves its bitboard, whose squares then come out in order.
#[inline(always)]
fn moved_group_code(
    group: &Group,
    squares: Bitboard,
    t: usize,
    low_king: usize,
    high_king: usize,
) -> u64 {
    // `& 63` keeps a square of an empty bitboard (a position of another material, against the contract of the
    // callers) inside the table: a wrong digit, as the bitboard's way gives, not a panic.
    let rank_of = |bits: u64| {
        let sq = TRANSFORMS[t][bits.trailing_zeros() as usize & 63];
        rank(group.piece.role, Square::new(sq), low_king, high_king)
    };
    match group.count {
        1 => rank_of(squares.0) as u64,
        2 => {
            // The rank grows with the square, so the lower of the two moved squares has the lower rank.
            let (a, b) = (
                rank_of(squares.0),
                rank_of(squares.0 & squares.0.wrapping_sub(1)),
            );
            a.min(b) as u64 + BINOMIAL[a.max(b)][2]
        }
        _ => group_code(group, transform_board(t, squares), low_king, high_king),
    }
}

/// The rank of square `sq` among the squares a man of `role` may stand on: for a pawn, among ranks 2 to 7; for a
/// piece, among the squares the kings (on `low_king` and `high_king`) leave free.
#[inline(always)]
fn rank(role: Role, sq: Square, low_king: usize, high_king: usize) -> usize {
    let s = sq.index();
    if role == Role::Pawn {
        s - 8
    } else {
        s - usize::from(s > low_king) - usize::from(s > high_king)
    }
}

/// No group: a (colour, role) that the material does not have.
const NO_GROUP: u8 = u8::MAX;

/// The most groups of identical pieces a material can have (one per non-king man).
const MAX_GROUPS: usize = 8;

/// The digits of a canonical index, kept so that the index of a position one quiet move away, with the same
/// kings, is found by recomputing the moved group's digit alone.
pub(crate) struct Digits {
    /// The same index with the other side to move.
    turned: u64,
    /// The index within its side to move less its king pair's share: the men's digits alone.
    men: u64,
    codes: [u64; MAX_GROUPS],
    low_king: usize,
    high_king: usize,
}

/// The king pairs of the tables with pawns (`pawns`) or without: the canonical pairs by number, and for every raw
/// (White king, Black king) how to make it canonical. The same for every material of a kind, so it is made once and
/// shared: a probe reads it every time, and one copy stays in the processor's caches where one per table would not.
struct KingPairs {
    /// Canonical king pairs, by number: (White king, Black king).
    pairs: Vec<(Square, Square)>,
    /// For every raw (White king, Black king), how to make it canonical.
    raw: Vec<KingPair>,
    /// For every colour, square of its king and square of the other king, the squares next to its king from which
    /// the kings make a pair of the same number: the king steps that keep the pair's digit.
    pair_keeping: Vec<Bitboard>,
}

impl KingPairs {
    fn of(pawns: bool) -> &'static KingPairs {
        static WITH_PAWNS: OnceLock<KingPairs> = OnceLock::new();
        static WITHOUT_PAWNS: OnceLock<KingPairs> = OnceLock::new();
        let cell = if pawns { &WITH_PAWNS } else { &WITHOUT_PAWNS };
        cell.get_or_init(|| KingPairs::make(pawns))
    }

    fn make(pawns: bool) -> KingPairs {
        let transforms = if pawns { 2 } else { 8 };
        let canonical_pair = |wk: Square, bk: Square| {
            if pawns {
                wk.file() < 4
            } else {
                wk.file() < 4
                    && wk.rank() <= wk.file()
                    && (wk.rank() != wk.file() || bk.rank() <= bk.file())
            }
        };
        let mut pairs = Vec::new();
        let mut numbers = vec![u16::MAX; 64 * 64];
        for wk in Square::all() {
            for bk in Square::all() {
                if wk == bk || crate::attacks::king(wk).contains(bk) || !canonical_pair(wk, bk) {
                    continue;
                }
                numbers[wk.index() * 64 + bk.index()] = pairs.len() as u16;
                pairs.push((wk, bk));
            }
        }
        let mut raw_pairs = Vec::with_capacity(64 * 64);
        for wk in Square::all() {
            for bk in Square::all() {
                let mut pair = KingPair {
                    number: u16::MAX,
                    first: u8::MAX,
                    second: u8::MAX,
                };
                for t in 0..transforms {
                    let (tw, tb) = (transform(t, wk), transform(t, bk));
                    let n = numbers[tw.index() * 64 + tb.index()];
                    if n == u16::MAX {
                        continue;
                    }
                    if pair.first == u8::MAX {
                        pair = KingPair {
                            number: n,
                            first: t as u8,
                            second: u8::MAX,
                        };
                    } else {
                        debug_assert_eq!(
                            pair.second,
                            u8::MAX,
                            "at most two symmetries fix a canonical pair"
                        );
                        pair.second = t as u8;
                    }
                }
                raw_pairs.push(pair);
            }
        }
        let number =
            |white: Square, black: Square| raw_pairs[white.index() * 64 + black.index()].number;
        let mut pair_keeping = Vec::with_capacity(2 * 64 * 64);
        for color in [Color::White, Color::Black] {
            for king in Square::all() {
                for other in Square::all() {
                    let pair = |king: Square| match color {
                        Color::White => number(king, other),
                        Color::Black => number(other, king),
                    };
                    let own = pair(king);
                    let steps = crate::attacks::king(king)
                        .into_iter()
                        .filter(|&to| own != u16::MAX && pair(to) == own)
                        .fold(Bitboard::EMPTY, Bitboard::with);
                    pair_keeping.push(steps);
                }
            }
        }
        KingPairs {
            pairs,
            raw: raw_pairs,
            pair_keeping,
        }
    }
}

/// A group of identical pieces of one colour.
#[derive(Clone, Copy, Debug)]
struct Group {
    piece: Piece,
    count: usize,
    /// Number of combinations of `count` squares: the digit's radix.
    radix: u64,
}

/// Which symmetries bring a king pair to canonical form, and the pair's number.
#[derive(Clone, Copy, Debug)]
struct KingPair {
    /// The king-pair number after the first transform, or `u16::MAX` for kings that overlap or touch.
    number: u16,
    first: u8,
    /// A second transform that also gives a canonical pair (both kings on the diagonal), or `u8::MAX`.
    second: u8,
}

/// Why an index cannot be decoded to a placement (the index is a hole).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overlap;

/// The index of one material, in its canonical orientation.
#[derive(Clone, Debug)]
pub struct TableIndex {
    material: Material,
    pawns: bool,
    groups: Vec<Group>,
    /// Canonical king pairs, by number: (White king, Black king).
    pairs: &'static [(Square, Square)],
    /// For every raw (White king, Black king), how to make it canonical.
    raw_pairs: &'static [KingPair],
    /// The king steps that keep the pair's number ([`KingPairs::pair_keeping`]).
    pair_keeping: &'static [Bitboard],
    /// Product of the radices of the groups after each group: the weight of its digit.
    weights: Vec<u64>,
    /// The same weights, as divisors.
    weight_divisors: Vec<Divisor>,
    /// The group of each (colour, role), or `NO_GROUP`.
    slots: [[u8; 6]; 2],
    /// Product of the group radices: positions per king pair and side to move, the weight of the pair's digit.
    per_pair: u64,
    /// The same product, as a divisor.
    per_pair_divisor: Divisor,
    half: u64,
    /// A symmetric material (`KRvKR`) stores White to move only: a Black-to-move position is numbered as its
    /// colour-flipped image, which has the same value.
    white_only: bool,
}

impl TableIndex {
    /// The index of a material (taken in its canonical orientation).
    pub fn new(material: Material) -> TableIndex {
        let material = material.canonical();
        let pawns = material.has_pawns();
        let mut groups = Vec::new();
        for color in [Color::White, Color::Black] {
            for role in Role::NON_KING.iter().rev() {
                let count = material.count(color, *role) as usize;
                if count > 0 {
                    let squares = if *role == Role::Pawn { 48 } else { 62 };
                    let radix = BINOMIAL[squares][count];
                    groups.push(Group {
                        piece: Piece { color, role: *role },
                        count,
                        radix,
                    });
                }
            }
        }
        let per_pair = groups.iter().map(|g| g.radix).product::<u64>();
        let weights: Vec<u64> = (0..groups.len())
            .map(|g| groups[g + 1..].iter().map(|h| h.radix).product())
            .collect();
        let weight_divisors = weights.iter().map(|&w| Divisor::new(w)).collect();
        let mut slots = [[NO_GROUP; 6]; 2];
        for (g, group) in groups.iter().enumerate() {
            slots[group.piece.color.index()][group.piece.role.index()] = g as u8;
        }
        let kings = KingPairs::of(pawns);
        let half = per_pair * kings.pairs.len() as u64;
        TableIndex {
            material,
            pawns,
            groups,
            weights,
            weight_divisors,
            slots,
            pairs: &kings.pairs,
            raw_pairs: &kings.raw,
            pair_keeping: &kings.pair_keeping,
            per_pair,
            per_pair_divisor: Divisor::new(per_pair),
            half,
            white_only: material.is_symmetric(),
        }
    }

    pub fn material(&self) -> Material {
        self.material
    }

    /// Number of indices, holes included.
    pub fn size(&self) -> u64 {
        self.sides() * self.half
    }

    /// How many sides to move the index numbers: 2, or 1 for a symmetric material, whose indices are all White to
    /// move (a Black-to-move position is encoded as its colour-flipped image).
    pub fn sides(&self) -> u64 {
        if self.white_only { 1 } else { 2 }
    }

    /// The side to move of an index.
    pub fn turn_of(&self, index: u64) -> Color {
        if index >= self.half {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The index's row lengths within a king pair: the placements of the last group of men, of the last two, and so
    /// on up to all of them (one king pair's indices). Transposing a block with that many columns brings those men
    /// in front of the others, which the writer tries ([`Family::index_periods`](retro_family::Family)).
    pub fn row_lengths(&self) -> Vec<u64> {
        let mut lengths: Vec<u64> = self.weights.iter().copied().filter(|&w| w > 1).collect();
        let per_pair = self.groups.iter().map(|g| g.radix).product::<u64>();
        if per_pair > 1 && !lengths.contains(&per_pair) {
            lengths.push(per_pair);
        }
        lengths.sort_unstable();
        lengths
    }

    /// The radices of the index's digits, most significant first: side to move, king pair, then each group of men
    /// (their product is [`size`](Self::size)).
    pub fn radices(&self) -> Vec<u64> {
        let mut radices = vec![self.sides(), self.pairs.len() as u64];
        radices.extend(self.groups.iter().map(|g| g.radix));
        radices
    }

    /// Number of canonical king pairs (462 without pawns).
    pub fn king_pairs(&self) -> usize {
        self.pairs.len()
    }

    /// The canonical king pair numbered `n` (below [`king_pairs`](Self::king_pairs)): (White king, Black king).
    pub fn king_pair(&self, n: usize) -> (Square, Square) {
        self.pairs[n]
    }

    /// The placement at `index`, in canonical orientation, or `Overlap` when two men would share a square. The
    /// placement may still be a hole: the side not to move in check, or a non-canonical duplicate.
    ///
    /// Always inlined, as is [`position`](Self::position): their callers (counting, expanding and un-moving a
    /// position) then build the position in place instead of receiving it through memory. KQRvKR's first pass took
    /// 9.6 s instead of 10.6 s, its whole build 34.5 s instead of 36.5 s (two pairs of runs, same bytes). Inlining
    /// more was measured too and made things slower (the first pass by 1 to 2.6 s: `digits`, `Position::play`,
    /// `ChessGame::position`): the first pass is sensitive to the layout of its code, so measure before adding any.
    #[inline(always)]
    pub fn decode(&self, index: u64) -> Result<Position, Overlap> {
        self.decode_men::<false>(index).map(|(pos, _)| pos)
    }

    /// [`decode`](Self::decode), with the last group of men left off the board when `WITHOUT_LAST` (a single
    /// man: see [`visit_positions`](Self::visit_positions)).
    #[inline(always)]
    fn decode_men<const WITHOUT_LAST: bool>(
        &self,
        index: u64,
    ) -> Result<(Position, Digits), Overlap> {
        debug_assert!(index < self.size());
        let turn = if index >= self.half {
            Color::Black
        } else {
            Color::White
        };
        let within = self.within_side(index);
        let pair = self.per_pair_divisor.quotient(within);
        let (wk, bk) = self.pairs[pair as usize];
        let (low_king, high_king) = if wk < bk {
            (wk.index(), bk.index())
        } else {
            (bk.index(), wk.index())
        };
        // The bitboards are built in locals, one per colour and role, and the position once at the end.
        let kings = wk.bb().0 | bk.bb().0;
        let mut occupied = kings;
        let mut colors = [wk.bb().0, bk.bb().0];
        let [mut pawns, mut knights, mut bishops, mut rooks, mut queens] = [0u64; 5];
        // Digits are most significant first, in group order. A group's digit is the quotient by its weight less the
        // radix times the quotient by the weight before it: every quotient comes from the index itself, so that the
        // divisions do not wait for one another.
        let mut above = pair;
        let placed = self.groups.len() - usize::from(WITHOUT_LAST);
        let mut codes = [0; MAX_GROUPS];
        for (k, (g, weight)) in self.groups[..placed]
            .iter()
            .zip(&self.weight_divisors)
            .enumerate()
        {
            let quotient = weight.quotient(within);
            let mut code = quotient - above * g.radix;
            codes[k] = code;
            above = quotient;
            // Unrank the combination: the largest a with C(a, i) <= code, for i = count down to 1.
            let mut top = if g.piece.role == Role::Pawn { 48 } else { 62 };
            let mut group = 0u64;
            for i in (1..=g.count).rev() {
                let a = if i == 1 {
                    // C(a, 1) = a: the last square is what is left of the code, without a look at the table (a
                    // load that waits for the division above: 14% of decoding).
                    code as usize
                } else {
                    let mut a = top - 1;
                    while BINOMIAL[a][i] > code {
                        a -= 1;
                    }
                    code -= BINOMIAL[a][i];
                    a
                };
                top = a;
                let sq = if g.piece.role == Role::Pawn {
                    a + 8
                } else {
                    let mut s = a;
                    if s >= low_king {
                        s += 1;
                    }
                    if s >= high_king {
                        s += 1;
                    }
                    s
                };
                group |= 1 << sq;
            }
            if occupied & group != 0 {
                return Err(Overlap);
            }
            occupied |= group;
            match g.piece.color {
                Color::White => colors[0] |= group,
                Color::Black => colors[1] |= group,
            }
            match g.piece.role {
                Role::Pawn => pawns |= group,
                Role::Knight => knights |= group,
                Role::Bishop => bishops |= group,
                Role::Rook => rooks |= group,
                Role::Queen => queens |= group,
                Role::King => unreachable!("kings are placed by the pair"),
            }
        }
        // In the order of `Role`'s discriminants.
        let by_role = [pawns, knights, bishops, rooks, queens, kings].map(Bitboard);
        Ok((
            Position::from_bitboards(colors.map(Bitboard), by_role, turn),
            self.digits_of(index, pair, codes, wk, bk),
        ))
    }

    /// The canonical index of a legal position of this material in either orientation (`KRvKQ` is looked up in the
    /// `KQvKR` table with colours exchanged). En-passant rights are ignored. Returns `None` when the material differs.
    pub fn encode(&self, pos: &Position) -> Option<u64> {
        let found = Material::of(pos);
        if found == self.material {
            Some(self.encode_oriented(pos))
        } else if found.flipped() == self.material {
            Some(self.encode_oriented(&pos.color_flipped()))
        } else {
            None
        }
    }

    /// The canonical index of a legal position whose White pieces are the first side of the material (as after a
    /// quiet move inside the table): [`encode`](Self::encode) without the material check. A Black-to-move position
    /// of a symmetric material is numbered as its colour-flipped image.
    #[inline]
    pub fn encode_oriented(&self, pos: &Position) -> u64 {
        if self.white_only && pos.turn() == Color::Black {
            return self.encode_oriented(&pos.color_flipped());
        }
        let wk = pos.king(Color::White);
        let bk = pos.king(Color::Black);
        let pair = self.raw_pairs[wk.index() * 64 + bk.index()];
        debug_assert!(pair.number != u16::MAX, "kings overlap or touch");
        let first = self.encode_with(pos, pair.first as usize);
        if pair.second == u8::MAX {
            first
        } else {
            first.min(self.encode_with(pos, pair.second as usize))
        }
    }

    /// Always inlined, as is [`moved_group_code`]: the walk names every predecessor through them. KQRvKR's build took
    /// 32.9 s instead of 33.7 s (two pairs of runs, same bytes).
    #[inline(always)]
    fn encode_with(&self, pos: &Position, t: usize) -> u64 {
        let wk = transform(t, pos.king(Color::White));
        let bk = transform(t, pos.king(Color::Black));
        let pair = self.raw_pairs[wk.index() * 64 + bk.index()].number as u64;
        let (low_king, high_king) = if wk < bk {
            (wk.index(), bk.index())
        } else {
            (bk.index(), wk.index())
        };
        let mut index = pair;
        for g in &self.groups {
            let squares = pos.by_piece(g.piece.color, g.piece.role);
            index = index * g.radix + moved_group_code(g, squares, t, low_king, high_king);
        }
        if pos.turn() == Color::Black {
            index += self.half;
        }
        index
    }

    /// Whether a second symmetry keeps this king pair canonical (both kings on the long diagonal): only then can two
    /// placements with these kings be images of each other, and only then does encoding take a minimum.
    #[inline]
    pub(crate) fn kings_on_axis(&self, white_king: Square, black_king: Square) -> bool {
        self.raw_pairs[white_king.index() * 64 + black_king.index()].second != u8::MAX
    }

    /// The digits of the canonical index of `pos`, which is `index`.
    #[inline]
    pub(crate) fn digits(&self, index: u64, pos: &Position) -> Digits {
        let (wk, bk) = (pos.king(Color::White), pos.king(Color::Black));
        let mut codes = [0; MAX_GROUPS];
        // As in `decode`: each digit from the index's own quotients, which do not wait for one another.
        let within = self.within_side(index);
        let pair = self.per_pair_divisor.quotient(within);
        let mut above = pair;
        for (g, (group, weight)) in self.groups.iter().zip(&self.weight_divisors).enumerate() {
            let quotient = weight.quotient(within);
            codes[g] = quotient - above * group.radix;
            above = quotient;
        }
        self.digits_of(index, pair, codes, wk, bk)
    }

    /// The digits of `index`, whose king pair has the number `pair` and the kings `white_king` and `black_king`, and
    /// whose men's digits are `codes`.
    #[inline(always)]
    fn digits_of(
        &self,
        index: u64,
        pair: u64,
        codes: [u64; MAX_GROUPS],
        white_king: Square,
        black_king: Square,
    ) -> Digits {
        Digits {
            turned: if index >= self.half {
                index - self.half
            } else {
                index + self.half
            },
            men: self.within_side(index) - pair * self.per_pair,
            codes,
            low_king: white_king.index().min(black_king.index()),
            high_king: white_king.index().max(black_king.index()),
        }
    }

    /// The canonical index of the position one move away from the one of `digits`, where a man of `color` other
    /// than the king moved (neither capturing nor promoting) so that its group now stands on `squares`. Valid only
    /// when the kings fix the board's orientation ([`kings_on_axis`](Self::kings_on_axis) is false).
    #[inline]
    pub(crate) fn after_quiet_move(
        &self,
        digits: &Digits,
        color: Color,
        role: Role,
        squares: Bitboard,
    ) -> u64 {
        let g = self.slots[color.index()][role.index()] as usize;
        debug_assert!(g < self.groups.len(), "the material has this piece");
        let code = group_code(&self.groups[g], squares, digits.low_king, digits.high_king);
        // The new digit may be smaller than the old: wrapping arithmetic gives the exact (in-range) result.
        digits.turned.wrapping_add(
            code.wrapping_sub(digits.codes[g])
                .wrapping_mul(self.weights[g]),
        )
    }

    /// Visits, for each square of `origins`, the canonical index of the position of `digits` with the man of `color`
    /// and `role` on `to` standing there instead ([`after_quiet_move`](Self::after_quiet_move); `group` is the
    /// squares of its group, `to` among them). A man alone in its group has a digit of its own square: each index is
    /// then one multiply-add, in the hot loop of a walk back through a table.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn visit_after_quiet_moves(
        &self,
        digits: &Digits,
        color: Color,
        role: Role,
        group: Bitboard,
        to: Square,
        origins: Bitboard,
        mut visit: impl FnMut(u64),
    ) {
        let g = self.slots[color.index()][role.index()] as usize;
        debug_assert!(g < self.groups.len(), "the material has this piece");
        let weight = self.weights[g];
        if self.groups[g].count == 1 {
            // The index with this man's digit taken out; its digit on `from` put back in.
            let base = digits
                .turned
                .wrapping_sub(digits.codes[g].wrapping_mul(weight));
            let (low, high) = (digits.low_king, digits.high_king);
            for from in origins {
                visit(base.wrapping_add(rank(role, from, low, high) as u64 * weight));
            }
        } else {
            let others = group.0 & !to.bb().0;
            for from in origins {
                let squares = Bitboard(others | from.bb().0);
                visit(self.after_quiet_move(digits, color, role, squares));
            }
        }
    }

    /// The canonical index of the position one move away from the one of `digits` (which is `pos`), where the king
    /// of `color` went from `from` to `to`, neither capturing: [`encode_oriented`](Self::encode_oriented) of that
    /// position, found from the digits. `None` when the new kings are not canonical as they stand (a symmetry would
    /// turn the board) or stand on the diagonal; the caller then encodes the position. The other men's digits change
    /// only for a group with a man between the king's two squares, whose ranks among the free squares shift.
    #[inline(always)]
    pub(crate) fn after_king_move(
        &self,
        digits: &Digits,
        pos: &Position,
        color: Color,
        from: Square,
        to: Square,
    ) -> Option<u64> {
        let other = digits.low_king + digits.high_king - from.index();
        let (white, black) = match color {
            Color::White => (to.index(), other),
            Color::Black => (other, to.index()),
        };
        let pair = self.raw_pairs[white * 64 + black];
        if pair.first != 0 || pair.second != u8::MAX {
            return None;
        }
        let (low_king, high_king) = (white.min(black), white.max(black));
        // A man on a square s has the rank s minus the kings below it: the rank changes for s strictly between the
        // king's two squares (neither holds a man), up by one when the king went up past it, else down by one.
        let (lo, hi) = (from.index().min(to.index()), from.index().max(to.index()));
        let between = (u64::MAX << (lo + 1)) & (u64::MAX >> (64 - hi));
        // The position after the move has the other side to move, as the index `turned`.
        let side = if digits.turned >= self.half {
            self.half
        } else {
            0
        };
        let mut index = side + u64::from(pair.number) * self.per_pair + digits.men;
        for (g, group) in self.groups.iter().enumerate() {
            let squares = pos.by_piece(group.piece.color, group.piece.role);
            // A pawn's rank does not count the kings.
            if squares.0 & between == 0 || group.piece.role == Role::Pawn {
                continue;
            }
            let code = if group.count == 1 {
                if from.index() < to.index() {
                    digits.codes[g] + 1
                } else {
                    digits.codes[g] - 1
                }
            } else {
                group_code(group, squares, low_king, high_king)
            };
            // A digit may fall: wrapping arithmetic gives the exact (in-range) result.
            index = index.wrapping_add(
                code.wrapping_sub(digits.codes[g])
                    .wrapping_mul(self.weights[g]),
            );
        }
        Some(index)
    }

    /// The squares next to `king`, the king of `color`, to which it steps keeping its pair with `other` (the other
    /// king) of the same number: where such a step may reach a symmetric image of a position another move reaches.
    #[inline]
    pub(crate) fn pair_keeping_steps(&self, color: Color, king: Square, other: Square) -> Bitboard {
        self.pair_keeping[(color.index() * 64 + king.index()) * 64 + other.index()]
    }

    /// The king-pair digit of an index: two indices with different digits have different king placements.
    #[inline]
    pub(crate) fn pair_of(&self, index: u64) -> u64 {
        self.per_pair_divisor.quotient(self.within_side(index))
    }

    /// The place of an index among those of its side to move (`index % half`, without a division).
    #[inline(always)]
    fn within_side(&self, index: u64) -> u64 {
        if index >= self.half {
            index - self.half
        } else {
            index
        }
    }

    /// Whether the position at `index` is a legal position and `index` is its canonical number; returns it.
    #[inline(always)]
    pub fn position(&self, index: u64) -> Option<Position> {
        self.legal(index, self.decode(index).ok()?)
    }

    /// [`position`](Self::position) and its [`digits`](Self::digits), found together.
    #[inline(always)]
    pub(crate) fn position_with_digits(&self, index: u64) -> Option<(Position, Digits)> {
        let (pos, digits) = self.decode_men::<false>(index).ok()?;
        Some((self.legal(index, pos)?, digits))
    }

    /// `pos`, the placement decoded from `index`, if it is a legal position numbered `index`. Decoding puts one
    /// king of each colour on a canonical pair that does not touch, and pawns on ranks 2-7: what is left to test is
    /// check, and, only where a second symmetry keeps the kings canonical (both on the diagonal), that this index
    /// is the smaller of the position's two.
    #[inline(always)]
    fn legal(&self, index: u64, pos: Position) -> Option<Position> {
        debug_assert!(pos.validate().is_ok() || pos.in_check(pos.turn().other()));
        if pos.in_check(pos.turn().other()) {
            return None;
        }
        let (wk, bk) = (pos.king(Color::White), pos.king(Color::Black));
        if self.raw_pairs[wk.index() * 64 + bk.index()].second != u8::MAX
            && self.encode_oriented(&pos) != index
        {
            return None;
        }
        Some(pos)
    }

    /// Visits the [`position`](Self::position) of every index of `range`, in order. Indices that differ only in the
    /// square of the last man (a row: 62 squares, 48 for a pawn) share the placement of the other men, decoded once
    /// a row: a pass over every index spends most of its decoding there otherwise.
    pub fn visit_positions(&self, range: Range<u64>, mut visit: impl FnMut(u64, Option<Position>)) {
        let Some(last) = self.groups.last().filter(|g| g.count == 1) else {
            // No man beside the kings, or like men last, whose squares are a combination.
            for index in range {
                visit(index, self.position(index));
            }
            return;
        };
        let row = last.radix;
        let mut index = range.start;
        while index < range.end {
            // A side's indices are whole rows, so an index's place in its row is its remainder by the row.
            let row_end = (index - index % row + row).min(range.end);
            let Ok((others, _)) = self.decode_men::<true>(index) else {
                for index in index..row_end {
                    visit(index, None);
                }
                index = row_end;
                continue;
            };
            let (wk, bk) = (others.king(Color::White), others.king(Color::Black));
            let (low_king, high_king) = (wk.index().min(bk.index()), wk.index().max(bk.index()));
            let occupied = others.occupied();
            for (index, digit) in (index..row_end).zip((index % row) as usize..) {
                // The last man's square, as `decode_men` finds it from its digit.
                let sq = if last.piece.role == Role::Pawn {
                    digit + 8
                } else {
                    digit + usize::from(digit >= low_king) + usize::from(digit + 1 >= high_king)
                };
                let sq = Square::new(sq as u8);
                if occupied.contains(sq) {
                    visit(index, None);
                    continue;
                }
                let mut pos = others;
                pos.put(sq, last.piece);
                visit(index, self.legal(index, pos));
            }
            index = row_end;
        }
    }

    /// Whether the table uses only the left–right mirror (it has pawns).
    pub fn has_pawns(&self) -> bool {
        self.pawns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_lengths_are_the_placements_of_the_last_men() {
        let lengths = |name: &str| TableIndex::new(Material::parse(name).unwrap()).row_lengths();
        assert_eq!(lengths("KQvKQ"), [62, 62 * 62]);
        // Two like men are one group: their placements are combinations.
        assert_eq!(lengths("KBBvK"), [62 * 61 / 2]);
        assert_eq!(lengths("KRvKP"), [48, 62 * 48]);
        assert_eq!(lengths("KQvK"), [62]);
    }

    #[test]
    fn positions_visited_a_row_at_a_time_are_those_decoded_one_by_one() {
        // The last man alone (a piece, a pawn), like men last (decoded one by one), kings alone; whole tables and
        // stretches that start and end inside rows, on both sides.
        for (name, step) in [
            ("KQvKR", 1),
            ("KRPvK", 1),
            ("KBBvK", 1),
            ("KvK", 1),
            ("KQRvKB", 9973),
        ] {
            let index = TableIndex::new(Material::parse(name).unwrap());
            let size = index.size();
            let mut ranges = vec![size / 2 - 100..size / 2 + 7, size - 90..size];
            if step == 1 {
                ranges.extend([0..size, 5..size / 2 + 7]);
            }
            ranges.extend(
                (0..size)
                    .step_by(step * 1000)
                    .map(|start| start..(start + 200).min(size)),
            );
            let mut legal = 0;
            for range in ranges {
                let mut next = range.start;
                index.visit_positions(range.clone(), |i, pos| {
                    assert_eq!(i, next, "{name}");
                    assert_eq!(pos, index.position(i), "{name} {i}");
                    legal += u64::from(pos.is_some());
                    next += 1;
                });
                assert_eq!(next, range.end, "{name} {range:?}");
            }
            assert!(legal > 0, "{name}");
        }
    }

    #[test]
    fn pawnless_tables_have_462_king_pairs() {
        let index = TableIndex::new(Material::parse("KQvK").unwrap());
        assert_eq!(index.king_pairs(), 462);
        assert_eq!(index.size(), 2 * 462 * 62);
        let pawns = TableIndex::new(Material::parse("KPvK").unwrap());
        // White king on files a-d (32 squares), Black king on any of the others that do not touch it.
        let expected: usize = (0..64u8)
            .map(Square::new)
            .filter(|w| w.file() < 4)
            .map(|w| 63 - crate::attacks::king(w).count() as usize)
            .sum();
        assert_eq!(pawns.king_pairs(), expected);
        assert_eq!(pawns.size(), 2 * expected as u64 * 48);
    }

    /// Every index decodes to a placement that encodes back to it, or is a hole; and every legal position of the
    /// material, in any orientation, encodes to an index that decodes to a symmetric image of it.
    fn round_trip(name: &str, step: usize) -> u64 {
        let index = TableIndex::new(Material::parse(name).unwrap());
        let mut legal = 0;
        for i in (0..index.size()).step_by(step) {
            if let Some(pos) = index.position(i) {
                legal += 1;
                assert_eq!(index.encode(&pos), Some(i));
                let transforms = if index.has_pawns() { 2 } else { 8 };
                for t in 0..transforms {
                    let image = pos.map_squares(|s| transform(t, s));
                    assert_eq!(index.encode(&image), Some(i), "{} image {t}", pos.fen());
                    // The colour-flipped twin is the same position with the sides' names exchanged: it is looked
                    // up through the other orientation of the material, or, for a symmetric material, numbered
                    // as the White-to-move image.
                    assert_eq!(index.encode(&image.color_flipped()), Some(i));
                }
            }
        }
        legal
    }

    #[test]
    fn a_king_move_is_encoded_from_the_digits_as_in_full() {
        use crate::position::Unmove;
        for (name, step) in [
            ("KQRvKR", 1009),
            ("KRvKN", 7),
            ("KBBvKN", 331),
            ("KRPvKR", 997),
            ("KNNvK", 3),
        ] {
            let index = TableIndex::new(Material::parse(name).unwrap());
            let (mut quick, mut encoded) = (0, 0);
            for i in (0..index.size()).step_by(step) {
                let Some(pos) = index.position(i) else {
                    continue;
                };
                if index.kings_on_axis(pos.king(Color::White), pos.king(Color::Black)) {
                    continue;
                }
                let digits = index.digits(i, &pos);
                for color in [Color::White, Color::Black] {
                    let from = pos.king(color);
                    let other = pos.king(color.other());
                    let targets = crate::attacks::king(from)
                        & !pos.occupied()
                        & !crate::attacks::king(other)
                        & !other.bb();
                    for to in targets {
                        // The same placement with the other side to move: a move of the side to move, or the
                        // un-move of the other side.
                        let after = if color == pos.turn() {
                            pos.after_quiet(Role::King, from, to)
                        } else {
                            pos.before(&Unmove {
                                role: Role::King,
                                from: to,
                                to: from,
                            })
                        };
                        match index.after_king_move(&digits, &pos, color, from, to) {
                            Some(found) => {
                                quick += 1;
                                assert_eq!(
                                    found,
                                    index.encode_oriented(&after),
                                    "{name} {}",
                                    after.fen()
                                );
                            }
                            None => encoded += 1,
                        }
                    }
                }
            }
            assert!(quick > 100 && encoded > 0, "{name}: {quick} {encoded}");
        }
    }

    #[test]
    fn index_round_trips_on_every_index_of_small_tables() {
        // The counts are the legal positions up to symmetry, both sides to move (reference statistics).
        assert_eq!(round_trip("KQvK", 1), 18081 + 2896 + 25160);
        assert_eq!(round_trip("KRvK", 1), 21959 + 2796 + 25260);
        assert_eq!(round_trip("KPvK", 1), 62480 + 19184 + 35210 + 48802);
        // Larger tables, sampled here (every index in scripts/chess-check.sh): several groups, identical pieces,
        // pawns on both sides.
        let full = std::env::var_os("RETRO_CHESS_FULL_ROUND_TRIP").is_some();
        let step = |n: usize| if full { 1 } else { n };
        assert!(round_trip("KBNvK", step(13)) > 0);
        assert!(round_trip("KPvKP", step(29)) > 0);
        assert!(round_trip("KNNvK", step(7)) > 0);
    }
}
