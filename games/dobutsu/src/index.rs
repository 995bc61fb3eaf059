//! The index: a dense numbering of Dobutsu positions with "us" to move, folded by the left–right mirror, for the
//! retrograde engine.
//!
//! ## Layout
//! An index is `class * REST + rest`:
//! - `class` numbers the placements of the two lions, mirror-folded. Only placements the table needs are numbered:
//!   lions on adjacent squares (the player to move captures the enemy lion: won in 1) and the enemy lion on our back
//!   rank (its try has either succeeded, the game is over, or it can be captured: won in 1) are left out, which
//!   keeps 28 of the 132 ordered placements. Positions with such placements are valued directly by
//!   [`excluded_value`], never stored.
//! - `rest` numbers everything else exactly, without holes: the kind pattern of the 10 remaining squares (empty,
//!   giraffe, elephant, chick-or-hen, at most two of each kind), then one owner bit per piece on the board and one
//!   promotion bit per chick, then how many of each kind not on the board are in our hand (the rest is in theirs).
//!   Identical pieces are counted once. There are `REST` = 11 878 227 of them.
//!
//! Positions whose two lions both stand on file b are mapped onto themselves by the mirror; for those, the smaller
//! of the two `rest` numbers is the index and the other one is a hole. Every other position has exactly one index.
//!
//! ## Speed
//! The kind pattern is a number with two bits per free square (`1` giraffe, `2` elephant, `3` chick or hen), and
//! patterns are numbered in increasing order, each taking as many numbers as it has owner, promotion and hand
//! states. Where a pattern starts is the sum of the sizes of the patterns below it, split in two table look-ups: one
//! for its upper five squares and one for its lower five given how many pieces of each kind the upper five hold
//! (about 110 KB in all, so that encoding stays in cache). Decoding finds the pattern from a table of where every
//! 256th number falls. Everything else is bit arithmetic on the board's square sets.
//!
//! The same numbering serves sub-games with fewer pieces ([`Indexer::for_material`]): a pattern may then hold at
//! most as many pieces of a kind as the material has, and the hands share what is left.

use crate::board::{Board, Owner};
use crate::types::{BACK_RANK, FAR_RANK, HandKind, Kind, STEPS, Square, count};
use retro_game::{Index, Value};

/// The game's material besides the lions: two giraffes, two elephants, two chicks.
pub const FULL_MATERIAL: [u8; 3] = [2, 2, 2];

/// The kind patterns of five squares (two bits each).
const HALF_CODES: usize = 1 << 10;
/// How many ways five squares may hold 0..=2 pieces of each of three kinds, as `9 g + 3 e + c`.
const HALF_COUNTS: usize = 27;
/// Decoding looks the pattern up by `rest >> BUCKET_SHIFT`.
const BUCKET_SHIFT: u32 = 8;

/// What the index says about a lion placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LionSlot {
    /// Not in the table (see [`excluded_value`]).
    Excluded,
    /// This class; `mirrored` if the board must be mirrored to reach the class's orientation.
    Class { class: u8, mirrored: bool },
}

/// The numbering, with its tables (about 0.5 MB, built in a few milliseconds).
pub struct Indexer {
    slots: [[LionSlot; 12]; 12],
    /// The lion squares `[ours, theirs]` of each class, in the class's orientation.
    classes: Vec<[Square; 2]>,
    /// The pieces of each hand kind besides the lions.
    material: [u8; 3],
    /// Where the patterns whose upper five squares are `h` start: the sizes of all patterns with smaller upper
    /// halves.
    upper_base: Vec<u32>,
    /// `[counts of the upper half][lower half]`: where a pattern starts after its upper half's `upper_base`.
    lower_base: Vec<u32>,
    /// The valid patterns in increasing order, with their bases (increasing too), for decoding.
    patterns: Vec<(u32, u32)>,
    /// For every `rest >> BUCKET_SHIFT`, the pattern holding that number.
    bucket_pattern: Vec<u32>,
    rest: u64,
}

/// Whether a lion placement (ours, theirs) is kept in the table.
fn lions_in_table(ours: Square, theirs: Square) -> bool {
    ours != theirs
        && STEPS[0][Kind::Lion as usize][ours.index()] & theirs.bit() == 0
        && theirs.bit() & BACK_RANK == 0
}

/// The value of a position whose lion placement is not in the table, for the player to move: the enemy lion can be
/// captured (won in 1), or it stands unattacked on our back rank after a successful try (lost, the game is over).
/// `None` if the position is in the table.
pub fn excluded_value(board: &Board) -> Option<Value> {
    let (ours, theirs) = (board.lion(Owner::Us), board.lion(Owner::Them));
    if lions_in_table(ours, theirs) {
        None
    } else if board.try_lost() {
        Some(Value::loss(0))
    } else {
        Some(Value::win(1))
    }
}

/// Counts of pieces per kind in a pattern of `squares` squares: 2 bits per square, 1 giraffe, 2 elephant, 3 chick or
/// hen.
fn pattern_counts(code: u32, squares: u32) -> [u8; 3] {
    let mut counts = [0; 3];
    for i in 0..squares {
        let d = (code >> (2 * i)) & 3;
        if d != 0 {
            counts[d as usize - 1] += 1;
        }
    }
    counts
}

/// Whether a pattern with these counts fits the material.
fn fits(counts: [u8; 3], material: [u8; 3]) -> bool {
    counts.iter().zip(material).all(|(&c, m)| c <= m)
}

/// How many hand configurations there are with `counts` pieces of each kind on the board: for each kind, from none
/// to all of the others in our hand.
fn hand_states(counts: [u8; 3], material: [u8; 3]) -> u32 {
    (0..3)
        .map(|k| u32::from(material[k] - counts[k]) + 1)
        .product()
}

/// How many numbers a pattern with these counts takes: owner bits, promotion bits, hands.
fn pattern_size(counts: [u8; 3], material: [u8; 3]) -> u64 {
    let bits = u32::from(counts[0] + counts[1] + 2 * counts[2]);
    (1u64 << bits) * u64::from(hand_states(counts, material))
}

/// The number `9 g + 3 e + c` of half-pattern counts.
fn counts_key(counts: [u8; 3]) -> usize {
    9 * counts[0] as usize + 3 * counts[1] as usize + counts[2] as usize
}

fn add_counts(a: [u8; 3], b: [u8; 3]) -> [u8; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// The bits of `set` below `sq` stay, those above move down one place: square `sq` taken out of the set's numbering.
const fn squeeze(set: u32, sq: u32) -> u32 {
    let below = (1 << sq) - 1;
    (set & below) | ((set >> 1) & !below)
}

/// The inverse of [`squeeze`]: a zero bit inserted at `sq`.
const fn unsqueeze(set: u32, sq: u32) -> u32 {
    let below = (1 << sq) - 1;
    (set & below) | ((set & !below) << 1)
}

/// Bit `j` of a five-bit number moved to bit `2 j`.
const SPREAD: [u32; 32] = {
    let mut table = [0; 32];
    let mut x = 0;
    while x < 32 {
        let mut j = 0;
        while j < 5 {
            table[x] |= ((x as u32 >> j) & 1) << (2 * j);
            j += 1;
        }
        x += 1;
    }
    table
};

/// The inverse of [`SPREAD`] for both bits of each square of a five-square pattern: `low | high << 5`.
const SPLIT: [u16; HALF_CODES] = {
    let mut table = [0; HALF_CODES];
    let mut x = 0;
    while x < HALF_CODES {
        let mut j = 0;
        while j < 5 {
            table[x] |= (((x >> (2 * j)) & 1) << j) as u16;
            table[x] |= (((x >> (2 * j + 1)) & 1) << (j + 5)) as u16;
            j += 1;
        }
        x += 1;
    }
    table
};

/// `[mask][value]` for five-bit numbers: the bits of `value` where `mask` has ones, packed (a software `pext`).
const PACK5: [[u8; 32]; 32] = {
    let mut table = [[0; 32]; 32];
    let mut mask = 0;
    while mask < 32 {
        let mut value = 0;
        while value < 32 {
            let (mut packed, mut i, mut j) = (0, 0, 0);
            while j < 5 {
                if mask >> j & 1 == 1 {
                    packed |= ((value >> j) & 1) << i;
                    i += 1;
                }
                j += 1;
            }
            table[mask][value] = packed as u8;
            value += 1;
        }
        mask += 1;
    }
    table
};

/// `[mask][packed]` for five-bit numbers: the low bits of `packed` put where `mask` has ones (a software `pdep`).
const UNPACK5: [[u8; 32]; 32] = {
    let mut table = [[0; 32]; 32];
    let mut mask = 0;
    while mask < 32 {
        let mut packed = 0;
        while packed < 32 {
            let (mut value, mut i, mut j) = (0, 0, 0);
            while j < 5 {
                if mask >> j & 1 == 1 {
                    value |= ((packed >> i) & 1) << j;
                    i += 1;
                }
                j += 1;
            }
            table[mask][packed] = value as u8;
            packed += 1;
        }
        mask += 1;
    }
    table
};

/// The bits of the 10-bit `value` where the 10-bit `mask` has ones, packed in order.
#[inline]
fn gather(value: u32, mask: u32) -> u32 {
    let low = u32::from(PACK5[(mask & 31) as usize][(value & 31) as usize]);
    let high = u32::from(PACK5[(mask >> 5) as usize][(value >> 5) as usize]);
    low | high << count(mask & 31)
}

/// The low bits of `packed` put where the 10-bit `mask` has ones, in order: the inverse of [`gather`].
#[inline]
fn scatter(packed: u32, mask: u32) -> u32 {
    let low_mask = mask & 31;
    let low = u32::from(UNPACK5[low_mask as usize][(packed & 31) as usize]);
    let rest = (packed >> count(low_mask)) & 31;
    let high = u32::from(UNPACK5[(mask >> 5) as usize][rest as usize]);
    low | high << 5
}

impl Default for Indexer {
    fn default() -> Self {
        Indexer::new()
    }
}

impl Indexer {
    /// The numbering of the table: the 28 lion classes the table keeps.
    pub fn new() -> Indexer {
        Indexer::build(lions_in_table, FULL_MATERIAL)
    }

    /// A numbering of every position, whatever its lions (72 classes): used to search the positions reachable from
    /// the start, some of which are outside the table.
    pub fn complete() -> Indexer {
        Indexer::build(|ours, theirs| ours != theirs, FULL_MATERIAL)
    }

    /// [`Indexer::complete`] for a sub-game with `material` giraffes, elephants and chicks besides the lions.
    pub fn complete_for_material(material: [u8; 3]) -> Indexer {
        Indexer::build(|ours, theirs| ours != theirs, material.map(|m| m.min(2)))
    }

    /// The table's numbering for a sub-game with `material` giraffes, elephants and chicks (at most two each)
    /// besides the lions.
    pub fn for_material(material: [u8; 3]) -> Indexer {
        Indexer::build(lions_in_table, material.map(|m| m.min(2)))
    }

    /// The pieces of each hand kind besides the lions.
    pub fn material(&self) -> [u8; 3] {
        self.material
    }

    /// Whether the lion placement of class `class` is kept by the table.
    pub fn class_in_table(&self, class: usize) -> bool {
        let [ours, theirs] = self.classes[class];
        lions_in_table(ours, theirs)
    }

    /// Whether `index` lies in a class whose two lions stand on file b (where positions may equal their mirror
    /// image and half the indices are holes).
    pub fn class_is_symmetric(&self, index: Index) -> bool {
        let [ours, theirs] = self.classes[(index / self.rest) as usize];
        ours.mirror() == ours && theirs.mirror() == theirs
    }

    /// The lion squares `[ours, theirs]` of class `class`.
    pub fn class_lions(&self, class: usize) -> [Square; 2] {
        self.classes[class]
    }

    fn build(keep: fn(Square, Square) -> bool, material: [u8; 3]) -> Indexer {
        let mut slots = [[LionSlot::Excluded; 12]; 12];
        let mut classes = Vec::new();
        for ours in Square::ALL {
            for theirs in Square::ALL {
                if !keep(ours, theirs) {
                    continue;
                }
                let mirror = (ours.mirror(), theirs.mirror());
                if mirror < (ours, theirs) {
                    continue; // Numbered from its mirror image.
                }
                let class = classes.len() as u8;
                classes.push([ours, theirs]);
                slots[ours.index()][theirs.index()] = LionSlot::Class {
                    class,
                    mirrored: false,
                };
                if mirror != (ours, theirs) {
                    slots[mirror.0.index()][mirror.1.index()] = LionSlot::Class {
                        class,
                        mirrored: true,
                    };
                }
            }
        }
        // Patterns are numbered as `upper << 10 | lower` in increasing order; both tables follow from the sizes.
        let half_counts: Vec<[u8; 3]> = (0..HALF_CODES as u32)
            .map(|h| pattern_counts(h, 5))
            .collect();
        let mut lower_base = vec![0u32; HALF_COUNTS * HALF_CODES];
        let mut lower_total = [0u64; HALF_COUNTS];
        for upper in (0..HALF_CODES).map(|h| half_counts[h]) {
            let key = counts_key(upper);
            if !fits(upper, material) || lower_total[key] != 0 {
                continue;
            }
            let mut next = 0u64;
            for (lower, &counts) in half_counts.iter().enumerate() {
                lower_base[key * HALF_CODES + lower] = next as u32;
                let all = add_counts(upper, counts);
                if fits(all, material) {
                    next += pattern_size(all, material);
                }
            }
            lower_total[key] = next;
        }
        let mut upper_base = vec![0u32; HALF_CODES];
        let mut patterns = Vec::new();
        let mut next = 0u64;
        for (upper, &counts) in half_counts.iter().enumerate() {
            upper_base[upper] = next as u32;
            if !fits(counts, material) {
                continue;
            }
            let key = counts_key(counts);
            for (lower, &lower_counts) in half_counts.iter().enumerate() {
                if fits(add_counts(counts, lower_counts), material) {
                    let base = next + u64::from(lower_base[key * HALF_CODES + lower]);
                    patterns.push(((upper << 10 | lower) as u32, base as u32));
                }
            }
            next += lower_total[key];
        }
        let rest = next;
        assert!(rest < 1 << 32, "rest numbers fit 32 bits");
        let mut bucket_pattern = Vec::with_capacity((rest >> BUCKET_SHIFT) as usize + 1);
        let mut at = 0;
        for bucket in 0..=(rest >> BUCKET_SHIFT) {
            let first = bucket << BUCKET_SHIFT;
            while at + 1 < patterns.len() && u64::from(patterns[at + 1].1) <= first {
                at += 1;
            }
            bucket_pattern.push(at as u32);
        }
        Indexer {
            slots,
            classes,
            material,
            upper_base,
            lower_base,
            patterns,
            bucket_pattern,
            rest,
        }
    }

    /// The runs of `rest` numbers that differ only in the hands: `(first, length)` in increasing order, covering
    /// `0..rest_size()`. Within a run, the pieces on the board are the same (and so is everything that depends on
    /// them alone, such as whether a lion is attacked).
    pub fn board_runs(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.patterns.iter().flat_map(move |&(code, base)| {
            let counts = pattern_counts(code, 10);
            let states = u64::from(hand_states(counts, self.material));
            let labels = 1u64 << (counts[0] + counts[1] + 2 * counts[2]);
            (0..labels).map(move |label| (u64::from(base) + label * states, states))
        })
    }

    /// Where the boards with our lion on `ours` and theirs on `theirs` are numbered: the first index of their class,
    /// whether a board must be mirrored to be in the class's orientation, and whether the class is one of those
    /// whose lions stand on file b (where a board and its mirror image share a class). `None` if not numbered.
    pub(crate) fn class_of(&self, ours: Square, theirs: Square) -> Option<(u64, bool, bool)> {
        match self.slots[ours.index()][theirs.index()] {
            LionSlot::Excluded => None,
            LionSlot::Class { class, mirrored } => Some((
                u64::from(class) * self.rest,
                mirrored,
                ours.mirror() == ours && theirs.mirror() == theirs,
            )),
        }
    }

    /// The index of `board` given the first index of its class, for a board in the class's orientation whose class
    /// has no mirror-image pairs (see [`Indexer::class_of`]): [`Indexer::encode`] without finding the class.
    #[inline]
    pub(crate) fn encode_in_class(&self, class_base: u64, board: &Board) -> Index {
        class_base + self.rest_of(board)
    }

    /// The number of indices, holes included.
    pub fn size(&self) -> Index {
        self.classes.len() as u64 * self.rest
    }

    /// The number of lion classes.
    pub fn classes(&self) -> usize {
        self.classes.len()
    }

    /// The number of indices per lion class.
    pub fn rest_size(&self) -> u64 {
        self.rest
    }

    /// Whether the position is in the table (its lion placement is kept by the table, whatever this numbering).
    pub fn in_table(&self, board: &Board) -> bool {
        lions_in_table(board.lion(Owner::Us), board.lion(Owner::Them))
    }

    /// Whether the board seen by the other player is in the table: `self.in_table(&board.flip())` without turning
    /// the board (for the position after a move, before the turn passes).
    #[inline]
    pub fn in_table_flipped(&self, board: &Board) -> bool {
        // Turning the board swaps the lions and maps our far rank to the back rank; adjacency does not change.
        let (ours, theirs) = (board.lion(Owner::Us), board.lion(Owner::Them));
        ours != theirs
            && STEPS[0][Kind::Lion as usize][ours.index()] & theirs.bit() == 0
            && ours.bit() & FAR_RANK == 0
    }

    /// The number of `board` within its class, in the class's orientation (lions on the class's squares).
    #[inline]
    fn rest_of(&self, board: &Board) -> u64 {
        let lions = board.kind_set(Kind::Lion);
        let low_lion = lions.trailing_zeros();
        let high_lion = 15 - lions.leading_zeros();
        let compress = |set: u16| squeeze(squeeze(u32::from(set), high_lion), low_lion);
        let chicks = board.kind_set(Kind::Chick) | board.kind_set(Kind::Hen);
        let giraffes = board.kind_set(Kind::Giraffe);
        let elephants = board.kind_set(Kind::Elephant);
        // The two bit planes of the pattern over the 10 free squares: giraffe-or-chick, elephant-or-chick.
        let low = compress(giraffes | chicks);
        let high = compress(elephants | chicks);
        let lower = SPREAD[(low & 31) as usize] | SPREAD[(high & 31) as usize] << 1;
        let upper = SPREAD[(low >> 5) as usize] | SPREAD[(high >> 5) as usize] << 1;
        let upper_counts = [
            count((low & !high) >> 5) as u8,
            count((high & !low) >> 5) as u8,
            count((low & high) >> 5) as u8,
        ];
        let base = u64::from(self.upper_base[upper as usize])
            + u64::from(self.lower_base[counts_key(upper_counts) * HALF_CODES + lower as usize]);
        let counts = [
            count(u32::from(giraffes)) as u8,
            count(u32::from(elephants)) as u8,
            count(u32::from(chicks)) as u8,
        ];
        let pieces = count(low | high);
        let owners = gather(compress(board.occupied(Owner::Them)), low | high);
        let promotions = gather(compress(board.kind_set(Kind::Hen)), low & high);
        let label = owners | promotions << pieces;
        let m = self.material;
        let states = [0, 1, 2].map(|k| u64::from(m[k] - counts[k]) + 1);
        let hands = HandKind::ALL.map(|k| u64::from(board.hand(Owner::Us, k)));
        let hand = hands[0] + states[0] * (hands[1] + states[1] * hands[2]);
        base + u64::from(label) * states[0] * states[1] * states[2] + hand
    }

    /// The index of a position of the table, and whether `board` is in the orientation that [`Indexer::decode`]
    /// gives back (always true for a board equal to its mirror image). `None` if it is not in the table.
    #[inline]
    pub fn encode_oriented(&self, board: &Board) -> Option<(Index, bool)> {
        let (ours, theirs) = (board.lion(Owner::Us), board.lion(Owner::Them));
        match self.slots[ours.index()][theirs.index()] {
            LionSlot::Excluded => None,
            LionSlot::Class { class, mirrored } => {
                let base = class as u64 * self.rest;
                if mirrored {
                    return Some((base + self.rest_of(&board.mirror()), false));
                }
                let rest = self.rest_of(board);
                if ours.mirror() == ours && theirs.mirror() == theirs {
                    let other = self.rest_of(&board.mirror());
                    return Some((base + rest.min(other), rest <= other));
                }
                Some((base + rest, true))
            }
        }
    }

    /// The index of a position of the table; `None` if it is not in the table.
    #[inline]
    pub fn encode(&self, board: &Board) -> Option<Index> {
        self.encode_oriented(board).map(|(index, _)| index)
    }

    /// The position numbered `index`, or `None` for a hole (the mirror image of a position with a smaller index).
    #[inline]
    pub fn decode(&self, index: Index) -> Option<Board> {
        let class = (index / self.rest) as usize;
        let rest = index % self.rest;
        let [ours, theirs] = *self.classes.get(class)?;
        let mut at = self.bucket_pattern[(rest >> BUCKET_SHIFT) as usize] as usize;
        while at + 1 < self.patterns.len() && u64::from(self.patterns[at + 1].1) <= rest {
            at += 1;
        }
        let (code, base) = self.patterns[at];
        let lower = SPLIT[(code & 0x3ff) as usize];
        let upper = SPLIT[(code >> 10) as usize];
        let low10 = u32::from(lower & 31 | (upper & 31) << 5);
        let high10 = u32::from(lower >> 5 | (upper >> 5) << 5);
        let (low_lion, high_lion) = if ours < theirs {
            (ours, theirs)
        } else {
            (theirs, ours)
        };
        let expand = |set: u32| {
            unsqueeze(
                unsqueeze(set, low_lion.index() as u32),
                high_lion.index() as u32,
            ) as u16
        };
        let giraffes = expand(low10 & !high10);
        let elephants = expand(high10 & !low10);
        let chicks = expand(low10 & high10);
        let counts = [
            count(u32::from(giraffes)) as u8,
            count(u32::from(elephants)) as u8,
            count(u32::from(chicks)) as u8,
        ];
        let m = self.material;
        // 32-bit divisions: a rest number fits (checked when the tables are built), and they are faster.
        let states = [0, 1, 2].map(|k| u32::from(m[k] - counts[k]) + 1);
        let offset = (rest - u64::from(base)) as u32;
        let all_states = states[0] * states[1] * states[2];
        let (label, mut hand) = (offset / all_states, offset % all_states);
        let pieces10 = low10 | high10;
        let their_pieces = expand(scatter(label, pieces10));
        let hens = expand(scatter(label >> count(pieces10), low10 & high10));
        let pieces = expand(pieces10);
        let mut our_hand = [0u8; 3];
        for (k, slot) in our_hand.iter_mut().enumerate() {
            *slot = (hand % states[k]) as u8;
            hand /= states[k];
        }
        let their_hand = [0, 1, 2].map(|k| m[k] - counts[k] - our_hand[k]);
        let (ours_bit, theirs_bit) = (ours.bit(), theirs.bit());
        let board = Board::from_sets(
            [
                (pieces & !their_pieces) | ours_bit,
                their_pieces | theirs_bit,
            ],
            [
                ours_bit | theirs_bit,
                giraffes,
                elephants,
                chicks & !hens,
                hens,
            ],
            [our_hand, their_hand],
        );
        if ours.mirror() == ours
            && theirs.mirror() == theirs
            && self.rest_of(&board.mirror()) < rest
        {
            return None;
        }
        Some(board)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tests::{Rng, random_board};

    #[test]
    fn the_flipped_board_is_in_the_table_as_the_lions_say() {
        let ix = Indexer::new();
        let mut rng = Rng(31);
        let mut kept = 0;
        for _ in 0..100_000 {
            let b = random_board(&mut rng);
            let flipped = ix.in_table(&b.flip());
            assert_eq!(ix.in_table_flipped(&b), flipped, "{b:?}");
            kept += flipped as u32;
        }
        assert!(kept > 1000 && kept < 99_000, "{kept}");
    }

    #[test]
    fn sizes() {
        let ix = Indexer::new();
        assert_eq!(ix.classes(), 28);
        // Per kind: both in hand (3 ways: ours, split, theirs), one on board (owner × which hand holds the other),
        // two on board; chicks also carry a promotion bit. Summed over the squares the 10 free squares allow.
        let (g, c) = ([3u64, 4, 2], [3u64, 8, 8]);
        let falling = |k: u64| (0..k).map(|i| 10 - i).product::<u64>();
        let mut expected = 0;
        for (a, ga) in g.iter().enumerate() {
            for (b, gb) in g.iter().enumerate() {
                for (d, cd) in c.iter().enumerate() {
                    expected += falling((a + b + d) as u64) * ga * gb * cd;
                }
            }
        }
        assert_eq!(ix.rest_size(), expected);
        assert_eq!(ix.rest_size(), 11_878_227);
        let all = Indexer::complete();
        assert_eq!(all.classes(), 72);
        assert_eq!((0..72).filter(|&c| all.class_in_table(c)).count(), 28);
    }

    /// The numbering as first written, square by square with one 4 MB table over all 20-bit patterns: the fast
    /// encoder must give exactly its numbers (the table files depend on them).
    fn plain_rest(board: &Board) -> u64 {
        let mut pattern_base = vec![u64::MAX; 1 << 20];
        let mut next = 0;
        for code in 0..1u32 << 20 {
            let counts = pattern_counts(code, 10);
            if fits(counts, FULL_MATERIAL) {
                pattern_base[code as usize] = next;
                next += pattern_size(counts, FULL_MATERIAL);
            }
        }
        plain_rest_with(board, &pattern_base)
    }

    fn plain_rest_with(board: &Board, pattern_base: &[u64]) -> u64 {
        let lions = board.lion(Owner::Us).bit() | board.lion(Owner::Them).bit();
        let (mut code, mut owners, mut promotions, mut pieces, mut chicks) = (0u32, 0u32, 0, 0, 0);
        let mut counts = [0u32; 3];
        let mut free = 0;
        for sq in Square::ALL {
            if lions & sq.bit() != 0 {
                continue;
            }
            if let Some((owner, kind)) = board.cell(sq).piece() {
                let digit = match kind {
                    Kind::Giraffe => 1,
                    Kind::Elephant => 2,
                    _ => 3,
                };
                code |= digit << (2 * free);
                counts[digit as usize - 1] += 1;
                owners |= (owner as u32) << pieces;
                pieces += 1;
                if digit == 3 {
                    promotions |= ((kind == Kind::Hen) as u32) << chicks;
                    chicks += 1;
                }
            }
            free += 1;
        }
        let hands = (3 - counts[0]) * (3 - counts[1]) * (3 - counts[2]);
        let hand = board.hand(Owner::Us, crate::types::HandKind::Giraffe) as u32
            + (3 - counts[0])
                * (board.hand(Owner::Us, crate::types::HandKind::Elephant) as u32
                    + (3 - counts[1])
                        * board.hand(Owner::Us, crate::types::HandKind::Chick) as u32);
        let label = owners | promotions << pieces;
        pattern_base[code as usize] + label as u64 * hands as u64 + hand as u64
    }

    #[test]
    fn the_fast_numbering_is_the_plain_one() {
        let ix = Indexer::new();
        let start = crate::notation::Position::startpos();
        let (index, _) = ix.encode_oriented(start.board()).unwrap();
        assert_eq!(
            index % ix.rest_size(),
            plain_rest(start.board()).min(plain_rest(&start.board().mirror()))
        );
        let mut pattern_base = vec![u64::MAX; 1 << 20];
        let mut next = 0;
        for code in 0..1u32 << 20 {
            let counts = pattern_counts(code, 10);
            if fits(counts, FULL_MATERIAL) {
                pattern_base[code as usize] = next;
                next += pattern_size(counts, FULL_MATERIAL);
            }
        }
        assert_eq!(next, ix.rest_size());
        let mut rng = Rng(77);
        for _ in 0..50_000 {
            let b = random_board(&mut rng);
            assert_eq!(ix.rest_of(&b), plain_rest_with(&b, &pattern_base), "{b:?}");
        }
    }

    #[test]
    fn sub_games_round_trip() {
        for material in [[0, 0, 0], [1, 0, 1], [0, 1, 2], [2, 1, 0]] {
            let ix = Indexer::for_material(material);
            assert_eq!(ix.material(), material);
            let mut next = 0;
            for (first, length) in ix.board_runs() {
                assert_eq!(first, next);
                let cells = |i| ix.decode(i).map(|b| b.cells());
                assert_eq!(cells(first), cells(first + length - 1));
                next += length;
            }
            assert_eq!(next, ix.rest_size());
            let expected: u64 = (0..1u32 << 20)
                .map(|code| pattern_counts(code, 10))
                .filter(|&c| fits(c, material))
                .map(|c| pattern_size(c, material))
                .sum();
            assert_eq!(ix.rest_size(), expected);
            let mut decoded = 0;
            for index in 0..ix.size() {
                if let Some(b) = ix.decode(index) {
                    decoded += 1;
                    assert_eq!(ix.encode(&b), Some(index));
                    assert_eq!(ix.encode(&b.mirror()), Some(index));
                    let again = Board::from_parts_with(b.cells(), b.hands(), material);
                    assert_eq!(again, Ok(b));
                }
            }
            assert!(decoded > ix.size() / 2);
        }
    }

    #[test]
    fn the_complete_numbering_round_trips() {
        let ix = Indexer::complete();
        let mut rng = Rng(6);
        for _ in 0..20_000 {
            let b = random_board(&mut rng);
            let index = ix.encode(&b).expect("every position is numbered");
            let back = ix.decode(index).expect("no hole");
            assert!(back == b || back == b.mirror());
        }
    }

    #[test]
    fn random_positions_round_trip() {
        let ix = Indexer::new();
        let mut rng = Rng(5);
        let mut kept = 0;
        for _ in 0..100_000 {
            let b = random_board(&mut rng);
            let Some((index, oriented)) = ix.encode_oriented(&b) else {
                assert!(excluded_value(&b).is_some());
                continue;
            };
            kept += 1;
            assert!(index < ix.size());
            assert_eq!(ix.encode(&b.mirror()), Some(index));
            let back = ix.decode(index).expect("an encoded position is no hole");
            assert!(back == b || back == b.mirror());
            assert_eq!(oriented, back == b);
        }
        assert!(kept > 10_000);
    }

    #[test]
    fn random_indices_round_trip() {
        let ix = Indexer::new();
        let mut rng = Rng(11);
        let mut holes = 0;
        for _ in 0..200_000 {
            let index = rng.below(ix.size());
            match ix.decode(index) {
                None => holes += 1,
                Some(b) => assert_eq!(ix.encode(&b), Some(index)),
            }
        }
        // Holes only in the 4 classes whose lions both stand on file b, about half of those.
        assert!(holes > 0 && holes < 200_000 * 4 / 28);
        // The first and last indices decode.
        assert!(ix.decode(0).is_some());
        assert!(ix.decode(ix.size()).is_none());
    }
}
