//! The family against retro's contract: every index of 4x4, samples of the larger boards.

use retro_connect4::{ConnectFour, Shape};
use retro_family::{Family, NoPayloads, contract};

fn check(board: &str, every: u64) -> contract::Checked {
    let shape = Shape::parse(board).unwrap();
    contract::check(&ConnectFour, &shape, every, &NoPayloads)
        .unwrap_or_else(|e| panic!("{board}: {e}"))
}

#[test]
fn every_index_of_4x4() {
    let checked = check("4x4", u64::MAX);
    assert_eq!(checked.tables, 17);
    let layout = retro_connect4::Layout::new(Shape::parse("4x4").unwrap());
    assert_eq!(
        checked.indices,
        (0..=16).map(|k| layout.tier_size(k)).sum::<u64>()
    );
    // Every move leaves its tier: the engine sees no move inside a table.
    assert_eq!(checked.moves, 0);
    assert!(checked.positions > 0 && checked.positions < checked.indices);
}

#[test]
fn samples_of_the_larger_boards() {
    for (board, every) in [
        ("6x5", 20_000),
        ("7x4", 20_000),
        ("4x7", 5_000),
        ("7x7", 1_000),
    ] {
        let started = std::time::Instant::now();
        let checked = check(board, every);
        let cells = ConnectFour.tables(&Shape::parse(board).unwrap()).len();
        assert_eq!(checked.tables, cells, "{board}");
        // Holes (four in a row for the player to move) are common on the fuller tiers, but never most of a board.
        assert!(
            checked.positions > checked.indices / 3,
            "{board}: {checked:?}"
        );
        eprintln!("{board}: {checked:?} in {:.2?}", started.elapsed());
    }
}
