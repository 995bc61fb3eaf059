//! A large random-looking game that takes no memory of its own, to measure the engine in and out of core.
//!
//! Position `v` of `n` has `degree(v)` moves (0 to 3, from a hash of `v`), the k-th to `(A·v + C[k]) mod n`. With
//! `A` invertible mod `n`, the predecessors are computed as easily: `v = A⁻¹·(q − C[k]) mod n`, kept when `k` is
//! below `degree(v)`. So the engine's arrays are the whole memory of the process.
//!
//! ```text
//! cargo run --release -p retro-engine --example implicit -- N [--memory BYTES] [--work DIR] [--threads T]
//! ```
//! prints the totals, the out-of-core report, the wall time and a checksum of all values.

use std::time::Instant;

use retro_engine::{Game, Index, Move, Node, SolveOptions, solve};

const A: u64 = 2_654_435_761;
const C: [u64; 3] = [1, 1_000_003, 77_777_777];

struct Implicit {
    n: u64,
    a: u64,
    a_inverse: u64,
}

impl Implicit {
    fn new(n: u64) -> Implicit {
        // A prime that divides no n used here larger than itself: invertible mod n unless n is a multiple of it.
        let a = A % n;
        let a_inverse = inverse(a, n).expect("A is invertible mod n");
        Implicit { n, a, a_inverse }
    }

    fn degree(&self, v: u64) -> u64 {
        let mut z = v.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z ^= z >> 29;
        z = z.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        // Zero to three moves: short distances, like most endgames (one move in 16 gives long thin tails instead).
        (z >> 40) % 4
    }

    fn mul(&self, x: u64, y: u64) -> u64 {
        (u128::from(x) * u128::from(y) % u128::from(self.n)) as u64
    }
}

fn inverse(a: u64, n: u64) -> Option<u64> {
    let (mut r0, mut r1) = (i128::from(n), i128::from(a));
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    (r0 == 1).then(|| t0.rem_euclid(i128::from(n)) as u64)
}

impl Game for Implicit {
    fn size(&self) -> Index {
        self.n
    }

    fn max_moves(&self) -> u64 {
        3
    }

    fn expand<F: FnMut(Move)>(&self, v: Index, mut visit: F) -> Node {
        for c in C.iter().take(self.degree(v) as usize) {
            visit(Move::To((self.mul(self.a, v) + c % self.n) % self.n));
        }
        Node::Playable
    }

    fn unmoves<F: FnMut(Index)>(&self, q: Index, mut visit: F) {
        for (k, c) in C.iter().enumerate() {
            let v = self.mul(self.a_inverse, (q + self.n - c % self.n) % self.n);
            if (k as u64) < self.degree(v) {
                visit(v);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: implicit N [--memory BYTES] [--work DIR] [--threads T]";
    let n: u64 = args.first().and_then(|a| a.parse().ok()).expect(usage);
    let mut options = SolveOptions::default();
    let mut threads = 2;
    let mut rest = args[1..].chunks(2);
    for pair in rest.by_ref() {
        match (pair[0].as_str(), pair.get(1)) {
            ("--memory", Some(m)) => options.memory = Some(m.parse().expect(usage)),
            ("--work", Some(d)) => options.work_dir = Some(d.into()),
            ("--threads", Some(t)) => threads = t.parse().expect(usage),
            _ => panic!("{usage}"),
        }
    }
    let game = Implicit::new(n);
    let start = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let solution = pool.install(|| solve(&game, &options)).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    });
    let seconds = start.elapsed().as_secs_f64();
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for i in 0..solution.size() {
        let code = match solution.value(i) {
            None => 0,
            Some(v) => 1 + v.outcome() as u64 + 4 * u64::from(v.plies().unwrap_or(0)),
        };
        hash = (hash ^ code).wrapping_mul(0x0000_0100_0000_01b3);
    }
    println!("{:?}", solution.stats());
    println!("{:?}", solution.report());
    println!("seconds {seconds:.2} values-checksum {hash:016x}");
}
