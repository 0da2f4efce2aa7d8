#!/usr/bin/env bash
# Builds the page into a folder with only what the tests already install (cargo, the
# wasm32-unknown-unknown target and wasm-bindgen-cli; scripts/setup.sh test): no Trunk.
#
#   scripts/build-page.sh [DIST]     # default DIST: dist
#
# DIST gets index.html (this repository's index.html with its `data-trunk` links replaced by
# what Trunk would write), the three style sheets, flink-state-sim.js and flink-state-sim_bg.wasm.
# Every URL is relative, so DIST works at any path (the book serves it under sim/).
# The wasm is size-optimised with binaryen's wasm-opt -Oz when target/tools has it
# (`scripts/setup.sh serve` installs it from npm); WASM_OPT=0 skips that (keeps function names).
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
target=${CARGO_TARGET_DIR:-target}
say() { printf '[build-page] %s\n' "$*" >&2; }

# The page is the library (cdylib) without the CLI feature, in the size-tuned profile.
say "cargo build --lib --profile wasm-release --target wasm32-unknown-unknown"
cargo build --quiet --lib --profile wasm-release --no-default-features --target wasm32-unknown-unknown
wasm="$target/wasm32-unknown-unknown/wasm-release/flink_state_sim.wasm"
[ -f "$wasm" ] || { say "$wasm is missing after the build"; exit 1; }

mkdir -p "$dist"
say "wasm-bindgen --target web → $dist"
wasm-bindgen --target web --no-typescript --out-dir "$dist" --out-name flink-state-sim "$wasm"

opt=target/tools/node_modules/.bin/wasm-opt
out="$dist/flink-state-sim_bg.wasm"
if [ "${WASM_OPT:-1}" = 0 ]; then
  say "WASM_OPT=0: the wasm is not size-optimised"
elif [ -x "$opt" ]; then
  before=$(stat -c %s "$out"); before_gz=$(gzip -9 -c "$out" | wc -c)
  # The features wasm-bindgen 0.2.130's output uses (Rust 1.95's wasm32 defaults).
  "$opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue "$out" -o "$out.opt"
  mv "$out.opt" "$out"
  after=$(stat -c %s "$out"); after_gz=$(gzip -9 -c "$out" | wc -c)
  say "wasm-opt -Oz: $before → $after bytes; gzipped $before_gz → $after_gz bytes"
  # The size budget (README, "The page's size"): every docs page with a simulator downloads this.
  budget_gz=1800000
  if [ "$after_gz" -gt "$budget_gz" ] && [ "${SIZE_BUDGET:-1}" != 0 ]; then
    say "over the size budget: $after_gz bytes gzipped > $budget_gz (README, \"The page's size\"; SIZE_BUDGET=0 builds anyway)"
    exit 1
  fi
  # Where the bytes go, by crate (the module cargo built still has its function names).
  python3 scripts/wasm-size-by-crate.py "$wasm" | head -8 | sed 's/^/[build-page]   /' >&2 || true
else
  say "binaryen's wasm-opt is not installed (scripts/setup.sh serve installs it): the wasm is not size-optimised"
fi

# index.html: each `<link data-trunk rel="css" href="www/X.css" />` becomes a plain style sheet
# link (the file copied beside it), and the `<link data-trunk rel="rust" …/>` the module script
# that starts the app (src/ui/mod.rs's #[wasm_bindgen(start)] runs on init).
python3 - "$dist" <<'PY'
import re, shutil, sys
dist = sys.argv[1]
html = open("index.html", encoding="utf-8").read()
def css(m):
    src = m.group(1)
    name = src.rsplit("/", 1)[-1]
    shutil.copyfile(src, f"{dist}/{name}")
    return f'<link rel="stylesheet" href="./{name}" />'
html, n_css = re.subn(r'<link data-trunk rel="css" href="([^"]+)"\s*/>', css, html)
start = ('<link rel="modulepreload" href="./flink-state-sim.js" />\n'
         '    <script type="module">import init from "./flink-state-sim.js"; '
         'await init({ module_or_path: "./flink-state-sim_bg.wasm" });</script>')
html, n_rust = re.subn(r'<link data-trunk rel="rust"[^>]*/>', lambda m: start, html)
html = re.sub(r'\s*<!-- Build the library.*?-->', '', html, flags=re.S)
if n_css == 0 or n_rust != 1 or "data-trunk" in html:
    sys.exit(f"[build-page] index.html: expected style sheets and one rust link with data-trunk "
             f"(found {n_css} and {n_rust}); not written")
open(f"{dist}/index.html", "w", encoding="utf-8").write(html)
PY
say "done: $dist/index.html (serve it: python3 scripts/serve.py 8080 $dist)"
