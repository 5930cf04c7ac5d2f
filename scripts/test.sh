#!/usr/bin/env bash
# Every test of the project: the Rust workspace, then the Python package,
# built with maturin into a virtual environment under target/ and tested
# with pytest. Needs a Rust toolchain and python3 (>= 3.9) with venv.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

echo "== cargo test --workspace"
cargo test --workspace

echo "== python package (python/): build and pytest"
venv=$root/target/python-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
# numpy: some programs of examples/te/programs check their values with it.
"$venv/bin/python" -m pip install -q --disable-pip-version-check 'maturin>=1.7,<2' 'pytest>=7' numpy
(
  cd python
  export VIRTUAL_ENV=$venv PATH=$venv/bin:$PATH
  CARGO_TARGET_DIR=$root/target/python-build maturin develop -q
  # The tests compare against the command `cargo test` built above.
  RANGEFINDER_BIN=$root/target/debug/rangefinder python -m pytest -q
)
