//! The tables as the engine sees them: [`ChessGame`]'s moves and un-moves between indices keep the `Game` contract
//! (q is a target of p exactly as often as p is a source of q), and fold twins exactly like the plain definition:
//! the distinct canonical indices of the positions one quiet move away, in both directions.

use std::collections::BTreeMap;

use retro_chess::solve::solve_tree;
use retro_chess::{ChessGame, Material, MoveList, TableSet, Values};
use retro_engine::SolveOptions;
use retro_game::{Game, Index, Move, Outcome, Value};

/// Exits valued as draws: enough to check the moves between the indices of a table whose sub-tables are too big to
/// solve in a test (the contract is about moves inside the table; exits take no part in it).
struct Draws;

impl Values for Draws {
    fn value(&self, _: Index) -> Option<Value> {
        Some(Value::DRAW)
    }
}

/// A material's game, with every table it exits into solved in memory.
fn game_of(name: &str, tables: &mut TableSet) -> Material {
    let material = Material::parse(name).unwrap().canonical();
    for m in material.dependency_order() {
        if m != material {
            solve_tree(m, tables, &SolveOptions::default(), |_, _| {}).unwrap();
        }
    }
    material
}

/// The plain definition of the targets of `index`: each distinct canonical index of a quiet move's position, sorted.
fn plain_targets(game: &ChessGame, index: Index) -> Vec<Index> {
    let pos = game.index().position(index).unwrap();
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let mut out: Vec<Index> = moves
        .as_slice()
        .iter()
        .filter(|m| !m.converts())
        .map(|m| game.index().encode_oriented(&pos.play(m)))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The plain definition of the sources of `index`: each distinct canonical index of an un-move's position, sorted.
fn plain_sources(game: &ChessGame, index: Index) -> Vec<Index> {
    let pos = game.index().position(index).unwrap();
    let mut out = Vec::new();
    pos.unmoves(|before| out.push(game.index().encode_oriented(&before)));
    out.sort_unstable();
    out.dedup();
    out
}

fn targets(game: &ChessGame, index: Index) -> Vec<Index> {
    let mut out = Vec::new();
    game.expand(index, |m| {
        if let Move::To(q) = m {
            out.push(q)
        }
    });
    out.sort_unstable();
    out
}

fn sources(game: &ChessGame, index: Index) -> Vec<Index> {
    let mut out = Vec::new();
    game.unmoves(index, |p| out.push(p));
    out.sort_unstable();
    out
}

fn count(list: &[Index], x: Index) -> usize {
    list.iter().filter(|&&y| y == x).count()
}

/// Checks every `step`-th index of a material (and every index whose kings stand on the long diagonal); returns
/// how many positions were checked.
fn check(name: &str, step: u64) -> u64 {
    let mut tables = TableSet::new();
    let material = game_of(name, &mut tables);
    let game = ChessGame::new(material, &tables).unwrap();
    check_game(
        &game,
        (0..game.size()).filter(|&p| {
            let Some(pos) = game.index().position(p) else {
                return false;
            };
            let on_axis = |s: retro_chess::Square| s.file() == s.rank();
            let axis = on_axis(pos.king(retro_chess::Color::White))
                && on_axis(pos.king(retro_chess::Color::Black));
            p % step == 0 || (axis && p % step.div_ceil(8) == 0)
        }),
    )
}

/// Checks the positions at `indices` (holes are skipped); returns how many were checked.
fn check_game(game: &ChessGame, indices: impl Iterator<Item = Index>) -> u64 {
    // White to move, then Black, each half of the index; a symmetric material numbers White to move only.
    let stored = game.index().size();
    match game.turns() {
        Some([white, black]) => {
            assert!(!game.index().material().is_symmetric());
            assert_eq!((white.start, white.end, black.end), (0, stored / 2, stored));
            assert_eq!(black.start, stored / 2);
        }
        None => assert!(game.index().material().is_symmetric()),
    }
    let mut checked = 0;
    let mut sources_seen: BTreeMap<Index, Vec<Index>> = BTreeMap::new();
    for p in indices {
        let Some(pos) = game.index().position(p) else {
            continue;
        };
        checked += 1;
        let t = targets(game, p);
        assert_eq!(t, plain_targets(game, p), "targets of {p} ({})", pos.fen());
        let s = sources(game, p);
        assert_eq!(s, plain_sources(game, p), "sources of {p} ({})", pos.fen());
        // The contract, both ways, with multiplicities.
        for &q in &t {
            let back = sources_seen
                .entry(q)
                .or_insert_with(|| sources(game, q))
                .clone();
            assert_eq!(
                count(&back, p),
                count(&t, q),
                "{p} -> {q} against {q} <- {p}"
            );
        }
        for &before in &s {
            assert_eq!(
                count(&targets(game, before), p),
                count(&s, before),
                "{p} <- {before} against {before} -> {p}"
            );
        }
        // Every move passes the turn: no target or source shares the range of the turns that `p` is in.
        if let Some(turns) = game.turns() {
            let range_of = |i: Index| turns.iter().position(|r| r.contains(&i));
            if let Some(own) = range_of(p) {
                for &q in t.iter().chain(&s) {
                    assert_ne!(
                        range_of(q),
                        Some(own),
                        "{p} and {q} in one range of the turns"
                    );
                }
            }
        }
        if sources_seen.len() > 100_000 {
            sources_seen.clear();
        }
    }
    checked
}

#[test]
fn three_men_tables_keep_the_contract_on_every_index() {
    for name in ["KQvK", "KRvK", "KPvK", "KBvK"] {
        assert!(check(name, 1) > 40_000, "{name}");
    }
}

#[test]
fn four_men_tables_keep_the_contract() {
    // Identical pieces (KNNvK), pieces on both sides (KRvKR, KQvKB), a pawn (KRvKP), a pawnless piece pair (KBNvK).
    for (name, step) in [
        ("KNNvK", 241),
        ("KRvKR", 239),
        ("KQvKB", 251),
        ("KRvKP", 199),
        ("KBNvK", 233),
    ] {
        assert!(check(name, step) > 5_000, "{name}");
    }
}

/// The exits' best outcome found from the captures and promotions alone is the one found by counting every move, on
/// tables whose exits are captures into wins and draws, and promotions.
#[test]
fn the_best_exit_is_found_without_counting_the_other_moves() {
    for (name, step) in [("KQvKB", 13), ("KRvKN", 13), ("KPvK", 1)] {
        let mut tables = TableSet::new();
        let game = ChessGame::new(game_of(name, &mut tables), &tables).unwrap();
        let mut reached = [0u64; 3];
        for index in (0..game.size()).step_by(step) {
            let best = game.best_exit(index);
            assert_eq!(
                best,
                retro_game::best_exit_by_counting(&game, index),
                "{name} index {index}"
            );
            reached[best as usize] += 1;
        }
        assert!(reached.iter().all(|&n| n > 100), "{name}: {reached:?}");
    }
}

/// A stalemate is terminal: the look one ply ahead finds its draw from the rules, with no table, as counting does,
/// and `Position::is_stalemate` agrees with the legal moves on every position of tables rich in stalemates.
#[test]
fn the_look_one_ply_ahead_finds_a_stalemates_draw() {
    for name in ["KQvK", "KRvK", "KQQvK"] {
        let mut tables = TableSet::new();
        let game = ChessGame::new(game_of(name, &mut tables), &tables).unwrap();
        let mut stalemates = 0;
        for index in 0..game.size() {
            let Some(pos) = game.position(index) else {
                continue;
            };
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            let stalemate = moves.is_empty() && !pos.in_check(pos.turn());
            assert_eq!(pos.is_stalemate(), stalemate, "{name} {}", pos.fen());
            let best = game.best_exit(index);
            assert_eq!(
                best,
                retro_game::best_exit_by_counting(&game, index),
                "{name} {}",
                pos.fen()
            );
            if stalemate {
                assert_eq!(best, Outcome::Draw, "{name} {}", pos.fen());
                stalemates += 1;
            }
        }
        assert!(stalemates > 5, "{name}: {stalemates} stalemates");
    }
}

#[test]
fn moves_pass_the_turn_in_tables_with_en_passant_rights() {
    // The positions with en-passant rights lie outside both ranges of the turns, and may be targets and sources of
    // the positions inside: no move joins two positions of one range. A spread of indices, exits as draws.
    let material = Material::parse("KRPvKP").unwrap().canonical();
    let mut tables = TableSet::new();
    for needed in material.successors() {
        tables.insert(needed, Box::new(Draws));
    }
    let game = ChessGame::new(material, &tables).unwrap();
    let [white, black] = game.turns().unwrap();
    assert_eq!((white.end, black.end), (black.start, game.index().size()));
    assert!(
        game.size() > game.index().size(),
        "no indices with en-passant rights"
    );
    let range_of = |i: Index| [&white, &black].iter().position(|r| r.contains(&i));
    let (mut checked, mut outside_reached) = (0, 0);
    let step = game.size() / 30_000 + 1;
    for p in (0..game.size()).step_by(step as usize) {
        let Some(own) = range_of(p) else { continue };
        let (t, s) = (targets(&game, p), sources(&game, p));
        if t.is_empty() && s.is_empty() {
            continue;
        }
        checked += 1;
        for &q in t.iter().chain(&s) {
            assert_ne!(
                range_of(q),
                Some(own),
                "{p} and {q} in one range of the turns"
            );
            outside_reached += u64::from(range_of(q).is_none());
        }
    }
    assert!(
        checked > 5_000 && outside_reached > 0,
        "{checked} checked, {outside_reached} outside"
    );
}

#[test]
fn six_men_tables_keep_the_contract() {
    // Too big to solve here (6.7 · 10^9 indices): its moves are checked on a spread of indices, exits as draws.
    let material = Material::parse("KRNvKNN").unwrap().canonical();
    let mut tables = TableSet::new();
    for needed in material.successors() {
        tables.insert(needed, Box::new(Draws));
    }
    let game = ChessGame::new(material, &tables).unwrap();
    assert_eq!(game.size(), 2 * 462 * 62 * 62 * (62 * 61 / 2));
    let step = game.size() / 12_000 + 1;
    assert!(check_game(&game, (0..game.size()).step_by(step as usize)) > 5_000);
}
