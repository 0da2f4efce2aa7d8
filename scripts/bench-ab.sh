#!/usr/bin/env bash
# Compares the engine's throughput at two commits with their runs interleaved: this VM's speed
# drifts by ±20 % within minutes, so two `cargo bench` runs minutes apart do not compare.
#   scripts/bench-ab.sh REV_A REV_B [SCENARIO.json ...]   (ROUNDS=5 in the environment by default)
# Builds examples/profile_workload at each commit (in a git worktree under target/bench-ab), runs
# them in turn on each scenario (default benches/scenarios/{a,c,e}-*.json) and prints each
# commit's M events/s, sorted, and the median.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 REV_A REV_B [SCENARIO.json ...]" >&2; exit 2; }
a=$1 b=$2; shift 2
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(benches/scenarios/a-cleanup-timers-uniform.json benches/scenarios/c-two-level-ttl.json benches/scenarios/e-top-n-append-ttl.json)
rounds=${ROUNDS:-5}
root=$(pwd)
out="$root/target/bench-ab"
mkdir -p "$out"
target=${CARGO_TARGET_DIR:-$root/target}
bins=()
for rev in "$a" "$b"; do
  sha=$(git rev-parse --short "$rev")
  tree="$out/tree-$sha"
  [ -d "$tree" ] || git worktree add -q --detach "$tree" "$sha"
  (cd "$tree" && CARGO_TARGET_DIR="$target" cargo build -q --release --example profile_workload)
  cp "$target/release/examples/profile_workload" "$out/profile_workload-$sha"
  bins+=("$out/profile_workload-$sha")
done
for s in "${scenarios[@]}"; do
  declare -A got=()
  for _ in $(seq "$rounds"); do
    for bin in "${bins[@]}"; do
      v=$("$bin" "$s" 2>&1 | grep -oE '= [0-9.]+ M events/s' | grep -oE '[0-9.]+')
      got[$bin]="${got[$bin]:-} $v"
    done
  done
  echo "== $s"
  for bin in "${bins[@]}"; do
    sorted=$(echo ${got[$bin]} | tr ' ' '\n' | sort -n | tr '\n' ' ')
    median=$(echo ${got[$bin]} | tr ' ' '\n' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
    echo "${bin##*profile_workload-}: median $median M events/s ($sorted)"
  done
  unset got
done
