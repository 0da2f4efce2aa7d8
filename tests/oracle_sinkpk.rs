//! The sink with a primary key on real Apache Flink 2.3.0: every `tests/oracle/sinkpk/sinkpk_*`
//! fixture (copied unchanged from `shared/oracle/joins/`: `INSERT INTO snk (k, v, PRIMARY KEY (v)
//! NOT ENFORCED) SELECT k, LAST_VALUE(v) AS v FROM src GROUP BY k [ON CONFLICT …]` under several
//! `table.exec.sink.*` options) is turned mechanically into a SQL scenario
//! (`tests/common/conformance.rs`: its `SET`s, its `sink_ddl`, its `statement`, its rows 1 ms
//! apart) and must give exactly the lines Flink's `print` sink wrote (`NAME.expected.json`) and
//! both plans of Flink's `explain` (the scan's table name aside), or be refused with exactly
//! Flink's planner message (`expected_planner_error`, without the exception's class and naming
//! the scenario's source where the recorder's inline source stood).
//!
//! Native only: it reads the fixtures from disk (`SINKPK_DIR` overrides where).
#![cfg(not(target_arch = "wasm32"))]

use common::conformance::{read, without_table};
use flink_state_sim::engine::explain::explain_lines;
use flink_state_sim::engine::scenario::sql::to_json_form;
use flink_state_sim::engine::{expect, Scenario, Simulation};
use serde_json::{json, Value};
use std::path::PathBuf;

mod common;

/// `tests/oracle/sinkpk`, or `SINKPK_DIR`.
fn dir() -> PathBuf {
    std::env::var_os("SINKPK_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/sinkpk"))
}

/// Every fixture's name and spec, by name.
fn fixtures() -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = std::fs::read_dir(dir())
        .expect("the sinkpk fixtures")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".json").filter(|s| !s.ends_with(".expected"))?.to_string();
            Some((stem.clone(), read(dir().join(&name)).unwrap_or_else(|| panic!("{name} reads"))))
        })
        .filter(|(name, _)| name.starts_with("sinkpk_"))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The changelog Flink's print sink wrote, when Flink ran the job.
fn expected(name: &str) -> Option<Value> {
    read(dir().join(format!("{name}.expected.json")))
}

/// The spec's source table.
fn source_name(spec: &Value) -> String {
    spec["sources"].as_object().unwrap().keys().next().unwrap().clone()
}

/// Flink's message as the scenario must give it: without `org.apache.flink.table.api.
/// ValidationException: `, and with the recorder's inline source `*anonymous_python-input-format$N*`
/// replaced by the scenario's source table.
fn flink_message(recorded: &str, source: &str) -> String {
    let mut message = recorded
        .strip_prefix("org.apache.flink.table.api.ValidationException: ")
        .unwrap_or_else(|| panic!("a ValidationException: {recorded}"))
        .to_string();
    while let Some(at) = message.find("*anonymous_python-input-format$") {
        let end = message[at + 1..].find('*').map(|i| at + i + 2).expect("the name ends with '*'");
        message.replace_range(at..end, &format!("default_catalog.default_database.{source}"));
    }
    message
}

/// One section of the fixture's `explain` text, a node a line, without the tree's indentation.
fn section(spec: &Value, title: &str) -> Vec<String> {
    let text: Vec<&str> = spec["explain"]["text"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let start = text.iter().position(|l| *l == title).unwrap_or_else(|| panic!("no {title}")) + 1;
    text[start..]
        .iter()
        .take_while(|l| !l.is_empty())
        .map(|l| without_table(l.trim_start_matches([' ', '+', '-'])))
        .collect()
}

/// The SQL scenario of a fixture, expecting Flink's changelog when Flink ran it.
fn scenario_of(name: &str, spec: &Value) -> Value {
    let mut scenario = common::conformance::scenario(name, spec);
    if let Some(lines) = expected(name) {
        scenario["expect"] = json!({ "changelog": { "sink": lines } });
    }
    scenario
}

/// The first difference of one fixture from Flink, if any.
fn conform(name: &str, spec: &Value) -> Option<String> {
    let scenario = match Scenario::from_json(&scenario_of(name, spec).to_string()) {
        Ok(s) => s,
        Err(e) => {
            return match spec.get("expected_planner_error").and_then(Value::as_str) {
                Some(flink) => {
                    let want = flink_message(flink, &source_name(spec));
                    // `sql: line L, column C: <Flink's message>`
                    let got = e.message.split_once(": ").map(|(_, m)| m);
                    (e.path != "sql" || got != Some(want.as_str()))
                        .then(|| format!("refused, but not with Flink's message\n  got  {e}\n  want {want}"))
                }
                None => Some(format!("refused, but Flink planned it: {e}")),
            };
        }
    };
    if let Some(error) = spec.get("expected_planner_error") {
        return Some(format!("planned, but Flink refused it: {error}"));
    }
    let plans = explain_lines(&scenario);
    let physical: Vec<String> = plans.physical.iter().map(|l| without_table(l)).collect();
    let want = section(spec, "== Optimized Physical Plan ==");
    if physical != want {
        return Some(format!("physical plan differs:\n  got  {physical:#?}\n  want {want:#?}"));
    }
    let execution: Vec<String> = plans.execution.iter().map(|l| without_table(l)).collect();
    let want = section(spec, "== Optimized Execution Plan ==");
    if execution != want {
        return Some(format!("execution plan differs:\n  got  {execution:#?}\n  want {want:#?}"));
    }
    expect::check(scenario).err().map(|d| format!("changelog differs: {d}"))
}

#[test]
fn every_sinkpk_fixture_gives_flinks_changelog_plan_or_refusal() {
    let all = fixtures();
    assert_eq!(all.len(), 7, "the seven sinkpk fixtures of shared/oracle/joins: {:?}", dir());
    let refused = all.iter().filter(|(_, s)| s.get("expected_planner_error").is_some()).count();
    assert_eq!(refused, 3, "three of them Flink refused to plan");
    let failures: Vec<String> =
        all.iter().filter_map(|(name, spec)| conform(name, spec).map(|d| format!("{name}: {d}"))).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The rows the print sink's lines leave in a table keyed by the sink's primary key: `+I`/`+U`
/// write the key's row, `-D` deletes it.
fn upserted(lines: &Value, pk: usize) -> Vec<Vec<Value>> {
    let mut rows: Vec<Vec<Value>> = Vec::new();
    for line in lines.as_array().unwrap() {
        let row = line[1].as_array().unwrap().clone();
        rows.retain(|r| r[pk] != row[pk]);
        if line[0] != "-D" {
            rows.push(row);
        }
    }
    rows.sort_by_key(|r| r[pk].to_string());
    rows
}

/// Where the sink materializes, the result table is the sink's: one row per primary key, the
/// key's latest, exactly what the print sink's lines leave in a table keyed by `v`.
#[test]
fn a_materialized_sink_holds_the_latest_row_per_primary_key() {
    let mut materialized = 0;
    for (name, spec) in fixtures() {
        let Some(lines) = expected(&name) else { continue };
        let scenario = Scenario::from_json(&scenario_of(&name, &spec).to_string()).unwrap();
        if !scenario.operators.last().unwrap().spec.is_sink() {
            continue;
        }
        materialized += 1;
        let mut sim = Simulation::new(scenario);
        sim.run_to_end().unwrap();
        let mut got: Vec<Vec<Value>> = sim
            .result()
            .rows()
            .map(|r| serde_json::to_value(&r.row).unwrap())
            .map(|v| v.as_array().unwrap().clone())
            .collect();
        got.sort_by_key(|r| r[1].to_string());
        assert_eq!(got, upserted(&lines, 1), "{name}");
        assert_eq!(got.len(), 3, "{name}: a, c and d are held (b was deleted)");
    }
    assert_eq!(materialized, 3, "DEDUPLICATE, require-on-conflict = false and FORCE materialize");
}

/// The JSON form of a materializing SQL scenario (the pipeline with its
/// `"operator": "SinkUpsertMaterializer"`) runs to Flink's changelog too.
#[test]
fn the_json_form_keeps_the_materializer() {
    let name = "sinkpk_on_conflict_do_deduplicate";
    let spec = read(dir().join(format!("{name}.json"))).unwrap();
    let json_form = to_json_form(&scenario_of(name, &spec).to_string()).unwrap();
    let form: Value = serde_json::from_str(&json_form).unwrap();
    let last = form["pipeline"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last,
        json!({"operator": "SinkUpsertMaterializer", "id": "Sink[3]", "table": "snk", "fields": ["k", "v"],
               "primary_key": ["v"], "conflict_strategy": "DEDUPLICATE"})
    );
    // Written by hand it must stay the last operator.
    let mut misplaced = form.clone();
    let pipeline = misplaced["pipeline"].as_array_mut().unwrap();
    pipeline.push(json!({"operator": "Calc", "id": "after", "select": ["k"]}));
    let at = pipeline.len() - 2;
    let e = Scenario::from_json(&misplaced.to_string()).unwrap_err();
    assert_eq!(e.path, format!("pipeline[{at}].operator"));
    assert!(e.message.contains("'Sink[3]' is the sink's own operator"), "{e}");
    let scenario = Scenario::from_json(&json_form).unwrap();
    assert_eq!(
        scenario.operators.last().unwrap().spec.plan(),
        "Sink(table=[default_catalog.default_database.snk], fields=[k, v], upsertMaterialize=[true], \
         conflictStrategy=[DEDUPLICATE])"
    );
    expect::check(scenario).unwrap();
}
