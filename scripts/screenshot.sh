#!/usr/bin/env bash
# Builds the page, serves it on 127.0.0.1:8765 and takes screenshots with headless Chromium
# (Playwright driving Debian's /usr/bin/chromium). Output: target/screenshots/*.png
# SHOTS=drive: only the driving and timeline views (scripts/screenshot-drive.mjs), at 1280x800 and
# 400 px wide. SHOTS=tour: the first visit's tour and the bookmarks (scripts/screenshot-tour.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
tools=target/tools
if [ ! -d "$tools/node_modules/playwright-core" ]; then
  mkdir -p "$tools" && npm install --silent --prefix "$tools" playwright-core@1 >/dev/null
fi
scripts/build-page.sh dist
mkdir -p target/screenshots
python3 -m http.server 8765 --bind 127.0.0.1 -d dist >/dev/null 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 1
# ES modules resolve packages next to the script, so run a copy that sits beside node_modules.
script=screenshot${SHOTS:+-$SHOTS}.mjs
cp "scripts/$script" "$tools/$script"
node "$tools/$script" http://127.0.0.1:8765/ target/screenshots
