//! The index: a dense numbering of Dobutsu positions with Sente... with "us" to move, folded by the left–right
//! mirror, for the retrograde engine.
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

use crate::board::{Board, Cell, Owner};
use crate::types::{BACK_RANK, HandKind, Kind, STEPS, Square};
use retro_game::{Index, Value};

/// How many kind patterns of 10 squares there are, valid or not (4 states per square).
const CODES: usize = 1 << 20;

/// What the index says about a lion placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LionSlot {
    /// Not in the table (see [`excluded_value`]).
    Excluded,
    /// This class; `mirrored` if the board must be mirrored to reach the class's orientation.
    Class { class: u8, mirrored: bool },
}

/// The numbering, with its tables (about 4 MB, built in a few milliseconds).
pub struct Indexer {
    slots: [[LionSlot; 12]; 12],
    /// The lion squares `[ours, theirs]` of each class, in the class's orientation.
    classes: Vec<[Square; 2]>,
    /// Where each valid kind pattern's numbers start inside `rest`; `u32::MAX` for invalid patterns.
    pattern_base: Vec<u32>,
    /// The valid patterns in increasing order, with their bases (increasing too), for decoding.
    patterns: Vec<(u32, u32)>,
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

/// Counts of pieces per kind in a pattern: 2 bits per square, 1 giraffe, 2 elephant, 3 chick or hen.
fn pattern_counts(code: u32) -> [u32; 3] {
    let mut counts = [0; 3];
    for i in 0..10 {
        let d = (code >> (2 * i)) & 3;
        if d != 0 {
            counts[d as usize - 1] += 1;
        }
    }
    counts
}

/// How many hand configurations there are with `counts` pieces of each kind on the board: for each kind, 0..=2-k in
/// our hand.
fn hand_states(counts: [u32; 3]) -> u32 {
    (3 - counts[0]) * (3 - counts[1]) * (3 - counts[2])
}

impl Default for Indexer {
    fn default() -> Self {
        Indexer::new()
    }
}

impl Indexer {
    /// The numbering of the table: the 28 lion classes the table keeps.
    pub fn new() -> Indexer {
        Indexer::with_lions(lions_in_table)
    }

    /// A numbering of every position, whatever its lions (72 classes): used to search the positions reachable from
    /// the start, some of which are outside the table.
    pub fn complete() -> Indexer {
        Indexer::with_lions(|ours, theirs| ours != theirs)
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

    fn with_lions(keep: fn(Square, Square) -> bool) -> Indexer {
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
        let mut pattern_base = vec![u32::MAX; CODES];
        let mut patterns = Vec::new();
        let mut next = 0u64;
        for code in 0..CODES as u32 {
            let counts = pattern_counts(code);
            if counts.iter().any(|&c| c > 2) {
                continue;
            }
            pattern_base[code as usize] = next as u32;
            patterns.push((code, next as u32));
            let on_board = counts.iter().sum::<u32>() + counts[2];
            next += (1u64 << on_board) * hand_states(counts) as u64;
        }
        Indexer {
            slots,
            classes,
            pattern_base,
            patterns,
            rest: next,
        }
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

    /// The number of `board` within its class, in the class's orientation (lions on the class's squares).
    fn rest_of(&self, board: &Board) -> u64 {
        let lions = board.lion(Owner::Us).bit() | board.lion(Owner::Them).bit();
        let mut code = 0u32;
        let mut owners = 0u32;
        let mut promotions = 0u32;
        let mut pieces = 0u32;
        let mut chicks = 0u32;
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
        let hands = hand_states(counts);
        let hand = board.hand(Owner::Us, HandKind::Giraffe) as u32
            + (3 - counts[0])
                * (board.hand(Owner::Us, HandKind::Elephant) as u32
                    + (3 - counts[1]) * board.hand(Owner::Us, HandKind::Chick) as u32);
        let label = owners | promotions << pieces;
        self.pattern_base[code as usize] as u64 + label as u64 * hands as u64 + hand as u64
    }

    /// The index of a position of the table, and whether `board` is in the orientation that [`Indexer::decode`]
    /// gives back (always true for a board equal to its mirror image). `None` if it is not in the table.
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
    pub fn encode(&self, board: &Board) -> Option<Index> {
        self.encode_oriented(board).map(|(index, _)| index)
    }

    /// The position numbered `index`, or `None` for a hole (the mirror image of a position with a smaller index).
    pub fn decode(&self, index: Index) -> Option<Board> {
        let class = (index / self.rest) as usize;
        let rest = index % self.rest;
        let [ours, theirs] = *self.classes.get(class)?;
        let at = self
            .patterns
            .partition_point(|&(_, base)| base as u64 <= rest)
            - 1;
        let (code, base) = self.patterns[at];
        let counts = pattern_counts(code);
        let hands = hand_states(counts) as u64;
        let offset = rest - base as u64;
        let (mut label, mut hand) = ((offset / hands) as u32, (offset % hands) as u32);
        let pieces: u32 = counts.iter().sum();
        let mut promotions = label >> pieces;
        let mut cells = [Cell::EMPTY; 12];
        cells[ours.index()] = Cell::new(Owner::Us, Kind::Lion);
        cells[theirs.index()] = Cell::new(Owner::Them, Kind::Lion);
        let mut free = 0;
        for sq in Square::ALL {
            if sq == ours || sq == theirs {
                continue;
            }
            let digit = (code >> (2 * free)) & 3;
            free += 1;
            if digit == 0 {
                continue;
            }
            let owner = if label & 1 == 0 {
                Owner::Us
            } else {
                Owner::Them
            };
            label >>= 1;
            let kind = match digit {
                1 => Kind::Giraffe,
                2 => Kind::Elephant,
                _ => {
                    let hen = promotions & 1 == 1;
                    promotions >>= 1;
                    if hen { Kind::Hen } else { Kind::Chick }
                }
            };
            cells[sq.index()] = Cell::new(owner, kind);
        }
        let mut our_hand = [0u8; 3];
        for (k, slot) in our_hand.iter_mut().enumerate() {
            let states = 3 - counts[k];
            *slot = (hand % states) as u8;
            hand /= states;
        }
        let their_hand = [0, 1, 2].map(|k| (2 - counts[k]) as u8 - our_hand[k]);
        let board = Board::from_parts(cells, [our_hand, their_hand])
            .expect("the index holds full material");
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
