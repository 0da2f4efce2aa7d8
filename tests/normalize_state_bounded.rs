#![cfg(not(target_arch = "wasm32"))]
//! ChangelogNormalize's state follows its live keys, never the number of events: with state TTL
//! it holds the primary keys written within the TTL (`ProcTimeDeduplicateKeepLastRowFunction`
//! writes its `deduplicate-state` on every upsert when TTL is on, `OnCreateAndWrite`), so over a
//! long run of ever-new keys the stored rows stay level; without TTL it holds every key ever
//! upserted. The expected counts are derived here from the generated events alone.

use flink_state_sim::engine::metrics::Sample;
use flink_state_sim::engine::row::Value;
use flink_state_sim::engine::workload::WorkloadCursor;
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use std::collections::HashMap;

/// An upsert source `src (k, v)` with primary key `k`, read as Flink 2.3 plans it
/// (`ChangelogNormalize(key=[k])`): 60 000 upserts at 5 000 a second, half of them of a new key
/// seen once, the rest over 1 000 regular keys.
fn scenario(ttl: Option<&str>) -> Scenario {
    let set = ttl.map(|t| format!("SET 'table.exec.state.ttl' = '{t}';\\n")).unwrap_or_default();
    let json = format!(
        r#"{{"name": "normalize-bounded", "flink": "2.3", "time_format": "millis",
            "source": {{"name": "src", "schema": [["k", "STRING"], ["v", "INT"]], "changelog": "upsert",
                        "primary_key": ["k"]}},
            "sql": "{set}SELECT k, v FROM src;",
            "workload": {{"seed": 7, "events": 60000, "rate": 5000, "keys": 1000, "key_column": "k",
                          "key_prefix": "k", "new_keys": 0.5, "columns": {{"v": {{"uniform": [1, 100]}}}}}}}}"#
    );
    Scenario::from_json(&json).unwrap()
}

fn run(scenario: Scenario) -> Simulation {
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(scenario, options);
    sim.run_to_end().unwrap();
    sim
}

/// Each key's last upsert time among the first `inputs` generated events.
fn last_upserts(scenario: &Scenario, inputs: u64) -> HashMap<Value, i64> {
    let w = scenario.workload.as_ref().expect("a workload");
    let mut cursor = WorkloadCursor::new(w);
    let mut last = HashMap::new();
    for _ in 0..inputs {
        let (t, _, row) = cursor.next_event(w).expect("an event");
        last.insert(row.0[0], t);
    }
    last
}

fn sample_at(samples: &[Sample], ms: i64) -> &Sample {
    samples.iter().find(|s| s.time_ms >= ms).expect("a sample")
}

#[test]
fn normalize_state_stays_level_under_state_ttl_and_grows_without() {
    let ttl_ms = 1_000;
    let with_ttl = scenario(Some("1 s"));
    let sim = run(with_ttl.clone());
    assert_eq!(sim.inputs(), 60_000);
    assert_eq!(sim.operator_views()[0].flink_class, "ProcTimeDeduplicateKeepLastRowFunction");
    let samples = sim.metrics();
    let mut stored = Vec::new();
    for at in [4_000, 11_000] {
        let s = sample_at(&samples, at);
        let op = &s.operators[0];
        // A key is visible while its last write is younger than the TTL (`NeverReturnExpired`).
        let live = last_upserts(&with_ttl, s.inputs).values().filter(|&&t| t + ttl_ms > s.time_ms).count() as u64;
        assert_eq!(op.keys_visible, live, "visible keys at {} ms", s.time_ms);
        assert_eq!(op.entries_stored - op.entries_expired, live, "unexpired rows at {} ms", s.time_ms);
        eprintln!(
            "TTL 1 s, {} ms, {} inputs: {live} live keys, {} rows stored",
            s.time_ms, s.inputs, op.entries_stored
        );
        stored.push((s.inputs, live, op.entries_stored));
    }
    let [(early_inputs, early_live, early), (late_inputs, late_live, late)] = stored[..] else { unreachable!() };
    // 2.75 times the events, the same state: within 5 % of each other, and within 10 % of the
    // live keys (the rest is what the background cleanup has not reached yet).
    assert!(late_inputs * 10 > early_inputs * 27, "{early_inputs} → {late_inputs} inputs");
    assert!(late * 100 <= early * 105 && early * 100 <= late * 105, "rows stored: {early} then {late}");
    assert!(early * 10 <= early_live * 11 && late * 10 <= late_live * 11, "{early}/{early_live}, {late}/{late_live}");
    assert!(late_inputs > 15 * late, "many more events ({late_inputs}) than stored rows ({late})");

    // Without TTL every key ever upserted keeps its row: the count grows with the new keys.
    let no_ttl = scenario(None);
    let sim = run(no_ttl.clone());
    let samples = sim.metrics();
    let mut seen = Vec::new();
    for at in [4_000, 11_000] {
        let s = sample_at(&samples, at);
        let keys = last_upserts(&no_ttl, s.inputs).len() as u64;
        assert_eq!(s.operators[0].entries_stored, keys, "rows stored at {} ms", s.time_ms);
        assert_eq!(s.operators[0].entries_expired, 0);
        seen.push(keys);
    }
    eprintln!("no TTL: rows stored {} then {}", seen[0], seen[1]);
    assert!(seen[1] > 2 * seen[0], "{seen:?}");
}
