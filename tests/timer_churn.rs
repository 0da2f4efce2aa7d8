//! Why Flink demands `max - min >= 5 minutes`: the timer churn of the cleanup-timer rule
//! (`CleanupState.registerProcessingCleanupTimer`) with min = max (a test-harness-only setting)
//! against a wide gap, measured on the two presets' identical input (100 003 logins, 1 000 users).

mod common;

use flink_state_sim::engine::presets::preset_json;
use flink_state_sim::engine::trace::TraceEvent;
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The timer counters at the end of a preset run at the `metrics` trace level:
/// (inputs, registered, deleted, fired).
fn timer_counters(preset: &str) -> (u64, u64, u64, u64) {
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(Scenario::from_json(preset_json(preset).unwrap()).unwrap(), options);
    sim.run_to_end().unwrap();
    let op = sim.sample_now().operators[0];
    (sim.inputs(), op.timers_registered, op.timers_deleted, op.timers_fired)
}

/// For one key of a full-trace run: (records received, timers registered + deleted).
fn key_churn(preset: &str, key: &str) -> (u64, u64) {
    let sim = common::run(preset_json(preset).unwrap());
    let mut received = 0;
    let mut timer_ops = 0;
    for e in sim.trace().iter().filter(|e| e.key_text().as_deref() == Some(key)) {
        match e.event {
            TraceEvent::Received { .. } => received += 1,
            TraceEvent::TimerRegistered { .. } | TraceEvent::TimerDeleted { .. } => timer_ops += 1,
            _ => {}
        }
    }
    (received, timer_ops)
}

fn per_input(ops: u64, inputs: u64) -> f64 {
    ops as f64 / inputs as f64
}

/// min = max: every record one millisecond or more after its key's previous one satisfies
/// `now + min > C` — a registration and a deletion per record, but no deletion for a key's first
/// record (a user's first login, or its first after a cleanup: 1 041 of them).
#[wasm_bindgen_test(unsupported = test)]
fn min_equals_max_costs_two_timer_operations_per_input() {
    let (inputs, registered, deleted, fired) = timer_counters("timer-churn-min-equals-max");
    assert_eq!((inputs, registered, deleted, fired), (100_003, 100_003, 98_962, 45));
    let rate = per_input(registered + deleted, inputs);
    assert!((rate - 1.9896).abs() < 1e-4, "{rate}");
    // user-1, the hottest key: 8 634 logins, 8 634 registrations and 8 633 deletions.
    let (received, ops) = key_churn("timer-churn-min-equals-max", "user-1");
    assert_eq!((received, ops), (8_634, 17_267));
    assert!((per_input(ops, received) - 2.0).abs() < 1e-3);
}

/// min 1 h / max 2 h: a key's timer moves at most once per hour, so the cost is about one
/// registration per user (2 843 for 1 000 users over 2 h 47 min), 42 times less per input.
#[wasm_bindgen_test(unsupported = test)]
fn a_wide_gap_moves_a_busy_keys_timer_once_per_gap() {
    let (inputs, registered, deleted, fired) = timer_counters("timer-churn-wide-gap");
    assert_eq!((inputs, registered, deleted, fired), (100_003, 2_843, 1_835, 9));
    let rate = per_input(registered + deleted, inputs);
    assert!((rate - 0.0468).abs() < 1e-4, "{rate}");
    // user-1: registered at 00:00 (C = 02:00), moved by its first logins after 01:00 and after
    // 02:00:00.9 (01:00:00.9 and 02:00:01.8, each time now + 1 h > C): 3 registrations and 2
    // deletions for 8 634 logins.
    let (received, ops) = key_churn("timer-churn-wide-gap", "user-1");
    assert_eq!((received, ops), (8_634, 5));
    assert!(per_input(ops, received) < 0.001);
}
