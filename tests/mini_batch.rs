//! Mini-batch group aggregation (Flink 2.3): the planner's choice and plan texts, the bundle's
//! triggers (count, the assigner's interval, an element entering a new interval), what the page
//! shows, and time travel through bundles.

use flink_state_sim::engine::trace::TraceEvent;
use flink_state_sim::engine::{Scenario, Simulation};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const ORACLE: &str = include_str!("scenarios/oracle/device3_lastvalue_minibatch.json");

/// One `GroupAggregate` over `(k STRING, v INT)`, with `settings` merged in.
fn scenario(settings: serde_json::Value, aggregates: serde_json::Value, steps: serde_json::Value) -> Simulation {
    let mut v = serde_json::json!({
        "name": "t", "flink": "2.3", "time_format": "millis",
        "source": {"name": "src", "schema": [["k", "STRING"], ["v", "INT"]], "changelog": "all"},
        "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"], "aggregates": aggregates}],
        "steps": steps
    });
    for (key, value) in settings.as_object().unwrap() {
        v[key] = value.clone();
    }
    Simulation::from_json(&v.to_string()).unwrap()
}

fn emitted(sim: &Simulation) -> Vec<String> {
    sim.trace()
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::Emitted { message } if &*e.op == "agg" => Some(format!("{} {message}", e.time_ms)),
            _ => None,
        })
        .collect()
}

fn sum() -> serde_json::Value {
    serde_json::json!([{"function": "SUM", "args": ["v"], "as": "s"}])
}

#[wasm_bindgen_test(unsupported = test)]
fn plans_read_as_flink_printed_them() {
    let sim = Simulation::from_json(ORACLE).unwrap();
    let views = sim.operator_views();
    // The recording's `plan_changelog`, without the changelog modes.
    assert_eq!(views[0].plan, "GroupAggregate(groupBy=[dev_id], select=[dev_id, LAST_VALUE(status) AS st])");
    assert_eq!(views[0].flink_class, "MiniBatchGroupAggFunction");
    assert_eq!(
        views[2].plan,
        "GlobalGroupAggregate(groupBy=[st], select=[st, COUNT_RETRACT(count1$0) AS cnt])\n\
         +- Exchange(distribution=[hash[st]])\n   \
         +- LocalGroupAggregate(groupBy=[st], select=[st, COUNT_RETRACT(*) AS count1$0])"
    );
    assert_eq!(views[2].flink_class, "MiniBatchLocalGroupAggFunction → MiniBatchGlobalGroupAggFunction");
    assert_eq!(views[2].state_names, ["accState", "bundle", "local bundle"]);
}

#[wasm_bindgen_test(unsupported = test)]
fn the_planner_splits_only_mergeable_aggregations() {
    let mb = serde_json::json!({"mini_batch": {"allow_latency": "1 s", "size": 100}});
    let class = |settings: serde_json::Value, aggs: serde_json::Value| {
        scenario(settings, aggs, serde_json::json!([])).operator_views()[0].flink_class
    };
    let two = "MiniBatchLocalGroupAggFunction → MiniBatchGlobalGroupAggFunction";
    assert_eq!(class(mb.clone(), sum()), two, "AUTO splits a mergeable aggregation");
    let mut one_phase = mb.clone();
    one_phase["agg_phase_strategy"] = "ONE_PHASE".into();
    assert_eq!(class(one_phase, sum()), "MiniBatchGroupAggFunction");
    let mut no_mb = mb.clone();
    no_mb["mini_batch"] = serde_json::json!({"enabled": false});
    no_mb["agg_phase_strategy"] = "TWO_PHASE".into();
    assert_eq!(class(no_mb, sum()), "GroupAggFunction", "TWO_PHASE alone changes nothing: no mini-batch");
    let mut two_phase = mb.clone();
    two_phase["source"] = serde_json::json!({"name": "src", "schema": [["k", "STRING"], ["v", "INT"]]});
    let last = serde_json::json!([{"function": "LAST_VALUE", "args": ["v"], "as": "lv"}]);
    assert_eq!(class(two_phase, last), "MiniBatchGroupAggFunction", "LAST_VALUE has no merge");
    // SUM over a retracting input keeps (sum, count): two accumulator fields; the hidden COUNT(*) follows.
    let sim = scenario(mb, sum(), serde_json::json!([]));
    assert_eq!(
        sim.operator_views()[0].plan,
        "GlobalGroupAggregate(groupBy=[k], select=[k, SUM_RETRACT((sum$0, count$1)) AS s])\n\
         +- Exchange(distribution=[hash[k]])\n   \
         +- LocalGroupAggregate(groupBy=[k], select=[k, SUM_RETRACT(v) AS (sum$0, count$1), COUNT_RETRACT(*) AS count1$2])"
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn the_count_trigger_finishes_the_bundle_at_size() {
    let steps = serde_json::json!([
        {"at": 10, "row": ["a", 1]}, {"at": 20, "row": ["a", 2]}, {"at": 30, "row": ["b", 5]}, {"advance_to": 5000}
    ]);
    let settings =
        serde_json::json!({"mini_batch": {"allow_latency": "10 s", "size": 2}, "agg_phase_strategy": "ONE_PHASE"});
    let mut sim = scenario(settings, sum(), steps);
    sim.run_to_end().unwrap();
    assert_eq!(emitted(&sim), ["20 +I[a, 3]"], "two rows of a fold into one +I; b waits for the interval");
    sim.advance_to(10_009).unwrap();
    assert_eq!(emitted(&sim), ["20 +I[a, 3]"], "the assigner opened at 10: its first timer is at 10010");
    sim.advance_to(10_010).unwrap();
    assert_eq!(emitted(&sim), ["20 +I[a, 3]", "10010 +I[b, 5]"]);
}

#[wasm_bindgen_test(unsupported = test)]
fn an_element_in_a_new_interval_finishes_the_previous_batch_first() {
    // The assigner opens at 500: its first timer is at 1500, but a row at 1200 is in batch 1000.
    let steps = serde_json::json!([{"at": 500, "row": ["a", 1]}, {"at": 1200, "row": ["a", 2]}]);
    let settings =
        serde_json::json!({"mini_batch": {"allow_latency": "1 s", "size": 100}, "agg_phase_strategy": "ONE_PHASE"});
    let mut sim = scenario(settings, sum(), steps);
    sim.run_to_end().unwrap();
    assert_eq!(emitted(&sim), ["1200 +I[a, 1]"]);
    sim.advance_to(1500).unwrap();
    assert_eq!(emitted(&sim), ["1200 +I[a, 1]"], "the 1500 timer finds watermark 1000 already emitted");
    sim.advance_to(2000).unwrap();
    assert_eq!(emitted(&sim), ["1200 +I[a, 1]", "2000 -U[a, 1]", "2000 +U[a, 3]"]);
}

#[wasm_bindgen_test(unsupported = test)]
fn the_next_timer_is_the_interval_end_only_while_records_wait() {
    let steps = serde_json::json!([{"at": 0, "row": ["a", 1]}]);
    let settings = serde_json::json!({"mini_batch": {"allow_latency": "1 ms", "size": 100}});
    let mut sim = scenario(settings, sum(), steps);
    assert_eq!(sim.next_timer_ms(), None);
    sim.step().unwrap();
    assert_eq!(sim.next_timer_ms(), Some(1));
    let views = sim.operator_views();
    let key = &views[0].keys[0];
    assert_eq!(
        key.states[2].as_ref().map(|c| c.value.as_str()),
        Some("s: sum=1 count=1, COUNT(*) (hidden): 1 (1 records)")
    );
    sim.advance_to_next_timer().unwrap();
    assert_eq!(emitted(&sim), ["1 +I[a, 1]"]);
    assert_eq!(sim.next_timer_ms(), None);
    // A year of 1 ms intervals with empty bundles is skipped at once.
    sim.advance_by(365 * 86_400_000).unwrap();
    assert_eq!(sim.now(), 365 * 86_400_000 + 1);
}

#[wasm_bindgen_test(unsupported = test)]
fn time_travel_replays_bundles_exactly() {
    let mut straight = Simulation::from_json(ORACLE).unwrap();
    straight.run_to_end().unwrap();
    let end = straight.action_count();
    let dump = straight.state_dump();
    let mut travelled = Simulation::from_json(ORACLE).unwrap();
    travelled.run_to_end().unwrap();
    travelled.seek(3).unwrap();
    assert_ne!(travelled.state_dump(), dump);
    travelled.seek(end).unwrap();
    assert_eq!(travelled.state_dump(), dump);
}

#[wasm_bindgen_test(unsupported = test)]
fn the_legacy_mode_switch_is_refused_with_the_reason() {
    let legacy =
        flink_state_sim::engine::scenario::with_flink(ORACLE, flink_state_sim::engine::FlinkMode::Legacy1_10).unwrap();
    let err = Scenario::from_json(&legacy).unwrap_err().to_string();
    assert!(err.starts_with("mini_batch: the Flink 1.8–1.11 legacy planner has no mini-batch"), "{err}");
}
