#!/usr/bin/env python3
"""Drafts the `expect` block of a scenario file from what the engine produces, for the book's
scenarios (book/scenarios/): every operator's changelog, every timer event, the result table and
its stale rows. Read the draft against Flink's rules before you keep it: `flink-state-sim check`
then holds the book to it.

Usage: cargo build --release && python3 scripts/book_expect.py FILE.json [--write]
(--write puts the block into the file, replacing an `expect` it has).
"""
import json
import subprocess
import sys
from datetime import datetime, timezone

BIN = "target/release/flink-state-sim"


def run(path, fmt):
    out = subprocess.run([BIN, "run", path, "--format", fmt], check=True, capture_output=True, text=True)
    return out.stdout


def value(text):
    """A result cell as JSON: numbers, null, booleans as themselves, anything else a string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def when(ms, date_times):
    if not date_times:
        return ms
    t = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S" if t.second else "%Y-%m-%dT%H:%M")


def draft(path):
    scenario = json.load(open(path))
    steps = scenario.get("steps", [])
    date_times = scenario.get("time_format") == "date-time" or (
        scenario.get("time_format") is None and any(isinstance(s.get("at", s.get("advance_to")), str) for s in steps))
    changelog, timers = {}, {}
    for line in run(path, "jsonl").splitlines():
        r = json.loads(line)
        if r["what"] == "emitted":
            changelog.setdefault(r["op"], []).append([r["kind"], r["row"]])
        elif r["what"] in ("timer_registered", "timer_deleted", "timer_fired"):
            timers.setdefault(r["op"], []).append([r["what"][6:], r["key"], when(r["timer_ms"], date_times)])
    rows, stale = [], 0
    text = run(path, "text").splitlines()
    start = next(i for i, l in enumerate(text) if l.startswith("result ["))
    for line in text[start + 1:]:
        if not line.startswith("  ") or line.strip() == "(empty)":
            continue
        cells, _, note = line.strip().partition("    (")
        rows.append([value(c) for c in cells.split(", ")])
        stale += note.startswith("stale")
    expect = {"changelog": changelog}
    if timers:
        expect["timers"] = timers
    expect["result"] = rows
    expect["stale_rows"] = stale
    return scenario, expect


if __name__ == "__main__":
    scenario, expect = draft(sys.argv[1])
    if "--write" in sys.argv:
        scenario["expect"] = expect
        with open(sys.argv[1], "w") as f:
            json.dump(scenario, f, indent=1, ensure_ascii=False)
            f.write("\n")
    else:
        print(json.dumps(expect, indent=1, ensure_ascii=False))
