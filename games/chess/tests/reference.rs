//! The solved tables against outside facts: the Syzygy WDL tables position by position (shakmaty-syzygy, a
//! dev-dependency), the Syzygy generator's statistics (counts per side to move; depth histograms where DTZ = DTM),
//! and the known longest mates. Also the engine's local certificate on every table solved.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use retro_chess::solve::solve_tree;
use retro_chess::{ChessGame, Color, Material, TableSet};
use retro_engine::{PlayConvention, SolveOptions};
use retro_game::{Game, Outcome, Value};
use shakmaty::{CastlingMode, Chess, fen::Fen};
use shakmaty_syzygy::{Tablebase, Wdl};

/// The statistics of one material and side to move, as the Syzygy generator printed them.
#[derive(Default, Debug, PartialEq, Eq)]
struct SideStats {
    wins: u64,
    draws: u64,
    losses: u64,
    /// plies -> positions, for wins and losses.
    win_plies: BTreeMap<u32, u64>,
    loss_plies: BTreeMap<u32, u64>,
}

fn reference_stats() -> BTreeMap<(String, Color), SideStats> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy-stats-subset.txt"),
    )
    .expect("reference statistics are copied into tests/data");
    let mut out: BTreeMap<(String, Color), SideStats> = BTreeMap::new();
    let mut material = String::new();
    let mut side = Color::White;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if line.starts_with("##########") {
            material = words[1].to_string();
        } else if line.starts_with("White to move") {
            side = Color::White;
        } else if line.starts_with("Black to move") {
            side = Color::Black;
        } else if words.len() >= 4 && words[1] == "positions" {
            let n: u64 = words[0].parse().unwrap();
            let s = out.entry((material.clone(), side)).or_default();
            match (words[2], words[3]) {
                ("are", "wins.") => s.wins = n,
                ("are", "draws.") => s.draws = n,
                ("are", "losses.") => s.losses = n,
                ("win", "in") => {
                    s.win_plies.insert(words[4].parse().unwrap(), n);
                }
                ("lose", "in") => {
                    s.loss_plies.insert(words[4].parse().unwrap(), n);
                }
                _ => panic!("unexpected line {line:?}"),
            }
        }
    }
    out
}

/// KQvK, KRvK, KBvK, KNvK, KPvK and KRvKR, solved once for all tests of this file.
fn solve_all() -> &'static TableSet {
    static TABLES: OnceLock<TableSet> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut tables = TableSet::new();
        let options = SolveOptions::default();
        for name in ["KPvK", "KRvKR"] {
            solve_tree(
                Material::parse(name).unwrap(),
                &mut tables,
                &options,
                |s, _| {
                    eprintln!(
                        "{}: {} indices, {} positions, {:?}",
                        s.material, s.size, s.positions, s.elapsed
                    )
                },
            )
            .unwrap();
        }
        tables
    })
}

fn our_stats(tables: &TableSet, material: Material) -> BTreeMap<Color, SideStats> {
    let (index, values) = tables.get(material).unwrap();
    let mut out: BTreeMap<Color, SideStats> = BTreeMap::new();
    for i in 0..index.size() {
        let Some(v) = values.value(i) else { continue };
        let pos = index.position(i).expect("a value only for positions");
        let s = out.entry(pos.turn()).or_default();
        match (v.outcome(), v.plies()) {
            (Outcome::Win, Some(p)) => {
                s.wins += 1;
                *s.win_plies.entry(p).or_default() += 1;
            }
            (Outcome::Loss, Some(p)) => {
                s.losses += 1;
                *s.loss_plies.entry(p).or_default() += 1;
            }
            _ => s.draws += 1,
        }
    }
    out
}

#[test]
fn tables_agree_with_syzygy_and_the_literature() {
    let tables = solve_all();
    let reference = reference_stats();
    let mut syzygy = Tablebase::<Chess>::new();
    syzygy
        .add_directory(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data"))
        .unwrap();

    for name in ["KQvK", "KRvK", "KPvK", "KRvKR"] {
        let material = Material::parse(name).unwrap();
        let (index, values) = tables.get(material).unwrap();

        // Every position, against the Syzygy WDL table. A symmetric material stores White to move only: its
        // Black-to-move twin (colours exchanged) is probed through the index too.
        let mut compared = 0;
        for i in 0..index.size() {
            let Some(pos) = index.position(i) else {
                assert_eq!(values.value(i), None, "{name} index {i} is a hole");
                continue;
            };
            let ours = values.value(i).expect("a position has a value").outcome();
            let mut probed = vec![pos];
            if material.is_symmetric() {
                assert_eq!(pos.turn(), Color::White, "{name}: {}", pos.fen());
                let twin = pos.color_flipped();
                assert_eq!(index.encode(&twin), Some(i), "{name}: {}", twin.fen());
                probed.push(twin);
            }
            for pos in probed {
                let chess: Chess = pos
                    .fen()
                    .parse::<Fen>()
                    .unwrap()
                    .into_position(CastlingMode::Standard)
                    .or_else(shakmaty::PositionError::ignore_impossible_check)
                    .unwrap();
                // WDL with the halfmove clock at zero, from the .rtbw files alone; the 50-move rule is ignored.
                let theirs = match syzygy.probe_wdl_after_zeroing(&chess).unwrap() {
                    Wdl::Win | Wdl::CursedWin => Outcome::Win,
                    Wdl::Draw => Outcome::Draw,
                    Wdl::Loss | Wdl::BlessedLoss => Outcome::Loss,
                };
                assert_eq!(ours, theirs, "{name}: {}", pos.fen());
            }
            compared += 1;
        }

        // Counts per side to move, exactly; depth histograms where DTZ = DTM (the defender has a bare king and
        // there are no pawns).
        let ours = our_stats(tables, material);
        for side in [Color::White, Color::Black] {
            let theirs = &reference[&(name.to_string(), side)];
            // Black to move in a symmetric material is White to move with the colours exchanged.
            let mine = &ours[&if material.is_symmetric() {
                Color::White
            } else {
                side
            }];
            assert_eq!(
                (mine.wins, mine.draws, mine.losses),
                (theirs.wins, theirs.draws, theirs.losses),
                "{name} {side:?} to move"
            );
            if name == "KQvK" || name == "KRvK" {
                assert_eq!(
                    mine.win_plies, theirs.win_plies,
                    "{name} {side:?} wins by plies"
                );
                assert_eq!(
                    mine.loss_plies, theirs.loss_plies,
                    "{name} {side:?} losses by plies"
                );
            }
        }
        assert_eq!(
            compared,
            ours.values()
                .map(|s| s.wins + s.draws + s.losses)
                .sum::<u64>()
        );

        // The longest mates known from the literature, in plies.
        let longest = |side: Color, outcome: Outcome| {
            let s = &ours[&side];
            let m = if outcome == Outcome::Win {
                &s.win_plies
            } else {
                &s.loss_plies
            };
            m.keys().max().copied()
        };
        let expected = match name {
            "KQvK" => Some((19, 20)),
            "KRvK" => Some((31, 32)),
            "KPvK" => Some((55, 56)),
            _ => None,
        };
        if let Some((win, loss)) = expected {
            assert_eq!(longest(Color::White, Outcome::Win), Some(win), "{name}");
            assert_eq!(longest(Color::Black, Outcome::Loss), Some(loss), "{name}");
        }

        // The local certificate: every value is what its moves give.
        let game = ChessGame::new(material, tables).unwrap();
        let checked =
            retro_engine::certify(&game, PlayConvention::Normal, |i| values.value(i)).unwrap();
        assert_eq!(checked, compared);
    }
}

#[test]
fn kvk_exits_are_draws_and_mates_are_terminal() {
    let tables = solve_all();
    // White to move mates at once: Ra8#.
    let pos = retro_chess::Position::from_fen("6k1/8/6K1/8/8/8/8/R7 w - - 0 1").unwrap();
    assert_eq!(tables.probe(&pos), Some(Value::win(1)));
    let mated = retro_chess::Position::from_fen("R5k1/8/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    assert_eq!(tables.probe(&mated), Some(Value::loss(0)));
    let stalemate = retro_chess::Position::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    assert_eq!(tables.probe(&stalemate), Some(Value::DRAW));
    // KRvKR where the side to move just takes the rook: it reaches KRvK, a win for it... from the other side.
    let takes = retro_chess::Position::from_fen("8/8/8/8/8/2k5/8/r1R1K3 b - - 0 1").unwrap();
    assert!(matches!(tables.probe(&takes), Some(v) if v.outcome() == Outcome::Win));
    let game = ChessGame::new(Material::parse("KRvK").unwrap(), tables).unwrap();
    assert!(game.max_moves() >= 22);
}
