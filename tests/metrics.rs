//! The metrics a what-if run reports: exact peaks, the sampled series, where a generated run starts.

use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn run_metrics(json: &str) -> Simulation {
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(Scenario::from_json(json).unwrap(), options);
    sim.run_to_end().unwrap();
    sim
}

/// Four keys live for 10 ms between two samples far apart: the peak is still 4 keys (tracked
/// after every record), while no sample sees more than one.
#[wasm_bindgen_test(unsupported = test)]
fn peaks_are_exact_between_samples() {
    let sim = run_metrics(
        r#"{"name": "peak", "flink": "1.10-legacy", "time_format": "millis",
            "idle_state_retention": {"min": 5, "max": 10, "test_harness": true},
            "source": {"name": "s", "schema": [["k", "STRING"]]},
            "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
                          "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"}]}],
            "steps": [{"at": 0, "row": ["a"]}, {"at": 1000, "row": ["b"]}, {"at": 1000, "row": ["c"]},
                      {"at": 1000, "row": ["d"]}, {"at": 1000, "row": ["e"]}, {"at": 10000000, "row": ["z"]}]}"#,
    );
    let peaks = sim.peaks()[0];
    assert_eq!((peaks.keys.value, peaks.keys.at_ms), (4, 1000));
    assert_eq!((peaks.entries_stored.value, peaks.timers.value), (12, 4), "three states and one timer per key");
    let sampled_max = sim.metrics().iter().map(|s| s.operators[0].keys).max().unwrap();
    assert_eq!(sampled_max, 1, "the samples, minutes apart, miss the 10 ms the four keys lived");
    let n = sim.metrics().len();
    assert!((100..=513).contains(&n), "{n} samples");
}

/// A scenario of generated events only starts at the workload's start, and shows date-times when
/// that start is one.
#[wasm_bindgen_test(unsupported = test)]
fn a_workload_only_run_starts_at_the_workload() {
    let sim = run_metrics(
        r#"{"name": "wl", "flink": "2.3", "state_ttl": "2 h",
            "source": {"name": "s", "schema": [["k", "STRING"]]},
            "pipeline": [{"operator": "GroupAggregate", "id": "a", "group_by": ["k"],
                          "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"}]}],
            "workload": {"seed": 1, "events": 1000, "rate": 1, "start": "2025-03-01T00:00", "keys": 100, "key_column": "k"}}"#,
    );
    let start = 1_740_787_200_000; // 2025-03-01T00:00Z
    assert_eq!(sim.scenario().start_ms, start);
    assert_eq!(sim.time_format().format(start), "2025-03-01 00:00");
    let samples = sim.metrics();
    assert_eq!(samples[0].time_ms, start);
    assert!(samples[0].inputs > 0, "the first sample already sees the first events");
}
