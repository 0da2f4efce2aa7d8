//! `compiled_plan::import` on real compiled plans: every `tests/conformance/compiled/NAME.json`
//! (written by Flink 2.3's `COMPILE PLAN … FOR INSERT …` for the spec `specs/NAME.json`, by
//! `tests/conformance/record.sh`) is imported, driven with the spec's rows as
//! `tests/conformance.rs` drives the SQL scenario (1 ms apart), and must give the changelog Flink
//! recorded, plan as Flink's nodes describe themselves, give every stateful operator its node's
//! TTL, and — where the SQL planner plans the spec — be the pipeline the SQL gives. A plan the
//! engine does not model must be refused naming the node.
//!
//! Native only: it reads the fixtures from disk (`CONFORMANCE_DIR` overrides where).

use flink_state_sim::engine::compiled_plan::import;
use flink_state_sim::engine::explain::explain_lines;
use flink_state_sim::engine::options::Retention;
use flink_state_sim::engine::time::parse_duration;
use flink_state_sim::engine::{expect, Scenario};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    std::env::var_os("CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance"))
}

fn read(p: PathBuf) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()
}

fn mini_batch_latency(spec: &Value) -> Option<String> {
    let conf = &spec["conf"];
    (conf["table.exec.mini-batch.enabled"].as_str() == Some("true"))
        .then(|| conf["table.exec.mini-batch.allow-latency"].as_str().unwrap_or("1 s").to_string())
}

/// The spec's one source's rows, 1 ms apart from 1 ms, then (under mini-batch) the allow-latency
/// interval passing — as `tests/conformance.rs` drives a spec.
fn steps(spec: &Value) -> Vec<Value> {
    let (_, source) = spec["sources"].as_object().unwrap().iter().next().unwrap();
    let mut steps: Vec<Value> = source["rows"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, row)| json!({ "at": i + 1, "row": row }))
        .collect();
    if let Some(latency) = mini_batch_latency(spec) {
        steps.push(json!({ "advance_by": latency }));
    }
    // The recorder holds such a source open this long after its last row, so timers fire.
    if let Some(hold) = spec.get("hold_open_ms") {
        steps.push(json!({ "advance_by": hold }));
    }
    steps
}

/// The spec as a SQL script (`SET`s, views, the query), as `tests/conformance.rs` writes it.
fn sql_of(spec: &Value) -> String {
    let mut sql = Vec::new();
    for (k, v) in spec["conf"].as_object().cloned().unwrap_or_default() {
        sql.push(format!("SET '{k}' = '{}';", v.as_str().unwrap_or_default()));
    }
    for view in spec["views"].as_array().into_iter().flatten() {
        sql.push(format!("CREATE TEMPORARY VIEW {} AS {};", view[0].as_str().unwrap(), view[1].as_str().unwrap()));
    }
    sql.push(format!("{};", spec["query"].as_str().unwrap()));
    sql.join("\n")
}

fn sql_scenario(name: &str, spec: &Value) -> Result<Scenario, String> {
    let (source_name, source) = spec["sources"].as_object().unwrap().iter().next().unwrap();
    let mut src = json!({ "name": source_name, "schema": source["schema"] });
    if let Some(pt) = source.get("proctime") {
        src["proctime"] = pt.clone();
    }
    let scenario = json!({ "name": name, "flink": "2.3", "source": src, "sql": sql_of(spec), "steps": steps(spec) });
    Scenario::from_json(&scenario.to_string()).map_err(|e| e.to_string())
}

/// The pipeline without operator ids (an import names operators by the plan's node ids), a
/// `CASE`'s `ELSE NULL` left out (Calcite always has one; SQL may write it or not).
fn without_ids(pipeline: &[Value]) -> Vec<Value> {
    pipeline
        .iter()
        .map(|op| {
            let mut op = op.clone();
            op.as_object_mut().unwrap().remove("id");
            let text = op.to_string().replace(" ELSE NULL END", " END");
            serde_json::from_str(&text).unwrap()
        })
        .collect()
}

/// A plan line with the scan's table left out (the recorder's inline source is anonymous).
fn without_table(line: &str) -> String {
    match (line.find("table=[["), line.find("]], fields=")) {
        (Some(a), Some(b)) if line.starts_with("TableSourceScan") && a < b => {
            format!("{}table=[[…{}", &line[..a], &line[b..])
        }
        _ => line.to_string(),
    }
}

/// Each node's `description`, sink first and left out: the optimized execution plan as Flink
/// prints it for the plan.
fn descriptions(plan: &Value) -> Vec<String> {
    let nodes = plan["nodes"].as_array().unwrap();
    nodes.iter().rev().skip(1).map(|n| without_table(n["description"].as_str().unwrap())).collect()
}

/// The imported scenario driven as the spec, expecting Flink's changelog.
fn runnable(imported: &Value, spec: &Value, recorded: &Value) -> Scenario {
    let mut s = imported.clone();
    s["time_format"] = json!("millis");
    s["steps"] = Value::Array(steps(spec));
    s["expect"] = json!({ "changelog": { "sink": recorded["changelog"] } });
    Scenario::from_json(&s.to_string()).unwrap_or_else(|e| panic!("the imported scenario does not load: {e}"))
}

/// The first difference between an imported plan and what Flink and the SQL planner say.
fn conform(name: &str, plan: &Value, spec: &Value, recorded: &Value, imported: &Value) -> Option<String> {
    let scenario = runnable(imported, spec, recorded);
    let explained = explain_lines(&scenario);
    let execution: Vec<String> = explained.execution.iter().map(|l| without_table(l)).collect();
    if execution != descriptions(plan) {
        return Some(format!("plan differs from the nodes:\n  got {execution:#?}\n  nodes {:#?}", descriptions(plan)));
    }
    // Each stateful node's operator runs with the node's TTL.
    let mut op = 0;
    for node in plan["nodes"].as_array().unwrap() {
        let kind = node["type"].as_str().unwrap();
        if kind.contains("exchange") || kind.contains("scan") || kind.contains("sink") || kind.contains("assigner") {
            continue;
        }
        if kind.contains("local-group-aggregate") {
            continue;
        }
        if let Some(ttl) = node["state"][0]["ttl"].as_str() {
            let ms = parse_duration(ttl).unwrap();
            if scenario.operator_retention(op) != Retention::StateTtl(ms) {
                return Some(format!(
                    "operator {op} runs with {:?}, its node has {ttl}",
                    scenario.operator_retention(op)
                ));
            }
        }
        op += 1;
    }
    if let Err(d) = expect::check(scenario) {
        return Some(format!("changelog differs: {d}"));
    }
    let Ok(sql) = sql_scenario(name, spec) else { return None };
    let ex = explain_lines(&sql);
    let strip = |lines: &[String]| lines.iter().map(|l| without_table(l)).collect::<Vec<_>>();
    if (strip(&explained.physical), strip(&explained.execution)) != (strip(&ex.physical), strip(&ex.execution)) {
        return Some(format!(
            "plan differs from the SQL's:\n  got {:#?}\n  sql {:#?}",
            explained.execution, ex.execution
        ));
    }
    let same_proctime = imported["source"].get("proctime")
        == spec["sources"].as_object().unwrap().values().next().unwrap().get("proctime");
    let pipeline = without_ids(imported["pipeline"].as_array().unwrap());
    let mut sql_pipeline = without_ids(sql.planned_pipeline.as_deref().unwrap_or_default());
    // The import gives every node its metadata TTL; the SQL sets one for the whole query.
    for op in &mut sql_pipeline {
        if let Some(own) = pipeline.iter().find(|p| p.get("state_ttl").is_some() && same_but_ttl(p, op)) {
            *op = own.clone();
        }
    }
    if same_proctime && pipeline != sql_pipeline {
        return Some(format!(
            "pipeline differs from the SQL's:\n  got {:#}\n  sql {:#}",
            json!(pipeline),
            json!(sql_pipeline)
        ));
    }
    None
}

fn same_but_ttl(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().retain(|k, _| !k.starts_with("state_ttl"));
        v
    };
    strip(a) == strip(b)
}

#[test]
fn every_compiled_plan_imports_and_runs_as_flink_did() {
    let dir = dir();
    let mut names: Vec<String> = std::fs::read_dir(dir.join("compiled"))
        .expect("tests/conformance/compiled")
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".json").map(str::to_string))
        .collect();
    names.sort();
    assert!(names.len() >= 29, "only {} compiled plans", names.len());
    let (mut failures, mut matched, mut refused) = (Vec::new(), Vec::new(), Vec::new());
    for name in &names {
        let text = std::fs::read_to_string(dir.join("compiled").join(format!("{name}.json"))).unwrap();
        let plan: Value = serde_json::from_str(&text).unwrap();
        let spec = read(dir.join("specs").join(format!("{name}.json"))).expect("spec");
        let recorded = read(dir.join("recorded").join(format!("{name}.json"))).expect("recorded");
        let sql_plans = sql_scenario(name, &spec).is_ok();
        match import(&text) {
            Ok(imported) => match conform(name, &plan, &spec, &recorded, &imported) {
                None => matched.push(name.clone()),
                Some(d) => failures.push(format!("{name}: {d}")),
            },
            Err(e) if sql_plans => failures.push(format!("{name}: refused, but the SQL planner plans it: {e}")),
            // A refusal names the node: its index, type and id.
            Err(e) if e.to_string().contains("(id ") && e.to_string().contains("nodes[") => {
                refused.push(format!("{name}: {e}"))
            }
            Err(e) => failures.push(format!("{name}: refused without naming the node: {e}")),
        }
    }
    eprintln!("{} imported and matched: {}", matched.len(), matched.join(", "));
    eprintln!("{} refused:\n{}", refused.len(), refused.join("\n"));
    assert!(
        failures.is_empty(),
        "{} of {} compiled plans differ:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
    assert!(matched.len() >= 29, "only {} plans imported", matched.len());
}
