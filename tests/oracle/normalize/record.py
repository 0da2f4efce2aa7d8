"""Records real Flink 2.3.0: a streaming filesystem debezium-json source with a primary key and
table.exec.source.cdc-events-duplicate = true (planned with ChangelogNormalize), fed one file per
event over wall-clock time. Usage: record.py NAME  (writes NAME.run<N>.json)"""
import json, os, shutil, sys, threading, time
from pyflink.table import EnvironmentSettings, TableEnvironment
from pyflink.table.explain_detail import ExplainDetail

CASES = {
 "cdcdup_select_nottl": dict(ttl=None, query="SELECT id, v FROM src", stop=["+I", [9, "z"]],
   sink="CREATE TABLE snk (id INT, v STRING) WITH ('connector'='print')"),
 "cdcdup_count_nottl": dict(ttl=None, query="SELECT v, COUNT(*) AS c FROM src GROUP BY v", stop=["+I", ["z", 1]],
   sink="CREATE TABLE snk (v STRING, c BIGINT) WITH ('connector'='print')"),
 "cdcdup_select_ttl": dict(ttl="5 s", query="SELECT id, v FROM src", stop=["+I", [9, "z"]],
   sink="CREATE TABLE snk (id INT, v STRING) WITH ('connector'='print')"),
}
# [offset_s, [[op, before, after]]]; op c/u/d as Debezium writes it.
EVENTS = [
 [0, [["c", None, [1, "a"]]]],
 [2, [["c", None, [1, "a"]]]],          # exact duplicate of the stored row
 [4, [["c", None, [2, "b"]]]],
 [6, [["u", [1, "a"], [1, "c"]]]],       # -U dropped by DropUpdateBefore, +U -> -U(stored), +U
 [8, [["d", [3, "x"], None]]],           # delete of an absent key
 [10, [["d", [2, "stale"], None]]],      # delete whose before differs from the stored row
 [12, [["u", [1, "old"], [1, "c"]]]],    # +U identical to the stored row
 [14, [["c", None, [2, "b"]]]],          # key 2 again after its delete
 [16, [["c", None, [9, "z"]]]],
]
TTL_EVENTS = [  # gaps of 14 s: state of key 1 expires (5 s) between them
 [0, [["c", None, [1, "a"]]]],
 [2, [["c", None, [1, "a"]]]],           # duplicate within TTL: -U/+U (TTL on: no duplicate check)
 [16, [["u", [1, "a"], [1, "b"]]]],      # key 1 expired: +U -> +I
 [30, [["d", [1, "b"], None]]],          # key 1 expired again: -D dropped
 [32, [["c", None, [9, "z"]]]],
]

def main(name):
    case = CASES[name]
    events = TTL_EVENTS if case["ttl"] else EVENTS
    data = f"/tmp/nrm/run_{name}"
    shutil.rmtree(data, ignore_errors=True); os.makedirs(data)
    t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    c = t.get_config()
    c.set("parallelism.default", "1")
    c.set("table.exec.source.cdc-events-duplicate", "true")
    if case["ttl"]:
        c.set("table.exec.state.ttl", case["ttl"])
    t.execute_sql(f"""CREATE TABLE src (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
      'connector'='filesystem','path'='{data}','format'='debezium-json','source.monitor-interval'='1 s')""")
    t.execute_sql(case["sink"])
    print("explaining", flush=True)
    explain = t.explain_sql("INSERT INTO snk " + case["query"], ExplainDetail.CHANGELOG_MODE)
    print("executing", flush=True)
    result = t.execute_sql(case["query"])
    print("submitted", flush=True)
    log = []
    t0 = time.time()
    def feed():
        for i, (off, rows) in enumerate(events):
            while time.time() - t0 < off:
                time.sleep(0.02)
            lines = []
            for op, before, after in rows:
                rec = {"before": None if before is None else {"id": before[0], "v": before[1]},
                       "after": None if after is None else {"id": after[0], "v": after[1]}, "op": op}
                lines.append(json.dumps(rec))
            tmp = f"{data}/.e{i:03d}.tmp"
            with open(tmp, "w") as f:
                f.write("\n".join(lines) + "\n")
            os.rename(tmp, f"{data}/e{i:03d}.json")
            log.append([round(time.time() - t0, 2), "WRITE", rows])
    th = threading.Thread(target=feed, daemon=True); th.start()
    out = []
    with result.collect() as it:
        for row in it:
            kind = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}[row.get_row_kind().value]
            vals = list(row)
            out.append([kind, vals])
            log.append([round(time.time() - t0, 2), "EMIT", [kind, vals]])
            if [kind, vals] == case["stop"]:
                break
    json.dump({"name": name, "query": case["query"], "ttl": case["ttl"], "events": events,
               "expected": out, "explain": explain, "log": log}, open(f"/tmp/nrm/{name}.run{sys.argv[2]}.json", "w"), indent=1)
    print("done", name, out)
    os._exit(0)

main(sys.argv[1])
