//! `flink-state-sim check`: every scenario under `tests/scenarios/` passes its expectations, and a
//! wrong expectation fails with a readable first difference.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};
use std::process::Command;

fn scenario_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            scenario_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

fn check(files: &[PathBuf]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flink-state-sim")).arg("check").args(files).output().unwrap()
}

#[test]
fn every_scenario_under_tests_passes_its_expectations() {
    let mut files = Vec::new();
    scenario_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios"), &mut files);
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    let o = check(&files);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(out.lines().filter(|l| l.starts_with("ok ")).count(), files.len(), "{out}");
    assert!(!out.contains("expects nothing"), "every scenario under tests/ states what it expects:\n{out}");
}

#[test]
fn a_wrong_expectation_names_the_first_difference() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = |name: &str| dir.join(name);
    let mut d: serde_json::Value =
        serde_json::from_str(include_str!("scenarios/oracle/device_status_lastvalue_nottl.json")).unwrap();
    d["expect"]["changelog"]["query"][1] = serde_json::json!(["-U", [1, 1]]);
    std::fs::write(path("wrong.json"), d.to_string()).unwrap();
    d["expect"]["changelog"]["query"].as_array_mut().unwrap().truncate(1);
    std::fs::write(path("short.json"), d.to_string()).unwrap();
    let o = check(&[path("wrong.json"), path("short.json")]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("wrong.json: expect.changelog.query[1]: expected -U[1, 1], got -D[1, 1]"), "{out}");
    assert!(
        out.contains("short.json: expect.changelog.query[1]: expected nothing more (1 in all), got -D[1, 1]"),
        "{out}"
    );
}

#[test]
fn a_draft_of_a_bad_scenario_names_the_file_and_the_field() {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("draft-bad.json");
    std::fs::write(&path, r#"{"name": "x", "flink": "2.3", "source": {"name": "s", "schema": [["a", "STRING"]]}, "pipeline": [], "steps": [{"at": 1, "row": [1]}]}"#).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_flink-state-sim")).args(["check", "--draft"]).arg(&path).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.starts_with(&format!("{}: ", path.display())), "{err}");
    assert!(o.stdout.is_empty());
}
