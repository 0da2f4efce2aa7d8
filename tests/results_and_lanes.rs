//! The result table (retract vs upsert sink, stale rows) and the timeline's lanes.

mod common;

use common::run;
use flink_state_sim::engine::timeline::timeline;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn result(sim: &flink_state_sim::engine::Simulation) -> Vec<String> {
    sim.result()
        .rows()
        .map(|r| format!("{}{}", r.row.join(","), r.stale_since_ms.map(|t| format!(" stale@{t}")).unwrap_or_default()))
        .collect()
}

#[wasm_bindgen_test(unsupported = test)]
fn without_update_before_the_result_upserts_by_key() {
    let sim = run(r#"{"name": "u", "flink": "2.3",
        "source": {"name": "s", "schema": [["k", "STRING"]]},
        "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"], "generate_update_before": false,
                      "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"}]}],
        "steps": [{"at": 1, "row": ["a"]}, {"at": 2, "row": ["a"]}, {"at": 3, "row": ["b"]}, {"at": 4, "row": ["a"]}]}"#);
    assert!(sim.result().upsert);
    assert_eq!(result(&sim), ["a,3", "b,1"]);
}

/// Flink 2.3 with TTL: alice's state expires, her next login starts a new +I row, and the old
/// row stays in the result forever (no retraction can come for it). bob's state (10:40) expires
/// at 11:40 without any later read: his row is stale from then on too.
#[wasm_bindgen_test(unsupported = test)]
fn rows_of_expired_keys_are_stale() {
    let sim = run(r#"{"name": "t", "flink": "2.3", "state_ttl": "1 h",
        "source": {"name": "s", "schema": [["user", "STRING"]]},
        "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["user"],
                      "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"}]}],
        "steps": [{"at": "2024-01-01T10:00", "row": ["alice"]}, {"at": "2024-01-01T10:30", "row": ["alice"]},
                  {"at": "2024-01-01T10:40", "row": ["bob"]}, {"at": "2024-01-01T12:00", "row": ["alice"]}]}"#);
    let expired_at: i64 = 1_704_105_000_000 + 3_600_000; // 10:30 + 1 h
    let bob_expired_at = expired_at + 600_000; // 10:40 + 1 h
    assert_eq!(
        result(&sim),
        [format!("alice,2 stale@{expired_at}"), format!("bob,1 stale@{bob_expired_at}"), "alice,1".into()]
    );
}

/// Legacy cleanup: a global count whose state was cleaned up restarts; the old row is stale.
#[wasm_bindgen_test(unsupported = test)]
fn rows_of_cleaned_up_keys_are_stale() {
    let sim = run(r#"{"name": "g", "flink": "1.10-legacy", "idle_state_retention": {"min": "10 min", "max": "15 min"},
        "source": {"name": "s", "schema": [["k", "STRING"]]},
        "pipeline": [{"operator": "GroupAggregate", "id": "total", "aggregates": [{"function": "COUNT", "args": ["*"], "as": "n"}]}],
        "steps": [{"at": 0, "row": ["a"]}, {"at": 1000, "row": ["b"]}, {"at": 2000000, "row": ["c"]}]}"#);
    assert_eq!(result(&sim), ["2 stale@900000", "1"]);
}

/// Keys are told apart by their values, not by how they print: NULL and 'null', ("a, b", "c")
/// and ("a", "b, c") get their own lanes; an empty-string key is not the global key.
#[wasm_bindgen_test(unsupported = test)]
fn lanes_are_per_key_value() {
    let sim = run(r#"{"name": "k", "flink": "2.3",
        "source": {"name": "s", "schema": [["k", "STRING"], ["j", "STRING"]]},
        "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["k", "j"],
                      "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"}]}],
        "steps": [{"at": 1, "row": [null, null]}, {"at": 2, "row": ["null", "null"]},
                  {"at": 3, "row": ["a, b", "c"]}, {"at": 4, "row": ["a", "b, c"]}, {"at": 5, "row": ["", ""]}]}"#);
    let tl = timeline(&sim);
    assert_eq!(tl.lanes.len(), 5);
    assert_eq!(
        tl.lanes.iter().map(|l| l.key.as_str()).collect::<Vec<_>>(),
        ["null, null", "null, null", "a, b, c", "a, b, c", ", "]
    );
    assert_eq!(sim.operator_views()[0].keys.len(), 5);
}

/// A timer registered before the kept trace began (a long run keeps its last actions' only) is
/// drawn where it fires, with the state it cleared (trial 24, at step 219 679 of the Top-N
/// preset: a "cleaned up" label with no ✸ beside it) — and where it is deleted.
#[wasm_bindgen_test(unsupported = test)]
fn a_timer_registered_before_the_kept_trace_is_drawn_where_it_fires_or_is_deleted() {
    use flink_state_sim::engine::timeline::{ClearMark, TimerStatus};
    use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
    let json = r#"{"name": "w", "flink": "1.10-legacy",
        "idle_state_retention": {"min": 5, "max": 10, "test_harness": true},
        "source": {"name": "s", "schema": [["k", "STRING"]]},
        "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
                      "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"}]}],
        "steps": [{"at": 0, "row": ["a"]}, {"at": 1, "row": ["b"]}, {"at": 7, "row": ["b"]}]}"#;
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: Some(1), time_travel: true };
    let mut sim = Simulation::with_options(Scenario::from_json(json).unwrap(), options);
    sim.run_to_end().unwrap();
    // b's second record (7 + 5 > 11) moved its timer: 11 deleted, 17 registered, in the kept action.
    let lanes = timeline(&sim).lanes;
    let b = lanes.iter().find(|l| l.key == "b").unwrap();
    let timers: Vec<_> = b.timers.iter().map(|t| (t.timestamp_ms, t.status, t.registered_at_ms)).collect();
    assert!(timers.contains(&(11, TimerStatus::Deleted { at_ms: 7 }, None)), "{timers:?}");
    assert!(timers.contains(&(17, TimerStatus::Live, Some(7))), "{timers:?}");
    // a's timer (0 + 10) fires at 10, registered 3 actions back.
    sim.advance_to_next_timer().unwrap();
    assert_eq!(sim.now(), 10);
    let lanes = timeline(&sim).lanes;
    let a = lanes.iter().find(|l| l.key == "a").expect("a's lane: its timer fired in the kept action");
    assert_eq!(
        a.timers.iter().map(|t| (t.timestamp_ms, t.status, t.registered_at_ms)).collect::<Vec<_>>(),
        [(10, TimerStatus::Fired, None)]
    );
    assert!(a.timers[0].changed_last);
    assert_eq!(a.cleared, [ClearMark::CleanedUp { at_ms: 10 }]);
}
