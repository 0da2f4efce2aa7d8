#!/usr/bin/env bash
# The engine's benchmark on the wasm build, in headless Chromium: the workloads of the native
# `cargo bench --bench engine` (benches/engine.rs), run by tests/wasm_bench.rs (Cargo feature
# `wasm-bench`). Not part of scripts/test.sh or CI: it takes a few minutes and measures, it does
# not check.
#
# Usage: scripts/bench-wasm.sh
# Prints a short header (build, toolchain, browser) and one `BENCH name key=value ...` line per
# workload; the whole run's output is kept in target/bench-wasm/last.log.
# Environment: WASM_BINDGEN_TEST_TIMEOUT (seconds for the whole test run, default 3600 here;
# wasm-bindgen-test-runner's own default of 20 s is far too short for 1 M-event runs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test

export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-3600}"
log_dir=target/bench-wasm
log="$log_dir/last.log"
mkdir -p "$log_dir"

# --release: the release profile (opt-level "s", LTO), as the page's build.
# --no-default-features: the CLI (feature `cli`) is native only.
# -- --nocapture: the runner shows the tests' console output (the BENCH lines) although they pass.
cmd=(wasm-pack test --release --headless --chrome --no-default-features --features wasm-bench
     --test wasm_bench -- --nocapture)

echo "[bench-wasm] ${cmd[*]}  (WASM_BINDGEN_TEST_TIMEOUT=$WASM_BINDGEN_TEST_TIMEOUT)" >&2
start=$SECONDS
status=0
"${cmd[@]}" 2>&1 | tee "$log" >&2 || status=$?
elapsed=$((SECONDS - start))

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain 2>/dev/null | head -1)" ]; then commit="$commit+dirty"; fi
echo
echo "# flink-state-sim wasm benchmark (tests/wasm_bench.rs)"
echo "# build:    commit $commit, wasm32-unknown-unknown, release profile, features wasm-bench (no default features)"
echo "# rustc:    $(rustc --version)"
echo "# tools:    $(wasm-pack --version), $(wasm-bindgen --version)"
echo "# browser:  $(chromium --version 2>/dev/null || echo 'chromium: unknown'), headless; $(chromedriver --version 2>/dev/null | cut -d' ' -f1-2)"
echo "# machine:  $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "# command:  ${cmd[*]}"
echo "# time:     ${elapsed} s (build and run)"
grep -a '^BENCH ' "$log" || true

if [ "$status" -ne 0 ]; then
  echo "[bench-wasm] wasm-pack test failed (exit $status); full output in $log" >&2
  exit "$status"
fi
if ! grep -aq '^BENCH ' "$log"; then
  echo "[bench-wasm] no BENCH lines in the output; full output in $log" >&2
  exit 1
fi
