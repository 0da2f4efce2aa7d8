//! `compiled_plan::import` on real compiled plans: every `tests/conformance/compiled/NAME.json`
//! (written by Flink 2.3's `COMPILE PLAN … FOR INSERT …` for the spec `specs/NAME.json`, by
//! `tests/conformance/record.sh`) is imported, driven with the spec's rows as
//! `tests/conformance.rs` drives the SQL scenario (1 ms apart), and must give the changelog Flink
//! recorded, plan as Flink's nodes describe themselves, give every stateful operator its node's
//! TTL, and — where the SQL planner plans the spec — be the pipeline the SQL gives. A plan the
//! engine does not model must be refused naming the node.
//!
//! Native only: it reads the fixtures from disk (`CONFORMANCE_DIR` overrides where).
#![cfg(not(target_arch = "wasm32"))]

use common::conformance::{dir, read, steps, without_table};
use flink_state_sim::engine::compiled_plan::import;
use flink_state_sim::engine::explain::explain_lines;
use flink_state_sim::engine::options::Retention;
use flink_state_sim::engine::time::parse_duration;
use flink_state_sim::engine::{expect, Scenario};
use serde_json::{json, Value};

mod common;

/// The spec as a SQL scenario, as `tests/conformance.rs` drives it.
fn sql_scenario(name: &str, spec: &Value) -> Result<Scenario, String> {
    Scenario::from_json(&common::conformance::scenario(name, spec).to_string()).map_err(|e| e.to_string())
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
    // A compiled plan does not record that a TTL came from a `STATE_TTL` hint (its nodes'
    // descriptions show none, as Flink's execution plan does): compare the physical plans
    // without the hint.
    let unhinted = |l: &str| match (l.find(", stateTtlHints="), l.rfind(", changelogMode=")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &l[..a], &l[b..]),
        (Some(a), _) => format!("{})", &l[..a]),
        _ => l.to_string(),
    };
    let strip = |lines: &[String]| lines.iter().map(|l| without_table(&unhinted(l))).collect::<Vec<_>>();
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
            // A refusal names the node: its type and id (and its index in `nodes`, or the
            // pipeline operator the engine refused it as).
            Err(e) if e.to_string().contains("(id ") && e.to_string().contains("stream-exec-") => {
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

/// A recorded compiled plan, parsed.
fn plan(name: &str) -> Value {
    read(dir().join("compiled").join(format!("{name}.json"))).unwrap_or_else(|| panic!("compiled/{name}.json"))
}

/// The node of `plan` of a type, mutable.
fn node<'a>(plan: &'a mut Value, kind: &str) -> &'a mut Value {
    let nodes = plan["nodes"].as_array_mut().unwrap();
    nodes.iter_mut().find(|n| n["type"].as_str().unwrap().starts_with(kind)).unwrap()
}

fn import_err(plan: &Value) -> String {
    import(&plan.to_string()).unwrap_err().to_string()
}

/// FLIP-292: edit a node's `ttl` in the compiled plan and that operator alone runs with it.
#[test]
fn an_edited_state_ttl_gives_that_operator_its_own() {
    let name = "oracle_agg_retract_all_ttl";
    let (spec, recorded) = (
        read(dir().join(format!("specs/{name}.json"))).unwrap(),
        read(dir().join(format!("recorded/{name}.json"))).unwrap(),
    );
    let mut edited = plan(name);
    node(&mut edited, "stream-exec-group-aggregate")["state"][0]["ttl"] = json!("2 ms");
    let imported = import(&edited.to_string()).unwrap();
    assert_eq!(imported["state_ttl"], "1 h");
    assert_eq!(imported["pipeline"][0]["operator"], "Rank");
    assert_eq!(imported["pipeline"][0].get("state_ttl"), None);
    assert_eq!(imported["pipeline"][2]["state_ttl"], "2 ms");
    assert_eq!(imported["pipeline"][2]["state_ttl_from"], "compiled_plan");
    let scenario = runnable(&imported, &spec, &recorded);
    assert_eq!(scenario.operator_retention(0), Retention::StateTtl(3_600_000));
    assert_eq!(scenario.operator_retention(2), Retention::StateTtl(2));
    // EXPLAIN does not show a compiled plan's TTL: the plan reads as Flink's nodes describe it.
    let execution: Vec<String> = explain_lines(&scenario).execution.iter().map(|l| without_table(l)).collect();
    assert_eq!(execution, descriptions(&edited));
    // The aggregation's state now expires 2 ms after its last write, before group a's next row 3 ms later: Flink's 1 h changelog is gone.
    let d = expect::check(scenario).unwrap_err().to_string();
    assert!(d.contains("expect.changelog"), "{d}");

    // The Rank edited instead: with one node at each TTL the first (the Rank's) is the
    // scenario's, and the aggregation keeps its 1 h as its own. Each runs its node's TTL.
    let mut edited = plan(name);
    node(&mut edited, "stream-exec-rank")["state"][0]["ttl"] = json!("0 ms");
    let imported = import(&edited.to_string()).unwrap();
    assert_eq!(
        (imported["state_ttl"].as_str(), imported["pipeline"][2]["state_ttl"].as_str()),
        (Some("0 ms"), Some("1 h"))
    );
    let scenario = runnable(&imported, &spec, &recorded);
    assert_eq!(scenario.operator_retention(0), Retention::StateTtl(0));
    assert_eq!(scenario.operator_retention(2), Retention::StateTtl(3_600_000));
}

/// A `STATE_TTL` hint (the node's description shows it) is the operator's own TTL, as written,
/// and says nothing of `table.exec.state.ttl`: the OVER window before it keeps the default 0.
#[test]
fn a_state_ttl_hint_stays_a_hint() {
    let mut p = plan("preset_seed-002-dau-new-users-global-ttl");
    let agg = node(&mut p, "stream-exec-group-aggregate");
    agg["state"][0]["ttl"] = json!("3 d");
    let d = agg["description"].as_str().unwrap().trim_end_matches(')').to_string();
    agg["description"] = json!(format!("{d}, stateTtlHints=[[[STATE_TTL options:[3d]]]])"));
    let imported = import(&p.to_string()).unwrap();
    assert_eq!(imported["state_ttl"], "0 ms");
    assert_eq!(imported["pipeline"][3]["state_ttl"], "3d");
    assert_eq!(imported["pipeline"][3].get("state_ttl_from"), None);
    let scenario = Scenario::from_json(&imported.to_string()).unwrap();
    assert_eq!(scenario.operator_retention(1), Retention::StateTtl(0));
    assert_eq!(scenario.operator_retention(3), Retention::StateTtl(3 * 86_400_000));
    // The hint shows in the physical plan only, as real Flink 2.3 prints it (the execution plan
    // and a compiled plan's description carry none: `compiled/preset_seed-002-…-per-operator-ttl`).
    let plans = explain_lines(&scenario);
    assert!(plans.physical[0].ends_with("stateTtlHints=[[[STATE_TTL options:[3d]]]])"), "{}", plans.physical[0]);
    assert!(!plans.execution[0].contains("stateTtlHints"), "{}", plans.execution[0]);
}

#[test]
fn state_metadata_is_validated_as_flink_does() {
    let base = plan("oracle_agg_append_all_ttl");
    let with_state = |state: Value| {
        let mut p = base.clone();
        node(&mut p, "stream-exec-group-aggregate")["state"] = state;
        import_err(&p)
    };
    let entry = |i: i64, ttl: &str| json!({"index": i, "ttl": ttl, "name": "groupAggregateState"});
    assert_eq!(
        with_state(json!([entry(0, "1 h"), entry(1, "1 h")])),
        "nodes[2].state: stream-exec-group-aggregate_1 (id 14): The compiled plan contains inconsistent state metadata \
         configuration. Received 2 state meta for a OneInputStreamOperator."
    );
    assert_eq!(
        with_state(json!([entry(1, "1 h")])),
        "nodes[2].state: stream-exec-group-aggregate_1 (id 14): The compiled plan contains inconsistent state metadata \
         configuration. The state index should not contain duplicates and start from 0 (inclusive) and monotonically \
         increase to the input size (exclusive) of the operator."
    );
    assert!(with_state(json!([entry(-1, "1 h")])).ends_with("(id 14): state index should start from 0"));
    assert!(with_state(json!([{"index": 0, "ttl": null, "name": "s"}])).ends_with("state ttl should not be null"));
    assert!(with_state(json!([{"index": 0, "ttl": "1 h"}])).ends_with("state name should not be null"));
    assert_eq!(
        with_state(json!([entry(0, "1 fortnight")])),
        format!(
            "nodes[2].state[0].ttl: stream-exec-group-aggregate_1 (id 14): {}",
            parse_duration("1 fortnight").unwrap_err()
        )
    );
    // No metadata at all: the operator runs with table.exec.state.ttl (Flink's backward
    // compatibility), here the default.
    let mut p = base.clone();
    node(&mut p, "stream-exec-group-aggregate").as_object_mut().unwrap().remove("state");
    let imported = import(&p.to_string()).unwrap();
    assert_eq!((imported["state_ttl"].as_str(), imported["pipeline"][0].get("state_ttl")), (Some("0 ms"), None));
}

#[test]
fn malformed_plans_are_refused_naming_the_field() {
    assert!(import("{").unwrap_err().to_string().starts_with("plan: not JSON: EOF while parsing"));
    let deep = "[".repeat(100_000);
    assert!(import(&deep).unwrap_err().to_string().contains("recursion limit exceeded"));
    let big = format!("{{\"x\": \"{}\"}}", "a".repeat(4 << 20));
    assert!(import(&big).unwrap_err().to_string().ends_with("more than the 4,194,304 (4 MiB) read"));
    assert!(import("{\"nodes\": []}").unwrap_err().to_string().starts_with("flinkVersion: missing"));
    assert!(import("{\"flinkVersion\": \"1.15\", \"nodes\": []}")
        .unwrap_err()
        .to_string()
        .contains("plans of Flink 1.18 – 2.3"));
    let base = plan("oracle_agg_append_all_ttl");
    let mut p = base.clone();
    p.as_object_mut().unwrap().remove("edges");
    assert_eq!(import_err(&p), "edges: missing or not an array");
    let mut p = base.clone();
    node(&mut p, "stream-exec-group-aggregate").as_object_mut().unwrap().remove("grouping");
    assert_eq!(import_err(&p), "nodes[2].grouping: stream-exec-group-aggregate_1 (id 14): missing field");
    let mut p = base.clone();
    node(&mut p, "stream-exec-group-aggregate")["type"] = json!("stream-exec-join_1");
    assert!(
        import_err(&p).starts_with("nodes[2].type: stream-exec-join_1 (id 14) is not modelled: the simulator reads")
    );
    let mut p = base.clone();
    node(&mut p, "stream-exec-group-aggregate")["aggCalls"][0]["internalName"] = json!("$FIRST_VALUE$1");
    assert!(import_err(&p).starts_with("nodes[2].aggCalls[0]: stream-exec-group-aggregate_1 (id 14): the aggregate function '$FIRST_VALUE$1' is not modelled"));
    let mut p = plan("oracle_topn2_norank_nottl");
    node(&mut p, "stream-exec-rank")["rankType"] = json!("DENSE_RANK");
    assert!(import_err(&p).ends_with("'DENSE_RANK' is not modelled (only ROW_NUMBER)"));
    // Two sinks (a statement set) are not one path.
    let mut p = base.clone();
    p["edges"].as_array_mut().unwrap().pop();
    assert_eq!(import_err(&p), "nodes: 2 nodes have no input: the simulator runs one source");
}

/// What the engine refuses in the pipeline built is reported with the node it came from.
#[test]
fn the_engines_refusals_name_the_node() {
    let mut p = plan("oracle_agg_retract_all_ttl");
    // LAST_VALUE cannot consume the Rank's retractions (Flink would use LAST_VALUE_RETRACT… it has none).
    node(&mut p, "stream-exec-group-aggregate")["aggCalls"][1]["internalName"] = json!("$LAST_VALUE$1");
    let e = import_err(&p);
    assert!(
        e.starts_with("imported scenario pipeline[2].aggregates[1].function: stream-exec-group-aggregate_1 (id 26): "),
        "{e}"
    );
}

#[test]
fn the_command_line_prints_the_scenario() {
    let path = dir().join("compiled/oracle_device3_lastvalue_minibatch.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flink-state-sim"))
        .arg("import-plan")
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scenario: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(scenario["flink"], "2.3");
    assert_eq!(scenario["mini_batch"], json!({ "allow_latency": "1 s", "size": 1000 }));
    assert_eq!(scenario["agg_phase_strategy"], "TWO_PHASE");
    assert_eq!(scenario.get("steps"), None);
    let bad = std::env::temp_dir().join("flink-state-sim-import-plan-bad.json");
    std::fs::write(&bad, "{\"flinkVersion\": \"2.3\", \"nodes\": 1}").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_flink-state-sim"))
        .arg("import-plan")
        .arg(&bad)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&bad);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.trim_end().ends_with("nodes: missing or not an array") && err.trim_end().lines().count() == 1, "{err}");
}

/// Any field of any node removed or replaced by a value of another JSON type gives a scenario
/// or an error, never a panic.
#[test]
fn mutated_plans_never_panic() {
    let replacements = [Value::Null, json!(-1), json!("x"), json!([]), json!({}), json!([{"kind": "CALL"}])];
    let mut imports = 0;
    for name in [
        "oracle_device3_lastvalue_minibatch",
        "oracle_dau_over_1preceding_ttl",
        "oracle_dedup_last_proctime_ttl",
        "oracle_topn2_withrank_ttl",
    ] {
        let base = plan(name);
        for i in 0..base["nodes"].as_array().unwrap().len() {
            let keys: Vec<String> = base["nodes"][i].as_object().unwrap().keys().cloned().collect();
            for key in keys {
                let mut p = base.clone();
                p["nodes"][i].as_object_mut().unwrap().remove(&key);
                let _ = import(&p.to_string());
                for r in &replacements {
                    let mut p = base.clone();
                    p["nodes"][i][&key] = r.clone();
                    let _ = import(&p.to_string());
                    imports += 1;
                }
            }
        }
    }
    assert!(imports > 500, "{imports}");
}
