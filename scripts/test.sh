#!/usr/bin/env bash
# Runs every test: native (`cargo test`: engine, presets, oracle, bug cases, CLI) and in headless
# Chromium (`wasm-pack test`: the same engine tests compiled to wasm, and the page's browser tests).
# Installs what it needs first (scripts/setup.sh test), skipping what is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
echo "[test] native: cargo test" >&2
cargo test --locked
echo "[test] browser: wasm-pack test --headless --chrome" >&2
# --no-default-features: the CLI (feature `cli`) is native only.
wasm-pack test --headless --chrome --no-default-features
