#!/usr/bin/env python3
"""Regenerates README.md's "Timer churn vs max − min" table.

Runs the CLI over the input of the preset `timer-churn-min-equals-max` (100 003 logins, 1 000
users, user-1 the hottest) with min = 1 h and a range of gaps max − min, and prints a Markdown
table of the cleanup-timer operations: all of them (`--trace metrics`, last JSONL sample) and the
hottest key's (`--trace full`, its `timer_registered` / `timer_deleted` records). Gaps under 5
minutes need `"test_harness": true` (TableConfig.setIdleStateRetentionTime refuses them).

    cargo build --release && python3 scripts/timer_churn_table.py            # print the table
    python3 scripts/timer_churn_table.py --write-readme                      # and put it in README.md
"""

import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLI = ROOT / "target" / "release" / "flink-state-sim"
PRESET = ROOT / "scenarios" / "timer-churn-min-equals-max.json"
README = ROOT / "README.md"
START, END = "<!-- timer-churn-table:start -->", "<!-- timer-churn-table:end -->"
HOT_KEY = "user-1"
MIN = "1 h"
# (max − min as Flink writes a duration, max as the scenario writes it)
GAPS = [
    ("0", "1 h"),
    ("1 s", "3601 s"),
    ("1 min", "61 min"),
    ("5 min", "65 min"),
    ("15 min", "75 min"),
    ("1 h", "2 h"),
    ("4 h", "5 h"),
    ("23 h", "24 h"),
]
GAP_UNDER_5_MIN = {"0", "1 s", "1 min"}


def run(scenario: dict, *args: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario, f)
        path = f.name
    try:
        out = subprocess.run([str(CLI), "run", path, "--format", "jsonl", *args],
                             check=True, capture_output=True, text=True)
        return out.stdout
    finally:
        pathlib.Path(path).unlink()


def row(gap: str, max_: str) -> str:
    scenario = json.loads(PRESET.read_text())
    harness = gap in GAP_UNDER_5_MIN
    scenario["idle_state_retention"] = {"min": MIN, "max": max_, "test_harness": harness}
    last = json.loads(run(scenario, "--trace", "metrics").splitlines()[-1])
    op = next(iter(last["operators"].values()))
    inputs = last["inputs"]
    registered, deleted, fired = op["timers_registered"], op["timers_deleted"], op["timers_fired"]
    hot_inputs = hot_ops = 0
    marker = f'"key":"{HOT_KEY}"'
    for line in run(scenario, "--trace", "full").splitlines():
        if marker not in line:
            continue
        what = json.loads(line)["what"]
        hot_inputs += what == "received"
        hot_ops += what in ("timer_registered", "timer_deleted")
    accepted = "no (test harness only)" if harness else "yes"
    per_input = (registered + deleted) / inputs
    return (f"| {gap} | {accepted} | {registered} | {deleted} | {fired} | {per_input:.3f} | "
            f"{hot_ops} for {hot_inputs} ({hot_ops / hot_inputs:.4f}) |")


def table() -> str:
    lines = [
        f"| max − min (min = {MIN}) | accepted by Flink | timers registered | deleted | fired "
        f"| registrations + deletions per input | {HOT_KEY}: registrations + deletions for its logins |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [row(gap, max_) for gap, max_ in GAPS]
    return "\n".join(lines)


def main() -> None:
    if not CLI.exists():
        sys.exit(f"{CLI} not found: run `cargo build --release` first")
    text = table()
    print(text)
    if "--write-readme" in sys.argv[1:]:
        readme = README.read_text()
        head, rest = readme.split(START, 1)
        _, tail = rest.split(END, 1)
        README.write_text(f"{head}{START}\n{text}\n{END}{tail}")


if __name__ == "__main__":
    main()
