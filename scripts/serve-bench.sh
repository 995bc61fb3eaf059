#!/usr/bin/env bash
# Load on `retro serve` over the shipped chess tables: 10^5 chess probes on keep-alive loopback connections,
# reporting requests/s and p50/p99 latency (target: >= 20,000 requests/s, p99 < 5 ms on 2 cores).
# Usage: scripts/serve-bench.sh [CONNECTIONS] [REQUESTS]
set -euo pipefail
cd "$(dirname "$0")/.."
connections=${1:-4}
requests=${2:-100000}
cargo build --release -q -p retro
cargo build --release -q -p retro-server --features bench --example bench
port=$((20000 + RANDOM % 20000))
./target/release/retro serve --tables tablebases/chess --bind "127.0.0.1:$port" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
# Wait (at most 10 s) until the server answers.
for _ in $(seq 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.1
done
./target/release/examples/bench "127.0.0.1:$port" "$connections" "$requests"
