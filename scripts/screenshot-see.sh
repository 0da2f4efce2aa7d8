#!/usr/bin/env bash
# Screenshots of the retraction flow, the charts and the state inspector (scripts/screenshot-see.mjs),
# at 1280x800 and 400 px wide, as scripts/screenshot.sh does for the page. Output: target/screenshots/see-*.png
set -euo pipefail
cd "$(dirname "$0")/.."
tools=target/tools
if [ ! -d "$tools/node_modules/playwright-core" ]; then
  mkdir -p "$tools" && npm install --silent --prefix "$tools" playwright-core@1 >/dev/null
fi
scripts/build-page.sh dist
mkdir -p target/screenshots
python3 -m http.server 8766 --bind 127.0.0.1 -d dist >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1
cp scripts/screenshot-see.mjs "$tools/screenshot-see.mjs"
node "$tools/screenshot-see.mjs" http://127.0.0.1:8766/ target/screenshots
