//! The echo reproducers of `shared/repro/more/` (E9–E13, E15, E16) and C2: user text in errors
//! and in the CLI's text output is escaped and shortened by the one quoting function
//! (`engine::error::quote` and its siblings); a workload's generated keys have a bounded prefix.
//! The small inputs are copied under `tests/fixtures/repro/more/`; E15's 1 MB inputs are built
//! here as `E15-huge-echo.py` writes them.
#![cfg(not(target_arch = "wasm32"))]

use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use serde_json::{json, Value};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn fixture_path(name: &str) -> String {
    format!("{}/tests/fixtures/repro/more/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixture_path(name)).unwrap()
}

fn error(json: &str) -> String {
    Scenario::from_json(json).unwrap_err().to_string()
}

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flink-state-sim")).args(args).output().unwrap()
}

/// A character that must not reach a terminal raw: a control character (a newline included) or
/// an invisible one that hides or reorders text (bidi embeddings, overrides, isolates, marks).
fn hostile(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}')
}

fn assert_one_safe_line(text: &str) {
    assert!(!text.chars().any(hostile), "a raw control or bidi character in {text:?}");
}

/// E15's scenario: one STRING key, one INT, one COUNT(*), one step.
fn base() -> Value {
    json!({"name": "e", "flink": "2.3", "time_format": "millis",
           "source": {"name": "s", "schema": [["k", "STRING"], ["v", "INT"]]},
           "pipeline": [{"operator": "GroupAggregate", "id": "g", "group_by": ["k"],
                         "aggregates": [{"function": "COUNT", "args": ["*"], "as": "n"}]}],
           "steps": [{"at": 1, "row": ["a", 1]}]})
}

/// E10, E11, E12, E13, E16: newline, ESC, BEL and bidi isolates in a column list, an unknown
/// field, a date-time, a duration and a group_by name are escaped; the path and the rule stay.
#[test]
fn user_text_in_errors_is_escaped() {
    let cases = [
        (
            "E10-column-list-raw-newline-esc.json",
            r"steps[0].row: has 1 values, source 's' has 2 columns (k, v\nFAKE: second line\u{1b}[31m)",
        ),
        (
            "E11-unknown-field-raw-newline-esc.json",
            r"scenario: unknown field `zz\nFAKE\u{1b}[2J`, expected one of `$schema`, `name`, `title`, ",
        ),
        (
            "E12-datetime-raw-newline-esc.json",
            r"steps[0].at: '2019-11-20\nFAKE\u{1b}[31m' is not an ISO-8601 date-time (expected e.g. 2019-11-20T15:00",
        ),
        (
            "E13-duration-overflow-raw-newline-bel.json",
            r"state_ttl: the duration '9223372036854775807\n\u{1b}\u{7} d' overflows 64-bit milliseconds",
        ),
        (
            "E16-bidi-isolates-not-escaped.json",
            r"pipeline[0].group_by[0]: no column 'k\u{2067}\u{2066} hidden \u{2069}\u{2069}' in source 's' (columns: k, v)",
        ),
    ];
    for (file, expected) in cases {
        let err = error(&fixture(file));
        assert_one_safe_line(&err);
        assert!(err.starts_with(expected), "{file}: {err}");
        let o = cli(&["run", &fixture_path(file)]);
        assert_eq!(o.status.code(), Some(2), "{file}");
        assert_eq!(String::from_utf8(o.stderr).unwrap(), format!("{err}\n"), "{file}: the CLI prints the same line");
    }
}

/// E15: 1 MB of user text gives an error of a few hundred bytes that still names the field and
/// the rule (the SQL variants, `where` literals and tokens, are the expression parser's).
#[test]
fn huge_user_text_is_shortened_in_errors() {
    const M: usize = 1_000_000;
    let mut unknown_field = base().to_string();
    unknown_field.pop();
    unknown_field.push_str(&format!(r#", "{}": 1}}"#, "k".repeat(M)));
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut d = base();
        edit(&mut d);
        d.to_string()
    };
    let cases = [
        (unknown_field, format!("scenario: unknown field `{k}…` (1000000 characters), expected one of `$schema`", k = "k".repeat(60))),
        (with(&|d| d["steps"] = json!(["x".repeat(M)])),
         format!("steps[0]: expected a step object, found the string \"{}…\" (1000000 characters)", "x".repeat(60))),
        (with(&|d| d["steps"][0]["row"][1] = json!("x".repeat(M))),
         format!("steps[0].row[1]: column 'v': expected INT or null, found \"{}…\" (1000000 characters)", "x".repeat(60))),
        (with(&|d| d["steps"][0]["at"] = json!(format!("2019-{}", "1".repeat(M)))),
         format!("steps[0].at: '2019-{}…' (1000005 characters) is not an ISO-8601 date-time", "1".repeat(55))),
        (with(&|d| d["state_ttl"] = json!("9".repeat(M))),
         format!("state_ttl: The value '{}…' (1000000 characters) cannot be re represented as 64bit number (numeric overflow).", "9".repeat(60))),
        (with(&|d| d["source"]["schema"] = wide_schema()),
         "steps[0].row: has 2 values, source 's' has 100001 columns (k, c0, c1, c2, ".to_string()),
    ];
    let no_such_column = with(&|d| {
        d["source"]["schema"] = wide_schema();
        d["pipeline"][0]["group_by"] = json!(["nope"]);
    });
    let cases = cases.into_iter().chain([(
        no_such_column,
        "pipeline[0].group_by[0]: no column 'nope' in source 's' (columns: k, c0, c1, c2, ".to_string(),
    )]);
    for (text, expected) in cases {
        let err = error(&text);
        assert_one_safe_line(&err);
        assert!(err.starts_with(&expected), "{err}");
        assert!(err.len() < 500, "{} bytes: {err}", err.len());
        if expected.contains("(k, c0") || expected.contains("columns: k, c0") {
            assert!(err.ends_with(" more)"), "a list of 100 001 columns is cut: {err}");
        }
    }
}

/// `k` and 100 000 INT columns.
fn wide_schema() -> Value {
    let mut schema = vec![json!(["k", "STRING"])];
    schema.extend((0..100_000).map(|i| json!([format!("c{i}"), "INT"])));
    json!(schema)
}

/// E9: `run --format text` prints values escaped: an ESC does not reach the terminal, a newline
/// does not forge a line; the JSONL trace keeps the exact values (JSON escapes them).
#[test]
fn the_text_trace_escapes_values() {
    let o = cli(&["run", &fixture_path("E9-text-trace-prints-values-raw.json")]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    for line in &lines {
        assert_one_safe_line(line);
    }
    // 4 steps × (input, received, emitted), the result header and its 4 rows.
    assert_eq!(lines.len(), 4 * 3 + 1 + 4, "{out}");
    assert_eq!(lines[0], r"1 ms  s  input +I[\u{1b}[2J\u{1b}[31mRED\u{1b}[0m\nfake line, 1, 1]");
    assert_eq!(lines[3], r"2 ms  s  input +I[\u{202e}\u{2066}bidi\u{2069}, 1, 1]");
    assert_eq!(lines[6], r"3 ms  s  input +I[a\u{0}b, 1, 1]");
    assert_eq!(lines[9], "4 ms  s  input +I[<img src=x onerror=alert(1)>, 1, 1]", "printable text as it is");
    assert!(lines.contains(&r"  \u{1b}[2J\u{1b}[31mRED\u{1b}[0m\nfake line, 1, 1, 1"), "{out}");

    let o = cli(&["run", &fixture_path("E9-text-trace-prints-values-raw.json"), "--format", "jsonl"]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(!out.trim_end().chars().any(|c| c.is_control() && c != '\n'), "JSON escapes control characters");
    let first: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["row"][0], "\u{1b}[2J\u{1b}[31mRED\u{1b}[0m\nfake line", "the value itself, exactly");
}

/// E9, the other text outputs: the metrics summary and the CSV header carry operator ids and the
/// scenario's name; both are escaped (the CSV's values are numbers).
#[test]
fn summary_and_csv_escape_operator_ids() {
    let mut d = base();
    d["name"] = json!("n\u{1b}[31m\nFAKE");
    d["pipeline"][0]["id"] = json!("g\u{1b}[2J\r\u{2066}");
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("echo-hostile-id.json");
    std::fs::write(&path, d.to_string()).unwrap();
    let path = path.to_str().unwrap();

    let o = cli(&["run", path, "--trace", "metrics"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    out.lines().for_each(assert_one_safe_line);
    assert!(out.starts_with(r"scenario n\u{1b}[31m\nFAKE on Flink 1.19–2.3 — "), "{out}");
    assert!(out.contains(r"operator g\u{1b}[2J\r\u{2066} — "), "{out}");

    let o = cli(&["run", path, "--trace", "metrics", "--format", "csv"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    out.lines().for_each(assert_one_safe_line);
    let header = out.lines().next().unwrap();
    assert!(header.starts_with(r"time_ms,inputs,result_rows,stale_rows,g\u{1b}[2J\r\u{2066}.keys,"), "{header}");
    let rows: Vec<usize> = out.lines().map(|l| l.split(',').count()).collect();
    assert!(rows.len() > 1 && rows.iter().all(|&n| n == rows[0]), "every row has the header's columns: {rows:?}");
}

/// C2: a 10 000-character `key_prefix` (a key string built and kept for each of 10^6 keys) is
/// refused at once, naming the field and the limit; 64 characters are accepted.
#[test]
fn a_long_key_prefix_is_refused() {
    let started = Instant::now();
    let err = error(&fixture("C2-workload-key-prefix-oom.json"));
    assert_eq!(
        err,
        format!(
            "workload.key_prefix: '{}…' (10000 characters) is longer than 64 characters \
             (each generated key is the prefix and a number)",
            "p".repeat(60)
        )
    );
    let o = cli(&["run", &fixture_path("C2-workload-key-prefix-oom.json")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());

    let workload = |prefix: &str| {
        let mut d = base();
        d["source"]["schema"] = json!([["k", "STRING"]]);
        d["steps"] = json!([]);
        d["workload"] = json!({"seed": 1, "events": 3, "keys": 5, "key_column": "k", "key_prefix": prefix});
        d.to_string()
    };
    let p64 = "é".repeat(64);
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(Scenario::from_json(&workload(&p64)).unwrap(), options);
    sim.run_to_end().unwrap();
    let keys: Vec<String> = sim.result().rows().map(|r| r.row.join(",")).collect();
    assert!(!keys.is_empty() && keys.iter().all(|k| k.starts_with(&p64)), "{keys:?}");
    let err = error(&workload(&"é".repeat(65)));
    assert!(err.starts_with("workload.key_prefix: 'ééé"), "{err}");
    assert!(err.contains("is longer than 64 characters"), "{err}");
}

/// Every string and every key of every preset replaced, one at a time, by hostile text (a newline,
/// an ESC sequence, a bidi isolate; short, then 100 000 characters long): whatever error results,
/// at load or while running, is one line without a raw control or bidi character, and short.
/// Errors in a Calc's SQL (the expression parser's echoes, E14) are checked too.
#[test]
fn hostile_text_anywhere_in_a_preset_is_echoed_safely() {
    use flink_state_sim::engine::presets::PRESETS;
    let short = "x\n\u{1b}[31m\u{2066}\u{7}";
    let long = format!("{short}{}", "y".repeat(100_000));
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, json) in PRESETS {
        let mut original: Value = serde_json::from_str(json).unwrap();
        if original["workload"].is_object() {
            original["workload"]["events"] = json!(50); // not 100 k events per variant
        }
        for place in 0..places(&original) {
            for text in [short, long.as_str()] {
                let mut d = original.clone();
                replace_nth(&mut d, &mut place.clone(), text);
                let message = match Scenario::from_json(&d.to_string()) {
                    Err(e) => e.to_string(),
                    Ok(s) => {
                        let mut sim = Simulation::with_options(s, metrics_only());
                        match sim.run_to_end() {
                            Err(e) => e.0,
                            Ok(()) => continue,
                        }
                    }
                };
                checked += 1;
                if message.chars().any(hostile) || message.len() >= 1200 {
                    failures.push(format!(
                        "{name}, place {place}: {} bytes: {}",
                        message.len(),
                        message.chars().take(300).collect::<String>()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 100, "{checked} errors checked");
}

fn metrics_only() -> SimOptions {
    SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false }
}

/// How many strings and keys `v` holds.
fn places(v: &Value) -> usize {
    match v {
        Value::String(_) => 1,
        Value::Array(a) => a.iter().map(places).sum(),
        Value::Object(o) => o.iter().map(|(_, v)| 1 + places(v)).sum(),
        _ => 0,
    }
}

/// Replaces the `n`th string or key of `v` (in the order [`places`] counts them) by `text`.
fn replace_nth(v: &mut Value, n: &mut usize, text: &str) -> bool {
    match v {
        Value::String(s) => {
            if *n == 0 {
                *s = text.to_string();
                return true;
            }
            *n -= 1;
            false
        }
        Value::Array(a) => a.iter_mut().any(|x| replace_nth(x, n, text)),
        Value::Object(o) => {
            let keys: Vec<String> = o.keys().cloned().collect();
            for k in keys {
                if *n == 0 {
                    let value = o.shift_remove(&k).unwrap();
                    o.insert(text.to_string(), value);
                    return true;
                }
                *n -= 1;
                if replace_nth(o.get_mut(&k).unwrap(), n, text) {
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}
