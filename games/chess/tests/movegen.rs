//! Move generation agrees with shakmaty (the oracle, a dev-dependency) on random legal positions, and un-moves agree
//! with moves. 10^5 positions here; scripts/chess-check.sh runs 10^6.

mod common;

use std::collections::BTreeSet;

use common::{MATERIALS, Rng, random_position};
use retro_chess::{Bitboard, ChessMove, Color, Material, MoveList, Piece, Position, Role, Square};
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

/// Calls `check` with 2,000 random positions of each material of `MATERIALS` and their legal moves.
fn for_random_positions(seed: u64, mut check: impl FnMut(&Position, &MoveList)) {
    let mut rng = Rng(seed);
    for name in MATERIALS {
        let material = Material::parse(name).unwrap();
        for _ in 0..2_000 {
            let pos = random_position(material, &mut rng);
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            check(&pos, &moves);
        }
    }
}

/// The captures and promotions among `moves`, in their order.
fn listed_conversions(moves: &MoveList) -> Vec<ChessMove> {
    moves
        .as_slice()
        .iter()
        .filter(|m| m.converts())
        .copied()
        .collect()
}

#[test]
fn counting_quiet_moves_agrees_with_listing_them() {
    for_random_positions(3, |pos, moves| {
        let mut visited = Vec::new();
        let (quiet, king_steps) = pos.count_quiet_visit_conversions(|m| visited.push(m));
        let expected = listed_conversions(moves);
        assert_eq!(visited, expected, "{}", pos.fen());
        let listed_steps = moves
            .as_slice()
            .iter()
            .filter(|m| m.role == Role::King && !m.converts())
            .fold(Bitboard::EMPTY, |steps, m| steps.with(m.to));
        assert_eq!(king_steps, listed_steps, "{}", pos.fen());
        assert_eq!(
            quiet as usize + visited.len() + king_steps.count() as usize,
            moves.len(),
            "{}",
            pos.fen()
        );
    });
}

#[test]
fn the_conversions_are_the_captures_and_promotions_listed() {
    let mut seen = 0;
    for_random_positions(7, |pos, moves| {
        let mut visited = Vec::new();
        pos.visit_conversions(|m| visited.push(m));
        let expected = listed_conversions(moves);
        assert_eq!(visited, expected, "{}", pos.fen());
        seen += visited.len();
    });
    assert!(seen > 1000, "only {seen} conversions");
}

/// `has_quiet_move` says whether a legal move neither captures nor promotes, on random positions and on positions
/// whose only moves are captures, or none.
#[test]
fn a_quiet_move_is_found_exactly_when_one_is_listed() {
    let (mut yes, mut no) = (0, 0);
    for_random_positions(9, |pos, moves| {
        let listed = moves.as_slice().iter().any(|m| !m.converts());
        assert_eq!(pos.has_quiet_move(), listed, "{}", pos.fen());
        // The survey's own pass finds the same, and the conversions with it.
        let mut conversions = Vec::new();
        let quiet = pos.visit_conversions_find_quiet(|m| conversions.push(m));
        assert_eq!(quiet, listed, "{}", pos.fen());
        let expected = listed_conversions(moves);
        assert_eq!(conversions, expected, "{}", pos.fen());
        if listed {
            yes += 1;
        } else {
            no += 1;
        }
    });
    assert!(yes > 0, "{yes} with a quiet move, {no} without");
    for (fen, quiet) in [
        // Stalemate, checkmate, a king whose only move takes the checking queen, a pawn whose only step promotes.
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", false),
        ("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", false),
        ("7k/6Q1/8/8/8/8/8/K7 b - - 0 1", false),
        ("8/1P6/8/8/8/8/1r6/K1k5 w - - 0 1", false),
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let listed = moves.as_slice().iter().any(|m| !m.converts());
        assert_eq!(listed, quiet, "{fen}: the case is not what it says");
        assert_eq!(pos.has_quiet_move(), quiet, "{fen}");
    }
}

/// `may_convert` says no only for positions without a legal capture or promotion (and says no often enough to
/// matter: it spares the prober's search over conversions).
#[test]
fn a_position_that_may_not_convert_has_no_capture_or_promotion() {
    let (mut no, mut yes) = (0, 0);
    for_random_positions(5, |pos, moves| {
        if pos.may_convert() {
            yes += 1;
        } else {
            assert!(
                !moves.as_slice().iter().any(|m| m.converts()),
                "{}",
                pos.fen()
            );
            no += 1;
        }
    });
    assert!(no > 0 && yes > 0, "{no} no, {yes} yes");
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

/// Compares the SAN of every legal move of `pos` with shakmaty's (suffix included), and checks that each parses
/// back to its move, with and without the suffix. Returns the number of moves compared.
fn compare_san(pos: &Position) -> usize {
    use shakmaty::san::SanPlus;
    let chess = oracle(pos);
    let theirs: std::collections::HashMap<String, String> = chess
        .legal_moves()
        .into_iter()
        .map(|m| {
            (
                m.to_uci(CastlingMode::Standard).to_string(),
                SanPlus::from_move(chess.clone(), m).to_string(),
            )
        })
        .collect();
    let mut ours = MoveList::new();
    pos.legal_moves(&mut ours);
    assert_eq!(ours.len(), theirs.len(), "moves of {}", pos.fen());
    for m in ours.as_slice() {
        let text = retro_chess::san::san(pos, m);
        assert_eq!(
            Some(&text),
            theirs.get(&m.uci()),
            "SAN of {} in {}",
            m.uci(),
            pos.fen()
        );
        assert_eq!(
            retro_chess::san::parse_san(pos, &text),
            Some(*m),
            "{text} in {}",
            pos.fen()
        );
        let bare = text.trim_end_matches(['+', '#']);
        assert_eq!(
            retro_chess::san::parse_san(pos, bare),
            Some(*m),
            "{bare} in {}",
            pos.fen()
        );
    }
    ours.len()
}

#[test]
fn san_agrees_with_shakmaty_on_random_positions() {
    // Twins of one role (disambiguation, three queens), pawns (captures, promotions, en passant), and the
    // common materials; mates come mostly from the heavy pieces.
    let materials = MATERIALS.iter().copied().chain([
        "KQQvK", "KRRvKN", "KNNvKB", "KQQQvK", "KRRRvK", "KNNNvK", "KBBBvK", "KPPPvK",
    ]);
    let mut rng = Rng(4);
    let (mut positions, mut moves_compared) = (0usize, 0usize);
    let (mut disambiguated, mut mates, mut checks, mut en_passant, mut promotions) =
        (0, 0, 0, 0, 0);
    for name in materials {
        let material = Material::parse(name).unwrap();
        for _ in 0..150 {
            let pos = random_position(material, &mut rng);
            let mut todo = vec![pos];
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            // The successors with a legal en-passant capture too.
            todo.extend(
                moves
                    .as_slice()
                    .iter()
                    .map(|m| pos.play(m))
                    .filter(|after| after.ep_square().is_some()),
            );
            for p in &todo {
                moves_compared += compare_san(p);
                positions += 1;
                let mut moves = MoveList::new();
                p.legal_moves(&mut moves);
                for m in moves.as_slice() {
                    let text = retro_chess::san::san(p, m);
                    let body = text.trim_end_matches(['+', '#']);
                    disambiguated += (m.role != Role::Pawn
                        && body.len() > 3 + usize::from(m.capture.is_some()))
                        as usize;
                    mates += text.ends_with('#') as usize;
                    checks += text.ends_with('+') as usize;
                    en_passant += m.en_passant as usize;
                    promotions += m.promotion.is_some() as usize;
                }
            }
        }
    }
    // Random placements rarely allow en passant: place a white pawn on the fifth rank beside a black one that may
    // just have advanced two squares, the kings and one more man anywhere (pins along the rank, checks), and keep
    // the positions where the capture is legal, and their colour-flipped twins.
    let extras = [
        None,
        Some(Role::Queen),
        Some(Role::Rook),
        Some(Role::Bishop),
        Some(Role::Knight),
    ];
    for _ in 0..400 {
        let file = rng.below(8) as u8;
        let victim = if file == 0 || (file < 7 && rng.below(2) == 0) {
            file + 1
        } else {
            file - 1
        };
        let mut p = Position::empty(Color::White);
        let white_pawn = Piece {
            color: Color::White,
            role: Role::Pawn,
        };
        let black_pawn = Piece {
            color: Color::Black,
            role: Role::Pawn,
        };
        p.put(Square::from_coords(file, 4), white_pawn);
        p.put(Square::from_coords(victim, 4), black_pawn);
        let mut men = vec![
            Piece {
                color: Color::White,
                role: Role::King,
            },
            Piece {
                color: Color::Black,
                role: Role::King,
            },
        ];
        if let Some(role) = extras[rng.below(extras.len() as u64) as usize] {
            let color = if rng.below(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            men.push(Piece { color, role });
        }
        for piece in men {
            loop {
                let sq = Square::new(rng.below(64) as u8);
                if !p.occupied().contains(sq) {
                    p.put(sq, piece);
                    break;
                }
            }
        }
        if p.validate().is_err() {
            continue;
        }
        if let Some(with_ep) = p.with_ep_square(Square::from_coords(victim, 5)) {
            for q in [with_ep, with_ep.color_flipped()] {
                moves_compared += compare_san(&q);
                positions += 1;
                let mut moves = MoveList::new();
                q.legal_moves(&mut moves);
                en_passant += moves.as_slice().iter().filter(|m| m.en_passant).count();
            }
        }
    }
    eprintln!(
        "{positions} positions, {moves_compared} moves: {disambiguated} disambiguated, {checks} checks, \
         {mates} mates, {en_passant} en passant, {promotions} promotions"
    );
    // The sample must exercise every rule, or agreement proves little.
    for (what, n) in [
        ("disambiguated", disambiguated),
        ("mates", mates),
        ("checks", checks),
        ("en passant", en_passant),
        ("promotions", promotions),
    ] {
        assert!(n >= 10, "only {n} {what}");
    }
}
