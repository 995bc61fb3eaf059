//! Chess endgames as a retro family: `retro generate chess KQvKR`.
//!
//! A variant is a material, named stronger side first (`KQvKR`; either side may be written first). It is one table,
//! `DIR/chess/KQvKR.*`, numbered by [`TableIndex`]: side to move, king pair, then the other pieces; a symmetric
//! material (`KRvKR`) stores White to move only. A table depends on the tables its captures and promotions reach
//! (KvK, all draws, is no table). Positions with en-passant rights are solved with the table (see [`crate::ep`])
//! but not stored: the driver values them by searching their moves ([`Location::Search`]).

use retro_family::{
    About, Blocks, Family, Flags, Index, Location, Payloads, Played, Rates, SubTables, Value,
};

use crate::game::ChessGame;
use crate::index::TableIndex;
use crate::material::{MAX_MEN, Material};
use crate::position::{ChessMove, MoveList, Position};
use crate::types::Color;

/// The index layout that FORMAT.md (*Chess tables*) describes: side to move, king pair (462 without pawns,
/// left-right mirror with pawns), piece groups as combinations of 62 squares (48 for pawns). It is the first layout,
/// and a header without the parameter `index` has it: tables are written without the parameter, whose 14 bytes were
/// a sixth of the smallest files (KNvK's WDL file took 87 bytes against Syzygy's 80). Tables written in early
/// December 2026 name it (parameter `index` = this name); a later layout must name itself, and a reader refuses a
/// name it does not know.
pub const INDEX_LAYOUT: &str = "chess-1";

/// A symmetric material's layout: [`INDEX_LAYOUT`], White to move only.
pub const WHITE_ONLY_LAYOUT: &str = "chess-1 white to move";

/// How tables written before the short names above named the same two layouts (they also wrote the material, which
/// the header's table name already says). They stay readable.
const LEGACY_LAYOUT: &str = "retro-chess-1: side to move, king pair (462 without pawns, left-right mirror with \
                             pawns), piece groups as combinations of 62 squares (48 for pawns)";
const LEGACY_WHITE_ONLY: &str = "; symmetric material: White to move only";

/// The index layout of a material's table.
pub fn index_layout(material: Material) -> &'static str {
    if material.is_symmetric() {
        WHITE_ONLY_LAYOUT
    } else {
        INDEX_LAYOUT
    }
}

/// Whether `written`, a header's `index` parameter, names the layout of `material`'s table, in either spelling.
fn names_layout(material: Material, written: &str) -> bool {
    if written == index_layout(material) {
        return true;
    }
    match written.strip_prefix(LEGACY_LAYOUT) {
        Some("") => !material.is_symmetric(),
        Some(LEGACY_WHITE_ONLY) => material.is_symmetric(),
        _ => false,
    }
}

/// Tables of at least this many men (3.49 · 10^7 indices or more, where four men take at most 1.07 · 10^7) write
/// their WDL file at [`LARGE_WDL_LEVEL`].
const LARGE_TABLE_MEN: u32 = 5;

/// The zstd level of a large table's WDL file (`--compact` keeps the strongest). Level 19 took a third of KRPvKR's
/// build (666 M indices, 2 threads, 2-core Intel Xeon: solved in 97 s, written in 38 s). Rewriting its files took
/// 58.2 s with the WDL blocks at level 19, 46.4 s at 18, 41.6 s at 17, 37.9 s at 15, for a WDL file of 9.77, 10.47,
/// 10.59 and 12.10 MB (Syzygy's: 16.38 MB); KQRvKR's grows from 135,933 bytes to 143,686 at level 17.
const LARGE_WDL_LEVEL: i32 = 17;

/// The zstd level of the heavy blocks of a large table's WDL file (`retro_table::WriteOptions::heavy_wdl_level`),
/// where its bytes are: zstd's strongest. Rewriting with one thread (`retro repack`), against every block at
/// [`LARGE_WDL_LEVEL`]: KBNvKQ's WDL file 1,239,540 → 1,143,341 bytes (Syzygy's: 1,054,544) in 23.4 s instead of
/// 18.5 with heavy blocks at level 19; KBBvKR's 669,276 → 621,781 in 7.3 s instead of 5.5; KRBvKB's 941,879 →
/// 857,334. Level 22 instead of 19 (with the fill by side) takes 3-5% more off, for a third to two thirds more
/// rewriting time: KBNvKQ 1,018,292 → 981,733 bytes (24.9 → 31.7 s), KBBvKB 356,710 → 337,248 (7.2 → 12.3 s; Syzygy's:
/// 351,824), KBBvKR 621,781 → 609,462 (574,864), KBNvKR 1,058,757 → 1,015,586, KRBvKB 857,334 → 823,822. KQRvKR's
/// blocks are all light: the same bytes.
const HEAVY_WDL_LEVEL: i32 = 22;

/// Values per WDL block of a large table: the most a reader takes. A larger block gives zstd more of the table to match
/// against, which brings the last five-man WDL files under Syzygy's (one side to move, blocks of 2^22 values against
/// 2^24, Syzygy's: KBBvKR 609,462 and 567,605, 574,864; KNNNvK 101,486 and 80,025, 85,712; KRRvKQ 4,163,898 and
/// 4,007,598, 4,068,432; blocks of 2^23 values leave KNNNvK at 113,818). Not every file shrinks: KQQvKQ's grows from
/// 486,062 to 572,469 bytes (Syzygy's: 666,832), KRBvKB's from 823,822 to 829,492. A probe whose block is not cached
/// decompresses 4 MiB instead of 1 MiB (KBBvKR: 0.54 ms instead of 0.10 ms), but the whole table costs the same to
/// decompress whatever the blocks, and a cache holds a large table's few blocks as well as its many. Writing KQRvKR's
/// files (`retro repack`, one thread) took 6.7 s with blocks of 2^22 values, 7.0 s with 2^24.
const LARGE_WDL_VALUES: u32 = 1 << 24;

/// Chess endgames of up to [`MAX_MEN`] men.
pub struct Chess;

/// A move, written in UCI (`e7e8q`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uci(pub ChessMove);

impl std::fmt::Display for Uci {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.uci())
    }
}

fn parse_material(word: &str) -> Result<Material, String> {
    Material::parse(word).map_err(|e| e.to_string())
}

impl Family for Chess {
    type Variant = Material;
    type Table = Material;
    type Position = Position;
    type Move = Uci;
    type Game<'a> = ChessGame<'a>;

    fn about(&self) -> About {
        About {
            name: "chess",
            summary: "chess endgames of up to 6 men, depth to mate",
            variants: "MATERIAL, like KQvKR (either side first), or --all N for every material of 3 to N men",
            example_variant: "KRvK",
            example_position: "8/8/8/8/8/8/2Rk4/1K6 b - - 0 1",
            position_key: "fen",
            move_key: "uci",
        }
    }

    fn parse_variant(&self, words: &[String], flags: &Flags) -> Result<Material, String> {
        flags.refuse_all("chess")?;
        match words {
            [word] => Ok(parse_material(word)?.canonical()),
            [] => Err("chess takes a material, like KQvKR".into()),
            _ => Err(format!(
                "chess takes one material, not {:?}",
                words.join(" ")
            )),
        }
    }

    fn all(&self, n: u32) -> Result<Vec<Material>, String> {
        match n {
            3..=MAX_MEN => Ok((3..=n).flat_map(Material::all_with_men).collect()),
            _ => Err(format!("--all takes 3 to {MAX_MEN} (men), not {n}")),
        }
    }

    fn tables(&self, variant: &Material) -> Vec<Material> {
        vec![*variant]
    }

    fn dependencies(&self, table: &Material) -> Vec<Material> {
        table
            .successors()
            .into_iter()
            .filter(|&m| m != Material::KVK)
            .map(|m| m.canonical())
            .collect()
    }

    fn table_name(&self, table: &Material) -> String {
        table.to_string()
    }

    fn params(&self, _table: &Material) -> Vec<(String, String)> {
        // No parameter: the layout is the first one (see `INDEX_LAYOUT`).
        Vec::new()
    }

    fn check_params(&self, table: &Material, params: &[(String, String)]) -> Result<(), String> {
        match params.iter().find(|(key, _)| key == "index") {
            None => Ok(()),
            Some((_, written)) if names_layout(*table, written) => Ok(()),
            Some((_, written)) => Err(format!(
                "written with index = {written:?}, this version reads {:?}",
                index_layout(*table)
            )),
        }
    }

    fn sides(&self, table: &Material) -> Vec<&'static str> {
        if table.is_symmetric() {
            vec!["white"]
        } else {
            vec!["white", "black"]
        }
    }

    fn side_of<'a>(&'a self, table: &Material) -> Box<dyn Fn(Index) -> usize + Sync + 'a> {
        let index = TableIndex::new(*table);
        Box::new(move |i| usize::from(index.turn_of(i) == Color::Black))
    }

    fn shown_sides(&self, words: &[String], table: &Material) -> Vec<&'static str> {
        let asked = words.first().and_then(|w| Material::parse(w).ok());
        if table.is_symmetric() {
            // The table stores White to move; Black to move is the same positions with the colours exchanged.
            vec!["white", "black"]
        } else if asked.is_some_and(|m| m != m.canonical()) {
            // Asked the other way round: "white" is the side written first.
            vec!["black", "white"]
        } else {
            vec!["white", "black"]
        }
    }

    fn blocks(&self, material: &Material) -> Blocks {
        // WDL blocks of 2^22 values (1 MiB decompressed): a 4-man table is one block, which compresses better than
        // two (KRvKR: 41.1 KB with 2^20, 37.6 KB with 2^22; Syzygy's is 12.9 KB). Up to 4 men, the blocks are tried
        // transposed too, which makes every WDL file smaller than Syzygy's: the 3- and 4-man set 796,412 → 625,057
        // bytes (Syzygy's 1,262,704; KRvKN 112,798 → 70,484, Syzygy's 100,048; KBBvK 92,513 → 24,865, Syzygy's
        // 58,000), at the cost of 37 s more of writing the set with 2 threads (repack: 11.2 → 48.4 s). The heaviest
        // candidates beside, one code a byte and a second compression with longer matches, made 0.1% of that
        // difference for as much time again, and level 22 1.9% for 43 s more: those stay `--compact`'s.
        let large = material.men() >= LARGE_TABLE_MEN;
        Blocks {
            wdl_values: Some(if large { LARGE_WDL_VALUES } else { 1 << 22 }),
            fast_distances: false,
            wdl_level: large.then_some(LARGE_WDL_LEVEL),
            heavy_wdl_level: large.then_some(HEAVY_WDL_LEVEL),
            transpose_wdl: !large,
        }
    }

    fn index_periods(&self, material: &Material) -> Vec<u64> {
        TableIndex::new(*material).row_lengths()
    }

    fn index_digits(&self, material: &Material) -> Vec<u64> {
        TableIndex::new(*material).radices()
    }

    fn wdl_floors(&self, _: &Material) -> bool {
        // Every reader of a chess WDL file (the prober, and through it the C and Python libraries and the server)
        // searches the captures and promotions of a position whose stored outcome is not a win; `retro probe` and
        // the builds read the distance file, which stays exact.
        true
    }

    fn rates(&self, _: &Material) -> Rates {
        // KQRvKR (220 M indices) with its sub-tables: 63.8 s with 2 threads, 48.8 MB of files (2026-12-02).
        Rates {
            indices_per_second: 1.73e6,
            file_bytes_per_index: 0.22,
        }
    }

    fn game<'a>(
        &'a self,
        table: &Material,
        sub: &'a SubTables<'a, Material>,
    ) -> Result<ChessGame<'a>, String> {
        ChessGame::with_values(*table, |m| sub.get(&m)).map_err(|e| e.to_string())
    }

    fn stored(&self, game: &ChessGame<'_>) -> Index {
        // The positions with en-passant rights, numbered after the index's, are solved with the table, not stored.
        game.index().size()
    }

    fn parse_position(&self, text: &str, _: &dyn Payloads) -> Result<Position, String> {
        let pos = Position::from_fen(text.trim()).map_err(|e| e.to_string())?;
        let men = Material::of(&pos).men();
        if men > MAX_MEN {
            return Err(format!(
                "illegal position for the tables: {men} men, at most {MAX_MEN} are supported"
            ));
        }
        Ok(pos)
    }

    fn show_position(&self, pos: &Position) -> String {
        pos.fen()
    }

    fn diagram(&self, pos: &Position) -> String {
        format!("{pos}\n")
    }

    fn locate(&self, pos: &Position) -> Result<Location<Material>, String> {
        let material = Material::of(pos);
        if material == Material::KVK {
            return Ok(Location::Known(Value::DRAW));
        }
        if pos.ep_square().is_some() {
            return Ok(Location::Search);
        }
        let table = material.canonical();
        let index = TableIndex::new(table)
            .encode(pos)
            .ok_or_else(|| format!("{}: not a position of the tables", pos.fen()))?;
        Ok(Location::Stored { table, index })
    }

    fn position(&self, game: &ChessGame<'_>, index: Index) -> Option<Position> {
        game.position(index)
    }

    fn side_ranges(&self, table: &Material) -> Vec<std::ops::Range<Index>> {
        // White to move, then Black; a symmetric material stores White to move only.
        let index = TableIndex::new(*table);
        let half = index.size() / index.sides();
        if index.sides() == 2 {
            vec![0..half, half..index.size()]
        } else {
            Vec::new()
        }
    }

    fn no_move_value(&self, pos: &Position) -> Option<Value> {
        // Checkmate is lost at once, stalemate drawn.
        Some(if pos.in_check(pos.turn()) {
            Value::loss(0)
        } else {
            Value::DRAW
        })
    }

    fn move_names(&self, pos: &Position, m: &Uci) -> Vec<(&'static str, String)> {
        vec![("san", crate::san::san(pos, &m.0))]
    }

    /// What lichess's tablebase API says of a position besides its value.
    fn flags(&self, pos: &Position) -> Vec<(&'static str, bool)> {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let in_check = pos.in_check(pos.turn());
        vec![
            ("checkmate", list.is_empty() && in_check),
            ("stalemate", list.is_empty() && !in_check),
            (
                "insufficient_material",
                crate::analysis::insufficient_material(pos),
            ),
        ]
    }

    fn moves(&self, pos: &Position) -> Vec<(Uci, Played<Position>)> {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        list.as_slice()
            .iter()
            .map(|m| (Uci(*m), Played::Position(pos.play(m))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_family::NoPayloads;
    use retro_family::contract;

    #[test]
    fn the_contract_holds_on_tables_with_and_without_pawns() {
        for name in ["KRvK", "KPvK", "KPvKP", "KRvKR"] {
            let variant = Chess
                .parse_variant(&[name.into()], &Flags::default())
                .unwrap();
            let checked = contract::check(&Chess, &variant, 3000, &NoPayloads)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(checked.positions > 1000, "{name}: {checked:?}");
        }
    }

    #[test]
    fn variants_are_materials_and_bad_ones_are_named() {
        let parse = |w: &[&str]| {
            Chess.parse_variant(
                &w.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                &Flags::default(),
            )
        };
        assert_eq!(parse(&["KRvKQ"]).unwrap().to_string(), "KQvKR");
        assert!(parse(&["KRQ"]).unwrap_err().contains("KRQ"));
        assert!(parse(&[]).is_err());
        assert!(parse(&["KQvK", "KRvK"]).is_err());
        let misere = Flags {
            misere: true,
            ..Flags::default()
        };
        assert_eq!(
            Chess.parse_variant(&["KRvK".into()], &misere).unwrap_err(),
            "--misere does not apply to chess"
        );
        assert!(Chess.all(7).is_err() && Chess.all(2).is_err());
        assert_eq!(Chess.all(3).unwrap().len(), 5);
        let kq = parse(&["KQvKR"]).unwrap();
        assert_eq!(
            Chess.shown_sides(&["KRvKQ".into()], &kq),
            vec!["black", "white"]
        );
    }

    #[test]
    fn positions_locate_in_their_canonical_table() {
        let pos = Chess
            .parse_position("8/8/8/8/8/8/2rK4/1k6 w - - 0 1", &NoPayloads)
            .unwrap();
        match Chess.locate(&pos).unwrap() {
            Location::Stored { table, .. } => assert_eq!(table.to_string(), "KRvK"),
            other => panic!("{other:?}"),
        }
        let err = Chess
            .parse_position("8/8/8/8/8/8/8/8 w - - 0 1", &NoPayloads)
            .unwrap_err();
        assert!(
            err.starts_with("illegal position") || err.starts_with("malformed"),
            "{err}"
        );
        let seven = Chess
            .parse_position("KQQQQQ2/8/8/8/8/8/8/7k w - - 0 1", &NoPayloads)
            .unwrap_err();
        assert!(seven.contains("7 men"), "{seven}");
    }

    #[test]
    fn only_large_tables_take_the_faster_wdl_level() {
        let levels = |name: &str| {
            let blocks = Chess.blocks(&Material::parse(name).unwrap());
            (blocks.wdl_level, blocks.heavy_wdl_level)
        };
        let large = (Some(LARGE_WDL_LEVEL), Some(HEAVY_WDL_LEVEL));
        assert_eq!(levels("KQRvKR"), large);
        assert_eq!(levels("KRPvKR"), large);
        assert_eq!(levels("KRvKR"), (None, None));
        assert_eq!(levels("KPvKP"), (None, None));
        // The men tell the sizes apart, as the constant's comment says.
        let sizes = |men| {
            Material::all_with_men(men)
                .into_iter()
                .map(|m| TableIndex::new(m).size())
        };
        assert!(sizes(4).all(|size| size <= 11_000_000));
        assert!(sizes(5).all(|size| size >= 34_000_000));
    }

    #[test]
    fn tables_of_every_spelling_of_their_layout_are_read_and_others_refused() {
        let params = |layout: &str| vec![("index".to_string(), layout.to_string())];
        let krvk = Material::parse("KRvK").unwrap();
        let krvkr = Material::parse("KRvKR").unwrap();
        for table in [krvk, krvkr] {
            // Written today: no parameter at all.
            assert_eq!(Chess.params(&table), Vec::new());
            assert_eq!(Chess.check_params(&table, &[]), Ok(()));
            // Written in early December 2026: the short name.
            assert_eq!(
                Chess.check_params(&table, &params(index_layout(table))),
                Ok(())
            );
        }
        // Tables written before the short names, with the material beside the layout.
        let legacy = |m: Material| {
            let mut written = params(&format!(
                "{LEGACY_LAYOUT}{}",
                if m.is_symmetric() {
                    LEGACY_WHITE_ONLY
                } else {
                    ""
                }
            ));
            written.push(("material".into(), m.to_string()));
            written
        };
        assert_eq!(Chess.check_params(&krvk, &legacy(krvk)), Ok(()));
        assert_eq!(Chess.check_params(&krvkr, &legacy(krvkr)), Ok(()));
        // A layout of the other kind of material, in either spelling, another layout, or none at all.
        assert!(Chess.check_params(&krvk, &legacy(krvkr)).is_err());
        assert!(Chess.check_params(&krvkr, &legacy(krvk)).is_err());
        assert!(
            Chess
                .check_params(&krvk, &params(WHITE_ONLY_LAYOUT))
                .is_err()
        );
        assert!(Chess.check_params(&krvkr, &params(INDEX_LAYOUT)).is_err());
        let other = Chess.check_params(&krvk, &params("chess-2")).unwrap_err();
        assert!(other.contains("chess-2"), "{other}");
    }
}
