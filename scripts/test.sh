#!/usr/bin/env bash
# Runs every test: native (`cargo test`: engine, presets, oracle, bug cases, CLI; then 6000 cases
# of the fuzzer, examples/fuzz_scenarios) and in headless
# Chromium (`wasm-pack test`: the same engine tests compiled to wasm, and the page's browser tests,
# bundled: tests/wasm_engine.rs, tests/wasm_page.rs;
# then tests/browser_drive_perf.rs on the release build, which times step / step back / scrub at
# 100 k events). Installs what it needs first (scripts/setup.sh test), skipping what is already
# installed. Ends with one line: the total of tests passed, or which part failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
log=$(mktemp)
# Each part's start, with the seconds since the test command began (where a CI run's time goes).
say() { echo "[test] +${SECONDS}s $*" >&2; }
part="native"
report_failure() { echo "[test] FAILED in the $part tests (see above)" >&2; }
trap 'status=$?; [ $status -ne 0 ] && report_failure; rm -f "$log"; exit $status' EXIT

# wasm-pack asks crates.io for its latest version once a day and, when the registry mirror
# refuses, ends a passing run with "[WARN]: failed to get wasm-pack version". Its answer is
# cached in a stamp file beside the binary: record the installed version as checked today.
stamp="$(dirname "$(command -v wasm-pack)")/wasm-pack.stamp"
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1380 2>/dev/null)" ] || ! grep -q '^version ' "$stamp"; then
  printf 'created %s\nversion %s' "$(date +%Y-%m-%dT%H:%M:%S.%N%:z)" "$(wasm-pack --version | cut -d' ' -f2)" \
    >"$stamp" 2>/dev/null || true
fi

# The page's build for the timing tests (profile wasm-release: LTO, one codegen unit, 2 min on
# two cores) is mostly one thread: it builds in the background, in a target directory of its own
# (cargo locks its directory while it builds), while the native tests and the fuzzer run.
perf_dir="${CARGO_TARGET_DIR:-target}-perf"
perf_log=$(mktemp)
CARGO_TARGET_DIR="$perf_dir" cargo test --locked --no-run --profile wasm-release --target wasm32-unknown-unknown \
  --no-default-features --test browser_drive_perf >"$perf_log" 2>&1 &
perf_build=$!
trap 'status=$?; kill "$perf_build" 2>/dev/null || true; [ $status -ne 0 ] && report_failure; rm -f "$log" "$perf_log"; exit $status' EXIT

say "native: cargo test"
cargo test --locked 2>&1 | tee -a "$log"
part="fuzz"
# A fixed number of fuzz cases (about 30 s on two idle cores; not a time limit, so the same cases
# run on any machine): generated and mutated scenarios of every operator, mode and input path,
# a sample through the CLI binary built beside it. Ends with "N passed, M failed".
say "fuzz: examples/fuzz_scenarios, 6000 cases (profile fuzz)"
cargo build --locked --profile fuzz --bin flink-state-sim --example fuzz_scenarios
cargo run --locked --profile fuzz --example fuzz_scenarios -- 6000 2>&1 | tee -a "$log"
part="native, optimised (memory)"
say "native, profile fuzz: tests/memory.rs (10^7 events, peak heap)"
cargo test --locked --profile fuzz --test memory -- --ignored --nocapture 2>&1 | tee -a "$log"
part="browser"
say "browser: headless Chromium (tests/wasm_engine.rs, tests/wasm_page.rs, tests/browser_crash.rs)"
# --no-default-features: the CLI (feature `cli`) is native only.
# Three wasm binaries: the engine's tests and the page's, each bundled into one binary (each
# binary is linked, processed by wasm-bindgen and started in its own Chromium: one per file
# was most of this part's time; tests/wasm_bundles.rs checks no file is left out), and
# tests/browser_crash.rs alone (the debug build has its hidden action that panics; nothing can
# run after it in the same module).
# Through cargo with wasm-pack's runner settings (what `wasm-pack test --headless --chrome` runs,
# without its first `cargo build --tests`, which links every test target).
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="$(command -v wasm-bindgen-test-runner)"
export CHROMEDRIVER="$(command -v chromedriver)" WASM_BINDGEN_TEST_ONLY_WEB=1
# The runner's limit for a whole test binary (its default is 20 s; wasm-pack sets 600).
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-1200}"
cargo test --locked --target wasm32-unknown-unknown --no-default-features \
  --test wasm_engine --test wasm_page --test browser_crash 2>&1 | tee -a "$log"
part="browser (release, timing)"
say "browser, the page's build (profile wasm-release): tests/browser_drive_perf.rs (100 k events)"
# Through cargo with wasm-pack's runner settings: `wasm-pack test --release` would first build
# every test target with LTO (`cargo build --tests`), which takes long on two cores.
# Built in the background since the start (above).
if ! wait "$perf_build"; then
  cat "$perf_log" >&2
  exit 1
fi
CARGO_TARGET_DIR="$perf_dir" cargo test --locked --profile wasm-release --target wasm32-unknown-unknown --no-default-features --test browser_drive_perf \
  -- --nocapture 2>&1 | tee -a "$log"
say "done"
total=$(grep -aoE '^test result: ok\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
runs=$(grep -acE '^test result: ok\.' "$log")
fuzzed=$(grep -aoE '^[0-9]+ passed, 0 failed$' "$log" | awk '{s += $1} END {print s + 0}')
echo "[test] PASSED: $total tests in $runs test binaries (native and headless Chromium) and $fuzzed fuzz cases, none failed"
