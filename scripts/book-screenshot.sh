#!/usr/bin/env bash
# Builds the book (scripts/book.sh), serves it on 127.0.0.1:8766 and screenshots its chapters with
# headless Chromium (Playwright driving Debian's /usr/bin/chromium), at 1280×800 and 400 px wide.
# Output: target/screenshots/book/*.png. Usage: scripts/book-screenshot.sh [CHAPTER…]
set -euo pipefail
cd "$(dirname "$0")/.."
tools=target/tools
if [ ! -d "$tools/node_modules/playwright-core" ]; then
  mkdir -p "$tools" && npm install --silent --prefix "$tools" playwright-core@1 >/dev/null
fi
[ "${SKIP_BUILD:-}" = 1 ] || scripts/book.sh
mkdir -p target/screenshots/book
python3 -m http.server 8766 --bind 127.0.0.1 -d target/book >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1
chapters=("$@")
[ ${#chapters[@]} -gt 0 ] || chapters=(introduction cleanup-timers five-minute-gap state-ttl retraction per-operator-ttl topn-dedup embedding)
cp scripts/book-screenshot.mjs "$tools/book-screenshot.mjs"
node "$tools/book-screenshot.mjs" http://127.0.0.1:8766 target/screenshots/book "${chapters[@]}"
