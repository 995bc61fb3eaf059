#!/usr/bin/env bash
# Tests the Python package retro-tablebase (crates/python) as a user gets it: builds its abi3 wheel with maturin,
# installs it in a fresh virtual environment with pytest and python-chess, builds a tic-tac-toe table with the
# retro CLI, and runs crates/python/tests with pytest. Fails (non-zero) if anything is missing; nothing is skipped.
#   scripts/python-test.sh            # CI runs it after `cargo test --workspace`
#   KEEP=1 scripts/python-test.sh     # keep the scratch folder (venv, wheel, table) and print its path
#
# The wheel is built with the dev profile into the workspace's target directory: `cargo test` has compiled every
# dependency with that profile already, so only PyO3 and the extension itself are compiled here. (`pip install
# ./crates/python` makes an optimised release build instead, for use.)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
start=$SECONDS

for tool in cargo python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "python-test: $tool is missing" >&2
    exit 1
  fi
done
# Debian splits ensurepip (which `python3 -m venv` needs) into the python3-venv package.
if ! python3 -c 'import ensurepip' 2>/dev/null; then
  echo "python-test: python3 cannot make a virtual environment (on Debian: apt-get install python3-venv)" >&2
  exit 1
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/retro-python.XXXXXX")
if [[ -n ${KEEP:-} ]]; then
  echo "python-test: scratch folder $scratch"
else
  trap 'rm -rf "$scratch"' EXIT
fi

python3 -m venv "$scratch/venv"
py=$scratch/venv/bin/python
"$py" -m pip install -q 'maturin>=1.9.4,<2' 'pytest>=8' 'chess>=1.10'

# The dev profile shares `target/debug` with `cargo test`: only PyO3 and the module are compiled here (PyO3
# unoptimised: see the root Cargo.toml's profiles).
"$scratch/venv/bin/maturin" build -m crates/python/Cargo.toml --profile dev --out "$scratch/wheels"
wheels=("$scratch"/wheels/retro_tablebase-*-abi3-*.whl)
if [[ ! -f ${wheels[0]} ]]; then
  echo "python-test: maturin made no abi3 wheel: $(ls "$scratch/wheels")" >&2
  exit 1
fi
"$py" -m pip install -q "${wheels[0]}"

# The CLI is built already by `cargo test` (its integration tests run it).
cargo build -p retro
"${CARGO_TARGET_DIR:-$here/target}/debug/retro" generate tictactoe --out "$scratch/tables" --quiet

# Run from the scratch folder, so that the package imported is the installed one.
(cd "$scratch" && RETRO_TICTACTOE_TABLES="$scratch/tables" "$py" -m pytest -q "$here/crates/python/tests")
echo "python-test: passed in $((SECONDS - start)) s"
