//! The state inspector's query (`engine::inspector`) and the charts' series and ticks
//! (`engine::chart`), on real scenarios.

mod common;

use common::run;
use flink_state_sim::engine::chart::operator_charts;
use flink_state_sim::engine::inspector::{inspect, GoneWhy, KeyStatus};
use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::engine::Simulation;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn preset(name: &str) -> &'static str {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, j)| *j).unwrap()
}

const TTL: &str = r#"{"name": "t", "flink": "2.3", "state_ttl": "1 h",
    "source": {"name": "s", "schema": [["user", "STRING"]]},
    "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["user"],
                  "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"}]}],
    "steps": [{"at": "2024-01-01T10:00", "row": ["alice"]}, {"at": "2024-01-01T10:40", "row": ["bob"]},
              {"at": "2024-01-01T12:00", "row": ["alice"]}]}"#;

#[wasm_bindgen_test(unsupported = test)]
fn the_inspector_tells_visible_from_expired_but_stored() {
    let sim = run(TTL);
    let all = inspect(&sim, 0, "", 10).unwrap();
    assert_eq!((all.matched, all.stored), (2, 2));
    let alice = &all.keys[0];
    assert_eq!((alice.key.as_str(), alice.status), ("alice", KeyStatus::Visible));
    assert_eq!(alice.states[0].as_ref().unwrap().value, "c: 1");
    assert_eq!(alice.last_access_ms, Some(1_704_103_200_000 + 7_200_000), "12:00");
    assert_eq!(alice.ttl_expires_ms, Some(1_704_103_200_000 + 3 * 3_600_000), "13:00");
    let bob = inspect(&sim, 0, "BO", 10).unwrap();
    assert_eq!(bob.matched, 1);
    let expired_at = 1_704_103_200_000 + 40 * 60_000 + 3_600_000; // 10:40 + 1 h
    assert_eq!(bob.keys[0].status, KeyStatus::ExpiredStored { since_ms: expired_at });
    let cell = bob.keys[0].states[0].as_ref().unwrap();
    assert_eq!((cell.entries, cell.visible), (1, 0), "stored, invisible");
    assert_eq!(inspect(&sim, 0, "", 1).unwrap().keys.len(), 1, "capped");
    assert_eq!(inspect(&sim, 0, "", 1).unwrap().matched, 2);
    assert!(inspect(&sim, 1, "", 1).is_none(), "no operator 1");
}

#[wasm_bindgen_test(unsupported = test)]
fn gone_keys_say_why() {
    let sim = run(preset("seed-001-one-day-two-days"));
    let i = inspect(&sim, 0, "", 10).unwrap();
    assert_eq!(i.stored, 0);
    assert_eq!(i.keys.len(), 1);
    assert_eq!(i.keys[0].status, KeyStatus::Gone { at_ms: 1_574_524_800_000, why: GoneWhy::CleanupTimer });
    let sim = run(preset("seed-004-device-status"));
    let outer = inspect(&sim, 1, "", 10).unwrap();
    let rows: Vec<(String, KeyStatus)> = outer.keys.iter().map(|k| (k.key.clone(), k.status)).collect();
    assert_eq!(
        rows,
        [
            ("0".to_string(), KeyStatus::Visible),
            ("1".to_string(), KeyStatus::Gone { at_ms: 1_574_347_474_000, why: GoneWhy::CountZero })
        ]
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn charts_follow_the_metrics_series() {
    let sim = run(preset("seed-001-one-day-two-days"));
    let samples = sim.metrics();
    let charts = operator_charts(&samples, 0);
    assert_eq!(charts.iter().map(|c| c.title).collect::<Vec<_>>(), ["state size", "timers", "emitted rows (total)"]);
    let last = |c: usize, s: usize| charts[c].series[s].points.last().unwrap().1;
    assert_eq!(charts[0].max, 3, "accumulator, input counter and cleanup time stored while u1 is held");
    assert_eq!((last(0, 0), last(0, 2)), (0, 0), "state cleared at the end");
    assert_eq!((last(1, 0), last(1, 1), last(1, 2), last(1, 3)), (0, 2, 1, 1));
    let kinds: Vec<(&str, u64)> =
        charts[2].series.iter().map(|s| (s.label.as_str(), s.points.last().unwrap().1)).collect();
    assert_eq!(kinds, [("(true,…)", 3), ("(false,…)", 2)]);
    assert!(charts[0].series[0].points.len() > 100, "{} points", charts[0].series[0].points.len());
    // The metrics series ends at the current time: the point the cursor sits on.
    let mut sim = Simulation::from_json(preset("seed-001-one-day-two-days")).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.metrics().last().unwrap().time_ms, sim.now());
}

/// Seed 001 after its first login (2019-11-20 15:00, min 1 d, max 2 d): the `CleanupTime` state
/// holds `now + max` = 2019-11-22 15:00 as an epoch-ms `Long`; the cell says it is a time, which
/// the page shows in the scenario's units ("2019-11-22 15:00"), the stored number in its tooltip.
#[wasm_bindgen_test(unsupported = test)]
fn a_cleanup_time_cell_is_a_time() {
    let mut sim = flink_state_sim::engine::Simulation::from_json(preset("seed-001-one-day-two-days")).unwrap();
    sim.step().unwrap();
    let i = inspect(&sim, 0, "", 10).unwrap();
    let cell = i.keys[0].states[2].as_ref().expect("CleanupTime");
    assert_eq!((cell.value.as_str(), cell.time_ms), ("1574434800000", Some(1_574_434_800_000)));
    assert_eq!(sim.time_format().format(1_574_434_800_000), "2019-11-22 15:00");
    // Other states are not times.
    assert_eq!(i.keys[0].states[1].as_ref().map(|c| c.time_ms), Some(None));
}

/// The inspector searches state values too. `upsert-sink-on-conflict` after its 4th step (u1, u2,
/// u3 logged in from Paris, then u1 from Berlin): the materializer keyed by city holds
/// `[u2, Paris], [u3, Paris]` for Paris and `[u1, Berlin]` for Berlin. A user id finds the city
/// whose rows hold it; a city finds its own key.
#[wasm_bindgen_test(unsupported = test)]
fn the_inspector_searches_keys_and_state_values() {
    let mut sim = Simulation::from_json(preset("upsert-sink-on-conflict")).unwrap();
    for _ in 0..4 {
        sim.step().unwrap();
    }
    let sink = sim.operator_views().iter().position(|v| v.id.starts_with("Sink")).unwrap();
    let found = |needle: &str| -> Vec<String> {
        inspect(&sim, sink, needle, 10).unwrap().keys.iter().map(|k| k.key.clone()).collect()
    };
    assert_eq!(found("u1"), ["Berlin"]);
    assert_eq!(found("U3"), ["Paris"], "case ignored");
    assert_eq!(found("Paris"), ["Paris"]);
    assert_eq!(found("u"), ["Berlin", "Paris"], "in the inspector's order");
    assert!(found("u9").is_empty());
}
