//! Processing-time deduplication beyond the real-Flink recordings (`tests/scenarios/oracle/dedup_*`):
//! the explicit `Deduplicate` operator, `generateUpdateBefore` / `generateInsert`, the state
//! backend, what the page shows of the state, and `checkInsertOnly`.

mod common;

use common::{emitted, run};
use flink_state_sim::engine::Simulation;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Keys a, a, a(2), a(2) into one Deduplicate `d` of `keep`, with `extra` top-level fields and
/// operator fields.
fn scenario(keep: &str, top: &str, op: &str) -> String {
    format!(
        r#"{{"name": "d", "flink": "2.3", {top}
            "source": {{"name": "src", "schema": [["k", "STRING"], ["v", "INT"]]}},
            "pipeline": [{{"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "{keep}" {op}}}],
            "steps": [{{"at": 1, "row": ["a", 1]}}, {{"at": 2, "row": ["a", 1]}}, {{"at": 3, "row": ["a", 2]}},
                      {{"at": 4, "row": ["a", 2]}}, {{"at": 5, "row": ["a", 2]}}]}}"#
    )
}

#[wasm_bindgen_test(unsupported = test)]
fn keep_last_identical_rows_by_backend_and_ttl() {
    let heap = run(&scenario("LastRow", "", ""));
    assert_eq!(
        emitted(&heap, "d"),
        ["+I[a, 1]", "-U[a, 1]", "+U[a, 2]", "-U[a, 2]", "+U[a, 2]", "-U[a, 2]", "+U[a, 2]"]
    );
    let rocksdb = run(&scenario("LastRow", r#""state_backend": "rocksdb","#, ""));
    assert_eq!(emitted(&rocksdb, "d"), ["+I[a, 1]", "-U[a, 1]", "+U[a, 2]"]);
    for backend in ["hashmap", "rocksdb"] {
        let ttl = run(&scenario("LastRow", &format!(r#""state_backend": "{backend}", "state_ttl": "1 h","#), ""));
        assert_eq!(emitted(&ttl, "d").len(), 9, "{backend}: with state TTL no identical row is dropped");
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn generate_update_before_and_generate_insert() {
    let no_ub = run(&scenario("LastRow", "", r#", "generate_update_before": false"#));
    assert_eq!(emitted(&no_ub, "d"), ["+I[a, 1]", "+U[a, 2]", "+U[a, 2]", "+U[a, 2]"]);
    // Neither: no state is read or written, every row is +U.
    let neither = run(&scenario("LastRow", "", r#", "generate_update_before": false, "generate_insert": false"#));
    assert_eq!(emitted(&neither, "d"), ["+U[a, 1]", "+U[a, 1]", "+U[a, 2]", "+U[a, 2]", "+U[a, 2]"]);
    assert_eq!(neither.operator_views()[0].key_count, 0);
    let first = run(&scenario("FirstRow", "", r#", "generate_update_before": false"#));
    assert_eq!(emitted(&first, "d"), ["+I[a, 1]"]);
}

#[wasm_bindgen_test(unsupported = test)]
fn the_page_shows_the_stored_row_with_the_kind_a_read_returns() {
    let state = |sim: &Simulation| {
        let view = &sim.operator_views()[0];
        (view.flink_class, view.state_names.clone(), view.keys[0].states[0].as_ref().unwrap().value.clone())
    };
    let heap = run(&scenario("LastRow", "", ""));
    assert_eq!(state(&heap), ("ProcTimeDeduplicateKeepLastRowFunction", vec!["deduplicate-state"], "+U[a, 2]".into()));
    let rocksdb = run(&scenario("LastRow", r#""state_backend": "rocksdb","#, ""));
    assert_eq!(state(&rocksdb).2, "+I[a, 2]");
    let first = run(&scenario("FirstRow", r#""state_ttl": "1 h","#, ""));
    assert_eq!(state(&first), ("ProcTimeDeduplicateKeepFirstRowFunction", vec!["deduplicate-state"], "true".into()));
    let ttl = first.operator_views()[0].keys[0].ttl.unwrap();
    assert_eq!((ttl.last_access_ms, ttl.expires_at_ms), (1, 3_600_001), "duplicates do not refresh the flag");
}

#[wasm_bindgen_test(unsupported = test)]
fn a_rank_on_proctime_is_planned_as_flink_prints_it() {
    let rank = |order: &str| {
        format!(
            r#"{{"name": "d", "flink": "2.3",
                "source": {{"name": "src", "schema": [["k", "STRING"], ["v", "INT"]], "proctime": "pt"}},
                "pipeline": [{{"operator": "Rank", "id": "d", "partition_by": ["k"], "order_by": ["{order}"], "rank_end": 1}}]}}"#
        )
    };
    let plan = |json: &str| Simulation::from_json(json).unwrap().operator_views()[0].plan.clone();
    assert_eq!(plan(&rank("pt")), "Deduplicate(keep=[FirstRow], key=[k], order=[PROCTIME], outputInsertOnly=[true])");
    assert_eq!(
        plan(&rank("pt DESC")),
        "Deduplicate(keep=[LastRow], key=[k], order=[PROCTIME], outputInsertOnly=[false])"
    );
    assert_eq!(
        plan(&scenario("LastRow", "", "")),
        "Deduplicate(keep=[LastRow], key=[k], order=[PROCTIME], outputInsertOnly=[false])"
    );
}

/// A Rank ordered by a plain column ascending is labelled insert-only (FLINK-39966) yet emits
/// `+U`: a Deduplicate after it is planned, and `checkInsertOnly` fails the job on the `+U`.
#[wasm_bindgen_test(unsupported = test)]
fn an_update_from_an_input_labelled_insert_only_fails_the_job() {
    let json = r#"{"name": "d", "flink": "2.3",
        "source": {"name": "src", "schema": [["k", "STRING"], ["v", "INT"]]},
        "pipeline": [{"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["v"], "rank_end": 1},
                     {"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "LastRow"}],
        "steps": [{"at": 1, "row": ["a", 2]}, {"at": 2, "row": ["a", 1]}]}"#;
    let mut sim = Simulation::from_json(json).unwrap();
    let err = sim.run_to_end().unwrap_err().0;
    assert!(
        err.contains("operator 'd' failed on +U[a, 1]: java.lang.IllegalArgumentException in DeduplicateFunctionHelper.checkInsertOnly"),
        "{err}"
    );
}
