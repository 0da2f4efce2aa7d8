//! Deduplication by Flink version and mini-batch: Blink 1.10's `DeduplicateKeepFirstRowFunction`
//! on cleanup timers, the mini-batch keep-first functions of 1.10 (no retention, before
//! FLINK-16581) and 2.3 (state TTL), and what is refused. `shared/cases` C13's two variants are
//! `tests/scenarios/cases/C13-*.json`, checked by `tests/check.rs`.

mod common;

use common::{emitted, run, timer_events};
use flink_state_sim::engine::Simulation;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A keep-first Deduplicate `d` on key `k` under `settings`, with `steps` (`[at, k, v]`).
fn scenario(settings: &str, keep: &str, steps: &[(i64, &str, i64)]) -> String {
    let steps: Vec<String> = steps.iter().map(|(at, k, v)| format!(r#"{{"at": {at}, "row": ["{k}", {v}]}}"#)).collect();
    format!(
        r#"{{"name": "d", {settings}, "time_format": "millis",
            "source": {{"name": "src", "schema": [["k", "STRING"], ["v", "INT"]]}},
            "pipeline": [{{"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "{keep}"}}],
            "steps": [{}]}}"#,
        steps.join(", ")
    )
}

const BLINK: &str = r#""flink": "1.10-blink", "idle_state_retention": {"min": 10000, "max": 310000}"#;

/// Each row moves the cleanup timer (`now + min > C`), duplicates included: a key is forgotten only
/// after `max` without any row, then its next row is a first row again.
#[wasm_bindgen_test(unsupported = test)]
fn blink_1_10_keep_first_runs_on_cleanup_timers_that_duplicates_move() {
    let sim =
        run(&scenario(BLINK, "FirstRow", &[(0, "a", 1), (200_000, "a", 2), (305_000, "a", 3), (700_000, "a", 4)]));
    assert_eq!(emitted(&sim, "d"), ["(true,a,1)", "(true,a,4)"]);
    let t = |what: &str, at: &str| (what.to_string(), "a".to_string(), at.to_string());
    assert_eq!(
        timer_events(&sim, "d"),
        [
            t("timer_registered", "310000 ms"),
            t("timer_registered", "615000 ms"),
            t("timer_deleted", "310000 ms"),
            t("timer_fired", "615000 ms"),
            t("timer_registered", "1010000 ms"),
        ]
    );
    let view = &sim.operator_views()[0];
    assert_eq!(view.flink_class, "DeduplicateKeepFirstRowFunction");
    assert_eq!(view.state_names, ["existsState", "DeduplicateFunctionKeepFirstRow"]);
    assert_eq!(view.plan, "Deduplicate(keep=[FirstRow], key=[k], order=[PROCTIME])");
    assert_eq!(sim.result().rows().count(), 2, "an append result: the forgotten key's first row stays");
}

/// Mini-batch on 1.10: no retention at all, the flag of every key stays (C13 pre-fix); a bundle
/// keeps each key's first row and emits in `HashMap` order when it finishes.
#[wasm_bindgen_test(unsupported = test)]
fn blink_1_10_mini_batch_keep_first_never_forgets_and_emits_per_bundle() {
    let settings = format!(r#"{BLINK}, "mini_batch": {{"allow_latency": "1 s", "size": 3}}"#);
    let sim = run(&scenario(&settings, "FirstRow", &[(0, "b", 1), (1, "a", 1), (2, "b", 2), (900_000, "b", 3)]));
    // b's second row is dropped by addInput; the bundle is emitted in `HashMap` order, b's bucket
    // first (`map_bundle`'s test checks that order against Java's).
    assert_eq!(emitted(&sim, "d"), ["(true,b,1)", "(true,a,1)"]);
    assert!(timer_events(&sim, "d").is_empty(), "a MapBundleFunction has no timers");
    let view = &sim.operator_views()[0];
    assert_eq!(view.flink_class, "MiniBatchDeduplicateKeepFirstRowFunction");
    assert_eq!(view.key_count, 2, "both flags stay: no state TTL before FLINK-16581");
}

/// Mini-batch on 2.3: `ProcTimeMiniBatchDeduplicateKeepFirstRowFunction`, the flag has state TTL,
/// and the output is no longer labelled insert-only.
#[wasm_bindgen_test(unsupported = test)]
fn flink_2_3_mini_batch_keep_first_expires_by_state_ttl() {
    let settings = r#""flink": "2.3", "state_ttl": "10 s", "mini_batch": {"allow_latency": "1 s", "size": 1}"#;
    let sim = run(&scenario(settings, "FirstRow", &[(0, "a", 1), (5_000, "a", 2), (10_000, "a", 3)]));
    assert_eq!(emitted(&sim, "d"), ["+I[a, 1]", "+I[a, 3]"], "the flag written at 0 ms expires at 10000 ms");
    let view = &sim.operator_views()[0];
    assert_eq!(view.flink_class, "ProcTimeMiniBatchDeduplicateKeepFirstRowFunction");
    assert_eq!(view.plan, "Deduplicate(keep=[FirstRow], key=[k], order=[PROCTIME], outputInsertOnly=[false])");
}

#[wasm_bindgen_test(unsupported = test)]
fn what_is_not_modelled_is_refused_with_the_reason() {
    let err = |json: &str| Simulation::from_json(json).expect_err("refused").to_string();
    let last_mini_batch =
        err(&scenario(r#""flink": "2.3", "mini_batch": {"allow_latency": "1 s", "size": 2}"#, "LastRow", &[]));
    assert!(
        last_mini_batch.contains("ProcTimeMiniBatchDeduplicateKeepLastRowFunction, which is not modelled"),
        "{last_mini_batch}"
    );
    let last_blink = err(&scenario(BLINK, "LastRow", &[]));
    assert!(last_blink.contains("the keep-last deduplication of the"), "{last_blink}");
    let legacy = err(&scenario(
        r#""flink": "1.10-legacy", "idle_state_retention": {"min": 10000, "max": 310000}"#,
        "FirstRow",
        &[],
    ));
    assert!(legacy.contains("supported by the Blink planner only"), "{legacy}");
}
