//! Load on a running `retro serve`: N keep-alive connections, each on its own thread, share a bounded number of
//! chess probes; prints requests per second and the p50/p99 latency. Run by scripts/serve-bench.sh:
//! `bench ADDR [CONNECTIONS] [REQUESTS]` (default 4 connections, 100000 requests).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use retro_server::client::{Client, escape};

/// 3- and 4-man positions of the shipped tables, won, drawn and lost.
const FENS: &[&str] = &[
    "8/8/8/8/8/2k5/8/KQ6 w - - 0 1",
    "8/8/8/4k3/8/8/8/KR6 b - - 0 1",
    "8/8/8/8/8/8/k3P3/4K3 w - - 0 1",
    "8/8/3k4/8/8/8/8/KBN5 w - - 0 1",
    "8/8/8/2k5/8/8/1r6/KR6 w - - 0 1",
    "8/8/8/8/3Pp3/8/8/K6k b - d3 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    "8/8/8/8/4k3/8/1q6/K1Q5 w - - 0 1",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(addr) = args.first().and_then(|a| a.parse::<SocketAddr>().ok()) else {
        eprintln!("usage: bench ADDR:PORT [CONNECTIONS] [REQUESTS]");
        std::process::exit(2);
    };
    let connections: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(4);
    let requests: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let targets: Vec<String> = FENS
        .iter()
        .map(|f| format!("/standard?fen={}", escape(f)))
        .collect();
    let start = Instant::now();
    let threads: Vec<_> = (0..connections)
        .map(|c| {
            let targets = targets.clone();
            let count = requests / connections + usize::from(c < requests % connections);
            std::thread::spawn(move || {
                let mut client = Client::connect(addr).expect("cannot connect");
                let mut latencies = Vec::with_capacity(count);
                for i in 0..count {
                    let target = &targets[(c + i) % targets.len()];
                    let sent = Instant::now();
                    let response = client.get(target).expect("request failed");
                    latencies.push(sent.elapsed());
                    assert_eq!(response.status, 200, "{target}: {}", response.body);
                }
                latencies
            })
        })
        .collect();
    let mut latencies: Vec<Duration> = threads
        .into_iter()
        .flat_map(|t| t.join().expect("a client thread failed"))
        .collect();
    let elapsed = start.elapsed();
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    println!(
        "{} requests on {connections} keep-alive connections in {:.2} s: {:.0} requests/s, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        at(0.50).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        latencies.last().unwrap().as_secs_f64() * 1e3,
    );
}
