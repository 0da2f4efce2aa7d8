#!/usr/bin/env python3
"""Record one conformance spec on real Apache Flink 2.3 (PyFlink, streaming, parallelism 1).

    record.py specs/NAME.json            # writes recorded/NAME.json and compiled/NAME.json

The spec is run in two worker processes (two JVMs), one after the other; their changelogs
must be equal (else exit 2). The first worker also explains the query, compiles its plan and
runs the compiled plan once to check that it gives the same changelog. See README.md.

    record.py --worker RUN SPEC RESULT   # internal: one JVM run, result as JSON in RESULT
"""
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FLINK_VERSION = "2.3.0"
# Prefixes of the print sinks' lines on the worker's stdout.
RUN_TAG = "CONFRUN"
PLAN_TAG = "CONFPLAN"
KINDS = ("+I", "-U", "+U", "-D")


# ---------------------------------------------------------------- plan text helpers


def normalize(text):
    """`*anonymous_datastream_source$3*` -> `*anonymous_datastream_source$*` (the number is
    a per-JVM counter), as the shared fixtures write it."""
    return re.sub(r"(\*anonymous_[A-Za-z_-]+\$)\d+(\*)", r"\1\2", text)


def section(explain, title):
    """The lines of one `== title ==` section of an EXPLAIN text, tree prefixes stripped,
    output side first, the `Sink(...)` root dropped (the query is explained as
    `INSERT INTO` a print sink; the fixtures hold the query's own operators)."""
    lines, inside = [], False
    for line in explain.splitlines():
        if line.startswith("== "):
            inside = line.strip() == f"== {title} =="
            continue
        if inside and line.strip():
            lines.append(re.sub(r"^[ |]*(?:[+:]- )?", "", line))
    if lines and lines[0].startswith("Sink("):
        lines = lines[1:]
    return lines


def root_cause(stack_trace):
    """The message of the innermost `Caused by:` of a Java stack trace (or of the exception
    itself when it has no cause), without the `at ...` frames and without the class name."""
    blocks, current = [], []
    for line in stack_trace.splitlines():
        if line.startswith("Caused by: "):
            blocks.append(current)
            current = [line[len("Caused by: "):]]
        elif line.lstrip().startswith("at ") or line.lstrip().startswith("... "):
            continue
        else:
            current.append(line)
    blocks.append(current)
    msg = "\n".join(blocks[-1]).strip()
    cls = ""
    m = re.match(r"^([\w.$]+(?:Exception|Error)): ?(.*)$", msg, re.S)
    if m:
        cls, msg = m.group(1), m.group(2).strip()
    return cls, msg


# ---------------------------------------------------------------- worker (one JVM)

SQL_TYPES = ("STRING", "INT", "BIGINT", "BOOLEAN", "DOUBLE")


def worker(run, spec_path, result_path):
    from pyflink.common import Row, Types
    from pyflink.datastream import StreamExecutionEnvironment
    from pyflink.table import (DataTypes, EnvironmentSettings, ExplainDetail, Schema,
                               StreamTableEnvironment)

    spec = json.load(open(spec_path))
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env, EnvironmentSettings.in_streaming_mode())
    cfg = t_env.get_config()
    jar = os.environ.get("CONF_UDF_JAR")
    hold_ms = int(spec.get("hold_open_ms", 0))
    if spec.get("functions") or hold_ms:
        if not jar or not os.path.exists(jar):
            raise SystemExit("spec needs udf/ but CONF_UDF_JAR is not a built jar (run record.sh)")
        cfg.set("pipeline.jars", "file://" + jar)
    for k, v in spec.get("conf", {}).items():
        cfg.set(k, v)
    for name, cls in spec.get("functions", []):
        t_env.execute_sql(f"CREATE TEMPORARY SYSTEM FUNCTION {name} AS '{cls}' LANGUAGE JAVA")

    dt = {"STRING": DataTypes.STRING(), "INT": DataTypes.INT(), "BIGINT": DataTypes.BIGINT(),
          "BOOLEAN": DataTypes.BOOLEAN(), "DOUBLE": DataTypes.DOUBLE()}
    ti = {"STRING": Types.STRING(), "INT": Types.INT(), "BIGINT": Types.LONG(),
          "BOOLEAN": Types.BOOLEAN(), "DOUBLE": Types.DOUBLE()}

    def register(for_compiled_plan):
        """Sources, then views. The changelog run feeds a proctime source through a
        DataStream (`from_collection`, `PROCTIME()` as a computed column), as the shared
        fixtures did; a compiled plan cannot hold a DataStream source, so there the same rows
        come from `from_elements` and `PROCTIME()` is added by a view on top."""
        for name, src in spec["sources"].items():
            cols = src["schema"]
            for c, t in cols:
                if t not in SQL_TYPES:
                    raise SystemExit(f"sources.{name}: column {c} has type {t}, allowed {SQL_TYPES}")
            pt = src.get("proctime")
            if pt and not for_compiled_plan:
                row_type = Types.ROW_NAMED([c for c, _ in cols], [ti[t] for _, t in cols])
                ds = env.from_collection([Row(*r) for r in src["rows"]], type_info=row_type)
                if hold_ms:
                    from pyflink.datastream import DataStream
                    from pyflink.java_gateway import get_gateway
                    j_src = get_gateway().jvm.HoldOpenSource(hold_ms)
                    idle = DataStream(env._j_stream_execution_environment.addSource(
                        j_src, "hold_open", row_type.get_java_type_info()))
                    ds = ds.union(idle)
                tbl = t_env.from_data_stream(
                    ds, Schema.new_builder().column_by_expression(pt, "PROCTIME()").build())
            else:
                tbl = t_env.from_elements(
                    src["rows"], DataTypes.ROW([DataTypes.FIELD(c, dt[t]) for c, t in cols]))
                if pt:
                    t_env.create_temporary_view(name + "__raw", tbl)
                    tbl = t_env.sql_query(f"SELECT *, PROCTIME() AS `{pt}` FROM `{name}__raw`")
            t_env.create_temporary_view(name, tbl)
        for name, sql in spec.get("views", []):
            t_env.create_temporary_view(name, t_env.sql_query(sql))

    def unregister():
        for name, _ in reversed(spec.get("views", [])):
            t_env.drop_temporary_view(name)
        for name, src in spec["sources"].items():
            t_env.drop_temporary_view(name)
            if src.get("proctime"):
                t_env.drop_temporary_view(name + "__raw")

    def sink(name, tag):
        cols = t_env.sql_query(spec["query"])._j_table.getResolvedSchema().getColumns()
        ddl = ", ".join(f"`{c.getName()}` {c.getDataType().toString()}" for c in cols)
        t_env.execute_sql(f"CREATE TEMPORARY TABLE {name} ({ddl}) WITH "
                          f"('connector' = 'print', 'print-identifier' = '{tag}')")
        return [[c.getName(), str(c.getDataType().getLogicalType().getTypeRoot().toString())]
                for c in cols]

    out = {"run": run}

    def save():
        with open(result_path, "w") as f:
            json.dump(out, f)

    register(False)
    try:
        out["columns"] = sink("conf_sink", RUN_TAG)
        insert = f"INSERT INTO conf_sink {spec['query']}"
        out["explain"] = normalize(t_env.explain_sql(insert, ExplainDetail.CHANGELOG_MODE))
        out["explain_select"] = normalize(
            t_env.explain_sql(spec["query"], ExplainDetail.CHANGELOG_MODE))
    except Exception as e:  # Flink refuses to plan: record its message
        out["planner_error_class"], out["planner_error"] = root_cause(str(e))
        save()
        return
    save()
    sys.stdout.flush()
    try:
        t_env.execute_sql(insert).wait()
    except Exception as e:
        out["runtime_error_class"], out["runtime_error"] = root_cause(str(e))
        save()
        return
    sys.stdout.flush()
    if run == 1:
        unregister()
        register(True)
        try:
            sink("conf_plan_sink", PLAN_TAG)
            plan = t_env._j_tenv.compilePlanSql(f"INSERT INTO conf_plan_sink {spec['query']}")
            out["compiled"] = plan.asJsonString()
        except Exception as e:
            out["compile_error_class"], out["compile_error"] = root_cause(str(e))
        else:
            # Run the compiled plan itself: it must give the same changelog (checked by the
            # parent on the PLAN_TAG lines). Not for a held-open spec: the compiled plan reads
            # from_elements, which ends at once, so its pending timers would not fire.
            if not hold_ms:
                from pyflink.java_gateway import get_gateway
                ref = get_gateway().jvm.org.apache.flink.table.api.PlanReference.fromJsonString(
                    out["compiled"])
                getattr(t_env._j_tenv.loadPlan(ref).execute(), "await")()
                out["compiled_replayed"] = True
    save()


# ---------------------------------------------------------------- parent (one spec)


def parse_value(text, root):
    if text == "null":
        return None
    if root in ("VARCHAR", "CHAR"):
        return text
    if root in ("INTEGER", "BIGINT", "SMALLINT", "TINYINT"):
        return int(text)
    if root in ("DOUBLE", "FLOAT"):
        return float(text)
    if root == "BOOLEAN":
        if text not in ("true", "false"):
            raise ValueError(f"not a BOOLEAN: {text}")
        return text == "true"
    raise ValueError(f"result column type {root} is not handled by the recorder")


def parse_changelog(stdout, tag, columns):
    """`TAG> +I[a, 1]` lines -> [["+I", ["a", 1]], ...]. Fails when a line does not split
    into exactly one value per column (a string value holding ', ' would do that)."""
    rows = []
    for line in stdout.splitlines():
        if not line.startswith(tag + "> "):
            continue
        body = line[len(tag) + 2:]
        kind, rest = body[:2], body[2:]
        if kind not in KINDS or not (rest.startswith("[") and rest.endswith("]")):
            raise ValueError(f"cannot read print line {line!r}")
        parts = rest[1:-1].split(", ") if columns else []
        if len(parts) != len(columns):
            raise ValueError(f"print line {line!r} has {len(parts)} values for {len(columns)} columns")
        rows.append([kind, [parse_value(p, root) for p, (_, root) in zip(parts, columns)]])
    return rows


def run_worker(run, spec_path, tmpdir):
    result = os.path.join(tmpdir, f"run{run}.json")
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", str(run),
                           spec_path, result], capture_output=True, text=True, timeout=600)
    if not os.path.exists(result):
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"worker {run} died (exit {proc.returncode})")
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"worker {run} failed (exit {proc.returncode})")
    out = json.load(open(result))
    if "columns" in out and "runtime_error" not in out:
        out["changelog"] = parse_changelog(proc.stdout, RUN_TAG, out["columns"])
        if out.get("compiled_replayed"):
            out["compiled_changelog"] = parse_changelog(proc.stdout, PLAN_TAG, out["columns"])
    return out


def record(spec_path, rec_dir, comp_dir):
    import tempfile
    name = os.path.splitext(os.path.basename(spec_path))[0]
    spec = json.load(open(spec_path))
    for key in ("sources", "query"):
        if key not in spec:
            raise SystemExit(f"{spec_path}: missing field '{key}'")
    with tempfile.TemporaryDirectory() as tmp:
        first = run_worker(1, spec_path, tmp)
        second = run_worker(2, spec_path, tmp)
    rec = {"flink": FLINK_VERSION}
    stale = os.path.join(comp_dir, name + ".json")
    if os.path.exists(stale):
        os.remove(stale)
    for err in ("planner_error", "runtime_error"):
        if err in first:
            if first.get(err) != second.get(err):
                raise SystemExit(f"{name}: {err} differs between the two runs")
            rec[err + "_class"] = first[err + "_class"]
            rec[err] = first[err]
            if err == "runtime_error":
                rec["plan_ops"] = section(first["explain"], "Optimized Execution Plan")
                rec["plan_changelog"] = section(first["explain"], "Optimized Physical Plan")
                rec["explain"] = first["explain"]
            rec["runs_compared"] = 2
            write(os.path.join(rec_dir, name + ".json"), rec)
            return err
    if first["changelog"] != second["changelog"]:
        raise SystemExit(f"{name}: NONDETERMINISTIC: run 1 gave {first['changelog']}, "
                         f"run 2 gave {second['changelog']}")
    if first["explain"] != second["explain"]:
        raise SystemExit(f"{name}: the EXPLAIN text differs between the two runs")
    rec["columns"] = [c for c, _ in first["columns"]]
    rec["changelog"] = first["changelog"]
    rec["plan_ops"] = section(first["explain"], "Optimized Execution Plan")
    rec["plan_changelog"] = section(first["explain"], "Optimized Physical Plan")
    rec["explain"] = first["explain"]
    rec["explain_select"] = first["explain_select"]
    rec["runs_compared"] = 2
    outcome = "ok"
    if "compiled" in first:
        if first.get("compiled_replayed"):
            if first["compiled_changelog"] != first["changelog"]:
                raise SystemExit(f"{name}: the compiled plan gave {first['compiled_changelog']}, "
                                 f"the query gave {first['changelog']}")
            rec["compiled_plan_replayed"] = True
        else:
            rec["compiled_plan_replayed"] = False
        with open(os.path.join(comp_dir, name + ".json"), "w") as f:
            f.write(first["compiled"])
            if not first["compiled"].endswith("\n"):
                f.write("\n")
    else:
        rec["compile_error_class"] = first["compile_error_class"]
        rec["compile_error"] = first["compile_error"]
        outcome = "ok (no compiled plan)"
    write(os.path.join(rec_dir, name + ".json"), rec)
    return outcome


def write(path, obj):
    """Indented JSON with one changelog row per line."""
    parts = []
    for key, value in obj.items():
        if key == "changelog":
            rows = ",\n  ".join(json.dumps(r, ensure_ascii=False) for r in value)
            text = f"[\n  {rows}\n ]" if value else "[]"
        else:
            text = json.dumps(value, indent=1, ensure_ascii=False).replace("\n", "\n ")
        parts.append(f" {json.dumps(key)}: {text}")
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(parts) + "\n}\n")


def main(argv):
    if len(argv) >= 1 and argv[0] == "--worker":
        worker(int(argv[1]), argv[2], argv[3])
        return
    if len(argv) != 1:
        raise SystemExit(__doc__)
    rec_dir, comp_dir = os.path.join(HERE, "recorded"), os.path.join(HERE, "compiled")
    os.makedirs(rec_dir, exist_ok=True)
    os.makedirs(comp_dir, exist_ok=True)
    t0 = time.time()
    outcome = record(argv[0], rec_dir, comp_dir)
    print(f"{os.path.splitext(os.path.basename(argv[0]))[0]} {outcome} {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])
