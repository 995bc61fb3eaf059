//! Connect Four as a retro family: `retro generate connect4 6x5`.
//!
//! A variant is a board size; its tables are its tiers, one per number of stones, named `WxH-KK` (`6x5-07`).
//! Each tier's exits read the tier of one stone more, so [`Family::tables`] lists the full board first and the
//! empty board last. Every board of a tier that is no hole is stored in it, finished games included: [`locate`]
//! never answers `Known`.
//!
//! [`locate`]: Family::locate

use std::fmt;

use retro_family::{
    About, Blocks, Family, Flags, Game, Index, Location, Node, Payloads, Played, Rates, SubTables,
};

use crate::board::{Board, MAX_SIDE, MIN_SIDE, Shape};
use crate::game::TierGame;
use crate::index::Layout;
use crate::notation::{self, Column};

/// Names the index layout in each table's header, so that tables of another layout are refused.
pub const INDEX_LAYOUT: &str = "retro-connect4-1: tier of k stones; rank of the column heights (lexicographic, \
                                column 1 most significant) * C(k, ceil(k/2)) + rank of x's stones among the k in \
                                column-major bottom-to-top order (combinatorial number system); no symmetry folded";

/// The size above which a tier is large, and the zstd level of its WDL file (see [`ConnectFour::blocks`]).
const LARGE_TIER: u64 = 1 << 24;
const LARGE_TIER_WDL_LEVEL: i32 = 9;

/// The family: Connect Four on boards of 4 to 7 columns and rows.
pub struct ConnectFour;

/// One table: the boards of one size with `stones` stones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tier {
    pub shape: Shape,
    pub stones: u8,
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{:02}", self.shape, self.stones)
    }
}

impl Family for ConnectFour {
    type Variant = Shape;
    type Table = Tier;
    type Position = Board;
    type Move = Column;
    type Game<'a> = TierGame<'a>;

    fn about(&self) -> About {
        About {
            name: "connect4",
            summary: "Connect Four: four in a row on boards of 4 to 7 columns and rows, x first",
            variants: "WxH (4 ≤ W, H ≤ 7), e.g. 6x5",
            example_variant: "6x5",
            example_position: "6x5:4453",
            position_key: "position",
            move_key: "move",
        }
    }

    fn parse_variant(&self, words: &[String], flags: &Flags) -> Result<Shape, String> {
        flags.refuse_all("connect4")?;
        match words {
            [word] => Shape::parse(word),
            [] => Err("connect4 takes a board size WxH, like 6x5".into()),
            _ => Err(format!(
                "connect4 takes one board size WxH, not {:?}",
                words.join(" ")
            )),
        }
    }

    /// Every board of at most `n` cells, smallest first.
    fn all(&self, n: u32) -> Result<Vec<Shape>, String> {
        let (min, max) = (u32::from(MIN_SIDE).pow(2), u32::from(MAX_SIDE).pow(2));
        if !(min..=max).contains(&n) {
            return Err(format!(
                "--all takes a number of cells from {min} to {max}, not {n}"
            ));
        }
        let mut shapes: Vec<Shape> = (MIN_SIDE..=MAX_SIDE)
            .flat_map(|w| (MIN_SIDE..=MAX_SIDE).map(move |h| (w, h)))
            .filter_map(|(w, h)| Shape::new(w, h).ok())
            .filter(|s| s.cells() <= n)
            .collect();
        shapes.sort_by_key(|s| (s.cells(), *s));
        Ok(shapes)
    }

    fn tables(&self, shape: &Shape) -> Vec<Tier> {
        (0..=shape.cells() as u8)
            .rev()
            .map(|stones| Tier {
                shape: *shape,
                stones,
            })
            .collect()
    }

    fn dependencies(&self, tier: &Tier) -> Vec<Tier> {
        if u32::from(tier.stones) < tier.shape.cells() {
            vec![Tier {
                stones: tier.stones + 1,
                ..*tier
            }]
        } else {
            Vec::new()
        }
    }

    fn table_name(&self, tier: &Tier) -> String {
        tier.to_string()
    }

    fn params(&self, tier: &Tier) -> Vec<(String, String)> {
        vec![
            ("board".into(), tier.shape.to_string()),
            ("stones".into(), tier.stones.to_string()),
            ("index".into(), INDEX_LAYOUT.into()),
        ]
    }

    /// A tier has one player to move: `x` with an even number of stones.
    fn sides(&self, tier: &Tier) -> Vec<&'static str> {
        vec![if tier.stones.is_multiple_of(2) {
            "x"
        } else {
            "o"
        }]
    }

    /// A tier of more than 2^24 boards has its WDL file at zstd level 9: at level 19, writing a 7x4 tier took as
    /// long as solving it. On 5x5, level 9 made the WDL files 6.7 % larger (10.13 MB against 9.49 MB) and the
    /// build 14 % faster (33.7 s against 39.2 s); level 3 was 13 % larger for 1.4 s more saved. `--compact` keeps
    /// level 19.
    fn blocks(&self, tier: &Tier) -> Blocks {
        let large = Layout::of(tier.shape).tier_size(u32::from(tier.stones)) > LARGE_TIER;
        Blocks {
            wdl_level: large.then_some(LARGE_TIER_WDL_LEVEL),
            ..Blocks::default()
        }
    }

    fn rates(&self, _: &Tier) -> Rates {
        // 5x5, its 26 tiers (172 M indices): 33.6 s with 2 threads, 34.9 MB of files (2026-12-02).
        Rates {
            indices_per_second: 2.56e6,
            file_bytes_per_index: 0.20,
        }
    }

    fn game<'a>(
        &'a self,
        tier: &Tier,
        sub: &'a SubTables<'a, Tier>,
    ) -> Result<TierGame<'a>, String> {
        let next = match self.dependencies(tier).first() {
            Some(next) => Some(sub.need(next, || self.table_name(next))?),
            None => None,
        };
        let layout = Layout::of(tier.shape);
        Ok(TierGame::new(
            layout,
            u32::from(tier.stones),
            next,
            sub.longest_plies(),
        ))
    }

    fn parse_position(&self, text: &str, _: &dyn Payloads) -> Result<Board, String> {
        notation::parse(text)
    }

    fn show_position(&self, board: &Board) -> String {
        notation::show(board)
    }

    fn diagram(&self, board: &Board) -> String {
        notation::diagram(board)
    }

    fn locate(&self, board: &Board) -> Result<Location<Tier>, String> {
        let tier = Tier {
            shape: board.shape(),
            stones: board.stones() as u8,
        };
        Ok(Location::Stored {
            table: tier,
            index: Layout::of(board.shape()).encode(board),
        })
    }

    fn position(&self, game: &TierGame<'_>, index: Index) -> Option<Board> {
        if index >= game.size() {
            return None;
        }
        let board = game.board(index);
        (board.node() != Node::Hole).then_some(board)
    }

    fn moves(&self, board: &Board) -> Vec<(Column, Played<Board>)> {
        if board.is_over() {
            return Vec::new();
        }
        (0..board.shape().width())
            .filter(|&c| board.can_play(c))
            .map(|c| (Column(c as u8), Played::Position(board.play(c))))
            .collect()
    }

    fn start(&self, shape: &Shape) -> Option<Board> {
        Some(Board::empty(*shape))
    }

    fn flags(&self, board: &Board) -> Vec<(&'static str, bool)> {
        vec![("game_over", board.is_over())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_large_tiers_take_the_faster_wdl_level() {
        let shape = Shape::new(6, 5).unwrap();
        let tier = |stones| Tier { shape, stones };
        // 6x5: tier 25 has 1.3e9 boards, tier 3 has 1,120.
        assert_eq!(ConnectFour.blocks(&tier(25)).wdl_level, Some(9));
        assert_eq!(ConnectFour.blocks(&tier(3)).wdl_level, None);
        assert_eq!(ConnectFour.blocks(&tier(3)), Blocks::default());
    }
}
