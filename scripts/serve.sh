#!/usr/bin/env bash
# Builds the page and serves it: http://127.0.0.1:${PORT:-8080}/
# Installs what it needs first (scripts/setup.sh serve), skipping what is already installed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh serve
port=${PORT:-8080}
echo "[serve] building; the page will be at http://127.0.0.1:$port/ (Ctrl-C stops the server)" >&2
scripts/build-page.sh dist
echo "[serve] http://127.0.0.1:$port/ (Ctrl-C stops the server; rerun to rebuild)" >&2
exec python3 scripts/serve.py "$port" dist
