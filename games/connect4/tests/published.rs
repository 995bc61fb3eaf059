//! The crate's rules against published figures.
//!
//! OEIS A212693 (John Tromp) counts the legal positions of the standard 7x6 board after `n` plies, play stopping
//! when a game ends; its first terms are reproduced here by a breadth-first walk over [`Board::play`]. The first
//! line of four can be made at ply 7, so from ply 8 on the counts also check that a finished game is not continued.
//! The values of whole boards (Tromp's table of results by board size) are checked by
//! `scripts/connect4-boards.sh`, on boards too large for a test.

use std::collections::HashSet;

use retro_connect4::{Board, Shape};

/// A212693: legal 7x6 positions after 0, 1, 2, … plies.
const A212693: [u64; 10] = [1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275, 558186];

#[test]
fn positions_of_7x6_by_ply_are_those_of_oeis_a212693() {
    let shape = Shape::new(7, 6).unwrap();
    let mut layer: HashSet<Board> = HashSet::from([Board::empty(shape)]);
    for (ply, &published) in A212693.iter().enumerate() {
        assert_eq!(layer.len() as u64, published, "positions after {ply} plies");
        layer = layer
            .iter()
            .filter(|board| !board.is_over())
            .flat_map(|board| {
                (0..shape.width())
                    .filter(|&c| board.can_play(c))
                    .map(|c| board.play(c))
            })
            .collect();
    }
}

/// The counts stop where the game stops: were a finished game continued, ply 8 would count more.
#[test]
fn a_finished_game_is_over() {
    let shape = Shape::new(7, 6).unwrap();
    let mut board = Board::empty(shape);
    // x plays column 1 four times, o column 2 three times: x's fourth stone makes a line.
    for c in [0, 1, 0, 1, 0, 1, 0] {
        assert!(!board.is_over());
        board = board.play(c);
    }
    assert!(board.is_over());
}
