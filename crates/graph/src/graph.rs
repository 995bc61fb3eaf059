//! The compact graph every graph command works on, and its face as a [`Game`] for the retrograde engine.
//!
//! A graph stores, for each player who can move (one for an impartial graph, Left and Right for a partizan one),
//! the moves of every position and their reverse, both in compressed-sparse-row form, plus the positions' names.

use std::collections::HashMap;
use std::fmt;

use retro_game::{Game, Index, Move, Node};

use crate::csr::Csr;

/// Whether both players have the same moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Both players have the same options in every position.
    Impartial,
    /// Left and Right have their own options.
    Partizan,
}

/// The two players of a partizan graph. In an impartial graph both have the same moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    Left = 0,
    Right = 1,
}

impl Player {
    /// The other player.
    pub fn other(self) -> Player {
        match self {
            Player::Left => Player::Right,
            Player::Right => Player::Left,
        }
    }

    fn from_bit(bit: u64) -> Player {
        if bit == 0 {
            Player::Left
        } else {
            Player::Right
        }
    }
}

/// The moves of one player: forward (options) and backward (predecessors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Moves {
    pub(crate) forward: Csr,
    pub(crate) backward: Csr,
}

impl Moves {
    pub(crate) fn new(forward: Csr) -> Moves {
        let backward = forward.transpose();
        Moves { forward, backward }
    }

    /// Builds both directions from `(from, to)` pairs, keeping the order of the pairs in each forward row.
    pub(crate) fn from_pairs<I>(positions: usize, pairs: I) -> Moves
    where
        I: Iterator<Item = (u32, u32)> + Clone,
    {
        Moves::new(Csr::from_pairs(positions, pairs))
    }
}

/// How positions are named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Names {
    /// Edge lists: a position's name is its number, and nothing is stored.
    Numbers,
    /// Text files: the names in file order, and the way back.
    Text {
        names: Vec<String>,
        by_name: HashMap<String, u32>,
    },
}

impl Names {
    pub(crate) fn text(names: Vec<String>) -> Names {
        let by_name = names
            .iter()
            .enumerate()
            .map(|(p, name)| (name.clone(), p as u32))
            .collect();
        Names::Text { names, by_name }
    }
}

/// A game graph: positions `0..positions()`, each with the options of each player and their reverse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    positions: u64,
    /// One entry for an impartial graph; Left's then Right's moves for a partizan graph.
    movers: Vec<Moves>,
    names: Names,
}

impl Graph {
    pub(crate) fn new(positions: u64, movers: Vec<Moves>, names: Names) -> Graph {
        debug_assert!(movers.len() == 1 || movers.len() == 2);
        debug_assert!(movers.iter().all(|m| m.forward.rows() as u64 == positions));
        Graph {
            positions,
            movers,
            names,
        }
    }

    /// An impartial graph with positions `0..positions` named by their numbers and the given moves, in order.
    ///
    /// # Panics
    /// If a move names a position `>= positions`, or `positions > 2^32`: this is the builder for generated graphs,
    /// whose callers know their sizes; files go through the parsers, which return errors instead.
    pub fn impartial(positions: u64, moves: &[(u32, u32)]) -> Graph {
        assert!(positions <= 1 << 32, "a graph has at most 2^32 positions");
        assert!(
            moves
                .iter()
                .all(|&(p, q)| (p as u64) < positions && (q as u64) < positions),
            "a move names a position outside the graph"
        );
        let moves = Moves::from_pairs(positions as usize, moves.iter().copied());
        Graph::new(positions, vec![moves], Names::Numbers)
    }

    /// A partizan graph with positions `0..positions` named by their numbers, Left's and Right's moves.
    ///
    /// # Panics
    /// As [`Graph::impartial`].
    pub fn partizan(positions: u64, left: &[(u32, u32)], right: &[(u32, u32)]) -> Graph {
        assert!(positions <= 1 << 32, "a graph has at most 2^32 positions");
        let movers = [left, right]
            .iter()
            .map(|moves| {
                assert!(
                    moves
                        .iter()
                        .all(|&(p, q)| (p as u64) < positions && (q as u64) < positions),
                    "a move names a position outside the graph"
                );
                Moves::from_pairs(positions as usize, moves.iter().copied())
            })
            .collect();
        Graph::new(positions, movers, Names::Numbers)
    }

    /// Impartial or partizan.
    pub fn kind(&self) -> Kind {
        if self.movers.len() == 1 {
            Kind::Impartial
        } else {
            Kind::Partizan
        }
    }

    pub fn is_partizan(&self) -> bool {
        self.kind() == Kind::Partizan
    }

    /// The number of positions (not of (position, mover) pairs).
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// The number of moves: the sum of all out-degrees, of both players for a partizan graph.
    pub fn moves(&self) -> u64 {
        self.movers.iter().map(|m| m.forward.len()).sum()
    }

    /// The largest number of options of any position for any player.
    pub fn max_out_degree(&self) -> u64 {
        self.movers
            .iter()
            .map(|m| m.forward.max_row())
            .max()
            .unwrap_or(0)
    }

    pub(crate) fn mover(&self, player: Player) -> &Moves {
        &self.movers[(player as usize).min(self.movers.len() - 1)]
    }

    pub(crate) fn movers(&self) -> &[Moves] {
        &self.movers
    }

    pub(crate) fn names_store(&self) -> &Names {
        &self.names
    }

    /// The options of `player` in `position`, with repetitions, in file order. In an impartial graph both players
    /// have the same options.
    #[inline]
    pub fn options(&self, position: u32, player: Player) -> &[u32] {
        self.mover(player).forward.row(position)
    }

    /// Every position from which `player` has a move to `position`, as often as it has such moves, in increasing
    /// order.
    #[inline]
    pub fn predecessors(&self, position: u32, player: Player) -> &[u32] {
        self.mover(player).backward.row(position)
    }

    /// The name of a position: its line's name in a text file, its number in an edge list.
    pub fn name(&self, position: u32) -> Name<'_> {
        match &self.names {
            Names::Numbers => Name::Number(position),
            Names::Text { names, .. } => Name::Text(&names[position as usize]),
        }
    }

    /// The position with this name, if there is one.
    pub fn lookup(&self, name: &str) -> Option<u32> {
        match &self.names {
            Names::Numbers => {
                // Only canonical decimal numbers: "007" is not the name of position 7.
                let canonical = name == "0" || (!name.starts_with('0') && !name.is_empty());
                let number: u32 = name
                    .parse()
                    .ok()
                    .filter(|_| canonical && name.bytes().all(|b| b.is_ascii_digit()))?;
                ((number as u64) < self.positions).then_some(number)
            }
            Names::Text { by_name, .. } => by_name.get(name).copied(),
        }
    }

    /// The graph as a game for the retrograde engine.
    pub fn game(&self) -> GraphGame<'_> {
        GraphGame { graph: self }
    }
}

/// A position's name, borrowed from its graph or computed from its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Name<'a> {
    Number(u32),
    Text(&'a str),
}

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Name::Number(n) => write!(f, "{n}"),
            Name::Text(s) => f.write_str(s),
        }
    }
}

/// A graph seen as a [`Game`].
///
/// Impartial graph: index = position. Partizan graph: index = 2·position + mover, mover 0 = Left to move and
/// 1 = Right to move; a move of Left from (p, Left) leads to (q, Right) and the other way round.
#[derive(Clone, Copy, Debug)]
pub struct GraphGame<'a> {
    graph: &'a Graph,
}

impl<'a> GraphGame<'a> {
    pub fn graph(&self) -> &'a Graph {
        self.graph
    }

    /// The index of a position with a player to move (the player is ignored for an impartial graph).
    pub fn index(&self, position: u32, to_move: Player) -> Index {
        match self.graph.kind() {
            Kind::Impartial => position as Index,
            Kind::Partizan => 2 * position as Index + to_move as Index,
        }
    }

    /// The position and player to move of an index (Left for every index of an impartial graph).
    pub fn position(&self, index: Index) -> (u32, Player) {
        match self.graph.kind() {
            Kind::Impartial => (index as u32, Player::Left),
            Kind::Partizan => ((index / 2) as u32, Player::from_bit(index & 1)),
        }
    }
}

impl Game for GraphGame<'_> {
    fn size(&self) -> Index {
        self.graph.positions * self.graph.movers.len() as u64
    }

    fn max_moves(&self) -> u64 {
        self.graph.max_out_degree()
    }

    #[inline]
    fn expand<F: FnMut(Move)>(&self, index: Index, mut visit: F) -> Node {
        match self.graph.kind() {
            Kind::Impartial => {
                for &q in self.graph.movers[0].forward.row(index as u32) {
                    visit(Move::To(q as Index));
                }
            }
            Kind::Partizan => {
                let (p, mover) = ((index / 2) as u32, (index & 1) as usize);
                let next = (1 - mover) as Index;
                for &q in self.graph.movers[mover].forward.row(p) {
                    visit(Move::To(2 * q as Index + next));
                }
            }
        }
        Node::Playable
    }

    #[inline]
    fn unmoves<F: FnMut(Index)>(&self, index: Index, mut visit: F) {
        match self.graph.kind() {
            Kind::Impartial => {
                for &p in self.graph.movers[0].backward.row(index as u32) {
                    visit(p as Index);
                }
            }
            Kind::Partizan => {
                // (q, m) is reached from (p, 1 - m) by a move of player 1 - m.
                let (q, to_move) = ((index / 2) as u32, (index & 1) as usize);
                let mover = 1 - to_move;
                for &p in self.graph.movers[mover].backward.row(q) {
                    visit(2 * p as Index + mover as Index);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SplitMix64;
    use std::collections::HashMap;

    /// Random moves on `n` positions, with repeated moves and self-loops likely.
    fn random_moves(rng: &mut SplitMix64, n: u64, m: u64) -> Vec<(u32, u32)> {
        (0..m)
            .map(|_| (rng.below(n) as u32, rng.below(n) as u32))
            .collect()
    }

    /// For every index: the moves `expand` gives, counted per target, equal the visits `unmoves` gives, counted per
    /// predecessor; and nothing points outside the game.
    fn check_contract(game: &GraphGame<'_>) {
        let mut forward: HashMap<(Index, Index), u64> = HashMap::new();
        let mut backward: HashMap<(Index, Index), u64> = HashMap::new();
        let mut max_moves = 0;
        for p in 0..game.size() {
            let mut count = 0;
            let node = game.expand(p, |mv| match mv {
                Move::To(q) => {
                    assert!(q < game.size());
                    *forward.entry((p, q)).or_default() += 1;
                    count += 1;
                }
                Move::Exit(_) => panic!("graph games have no exits"),
            });
            assert_eq!(node, Node::Playable);
            max_moves = max_moves.max(count);
            game.unmoves(p, |pred| {
                assert!(pred < game.size());
                *backward.entry((pred, p)).or_default() += 1;
            });
        }
        assert_eq!(forward, backward);
        assert!(game.max_moves() >= max_moves);
        assert_eq!(game.max_moves(), max_moves);
    }

    #[test]
    fn unmoves_mirror_moves_with_multiplicities() {
        let mut rng = SplitMix64::new(1);
        for _ in 0..300 {
            let n = 1 + rng.below(12);
            let m = rng.below(4 * n);
            let graph = Graph::impartial(n, &random_moves(&mut rng, n, m));
            assert_eq!(graph.moves(), m);
            assert_eq!(graph.game().size(), n);
            check_contract(&graph.game());

            let (m_left, m_right) = (rng.below(3 * n), rng.below(3 * n));
            let left = random_moves(&mut rng, n, m_left);
            let right = random_moves(&mut rng, n, m_right);
            let graph = Graph::partizan(n, &left, &right);
            assert_eq!(graph.moves(), (left.len() + right.len()) as u64);
            assert_eq!(graph.game().size(), 2 * n);
            check_contract(&graph.game());
        }
    }

    #[test]
    fn partizan_indices_alternate_the_mover() {
        // Left: 0 -> 1; Right: 1 -> 0, 1 -> 2.
        let graph = Graph::partizan(3, &[(0, 1)], &[(1, 0), (1, 2)]);
        let game = graph.game();
        assert_eq!(game.index(1, Player::Right), 3);
        assert_eq!(game.position(3), (1, Player::Right));
        let mut moves = Vec::new();
        game.expand(game.index(0, Player::Left), |mv| moves.push(mv));
        assert_eq!(moves, vec![Move::To(game.index(1, Player::Right))]);
        moves.clear();
        game.expand(game.index(1, Player::Right), |mv| moves.push(mv));
        assert_eq!(
            moves,
            vec![
                Move::To(game.index(0, Player::Left)),
                Move::To(game.index(2, Player::Left))
            ]
        );
        moves.clear();
        game.expand(game.index(1, Player::Left), |mv| moves.push(mv));
        assert!(moves.is_empty());
        let mut preds = Vec::new();
        game.unmoves(game.index(2, Player::Left), |p| preds.push(p));
        assert_eq!(preds, vec![game.index(1, Player::Right)]);
        assert_eq!(graph.max_out_degree(), 2);
    }
}
