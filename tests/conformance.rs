//! Conformance with real Apache Flink 2.3: every spec under `tests/conformance/specs/` (the
//! `shared/oracle` format: `conf`, `sources`, `views`, `query`), recorded on PyPI's
//! `apache-flink==2.3.0` by `tests/conformance/record.sh` into `recorded/NAME.json`, is turned
//! mechanically into a SQL scenario and must give Flink's changelog and Flink's plan text, line
//! for line (the scan's table name aside), or be refused where Flink refused to plan it.
//!
//! Native only: it reads the fixtures from disk (`CONFORMANCE_DIR` overrides where).
#![cfg(not(target_arch = "wasm32"))]

use common::conformance::{dir, read, without_table};
use flink_state_sim::engine::explain::explain_lines;
use flink_state_sim::engine::{expect, Scenario};
use serde_json::{json, Value};
use std::path::Path;

mod common;

/// The SQL scenario of a spec, expecting the changelog Flink recorded.
fn scenario_of(name: &str, spec: &Value, recorded: &Value) -> Value {
    let mut scenario = common::conformance::scenario(name, spec);
    if let Some(changelog) = recorded.get("changelog") {
        scenario["expect"] = json!({ "changelog": { "sink": changelog } });
    }
    scenario
}

fn lines(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str).map(without_table).collect()
}

/// The first difference of one fixture, if any.
fn conform(name: &str, spec: &Value, recorded: &Value) -> Option<String> {
    let scenario_json = scenario_of(name, spec, recorded).to_string();
    let scenario = match Scenario::from_json(&scenario_json) {
        Ok(s) => s,
        Err(e) => {
            return match recorded.get("planner_error").and_then(Value::as_str) {
                // Flink's own message (its first line), where Flink has one.
                Some(flink) if e.to_string().contains(flink.lines().next().unwrap_or(flink).trim()) => None,
                Some(flink) => Some(format!("refused, but not with Flink's message {flink:?}: {e}")),
                None => Some(format!("refused, but Flink planned it: {e}")),
            };
        }
    };
    if let Some(error) = recorded.get("planner_error") {
        return Some(format!("planned, but Flink refused it: {error}"));
    }
    let explained = explain_lines(&scenario);
    let physical: Vec<String> = explained.physical.iter().map(|l| without_table(l)).collect();
    let execution: Vec<String> = explained.execution.iter().map(|l| without_table(l)).collect();
    if physical != lines(&recorded["plan_changelog"]) {
        return Some(format!(
            "physical plan differs:\n  got      {physical:#?}\n  expected {:#?}",
            lines(&recorded["plan_changelog"])
        ));
    }
    if execution != lines(&recorded["plan_ops"]) {
        return Some(format!(
            "execution plan differs:\n  got      {execution:#?}\n  expected {:#?}",
            lines(&recorded["plan_ops"])
        ));
    }
    expect::check(scenario).err().map(|d| format!("changelog differs: {d}"))
}

/// Fixtures where the simulator knowingly differs from the recording, and how: the README's
/// conformance table lists each with its reason. Each entry must still differ exactly this way
/// (a fixture that starts to conform must leave this list).
const INTENDED: &[(&str, Intended, &str)] = &[
    ("agg_multi_keys_nottl", Intended::Refused("DOUBLE"), "DOUBLE is not modelled (INT, BIGINT, STRING, BOOLEAN are)"),
    (
        "dedup_last_minibatch_nottl",
        Intended::Refused("ProcTimeMiniBatchDeduplicateKeepLastRowFunction"),
        "the mini-batch keep-last deduplication (ProcTimeMiniBatchDeduplicateKeepLastRowFunction) is not modelled",
    ),
    (
        "topn_between_2_3_nottl",
        Intended::Refused("BETWEEN"),
        "a rank range not starting at 1 (rn BETWEEN 2 AND 3) is not modelled",
    ),
    (
        "over_row_number_nontime_asc",
        Intended::Refused("NonTimeRowsUnboundedPrecedingFunction"),
        "ROW_NUMBER() without a rank filter over a non-time order: Flink 2.3 runs it as an OVER aggregation \
         (NonTimeRowsUnboundedPrecedingFunction), which is not modelled",
    ),
    ("calc_bool_double", Intended::Refused("DOUBLE"), "DOUBLE is not modelled"),
    (
        "calc_where_logic",
        Intended::Refused("IN ("),
        "IN (…) is not modelled (Flink plans it as SEARCH(k, Sarg[…]) and reorders the OR's operands)",
    ),
];

/// How an intended difference shows.
#[derive(Clone, Copy)]
enum Intended {
    /// The simulator refuses the scenario with a message containing this.
    Refused(&'static str),
}

#[test]
fn every_recorded_fixture_plans_and_runs_as_flink_did() {
    let dir = dir();
    let mut names: Vec<String> = std::fs::read_dir(dir.join("specs"))
        .expect("tests/conformance/specs")
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".json").map(str::to_string))
        .collect();
    names.sort();
    assert!(names.len() >= 29, "only {} specs", names.len());
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in &names {
        let spec = read(dir.join("specs").join(format!("{name}.json"))).expect("spec is JSON");
        let Some(recorded) = read(dir.join("recorded").join(format!("{name}.json"))) else {
            failures.push(format!("{name}: not recorded (run tests/conformance/record.sh {name})"));
            continue;
        };
        checked += 1;
        let difference = conform(name, &spec, &recorded);
        match (INTENDED.iter().find(|(n, _, _)| n == name), difference) {
            (None, None) => {}
            (None, Some(d)) => failures.push(format!("{name}: {d}")),
            (Some(_), None) => failures.push(format!("{name}: conforms now: remove it from INTENDED and the README")),
            (Some((_, Intended::Refused(what), _)), Some(d)) if d.starts_with("refused") && d.contains(what) => {}
            (Some(_), Some(d)) => failures.push(format!("{name}: differs otherwise than INTENDED says: {d}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} fixtures differ from Flink 2.3:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The node kinds of a recorded execution plan (`Rank` with its strategy), or a refusal when
/// Flink refused to plan.
fn kinds(recorded: &Value) -> Vec<String> {
    if recorded.get("planner_error").is_some() {
        return vec!["Flink refuses to plan (same message)".into()];
    }
    let mut out: Vec<String> = Vec::new();
    for line in lines(&recorded["plan_ops"]) {
        let name = line.split('(').next().unwrap_or_default().to_string();
        let kind = match name.as_str() {
            "Exchange" | "TableSourceScan" | "Sink" => continue,
            "LocalGroupAggregate" | "GlobalGroupAggregate" => "Local/GlobalGroupAggregate".to_string(),
            "Rank" => {
                let strategy = line.split("strategy=[").nth(1).and_then(|r| r.split([']', '[']).next()).unwrap_or("");
                format!("Rank ({strategy})")
            }
            "OverAggregate" if line.contains("RANGE BETWEEN") && !line.contains("UNBOUNDED") => {
                "OverAggregate (RANGE interval)".to_string()
            }
            "OverAggregate" => "OverAggregate (ROWS / unbounded)".to_string(),
            _ => name,
        };
        if !out.contains(&kind) {
            out.push(kind);
        }
    }
    out
}

/// README's conformance table: per node kind, the fixtures that conform (with TTL off, on).
#[test]
fn the_readme_table_is_the_conformance_measured() {
    use std::collections::BTreeMap;
    let dir = dir();
    let mut table: BTreeMap<String, [(usize, usize); 2]> = BTreeMap::new();
    for entry in std::fs::read_dir(dir.join("recorded")).expect("tests/conformance/recorded") {
        let path = entry.expect("entry").path();
        let name = path.file_stem().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let (Some(recorded), Some(spec)) = (read(path.clone()), read(dir.join("specs").join(format!("{name}.json"))))
        else {
            continue;
        };
        let ttl = usize::from(spec["conf"].get("table.exec.state.ttl").is_some());
        let ok = conform(&name, &spec, &recorded).is_none();
        for kind in kinds(&recorded) {
            let cell = &mut table.entry(kind).or_default()[ttl];
            cell.1 += 1;
            cell.0 += usize::from(ok);
        }
    }
    let cell = |(ok, n): (usize, usize)| if n == 0 { "–".to_string() } else { format!("{ok} / {n}") };
    let mut rendered = String::from(
        "| node kind (Flink's execution plan) | TTL off: match / fixtures | TTL 1 h: match / fixtures |\n|---|---|---|\n",
    );
    for (kind, [off, on]) in &table {
        rendered.push_str(&format!("| {kind} | {} | {} |\n", cell(*off), cell(*on)));
    }
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README.md");
    let marker = "<!-- conformance-table -->\n";
    let start = readme.find(marker).expect("README's conformance table marker") + marker.len();
    let end = readme.find("<!-- /conformance-table -->").expect("README's conformance table end marker");
    assert_eq!(&readme[start..end], rendered, "README's conformance table is out of date; it should read:\n{rendered}");
}
