//! The conformance fixtures (`tests/conformance/`: specs recorded on real Flink 2.3 by
//! `record.sh`) as the native tests read them: a spec turned mechanically into a SQL scenario,
//! and plan lines compared without the scan's table name.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// `tests/conformance`, or `CONFORMANCE_DIR`.
pub fn dir() -> PathBuf {
    std::env::var_os("CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance"))
}

/// A JSON file, if it reads.
pub fn read(p: PathBuf) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()
}

/// The spec's one source, as the scenario format's `source`.
pub fn source(spec: &Value) -> Value {
    let (name, source) = spec["sources"].as_object().unwrap().iter().next().unwrap();
    let mut src = json!({ "name": name, "schema": source["schema"] });
    if let Some(pt) = source.get("proctime") {
        src["proctime"] = pt.clone();
    }
    src
}

/// The spec's rows, 1 ms apart from 1 ms; then processing time passing as the recorder lets it:
/// `hold_open_ms` (the source held open, so pending timers fire) and, under mini-batch, the
/// allow-latency interval (the bounded source ends every bundle at the end of its input).
pub fn steps(spec: &Value) -> Vec<Value> {
    let (_, source) = spec["sources"].as_object().unwrap().iter().next().unwrap();
    let mut steps: Vec<Value> = source["rows"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, row)| json!({ "at": i + 1, "row": row }))
        .collect();
    if let Some(ms) = spec.get("hold_open_ms").and_then(Value::as_u64) {
        steps.push(json!({ "advance_by": ms }));
    }
    let conf = &spec["conf"];
    if conf["table.exec.mini-batch.enabled"].as_str() == Some("true") {
        let latency = conf["table.exec.mini-batch.allow-latency"].as_str().unwrap_or("1 s");
        steps.push(json!({ "advance_by": latency }));
    }
    steps
}

/// The spec as a SQL script: its options as `SET`s, its views, its sink's DDL (`sink_ddl`), its
/// query (`query`, or the whole `INSERT` of `statement`).
pub fn sql_of(spec: &Value) -> String {
    let mut sql = Vec::new();
    for (k, v) in spec["conf"].as_object().cloned().unwrap_or_default() {
        sql.push(format!("SET '{k}' = '{}';", v.as_str().unwrap_or_default()));
    }
    for view in spec["views"].as_array().into_iter().flatten() {
        sql.push(format!("CREATE TEMPORARY VIEW {} AS {};", view[0].as_str().unwrap(), view[1].as_str().unwrap()));
    }
    if let Some(ddl) = spec.get("sink_ddl").and_then(Value::as_str) {
        sql.push(format!("{ddl};"));
    }
    let query = spec.get("statement").unwrap_or(&spec["query"]);
    sql.push(format!("{};", query.as_str().unwrap()));
    sql.join("\n")
}

/// The SQL scenario of a spec (no expectations).
pub fn scenario(name: &str, spec: &Value) -> Value {
    json!({
        "name": name,
        "flink": "2.3",
        "time_format": "millis",
        "source": source(spec),
        "sql": sql_of(spec),
        "steps": steps(spec),
    })
}

/// A plan line with the scan's table name left out (the recorder's inline source is
/// `*anonymous_python-input-format$*`, a scenario's is `default_catalog, default_database, src`).
pub fn without_table(line: &str) -> String {
    match (line.find("table=[["), line.find("]], fields=")) {
        (Some(a), Some(b)) if line.starts_with("TableSourceScan") && a < b => {
            format!("{}table=[[…{}", &line[..a], &line[b..])
        }
        _ => line.to_string(),
    }
}
