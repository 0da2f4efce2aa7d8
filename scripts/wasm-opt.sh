#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): on release builds, shrinks the page's wasm with
# binaryen's wasm-opt -Oz (installed by `scripts/setup.sh serve` into target/tools) and prints
# its size before and after, raw and gzipped. Debug builds are left alone, and so is a release
# build with WASM_OPT=0 (it keeps the function names, for profiling the page in Chromium).
set -euo pipefail
[ "${TRUNK_PROFILE:-}" = release ] || exit 0
[ "${WASM_OPT:-1}" != 0 ] || exit 0
cd "$(dirname "$0")/.."
opt=target/tools/node_modules/.bin/wasm-opt
if [ ! -x "$opt" ]; then
  echo "[wasm-opt] not installed (scripts/setup.sh serve installs it): the wasm is not size-optimised" >&2
  exit 0
fi
for wasm in "$TRUNK_STAGING_DIR"/*_bg.wasm; do
  before=$(stat -c %s "$wasm"); before_gz=$(gzip -9 -c "$wasm" | wc -c)
  # The features wasm-bindgen 0.2.130's output uses (Rust 1.95's wasm32 defaults).
  "$opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
  after=$(stat -c %s "$wasm"); after_gz=$(gzip -9 -c "$wasm" | wc -c)
  echo "[wasm-opt] $(basename "$wasm"): $before → $after bytes; gzipped $before_gz → $after_gz bytes" >&2
done
