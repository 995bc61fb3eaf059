//! Dobutsu shogi as a retro family: `retro generate dobutsu`.
//!
//! One variant, one table (`DIR/dobutsu/dobutsu.*`), numbered by [`DobutsuGame`]'s index: positions seen from the
//! player to move, mirror-folded. Positions the table leaves out (won in 1, the lions side by side, a lion on its far
//! rank after its owner's move) are valued from the board ([`known_value`]). Moves are written in absolute squares:
//! `b1b2` for a step (promotion is automatic), `C*b2` for a drop.

use retro_family::{
    About, Blocks, Family, Flags, Index, Location, Payloads, Played, Rates, SubTables, Value,
};

use crate::analysis::{
    Counts, Reachable, Stop, check_positions, outside_table_counts, table_counts,
};
use crate::game::{DobutsuGame, known_value};
use crate::notation::{self, Move, Position};
use crate::types::Side;

/// Dobutsu shogi, the whole game.
pub struct Dobutsu;

/// The one variant and the one table of Dobutsu.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Whole;

impl std::fmt::Display for Whole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dobutsu")
    }
}

/// The positions [`check_values`](Family::check_values) plays by the rules on the board.
const CHECKED_POSITIONS: u64 = 1_000_000;

impl Family for Dobutsu {
    type Variant = Whole;
    type Table = Whole;
    type Position = Position;
    type Move = Move;
    type Game<'a> = DobutsuGame;

    fn about(&self) -> About {
        About {
            name: "dobutsu",
            summary: "Dobutsu shogi (3x4 board, lions, giraffes, elephants, chicks), the whole game",
            variants: "",
            example_variant: "",
            example_position: "gle/1c1/1C1/ELG b -",
            position_key: "position",
            move_key: "move",
        }
    }

    fn parse_variant(&self, words: &[String], flags: &Flags) -> Result<Whole, String> {
        flags.refuse_all("dobutsu")?;
        match words {
            // `dobutsu dobutsu` names the table as earlier versions did.
            [] => Ok(Whole),
            [word] if word == "dobutsu" => Ok(Whole),
            _ => Err(format!(
                "dobutsu has one variant and takes no words, not {:?}",
                words.join(" ")
            )),
        }
    }

    fn tables(&self, _: &Whole) -> Vec<Whole> {
        vec![Whole]
    }

    fn dependencies(&self, _: &Whole) -> Vec<Whole> {
        Vec::new()
    }

    fn table_name(&self, _: &Whole) -> String {
        "dobutsu".into()
    }

    fn params(&self, _: &Whole) -> Vec<(String, String)> {
        let indexer = DobutsuGame::new();
        let indexer = indexer.indexer();
        vec![
            ("convention".into(), "normal".into()),
            (
                "rules".into(),
                "lion capture or an unattacked lion on the far rank after its owner's move wins"
                    .into(),
            ),
            (
                "index".into(),
                format!(
                    "mover's view, mirror-folded: {} lion classes x {}",
                    indexer.classes(),
                    indexer.rest_size()
                ),
            ),
        ]
    }

    fn blocks(&self, _: &Whole) -> Blocks {
        // The WDL file at zstd level 15 rather than 19: its 318 blocks took 9.0 s of one core instead of 19.6 s
        // (the zstd tool, 2026-12-04; level 17: 13.7 s). The build's write went from 13.3 s to 8.2 s with 2
        // threads, and the file from 11,534,036 to 11,740,634 bytes (1.8% larger). `--compact` keeps the
        // strongest level.
        Blocks {
            wdl_level: Some(15),
            ..Blocks::default()
        }
    }

    fn rates(&self, _: &Whole) -> Rates {
        // The whole game (333 M indices): 47.9 to 50.5 s with 2 threads, 77.8 MB of files (2026-12-05, moves counted
        // without encoding their targets; 64.7 s on 2026-12-04, 78.1 s and 97.9 MB on 2026-12-02 on another machine
        // of the kind).
        Rates {
            indices_per_second: 3.3e6,
            file_bytes_per_index: 0.23,
        }
    }

    fn game<'a>(
        &'a self,
        _: &'a Whole,
        _: &'a SubTables<'a, Whole>,
    ) -> Result<DobutsuGame, String> {
        Ok(DobutsuGame::new())
    }

    fn parse_position(&self, text: &str, _: &dyn Payloads) -> Result<Position, String> {
        text.parse()
            .map_err(|e: notation::NotationError| format!("position {:?}: {e}", text.trim()))
    }

    fn show_position(&self, position: &Position) -> String {
        position.to_string()
    }

    fn diagram(&self, position: &Position) -> String {
        position.diagram()
    }

    fn locate(&self, position: &Position) -> Result<Location<Whole>, String> {
        if let Some(value) = known_value(position.board()) {
            return Ok(Location::Known(value));
        }
        // The index is shared by every Dobutsu position: build it once.
        static GAME: std::sync::OnceLock<DobutsuGame> = std::sync::OnceLock::new();
        let game = GAME.get_or_init(DobutsuGame::new);
        match game.indexer().encode(position.board()) {
            Some(index) => Ok(Location::Stored {
                table: Whole,
                index,
            }),
            None => Err(format!("{position}: not a position of the table")),
        }
    }

    fn position(&self, game: &DobutsuGame, index: Index) -> Option<Position> {
        let board = game.indexer().decode(index)?;
        // Positions won in 1 have an index but are holes of the table.
        known_value(&board)
            .is_none()
            .then(|| Position::new(Side::Sente, board))
    }

    fn moves(&self, position: &Position) -> Vec<(Move, Played<Position>)> {
        if position.board().try_lost() {
            return Vec::new();
        }
        position
            .legal_moves()
            .into_iter()
            .map(|mv| {
                let played = match position.play(mv) {
                    notation::Played::Won => Played::Over(Value::loss(0)),
                    notation::Played::Continues(next) => Played::Position(next),
                };
                (mv, played)
            })
            .collect()
    }

    fn start(&self, _: &Whole) -> Option<Position> {
        Some(Position::startpos())
    }

    fn flags(&self, position: &Position) -> Vec<(&'static str, bool)> {
        vec![("game_over", position.board().try_lost())]
    }

    fn images(&self, position: &Position) -> u64 {
        if position.board().mirror() == *position.board() {
            1
        } else {
            2
        }
    }

    fn census(
        &self,
        _: &Whole,
        values: &(dyn Fn(&Whole, Index) -> Option<Value> + Sync),
    ) -> Option<Result<Vec<(String, String)>, String>> {
        // The search over the complete numbering (every legal position, in the table or not) with its bit planes:
        // more than half the positions reached are won in 1 and outside the table.
        let game = DobutsuGame::new();
        let indexer = game.indexer();
        let value = |i: Index| values(&Whole, i);
        let start = Position::startpos();
        let mut entries = Vec::new();
        for (prefix, stop) in [
            ("reachable", Stop::GameOver),
            // The convention of the published count: a position whose mover can capture the lion is counted, not
            // expanded.
            ("published", Stop::LionCapturable),
        ] {
            let reachable = Reachable::search_from(indexer, start.board(), stop, &|_, _| {});
            let counts = reachable.counts(indexer, value);
            entries.extend(count_entries(prefix, &counts));
            entries.push((format!("{prefix}_depth"), reachable.depth.to_string()));
            entries.push((
                format!("{prefix}_with_side"),
                reachable.with_side.to_string(),
            ));
        }
        let legal = table_counts(indexer, value).merge(outside_table_counts());
        entries.extend(count_entries("legal", &legal));
        Some(Ok(entries))
    }

    fn check_values(
        &self,
        _: &Whole,
        values: &(dyn Fn(Index) -> Option<Value> + Sync),
    ) -> Result<(), String> {
        // A million random legal positions played by the rules on the board, which also checks the positions the
        // table does not store.
        let game = DobutsuGame::new();
        check_positions(game.indexer(), values, CHECKED_POSITIONS, 0x5eed)
    }
}

/// `prefix_positions`, `prefix_win`, ... as census entries.
fn count_entries(prefix: &str, c: &Counts) -> Vec<(String, String)> {
    [
        ("positions", c.positions),
        ("unfolded", c.unfolded()),
        ("win", c.wins),
        ("draw", c.draws),
        ("loss", c.losses),
        ("longest_win", u64::from(c.longest_win)),
        ("longest_loss", u64::from(c.longest_loss)),
    ]
    .into_iter()
    .map(|(k, v)| (format!("{prefix}_{k}"), v.to_string()))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_family::{NoPayloads, contract};

    #[test]
    fn the_contract_holds_on_a_sample() {
        let checked = contract::check(&Dobutsu, &Whole, 20_000, &NoPayloads).unwrap();
        assert!(checked.positions > 1000, "{checked:?}");
    }

    #[test]
    fn the_variant_and_positions_read_and_bad_ones_are_named() {
        assert_eq!(Dobutsu.parse_variant(&[], &Flags::default()), Ok(Whole));
        assert!(
            Dobutsu
                .parse_variant(&["4x4".into()], &Flags::default())
                .is_err()
        );
        let start = Dobutsu.parse_position("startpos", &NoPayloads).unwrap();
        assert_eq!(Dobutsu.show_position(&start), "gle/1c1/1C1/ELG b -");
        assert!(matches!(
            Dobutsu.locate(&start),
            Ok(Location::Stored { .. })
        ));
        let bad = Dobutsu
            .parse_position("gle/1c1/1C1 b -", &NoPayloads)
            .unwrap_err();
        assert!(bad.starts_with("position \"gle/1c1/1C1 b -\": "), "{bad}");
    }
}
