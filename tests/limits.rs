//! Times and durations at the limits: rejected with the range, or run without overflow.

use flink_state_sim::engine::time::{MAX_RUNTIME_MS, MAX_TIME_MS};
use flink_state_sim::engine::Simulation;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A cleanup timer registered beyond the last writable time can still be reached and fired.
#[wasm_bindgen_test(unsupported = test)]
fn a_timer_beyond_the_scenario_range_still_fires() {
    let json = format!(
        r#"{{"name": "edge", "flink": "1.10-legacy",
            "idle_state_retention": {{"min": {min}, "max": {max}, "test_harness": true}},
            "source": {{"name": "s", "schema": [["k", "STRING"]]}},
            "pipeline": [{{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
                           "aggregates": [{{"function": "COUNT", "args": ["*"], "as": "c"}}]}}],
            "steps": [{{"at": {at}, "row": ["a"]}}]}}"#,
        min = MAX_TIME_MS - 1,
        max = MAX_TIME_MS,
        at = MAX_TIME_MS
    );
    let mut sim = Simulation::from_json(&json).unwrap();
    sim.run_to_end().unwrap();
    assert_eq!(sim.next_timer_ms(), Some(2 * MAX_TIME_MS));
    sim.advance_to_next_timer().unwrap();
    assert_eq!(sim.now(), 2 * MAX_TIME_MS);
    assert!(sim.operator_views()[0].keys.is_empty());
    assert!(sim
        .advance_by(MAX_TIME_MS + 1)
        .unwrap_err()
        .0
        .starts_with("duration 2932897 d is longer than a scenario's whole time range"));
    assert!(sim.advance_to(MAX_RUNTIME_MS + 1).unwrap_err().0.contains("the latest this simulator runs to"));
    assert!(sim.advance_to(MAX_RUNTIME_MS).is_ok());
    assert!(sim.advance_by(MAX_TIME_MS).is_err(), "nothing overflows, the advance is refused");
}
