//! An independent check of a KPvKP table, en passant included: every legal KPvKP position (both sides to move, no
//! colour folding) is solved for win/draw/loss by a forward fixpoint whose moves come from shakmaty, not from our
//! move generator, index or engine; positions with en-passant rights are nodes of their own, found from the double
//! pushes that create them. Exits (captures, promotions) are valued in the sub-tables of the directory (KPvK,
//! KQvKP, KRvKP, KBvKP, KNvKP). Then every position is compared with the KPvKP table of the directory, probed through
//! our index (and, for positions with en-passant rights, through the one-level search of `retro probe`).
//!
//! Usage: retro generate chess KPvKP --out DIR; cargo run --release -p retro-chess --example kpkp_check -- DIR
//! Takes about a minute and 0.6 GB.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;

use retro_chess::analysis::value_of;
use retro_chess::game::DiskValues;
use retro_chess::{Material, Position, TableSet};
use retro_game::Outcome;
use shakmaty::fen::Fen;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position as _,
    Role, Setup, Square,
};

/// A state: side to move (bit 24), White king, Black king, White pawn, Black pawn (6 bits each), White's king on
/// files a–d (the left–right mirror is the only symmetry with pawns).
type Key = u32;

/// An edge to an exit, with the exit's outcome for its side to move in the low bits.
const EXIT: u32 = 1 << 31;
const EXIT_LOSS: u32 = EXIT;
const EXIT_DRAW: u32 = EXIT | 1;
const EXIT_WIN: u32 = EXIT | 2;

const UNKNOWN: u8 = 0;
const WIN: u8 = 1;
const LOSS: u8 = 2;
const DRAW: u8 = 3;

fn sq(n: u32) -> Square {
    Square::new(n)
}

/// The canonical key of a KPvKP board and side to move, and whether it was mirrored to get there.
fn key_of(board: &Board, turn: Color) -> (Key, bool) {
    let one = |b: Bitboard| u32::from(b.first().expect("KPvKP has one of each"));
    let men = [
        one(board.by_piece(Piece {
            color: Color::White,
            role: Role::King,
        })),
        one(board.by_piece(Piece {
            color: Color::Black,
            role: Role::King,
        })),
        one(board.by_piece(Piece {
            color: Color::White,
            role: Role::Pawn,
        })),
        one(board.by_piece(Piece {
            color: Color::Black,
            role: Role::Pawn,
        })),
    ];
    let mirror = men[0] & 7 >= 4;
    let mut key = u32::from(turn == Color::Black) << 24;
    for (i, m) in men.into_iter().enumerate() {
        let m = if mirror { m ^ 7 } else { m };
        key |= m << (18 - 6 * i);
    }
    (key, mirror)
}

/// The position of a key, with an en-passant square (already mirrored like the key) or none.
fn chess_of(key: Key, ep: Option<Square>) -> Option<Chess> {
    let mut setup = Setup::empty();
    let squares = [
        (key >> 18) & 63,
        (key >> 12) & 63,
        (key >> 6) & 63,
        key & 63,
    ];
    let pieces = [
        (Color::White, Role::King),
        (Color::Black, Role::King),
        (Color::White, Role::Pawn),
        (Color::Black, Role::Pawn),
    ];
    for (s, (color, role)) in squares.into_iter().zip(pieces) {
        if setup.board.piece_at(sq(s)).is_some() {
            return None;
        }
        setup.board.set_piece_at(sq(s), Piece { color, role });
    }
    setup.turn = if key >> 24 == 1 {
        Color::Black
    } else {
        Color::White
    };
    setup.ep_square = ep;
    Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .ok()
}

fn ours(chess: &Chess) -> Position {
    let fen = Fen::from_position(chess, EnPassantMode::Legal).to_string();
    Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn main() -> ExitCode {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!(
            "usage: kpkp_check DIR (a directory made by retro generate chess KPvKP --out DIR)"
        );
        return ExitCode::FAILURE;
    };
    let tables = match retro_probe::Tables::open(std::path::Path::new(&dir), 256 << 20) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("kpkp_check: cannot open {dir}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut set = TableSet::new();
    for name in ["KPvK", "KQvKP", "KRvKP", "KBvKP", "KNvKP", "KPvKP"] {
        match tables.table("chess", name) {
            Ok(t) => set.insert(
                Material::parse(name).unwrap(),
                Box::new(DiskValues(Arc::clone(&t))),
            ),
            Err(e) => {
                eprintln!("kpkp_check: table {name}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let kpkp = Material::parse("KPvKP").unwrap();
    let start = std::time::Instant::now();

    // Every legal position without en-passant rights, numbered.
    let mut id_of = vec![u32::MAX; 1 << 25];
    let mut nodes: Vec<(Key, Option<Square>)> = Vec::new();
    for turn in 0..2u32 {
        for wk in (0..64).filter(|s| s & 7 < 4) {
            for bk in 0..64 {
                for wp in 8..56 {
                    for bp in 8..56 {
                        let key = turn << 24 | wk << 18 | bk << 12 | wp << 6 | bp;
                        if chess_of(key, None).is_some() {
                            id_of[key as usize] = nodes.len() as u32;
                            nodes.push((key, None));
                        }
                    }
                }
            }
        }
    }
    let plain = nodes.len();
    eprintln!(
        "{plain} positions without en-passant rights ({:.1} s)",
        start.elapsed().as_secs_f64()
    );

    // The moves of every node; nodes with en-passant rights are added as double pushes reach them.
    let mut ep_ids: HashMap<(Key, Square), u32> = HashMap::new();
    let mut first = Vec::with_capacity(plain + 1);
    let mut edges: Vec<u32> = Vec::new();
    let mut labels: Vec<u8> = Vec::new();
    let mut n = 0;
    while n < nodes.len() {
        let (key, ep) = nodes[n];
        let chess = chess_of(key, ep).expect("nodes are legal");
        first.push(edges.len());
        let moves = chess.legal_moves();
        labels.push(if moves.is_empty() {
            if chess.is_check() { LOSS } else { DRAW }
        } else {
            UNKNOWN
        });
        for m in moves {
            let mut after = chess.clone();
            after.play_unchecked(m);
            if m.is_capture() || m.is_promotion() {
                let v = set
                    .probe(&ours(&after))
                    .expect("sub-tables hold every exit");
                edges.push(match v.outcome() {
                    Outcome::Loss => EXIT_LOSS,
                    Outcome::Draw => EXIT_DRAW,
                    Outcome::Win => EXIT_WIN,
                });
                continue;
            }
            let (k, mirror) = key_of(after.board(), after.turn());
            edges.push(match after.legal_ep_square() {
                None => id_of[k as usize],
                Some(e) => {
                    let e = if mirror { e.flip_horizontal() } else { e };
                    *ep_ids.entry((k, e)).or_insert_with(|| {
                        nodes.push((k, Some(e)));
                        (nodes.len() - 1) as u32
                    })
                }
            });
        }
        n += 1;
    }
    first.push(edges.len());
    eprintln!(
        "{} positions with en-passant rights, {} moves ({:.1} s)",
        nodes.len() - plain,
        edges.len(),
        start.elapsed().as_secs_f64()
    );

    // Forward fixpoint: a position is won if a move reaches a lost one, lost if every move reaches a won one.
    let mut sweeps = 0;
    loop {
        let mut changed = false;
        for n in 0..nodes.len() {
            if labels[n] != UNKNOWN {
                continue;
            }
            let mut all_win = true;
            let mut any_loss = false;
            for &e in &edges[first[n]..first[n + 1]] {
                let l = match e {
                    EXIT_LOSS => LOSS,
                    EXIT_WIN => WIN,
                    EXIT_DRAW => DRAW,
                    _ => labels[e as usize],
                };
                any_loss |= l == LOSS;
                all_win &= l == WIN;
            }
            if any_loss {
                labels[n] = WIN;
                changed = true;
            } else if all_win {
                labels[n] = LOSS;
                changed = true;
            }
        }
        sweeps += 1;
        if !changed {
            break;
        }
    }
    eprintln!(
        "fixpoint after {sweeps} sweeps ({:.1} s)",
        start.elapsed().as_secs_f64()
    );

    // How much en passant matters: positions with rights whose outcome differs from the same placement without.
    let differ = (plain..nodes.len())
        .filter(|&n| {
            let without = id_of[nodes[n].0 as usize] as usize;
            (labels[n] == WIN) != (labels[without] == WIN)
                || (labels[n] == LOSS) != (labels[without] == LOSS)
        })
        .count();
    eprintln!("{differ} positions with en-passant rights have another outcome than without them");

    // Compare with the table, position by position; count per side to move.
    let mut counts = [[0u64; 3]; 2];
    let mut mismatches = 0u64;
    let lookup = |p: &Position| {
        set.probe(p)
            .ok_or_else(|| format!("no value for {}", p.fen()))
    };
    for (n, &(key, ep)) in nodes.iter().enumerate() {
        let theirs = match labels[n] {
            WIN => Outcome::Win,
            LOSS => Outcome::Loss,
            _ => Outcome::Draw,
        };
        let pos = ours(&chess_of(key, ep).expect("nodes are legal"));
        assert_eq!(Material::of(&pos), kpkp);
        let mine = match value_of(&pos, &lookup) {
            Ok(v) => v.outcome(),
            Err(e) => {
                eprintln!("kpkp_check: {e}");
                return ExitCode::FAILURE;
            }
        };
        if mine != theirs {
            mismatches += 1;
            if mismatches <= 10 {
                eprintln!("MISMATCH {}: table {mine}, brute force {theirs}", pos.fen());
            }
        }
        if ep.is_none() {
            let side = usize::from(key >> 24 == 1);
            counts[side][match theirs {
                Outcome::Win => 0,
                Outcome::Draw => 1,
                Outcome::Loss => 2,
            }] += 1;
        }
    }
    for (side, c) in ["white", "black"].iter().zip(counts) {
        println!(
            "KPvKP {side} to move: {} win, {} draw, {} loss",
            c[0], c[1], c[2]
        );
    }
    println!(
        "KPvKP: {} positions and {} with en-passant rights compared with the brute force: {mismatches} \
         mismatches ({:.1} s)",
        plain,
        nodes.len() - plain,
        start.elapsed().as_secs_f64()
    );
    if mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
