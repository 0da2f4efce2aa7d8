//! Upsert sources and `ChangelogNormalize` as Flink 2.3.0 runs them
//! (`ProcTimeDeduplicateKeepLastRowFunction` on a changelog: `DeduplicateFunctionHelper
//! .processLastRowOnChangelog`, read from the 2.3.0 bytecode), their validation, and the SQL
//! planner putting the normalize where Flink does. The recordings of real Flink 2.3.0 are
//! reproduced by `tests/oracle_normalize.rs`.

mod common;

use common::{emitted, run};
use flink_state_sim::engine::explain::explain;
use flink_state_sim::engine::inspector::{inspect, GoneWhy, KeyStatus};
use flink_state_sim::engine::{Scenario, Simulation};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// An upsert source `src (id INT, v STRING, PRIMARY KEY (id))` into `ChangelogNormalize` `n`.
fn upsert(top: &str, op: &str, steps: &str) -> String {
    format!(
        r#"{{"name": "n", "flink": "2.3", {top}
            "source": {{"name": "src", "schema": [["id", "INT"], ["v", "STRING"]], "changelog": "upsert",
                        "primary_key": ["id"]}},
            "pipeline": [{{"operator": "ChangelogNormalize", "id": "n", "key": ["id"] {op}}}],
            "steps": [{steps}]}}"#
    )
}

/// Every rule once: first row, duplicate, upsert of an absent key, update, delete of an absent
/// key, key-only delete, duplicate again.
const RULES: &str = r#"{"at": 1, "row": [1, "a"]}, {"at": 2, "row": [1, "a"]}, {"at": 3, "kind": "+U", "row": [2, "b"]},
    {"at": 4, "row": [1, "c"]}, {"at": 5, "kind": "-D", "row": [3, null]}, {"at": 6, "kind": "-D", "row": [2, null]},
    {"at": 7, "kind": "+U", "row": [1, "c"]}"#;

#[wasm_bindgen_test(unsupported = test)]
fn upserts_become_a_changelog_with_the_stored_rows() {
    let sim = run(&upsert("", "", RULES));
    // +I for a new key (+U of an absent key too), -U carries the stored row, the key-only -D
    // comes out with the stored row, a -D for an absent key and identical rows give nothing.
    assert_eq!(emitted(&sim, "n"), ["+I[1, a]", "+I[2, b]", "-U[1, a]", "+U[1, c]", "-D[2, b]"]);
    let view = &sim.operator_views()[0];
    assert_eq!(view.flink_class, "ProcTimeDeduplicateKeepLastRowFunction");
    assert_eq!(view.plan, "ChangelogNormalize(key=[id])");
    assert_eq!(view.state_names, ["deduplicate-state"]);
    assert_eq!(view.key_count, 1, "key 2 was deleted, key 3 never stored");
    assert_eq!(view.keys[0].states[0].as_ref().unwrap().value, "+I[1, c]");
    assert_eq!(view.sizes[0].stored, 1);
    // The inspector keeps the deleted key, gone at 6 for its -D (key 3 was never stored).
    let inspection = inspect(&sim, 0, "", 10).unwrap();
    let statuses: Vec<(String, KeyStatus)> = inspection.keys.iter().map(|k| (k.key.clone(), k.status)).collect();
    assert_eq!(
        statuses,
        [
            ("1".to_string(), KeyStatus::Visible),
            ("2".to_string(), KeyStatus::Gone { at_ms: 6, why: GoneWhy::RowDeleted })
        ]
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn with_state_ttl_an_identical_upsert_is_emitted_again() {
    let sim = run(&upsert(r#""state_ttl": "1 h","#, "", RULES));
    assert_eq!(
        emitted(&sim, "n"),
        ["+I[1, a]", "-U[1, a]", "+U[1, a]", "+I[2, b]", "-U[1, a]", "+U[1, c]", "-D[2, b]", "-U[1, c]", "+U[1, c]"]
    );
    let ttl = sim.operator_views()[0].keys[0].states[0].as_ref().unwrap().ttl.unwrap();
    assert_eq!((ttl.last_access_ms, ttl.expires_at_ms), (7, 7 + 3_600_000), "the last write refreshed the TTL");
}

#[wasm_bindgen_test(unsupported = test)]
fn after_expiry_an_update_is_an_insert_and_a_delete_is_dropped() {
    let steps = r#"{"at": 0, "row": [1, "a"]}, {"at": 20, "kind": "+U", "row": [1, "b"]},
                   {"at": 25, "kind": "+U", "row": [1, "c"]}, {"at": 40, "kind": "-D", "row": [1, null]}"#;
    let sim = run(&upsert(r#""state_ttl": "10 ms","#, "", steps));
    assert_eq!(emitted(&sim, "n"), ["+I[1, a]", "+I[1, b]", "-U[1, b]", "+U[1, c]"]);
    assert_eq!(sim.operator_views()[0].sizes[0].stored, 0, "the expired row was removed by the read at 40");
}

#[wasm_bindgen_test(unsupported = test)]
fn without_update_before() {
    let sim = run(&upsert("", r#", "generate_update_before": false"#, RULES));
    assert_eq!(emitted(&sim, "n"), ["+I[1, a]", "+I[2, b]", "+U[1, c]", "-D[2, b]"]);
}

#[wasm_bindgen_test(unsupported = test)]
fn over_a_cdc_source_the_update_befores_are_dropped_first() {
    let text = r#"{"name": "n", "flink": "2.3",
        "source": {"name": "src", "schema": [["id", "INT"], ["v", "STRING"]], "changelog": "all", "primary_key": ["id"]},
        "pipeline": [{"operator": "ChangelogNormalize", "id": "n", "key": ["id"]}],
        "steps": [{"at": 1, "row": [1, "a"]}, {"at": 2, "kind": "-U", "row": [1, "a"]}, {"at": 2, "kind": "+U", "row": [1, "b"]},
                  {"at": 3, "kind": "-U", "row": [1, "zzz"]}, {"at": 4, "kind": "-D", "row": [1, "zzz"]}]}"#;
    let sim = run(text);
    // Without DropUpdateBefore the -U would delete the key (processLastRowOnChangelog treats
    // UPDATE_BEFORE as DELETE).
    assert_eq!(emitted(&sim, "n"), ["+I[1, a]", "-U[1, a]", "+U[1, b]", "-D[1, b]"]);
    let scenario = Scenario::from_json(text).unwrap();
    assert_eq!(
        explain(&scenario),
        "== Optimized Physical Plan ==\n\
         ChangelogNormalize(key=[id], changelogMode=[I,UB,UA,D])\n\
         +- Exchange(distribution=[hash[id]], changelogMode=[I,UA,D])\n   \
            +- DropUpdateBefore(changelogMode=[I,UA,D])\n      \
               +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[id, v], changelogMode=[I,UB,UA,D])\n\
         \n== Optimized Execution Plan ==\n\
         ChangelogNormalize(key=[id])\n\
         +- Exchange(distribution=[hash[id]])\n   \
            +- DropUpdateBefore\n      \
               +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[id, v])\n"
    );
}

/// The error `text` is refused with, as `path: message`.
fn refused(text: &str) -> String {
    Scenario::from_json(text).unwrap_err().to_string()
}

fn source(changelog: &str, key: &str) -> String {
    format!(
        r#"{{"name": "n", "flink": "2.3",
            "source": {{"name": "src", "schema": [["id", "INT"], ["v", "STRING"]], "changelog": "{changelog}" {key}}},
            "pipeline": [{{"operator": "ChangelogNormalize", "id": "n", "key": ["id"]}}]}}"#
    )
}

#[wasm_bindgen_test(unsupported = test)]
fn sources_and_keys_are_validated() {
    let e = refused(&source("upsert", ""));
    assert!(e.starts_with("source.primary_key: missing: 'upsert-kafka' tables require to define a PRIMARY KEY"), "{e}");
    let e = refused(&source("insert-only", r#", "primary_key": ["id"]"#));
    assert!(e.starts_with("source.primary_key: a primary key is modelled on a changelog source only"), "{e}");
    let e = refused(&source("upsert", r#", "primary_key": ["nope"]"#));
    assert_eq!(e, "source.primary_key[0]: Invalid primary key 'PK_nope'. Column 'nope' does not exist.");
    let e = refused(&source("upsert", r#", "primary_key": ["id", "id"]"#));
    assert!(e.contains("A primary key must not contain duplicate columns"), "{e}");
    let e = refused(&source("upsert", r#", "primary_key": []"#));
    assert!(e.contains("at least one column"), "{e}");
}

#[wasm_bindgen_test(unsupported = test)]
fn upsert_rows_are_validated() {
    let e = refused(&upsert("", "", r#"{"at": 1, "kind": "-U", "row": [1, "a"]}"#));
    assert!(e.starts_with("steps[0].kind: source 'src' is an upsert source"), "{e}");
    assert!(e.contains("never -U"), "{e}");
    let e = refused(&upsert("", "", r#"{"at": 1, "row": [null, "a"]}"#));
    assert!(e.starts_with("steps[0].row[0]: NULL in primary key column 'id'"), "{e}");
    // A -D by key may leave the other columns NULL.
    assert_eq!(
        emitted(&run(&upsert("", "", r#"{"at": 1, "kind": "-D", "row": [1, null]}"#)), "n"),
        Vec::<String>::new()
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn the_operator_is_validated() {
    let insert_only = r#"{"name": "n", "flink": "2.3", "source": {"name": "src", "schema": [["id", "INT"]]},
        "pipeline": [{"operator": "ChangelogNormalize", "id": "n", "key": ["id"]}]}"#;
    assert!(refused(insert_only).contains("is insert-only: Flink plans a ChangelogNormalize only over"));
    let e = refused(&upsert(r#""mini_batch": {"allow_latency": "1 s", "size": 10},"#, "", ""));
    assert!(e.contains("ProcTimeMiniBatchDeduplicateKeepLastRowFunction, which is not modelled"), "{e}");
    let e = refused(&upsert(r#""cdc_events_duplicate": true,"#, "", ""));
    assert!(e.starts_with("cdc_events_duplicate: table.exec.source.cdc-events-duplicate is a planner option"), "{e}");
    let e = refused(&upsert("", "", "").replace(r#""key": ["id"]"#, r#""key": ["v", "v"]"#));
    assert!(e.contains("duplicate key column 'v'"), "{e}");
}

/// The SQL scenario over the upsert source (and the insert-only `dim (k, w)` when `dim`), with
/// `steps`.
fn sql(sql: &str, dim: bool, steps: &str) -> String {
    let dim = if dim { r#", {"name": "dim", "schema": [["k", "INT"], ["w", "STRING"]]}"# } else { "" };
    format!(
        r#"{{"name": "q", "flink": "2.3",
            "sources": [{{"name": "src", "schema": [["id", "INT"], ["v", "STRING"]], "changelog": "upsert",
                          "primary_key": ["id"]}}{dim}],
            "sql": {sql:?}, "steps": [{steps}]}}"#
    )
}

fn sink(sim: &Simulation) -> Vec<String> {
    let last = sim.operator_views().last().unwrap().id.clone();
    emitted(sim, &last)
}

#[wasm_bindgen_test(unsupported = test)]
fn sql_group_aggregate_over_an_upsert_source() {
    let steps = r#"{"at": 1, "source": "src", "row": [1, "a"]}, {"at": 2, "source": "src", "row": [2, "a"]},
        {"at": 3, "source": "src", "kind": "+U", "row": [1, "b"]}, {"at": 4, "source": "src", "row": [1, "b"]},
        {"at": 5, "source": "src", "kind": "-D", "row": [2, null]}"#;
    let text = sql("SELECT v, COUNT(*) AS c FROM src GROUP BY v", false, steps);
    let scenario = Scenario::from_json(&text).unwrap();
    // Flink 2.3.0's plan of this query over a CDC source with cdc-events-duplicate (recorded in
    // tests/oracle/normalize), with the upsert scan's [I,UA,D] and no DropUpdateBefore.
    assert_eq!(
        explain(&scenario),
        "== Optimized Physical Plan ==\n\
         GroupAggregate(groupBy=[v], select=[v, COUNT_RETRACT(*) AS c], changelogMode=[I,UB,UA,D])\n\
         +- Exchange(distribution=[hash[v]], changelogMode=[I,UB,UA,D])\n   \
            +- Calc(select=[v], changelogMode=[I,UB,UA,D])\n      \
               +- ChangelogNormalize(key=[id], changelogMode=[I,UB,UA,D])\n         \
                  +- Exchange(distribution=[hash[id]], changelogMode=[I,UA,D])\n            \
                     +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[id, v], changelogMode=[I,UA,D])\n\
         \n== Optimized Execution Plan ==\n\
         GroupAggregate(groupBy=[v], select=[v, COUNT_RETRACT(*) AS c])\n\
         +- Exchange(distribution=[hash[v]])\n   \
            +- Calc(select=[v])\n      \
               +- ChangelogNormalize(key=[id])\n         \
                  +- Exchange(distribution=[hash[id]])\n            \
                     +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[id, v])\n"
    );
    let sim = run(&text);
    assert_eq!(
        sink(&sim),
        ["+I[a, 1]", "-U[a, 1]", "+U[a, 2]", "-U[a, 2]", "+U[a, 1]", "+I[b, 1]", "-D[a, 1]"],
        "the duplicate +I[1, b] changes nothing; the key-only -D retracts 'a' through the stored row"
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn sql_left_join_with_an_upsert_source() {
    let steps = r#"{"at": 1, "source": "dim", "row": [1, "x"]}, {"at": 2, "source": "src", "row": [1, "a"]},
        {"at": 3, "source": "src", "kind": "+U", "row": [1, "b"]}, {"at": 4, "source": "src", "kind": "-D", "row": [1, null]}"#;
    let text = sql("SELECT d.k, d.w, s.v FROM dim d LEFT JOIN src s ON d.k = s.id", true, steps);
    let scenario = Scenario::from_json(&text).unwrap();
    // As Flink 2.3.0 plans it over the CDC source (live EXPLAIN), the upsert scan without
    // DropUpdateBefore.
    assert_eq!(
        explain(&scenario),
        "== Optimized Physical Plan ==\n\
         Calc(select=[k, w, v], changelogMode=[I,UB,UA,D])\n\
         +- Join(joinType=[LeftOuterJoin], where=[=(k, id)], select=[k, w, id, v], leftInputSpec=[NoUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey], changelogMode=[I,UB,UA,D])\n   \
            :- Exchange(distribution=[hash[k]], changelogMode=[I])\n   \
            :  +- TableSourceScan(table=[[default_catalog, default_database, dim]], fields=[k, w], changelogMode=[I])\n   \
            +- Exchange(distribution=[hash[id]], changelogMode=[I,UB,UA,D])\n      \
               +- ChangelogNormalize(key=[id], changelogMode=[I,UB,UA,D])\n         \
                  +- Exchange(distribution=[hash[id]], changelogMode=[I,UA,D])\n            \
                     +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[id, v], changelogMode=[I,UA,D])\n\
         \n== Optimized Execution Plan ==\n\
         Calc(select=[k, w, v])\n\
         +- Join(joinType=[LeftOuterJoin], where=[(k = id)], select=[k, w, id, v], leftInputSpec=[NoUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey])\n   \
            :- Exchange(distribution=[hash[k]])\n   \
            :  +- TableSourceScan(table=[[default_catalog, default_database, dim]], fields=[k, w])\n   \
            +- Exchange(distribution=[hash[id]])\n      \
               +- ChangelogNormalize(key=[id])\n         \
                  +- Exchange(distribution=[hash[id]])\n            \
                     +- TableSourceScan(table=[[default_catalog, default_database, src]], fields=[id, v])\n"
    );
    let sim = run(&text);
    // The normalize turns +U[1, b] into -U[1, a], +U[1, b]; the join answers a right -U / +U
    // with -U joined row, +I padded, then -D padded, +I joined, and the key-only -D retracts the
    // joined row with the stored v: the changelog real Flink 2.3.0 printed for the same events over
    // a normalized CDC source (tests/oracle/normalize/cdcdup_leftjoin_nottl).
    assert_eq!(
        sink(&sim),
        [
            "+I[1, x, null]",
            "-D[1, x, null]",
            "+I[1, x, a]",
            "-U[1, x, a]",
            "+I[1, x, null]",
            "-D[1, x, null]",
            "+I[1, x, b]",
            "-D[1, x, b]",
            "+I[1, x, null]"
        ]
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn sql_a_filter_on_a_normalized_table_is_refused() {
    let e = refused(&sql("SELECT id, v FROM src WHERE v > 'b'", false, ""));
    assert!(e.contains("a filter on 'src', which Flink reads through a ChangelogNormalize"), "{e}");
}

#[wasm_bindgen_test(unsupported = test)]
fn an_upsert_source_is_read_through_a_normalize_on_flink_1_12_and_later() {
    let legacy =
        source("upsert", r#", "primary_key": ["id"]"#).replace(r#""flink": "2.3""#, r#""flink": "1.10-blink""#);
    let e = refused(&legacy);
    assert!(e.starts_with("source.changelog: the Flink 1.9–1.10.0 Blink planner has no upsert sources"), "{e}");
    // An aggregation reading the upserts directly (or through a projection) would count every
    // +U as a new row: Flink always reads them through a ChangelogNormalize.
    let direct = r#"{"name": "n", "flink": "2.3",
        "source": {"name": "src", "schema": [["id", "INT"], ["v", "STRING"]], "changelog": "upsert", "primary_key": ["id"]},
        "pipeline": [{"operator": "Calc", "id": "p", "select": ["v"]},
                     {"operator": "GroupAggregate", "id": "agg", "group_by": ["v"],
                      "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"}]}]}"#;
    let e = refused(direct);
    assert!(
        e.starts_with("pipeline[1].input: 'agg' reads the upsert source 'src' directly, but needs UPDATE_BEFORE"),
        "{e}"
    );
    assert!(e.contains("ChangelogNormalize(key=[id])"), "{e}");
}

#[wasm_bindgen_test(unsupported = test)]
fn a_composite_key_that_does_not_lead_the_row() {
    let text = r#"{"name": "n", "flink": "2.3",
        "source": {"name": "src", "schema": [["v", "STRING"], ["a", "INT"], ["b", "INT"]], "changelog": "upsert",
                   "primary_key": ["a", "b"]},
        "pipeline": [{"operator": "ChangelogNormalize", "id": "n", "key": ["a", "b"]}],
        "steps": [{"at": 1, "row": ["x", 1, 1]}, {"at": 2, "row": ["y", 1, 2]}, {"at": 3, "kind": "+U", "row": ["z", 1, 1]},
                  {"at": 4, "kind": "-D", "row": [null, 1, 2]}]}"#;
    let sim = run(text);
    assert_eq!(emitted(&sim, "n"), ["+I[x, 1, 1]", "+I[y, 1, 2]", "-U[x, 1, 1]", "+U[z, 1, 1]", "-D[y, 1, 2]"]);
    let view = &sim.operator_views()[0];
    // `explainTerms`: the key's names joined by ", " (Flink 2.3.0 bytecode).
    assert_eq!(view.plan, "ChangelogNormalize(key=[a, b])");
    assert_eq!(view.keys.iter().map(|k| k.row.join(", ")).collect::<Vec<_>>(), ["1, 1"]);
    let explained = explain(&Scenario::from_json(text).unwrap());
    assert!(explained.contains("+- Exchange(distribution=[hash[a, b]], changelogMode=[I,UA,D])\n"), "{explained}");
}

#[wasm_bindgen_test(unsupported = test)]
fn the_json_form_of_a_cdc_query_holds_its_normalize() {
    let text = r#"{"name": "q", "flink": "2.3",
        "source": {"name": "src", "schema": [["id", "INT"], ["v", "STRING"]], "changelog": "all", "primary_key": ["id"]},
        "sql": "SET 'table.exec.source.cdc-events-duplicate' = 'true';\nSELECT v, COUNT(*) AS c FROM src GROUP BY v;",
        "steps": [{"at": 1, "row": [1, "a"]}, {"at": 2, "row": [1, "a"]}, {"at": 3, "kind": "-U", "row": [1, "a"]},
                  {"at": 3, "kind": "+U", "row": [1, "b"]}]}"#;
    let json_form = flink_state_sim::engine::scenario::sql::to_json_form(text).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json_form).unwrap();
    assert_eq!(
        value["pipeline"][0],
        serde_json::json!({"operator": "ChangelogNormalize", "id": "ChangelogNormalize[2]", "key": ["id"]})
    );
    assert!(value.get("cdc_events_duplicate").is_none(), "{json_form}");
    let expected = ["+I[a, 1]", "-D[a, 1]", "+I[b, 1]"];
    for text in [text, json_form.as_str()] {
        assert_eq!(sink(&run(text)), expected);
    }
    // Without the option Flink reads the CDC source as it comes: no normalize, and the duplicate
    // +I counts twice.
    let plain = text.replace("SET 'table.exec.source.cdc-events-duplicate' = 'true';\\n", "");
    let plans: Vec<String> = Scenario::from_json(&plain).unwrap().operators.iter().map(|n| n.spec.plan()).collect();
    assert!(plans.iter().all(|p| !p.starts_with("ChangelogNormalize")), "{plans:?}");
    assert_eq!(sink(&run(&plain)), ["+I[a, 1]", "-U[a, 1]", "+U[a, 2]", "-U[a, 2]", "+U[a, 1]", "+I[b, 1]"]);
}
