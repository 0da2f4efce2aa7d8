#![cfg(not(target_arch = "wasm32"))]
//! The joins recorded on real Flink 2.3.0 (`tests/oracle/joins/`, a copy of
//! `shared/oracle/joins`: see its README), each turned mechanically into a SQL scenario: one
//! source `src (side, k, v)` (a Debezium changelog for `format: debezium-json`), the fixture's
//! `SET`s, views and query, and each event's rows at its offset (a Debezium update `U` is `-U`
//! then `+U`). The scenario must plan as Flink did (both plans, node for node, the scan's table
//! aside) and print the changelog Flink printed (`flink-state-sim check`'s expectation).
//! `ORACLE_JOINS_DIR` runs the same path over other recordings of these shapes.

use flink_state_sim::engine::explain::explain;
use flink_state_sim::engine::{expect, Scenario};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

mod common;

fn dir() -> PathBuf {
    std::env::var_os("ORACLE_JOINS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/joins"))
}

/// The fixture as a SQL scenario expecting Flink's changelog.
fn scenario_of(name: &str, fixture: &Value, expected: &Value) -> Value {
    let source = &fixture["timed_source"];
    let cdc = source["format"] == "debezium-json";
    let mut steps = Vec::new();
    for event in source["events"].as_array().unwrap() {
        let at = event[0].as_f64().unwrap() * 1000.0;
        for row in event[1].as_array().unwrap() {
            if !cdc {
                steps.push(json!({ "at": at as i64, "row": row }));
            } else if row[0] == "U" {
                steps.push(json!({ "at": at as i64, "kind": "-U", "row": row[1] }));
                steps.push(json!({ "at": at as i64, "kind": "+U", "row": row[2] }));
            } else {
                steps.push(json!({ "at": at as i64, "kind": row[0], "row": row[1] }));
            }
        }
    }
    // The recorder kept the job running `settle_s` after the last file (or until `stop_on`).
    let settle = fixture["settle_s"].as_i64().unwrap_or(2) * 1000;
    steps.push(json!({ "advance_by": settle }));
    let mut sql = Vec::new();
    for (k, v) in fixture["conf"].as_object().cloned().unwrap_or_default() {
        sql.push(format!("SET '{k}' = '{}';", v.as_str().unwrap_or_default()));
    }
    for view in fixture["views"].as_array().into_iter().flatten() {
        sql.push(format!("CREATE TEMPORARY VIEW {} AS {};", view[0].as_str().unwrap(), view[1].as_str().unwrap()));
    }
    sql.push(format!("{};", fixture["query"].as_str().unwrap()));
    // The recordings read a streaming `filesystem` table: its scan takes projection and filter
    // push-down.
    let mut src = json!({ "name": source["name"], "schema": source["schema"], "connector": "filesystem" });
    if cdc {
        src["changelog"] = json!("all");
    }
    json!({
        "name": name,
        "flink": "2.3",
        "time_format": "millis",
        "source": src,
        "sql": sql.join("\n"),
        "steps": steps,
        "expect": { "changelog": { "sink": expected } },
    })
}

/// Flink's plan of the query, without the `Sink` it was explained under (its first line, the
/// tree drawn one level less deep). The scans are compared whole: the source is the same
/// `filesystem` table, with its push-down.
fn flink_plan(lines: &Value) -> Vec<String> {
    lines.as_array().unwrap()[1..]
        .iter()
        .map(|l| {
            let l = l.as_str().unwrap();
            l.get(3..).unwrap_or(l).to_string()
        })
        .collect()
}

fn our_plan(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

fn conform(name: &str, fixture: &Value, expected: &Value) -> Option<String> {
    let text = scenario_of(name, fixture, expected).to_string();
    let scenario = match Scenario::from_json(&text) {
        Ok(s) => s,
        Err(e) => return Some(format!("refused: {e}")),
    };
    let explained = explain(&scenario);
    let (physical, execution) = explained.split_once("\n\n== Optimized Execution Plan ==\n").unwrap();
    let physical = our_plan(physical.trim_start_matches("== Optimized Physical Plan ==\n"));
    let execution = our_plan(execution.trim_end());
    let flink_physical = flink_plan(&fixture["explain"]["physical_plan_changelog_mode"]);
    let flink_execution = flink_plan(&fixture["explain"]["execution_plan"]);
    if physical != flink_physical {
        return Some(format!(
            "physical plan differs:\n  got\n{}\n  Flink\n{}",
            physical.join("\n"),
            flink_physical.join("\n")
        ));
    }
    if execution != flink_execution {
        return Some(format!(
            "execution plan differs:\n  got\n{}\n  Flink\n{}",
            execution.join("\n"),
            flink_execution.join("\n")
        ));
    }
    expect::check(scenario).err().map(|d| format!("changelog differs: {d}"))
}

#[test]
fn every_recorded_join_plans_and_runs_as_flink_did() {
    let dir = dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/oracle/joins")
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".json").map(str::to_string))
        .filter(|n| n.starts_with("join_") && !n.ends_with(".expected"))
        .collect();
    names.sort();
    assert!(names.len() >= 14, "only {} join fixtures in {}", names.len(), dir.display());
    let mut failures = Vec::new();
    for name in &names {
        let read = |file: String| -> Value {
            serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap()
        };
        let fixture = read(format!("{name}.json"));
        let expected = read(format!("{name}.expected.json"));
        if let Some(d) = conform(name, &fixture, &expected) {
            failures.push(format!("{name}: {d}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ from Flink 2.3:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n\n")
    );
}
