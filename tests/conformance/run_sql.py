#!/usr/bin/env python3
"""Run `flink-state-sim export-sql` scripts on real Flink 2.3 and compare the print sink's lines
with the simulator's output for the same scenario.

    /tmp/flinkvenv/bin/python tests/conformance/run_sql.py [--bin PATH] [--runs N] [--record] \
        (--preset NAME | FILE.json)...

For each scenario: export it (exit 2 = refused, printed with the reason), run the script
statement by statement as Flink's SQL client does (split at `;` outside quotes and comments,
`execute_sql` each, streaming mode, parallelism 1) in a fresh JVM per run, keep the lines the
`print` sink writes (`+I[..]`, `-U[..]`, ...), and compare them with the `emitted` messages of
the operator the script's header names, from `flink-state-sim run --format jsonl`. `--record`
writes NAME.sql and NAME.flink.txt into tests/conformance/exported/.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LINE = re.compile(r"^(?:\d+> )?([+-][IUD]\[.*\])$")

RUNNER = r'''
import re, sys
from pyflink.table import EnvironmentSettings, TableEnvironment
t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
t.get_config().set("parallelism.default", "1")
for s in sys.argv[1:]:
    # SET is the SQL client's statement: it sets the session's configuration.
    m = re.fullmatch(r"(?:\s*--[^\n]*\n)*\s*SET\s+'((?:[^']|'')*)'\s*=\s*'((?:[^']|'')*)'\s*", s, re.S | re.I)
    if m:
        t.get_config().set(m.group(1).replace("''", "'"), m.group(2).replace("''", "'"))
        continue
    r = t.execute_sql(s)
    if s.lstrip().upper().startswith("INSERT"):
        r.wait()
'''


def split(sql):
    """Statements at `;` outside '...', `...`, "...", -- and /* */ comments."""
    out, cur, i, n = [], [], 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'`\"":
            j = sql.index(c, i + 1) if c in sql[i + 1:] else n - 1
            cur.append(sql[i:j + 1]); i = j + 1; continue
        if sql.startswith("--", i):
            j = sql.find("\n", i); j = n if j < 0 else j
            cur.append(sql[i:j]); i = j; continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2); j = n if j < 0 else j + 2
            cur.append(sql[i:j]); i = j; continue
        if c == ";":
            out.append("".join(cur)); cur = []; i += 1; continue
        cur.append(c); i += 1
    out.append("".join(cur))
    # Drop statements that hold only comments and blanks.
    def blank(s):
        s = re.sub(r"--[^\n]*", "", s)
        return not re.sub(r"/\*.*?\*/", "", s, flags=re.S).strip()
    return [s for s in out if not blank(s)]


def flink_lines(sql):
    proc = subprocess.run([sys.executable, "-c", RUNNER] + split(sql), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return [m.group(1) for m in map(LINE.match, proc.stdout.splitlines()) if m]


def value(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def sim_lines(binary, source_args, op):
    out = subprocess.run([binary, "run", *source_args, "--format", "jsonl"], capture_output=True, text=True, check=True)
    lines = []
    for line in out.stdout.splitlines():
        e = json.loads(line)
        if e.get("op") == op and e.get("what") == "emitted":
            lines.append(f"{e['kind']}[{', '.join(value(v) for v in e['row'])}]")
    return lines


def main():
    args = sys.argv[1:]
    binary = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "debug", "flink-state-sim")
    runs, record, targets = 2, False, []
    while args:
        a = args.pop(0)
        if a == "--bin":
            binary = args.pop(0)
        elif a == "--runs":
            runs = int(args.pop(0))
        elif a == "--record":
            record = True
        elif a == "--preset":
            targets.append((args[0], ["--preset", args.pop(0)]))
        else:
            targets.append((os.path.basename(a)[:-len(".json")], [a]))
    differ = 0
    for name, source_args in targets:
        ex = subprocess.run([binary, "export-sql", *source_args], capture_output=True, text=True)
        if ex.returncode != 0:
            print(f"{name}: REFUSED ({ex.stderr.strip()})")
            continue
        sql = ex.stdout
        op = re.search(r"for operator '((?:[^']|'')*)'\.", sql).group(1).replace("''", "'")
        expected = sim_lines(binary, source_args, op)
        results = [flink_lines(sql) for _ in range(runs)]
        same_runs = all(r == results[0] for r in results)
        match = results[0] == expected
        warned = " (the export warns: " + "; ".join(w.strip() for w in ex.stderr.splitlines()) + ")" if ex.stderr.strip() else ""
        print(f"{name}: {'MATCH' if match else 'DIFFERENT'}, {len(expected)} lines, {runs} Flink runs "
              f"{'identical' if same_runs else 'DIFFER FROM EACH OTHER'}{warned}")
        if not match:
            differ += 1
            for i in range(max(len(expected), len(results[0]))):
                a = expected[i] if i < len(expected) else ""
                b = results[0][i] if i < len(results[0]) else ""
                print(f"    {'  ' if a == b else '!='} sim {a:<40} flink {b}")
        if record:
            out = os.path.join(HERE, "exported")
            with open(os.path.join(out, name + ".sql"), "w") as f:
                f.write(sql)
            with open(os.path.join(out, name + ".flink.txt"), "w") as f:
                f.write(f"# {name}: print sink lines of Flink 2.3.0 ({runs} runs identical: {same_runs}); "
                        f"the simulator's output {'is the same' if match else 'DIFFERS'}\n")
                f.write("\n".join(results[0]) + "\n")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
