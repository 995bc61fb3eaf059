//! A game given as explicit lists of moves, and an oracle that knows nothing of the engine.
// Each test binary uses a part of this module.
#![allow(dead_code)]

use std::ops::Range;

use retro_engine::{Game, Index, Inside, Move, Node, PlayConvention, Value};

/// One index of a [`ListGame`].
#[derive(Clone, Debug)]
pub enum Entry {
    Hole,
    Terminal(Value),
    Moves(Vec<Move>),
}

/// A game whose positions list their moves.
#[derive(Clone, Debug)]
pub struct ListGame {
    pub entries: Vec<Entry>,
    preds: Vec<Vec<Index>>,
    max_moves: u64,
    /// Whether [`Game::survey`] leaves the moves inside the table uncounted, for the engine to count when it needs
    /// them (as chess does for most positions).
    uncounted: bool,
    /// What [`Game::turns`] says.
    turns: Option<[Range<Index>; 2]>,
}

impl ListGame {
    pub fn new(entries: Vec<Entry>) -> ListGame {
        let mut preds = vec![Vec::new(); entries.len()];
        let mut max_moves = 0;
        for (p, e) in entries.iter().enumerate() {
            if let Entry::Moves(moves) = e {
                max_moves = max_moves.max(moves.len() as u64);
                for m in moves {
                    if let Move::To(q) = m {
                        preds[*q as usize].push(p as Index);
                    }
                }
            }
        }
        ListGame {
            entries,
            preds,
            max_moves,
            uncounted: false,
            turns: None,
        }
    }

    /// A partizan game of [`random_game`]'s layout (index 2p + mover) laid out by turns instead: the first
    /// player's positions, then the second's, as [`Game::turns`] says; the second player's first position is left
    /// outside both ranges (as a chess table's positions with en-passant rights are). Index `i` of this game goes to
    /// [`ListGame::turn_index`].
    pub fn by_turns(&self) -> ListGame {
        let n = self.entries.len() as Index;
        assert!(
            n.is_multiple_of(2),
            "a partizan game has two indices a position"
        );
        let at = |i: Index| ListGame::turn_index(n, i);
        let mut entries = vec![Entry::Hole; n as usize];
        for (i, entry) in self.entries.iter().enumerate() {
            entries[at(i as Index) as usize] = match entry {
                Entry::Moves(moves) => Entry::Moves(
                    moves
                        .iter()
                        .map(|m| match *m {
                            Move::To(q) => Move::To(at(q)),
                            exit => exit,
                        })
                        .collect(),
                ),
                other => other.clone(),
            };
        }
        let half = n / 2;
        let mut game = ListGame::new(entries);
        game.uncounted = self.uncounted;
        game.turns = Some([0..half, (half + 1).min(n)..n]);
        game
    }

    /// Where index `i` (2p + mover) of a partizan game of `n` indices goes when laid out by turns.
    pub fn turn_index(n: Index, i: Index) -> Index {
        (i % 2) * (n / 2) + i / 2
    }

    /// The same game, whose survey leaves every position's moves inside the table uncounted.
    pub fn surveyed_uncounted(mut self) -> ListGame {
        self.uncounted = true;
        self
    }

    /// A game from successor lists only (no holes, no exits).
    pub fn from_graph(adjacency: &[Vec<usize>]) -> ListGame {
        ListGame::new(
            adjacency
                .iter()
                .map(|targets| {
                    Entry::Moves(targets.iter().map(|&t| Move::To(t as Index)).collect())
                })
                .collect(),
        )
    }
}

impl Game for ListGame {
    fn size(&self) -> Index {
        self.entries.len() as Index
    }

    fn max_moves(&self) -> u64 {
        self.max_moves
    }

    fn expand<F: FnMut(Move)>(&self, index: Index, mut visit: F) -> Node {
        match &self.entries[index as usize] {
            Entry::Hole => Node::Hole,
            Entry::Terminal(v) => Node::Terminal(*v),
            Entry::Moves(moves) => {
                moves.iter().for_each(|m| visit(*m));
                Node::Playable
            }
        }
    }

    fn survey<F: FnMut(Value)>(&self, index: Index, exit: F) -> (Node, Inside) {
        match self.count_moves(index, exit) {
            (node, inside) if self.uncounted && inside > 0 => (node, Inside::Uncounted),
            (node, inside) => (node, Inside::Counted(inside)),
        }
    }

    fn unmoves<F: FnMut(Index)>(&self, index: Index, mut visit: F) {
        self.preds[index as usize].iter().for_each(|&p| visit(p));
    }

    fn turns(&self) -> Option<[Range<Index>; 2]> {
        self.turns.clone()
    }
}

/// The seed's bounded-horizon brute force: for d = 0, 1, 2, … decide "can the mover force a win within d plies?"
/// and "must the mover lose within d plies?". The first d at which one holds is the distance; a position for which
/// neither ever holds is a draw. No counters, no frontiers, no un-moves.
pub fn brute_force(game: &ListGame, convention: PlayConvention) -> Vec<Option<Value>> {
    let n = game.entries.len();
    let deepest_exit = game
        .entries
        .iter()
        .flat_map(|e| match e {
            Entry::Moves(m) => m.clone(),
            _ => vec![],
        })
        .filter_map(|m| match m {
            Move::Exit(v) => v.plies(),
            Move::To(_) => None,
        })
        .chain(game.entries.iter().filter_map(|e| match e {
            Entry::Terminal(v) => v.plies(),
            _ => None,
        }))
        .max()
        .unwrap_or(0) as usize;
    // No finite value can be longer than a walk through every position once, after the deepest known value.
    let horizon = 2 * n + deepest_exit + 2;
    let mut win_within = vec![false; n];
    let mut lose_within = vec![false; n];
    let mut value: Vec<Option<Value>> = game
        .entries
        .iter()
        .map(|e| match e {
            Entry::Hole => None,
            _ => Some(Value::DRAW),
        })
        .collect();
    for d in 0..=horizon {
        let mut win = win_within.clone();
        let mut lose = lose_within.clone();
        for p in 0..n {
            let (w, l) = match &game.entries[p] {
                Entry::Hole => (false, false),
                Entry::Terminal(v) => match (v.outcome(), v.plies()) {
                    (retro_engine::Outcome::Win, Some(k)) => (k as usize <= d, false),
                    (retro_engine::Outcome::Loss, Some(k)) => (false, k as usize <= d),
                    _ => (false, false),
                },
                Entry::Moves(moves) if moves.is_empty() => match convention {
                    PlayConvention::Normal => (false, true),
                    PlayConvention::Misere => (true, false),
                },
                Entry::Moves(moves) => {
                    let reaches_loss = |m: &Move| match m {
                        Move::To(q) => d >= 1 && lose_within[*q as usize],
                        Move::Exit(v) => {
                            v.outcome() == retro_engine::Outcome::Loss
                                && (v.plies().unwrap() as usize) < d
                        }
                    };
                    let reaches_win = |m: &Move| match m {
                        Move::To(q) => d >= 1 && win_within[*q as usize],
                        Move::Exit(v) => {
                            v.outcome() == retro_engine::Outcome::Win
                                && (v.plies().unwrap() as usize) < d
                        }
                    };
                    (
                        moves.iter().any(reaches_loss),
                        moves.iter().all(reaches_win),
                    )
                }
            };
            if w && !win_within[p] {
                win[p] = true;
                value[p] = Some(Value::win(d as u32));
            }
            if l && !lose_within[p] {
                lose[p] = true;
                value[p] = Some(Value::loss(d as u32));
            }
        }
        win_within = win;
        lose_within = lose;
    }
    value
}

/// A small deterministic generator (splitmix64), so that the tests need no randomness crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

pub fn random_value(rng: &mut Rng) -> Value {
    match rng.below(3) {
        0 => Value::win(rng.below(6) as u32),
        1 => Value::loss(rng.below(6) as u32),
        _ => Value::DRAW,
    }
}

/// A random game: `positions` positions; impartial (one index per position) or partizan (index 2p + mover, a move of
/// either player leading to the other player's turn). Holes, terminal positions, exits and repeated moves appear.
pub fn random_game(rng: &mut Rng, partizan: bool, with_exits: bool) -> ListGame {
    let positions = 1 + rng.below(9) as usize;
    let density = 1 + rng.below(4);
    let movers = if partizan { 2 } else { 1 };
    let n = positions * movers;
    let hole: Vec<bool> = (0..positions)
        .map(|p| p > 0 && with_exits && rng.chance(8))
        .collect();
    let live: Vec<usize> = (0..positions).filter(|&p| !hole[p]).collect();
    let mut entries = Vec::with_capacity(n);
    for index in 0..n {
        let (position, mover) = (index / movers, index % movers);
        if hole[position] {
            entries.push(Entry::Hole);
            continue;
        }
        if with_exits && rng.chance(5) {
            entries.push(Entry::Terminal(random_value(rng)));
            continue;
        }
        let count = rng.below(2 * density + 1);
        let mut moves = Vec::new();
        for _ in 0..count {
            if with_exits && rng.chance(15) {
                moves.push(Move::Exit(random_value(rng)));
            } else {
                let to = live[rng.below(live.len() as u64) as usize];
                let to_index = to * movers + (1 - mover) * (movers - 1);
                moves.push(Move::To(to_index as u64));
                if rng.chance(10) {
                    // A repeated move.
                    moves.push(Move::To(to_index as u64));
                }
            }
        }
        entries.push(Entry::Moves(moves));
    }
    ListGame::new(entries)
}

/// The benchmark's kind of graph, smaller: Poisson-like out-degrees, most moves to lower positions, some anywhere.
pub fn random_graph(n: usize, seed: u64) -> ListGame {
    let mut rng = Rng(seed);
    let adjacency: Vec<Vec<usize>> = (0..n)
        .map(|v| {
            let degree = (0..6).filter(|_| rng.chance(50)).count();
            (0..degree)
                .map(|_| {
                    if v > 0 && rng.chance(95) {
                        rng.below(v as u64) as usize
                    } else {
                        rng.below(n as u64) as usize
                    }
                })
                .collect()
        })
        .collect();
    ListGame::from_graph(&adjacency)
}

/// [`random_graph`] played by two players: index 2v + mover, each move of `v` made by either player and leading to
/// the other player's turn (the layout of [`random_game`]'s partizan games).
pub fn random_partizan_graph(n: usize, seed: u64) -> ListGame {
    let graph = random_graph(n, seed);
    let entries = (0..2 * n)
        .map(|i| match &graph.entries[i / 2] {
            Entry::Moves(moves) => Entry::Moves(
                moves
                    .iter()
                    .map(|m| match *m {
                        Move::To(w) => Move::To(2 * w + (1 - i as Index % 2)),
                        exit => exit,
                    })
                    .collect(),
            ),
            other => other.clone(),
        })
        .collect();
    ListGame::new(entries)
}
