#!/usr/bin/env bash
# Builds the documentation book into target/book, with the simulator beside it in
# target/book/sim (the page built by scripts/build-page.sh, release, wasm-opt'd), which the
# chapters' <flink-state-sim> elements load (book/embed.js) and the ?embed iframes open.
# Installs what it needs first (scripts/setup.sh serve), skipping what is already installed.
#
#   scripts/book.sh            # build; then: python3 scripts/serve.py 8000 target/book
#   scripts/book.sh serve      # build and serve on http://127.0.0.1:${PORT:-8000}/
#
# The chapters' scenarios and printed command outputs are checked by `cargo test` (tests/book.rs),
# not here.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh serve
if ! command -v mdbook >/dev/null 2>&1; then
  echo "[book] installing mdbook (about 3 min the first time)" >&2
  cargo install mdbook --version 0.5.4 --locked
fi
echo "[book] mdbook build book → target/book" >&2
mdbook build book >/dev/null
echo "[book] scripts/build-page.sh → target/book/sim" >&2
# Relative URLs (./): the page works under sim/; book/embed.js imports sim/flink-state-sim.js.
scripts/build-page.sh target/book/sim
for f in flink-state-sim.js flink-state-sim_bg.wasm index.html; do
  [ -f "target/book/sim/$f" ] || { echo "[book] target/book/sim/$f is missing after the build" >&2; exit 1; }
done
echo "[book] done: target/book/index.html (serve it: python3 scripts/serve.py 8000 target/book)" >&2
if [ "${1:-}" = serve ]; then
  port=${PORT:-8000}
  echo "[book] serving http://127.0.0.1:$port/ (Ctrl-C stops the server)" >&2
  exec python3 scripts/serve.py "$port" target/book
fi
