//! Seeded random game graphs for tests and benchmarks: every position gets Poisson(λ) moves, each to a random
//! lower-numbered position with probability `p_down`, else to any position (which makes cycles, hence draws).
//!
//! The same arguments give the same graph on every machine: the generator is SplitMix64 and nothing else, and
//! floating point is only used in ways that IEEE 754 makes exact.

use std::io::{self, Write};

use crate::graph::Graph;

/// SplitMix64 (Steele, Lea, Flood): a tiny, fast generator that passes BigCrush; plenty for test graphs.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..bound` (`bound > 0`), by multiply-shift: the bias is below 2^-32 for any `bound < 2^32`.
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }

    /// A Poisson(`lambda`) number, by Knuth's product of uniforms (fine for the small λ of game graphs).
    pub fn poisson(&mut self, lambda: f64) -> u64 {
        let limit = (-lambda).exp();
        let mut k = 0;
        let mut product = self.next_f64();
        while product > limit {
            k += 1;
            product *= self.next_f64();
        }
        k
    }
}

/// Calls `visit(u, v)` for every move of the random graph, position by position.
///
/// # Panics
/// If `n` is 0 or above 2^32.
pub fn for_each_move<F: FnMut(u32, u32)>(
    n: u64,
    lambda: f64,
    p_down: f64,
    seed: u64,
    mut visit: F,
) {
    assert!(
        n > 0 && n <= 1 << 32,
        "a random graph has 1 to 2^32 positions"
    );
    let mut rng = SplitMix64::new(seed);
    for u in 0..n {
        for _ in 0..rng.poisson(lambda) {
            let v = if u > 0 && rng.next_f64() < p_down {
                rng.below(u)
            } else {
                rng.below(n)
            };
            visit(u as u32, v as u32);
        }
    }
}

/// Writes the random graph as an edge list (a `#` header line, then `u v` lines) and returns the number of moves.
///
/// Reading the file back gives one more than the largest number written as position count, which can be below `n`
/// when the last positions have no move and no predecessor.
pub fn write_edges<W: Write>(
    n: u64,
    lambda: f64,
    p_down: f64,
    seed: u64,
    writer: W,
) -> io::Result<u64> {
    let mut out = io::BufWriter::with_capacity(1 << 20, writer);
    writeln!(
        out,
        "# retro random graph: n {n}, lambda {lambda}, p_down {p_down}, seed {seed}"
    )?;
    let mut line = Vec::with_capacity(32);
    let mut moves = 0u64;
    let mut result = Ok(());
    for_each_move(n, lambda, p_down, seed, |u, v| {
        if result.is_err() {
            return;
        }
        line.clear();
        push_decimal(&mut line, u);
        line.push(b' ');
        push_decimal(&mut line, v);
        line.push(b'\n');
        moves += 1;
        result = out.write_all(&line);
    });
    result?;
    out.flush()?;
    Ok(moves)
}

/// The moves of the random graph, in order.
pub fn moves(n: u64, lambda: f64, p_down: f64, seed: u64) -> Vec<(u32, u32)> {
    let mut moves = Vec::with_capacity((n as f64 * lambda * 1.05) as usize + 16);
    for_each_move(n, lambda, p_down, seed, |u, v| moves.push((u, v)));
    moves
}

/// The random graph in memory, with exactly `n` positions named by their numbers.
pub fn graph(n: u64, lambda: f64, p_down: f64, seed: u64) -> Graph {
    Graph::impartial(n, &moves(n, lambda, p_down, seed))
}

/// Appends the decimal digits of `value` (the formatting machinery of `write!` is several times slower).
fn push_decimal(out: &mut Vec<u8>, mut value: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}
