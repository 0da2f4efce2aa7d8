#!/usr/bin/env python3
"""Records a wall-clock (timed-source) fixture on real Apache Flink 2.3.0 (PyPI apache-flink==2.3.0).

    /tmp/flinkvenv/bin/python tests/oracle/record_timed.py SPEC.json [--runs N] [--out DIR]

SPEC.json holds the input fields of a `tests/oracle/joins/join_*` fixture: `about`, `conf`,
`timed_source` (`name`, `schema`, `format` csv | debezium-json, `events` = [[offset_s, rows]]),
`views`, `query` and `stop_on` or `settle_s`. Other fields (a recorded fixture's `explain`, ...)
are ignored, so a recorded fixture is its own spec. The output NAME is SPEC's file name.

Each run is a separate process (its own JVM): streaming mode, parallelism 1, `hashmap` state
backend, mini-batch off, the spec's `conf` set. `src` is a `filesystem` table over an empty
temporary folder with `source.monitor-interval` = 1 s; each event is one file, written under a
hidden name (`.` prefix: `DefaultFileFilter` of flink-connector-files-2.3.0.jar skips names
starting with '.' or '_', checked with javap) and renamed at
`T0 + offset_s`. The query's `collect()` is read in order until `stop_on` comes out, or
`settle_s` after the last file; then the job is cancelled.

Writes DIR/NAME.json (the spec, `runs_compared`, `explain`, `emit_log_run1`) and
DIR/NAME.expected.json (the changelog `[[kind, [values]], ...]`, `null` for NULL). When the
planner refuses the query: `expected_planner_error` (the root cause, `Class: message`) and no
`.expected.json`. Runs that differ: nothing is written, exit 2.
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

INPUT_FIELDS = ["about", "conf", "timed_source", "views", "query", "stop_on", "settle_s"]
MONITOR_INTERVAL = "1 s"
# Seconds between the job reaching RUNNING and T0, so both scans are reading before the first file.
WARMUP_S = 4.0
# A `stop_on` run that has not seen its row this long after the last file is a failure.
STOP_ON_TIMEOUT_S = 30.0
# Lists of scalars at most this long stay on one line in NAME.json.
INLINE_WIDTH = 100
EXPLAIN_NOTE = ("StatementSet.explain(CHANGELOG_MODE) of INSERT INTO a 'print' sink "
                "(= EXPLAIN CHANGELOG_MODE INSERT ...)")


def fail(msg, code=1):
    print(f"record_timed: {msg}", file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------- spec and output files

def load_spec(path):
    with open(path) as f:
        fixture = json.load(f)
    spec = {k: fixture[k] for k in INPUT_FIELDS if k in fixture}
    for k in ["about", "timed_source", "views", "query"]:
        if k not in spec:
            fail(f"{path}: field `{k}` is required")
    if ("stop_on" in spec) == ("settle_s" in spec):
        fail(f"{path}: exactly one of `stop_on` and `settle_s` is required")
    spec.setdefault("conf", {})
    src = spec["timed_source"]
    for k in ["name", "schema", "format", "events"]:
        if k not in src:
            fail(f"{path}: field `timed_source.{k}` is required")
    if src["format"] not in ("csv", "debezium-json"):
        fail(f"{path}: `timed_source.format` must be csv or debezium-json, not {src['format']!r}")
    last = -1
    for i, (offset, rows) in enumerate(src["events"]):
        if offset < last:
            fail(f"{path}: `timed_source.events[{i}]`: offsets must not decrease ({offset} < {last})")
        last = offset
        for row in rows:
            check_row(path, i, src, row)
    # keep the fixtures' field order
    return {k: spec[k] for k in INPUT_FIELDS if k in spec}


def check_row(path, i, src, row):
    n = len(src["schema"])
    where = f"{path}: `timed_source.events[{i}]` row {row!r}"
    if src["format"] == "csv":
        if not isinstance(row, list) or len(row) != n:
            fail(f"{where}: a csv row is a list of {n} values (the schema's columns)")
        return
    kinds = {"+I": 2, "-D": 2, "U": 3}
    if not isinstance(row, list) or row[:1] == [] or row[0] not in kinds or len(row) != kinds[row[0]]:
        fail(f"{where}: a debezium-json row is [\"+I\", values], [\"-D\", values] or "
             f"[\"U\", before, after]")
    if any(len(vals) != n for vals in row[1:]):
        fail(f"{where}: values must have {n} entries (the schema's columns)")


def dumps(v, ind=0):
    """JSON laid out as the shared fixtures are: indent 1, lists of scalars on one line."""
    pad = " " * (ind + 1)
    if isinstance(v, dict):
        items = [f"{pad}{json.dumps(k)}: {dumps(x, ind + 1)}" for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * ind + "}"
    if isinstance(v, list):
        if all(not isinstance(x, (list, dict)) for x in v) and len(json.dumps(v)) <= INLINE_WIDTH:
            return json.dumps(v)
        return "[\n" + ",\n".join(pad + dumps(x, ind + 1) for x in v) + "\n" + " " * ind + "]"
    return json.dumps(v)


# ---------------------------------------------------------------- one run (own JVM)

def file_text(src, rows):
    names = [c[0] for c in src["schema"]]
    if src["format"] == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        for row in rows:
            w.writerow(["" if x is None else x for x in row])
        return out.getvalue()
    lines = []
    for row in rows:
        rec = lambda vals: dict(zip(names, vals))
        if row[0] == "+I":
            d = {"before": None, "after": rec(row[1]), "op": "c"}
        elif row[0] == "-D":
            d = {"before": rec(row[1]), "after": None, "op": "d"}
        else:
            d = {"before": rec(row[1]), "after": rec(row[2]), "op": "u"}
        lines.append(json.dumps(d) + "\n")
    return "".join(lines)


def csv_has_null(src):
    return src["format"] == "csv" and any(
        x is None for _, rows in src["events"] for row in rows for x in row)


def source_ddl(src, folder):
    cols = ", ".join(f"`{c}` {t}" for c, t in src["schema"])
    opts = {"connector": "filesystem", "path": folder, "format": src["format"],
            "source.monitor-interval": MONITOR_INTERVAL}
    if csv_has_null(src):
        # A csv NULL is written as an empty field and read back as NULL with this option
        # (join_left_multikey_nottl's recording shows null, not '').
        opts["csv.null-literal"] = ""
    with_ = ", ".join(f"'{k}' = '{v}'" for k, v in opts.items())
    return f"CREATE TEMPORARY TABLE `{src['name']}` ({cols}) WITH ({with_})"


def root_message(e):
    j = getattr(e, "java_exception", None)
    if j is None:
        return f"{type(e).__name__}: {e}"
    while j.getCause() is not None and j.getCause() != j:
        j = j.getCause()
    return j.toString()


def split_explain(text):
    sections, cur = {}, None
    for line in text.splitlines():
        if line.startswith("== ") and line.endswith(" =="):
            cur = line.strip("= ")
            sections[cur] = []
        elif cur is not None and line.strip():
            sections[cur].append(line.rstrip())
    return {"note": EXPLAIN_NOTE,
            "physical_plan_changelog_mode": sections["Optimized Physical Plan"],
            "execution_plan": sections["Optimized Execution Plan"]}


def plain(v):
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return str(v)


KINDS = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}


def one_run(spec_path, out_path):
    from pyflink.table import EnvironmentSettings, TableEnvironment
    from pyflink.table.explain_detail import ExplainDetail

    started = time.monotonic()
    spec = load_spec(spec_path)
    src = spec["timed_source"]
    folder = tempfile.mkdtemp(prefix="record_timed_")
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    cfg = t_env.get_config()
    cfg.set("parallelism.default", "1")
    cfg.set("state.backend.type", "hashmap")
    cfg.set("table.exec.mini-batch.enabled", "false")
    for k, v in spec["conf"].items():
        cfg.set(k, str(v))
    result = {}
    try:
        t_env.execute_sql(source_ddl(src, folder))
        for name, sql in spec["views"]:
            t_env.execute_sql(f"CREATE TEMPORARY VIEW `{name}` AS {sql}")
        table = t_env.sql_query(spec["query"])
        cols = ", ".join(f"`{n}` {t}" for n, t in zip(table.get_schema().get_field_names(),
                                                         table.get_schema().get_field_data_types()))
        t_env.execute_sql(f"CREATE TEMPORARY TABLE `__plan_sink` ({cols}) WITH ('connector' = 'print')")
        stmts = t_env.create_statement_set()
        stmts.add_insert_sql(f"INSERT INTO `__plan_sink` {spec['query']}")
        result["explain"] = split_explain(stmts.explain(ExplainDetail.CHANGELOG_MODE))
    except Exception as e:  # the planner refused the query
        result["planner_error"] = root_message(e)
        shutil.rmtree(folder, ignore_errors=True)
        write_and_exit(out_path, result)

    log, changelog, lock = [], [], threading.Lock()
    table_result = table.execute()
    client = table_result.get_job_client()
    deadline = time.monotonic() + 120
    while str(client.get_job_status().result()) != "JobStatus.RUNNING" and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(WARMUP_S)
    t0 = time.monotonic()
    print(f"T0 at {t0 - started:.1f} s after start", file=sys.stderr)
    stop = threading.Event()
    timed_out = []

    def writer():
        for i, (offset, rows) in enumerate(src["events"]):
            while (d := t0 + offset - time.monotonic()) > 0:
                time.sleep(min(d, 0.05))
            tmp = os.path.join(folder, f".{i:04d}.tmp")
            with open(tmp, "w") as f:
                f.write(file_text(src, rows))
            os.rename(tmp, os.path.join(folder, f"e{i:04d}_{offset}.{src['format'].split('-')[0]}"))
            with lock:
                log.append([round(time.monotonic() - t0, 2), "WRITE", rows])
        last = src["events"][-1][0] if src["events"] else 0
        wait = spec.get("settle_s", STOP_ON_TIMEOUT_S)
        end = t0 + last + wait
        while not stop.is_set() and time.monotonic() < end:
            time.sleep(0.05)
        if not stop.is_set():
            if "stop_on" in spec:
                timed_out.append(True)
            stop.set()
            client.cancel().result()

    th = threading.Thread(target=writer, daemon=True)
    th.start()
    error = None
    try:
        with table_result.collect() as it:
            for row in it:
                item = [KINDS[row.get_row_kind().value], [plain(x) for x in row]]
                with lock:
                    log.append([round(time.monotonic() - t0, 2), "EMIT", item])
                changelog.append(item)
                if item == spec.get("stop_on"):
                    stop.set()
                    client.cancel().result()
                    break
    except Exception as e:
        if not stop.is_set():
            error = root_message(e)
    th.join(timeout=STOP_ON_TIMEOUT_S + 60)
    print(f"done at {time.monotonic() - t0:.1f} s after T0", file=sys.stderr)
    if error:
        result["runtime_error"] = error
    if timed_out:
        result["runtime_error"] = f"stop_on {spec['stop_on']} not emitted {STOP_ON_TIMEOUT_S} s after the last file"
    shutil.rmtree(folder, ignore_errors=True)
    result["changelog"] = changelog
    result["emit_log"] = log
    write_and_exit(out_path, result)


def write_and_exit(out_path, result):
    with open(out_path, "w") as f:
        json.dump(result, f)
    sys.stdout.flush()
    os._exit(0)  # do not wait for the JVM's shutdown


# ---------------------------------------------------------------- driver

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec")
    ap.add_argument("--runs", type=int, default=2, help="runs in separate JVMs (>= 2)")
    ap.add_argument("--out", default=None, help="output folder (default: the spec's folder)")
    ap.add_argument("--one-run", metavar="RESULT", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one_run:
        return one_run(a.spec, a.one_run)
    if a.runs < 2:
        fail("--runs must be at least 2: a recording is kept only when separate runs agree")
    spec = load_spec(a.spec)
    name = os.path.basename(a.spec)
    name = name[: -len(".json")] if name.endswith(".json") else name
    out = a.out or os.path.dirname(os.path.abspath(a.spec))
    os.makedirs(out, exist_ok=True)
    runs = []
    for i in range(a.runs):
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
            res_path = tmp.name
        t = time.monotonic()
        p = subprocess.run([sys.executable, os.path.abspath(__file__), a.spec, "--one-run", res_path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            with open(res_path) as f:
                res = json.load(f)
        except (OSError, ValueError):
            fail(f"{name}: run {i + 1} wrote no result (exit {p.returncode}):\n{p.stdout[-4000:]}")
        finally:
            os.unlink(res_path)
        if "runtime_error" in res:
            fail(f"{name}: run {i + 1}: {res['runtime_error']}")
        timing = "; ".join(l for l in p.stdout.splitlines() if l.startswith(("T0 at", "done at")))
        print(f"{name}: run {i + 1} in {time.monotonic() - t:.0f} s ({timing}): "
              + (f"planner error {res['planner_error']}" if "planner_error" in res
                 else f"{len(res['changelog'])} rows"), file=sys.stderr)
        runs.append(res)
    key = lambda r: (r.get("planner_error"), r.get("explain"), r.get("changelog"))
    for i, r in enumerate(runs[1:], 2):
        if key(r) != key(runs[0]):
            for field in ["planner_error", "explain", "changelog"]:
                if r.get(field) != runs[0].get(field):
                    print(f"{name}: run {i} `{field}` differs from run 1:\n  run 1: "
                          f"{json.dumps(runs[0].get(field))}\n  run {i}: {json.dumps(r.get(field))}",
                          file=sys.stderr)
            fail(f"{name}: runs differ; nothing written", code=2)
    first = runs[0]
    fixture = dict(spec)
    fixture["runs_compared"] = a.runs
    expected = os.path.join(out, f"{name}.expected.json")
    if "planner_error" in first:
        fixture["expected_planner_error"] = first["planner_error"]
        if os.path.exists(expected):
            os.unlink(expected)
    else:
        fixture["explain"] = first["explain"]
        fixture["emit_log_run1"] = first["emit_log"]
        with open(expected, "w") as f:
            f.write(json.dumps(first["changelog"]))
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        f.write(dumps(fixture) + "\n")
    print(f"{name}: wrote {out}/{name}.json"
          + ("" if "planner_error" in first else f" and {name}.expected.json"), file=sys.stderr)


if __name__ == "__main__":
    main()
