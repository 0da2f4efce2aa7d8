//! The native CLI: `run`, `presets`, the JSONL format, and exit status 2 on bad input.
#![cfg(not(target_arch = "wasm32"))]

use std::process::{Command, Output};

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flink-state-sim")).args(args).output().expect("the CLI runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn lists_presets() {
    let o = cli(&["presets"]);
    assert!(o.status.success());
    let names: Vec<String> = stdout(&o).lines().map(|l| l.split('\t').next().unwrap().to_string()).collect();
    assert_eq!(
        names,
        [
            "seed-001-one-day-two-days",
            "cleanup-harness-min5-max10",
            "seed-004-device-status",
            "seed-004-device-status-flink-2.3",
            "seed-000-topn-dedup",
            "seed-000-topn-dedup-no-retention",
            "seed-002-dau-new-users-global-ttl",
            "seed-002-dau-new-users-per-operator-ttl",
            "sql-dedup-keep-last-heap",
            "sql-top2-per-group-with-rank",
            "sql-top2-over-sum-ttl",
            "sql-device-status-two-level-ttl",
            "sql-min-max-distinct",
            "dimension-expires-left-join",
            "dimension-expires-left-join-hint",
            "upsert-sink-on-conflict",
            "what-if-100k-logins",
            "timer-churn-min-equals-max",
            "timer-churn-wide-gap",
            "upsert-source-normalize",
            "upsert-source-normalize-ttl",
            "lateral-snapshot-join-ttl"
        ]
    );
}

#[test]
fn prints_the_json_schema_of_the_scenario_format() {
    let o = cli(&["schema"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let schema: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("the schema is JSON");
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(schema, flink_state_sim::engine::scenario::schema::json_schema());
}

#[test]
fn jsonl_trace_of_seed_001() {
    let o = cli(&["run", "--preset", "seed-001-one-day-two-days", "--format", "jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let records: Vec<serde_json::Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let timers: Vec<(String, i64, i64)> = records
        .iter()
        .filter(|r| r["what"].as_str().unwrap().starts_with("timer_"))
        .map(|r| {
            (r["what"].as_str().unwrap().to_string(), r["time_ms"].as_i64().unwrap(), r["timer_ms"].as_i64().unwrap())
        })
        .collect();
    const H15_20: i64 = 1_574_262_000_000; // 2019-11-20T15:00Z
    const DAY: i64 = 86_400_000;
    const HOUR: i64 = 3_600_000;
    assert_eq!(
        timers,
        [
            ("timer_registered".into(), H15_20, H15_20 + 2 * DAY),
            ("timer_registered".into(), H15_20 + DAY + HOUR, H15_20 + 3 * DAY + HOUR),
            ("timer_deleted".into(), H15_20 + DAY + HOUR, H15_20 + 2 * DAY),
            ("timer_fired".into(), H15_20 + 3 * DAY + HOUR, H15_20 + 3 * DAY + HOUR),
        ]
    );
    let first_emit = records.iter().find(|r| r["what"] == "emitted").unwrap();
    assert_eq!(first_emit["op"], "logins_per_user");
    assert_eq!(first_emit["key"], "u1");
    assert_eq!(first_emit["kind"], "true");
    assert_eq!(first_emit["row"], serde_json::json!(["u1", 1]));
    let input = &records[0];
    assert_eq!(
        (input["what"].as_str(), input["op"].as_str(), input["kind"].as_str()),
        (Some("input"), Some("logins"), Some("true"))
    );
    assert!(records.iter().any(|r| r["what"] == "state_cleared" && r["time_ms"] == H15_20 + 3 * DAY + HOUR));
}

#[test]
fn text_format_and_flink_override() {
    let o = cli(&["run", "--preset", "seed-004-device-status", "--flink", "2.3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let outer: Vec<&str> = out.lines().filter(|l| l.contains("  outer  ") && l.contains("emitted")).collect();
    assert_eq!(outer.len(), 3);
    assert!(
        outer[0].ends_with("emitted +I[1, 1]")
            && outer[1].ends_with("emitted -D[1, 1]")
            && outer[2].ends_with("emitted +I[0, 1]")
    );
    assert!(out.ends_with("result [st, cnt]:\n  0, 1\n"), "{out}");
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = std::env::temp_dir().join(format!("fss-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"name": "x", "flink": "2.3", "source": {"name": "s", "schema": [["k", "STRING"]]},
            "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["nope"]}], "steps": []}"#,
    )
    .unwrap();
    let cases: [(Vec<&str>, &str); 7] = [
        (vec![], "no command given: try `flink-state-sim run --preset"),
        (vec!["run"], "the following required arguments were not provided: <SCENARIO>"),
        (vec!["run", bad.to_str().unwrap()], "pipeline[0].group_by[0]: no column 'nope' in source 's' (columns: k)"),
        (vec!["run", "--preset", "nope"], "preset: no preset named 'nope' (presets: seed-001-one-day-two-days, cleanup-harness-min5-max10, seed-004-device-status, seed-004-device-status-flink-2.3, seed-000-topn-dedup, seed-000-topn-dedup-no-retention, seed-002-dau-new-users-global-ttl, seed-002-dau-new-users-per-operator-ttl, sql-dedup-keep-last-heap, sql-top2-per-group-with-rank, sql-top2-over-sum-ttl, sql-device-status-two-level-ttl, sql-min-max-distinct, dimension-expires-left-join, dimension-expires-left-join-hint, upsert-sink-on-conflict, what-if-100k-logins, timer-churn-min-equals-max, timer-churn-wide-gap, upsert-source-normalize, upsert-source-normalize-ttl, lateral-snapshot-join-ttl)"),
        (vec!["run", "--preset", "seed-001-one-day-two-days", "--flink", "2.3"], "idle_state_retention: Flink 1.19–2.3 keeps state with state TTL: set state_ttl (table.exec.state.ttl) instead. setIdleStateRetentionTime(min, max), deprecated since Flink 1.12 where it only sets table.exec.state.ttl = min, was removed in 2.0"),
        (vec!["run", "/does/not/exist.json"], "/does/not/exist.json: cannot read"),
        (vec!["run", "--preset", "seed-001-one-day-two-days", "--format", "xml"], "invalid value 'xml' for '--format <FORMAT>'"),
    ];
    for (args, expect) in cases {
        let o = cli(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with(expect), "{args:?}: {err}");
    }
}

/// `explain` prints Flink's text, then what it leaves unsaid: seed 004's `LATEST_BY_TIME` is a
/// user-defined function, though its call prints like a built-in's.
#[test]
fn explain_says_latest_by_time_is_seed_004_s_user_defined_function() {
    let text = stdout(&cli(&["explain", "--preset", "seed-004-device-status-flink-2.3"]));
    let (plan, notes) = text.split_once("\n\nNote: ").expect("a note under the plan");
    assert!(plan.contains("select=[devId, LATEST_BY_TIME(status, times) AS st]"), "{plan}");
    assert!(
        notes.starts_with("LATEST_BY_TIME is not a Flink built-in: it is seed 004's user-defined aggregate"),
        "{notes}"
    );
    let plain = stdout(&cli(&["explain", "--preset", "sql-min-max-distinct"]));
    assert!(plain.contains("GroupAggregate(") && !plain.contains("Note:"), "{plain}");
}
