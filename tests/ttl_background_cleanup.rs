//! State TTL's background cleanup in a running pipeline (Flink 2.3, `hashmap` backend): the
//! `GroupAggFunction`'s `accState` runs `TtlIncrementalCleanup` on each `value()` and `update()`,
//! so expired keys nobody reads again are removed while other keys are processed.
//!
//! The state-level model is checked against Flink 2.3.0 itself in
//! `tests/ttl_incremental_cleanup_oracle.rs`; this test checks the wiring: the pipeline places
//! keys by the `BinaryRowData` hash of the key columns, runs the state calls at each record's
//! time, and reports each removal, so that it removes exactly what a direct replay of the same
//! state calls removes, and the trace, the metrics and the explanation agree.

mod common;

use common::{emitted, run};
use flink_state_sim::engine::row::{DataType, Row, Value};
use flink_state_sim::engine::state::ttl::StateTtlConfig;
use flink_state_sim::engine::state::{KeyRegistry, ValueState};
use flink_state_sim::engine::trace::TraceEvent;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const OLD_KEYS: usize = 300;
const LATER_RECORDS: usize = 300;

/// 300 keys at 0 ms, then (TTL 10 ms) 300 records of one other key at 100 ms, then `k7` again.
fn scenario(backend: &str) -> String {
    let mut steps: Vec<String> = (0..OLD_KEYS).map(|i| format!(r#"{{"at": 0, "row": ["k{i}", 1]}}"#)).collect();
    steps.extend((0..LATER_RECORDS).map(|_| r#"{"at": 100, "row": ["z", 1]}"#.to_string()));
    steps.push(r#"{"at": 200, "row": ["k7", 1]}"#.into());
    format!(
        r#"{{"name": "t", "flink": "2.3", "state_ttl": "10 ms", "state_backend": "{backend}",
            "source": {{"name": "src", "schema": [["k", "STRING"], ["v", "INT"]]}},
            "pipeline": [{{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
                           "aggregates": [{{"function": "COUNT", "args": ["*"], "as": "c"}}]}}],
            "steps": [{}]}}"#,
        steps.join(",")
    )
}

/// The same state calls (`value()` then `update()` per record) on a bare `ValueState`: how many
/// old keys are still stored after the 300 later records.
fn direct_replay() -> u64 {
    let mut keys = KeyRegistry::new(10);
    keys.use_heap_backend(vec![DataType::String]);
    let mut acc: ValueState<i64> = ValueState::with_ttl("accState", StateTtlConfig::create_ttl_config(10));
    let mut record = |keys: &mut KeyRegistry, k: &str, now: i64| {
        keys.finish();
        let id = keys.intern(&Row::from(vec![Value::str(k)]));
        let _ = acc.value(keys, id, now);
        acc.update(keys, id, 1, now);
    };
    for i in 0..OLD_KEYS {
        record(&mut keys, &format!("k{i}"), 0);
    }
    for _ in 0..LATER_RECORDS {
        record(&mut keys, "z", 100);
    }
    acc.stored() - 1
}

#[wasm_bindgen_test(unsupported = test)]
fn expired_keys_nobody_reads_are_removed_by_the_incremental_cleanup() {
    let sim = run(&scenario("hashmap"));
    let trace = sim.trace();
    let cleaned: Vec<usize> =
        (0..trace.len()).filter(|&i| matches!(trace[i].event, TraceEvent::StateCleanedUp { .. })).collect();
    let still_stored = direct_replay();
    assert!(still_stored < OLD_KEYS as u64 - 20, "the sweep removed a good share: {still_stored} left");
    assert!(still_stored > 0, "600 cleanup calls do not sweep 128 key groups");
    let at_100 = cleaned.iter().filter(|&&i| trace[i].time_ms == 100).count() as u64;
    assert_eq!(at_100, OLD_KEYS as u64 - still_stored, "what a direct replay of the same state calls removes");
    for &i in &cleaned {
        let e = &trace[i];
        let TraceEvent::StateCleanedUp { state, last_access_ms, expired_at_ms } = e.event else { unreachable!() };
        assert_eq!(state, "accState");
        assert_eq!(expired_at_ms, last_access_ms + 10);
        assert!(e.time_ms >= expired_at_ms);
        // Right after the call's first event (the record it received), in the same action.
        let first = (0..i).rev().find(|&j| !matches!(trace[j].event, TraceEvent::StateCleanedUp { .. })).unwrap();
        assert!(matches!(trace[first].event, TraceEvent::Received { .. }), "{:?}", trace[first].event);
        assert_eq!(trace[first].action, e.action);
        assert!(e.text_line(sim.time_format()).contains("removed by the incremental cleanup"));
    }
    // The metrics agree with the trace: 301 entries, minus what the sweep and reads removed,
    // plus k7 written again (removed once, by the sweep or by its own read at 200 ms).
    let expired_on_read = trace.iter().filter(|e| matches!(e.event, TraceEvent::StateExpired { .. })).count() as u64;
    assert!(expired_on_read <= 1);
    let k7_swept = cleaned.iter().any(|&i| trace[i].key.as_ref().is_some_and(|k| k.0[0] == Value::str("k7")));
    assert_eq!(k7_swept, expired_on_read == 0);
    let stored = sim.sample_now().operators[0].entries_stored;
    assert_eq!(stored, OLD_KEYS as u64 + 1 - cleaned.len() as u64 - expired_on_read + 1);
    // k7 starts again: its state expired.
    assert_eq!(emitted(&sim, "agg").last().map(String::as_str), Some("+I[k7, 1]"));
}

#[wasm_bindgen_test(unsupported = test)]
fn on_rocksdb_expired_keys_stay_stored_until_read() {
    let sim = run(&scenario("rocksdb"));
    assert!(!sim.trace().iter().any(|e| matches!(e.event, TraceEvent::StateCleanedUp { .. })));
    // 300 old keys (expired, never read) + z; k7's expired entry was removed by its read at
    // 200 ms and written again.
    assert_eq!(sim.sample_now().operators[0].entries_stored, OLD_KEYS as u64 + 1);
    assert_eq!(sim.trace().iter().filter(|e| matches!(e.event, TraceEvent::StateExpired { .. })).count(), 1);
}
