//! A chess table's wins pulled forward from its open positions ([`Game::turns`]) where that costs less than walking
//! back from its losses: every value is the one that walking back alone gives, and a table of the size where it
//! pays does pull.

use retro_chess::solve::{solve_one, solve_tree};
use retro_chess::{Material, TableSet};
use retro_engine::{Pulling, SolveOptions, Testing};
use retro_game::Game;

#[test]
fn kqvkr_pulls_its_late_wins_and_keeps_every_value() {
    let material = Material::parse("KQvKR").unwrap().canonical();
    let mut tables = TableSet::new();
    for m in material.dependency_order() {
        if m != material {
            solve_tree(m, &mut tables, &SolveOptions::default(), |_, _| {}).unwrap();
        }
    }
    let solve = |pulling| {
        let options = SolveOptions {
            testing: Testing {
                pulling,
                ..Default::default()
            },
            ..Default::default()
        };
        solve_one(material, &tables, &options).unwrap()
    };
    let walked = solve(Pulling::Never);
    assert_eq!(walked.report().pulls, 0);
    let game = retro_chess::ChessGame::new(material, &tables).unwrap();
    assert!(game.turns().is_some());
    for pulling in [Pulling::Auto, Pulling::Always] {
        let pulled = solve(pulling);
        assert!(pulled.report().pulls > 0, "{pulling:?} never pulled");
        for i in 0..game.size() {
            assert_eq!(pulled.value(i), walked.value(i), "{pulling:?}, index {i}");
        }
    }
}
