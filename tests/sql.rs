//! SQL scenarios (`"sql"`): options from `SET`, views, `INSERT INTO` a declared sink, the
//! `STATE_TTL` hint, Flink's refusals with their line and column, and the JSON form of a SQL
//! scenario simulating exactly as the SQL does.

use flink_state_sim::engine::explain::explain_lines;
use flink_state_sim::engine::scenario::sql::{error_location, to_json_form};
use flink_state_sim::engine::scenario::Retention;
use flink_state_sim::engine::{Scenario, Simulation};
use serde_json::json;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn scenario(sql: &str, extra: serde_json::Value) -> String {
    let mut s = json!({
        "name": "sql", "flink": "2.3", "time_format": "millis",
        "source": {"name": "src", "schema": [["k", "STRING"], ["v", "INT"]], "proctime": "pt"},
        "sql": sql,
        "steps": [{"at": 1, "row": ["a", 1]}, {"at": 2, "row": ["a", 2]}, {"at": 3, "row": ["b", 5]}]
    });
    if let (Some(obj), Some(more)) = (s.as_object_mut(), extra.as_object()) {
        for (k, v) in more {
            obj.insert(k.clone(), v.clone());
        }
    }
    s.to_string()
}

fn refusal(sql: &str) -> (String, Option<(u64, u64)>) {
    let e = Scenario::from_json(&scenario(sql, json!({}))).expect_err("refused");
    (e.to_string(), error_location(&e))
}

#[wasm_bindgen_test(unsupported = test)]
fn set_options_become_the_scenarios_settings() {
    let s = Scenario::from_json(&scenario(
        "SET 'table.exec.state.ttl' = '1 h';\nSET 'table.exec.mini-batch.enabled' = 'true';\n\
         SET 'table.exec.mini-batch.allow-latency' = '2 s';\nSET 'table.exec.mini-batch.size' = '100';\n\
         SELECT k, COUNT(*) AS n FROM src GROUP BY k;",
        json!({}),
    ))
    .unwrap();
    assert_eq!(s.retention, Retention::StateTtl(3_600_000));
    let mb = s.mini_batch.expect("mini-batch on");
    assert_eq!((mb.allow_latency_ms, mb.size), (2_000, 100));
    // The scenario's own field and a SET of the same option: refused.
    let e = Scenario::from_json(&scenario(
        "SET 'table.exec.state.ttl' = '1 h';\nSELECT k, COUNT(*) AS n FROM src GROUP BY k;",
        json!({"state_ttl": "2 h"}),
    ))
    .unwrap_err();
    assert!(e.to_string().contains("set both here and in the scenario's field state_ttl"), "{e}");
    let (e, at) = refusal("SET 'table.exec.foo' = '1';\nSELECT k FROM src;");
    assert!(e.contains("option 'table.exec.foo' is not modelled"), "{e}");
    assert_eq!(at, Some((1, 1)));
}

#[wasm_bindgen_test(unsupported = test)]
fn refusals_name_line_and_column() {
    let (e, at) = refusal("SELECT k,\n  UPPER(k) AS u\nFROM src;");
    assert!(e.contains("function UPPER is not modelled"), "{e}");
    assert_eq!(at, Some((2, 3)));
    let (e, at) = refusal("SELECT k FROM nowhere;");
    assert!(e.contains("Object 'nowhere' not found"), "{e}");
    assert_eq!(at, Some((1, 15)));
    // A reserved word of Flink's parser, unquoted: Flink's parse error; quoted it is a name.
    let (e, at) = refusal("SELECT k AS value FROM src;");
    assert!(e.contains("Encountered \"value\" at line 1, column 13"), "{e}");
    assert_eq!(at, Some((1, 13)));
    assert!(Scenario::from_json(&scenario("SELECT k AS `value` FROM src;", json!({}))).is_ok());
    // Any other parse error in the form of Flink's (trial 25: sqlparser's "Expected: ), found: v").
    let (e, at) = refusal("SELECT k FROM src WHERE (v > 1 v;");
    assert!(e.contains("SQL parse failed. Encountered \"v\" at line 1, column 32. Was expecting )"), "{e}");
    assert_eq!(at, Some((1, 32)));
    // Flink's own message where Flink refuses: ROW_NUMBER without a rank filter.
    let (e, _) = refusal("SELECT k, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM src;");
    assert!(e.contains("The window can only be ordered in ASCENDING mode."), "{e}");
    let (e, _) = refusal(
        "SELECT k, v FROM (SELECT *, RANK() OVER (PARTITION BY k ORDER BY v DESC) AS r FROM src) WHERE r <= 2;",
    );
    assert!(e.contains("RANK() on streaming table is not supported currently"), "{e}");
    let (e, _) = refusal("SELECT k FROM src JOIN src AS s2 ON src.k = s2.k;");
    assert!(e.contains("Column 'k' is ambiguous"), "{e}");
    let (e, _) = refusal("SELECT src.k FROM src JOIN src AS s2 ON src.k < s2.k;");
    assert!(e.contains("needs an equality of a left and a right field in ON"), "{e}");
}

#[wasm_bindgen_test(unsupported = test)]
fn insert_into_a_declared_sink() {
    let text = scenario(
        "CREATE TABLE snk (k STRING, n BIGINT) WITH ('connector' = 'print');\n\
         INSERT INTO snk SELECT k, COUNT(*) AS n FROM src GROUP BY k;",
        json!({"expect": {"changelog": {"sink": [["+I", ["a", 1]], ["-U", ["a", 1]], ["+U", ["a", 2]], ["+I", ["b", 1]]]}}}),
    );
    let s = Scenario::from_json(&text).unwrap();
    let plans = explain_lines(&s);
    assert_eq!(
        plans.physical[0],
        "Sink(table=[default_catalog.default_database.snk], fields=[k, n], changelogMode=[NONE])"
    );
    assert_eq!(plans.execution[0], "Sink(table=[default_catalog.default_database.snk], fields=[k, n])");
    flink_state_sim::engine::expect::check(s).unwrap();
    let (e, _) = refusal("INSERT INTO snk SELECT k FROM src;");
    assert!(e.contains("Object 'snk' not found"), "{e}");
    let (e, _) =
        refusal("CREATE TABLE snk (k STRING) WITH ('connector' = 'print');\nINSERT INTO snk SELECT k, v FROM src;");
    assert!(e.contains("the query has 2 columns, the sink 1"), "{e}");
}

#[wasm_bindgen_test(unsupported = test)]
fn the_state_ttl_hint_gives_the_aggregation_its_own_ttl() {
    let s = Scenario::from_json(&scenario(
        "SET 'table.exec.state.ttl' = '1 h';\nSELECT /*+ STATE_TTL('src' = '1 d') */ k, COUNT(*) AS n FROM src GROUP BY k;",
        json!({}),
    ))
    .unwrap();
    assert_eq!(s.operator_retention(s.operators.len() - 1), Retention::StateTtl(86_400_000));
    assert!(s.operators.last().unwrap().spec.plan().ends_with("stateTtlHints=[[[STATE_TTL options:[1 d]]]])"));
    let (e, _) = refusal("SELECT /*+ STATE_TTL('other' = '1 d') */ k, COUNT(*) AS n FROM src GROUP BY k;");
    assert!(e.contains("STATE_TTL key 'other' is not the input of this query (src)"), "{e}");
}

#[wasm_bindgen_test(unsupported = test)]
fn the_json_form_simulates_as_the_sql_does() {
    let sql = scenario(
        "SET 'table.exec.state.ttl' = '2 ms';\n\
         CREATE TEMPORARY VIEW latest AS SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn FROM src) WHERE rn = 1;\n\
         SELECT v, COUNT(*) AS n FROM latest GROUP BY v;",
        json!({}),
    );
    let json_form = to_json_form(&sql).unwrap();
    let form: serde_json::Value = serde_json::from_str(&json_form).unwrap();
    assert!(form.get("sql").is_none() && form["pipeline"].is_array(), "{json_form}");
    assert_eq!(form["state_ttl"], "2 ms");
    let run = |text: &str| {
        let mut sim = Simulation::from_json(text).unwrap();
        sim.run_to_end().unwrap();
        let trace: Vec<String> = sim.trace().iter().map(|e| format!("{} {} {:?}", e.time_ms, e.op, e.event)).collect();
        (trace, explain_lines(sim.scenario()))
    };
    let (a, b) = (run(&sql), run(&json_form));
    assert!(a.0.len() > 10, "the run does something: {:?}", a.0);
    assert_eq!(a, b);
}

/// `snk (k, v, PRIMARY KEY (v) NOT ENFORCED)` fed by `SELECT k, LAST_VALUE(v) … GROUP BY k`
/// (upsert key `k`), with `options` and the `INSERT`'s `tail`.
fn pk_sink(options: &str, tail: &str) -> String {
    format!(
        "{options}CREATE TEMPORARY TABLE snk (k STRING, v INT, PRIMARY KEY (v) NOT ENFORCED) WITH ('connector' = \
         'print');\nINSERT INTO snk SELECT k, LAST_VALUE(v) AS v FROM src GROUP BY k{tail};"
    )
}

#[wasm_bindgen_test(unsupported = test)]
fn a_sink_with_a_primary_key_is_planned_as_flink_2_3_plans_it() {
    let sink_line = |sql: &str| {
        let s = Scenario::from_json(&scenario(sql, json!({}))).unwrap();
        (explain_lines(&s).execution[0].clone(), s.operators.last().unwrap().spec.is_sink())
    };
    let table = "Sink(table=[default_catalog.default_database.snk], fields=[k, v]";
    assert_eq!(
        sink_line(&pk_sink("", " ON CONFLICT DO DEDUPLICATE")),
        (format!("{table}, upsertMaterialize=[true], conflictStrategy=[DEDUPLICATE])"), true)
    );
    assert_eq!(
        sink_line(&pk_sink("SET 'table.exec.sink.require-on-conflict' = 'false';\n", "")),
        (format!("{table}, upsertMaterialize=[true])"), true)
    );
    // NONE: no materializer, the clause still printed.
    assert_eq!(
        sink_line(&pk_sink("SET 'table.exec.sink.upsert-materialize' = 'NONE';\n", " on conflict do deduplicate")),
        (format!("{table}, conflictStrategy=[DEDUPLICATE])"), false)
    );
    // The upsert key inside the primary key: nothing to materialize.
    let by_k = "CREATE TABLE snk (k STRING PRIMARY KEY NOT ENFORCED, v INT) WITH ('connector' = 'print');\n\
                INSERT INTO snk SELECT k, LAST_VALUE(v) AS v FROM src GROUP BY k;";
    assert_eq!(sink_line(by_k), (format!("{table})"), false));
    // FORCE materializes an insert-only query: every row of a key stays in the state.
    let forced = scenario(
        "SET 'table.exec.sink.upsert-materialize' = 'FORCE';\nCREATE TABLE snk (k STRING, v INT, PRIMARY KEY (k) \
         NOT ENFORCED) WITH ('connector' = 'print');\nINSERT INTO snk SELECT k, v FROM src WHERE v > 0;",
        json!({"expect": {"changelog": {"sink": [["+I", ["a", 1]], ["+U", ["a", 2]], ["+I", ["b", 5]]]}}}),
    );
    let s = Scenario::from_json(&forced).unwrap();
    let mut sim = Simulation::new(s.clone());
    sim.run_to_end().unwrap();
    let view = sim.operator_views().into_iter().last().unwrap();
    let a = view.keys.iter().find(|k| k.key == "a").unwrap();
    assert_eq!(a.states[0].as_ref().map(|c| (c.value.as_str(), c.entries)), Some(("[a, 1], [a, 2]", 2)));
    flink_state_sim::engine::expect::check(s).unwrap();
}

#[wasm_bindgen_test(unsupported = test)]
fn the_sinks_refusals_are_flinks_at_their_place() {
    let (e, at) = refusal(&pk_sink("", ""));
    assert!(e.contains("The query has an upsert key that differs from the primary key of the sink table"), "{e}");
    assert_eq!(at, Some((2, 1)), "the INSERT");
    let (e, at) = refusal(&pk_sink("", "\nON CONFLICT DO NOTHING"));
    assert!(e.contains("ON CONFLICT DO NOTHING requires all source tables to define watermarks, but the following source(s) do not: default_catalog.default_database.src."), "{e}");
    assert_eq!(at, Some((3, 1)), "the ON CONFLICT");
    let (e, _) = refusal(
        "CREATE TABLE snk (k STRING, v INT, PRIMARY KEY (v) NOT ENFORCED) WITH ('connector' = 'print');\n\
         INSERT INTO snk SELECT k, v FROM src WHERE v > 0 ON CONFLICT DO DEDUPLICATE;",
    );
    assert!(e.contains("ON CONFLICT clause is only allowed for upsert sinks. The sink 'default_catalog.default_database.snk' is not an upsert sink because it only accepts INSERT (append-only) changes."), "{e}");
    // Flink's grammar: ON CONFLICT DO and one of three words, ending the statement.
    let (e, at) = refusal(&pk_sink("", " ON CONFLICT DO UPDATE"));
    assert!(e.contains("Encountered \"UPDATE\" at line 2, column 81. Was expecting one of \"DEDUPLICATE\""), "{e}");
    assert_eq!(at, Some((2, 81)));
    let (e, at) = refusal(&pk_sink("", " ON CONFLICT (v) DO NOTHING"));
    assert!(e.contains("Encountered \"(\" at line 2, column 78. Was expecting \"DO\""), "{e}");
    assert_eq!(at, Some((2, 78)));
    let (e, _) = refusal(&pk_sink("", " ON CONFLICT DO NOTHING NOW"));
    assert!(e.contains("Encountered \"NOW\""), "{e}");
    // The key's DDL, as Flink checks it.
    let (e, _) = refusal(
        "CREATE TABLE snk (k STRING, v INT, PRIMARY KEY (v)) WITH ('connector' = 'print');\n\
         INSERT INTO snk SELECT k, v FROM src;",
    );
    assert!(e.contains("Flink doesn't support ENFORCED mode for PRIMARY KEY constraint."), "{e}");
    let (e, at) = refusal(
        "CREATE TABLE snk (k STRING, v INT, PRIMARY KEY (x) NOT ENFORCED) WITH ('connector' = 'print');\n\
         INSERT INTO snk SELECT k, v FROM src;",
    );
    assert!(e.contains("Primary key column 'x' is not defined in the schema at line 1, column 49"), "{e}");
    assert_eq!(at, Some((1, 49)));
    // The options' values.
    let (e, at) = refusal(&pk_sink("SET 'table.exec.sink.upsert-materialize' = 'ALWAYS';\n", ""));
    assert!(e.contains("Could not parse value 'ALWAYS' for key 'table.exec.sink.upsert-materialize'"), "{e}");
    assert_eq!(at, Some((1, 1)));
    let (e, _) = refusal(&pk_sink("SET 'table.exec.sink.upsert-materialize-strategy.type' = 'ADAPTIVE';\n", ""));
    assert!(e.contains("SinkUpsertMaterializerV2"), "{e}");
}
