"""Records real Flink 2.3.0: dim (csv, insert-only) LEFT JOIN src (debezium-json, PRIMARY KEY (id),
table.exec.source.cdc-events-duplicate = true: read through ChangelogNormalize), both streaming
filesystem tables fed one file per event over wall-clock time. Usage: record_join.py RUN"""
import json, os, shutil, sys, threading, time
from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.table.explain_detail import ExplainDetail

NAME = "cdcdup_leftjoin_nottl"
QUERY = "SELECT d.k, d.w, s.v FROM dim d LEFT JOIN src s ON d.k = s.id"
STOP = ["+I", [9, "z", None]]
# [offset_s, table, rows]; src rows [op, before, after] (Debezium c/u/d), dim rows [k, w].
EVENTS = [
 [0, "dim", [[1, "x"]]],
 [2, "src", [["c", None, [1, "a"]]]],
 [4, "src", [["c", None, [1, "a"]]]],          # identical: dropped by ChangelogNormalize (TTL off)
 [6, "src", [["u", [1, "a"], [1, "b"]]]],      # -U(1,a) from the stored row, +U(1,b)
 [8, "src", [["d", [2, "q"], None]]],          # absent key: dropped
 [10, "src", [["d", [1, "stale"], None]]],     # -D with the stored row (1,b)
 [12, "dim", [[9, "z"]]],
]

def main(run):
    base = f"/tmp/nrm/run_{NAME}"
    shutil.rmtree(base, ignore_errors=True)
    for t in ("dim", "src"):
        os.makedirs(f"{base}/{t}")
    t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    c = t.get_config()
    c.set("parallelism.default", "1")
    c.set("table.exec.source.cdc-events-duplicate", "true")
    t.execute_sql(f"""CREATE TABLE src (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
      'connector'='filesystem','path'='{base}/src','format'='debezium-json','source.monitor-interval'='1 s')""")
    t.execute_sql(f"""CREATE TABLE dim (k INT, w STRING) WITH (
      'connector'='filesystem','path'='{base}/dim','format'='csv','source.monitor-interval'='1 s')""")
    t.execute_sql("CREATE TABLE snk (k INT, w STRING, v STRING) WITH ('connector'='print')")
    explain = t.explain_sql("INSERT INTO snk " + QUERY, ExplainDetail.CHANGELOG_MODE)
    result = t.execute_sql(QUERY)
    log = []
    t0 = time.time()
    def feed():
        for i, (off, table, rows) in enumerate(EVENTS):
            while time.time() - t0 < off:
                time.sleep(0.02)
            if table == "src":
                lines = [json.dumps({"before": None if b is None else {"id": b[0], "v": b[1]},
                                     "after": None if a is None else {"id": a[0], "v": a[1]}, "op": op})
                         for op, b, a in rows]
            else:
                lines = [f"{k},{w}" for k, w in rows]
            tmp = f"{base}/{table}/.e{i:03d}.tmp"
            with open(tmp, "w") as f:
                f.write("\n".join(lines) + "\n")
            os.rename(tmp, f"{base}/{table}/e{i:03d}.{'json' if table == 'src' else 'csv'}")
            log.append([round(time.time() - t0, 2), "WRITE", table, rows])
    threading.Thread(target=feed, daemon=True).start()
    out = []
    with result.collect() as it:
        for row in it:
            kind = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}[row.get_row_kind().value]
            vals = list(row)
            out.append([kind, vals])
            log.append([round(time.time() - t0, 2), "EMIT", [kind, vals]])
            if [kind, vals] == STOP:
                break
    json.dump({"name": NAME, "query": QUERY, "events": EVENTS, "expected": out, "explain": explain, "log": log},
              open(f"/tmp/nrm/{NAME}.run{run}.json", "w"), indent=1)
    print("done", out, flush=True)
    os._exit(0)

main(sys.argv[1])
