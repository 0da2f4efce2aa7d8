#![cfg(not(target_arch = "wasm32"))]
//! Properties of the legacy count window (`CountWindowAggregate`: `WindowOperator` /
//! `EvictingWindowOperator` with `StateCleaningCountTrigger`) over random inputs, sizes, slides,
//! retentions and Flink versions: no panic; every window holds at most `size` rows; a tumbling
//! window with cleaning enabled emits every row exactly once (in a full window, or in the partial
//! window its cleanup timer fires), and every state and timer is gone once the last timer fired.

use flink_state_sim::engine::row::Value;
use flink_state_sim::engine::trace::TraceEvent;
use flink_state_sim::engine::{Scenario, Simulation};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::json;

fn config() -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = 300;
    }
    c.failure_persistence = None;
    c
}

#[derive(Debug, Clone)]
struct Case {
    flink: &'static str,
    min: i64,
    max: i64,
    size: u64,
    slide: Option<u64>,
    /// (gap since the previous row in ms, key)
    rows: Vec<(i64, &'static str)>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(vec!["1.6-legacy", "1.7-legacy", "1.10-legacy"]),
        0i64..20,
        0i64..20,
        1u64..5,
        prop::option::of(1u64..5),
        prop::collection::vec((0i64..15, prop::sample::select(vec!["a", "b", "c"])), 0..30),
    )
        .prop_map(|(flink, min, extra, size, slide, rows)| Case {
            flink,
            min,
            max: min + extra,
            size,
            slide,
            rows,
        })
}

fn scenario(c: &Case) -> String {
    let mut t = 0;
    let mut steps: Vec<serde_json::Value> = c
        .rows
        .iter()
        .enumerate()
        .map(|(i, (gap, k))| {
            t += gap;
            json!({"at": t, "row": [k, i]})
        })
        .collect();
    steps.push(json!({"advance_by": 1000}));
    let mut op = json!({"operator": "CountWindowAggregate", "id": "w", "group_by": ["k"], "on": "pt", "size": c.size,
                        "aggregates": [{"function": "COUNT", "args": ["*"], "as": "n"},
                                       {"function": "SUM", "args": ["v"], "as": "s"}]});
    if let Some(slide) = c.slide {
        op["slide"] = json!(slide);
    }
    json!({"name": "cw", "flink": c.flink, "time_format": "millis",
           "idle_state_retention": {"min": c.min, "max": c.max, "test_harness": true},
           "source": {"name": "src", "schema": [["k", "STRING"], ["v", "BIGINT"]], "proctime": "pt"},
           "pipeline": [op], "steps": steps})
    .to_string()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn windows_hold_at_most_size_rows_and_tumbling_ones_emit_every_row_once(c in case()) {
        let mut sim = Simulation::new(Scenario::from_json(&scenario(&c)).unwrap());
        sim.run_to_end().unwrap();
        let counts: Vec<i64> = sim
            .trace()
            .iter()
            .filter_map(|e| match &e.event {
                TraceEvent::Emitted { message } => match message.row.0[1] {
                    Value::Int(n) => Some(n),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        prop_assert!(counts.iter().all(|&n| n >= 1 && n as u64 <= c.size), "{counts:?}");
        let cleaning = c.min > 1;
        if cleaning {
            // 1 s after the last row every cleanup timer (at most max < 40 ms later) has fired.
            prop_assert!(sim.operator_views()[0].keys.is_empty(), "state or timers left");
            prop_assert_eq!(sim.next_timer_ms(), None);
            if c.slide.is_none() {
                prop_assert_eq!(counts.iter().sum::<i64>(), c.rows.len() as i64, "{:?}", counts);
            }
        } else {
            prop_assert_eq!(sim.next_timer_ms(), None, "no cleanup timers without cleaning");
            if c.slide.is_none() {
                let full = counts.iter().filter(|&&n| n as u64 == c.size).count();
                prop_assert_eq!(full, counts.len(), "only full windows fire without cleaning");
            }
        }
    }
}
