#!/usr/bin/env python3
"""Compare recorded/oracle_NAME.json with the shared fixtures they copy
(/work/shared/oracle/NAME.expected.json and the spec's plan_ops / plan_changelog).

    compare_oracle.py [SHARED_DIR]     # default /work/shared/oracle; prints one line per spec
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/oracle"
    diffs = 0
    for f in sorted(os.listdir(os.path.join(HERE, "specs"))):
        if not f.startswith("oracle_"):
            continue
        name = f[len("oracle_"):-len(".json")]
        rec_path = os.path.join(HERE, "recorded", f)
        if not os.path.exists(rec_path):
            print(f"{name}: NOT RECORDED")
            diffs += 1
            continue
        rec = json.load(open(rec_path))
        spec = json.load(open(os.path.join(shared, name + ".json")))
        expected = json.load(open(os.path.join(shared, name + ".expected.json")))
        notes = []
        if rec.get("changelog") != expected:
            notes.append(f"changelog differs: recorded {rec.get('changelog')} shared {expected}")
        for key in ("plan_ops", "plan_changelog"):
            if key in spec and spec[key] != rec.get(key):
                for i, (a, b) in enumerate(zip(spec[key], rec.get(key, []))):
                    if a != b:
                        notes.append(f"{key}[{i}] differs: recorded {b!r} shared {a!r}")
                if len(spec[key]) != len(rec.get(key, [])):
                    notes.append(f"{key} length differs")
        checked = "changelog" + "".join(f", {k}" for k in ("plan_ops", "plan_changelog") if k in spec)
        print(f"{name}: {'same ' + checked if not notes else 'DIFFERENT'}")
        for n in notes:
            print("    " + n)
        diffs += bool(notes)
    print(f"{diffs} spec(s) differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
