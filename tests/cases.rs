//! Scenarios from `shared/cases/flink-bug-cases.json` (real Flink bug reports and Flink's own
//! harness tests), with the expected results stated there: what the scenario files under
//! `tests/scenarios/cases/` (checked by `tests/check.rs`) cannot state, i.e. the trace and the
//! state left behind. C03 and C07 are covered by their files alone.

mod common;

use common::{emitted, run};
use flink_state_sim::engine::trace::TraceEvent;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A scenario over `src(key STRING, v INT)` with one `SUM(v) GROUP BY key` operator `agg`.
fn sum_scenario(flink: &str, retention: &str, changelog: &str, gen_retraction: bool, steps: &str) -> String {
    format!(
        r#"{{"name": "case", "flink": "{flink}", {retention},
            "source": {{"name": "src", "schema": [["key", "STRING"], ["v", "INT"]], "changelog": "{changelog}"}},
            "pipeline": [{{"operator": "GroupAggregate", "id": "agg", "group_by": ["key"],
                           "generate_update_before": {gen_retraction},
                           "aggregates": [{{"function": "SUM", "args": ["v"], "as": "s"}}]}}],
            "steps": [{steps}]}}"#
    )
}

/// C04: `GroupAggregateHarnessTest.testAggregateWithRetract` after FLINK-10674: a retraction for
/// a cleaned-up key is dropped, yet the cleanup timer is registered before the null check.
#[wasm_bindgen_test(unsupported = test)]
fn c04_legacy_retraction_after_cleanup_is_dropped() {
    let steps = r#"{"at": 1, "row": ["aaa", 1]}, {"at": 1, "row": ["bbb", 1]},
        {"at": 1, "row": ["aaa", 2]}, {"at": 1, "row": ["aaa", 2], "kind": "-D"}, {"at": 1, "row": ["ccc", 3]},
        {"advance_to": 3002},
        {"at": 3002, "row": ["ccc", 3], "kind": "-D"}, {"at": 3002, "row": ["aaa", 4]}, {"at": 3002, "row": ["bbb", 2]},
        {"at": 3002, "row": ["aaa", 5]}, {"at": 3002, "row": ["eee", 6]}, {"at": 3002, "row": ["aaa", 7]},
        {"at": 3002, "row": ["bbb", 3]}"#;
    let retention = r#""idle_state_retention": {"min": 2000, "max": 3000, "test_harness": true}"#;
    let sim = run(&sum_scenario("1.10-legacy", retention, "all", true, steps));
    assert_eq!(
        emitted(&sim, "agg"),
        [
            "(true,aaa,1)",
            "(true,bbb,1)",
            "(false,aaa,1)",
            "(true,aaa,3)",
            "(false,aaa,3)",
            "(true,aaa,1)",
            "(true,ccc,3)",
            "(true,aaa,4)",
            "(true,bbb,2)",
            "(false,aaa,4)",
            "(true,aaa,9)",
            "(true,eee,6)",
            "(false,aaa,9)",
            "(true,aaa,16)",
            "(false,bbb,2)",
            "(true,bbb,5)",
        ]
    );
    let dropped: Vec<_> = sim.trace().iter().filter(|e| matches!(e.event, TraceEvent::Dropped { .. })).collect();
    assert_eq!(dropped.len(), 1);
    assert_eq!((dropped[0].time_ms, dropped[0].key_text().unwrap()), (3002, "ccc".to_string()));
    let ccc = sim.operator_views()[0].keys.iter().find(|k| k.key == "ccc").cloned().unwrap();
    assert_eq!((ccc.states[0].clone(), ccc.cleanup_time_ms, ccc.timers_ms), (None, Some(6002), vec![6002]));
}

/// C05: Flink 1.12+ `GroupAggFunction` with `table.exec.state.ttl` = 2 s: expired state reads as
/// empty; a retraction for it is dropped; an accumulate starts again with +I.
#[wasm_bindgen_test(unsupported = test)]
fn c05_ttl_expired_key_drops_retraction_and_restarts() {
    let steps = r#"{"at": 1, "row": ["aaa", 1]}, {"at": 1, "row": ["bbb", 1]},
        {"at": 1, "row": ["aaa", 2]}, {"at": 1, "row": ["aaa", 2], "kind": "-D"}, {"at": 1, "row": ["ccc", 3]},
        {"at": 3002, "row": ["ccc", 3], "kind": "-U"}, {"at": 3002, "row": ["aaa", 4]}, {"at": 3002, "row": ["bbb", 2]},
        {"at": 3002, "row": ["aaa", 5]}, {"at": 3002, "row": ["eee", 6]}, {"at": 3002, "row": ["aaa", 7]},
        {"at": 3002, "row": ["bbb", 3]}"#;
    let sim = run(&sum_scenario("2.3", r#""state_ttl": "2000 ms""#, "all", true, steps));
    assert_eq!(
        emitted(&sim, "agg"),
        [
            "+I[aaa, 1]",
            "+I[bbb, 1]",
            "-U[aaa, 1]",
            "+U[aaa, 3]",
            "-U[aaa, 3]",
            "+U[aaa, 1]",
            "+I[ccc, 3]",
            "+I[aaa, 4]",
            "+I[bbb, 2]",
            "-U[aaa, 4]",
            "+U[aaa, 9]",
            "+I[eee, 6]",
            "-U[aaa, 9]",
            "+U[aaa, 16]",
            "-U[bbb, 2]",
            "+U[bbb, 5]",
        ]
    );
    let expired: Vec<String> = sim
        .trace()
        .iter()
        .filter(|e| matches!(e.event, TraceEvent::StateExpired { expired_at_ms: 2001, .. }))
        .map(|e| e.key_text().unwrap())
        .collect();
    assert_eq!(
        expired,
        ["ccc", "aaa", "bbb"],
        "each key's state is found expired (1 + 2000 <= 3002) on its first read"
    );
    assert!(sim.operator_views()[0].keys.iter().all(|k| k.key != "ccc"), "the dropped retraction writes no state");
}

/// C04 before FLINK-10674 (mode `1.6-legacy`): the retraction for cleaned-up `ccc` is stored as
/// fresh accumulators with input count −1 and SUM −3 (the file states the emitted `(true,ccc,-3)`).
#[wasm_bindgen_test(unsupported = test)]
fn c04_pre_fix_retraction_after_cleanup_stores_a_negative_count() {
    let sim =
        run(include_str!("scenarios/cases/C04-pre-fix-1.6-legacy-retraction-after-cleanup-creates-negative-sum.json"));
    let ccc = sim.operator_views()[0].keys.iter().find(|k| k.key == "ccc").cloned().unwrap();
    let value = |i: usize| ccc.states[i].as_ref().map(|c| c.value.clone());
    assert_eq!(value(1).as_deref(), Some("-1"), "GroupAggregateInputCounter");
    assert!(value(0).unwrap().contains("-3"), "{:?}", value(0));
    assert_eq!((ccc.cleanup_time_ms, ccc.timers_ms), (Some(6002), vec![6002]));
}
