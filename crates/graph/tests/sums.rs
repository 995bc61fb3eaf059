//! The generalized Sprague–Grundy values checked against the retrograde engine, as the seed did: for random pairs and
//! triples of small loopy graphs, the outcome of every position of the sum, computed from γ, must equal the outcome
//! the engine finds on the product graph of the sum; and the winning move γ proposes must lead to a position the
//! engine says the opponent loses.

use retro_engine::{SolveOptions, solve};
use retro_game::{Game, Index, Move, Node, Outcome};
use retro_graph::grundy::{Component, Grundy, GrundyValues, sum_outcome, winning_move};
use retro_graph::random::SplitMix64;
use retro_graph::{Graph, Player};

/// The sum of impartial graphs as one game: a position is one position per component (mixed radix, component 0
/// least significant), and a move moves exactly one component.
struct Product<'a> {
    parts: &'a [Graph],
    strides: Vec<Index>,
    size: Index,
}

impl<'a> Product<'a> {
    fn new(parts: &'a [Graph]) -> Product<'a> {
        let mut strides = Vec::new();
        let mut size = 1;
        for part in parts {
            strides.push(size);
            size *= part.positions();
        }
        Product {
            parts,
            strides,
            size,
        }
    }

    fn digit(&self, index: Index, i: usize) -> u32 {
        ((index / self.strides[i]) % self.parts[i].positions()) as u32
    }

    fn positions(&self, index: Index) -> Vec<u32> {
        (0..self.parts.len())
            .map(|i| self.digit(index, i))
            .collect()
    }

    fn with(&self, index: Index, i: usize, to: u32) -> Index {
        index - self.digit(index, i) as Index * self.strides[i] + to as Index * self.strides[i]
    }
}

impl Game for Product<'_> {
    fn size(&self) -> Index {
        self.size
    }

    fn max_moves(&self) -> u64 {
        self.parts.iter().map(Graph::max_out_degree).sum()
    }

    fn expand<F: FnMut(Move)>(&self, index: Index, mut visit: F) -> Node {
        for (i, part) in self.parts.iter().enumerate() {
            for &q in part.options(self.digit(index, i), Player::Left) {
                visit(Move::To(self.with(index, i, q)));
            }
        }
        Node::Playable
    }

    fn unmoves<F: FnMut(Index)>(&self, index: Index, mut visit: F) {
        for (i, part) in self.parts.iter().enumerate() {
            for &p in part.predecessors(self.digit(index, i), Player::Left) {
                visit(self.with(index, i, p));
            }
        }
    }
}

/// A small random loopy graph: 1 to `max_n` positions, density and the share of backward (cycle-making) moves
/// varied, self-loops and repeated moves allowed.
fn random_graph(rng: &mut SplitMix64, max_n: u64) -> Graph {
    let n = 1 + rng.below(max_n);
    let density = rng.next_f64() * 2.5;
    let p_down = [0.5, 0.8, 0.95, 1.0][rng.below(4) as usize];
    let mut moves = Vec::new();
    for u in 0..n {
        for _ in 0..rng.poisson(density) {
            let v = if u > 0 && rng.next_f64() < p_down {
                rng.below(u)
            } else {
                rng.below(n)
            };
            moves.push((u as u32, v as u32));
        }
    }
    Graph::impartial(n, &moves)
}

fn engine_outcomes<G: Game>(game: &G) -> Vec<Outcome> {
    let solution = solve(game, &SolveOptions::default()).expect("small games solve");
    (0..game.size())
        .map(|i| solution.value(i).expect("no holes").outcome())
        .collect()
}

/// What kind of sum a position of the product is, for counting that every kind was tried.
#[derive(Default, Debug)]
struct Cases {
    finite_win: u64,
    finite_loss: u64,
    one_infinite_x_in_k: u64,
    one_infinite_x_not_in_k: u64,
    two_or_more_infinite: u64,
    winning_moves_checked: u64,
    sums: u64,
}

fn check_sums(rng: &mut SplitMix64, components: usize, sums: u64, max_n: u64, cases: &mut Cases) {
    for _ in 0..sums {
        let parts: Vec<Graph> = (0..components).map(|_| random_graph(rng, max_n)).collect();
        let values: Vec<GrundyValues> = parts
            .iter()
            .map(|g| GrundyValues::compute(g).unwrap())
            .collect();
        let product = Product::new(&parts);
        let expected = engine_outcomes(&product);
        cases.sums += 1;
        for index in 0..product.size() {
            let positions = product.positions(index);
            let grundy: Vec<Grundy<'_>> = positions
                .iter()
                .zip(&values)
                .map(|(&p, v)| v.get(p))
                .collect();
            let outcome = sum_outcome(grundy.iter().copied());
            assert_eq!(
                outcome, expected[index as usize],
                "sum {positions:?} of values {grundy:?}"
            );

            let x = grundy
                .iter()
                .fold(0, |x, g| if let Grundy::Finite(v) = g { x ^ v } else { x });
            let infinite: Vec<&[u32]> = grundy
                .iter()
                .filter_map(|g| {
                    if let Grundy::Infinite(k) = g {
                        Some(*k)
                    } else {
                        None
                    }
                })
                .collect();
            match infinite.as_slice() {
                [] if x == 0 => cases.finite_loss += 1,
                [] => cases.finite_win += 1,
                [k] if k.contains(&x) => cases.one_infinite_x_in_k += 1,
                [_] => cases.one_infinite_x_not_in_k += 1,
                _ => cases.two_or_more_infinite += 1,
            }

            let sum: Vec<Component<'_>> = positions
                .iter()
                .zip(parts.iter().zip(&values))
                .map(|(&position, (graph, values))| Component {
                    graph,
                    values,
                    position,
                })
                .collect();
            match winning_move(&sum) {
                Some(mv) => {
                    assert_eq!(outcome, Outcome::Win);
                    assert!(
                        parts[mv.component]
                            .options(positions[mv.component], Player::Left)
                            .contains(&mv.to)
                    );
                    let after = product.with(index, mv.component, mv.to);
                    assert_eq!(
                        expected[after as usize],
                        Outcome::Loss,
                        "the move {mv:?} from {positions:?}"
                    );
                    cases.winning_moves_checked += 1;
                }
                None => assert_ne!(outcome, Outcome::Win),
            }
        }
    }
}

#[test]
fn sums_of_pairs_and_triples_agree_with_the_engine_on_the_product() {
    let mut rng = SplitMix64::new(2024);
    let mut cases = Cases::default();
    check_sums(&mut rng, 2, 2500, 7, &mut cases);
    check_sums(&mut rng, 3, 1500, 5, &mut cases);
    println!("{cases:?}");
    assert_eq!(cases.sums, 4000);
    // Every kind of sum occurred, often.
    assert!(cases.finite_win >= 1000, "{cases:?}");
    assert!(cases.finite_loss >= 1000, "{cases:?}");
    assert!(cases.one_infinite_x_in_k >= 1000, "{cases:?}");
    assert!(cases.one_infinite_x_not_in_k >= 1000, "{cases:?}");
    assert!(cases.two_or_more_infinite >= 1000, "{cases:?}");
    assert!(cases.winning_moves_checked >= 1000, "{cases:?}");
}

#[test]
fn single_game_outcome_from_gamma_agrees_with_the_engine() {
    let mut rng = SplitMix64::new(99);
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for round in 0..400 {
        let graph = if round % 2 == 0 {
            random_graph(&mut rng, 40)
        } else {
            retro_graph::random::graph(
                1 + rng.below(500),
                0.5 + 3.0 * rng.next_f64(),
                0.9,
                rng.next_u64(),
            )
        };
        let values = GrundyValues::compute(&graph).unwrap();
        let expected = engine_outcomes(&graph.game());
        for p in 0..graph.positions() as u32 {
            let outcome = values.outcome(p);
            assert_eq!(
                outcome,
                expected[p as usize],
                "position {p} of value {}",
                values.get(p)
            );
            match outcome {
                Outcome::Win => wins += 1,
                Outcome::Loss => losses += 1,
                Outcome::Draw => draws += 1,
            }
        }
    }
    assert!(
        wins > 1000 && losses > 1000 && draws > 1000,
        "{wins} {losses} {draws}"
    );
}
