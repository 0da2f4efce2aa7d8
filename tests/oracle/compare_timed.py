#!/usr/bin/env python3
"""Compares re-recorded timed fixtures with reference ones (standard library only).

    python3 tests/oracle/compare_timed.py REFERENCE_DIR NEW_DIR [NAME ...]

For each NAME (default: every NAME.json in NEW_DIR), checks that the input fields, `explain`
(both plans, line for line) and `expected_planner_error` are equal, and that NAME.expected.json
holds the same changelog. `emit_log_run1` (wall-clock times) and `runs_compared` are not compared.
Prints one line per fixture; exit 1 when any differs.
"""
import json
import os
import sys

COMPARED = ["about", "conf", "timed_source", "views", "query", "stop_on", "settle_s",
            "explain", "expected_planner_error"]


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def compare(ref_dir, new_dir, name):
    ref, new = load(f"{ref_dir}/{name}.json"), load(f"{new_dir}/{name}.json")
    if ref is None or new is None:
        return [f"{name}.json missing in {ref_dir if ref is None else new_dir}"]
    diffs = []
    for field in COMPARED:
        if ref.get(field) != new.get(field):
            a, b = ref.get(field), new.get(field)
            if isinstance(a, dict) and isinstance(b, dict):
                for k in sorted(set(a) | set(b)):
                    if a.get(k) != b.get(k):
                        diffs.append(f"`{field}.{k}`:\n    reference {json.dumps(a.get(k))}\n"
                                     f"    new       {json.dumps(b.get(k))}")
            else:
                diffs.append(f"`{field}`:\n    reference {json.dumps(a)}\n    new       {json.dumps(b)}")
    ref_cl = load(f"{ref_dir}/{name}.expected.json")
    new_cl = load(f"{new_dir}/{name}.expected.json")
    if ref_cl != new_cl:
        diffs.append(f"changelog:\n    reference {json.dumps(ref_cl)}\n    new       {json.dumps(new_cl)}")
    return diffs


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ref_dir, new_dir, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not names:
        names = sorted(f[:-5] for f in os.listdir(new_dir)
                       if f.endswith(".json") and not f.endswith(".expected.json"))
    bad = 0
    for name in names:
        diffs = compare(ref_dir, new_dir, name)
        if diffs:
            bad += 1
            print(f"DIFFERENT {name}:\n  " + "\n  ".join(diffs))
        else:
            cl = load(f"{new_dir}/{name}.expected.json")
            what = "planner error" if cl is None else f"changelog of {len(cl)} rows"
            print(f"same      {name}: inputs, explain and {what} identical")
    print(f"{len(names) - bad} of {len(names)} identical")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
