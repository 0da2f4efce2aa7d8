#!/usr/bin/env bash
# Builds the book (scripts/book.sh; SKIP_BUILD=1 uses target/book as it is), serves it on
# 127.0.0.1:8767 and measures its first simulator (cleanup-timers.html) at window widths 1280 and
# 400 px, as it opens and at its last step (scripts/embed-measure.mjs), with screenshots in
# target/screenshots/embed/; then the embedding chapter's simulator with every panel, compact.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=target/tools
if [ ! -d "$tools/node_modules/playwright-core" ]; then
  mkdir -p "$tools" && npm install --silent --prefix "$tools" playwright-core@1 >/dev/null
fi
[ "${SKIP_BUILD:-}" = 1 ] || scripts/book.sh
mkdir -p target/screenshots/embed
python3 -m http.server 8767 --bind 127.0.0.1 -d target/book >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1
cp scripts/embed-measure.mjs "$tools/embed-measure.mjs"
SHOTS=target/screenshots/embed node "$tools/embed-measure.mjs" http://127.0.0.1:8767/cleanup-timers.html
SHOTS=target/screenshots/embed node "$tools/embed-measure.mjs" http://127.0.0.1:8767/embedding.html \
  'flink-state-sim[panels*="inspector"]'
