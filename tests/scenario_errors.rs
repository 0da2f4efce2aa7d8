//! An invalid scenario is rejected with the field and the rule, never run with a silent fix.

use flink_state_sim::engine::Scenario;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const BASE: &str = r#"{
  "name": "t", "flink": "2.3",
  "source": {"name": "src", "schema": [["k", "STRING"], ["v", "INT"]]},
  "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
                "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}]}],
  "steps": [{"at": 1, "row": ["a", 1]}]
}"#;

/// `BASE` with one field replaced by `value` (a JSON text).
fn with(field: &str, value: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(BASE).unwrap();
    v[field] = serde_json::from_str(value).unwrap();
    v.to_string()
}

fn error(json: &str) -> String {
    Scenario::from_json(json).unwrap_err().to_string()
}

#[wasm_bindgen_test(unsupported = test)]
fn base_is_valid() {
    assert!(Scenario::from_json(BASE).is_ok());
}

#[wasm_bindgen_test(unsupported = test)]
fn names_the_field_and_the_rule() {
    let cases = [
        (with("flink", r#""1.13""#), "flink: unknown value `1.13`, expected one of `1.6-legacy`, `1.7-legacy`, `1.10-legacy`, `1.10-blink`, `1.12`, `2.3`"),
        (with("state_ttl", r#""1 hour 2""#), "state_ttl: Time interval unit label 'hour 2' does not match any of the recognized units"),
        (with("state_ttl", "-5"), "state_ttl: duration -5 ms is negative"),
        (with("idle_state_retention", r#"{"min": "1 h", "max": "2 h"}"#), "idle_state_retention: Flink 1.19–2.3 keeps state with state TTL: set state_ttl (table.exec.state.ttl) instead."),
        (with("steps", r#"[{"at": 5, "row": ["a", 1]}, {"at": 4, "row": ["a", 1]}]"#),
            "steps[1].at: processing time never goes backwards: 4 ms is before 5 ms"),
        // Written in the scenario's own terms: date-times once it writes one, not epoch ms.
        (with("steps", r#"[{"at": "2019-11-20T16:00", "row": ["a", 1]}, {"at": "2019-11-20T15:00", "row": ["a", 1]}]"#),
            "steps[1].at: processing time never goes backwards: 2019-11-20 15:00 is before 2019-11-20 16:00, the time reached before this step"),
        (with("steps", r#"[{"at": "2019-11-20T16:00", "row": ["a", 1]}, {"advance_to": "2019-11-20T15:30"}]"#),
            "steps[1].advance_to: processing time never goes backwards: 2019-11-20 15:30 is before 2019-11-20 16:00"),
        (with("steps", r#"[{"at": "2019-13-01T00:00", "row": ["a", 1]}]"#), "steps[0].at: '2019-13-01T00:00' is not an ISO-8601 date-time"),
        (with("steps", r#"[{"row": ["a"]}]"#), "steps[0].row: has 1 values, source 'src' has 2 columns (k, v)"),
        (with("steps", r#"[{"row": ["a", "x"]}]"#), "steps[0].row[1]: column 'v': expected INT or null, found \"x\""),
        (with("steps", r#"[{"row": ["a", 1], "kind": "-D"}]"#), "steps[0].kind: source 'src' is insert-only"),
        (with("steps", r#"[{"row": ["a", 1], "advance_to": 3}]"#), "steps[0]: a step is either an input"),
        (with("steps", r#"[{"row": ["a", 1], "at": 1, "extra": 1}]"#), "steps[0]: unknown field `extra`, expected one of `source`, `at`, `row`, `kind`, `advance_to`, `advance_by`"),
        (with("pipeline", "[]"), "pipeline: needs at least one operator"),
        (with("pipeline", r#"[{"operator": "Union", "id": "u"}]"#), "pipeline[0].operator: unknown value `Union`, expected one of `GroupAggregate`, `Calc`, `Rank`, `Deduplicate`, `Join`, `OverAggregate`"),
        (with("pipeline", r#"[{"operator": "Join", "id": "j"}]"#), "pipeline[0].left: missing: Join reads two inputs, name its left input (an operator or a source)"),
        (with("pipeline", r#"[{"operator": "Calc", "id": "c", "select": ["k"], "input": "nope"}]"#), "pipeline[0].input: 'nope' is neither a source nor an operator listed before this one (inputs come first): src"),
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "group_by": ["k"], "aggregates": [{"function": "AVG", "args": ["v"], "as": "x"}]}]"#),
            "pipeline[0].aggregates[0].function: unknown aggregate function 'AVG'"),
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "group_by": ["k"], "aggregates": [{"function": "SUM", "args": ["k"], "as": "x"}]}]"#),
            "pipeline[0].aggregates[0].args[0]: expects INT or BIGINT, column 'k' is STRING"),
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "group_by": ["k"], "aggregates": [{"function": "LAST_VALUE", "args": ["v"], "as": "k"}]}]"#),
            "pipeline[0].aggregates[0].as: 'k' cannot name an output column: names must be non-empty and unique"),
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "aggregates": [{"function": "COUNT", "args": ["*"]}]}]"#),
            "pipeline[0].aggregates[0]: missing field `as`"),
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "generate_update_before": "yes"}]"#),
            "pipeline[0].generate_update_before: expected true or false, found the string \"yes\""),
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a"}]"#),
            "pipeline[0]: a GroupAggregate needs at least one group_by column or one aggregate"),
        (with("state_ttl", "9223372036854775807"), "state_ttl: duration 9223372036854775807 ms is longer than a scenario's whole time range (1970 to 9999, about 8,000 years)"),
        (with("steps", r#"[{"at": 9223372036854775807, "row": ["a", 1]}]"#),
            "steps[0].at: processing time 9223372036854775807 ms is after 9999-12-31T23:59:59.999Z, the latest time a scenario can reach"),
        (with("steps", r#"[{"at": -1, "row": ["a", 1]}]"#), "steps[0].at: processing time -1 ms is before 1970-01-01T00:00:00Z"),
        (with("steps", r#"[{"at": 9223372036854775808, "row": ["a", 1]}]"#), "steps[0].at: 9223372036854775808 ms is after 9999-12-31T23:59:59.999Z, the latest time a scenario can reach"),
        (with("steps", r#"[{"at": 1e20, "row": ["a", 1]}]"#), "steps[0].at: 1e+20 ms is after 9999-12-31T23:59:59.999Z, the latest time a scenario can reach"),
        (with("steps", r#"[{"at": 1.5, "row": ["a", 1]}]"#), "steps[0].at: 1.5 is not a whole number of milliseconds"),
        (with("steps", r#"[{"at": 253402300799999, "row": ["a", 1]}, {"advance_by": "1 ms"}]"#),
            "steps[1].advance_by: processing time 253402300800000 ms is after 9999-12-31T23:59:59.999Z"),
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "group_by": ["k"], "aggregates": [{"function": "LAST_VALUE", "args": ["v"], "as": "lv"}]},
                              {"operator": "GroupAggregate", "id": "b", "group_by": ["k"], "aggregates": [{"function": "LAST_VALUE", "args": ["lv"], "as": "x"}]}]"#),
            "pipeline[1].aggregates[0].function: LAST_VALUE(lv) cannot consume the output of 'a', which carries retractions"),
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "group_by": ["k"], "generate_update_before": false},
                              {"operator": "GroupAggregate", "id": "b", "group_by": ["k"]}]"#),
            "pipeline[0].generate_update_before: false, but 'b' consumes this output"),
        // A projection passes the missing UPDATE_BEFORE on: the error names the operator that dropped it.
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "group_by": ["k"], "generate_update_before": false},
                              {"operator": "Calc", "id": "p", "select": ["k"]},
                              {"operator": "GroupAggregate", "id": "b", "group_by": ["k"]}]"#),
            "pipeline[0].generate_update_before: false, but 'b' consumes this output"),
        (with("pipeline", r#"[{"operator": "Calc", "id": "p", "select": ["k", "v AS k"]}]"#),
            "pipeline[0].select[1]: 'k' is selected twice"),
        (with("pipeline", r#"[{"operator": "Calc", "id": "p", "select": ["w"]}]"#),
            "pipeline[0].select[0]: no column 'w' in source 'src' (columns: k, v)"),
        (with("pipeline", r#"[{"operator": "Calc", "id": "p", "select": []}]"#),
            "pipeline[0].select: a Calc selects at least one column"),
        (with("pipeline", r#"[{"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["v DOWN"], "rank_end": 1}]"#),
            "pipeline[0].order_by[0]: 'v DOWN' is not `column [ASC|DESC]`"),
        (with("pipeline", r#"[{"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": [], "rank_end": 1}]"#),
            "pipeline[0].order_by: ROW_NUMBER() needs an ORDER BY column"),
        (with("pipeline", r#"[{"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["v"], "rank_end": 0}]"#),
            "pipeline[0].rank_end: rn <= 0 selects nothing"),
        (with("pipeline", r#"[{"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["v"], "rank_end": 2, "rank_column": "v"}]"#),
            "pipeline[0].rank_column: 'v' cannot name the rank column"),
        // COUNT only grows: ordered DESC over the aggregate's key, Flink takes UpdateFastStrategy.
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "group_by": ["k"], "aggregates": [{"function": "COUNT", "args": ["*"], "as": "n"}]},
                              {"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["n DESC"], "rank_end": 2}]"#),
            "pipeline[1]: the output of 'a' carries UPDATE_BEFORE, but Flink plans this Rank with UpdateFastStrategy (UpdatableTopNFunction), which requires ONLY_UPDATE_AFTER of its input: the planner makes the upstream drop them (set \"generate_update_before\": false on the operator producing them)"),
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "group_by": ["k"], "aggregates": [{"function": "COUNT", "args": ["*"], "as": "n"}]},
                              {"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["n DESC"], "rank_end": 1}]"#),
            "pipeline[1]: the output of 'a' carries UPDATE_BEFORE, but Flink plans this Rank with UpdateFastStrategy (FastTop1Function)"),
        // SUM may fall: RetractStrategy, which needs the UPDATE_BEFORE the aggregate was told to drop.
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "group_by": ["k"], "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}], "generate_update_before": false},
                              {"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["s DESC"], "rank_end": 2}]"#),
            "pipeline[0].generate_update_before: false, but 'r' consumes this output"),
        (with("pipeline", r#"[{"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "MiddleRow"}]"#),
            "pipeline[0].keep: unknown value `MiddleRow`, expected `FirstRow` or `LastRow`"),
        (with("pipeline", r#"[{"operator": "Deduplicate", "id": "d", "key": ["k"]}]"#), "pipeline[0]: missing field `keep`"),
        (with("pipeline", r#"[{"operator": "Deduplicate", "id": "d", "key": ["user"], "keep": "FirstRow"}]"#),
            "pipeline[0].key[0]: no column 'user' in source 'src' (columns: k, v)"),
        (with("pipeline", r#"[{"operator": "GroupAggregate", "id": "a", "group_by": ["k"], "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}]},
                              {"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "LastRow"}]"#),
            "pipeline[1]: the output of 'a' carries retractions: Flink plans a Deduplicate only over an insert-only input \
             (RankUtil.canConvertToDeduplicate requires ChangelogPlanUtils.inputInsertOnly); over this input ROW_NUMBER() \
             stays a Rank with RetractStrategy (RetractableTopNFunction): write it as a Rank"),
        (with("state_backend", r#""forst""#), "state_backend: 'forst' (ForSt, the disaggregated state backend of Flink 2.x"),
        (with("state_backend", r#""filesystem""#), "state_backend: unknown value `filesystem`, expected `hashmap` or `rocksdb`"),
        (with("state_backend", "1"), "state_backend: expected a string, found the number 1"),
    ];
    for (json, expect) in cases {
        let err = error(&json);
        assert!(err.starts_with(expect), "expected {expect:?}\n     got {err:?}");
    }
}

/// Calc expressions and OverAggregate, on a source with a processing-time attribute `pt`.
#[wasm_bindgen_test(unsupported = test)]
fn expressions_and_over_windows_name_the_rule() {
    let over = |flink: &str, changelog: &str, op: &str| {
        let mut v: serde_json::Value = serde_json::from_str(BASE).unwrap();
        v["flink"] = serde_json::json!(flink);
        v["source"] = serde_json::json!({"name": "src", "schema": [["k", "STRING"], ["v", "INT"]], "proctime": "pt", "changelog": changelog});
        v["pipeline"] = serde_json::from_str(op).unwrap();
        v.to_string()
    };
    let agg = r#""aggregates": [{"function": "MIN", "args": ["v"], "as": "m"}]"#;
    let window = |order: &str, w: &str| {
        format!(
            r#"[{{"operator": "OverAggregate", "id": "o", "partition_by": ["k"], "order_by": [{order}], "window": "{w}", {agg}}}]"#
        )
    };
    let bounded = "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW";
    let unbounded = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
    let cases = [
        (with("pipeline", r#"[{"operator": "Calc", "id": "p", "select": ["k", "CASE WHEN w = 1 THEN k END AS x"]}]"#),
            "pipeline[0].select[1]: no column 'w' in source 'src' (columns: k, v)".to_string()),
        (with("pipeline", r#"[{"operator": "Calc", "id": "p", "select": ["k"], "where": "k = 1"}]"#),
            "pipeline[0].where: Cannot apply '=' to arguments of type '<STRING> = <INT>'".to_string()),
        (with("pipeline", r#"[{"operator": "Calc", "id": "p", "select": ["UPPER(k) AS u"]}]"#),
            "pipeline[0].select[0]: function 'UPPER'(...) is not supported: a Calc here evaluates column references".to_string()),
        (with("pipeline", r#"[{"operator": "Calc", "id": "p", "select": ["k"], "where": "v"}]"#),
            "pipeline[0].where: WHERE clause must be a condition: 'v' is INT".to_string()),
        (with("pipeline", r#"[{"operator": "Calc", "id": "p", "select": ["k"], "where": "v >"}]"#),
            "pipeline[0].where: cannot parse 'v >' as SQL: ".to_string()),
        (over("2.3", "insert-only", &window(r#""v""#, bounded)),
            "pipeline[0].order_by[0]: Non-time attribute sort is not supported for bounded OVER window. (column 'v' is INT, not a time attribute)".to_string()),
        (over("2.3", "insert-only", &window(r#""v""#, unbounded)),
            "pipeline[0].order_by[0]: column 'v' is INT, not a time attribute: Flink 2.3 runs an unbounded OVER window ordered by a non-time column with NonTimeRowsUnboundedPrecedingFunction".to_string()),
        (over("1.10-legacy", "insert-only", &window(r#""v""#, bounded)),
            "pipeline[0].order_by[0]: OVER windows' ordering in stream mode must be defined on a time attribute.".to_string()),
        (over("1.12", "insert-only", &window(r#""v""#, bounded)),
            "pipeline[0].order_by[0]: OVER windows' ordering in stream mode must be defined on a time attribute.".to_string()),
        (over("1.12", "all", &window(r#""pt""#, bounded)),
            "pipeline[0]: StreamExecOverAggregate doesn't support consuming update and delete changes which is produced by node TableSourceScan(table=[[default_catalog, default_database, src]], fields=[k, v])".to_string()),
        (over("1.12", "insert-only", &window(r#""pt""#, unbounded)),
            "pipeline[0].window: Flink 1.12 runs an UNBOUNDED PRECEDING frame with ProcTimeUnboundedPrecedingFunction on cleanup timers, which is not modelled; of Flink 1.12's OVER windows only ROWS BETWEEN n PRECEDING AND CURRENT ROW is (use \"flink\": \"2.3\" or \"1.10-legacy\")".to_string()),
        (over("1.12", "insert-only", &window(r#""pt""#, "RANGE BETWEEN INTERVAL '4' SECOND PRECEDING AND CURRENT ROW")),
            "pipeline[0].window: Flink 1.12 runs a RANGE frame with an interval with ProcTimeRangeBoundedPrecedingFunction, which is not modelled".to_string()),
        (over("1.10-blink", "insert-only", &window(r#""pt""#, bounded)),
            "pipeline[0]: the OVER aggregation of the Flink 1.9–1.10.0 Blink planner is not modelled".to_string()),
        (over("2.3", "insert-only", &window(r#""pt DESC""#, bounded)),
            "pipeline[0].order_by[0]: The window can only be ordered in ASCENDING mode.".to_string()),
        (over("2.3", "insert-only", &window(r#""pt", "v""#, bounded)),
            "pipeline[0].order_by: The window can only be ordered by a single time column.".to_string()),
        (over("2.3", "all", &window(r#""pt""#, bounded)),
            "pipeline[0]: StreamPhysicalOverAggregate doesn't support consuming update and delete changes which is produced by node TableSourceScan(table=[[default_catalog, default_database, src]], fields=[k, v])".to_string()),
        (over("2.3", "insert-only", &window(r#""pt""#, "ROWS 3 PRECEDING")),
            "pipeline[0].window: unknown window 'ROWS 3 PRECEDING' (known: ROWS BETWEEN n PRECEDING AND CURRENT ROW (n >= 1)".to_string()),
        (over("2.3", "insert-only", &window(r#""pt""#, "ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING")),
            "pipeline[0].window: OVER RANGE FOLLOWING windows are not supported yet.".to_string()),
        (over("1.10-legacy", "insert-only", &window(r#""pt""#, "RANGE BETWEEN INTERVAL '4' SECOND PRECEDING AND CURRENT ROW")),
            "pipeline[0].window: a RANGE frame with an interval runs the legacy planner's ProcTimeBoundedRangeOver, which is not modelled".to_string()),
        (over("2.3", "insert-only", r#"[{"operator": "OverAggregate", "id": "o", "order_by": ["pt"], "window": "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", "aggregates": [{"function": "LAST_VALUE", "args": ["v"], "as": "k"}]}]"#),
            "pipeline[0].aggregates[0].function: LAST_VALUE(v) has no retract method here, which a bounded OVER window needs".to_string()),
        (over("2.3", "insert-only", r#"[{"operator": "OverAggregate", "id": "o", "order_by": ["pt"], "window": "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", "aggregates": [{"function": "COUNT", "args": ["*"], "as": "k"}]}]"#),
            "pipeline[0].aggregates[0].as: 'k' cannot name an output column".to_string()),
    ];
    for (json, expect) in cases {
        let err = error(&json);
        assert!(err.starts_with(&expect), "expected {expect:?}\n     got {err:?}");
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn not_an_object_or_duplicate_keys() {
    assert_eq!(error("[1, 2]"), "scenario: expected a JSON object: { \"name\": ..., \"flink\": ..., ... }");
    assert_eq!(error(r#"{"name": "a", "name": "b"}"#), "scenario: duplicate field `name` at line 1 column 20");
    assert!(error(&format!("{BASE} x")).starts_with("scenario: invalid JSON: trailing characters"));
    // A text cut short is said to be cut short, not refused for a field before its end (trial
    // 24: `{"a":[` was "unknown field `a`").
    assert_eq!(
        error(r#"{"a":["#),
        "scenario: invalid JSON: the text ends inside a list, at line 1 column 6 — is it cut short?"
    );
    assert_eq!(
        error(r#"{"name": "x""#),
        "scenario: invalid JSON: the text ends inside an object, at line 1 column 12 — is it cut short?"
    );
    assert_eq!(error(r#"{"a":[1}"#), "scenario: invalid JSON: expected `,` or `]` at line 1 column 8");
    assert!(error(r#"{"a":[1]}"#).starts_with("scenario: unknown field `a`, expected one of `$schema`"));
    assert!(error(r#"{"name": 5}"#).starts_with("name: expected a string, found the number 5"));
    assert_eq!(error(r#"{"name": "x", "source": 5}"#), "source: expected a source object {\"name\", \"schema\", \"changelog\", \"primary_key\", \"proctime\", \"watermark\"}, found the number 5 at line 1 column 25");
}

#[wasm_bindgen_test(unsupported = test)]
fn a_text_over_four_mib_is_refused_before_it_is_read() {
    use flink_state_sim::engine::scenario::MAX_SCENARIO_BYTES;
    assert_eq!(MAX_SCENARIO_BYTES, 4 * 1024 * 1024);
    // Valid JSON but for its size: refused by size, not parsed.
    let long = format!("{{\"name\": \"{}\"}}", "x".repeat(MAX_SCENARIO_BYTES));
    assert_eq!(
        error(&long),
        format!(
            "scenario: the text is {} bytes, more than the 4,194,304 (4 MiB) a scenario may be; for many events, \
             write a workload (`workload`) instead of explicit steps",
            "4,194,316"
        )
    );
    // Just under: read as any other text (the name alone is not a scenario).
    let under = format!("{{\"name\": \"{}\"}}", "x".repeat(MAX_SCENARIO_BYTES - 12));
    assert!(!error(&under).contains("4 MiB"), "{}", error(&under));
}

#[wasm_bindgen_test(unsupported = test)]
fn the_legacy_planner_has_no_top_n() {
    let mut v: serde_json::Value = serde_json::from_str(&with("flink", r#""1.10-legacy""#)).unwrap();
    v["pipeline"] =
        serde_json::json!([{"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["v"], "rank_end": 1}]);
    assert!(error(&v.to_string()).starts_with(
        "pipeline[0].operator: Top-N (ROW_NUMBER() OVER ... WHERE rn <= N) is supported by the Blink planner only"
    ));
}

#[wasm_bindgen_test(unsupported = test)]
fn the_legacy_planner_has_no_deduplication() {
    let mut v: serde_json::Value = serde_json::from_str(&with("flink", r#""1.10-legacy""#)).unwrap();
    v["pipeline"] = serde_json::json!([{"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "FirstRow"}]);
    assert_eq!(
        error(&v.to_string()),
        "pipeline[0].operator: deduplication (ROW_NUMBER() OVER (... ORDER BY proctime) = 1) is supported by the Blink \
         planner only: the Flink 1.8–1.11 legacy planner cannot run a Deduplicate (use \"flink\": \"1.10-blink\" or \"2.3\")"
    );
}

/// A Rank ordered by a processing-time attribute that is no Deduplicate names the Flink class it
/// would run (`StreamExecRank`, `AppendFastStrategy`).
#[wasm_bindgen_test(unsupported = test)]
fn a_top_n_on_proctime_is_refused_with_the_flink_class() {
    let rank = |order: &str, rank_end: u64, rank_column: &str| {
        let mut v: serde_json::Value = serde_json::from_str(BASE).unwrap();
        v["source"]["proctime"] = serde_json::json!("pt");
        v["pipeline"] = serde_json::from_str(&format!(
            r#"[{{"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": [{order}], "rank_end": {rank_end} {rank_column}}}]"#
        ))
        .unwrap();
        error(&v.to_string())
    };
    let refusal = |class: &str| {
        format!(
            "pipeline[0].order_by: 'pt' is a processing-time attribute: ordered by it alone, ROW_NUMBER() = 1 without a \
             rank column is modelled (Flink runs it as a Deduplicate); Flink runs this Rank with {class}, not modelled \
             yet for a processing-time sort key"
        )
    };
    assert_eq!(rank(r#""pt""#, 2, ""), refusal("AppendOnlyFirstNFunction"));
    assert_eq!(rank(r#""pt ASC""#, 1, r#", "rank_column": "rn""#), refusal("AppendOnlyFirstNFunction"));
    assert_eq!(rank(r#""pt DESC""#, 3, ""), refusal("AppendOnlyTopNFunction"));
    assert_eq!(rank(r#""pt DESC", "v""#, 1, ""), refusal("FastTop1Function"));
    // Over a changelog input Flink keeps the Rank (RankUtil.canConvertToDeduplicate needs an
    // insert-only input) and runs it with RetractStrategy.
    let mut v: serde_json::Value = serde_json::from_str(BASE).unwrap();
    v["source"]["proctime"] = serde_json::json!("pt");
    v["source"]["changelog"] = serde_json::json!("all");
    v["pipeline"] =
        serde_json::json!([{"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["pt"], "rank_end": 1}]);
    let scenario = Scenario::from_json(&v.to_string()).unwrap();
    assert!(scenario.operators[0].spec.plan().starts_with("Rank(strategy=[RetractStrategy]"));
}

#[wasm_bindgen_test(unsupported = test)]
fn legacy_retention_uses_flinks_own_messages() {
    let legacy = with("flink", r#""1.10-legacy""#);
    let mut v: serde_json::Value = serde_json::from_str(&legacy).unwrap();
    v["idle_state_retention"] = serde_json::json!({"min": "10 min", "max": "899999 ms"});
    assert_eq!(
        error(&v.to_string()),
        "idle_state_retention: min = 10 min, max = 899999 ms: 299999 ms apart; max must be at least 5 minutes more than min (or both 0) — Flink: \"Difference between minTime: 600000 ms and maxTime: 899999 msshoud be at least 5 minutes.\""
    );
    // max below min: Flink's message, then how far below (never "0 ms apart").
    v["idle_state_retention"] = serde_json::json!({"min": "2 d", "max": "1 d"});
    assert_eq!(
        error(&v.to_string()),
        "idle_state_retention: min = 2 d, max = 1 d: max is 1 d less than min; max must be at least 5 minutes more than min (or both 0) — Flink: \"Difference between minTime: 172800000 ms and maxTime: 86400000 msshoud be at least 5 minutes.\""
    );
    v["idle_state_retention"] = serde_json::json!({"min": "10 ms", "max": "5 ms", "test_harness": true});
    assert_eq!(error(&v.to_string()), "idle_state_retention: maxTime may not be smaller than minTime.");
    v["idle_state_retention"] = serde_json::json!({"min": "10 min", "max": "15 min"});
    v["state_ttl"] = serde_json::json!("1 h");
    assert!(error(&v.to_string())
        .starts_with("state_ttl: the Flink 1.8–1.11 legacy planner cleans state with idle state retention timers"));
}

#[wasm_bindgen_test(unsupported = test)]
fn mini_batch_settings_use_flinks_own_checks() {
    let cases = [
        // `StreamCommonSubGraphBasedOptimizer`: allow-latency must be set (default 0) when enabled.
        (
            with("mini_batch", r#"{"size": 1000}"#),
            "mini_batch.allow_latency: MiniBatch Latency must be greater than 0 ms.",
        ),
        (
            with("mini_batch", r#"{"allow_latency": 0, "size": 1000}"#),
            "mini_batch.allow_latency: MiniBatch Latency must be greater than 0 ms.",
        ),
        (with("mini_batch", r#"{"allow_latency": "-1 s", "size": 1000}"#), "mini_batch.allow_latency: "),
        // `AggregateUtil.createMiniBatchTrigger`: the size must be set (default -1) when an aggregation bundles.
        (
            with("mini_batch", r#"{"allow_latency": "1 s"}"#),
            "mini_batch.size: Key: 'table.exec.mini-batch.size' , default: -1 (fallback keys: []) must be > 0.",
        ),
        (
            with("mini_batch", r#"{"allow_latency": "1 s", "size": 0}"#),
            "mini_batch.size: Key: 'table.exec.mini-batch.size' , default: -1 (fallback keys: []) must be > 0.",
        ),
        (
            with("mini_batch", r#"{"allow_latency": "1 s", "size": 10, "batch": 1}"#),
            "mini_batch: unknown field `batch`",
        ),
        (
            with("mini_batch", r#"{"allow_latency": "1 s", "size": "many"}"#),
            "mini_batch.size: expected a whole number, found the string \"many\"",
        ),
        (
            with("agg_phase_strategy", r#""THREE_PHASE""#),
            "agg_phase_strategy: unknown value `THREE_PHASE`, expected one of `AUTO`, `ONE_PHASE`, `TWO_PHASE`",
        ),
    ];
    for (json, expect) in cases {
        let err = error(&json);
        assert!(err.starts_with(expect), "expected {expect:?}\n     got {err:?}");
    }
    // Disabled, nothing is checked (as in Flink); enabled without a bundling operator, the size is not either.
    assert!(Scenario::from_json(&with("mini_batch", r#"{"enabled": false}"#)).is_ok());
    let mut calc_only: serde_json::Value =
        serde_json::from_str(&with("mini_batch", r#"{"allow_latency": "1 s"}"#)).unwrap();
    calc_only["pipeline"] = serde_json::json!([{"operator": "Calc", "id": "p", "select": ["k"]}]);
    assert!(Scenario::from_json(&calc_only.to_string()).is_ok());
    assert!(
        Scenario::from_json(&with("agg_phase_strategy", r#""two_phase""#)).is_ok(),
        "Flink's enum options ignore case"
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn the_legacy_planner_has_no_mini_batch() {
    let mut v: serde_json::Value = serde_json::from_str(&with("flink", r#""1.10-legacy""#)).unwrap();
    v["mini_batch"] = serde_json::json!({"allow_latency": "1 s", "size": 1000});
    assert!(error(&v.to_string()).starts_with("mini_batch: the Flink 1.8–1.11 legacy planner has no mini-batch"));
    v.as_object_mut().unwrap().remove("mini_batch");
    v["agg_phase_strategy"] = serde_json::json!("TWO_PHASE");
    assert!(error(&v.to_string())
        .starts_with("agg_phase_strategy: the Flink 1.8–1.11 legacy planner has no two-phase aggregation"));
}

/// Before 2.3 only the one-phase mini-batch function is modelled: SUM can merge, so AUTO would
/// split it into local/global, which is refused with the way out.
#[wasm_bindgen_test(unsupported = test)]
fn two_phase_mini_batch_is_modelled_on_2_3_only() {
    for flink in ["1.12", "1.10-blink"] {
        let mut v: serde_json::Value = serde_json::from_str(&with("flink", &format!("\"{flink}\""))).unwrap();
        v["mini_batch"] = serde_json::json!({"allow_latency": "1 s", "size": 1000});
        let err = error(&v.to_string());
        assert!(
            err.starts_with("pipeline[0]: the two-phase (local/global) mini-batch aggregation of the Flink 1."),
            "{err}"
        );
        assert!(
            err.ends_with("is not modelled; set agg_phase_strategy \"ONE_PHASE\" or use \"flink\": \"2.3\""),
            "{err}"
        );
        v["agg_phase_strategy"] = serde_json::json!("ONE_PHASE");
        assert!(Scenario::from_json(&v.to_string()).is_ok(), "{flink}");
    }
}

/// The per-operator `state_ttl`: the `STATE_TTL` hint on a GroupAggregate (Flink 1.19+), a
/// compiled plan's state metadata on a Rank or Deduplicate (Flink 1.18+, modelled with 2.3), none
/// on an OVER window; its duration is read as `TimeUtils.parseDuration` reads the hint's value.
#[wasm_bindgen_test(unsupported = test)]
fn a_per_operator_state_ttl_names_the_rule() {
    let on = |flink: &str, op: serde_json::Value| {
        let mut v: serde_json::Value = serde_json::from_str(BASE).unwrap();
        v["flink"] = serde_json::json!(flink);
        v["source"] = serde_json::json!({"name": "src", "schema": [["k", "STRING"], ["v", "INT"]], "proctime": "pt"});
        v["pipeline"] = serde_json::json!([op]);
        v.to_string()
    };
    let agg = |ttl: serde_json::Value| {
        serde_json::json!({"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
                           "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}], "state_ttl": ttl})
    };
    let hint_came_with_1_19 =
        "pipeline[0].state_ttl: the STATE_TTL hint (a TTL of its own for a regular join or group \
        aggregation) came with Flink 1.19 (FLIP-373); ";
    let cases = [
        (on("1.12", agg("1 d".into())), format!("{hint_came_with_1_19}of Flink 1.12 – 1.18 only 1.18 can give one operator \
            its own TTL, by editing the JSON of a compiled plan (FLIP-292), which this version span does not model (use \"flink\": \"2.3\")")),
        (on("1.10-legacy", agg("1 d".into())), format!("{hint_came_with_1_19}the Flink 1.8–1.11 legacy planner has one \
            retention for the whole query (use \"flink\": \"2.3\")")),
        (on("1.10-blink", agg("1 d".into())), format!("{hint_came_with_1_19}the Flink 1.9–1.10.0 Blink planner has one \
            retention for the whole query (use \"flink\": \"2.3\")")),
        (on("2.3", agg("1 h 30 min".into())), "pipeline[0].state_ttl: Time interval unit label 'h 30 min' does not match \
            any of the recognized units".to_string()),
        (on("2.3", agg("-1 d".into())), "pipeline[0].state_ttl: text does not start with a number ('-1 d': a duration is never negative)".to_string()),
        (on("2.3", agg("".into())), "pipeline[0].state_ttl: argument is an empty- or whitespace-only string".to_string()),
        (on("2.3", agg((-5).into())), "pipeline[0].state_ttl: duration -5 ms is negative".to_string()),
        (on("2.3", agg(true.into())), "pipeline[0].state_ttl: expected a duration in Flink's syntax (\"5 min\", \"1 d\") or \
            milliseconds, found true".to_string()),
        (on("2.3", serde_json::json!({"operator": "OverAggregate", "id": "o", "partition_by": ["k"], "order_by": ["pt"],
                "window": "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
                "aggregates": [{"function": "MIN", "args": ["v"], "as": "m"}], "state_ttl": "1 d"})),
            "pipeline[0].state_ttl: Flink gives an OVER aggregation no TTL of its own: the STATE_TTL hint applies to regular \
             joins and group aggregations only (FLIP-373), and StreamExecOverAggregate has no state metadata for a compiled \
             plan to edit (FLIP-292); its state lives for table.exec.state.ttl (the scenario's state_ttl)".to_string()),
        (on("1.10-blink", serde_json::json!({"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["v"],
                "rank_end": 1, "state_ttl": "1 d"})),
            "pipeline[0].state_ttl: a Rank gets a TTL of its own only from the state metadata of a compiled plan (FLIP-292, \
             Flink 1.18+), modelled with Flink 2.3; the Flink 1.9–1.10.0 Blink planner has one retention for the whole query \
             (use \"flink\": \"2.3\")".to_string()),
        (on("2.3", serde_json::json!({"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "FirstRow", "state_ttl": "x"})),
            "pipeline[0].state_ttl: text does not start with a number ('x')".to_string()),
        (on("2.3", serde_json::json!({"operator": "Calc", "id": "p", "select": ["k"], "state_ttl": "1 d"})),
            "pipeline[0]: unknown field `state_ttl`, expected one of `operator`, `id`, `select`, `where`".to_string()),
    ];
    for (json, expect) in cases {
        let err = error(&json);
        assert!(err.starts_with(&expect), "expected {expect:?}\n     got {err:?}");
    }
}

/// CountWindowAggregate: the legacy planner's count window, on a source with a processing-time
/// attribute `pt`. Full messages, not prefixes.
#[wasm_bindgen_test(unsupported = test)]
fn count_windows_name_the_rule() {
    let window = |flink: &str, changelog: &str, ops: serde_json::Value| {
        let mut v: serde_json::Value = serde_json::from_str(BASE).unwrap();
        v["flink"] = serde_json::json!(flink);
        v["source"] = serde_json::json!({"name": "src", "schema": [["k", "STRING"], ["v", "INT"]], "proctime": "pt",
                                         "changelog": changelog});
        v["pipeline"] = ops;
        error(&v.to_string())
    };
    let op = |fields: serde_json::Value| {
        let mut o = serde_json::json!({"operator": "CountWindowAggregate", "id": "w", "group_by": ["k"], "on": "pt",
                                       "size": 3, "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}]});
        for (k, v) in fields.as_object().unwrap() {
            if v.is_null() {
                o.as_object_mut().unwrap().remove(k);
            } else {
                o[k] = v.clone();
            }
        }
        serde_json::json!([o])
    };
    let legacy = |fields: serde_json::Value| window("1.10-legacy", "insert-only", op(fields));
    let refused = |label: &str| {
        format!(
            "pipeline[0].operator: {label}: a count window runs in the table runtime's WindowOperator \
             (CountTumblingWindowAssigner / CountSlidingWindowAssigner, ElementTriggers.count), not with \
             StateCleaningCountTrigger, and that operator is not modelled; the simulator models the legacy planner's \
             count window (\"1.6-legacy\", \"1.7-legacy\", \"1.10-legacy\")"
        )
    };
    let cases = [
        (window("2.3", "insert-only", op(serde_json::json!({}))), refused("Flink 1.19–2.3")),
        (window("1.12", "insert-only", op(serde_json::json!({}))), refused("Flink 1.12–1.18")),
        (window("1.10-blink", "insert-only", op(serde_json::json!({}))), refused("Flink 1.9–1.10.0 Blink planner")),
        (legacy(serde_json::json!({"on": "v"})),
            "pipeline[0].on: A group window expects a time attribute for grouping in a stream environment. (column 'v' \
             is INT; declare the source's processing-time attribute with \"proctime\")".to_string()),
        (legacy(serde_json::json!({"on": "ts"})), "pipeline[0].on: no column 'ts' in source 'src' (columns: k, v, pt)".to_string()),
        (legacy(serde_json::json!({"on": null})), "pipeline[0]: missing field `on`".to_string()),
        (legacy(serde_json::json!({"size": null})), "pipeline[0]: missing field `size`".to_string()),
        (legacy(serde_json::json!({"size": 0})),
            "pipeline[0].size: a count window of 0 rows is not modelled: give at least 1 row".to_string()),
        (legacy(serde_json::json!({"slide": 0})),
            "pipeline[0].slide: a count window of 0 rows is not modelled: give at least 1 row".to_string()),
        (legacy(serde_json::json!({"size": -3})), "pipeline[0].size: expected a whole number, 0 or more, found the number -3".to_string()),
        (legacy(serde_json::json!({"size": "3 rows"})),
            "pipeline[0].size: expected a whole number, 0 or more, found the string \"3 rows\"".to_string()),
        (legacy(serde_json::json!({"every": 2})),
            "pipeline[0]: unknown field `every`, expected one of `operator`, `id`, `group_by`, `on`, `size`, \
             `slide`, `aggregates`".to_string()),
        (legacy(serde_json::json!({"group_by": ["x"]})),
            "pipeline[0].group_by[0]: no column 'x' in source 'src' (columns: k, v, pt)".to_string()),
        (legacy(serde_json::json!({"aggregates": [{"function": "AVG", "args": ["v"], "as": "a"}]})),
            "pipeline[0].aggregates[0].function: unknown aggregate function 'AVG' (known: COUNT, COUNT_DISTINCT, SUM, \
             MIN, MAX, LAST_VALUE, LATEST_BY_TIME)".to_string()),
        (legacy(serde_json::json!({"aggregates": [{"function": "SUM", "args": ["v"], "as": "k"}]})),
            "pipeline[0].aggregates[0].as: 'k' cannot name an output column: names must be non-empty and unique".to_string()),
        (legacy(serde_json::json!({"group_by": [], "aggregates": []})),
            "pipeline[0]: a CountWindowAggregate needs at least one group_by column or one aggregate (it would output \
             empty rows)".to_string()),
        (window("1.10-legacy", "all", op(serde_json::json!({}))),
            "pipeline[0]: Retraction on windowed GroupBy aggregation is not supported yet. Note: Windowed GroupBy \
             aggregation should not follow a non-windowed GroupBy aggregation. (source 'src' carries retractions)".to_string()),
        (window("1.10-legacy", "insert-only", serde_json::json!([
            {"operator": "GroupAggregate", "id": "a", "group_by": ["k", "pt"], "aggregates": [{"function": "SUM", "args": ["v"], "as": "v"}]},
            {"operator": "CountWindowAggregate", "id": "w", "group_by": ["k"], "on": "pt", "size": 3, "aggregates": []}])),
            "pipeline[1]: Retraction on windowed GroupBy aggregation is not supported yet. Note: Windowed GroupBy \
             aggregation should not follow a non-windowed GroupBy aggregation. (the output of 'a' carries retractions)".to_string()),
    ];
    for (err, expect) in cases {
        // serde's own messages end with the place in the operator's JSON text.
        assert!(
            err == expect || err.starts_with(&format!("{expect} at line ")),
            "expected {expect:?}\n     got {err:?}"
        );
    }
}
