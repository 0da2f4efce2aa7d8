#!/usr/bin/env bash
# Installs what flink-state-sim needs, skipping whatever is already installed at the
# right version. Usage: scripts/setup.sh test   (what the tests need)
#                       scripts/setup.sh serve  (what building and serving the page needs)
# Versions are pinned here and in Cargo.toml; see ../README.md.
set -euo pipefail
WASM_BINDGEN_VERSION=0.2.130   # must equal the `wasm-bindgen = "=..."` pin in Cargo.toml
WASM_PACK_VERSION=0.15.1
BINARYEN_VERSION=132           # wasm-opt for the release page (Debian's binaryen 108 is too old)
what=${1:-test}
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*" >&2; }
have_version() { command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -q -- "$2"; }

if ! rustup target list --installed | grep -q '^wasm32-unknown-unknown$'; then
  say "adding Rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if have_version wasm-bindgen "$WASM_BINDGEN_VERSION" && have_version wasm-bindgen-test-runner "$WASM_BINDGEN_VERSION"; then :; else
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 5 min the first time)"
  # Not --locked: a locked dependency is newer than the registry mirror has.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

case "$what" in
  test)
    if ! have_version wasm-pack "$WASM_PACK_VERSION"; then
      say "installing wasm-pack $WASM_PACK_VERSION (about 3 min the first time)"
      cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked --force
    fi
    if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
      say "installing Debian's chromium and chromium-driver (about 1 min)"
      SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
    fi
    ;;
  serve)
    if ! target/tools/node_modules/.bin/wasm-opt --version 2>/dev/null | grep -q "version $BINARYEN_VERSION"; then
      say "installing binaryen $BINARYEN_VERSION (wasm-opt) from npm into target/tools"
      mkdir -p target/tools && npm install --silent --prefix target/tools "binaryen@$BINARYEN_VERSION" >/dev/null
    fi
    ;;
  *) say "unknown argument '$what' (expected test or serve)"; exit 2 ;;
esac
