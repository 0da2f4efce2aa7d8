#![cfg(not(target_arch = "wasm32"))]
//! `ChangelogNormalize` recorded on real Flink 2.3.0 (`tests/oracle/normalize/`, see its
//! README): a streaming `filesystem` debezium-json table with `PRIMARY KEY (id) NOT ENFORCED` and
//! `table.exec.source.cdc-events-duplicate = true`, fed one file per event over wall-clock time.
//! Each fixture is turned mechanically into a SQL scenario (a Debezium update `U` is `-U` then
//! `+U` at its offset) that must plan as Flink did (both plans, node for node, without the
//! `Sink` Flink explained it under) and print the changelog Flink printed.

use flink_state_sim::engine::explain::explain;
use flink_state_sim::engine::{expect, Scenario};
use serde_json::{json, Value};
use std::path::Path;

fn fixture(name: &str) -> (Value, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/normalize");
    let read =
        |file: String| -> Value { serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap() };
    (read(format!("{name}.json")), read(format!("{name}.expected.json")))
}

/// The fixture as a SQL scenario expecting Flink's changelog: its tables (a debezium-json table
/// is a changelog source with its primary key, a csv table insert-only), each event's rows at its
/// offset from its table.
fn scenario_of(name: &str, fixture: &Value, expected: &Value) -> String {
    let mut steps = Vec::new();
    for event in fixture["events"].as_array().unwrap() {
        let (at, table) = (event[0].as_i64().unwrap() * 1000, &event[1]);
        for row in event[2].as_array().unwrap() {
            if row[0] == "U" {
                steps.push(json!({ "at": at, "source": table, "kind": "-U", "row": row[1] }));
                steps.push(json!({ "at": at, "source": table, "kind": "+U", "row": row[2] }));
            } else {
                steps.push(json!({ "at": at, "source": table, "kind": row[0], "row": row[1] }));
            }
        }
    }
    let sources: Vec<Value> = fixture["timed_sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let mut source = json!({ "name": t["name"], "schema": t["schema"] });
            if t["format"] == "debezium-json" {
                source["changelog"] = json!("all");
                source["primary_key"] = t["primary_key"].clone();
            }
            source
        })
        .collect();
    let mut sql: Vec<String> = fixture["conf"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| format!("SET '{k}' = '{}';", v.as_str().unwrap()))
        .collect();
    sql.push(format!("{};", fixture["query"].as_str().unwrap()));
    json!({
        "name": name,
        "flink": "2.3",
        "time_format": "millis",
        "sources": sources,
        "sql": sql.join("\n"),
        "steps": steps,
        "expect": { "changelog": { "sink": expected } },
    })
    .to_string()
}

/// Flink's plan lines without the `Sink` (the first line; the tree one level less deep).
fn flink_plan(lines: &Value) -> Vec<String> {
    lines.as_array().unwrap()[1..].iter().map(|l| l.as_str().unwrap()[3..].to_string()).collect()
}

fn conform(name: &str) {
    let (fixture, expected) = fixture(name);
    let scenario = Scenario::from_json(&scenario_of(name, &fixture, &expected)).unwrap();
    let explained = explain(&scenario);
    let (physical, execution) = explained.split_once("\n\n== Optimized Execution Plan ==\n").unwrap();
    let physical: Vec<&str> = physical.trim_start_matches("== Optimized Physical Plan ==\n").lines().collect();
    let execution: Vec<&str> = execution.trim_end().lines().collect();
    assert_eq!(physical, flink_plan(&fixture["explain"]["physical_plan_changelog_mode"]), "{name}: physical plan");
    assert_eq!(execution, flink_plan(&fixture["explain"]["execution_plan"]), "{name}: execution plan");
    if let Err(d) = expect::check(scenario) {
        panic!("{name}: the changelog differs from Flink 2.3.0's: {d}");
    }
}

#[test]
fn select_from_a_normalized_cdc_source_as_flink_2_3_0() {
    conform("cdcdup_select_nottl");
}

#[test]
fn group_aggregate_over_a_normalized_cdc_source_as_flink_2_3_0() {
    conform("cdcdup_count_nottl");
}

#[test]
fn state_ttl_of_a_normalized_cdc_source_as_flink_2_3_0() {
    conform("cdcdup_select_ttl");
}

#[test]
fn left_join_with_a_normalized_cdc_source_as_flink_2_3_0() {
    conform("cdcdup_leftjoin_nottl");
}
