//! Move generation agrees with shakmaty (the oracle, a dev-dependency) on random legal positions, and un-moves agree
//! with moves. 10^5 positions here; scripts/chess-check.sh runs 10^6.

mod common;

use std::collections::BTreeSet;

use common::{MATERIALS, Rng, random_position};
use retro_chess::{Material, MoveList, Position, Role};
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _, fen::Fen};

fn positions_per_material() -> u64 {
    std::env::var("RETRO_CHESS_POSITIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000 / MATERIALS.len() as u64)
}

fn oracle(pos: &Position) -> Chess {
    let fen: Fen = pos.fen().parse().expect("our FEN parses");
    fen.into_position(CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .unwrap_or_else(|e| panic!("shakmaty refuses {}: {e}", pos.fen()))
}

/// Placement, side to move, castling and en passant: the clocks are none of our business.
fn without_clocks(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// Compares the moves of `pos` with shakmaty's, and the position after each move (en-passant square included).
fn compare(pos: &Position) -> usize {
    let chess = oracle(pos);
    let mut ours = MoveList::new();
    pos.legal_moves(&mut ours);
    let mut our_moves = BTreeSet::new();
    for m in ours.as_slice() {
        let after = pos.play(m);
        assert!(
            our_moves.insert((m.uci(), without_clocks(&after.fen()))),
            "{} listed twice in {}",
            m.uci(),
            pos.fen()
        );
    }
    let mut their_moves = BTreeSet::new();
    for m in chess.legal_moves() {
        let mut after = chess.clone();
        after.play_unchecked(m);
        let fen = Fen::from_position(&after, EnPassantMode::Legal).to_string();
        their_moves.insert((
            m.to_uci(CastlingMode::Standard).to_string(),
            without_clocks(&fen),
        ));
    }
    assert_eq!(our_moves, their_moves, "moves of {}", pos.fen());
    assert_eq!(
        pos.in_check(pos.turn()),
        chess.is_check(),
        "check in {}",
        pos.fen()
    );
    ours.len()
}

#[test]
fn moves_agree_with_shakmaty_on_random_positions() {
    let n = positions_per_material();
    let mut rng = Rng(1);
    let mut checked = 0u64;
    for name in MATERIALS {
        let material = Material::parse(name).unwrap();
        for _ in 0..n {
            let pos = random_position(material, &mut rng);
            compare(&pos);
            checked += 1;
            // The successors include positions with a legal en-passant capture: check those too.
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            for m in moves.as_slice() {
                let after = pos.play(m);
                if after.ep_square().is_some() {
                    compare(&after);
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{checked} positions compared with shakmaty");
    assert!(checked >= n * MATERIALS.len() as u64);
}

#[test]
fn fen_with_en_passant_is_probed_with_its_capture() {
    let pos = Position::from_fen("8/8/8/3pP3/8/8/k7/7K w - d6 0 2").unwrap();
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    assert!(
        moves
            .as_slice()
            .iter()
            .any(|m| m.en_passant && m.uci() == "e5d6")
    );
    compare(&pos);
    // An en-passant square that no pawn can use is dropped, as shakmaty drops it.
    let pos = Position::from_fen("8/8/8/3p4/8/8/k7/7K w - d6").unwrap();
    assert_eq!(pos.ep_square(), None);
}

#[test]
fn unmoves_agree_with_moves() {
    // u is an un-move of v iff v is a (non-converting, no en-passant rights) move of u, with the same multiplicity.
    let mut rng = Rng(2);
    for name in MATERIALS {
        let material = Material::parse(name).unwrap();
        for _ in 0..2_000 {
            let pos = random_position(material, &mut rng);
            let mut forward = Vec::new();
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            for m in moves.as_slice() {
                let after = pos.play(m);
                if !m.converts() && after.ep_square().is_none() {
                    forward.push(after);
                }
            }
            for after in &forward {
                let mut found = 0;
                after.unmoves(|p| found += (p == pos) as usize);
                assert_eq!(found, 1, "{} should un-move to {}", after.fen(), pos.fen());
            }
            pos.unmoves(|before| {
                assert!(
                    before.validate().is_ok(),
                    "illegal predecessor {}",
                    before.fen()
                );
                let mut moves = MoveList::new();
                before.legal_moves(&mut moves);
                let hits = moves
                    .as_slice()
                    .iter()
                    .filter(|m| !m.converts() && before.play(m) == pos)
                    .count();
                assert_eq!(hits, 1, "{} should move to {}", before.fen(), pos.fen());
            });
        }
    }
}

#[test]
fn counting_quiet_moves_agrees_with_listing_them() {
    let mut rng = Rng(3);
    for name in MATERIALS {
        let material = Material::parse(name).unwrap();
        for _ in 0..2_000 {
            let pos = random_position(material, &mut rng);
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            let mut visited = Vec::new();
            let quiet = pos.count_quiet_visit_rest(|m| visited.push(m));
            let expected: Vec<_> = moves
                .as_slice()
                .iter()
                .filter(|m| m.converts() || m.role == Role::King)
                .copied()
                .collect();
            assert_eq!(visited, expected, "{}", pos.fen());
            assert_eq!(quiet as usize + visited.len(), moves.len(), "{}", pos.fen());
        }
    }
}

#[test]
fn bad_fens_get_clear_errors() {
    use retro_chess::PositionError::{Illegal, Malformed};
    let cases = [
        ("", false),
        ("8/8/8/8/8/8/8/8 w", true),
        ("8/8/8/8/8/8/8/Kk6 w - - 0 1", true),
        ("8/8/8/8/8/8/8/K1k5 x - - 0 1", false),
        ("8/8/8/8/8/8/8/K1k4 w - - 0 1", false),
        ("P7/8/8/8/8/8/8/K1k5 w - - 0 1", true),
        ("8/8/8/8/8/8/8/K1k2R2 w - - 0 1", true),
        ("8/8/8/8/8/8/8/K1k5 w KQ - 0 1", true),
        ("8/8/8/8/8/8/8/K1k5 w - - x 1", false),
    ];
    for (fen, illegal) in cases {
        match Position::from_fen(fen) {
            Err(Illegal(_)) if illegal => {}
            Err(Malformed(_)) if !illegal => {}
            other => panic!("{fen:?} gave {other:?}"),
        }
    }
    assert!(Position::from_fen("8/8/8/8/8/8/8/K1k2R2 b - -").is_ok());
}

#[test]
fn positions_with_en_passant_rights_agree_with_shakmaty() {
    // The solver's en-passant region: every position of KPvKP, samples of five-man materials. Each has the moves
    // shakmaty gives (the capture included), and its one un-move, the double push, leads back to it.
    for (name, step) in [("KPvKP", 1), ("KPPvKP", 53), ("KRPvKP", 101), ("KQvKPP", 1)] {
        let index = retro_chess::TableIndex::new(Material::parse(name).unwrap());
        let ep = retro_chess::ep::EpIndex::new(&index);
        assert!(!ep.is_empty() || name == "KQvKPP", "{name}");
        let mut compared = 0;
        for n in (0..ep.len()).step_by(step) {
            let pos = ep.position(&index, n);
            assert!(pos.ep_square().is_some());
            assert!(
                compare(&pos) > 0,
                "{} has at least the en-passant capture",
                pos.fen()
            );
            if let Some(before) = pos.undo_double_push() {
                assert!(before.validate().is_ok(), "{}", before.fen());
                let mut moves = MoveList::new();
                before.legal_moves(&mut moves);
                let hits = moves
                    .as_slice()
                    .iter()
                    .filter(|m| before.play(m) == pos)
                    .count();
                assert_eq!(
                    hits,
                    1,
                    "{} should double-push to {}",
                    before.fen(),
                    pos.fen()
                );
            }
            compared += 1;
        }
        eprintln!("{name}: {compared} positions with en-passant rights compared");
    }
}
