//! `export-sql`: every preset and every scenario under `tests/scenarios/` that exports, read back
//! as a `"sql"` scenario over the same source, plans into the same pipeline (Flink's plan text
//! equal); the scripts recorded on real Flink 2.3 under `tests/conformance/exported/` are still
//! exactly what the export writes.
#![cfg(not(target_arch = "wasm32"))]

use flink_state_sim::engine::explain::explain_lines;
use flink_state_sim::engine::export_sql::{export, file_name};
use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::engine::Scenario;
use std::path::{Path, PathBuf};

/// The plan's nodes other than `Calc`, `Exchange` and the export's `Sink`, each as its kind and changelog mode
/// (`GroupAggregate [I,UB,UA,D]`). The SQL planner trims fields as Flink does (a `Calc` that
/// projects the columns a view does not use, `proctime AS $2`) and names a window's aggregate
/// `w0$o0` as Flink's plan does, where a hand-written pipeline keeps every column and its alias:
/// the stateful operators, their order and their changelogs must be the same.
fn operators(s: &Scenario) -> Vec<String> {
    explain_lines(s)
        .physical
        .iter()
        .filter(|l| !l.starts_with("Calc(") && !l.starts_with("Exchange(") && !l.starts_with("Sink("))
        .map(|l| {
            let kind = l.split('(').next().unwrap_or_default();
            let strategy = l.split("strategy=[").nth(1).and_then(|r| r.split(']').next()).unwrap_or_default();
            let mode = l.rsplit("changelogMode=").next().unwrap_or_default();
            format!("{kind} {strategy} {mode}")
        })
        .collect()
}

/// The scenario `text` with its pipeline (or SQL) and options replaced by the export's SQL.
fn read_back(text: &str, sql: &str) -> Result<Scenario, String> {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    let obj = v.as_object_mut().unwrap();
    for field in ["pipeline", "sql", "state_ttl", "mini_batch", "agg_phase_strategy", "state_backend", "expect"] {
        obj.remove(field);
    }
    obj.insert("sql".into(), serde_json::Value::String(sql.to_string()));
    Scenario::from_json(&v.to_string()).map_err(|e| format!("the export does not plan: {e}\n{sql}"))
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

#[test]
fn every_export_plans_into_the_same_pipeline() {
    let mut inputs: Vec<(String, String)> = PRESETS.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
    let mut files = Vec::new();
    json_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios"), &mut files);
    files.sort();
    for f in files {
        inputs.push((f.display().to_string(), std::fs::read_to_string(&f).unwrap()));
    }
    let mut exported = 0;
    let mut refused = Vec::new();
    let mut differ: Vec<String> = Vec::new();
    for (name, text) in &inputs {
        let Ok(original) = Scenario::from_json(text) else { continue };
        match export(text) {
            Ok(out) => {
                let back = match read_back(text, &out.planner_sql()) {
                    Ok(b) => b,
                    Err(e) => {
                        differ.push(format!("{name}: {e}"));
                        continue;
                    }
                };
                let (a, b) = (operators(&back), operators(&original));
                if a != b {
                    differ.push(format!("{name}:\n  export {:?}\n  origin {:?}", a, b));
                }
                exported += 1;
            }
            Err(e) => refused.push(format!("{name}: {e}")),
        }
    }
    eprintln!("{exported} exported, {} refused:\n{}", refused.len(), refused.join("\n"));
    assert!(differ.is_empty(), "{} differ:\n{}", differ.len(), differ.join("\n"));
    assert!(exported >= 30, "only {exported} scenarios export");
}

#[test]
fn committed_scripts_are_what_the_export_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut scenarios = Vec::new();
    json_files(&root.join("tests/scenarios"), &mut scenarios);
    let mut checked = 0;
    for entry in std::fs::read_dir(root.join("tests/conformance/exported")).unwrap() {
        let path = entry.unwrap().path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".sql")) else {
            continue;
        };
        // A preset, or a scenario of tests/scenarios with that file name.
        let text = match PRESETS.iter().find(|(n, _)| *n == name) {
            Some((_, t)) => t.to_string(),
            None => {
                let file = scenarios.iter().find(|f| f.file_stem().is_some_and(|s| s == name));
                std::fs::read_to_string(file.unwrap_or_else(|| panic!("{name}.sql: no preset or scenario {name}")))
                    .unwrap()
            }
        };
        let committed = std::fs::read_to_string(&path).unwrap();
        assert_eq!(file_name(name), format!("{name}.sql"));
        let now = export(&text).unwrap().sql();
        assert_eq!(now, committed, "{name}: the export changed; rerun tests/conformance/run_sql.py --record");
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} committed scripts");
}
