//! Generalized Sprague–Grundy values of loopy impartial games (C. A. B. Smith 1966, A. S. Fraenkel), and the
//! outcomes of sums they decide.
//!
//! Every position `u` of an impartial graph gets a value γ(u) ∈ {0, 1, 2, …} ∪ {∞(K)}. The finite value `i` is
//! defined by three conditions:
//!
//! 1. no option of `u` has value `i`;
//! 2. every `j < i` is the value of some option of `u`;
//! 3. every option of `u` whose value is ∞ has itself an option of value `i` (an escape of the opponent into an
//!    infinite position can be answered by coming back to `i`).
//!
//! Values are handed out in rounds `i = 0, 1, …`; a position that never qualifies is ∞(K), where K is the set of
//! finite values among its options.
//!
//! ## How a round works
//!
//! At the start of round `i` the *open* positions are those with no value yet. Each open position `u` keeps a
//! counter of its options that are open or ∞ and that do not yet have an option of value `i` ("unanswered"
//! options). `u` gets value `i` as soon as its counter is zero and none of its options has value `i`: nothing that
//! happens later in the round can change either fact, because every option that could still take value `i` or
//! lose its answer has been settled. Giving `u` the value `i` marks each predecessor `p` of `u` as having an option
//! of value `i`; if `p` is open or ∞, `p` is now answered, and the counters of `p`'s predecessors drop by one
//! (once per move, so repeated moves count as often as they appear).
//!
//! An open position that ends the round without an option of value `i` can never get a value above `i` (condition
//! 2 would fail) and did not get `i`: it is ∞. The others stay open for round `i + 1`, so every open position at
//! round `i` has options of every value below `i`, which is condition 2.
//!
//! Each round touches the open positions and their moves, and the moves into what it settles or answers: the cost is
//! O((V + E)·(max γ + 2)) in the worst case and much less in practice, since most positions settle in the first
//! rounds and drop out of the open list. Everything runs in parallel: the counting at the start of a round, the
//! propagation (in waves: the positions made ready by one wave are settled together in the next), and the sets K.
//! The result does not depend on the order of work or the number of threads, because a position is only settled
//! when nothing can change its conditions any more: the values are the unique result of the rules, not of a
//! schedule.
//!
//! ## Sums
//!
//! The outcome of a sum of games, for the player to move: all parts finite: XOR ≠ 0 wins, XOR = 0 loses; exactly
//! one part ∞(K) and the others XOR to `x`: a win iff `x ∈ K` (move that part to an option of value `x`), else a
//! draw; two or more parts ∞: a draw.

use std::fmt;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;
use retro_game::Outcome;
use thiserror::Error;

use crate::graph::{Graph, Player};

/// Marks a position without a value yet, during the computation.
const OPEN: u32 = u32::MAX;
/// Marks a position of value ∞.
const INFINITE: u32 = u32::MAX - 1;
/// Waves of propagation smaller than this are settled on the calling thread.
const PARALLEL_WAVE: usize = 4096;

/// γ of one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grundy<'a> {
    /// A finite value, as in ordinary Sprague–Grundy theory.
    Finite(u32),
    /// ∞(K): K is the set of finite values among the options, increasing and without repetition.
    Infinite(&'a [u32]),
}

impl Grundy<'_> {
    /// The outcome of this game alone, for the player to move: finite 0 loses, other finite values win; ∞(K) wins
    /// iff 0 ∈ K (move to a position of value 0), else it is a draw.
    pub fn outcome(self) -> Outcome {
        match self {
            Grundy::Finite(0) => Outcome::Loss,
            Grundy::Finite(_) => Outcome::Win,
            Grundy::Infinite(k) if k.binary_search(&0).is_ok() => Outcome::Win,
            Grundy::Infinite(_) => Outcome::Draw,
        }
    }
}

impl fmt::Display for Grundy<'_> {
    /// `3`, or `∞{0,2}` for ∞(K) with K = {0, 2}.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Grundy::Finite(value) => write!(f, "{value}"),
            Grundy::Infinite(k) => {
                f.write_str("∞{")?;
                for (i, value) in k.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{value}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// γ is only defined for impartial games.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
pub enum GrundyError {
    #[error(
        "the graph is partizan (it has a `|` line): Grundy values are defined for impartial games only, where both \
         players have the same moves"
    )]
    Partizan,
}

/// γ of every position of an impartial graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrundyValues {
    /// γ per position, [`INFINITE`] for ∞.
    values: Vec<u32>,
    /// The positions of value ∞, increasing.
    infinite: Vec<u32>,
    /// `k_values[k_offsets[j]..k_offsets[j + 1]]` is K of `infinite[j]`.
    k_offsets: Vec<u64>,
    k_values: Vec<u32>,
}

impl GrundyValues {
    /// Computes γ of every position of `graph`.
    pub fn compute(graph: &Graph) -> Result<GrundyValues, GrundyError> {
        if graph.is_partizan() {
            return Err(GrundyError::Partizan);
        }
        let values = values(graph);
        let infinite: Vec<u32> = values
            .par_iter()
            .enumerate()
            .filter(|&(_, &g)| g == INFINITE)
            .map(|(u, _)| u as u32)
            .collect();
        let (k_offsets, k_values) = k_sets(graph, &values, &infinite);
        Ok(GrundyValues {
            values,
            infinite,
            k_offsets,
            k_values,
        })
    }

    /// The number of positions.
    pub fn len(&self) -> u64 {
        self.values.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// γ of `position`.
    pub fn get(&self, position: u32) -> Grundy<'_> {
        match self.values[position as usize] {
            INFINITE => {
                let j = self
                    .infinite
                    .binary_search(&position)
                    .expect("every position of value ∞ is listed");
                let k = &self.k_values[self.k_offsets[j] as usize..self.k_offsets[j + 1] as usize];
                Grundy::Infinite(k)
            }
            value => Grundy::Finite(value),
        }
    }

    /// γ of every position, in order: cheaper than [`get`](GrundyValues::get) position by position, which has to
    /// search for the set K of each position of value ∞.
    pub fn iter(&self) -> impl Iterator<Item = Grundy<'_>> + '_ {
        let mut j = 0;
        self.values.iter().map(move |&value| {
            if value == INFINITE {
                let k = &self.k_values[self.k_offsets[j] as usize..self.k_offsets[j + 1] as usize];
                j += 1;
                Grundy::Infinite(k)
            } else {
                Grundy::Finite(value)
            }
        })
    }

    /// γ of `position` if it is finite.
    pub fn finite(&self, position: u32) -> Option<u32> {
        let value = self.values[position as usize];
        (value != INFINITE).then_some(value)
    }

    /// The outcome of the game started at `position`, for the player to move.
    pub fn outcome(&self, position: u32) -> Outcome {
        self.get(position).outcome()
    }

    /// The largest finite value, if any position has one.
    pub fn max_finite(&self) -> Option<u32> {
        self.values
            .par_iter()
            .copied()
            .filter(|&v| v != INFINITE)
            .max()
    }

    /// The number of positions of value ∞.
    pub fn infinite_count(&self) -> u64 {
        self.infinite.len() as u64
    }
}

/// The rounds of the definition: γ per position, [`INFINITE`] for ∞.
///
/// Inside a round the settled positions spread in waves: the positions found ready in one wave are settled in
/// parallel, and what they make ready forms the next wave. The state is shared through relaxed atomics; no race
/// changes the result, because a ready position stays ready (see the module documentation) and a counter reaches
/// zero exactly once.
fn values(graph: &Graph) -> Vec<u32> {
    let n = graph.positions() as usize;
    let options = |u: u32| graph.options(u, Player::Left);
    let predecessors = |u: u32| graph.predecessors(u, Player::Left);
    let atomics = |init: u32| -> Vec<AtomicU32> {
        (0..n)
            .into_par_iter()
            .map(|_| AtomicU32::new(init))
            .collect()
    };

    let value = atomics(OPEN);
    // Unanswered options of each open position, recounted at the start of every round.
    let unanswered = atomics(0);
    // `answered[p] == stamp` iff p has an option of value i in round i (stamp = i + 1): no clearing between rounds.
    let answered = atomics(0);
    let get = |a: &[AtomicU32], i: u32| a[i as usize].load(Relaxed);

    let mut open: Vec<u32> = (0..n as u64).into_par_iter().map(|u| u as u32).collect();
    let mut round: u32 = 0;
    while !open.is_empty() {
        let stamp = round + 1;
        let mut wave: Vec<u32> = open
            .par_iter()
            .with_min_len(1 << 12)
            .filter_map(|&u| {
                let count = if round == 0 {
                    // Every position is open in round 0: no need to look at the options' values.
                    options(u).len() as u32
                } else {
                    options(u)
                        .iter()
                        .filter(|&&v| get(&value, v) >= INFINITE)
                        .count() as u32
                };
                unanswered[u as usize].store(count, Relaxed);
                (count == 0).then_some(u)
            })
            .collect();

        // Settles u if it is ready, and collects the positions this makes ready.
        let settle = |next: &mut Vec<u32>, u: u32| {
            if get(&value, u) != OPEN || get(&answered, u) == stamp || get(&unanswered, u) != 0 {
                return;
            }
            value[u as usize].store(round, Relaxed);
            for &p in predecessors(u) {
                // The first to answer p does the work.
                if answered[p as usize].swap(stamp, Relaxed) == stamp {
                    continue;
                }
                // p cannot take value `round` any more. If p is open or ∞ it is now an answered option of each of
                // its predecessors; a finite p was never counted.
                if get(&value, p) < INFINITE {
                    continue;
                }
                for &r in predecessors(p) {
                    if get(&value, r) == OPEN
                        && unanswered[r as usize].fetch_sub(1, Relaxed) == 1
                        && get(&answered, r) != stamp
                    {
                        next.push(r);
                    }
                }
            }
        };
        let mut next = Vec::new();
        while !wave.is_empty() {
            if wave.len() < PARALLEL_WAVE {
                // Long thin cascades (nearly acyclic graphs) make many small waves: waking threads for each would
                // cost more than the work.
                next.clear();
                for &u in &wave {
                    settle(&mut next, u);
                }
                std::mem::swap(&mut wave, &mut next);
            } else {
                wave = wave
                    .par_iter()
                    .with_min_len(1 << 8)
                    .fold(Vec::new, |mut next, &u| {
                        settle(&mut next, u);
                        next
                    })
                    .reduce(Vec::new, |mut a, mut b| {
                        a.append(&mut b);
                        a
                    });
            }
        }

        open.retain(|&u| {
            if get(&value, u) != OPEN {
                false
            } else if get(&answered, u) == stamp {
                true
            } else {
                value[u as usize].store(INFINITE, Relaxed);
                false
            }
        });
        round += 1;
    }
    value.into_par_iter().map(AtomicU32::into_inner).collect()
}

/// K of every position of value ∞: its options' finite values, sorted, without repetition.
fn k_sets(graph: &Graph, values: &[u32], infinite: &[u32]) -> (Vec<u64>, Vec<u32>) {
    let pieces: Vec<(Vec<u32>, Vec<u32>)> = infinite
        .par_chunks(4096)
        .map(|chunk| {
            let mut lengths = Vec::with_capacity(chunk.len());
            let mut k_values = Vec::new();
            for &u in chunk {
                let start = k_values.len();
                k_values.extend(
                    graph
                        .options(u, Player::Left)
                        .iter()
                        .map(|&v| values[v as usize])
                        .filter(|&g| g != INFINITE),
                );
                k_values[start..].sort_unstable();
                let mut kept = start;
                for j in start..k_values.len() {
                    if j == start || k_values[j] != k_values[kept - 1] {
                        k_values[kept] = k_values[j];
                        kept += 1;
                    }
                }
                k_values.truncate(kept);
                lengths.push((kept - start) as u32);
            }
            (lengths, k_values)
        })
        .collect();
    let mut offsets = Vec::with_capacity(infinite.len() + 1);
    offsets.push(0u64);
    let mut all = Vec::with_capacity(pieces.iter().map(|(_, v)| v.len()).sum());
    for (lengths, k_values) in pieces {
        for length in lengths {
            offsets.push(offsets.last().copied().unwrap_or(0) + length as u64);
        }
        all.extend_from_slice(&k_values);
    }
    (offsets, all)
}

/// The outcome of a sum of games, for the player to move, from the values of its parts.
pub fn sum_outcome<'a, I: IntoIterator<Item = Grundy<'a>>>(parts: I) -> Outcome {
    let mut x = 0u32;
    let mut infinite: Option<&[u32]> = None;
    let mut infinite_parts = 0;
    for part in parts {
        match part {
            Grundy::Finite(value) => x ^= value,
            Grundy::Infinite(k) => {
                infinite_parts += 1;
                infinite = Some(k);
            }
        }
    }
    match (infinite_parts, infinite) {
        (0, _) if x == 0 => Outcome::Loss,
        (0, _) => Outcome::Win,
        (1, Some(k)) if k.binary_search(&x).is_ok() => Outcome::Win,
        _ => Outcome::Draw,
    }
}

/// One component of a sum: a position of a graph whose values are known.
#[derive(Clone, Copy, Debug)]
pub struct Component<'a> {
    pub graph: &'a Graph,
    pub values: &'a GrundyValues,
    pub position: u32,
}

/// A move of a sum: component `component` moves to its position `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SumMove {
    pub component: usize,
    pub to: u32,
}

/// A winning move of the sum, when the player to move wins: the move leaves a sum of finite parts that XOR to 0,
/// which the opponent loses. The first component that allows one and its first suitable option, in file order.
pub fn winning_move(components: &[Component<'_>]) -> Option<SumMove> {
    let parts = components.iter().map(|c| c.values.get(c.position));
    if sum_outcome(parts.clone()) != Outcome::Win {
        return None;
    }
    let x = parts.clone().fold(0, |x, part| match part {
        Grundy::Finite(value) => x ^ value,
        Grundy::Infinite(_) => x,
    });
    // A win with an ∞ part: move it to an option of value x (x ∈ K). A win with finite parts only: move a part of
    // value c with c ^ x < c to an option of value c ^ x, which exists by condition 2.
    let (component, target) = match parts
        .clone()
        .position(|part| matches!(part, Grundy::Infinite(_)))
    {
        Some(c) => (c, x),
        None => {
            let c = parts
                .clone()
                .position(|part| matches!(part, Grundy::Finite(v) if v ^ x < v))
                .expect("a nonzero XOR has a part whose value it lowers");
            let Grundy::Finite(v) = components[c].values.get(components[c].position) else {
                unreachable!("the part was chosen finite")
            };
            (c, v ^ x)
        }
    };
    let c = &components[component];
    let to = c
        .graph
        .options(c.position, Player::Left)
        .iter()
        .copied()
        .find(|&q| c.values.finite(q) == Some(target))
        .expect("γ's conditions guarantee an option of the target value");
    Some(SumMove { component, to })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SplitMix64;

    fn values_of(text: &str) -> (Graph, GrundyValues) {
        let graph = Graph::parse_text(text.as_bytes()).unwrap();
        let values = GrundyValues::compute(&graph).unwrap();
        (graph, values)
    }

    fn show(graph: &Graph, values: &GrundyValues, name: &str) -> String {
        values.get(graph.lookup(name).unwrap()).to_string()
    }

    #[test]
    fn hand_example() {
        // a -> b -> c -> a, c -> d, d -> e.
        let (graph, values) = values_of("a : b\nb : c\nc : a d\nd : e\ne :\n");
        assert_eq!(show(&graph, &values, "e"), "0");
        assert_eq!(show(&graph, &values, "d"), "1");
        assert_eq!(show(&graph, &values, "a"), "∞{}");
        assert_eq!(show(&graph, &values, "b"), "∞{}");
        assert_eq!(show(&graph, &values, "c"), "∞{1}");
        assert_eq!(values.outcome(graph.lookup("c").unwrap()), Outcome::Draw);
        assert_eq!(values.infinite_count(), 3);
        let all: Vec<Grundy<'_>> = values.iter().collect();
        let each: Vec<Grundy<'_>> = (0..5).map(|p| values.get(p)).collect();
        assert_eq!(all, each);
        assert_eq!(values.max_finite(), Some(1));
    }

    #[test]
    fn reversible_escapes_keep_finite_values() {
        // x -> y, y -> x, y -> z, z has no move. z = 0. x has no option of value 0, and its only option y (not
        // yet valued) can move to z of value 0: condition 3 holds, x = 0. Then y has options of value 0 only: y = 1.
        let (graph, values) = values_of("x : y\ny : x z\nz :\n");
        assert_eq!(show(&graph, &values, "z"), "0");
        assert_eq!(show(&graph, &values, "x"), "0");
        assert_eq!(show(&graph, &values, "y"), "1");
        // A self-loop with nothing else is ∞ with K = {} (a draw), and with an exit to 0 it is ∞{0} (a win).
        let (graph, values) = values_of("s : s\nt : t u\nu :\n");
        assert_eq!(show(&graph, &values, "s"), "∞{}");
        assert_eq!(show(&graph, &values, "t"), "∞{0}");
        assert_eq!(values.outcome(graph.lookup("t").unwrap()), Outcome::Win);
    }

    #[test]
    fn the_same_values_with_one_or_two_threads() {
        let pool = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
        };
        let mut infinite = 0;
        for seed in 0..20 {
            // The 20 graphs of 20 000 positions come with and without positions of value ∞ (draws spread from the
            // low positions' cycles to most of the graph, or not at all).
            let graph = crate::random::graph(20_000, 3.0, 0.9, seed);
            let one = pool(1).install(|| GrundyValues::compute(&graph).unwrap());
            let two = pool(2).install(|| GrundyValues::compute(&graph).unwrap());
            assert_eq!(one, two);
            assert!(one.iter().enumerate().all(|(p, g)| g == one.get(p as u32)));
            assert!(one.max_finite() > Some(1));
            infinite += one.infinite_count();
        }
        assert!(infinite > 0);
    }

    #[test]
    fn partizan_graphs_are_refused() {
        let graph = Graph::parse_text(b"a : | a\n").unwrap();
        assert_eq!(GrundyValues::compute(&graph), Err(GrundyError::Partizan));
    }

    /// Ordinary Sprague–Grundy values of an acyclic graph whose moves all go to lower-numbered positions.
    fn mex_values(graph: &Graph) -> Vec<u32> {
        let mut values: Vec<u32> = Vec::new();
        for u in 0..graph.positions() as u32 {
            let options: Vec<u32> = graph
                .options(u, Player::Left)
                .iter()
                .map(|&v| values[v as usize])
                .collect();
            values.push((0..).find(|g| !options.contains(g)).unwrap());
        }
        values
    }

    #[test]
    fn agrees_with_mex_on_acyclic_graphs() {
        let mut rng = SplitMix64::new(7);
        let mut largest = 0;
        for _ in 0..500 {
            let n = 1 + rng.below(60);
            let lambda = 0.5 + rng.next_f64() * 4.0;
            let graph = crate::random::graph(n, lambda, 1.0, rng.next_u64());
            // Position 0 may still move anywhere, including to itself: drop its moves for a true DAG.
            let moves: Vec<(u32, u32)> = (1..n as u32)
                .flat_map(|u| graph.options(u, Player::Left).iter().map(move |&v| (u, v)))
                .collect();
            let graph = Graph::impartial(n, &moves);
            let values = GrundyValues::compute(&graph).unwrap();
            let expected = mex_values(&graph);
            for u in 0..n as u32 {
                assert_eq!(values.get(u), Grundy::Finite(expected[u as usize]));
            }
            largest = largest.max(values.max_finite().unwrap());
        }
        assert!(
            largest >= 4,
            "the test graphs should reach values beyond the first few"
        );
    }
}
