#![cfg(not(target_arch = "wasm32"))]
//! The sink's `SinkUpsertMaterializer` (Flink 2.3.0, default `LEGACY` strategy) at the `metrics`
//! trace level: the rows it holds, all keys together (`list_rows`; each key's list is one entry
//! of `entries_stored`), against counts derived here from the generated events alone.
//!
//! **`ON CONFLICT DO DEDUPLICATE`, sink key ≠ the query's upsert key: the rows grow with
//! history.** Read from the 2.3.0 bytecode (`javap -c -p -l` of
//! `org.apache.flink.table.runtime.operators.sink.SinkUpsertMaterializer` in
//! `flink-table-runtime-2.3.0.jar`; source lines from its `LineNumberTable`):
//! - `processElement` (l. 141) reads the key's `ValueState<List<RowData>>` "values"; `+I`/`+U` go
//!   to `addRow` (l. 149), `-U`/`-D` to `retractRow` (l. 154);
//! - `addRow`: with an input upsert key, `findFirst` on it (l. 162) and `values.add(row)` when
//!   nothing matches (l. 164), else `values.set(i, row)` (l. 166); then `state.update(values)`
//!   (l. 175, bytecode 87–92): **every** add rewrites the whole list, which renews its TTL
//!   (`StateConfigUtil.createTtlConfig`: `OnCreateAndWrite`);
//! - `retractRow`: the only way a row leaves a list (`values.remove(i)`, l. 186) is a `-U`/`-D`
//!   of it; one that finds nothing logs and returns without a write (l. 181–183).
//!
//! Upstream, a `GroupAggregate` whose state TTL expired for a key reads it as absent
//! (`GroupAggFunction`: `firstRow`) and emits `+I[k, v']` with no `-U[k, v]`: the old row `[k, v]`
//! stays in the list of sink key `v` for as long as anything else keeps writing that list.
//! Below the sink key `v` takes 40 values written many times a second and the TTL is 1 s, so no
//! list ever expires (checked on the model) and every aggregation key that expired or was seen
//! once leaves a row behind: the rows held grow with the keys ever seen while the aggregation's
//! live keys stay level.
//!
//! **`table.exec.sink.upsert-materialize = FORCE`, sink key = upsert key: one row per key.**
//! `findFirst` on the upsert key always finds the key's only row, so each list holds at most one
//! row: under one global TTL the rows a read would see are the keys written within the TTL;
//! with a TTL on the aggregation only (`STATE_TTL` hint) the sink's lists never expire and hold
//! one row per key ever seen, the rows of the sink table.

use flink_state_sim::engine::inspector::inspect;
use flink_state_sim::engine::metrics::{OperatorSample, Sample};
use flink_state_sim::engine::row::Value;
use flink_state_sim::engine::summary::run_summary;
use flink_state_sim::engine::workload::WorkloadCursor;
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use std::collections::{HashMap, HashSet};

const TTL_MS: i64 = 1_000;
/// What the models below give for seed 16 at 5 s and 19 s (the engine is checked against the
/// models themselves; these pin the workload, so that a change of the generator shows here):
/// rows the `DO DEDUPLICATE` materializer holds, and aggregation keys written within the TTL.
const EARLY_ROWS: u64 = 4_011;
const LATE_ROWS: u64 = 14_523;
const EARLY_LIVE: u64 = 907;
const LATE_LIVE: u64 = 895;
/// Keys ever seen at 5 s and 19 s.
const EARLY_SEEN: u64 = 3_135;
const LATE_SEEN: u64 = 7_661;

/// `src (k, v)` of 20 000 events at 1 000 a second (one per ms): 30 % of them a key seen once,
/// the rest over 2 000 regular keys; `v` uniform in 1..=40. `sink_key` is the sink table's
/// primary key; `sql` is what follows the table's DDL.
fn scenario(sink_key: &str, sql: &str) -> Scenario {
    let sql = sql.replace('\n', "\\n");
    let json = format!(
        r#"{{"name": "sink-bounded", "flink": "2.3", "time_format": "millis",
            "source": {{"name": "src", "schema": [["k", "STRING"], ["v", "INT"]]}},
            "sql": "CREATE TABLE snk (k STRING, v INT, PRIMARY KEY ({sink_key}) NOT ENFORCED) WITH ('connector' = 'print');\n{sql}",
            "workload": {{"seed": 16, "events": 20000, "rate": 1000, "keys": 2000, "key_column": "k",
                          "key_prefix": "k", "new_keys": 0.3, "columns": {{"v": {{"uniform": [1, 40]}}}}}}}}"#
    );
    Scenario::from_json(&json).unwrap()
}

fn run(scenario: Scenario) -> Simulation {
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(scenario, options);
    sim.run_to_end().unwrap();
    sim
}

/// The first `inputs` generated events: (time, k, v).
fn events(scenario: &Scenario, inputs: u64) -> Vec<(i64, Value, Value)> {
    let w = scenario.workload.as_ref().expect("a workload");
    let mut cursor = WorkloadCursor::new(w);
    (0..inputs)
        .map(|_| {
            let (t, _, row) = cursor.next_event(w).expect("an event");
            (t, row.0[0], row.0[1])
        })
        .collect()
}

fn sample_at(samples: &[Sample], ms: i64) -> &Sample {
    samples.iter().find(|s| s.time_ms >= ms).expect("a sample")
}

/// The operator of `class` in the run, and its index.
fn operator(sim: &Simulation, class: &str) -> usize {
    sim.operator_views().iter().position(|v| v.flink_class == class).unwrap_or_else(|| panic!("no {class}"))
}

/// `GroupAggregate(LAST_VALUE(v) GROUP BY k)` under state TTL feeding `SinkUpsertMaterializer`
/// keyed by `v`, written as plainly as the rules above say: per aggregation key its value and
/// last write; per sink key the aggregation keys whose row its list holds, and its last write.
struct DeduplicateModel {
    agg: HashMap<Value, (Value, i64)>,
    lists: HashMap<Value, (HashSet<Value>, i64)>,
}

impl DeduplicateModel {
    fn fresh(last: i64, now: i64) -> bool {
        last + TTL_MS > now
    }

    /// The sink key `v`'s list at `now`: an expired one is gone (`NeverReturnExpired`).
    fn list(&mut self, v: Value, now: i64) -> Option<&mut (HashSet<Value>, i64)> {
        if self.lists.get(&v).is_some_and(|(_, last)| !Self::fresh(*last, now)) {
            self.lists.remove(&v);
        }
        self.lists.get_mut(&v)
    }

    fn event(&mut self, t: i64, k: Value, v: Value) {
        // The aggregation retracts the key's previous row only if its state is still alive.
        if let Some((old, _)) = self.agg.get(&k).copied().filter(|(_, last)| Self::fresh(*last, t)) {
            if let Some(list) = self.list(old, t) {
                if list.0.remove(&k) {
                    if list.0.is_empty() {
                        self.lists.remove(&old); // state.clear()
                    } else {
                        list.1 = t; // state.update(values)
                    }
                }
            }
        }
        // +I or +U [k, v]: added (or set in place: found by its upsert key k); always a write.
        let list = match self.list(v, t) {
            Some(list) => list,
            None => self.lists.entry(v).or_insert_with(|| (HashSet::new(), t)),
        };
        list.0.insert(k);
        list.1 = t;
        self.agg.insert(k, (v, t));
    }
}

#[test]
fn on_conflict_deduplicate_keeps_the_rows_the_aggregation_forgot() {
    let sc = scenario(
        "v",
        &format!(
            "SET 'table.exec.state.ttl' = '{TTL_MS} ms';\nINSERT INTO snk SELECT k, LAST_VALUE(v) AS v FROM src GROUP BY k ON CONFLICT DO DEDUPLICATE;"
        ),
    );
    let sim = run(sc.clone());
    assert_eq!(sim.inputs(), 20_000);
    let (agg, sink) = (operator(&sim, "GroupAggFunction"), operator(&sim, "SinkUpsertMaterializer"));
    let samples = sim.metrics();
    let mut seen = Vec::new();
    for at in [5_000, 19_000] {
        let s = sample_at(&samples, at);
        let mut model = DeduplicateModel { agg: HashMap::new(), lists: HashMap::new() };
        for (t, k, v) in events(&sc, s.inputs) {
            model.event(t, k, v);
        }
        // No list expired (so none is stored expired): every one was written within the TTL.
        assert!(model.lists.values().all(|(_, last)| DeduplicateModel::fresh(*last, s.time_ms)));
        let rows: u64 = model.lists.values().map(|(ks, _)| ks.len() as u64).sum();
        let live = model.agg.values().filter(|(_, last)| DeduplicateModel::fresh(*last, s.time_ms)).count() as u64;
        let op = &s.operators[sink];
        assert_eq!(op.list_rows, rows, "rows held at {} ms", s.time_ms);
        assert_eq!((op.entries_stored, op.entries_expired), (model.lists.len() as u64, 0), "lists at {} ms", s.time_ms);
        assert_eq!(s.operators[agg].keys_visible, live, "aggregation keys alive at {} ms", s.time_ms);
        eprintln!(
            "DEDUPLICATE, {} ms, {} inputs: {rows} rows in {} lists; {live} live keys upstream",
            s.time_ms,
            s.inputs,
            model.lists.len()
        );
        seen.push((s.inputs, rows, live));
    }
    let [(early_inputs, early_rows, early_live), (late_inputs, late_rows, late_live)] = seen[..] else {
        unreachable!()
    };
    // 19 s of events hold 3.6 times the rows of 5 s, while the aggregation's live keys stay
    // within 10 % of each other: the materializer's state follows history, not live keys.
    assert_eq!((early_inputs, late_inputs), (5_001, 19_001));
    assert_eq!((early_rows, late_rows), (EARLY_ROWS, LATE_ROWS));
    assert_eq!((early_live, late_live), (EARLY_LIVE, LATE_LIVE));
    assert!(late_rows * 10 > early_rows * 35, "{early_rows} → {late_rows}");
    assert!(late_live * 10 <= early_live * 11 && early_live * 10 <= late_live * 11, "{early_live} → {late_live}");

    // The same figure in the CLI's summary (`run --trace metrics`) and the state inspector.
    let now = sim.sample_now().operators[sink];
    let summary = run_summary(&sim, 1.0);
    let peak = sim.peaks()[sink].list_rows.value;
    assert!(peak >= now.list_rows);
    let line = format!(
        "  rows in state lists now {} (every row of every key, each list one entry above); peak {peak}",
        now.list_rows
    );
    assert!(summary.iter().any(|l| l.starts_with(&line)), "{line} in {summary:#?}");
    assert_eq!(inspect(&sim, sink, "", 5).unwrap().list_rows, now.list_rows);
    let per_key: usize =
        sim.operator_views()[sink].keys.iter().filter_map(|k| k.states[0].as_ref()).map(|c| c.entries).sum();
    assert_eq!(per_key as u64, now.list_rows, "each key's cell holds its list's rows");
}

/// Each key's last event time among the first `inputs`.
fn last_writes(scenario: &Scenario, inputs: u64) -> HashMap<Value, i64> {
    events(scenario, inputs).into_iter().map(|(t, k, _)| (k, t)).collect()
}

fn sink_of(s: &Sample, i: usize) -> OperatorSample {
    s.operators[i]
}

#[test]
fn force_with_the_upsert_key_holds_one_row_per_live_key() {
    let force = "SET 'table.exec.sink.upsert-materialize' = 'FORCE';\n";
    let insert = "INSERT INTO snk SELECT k, LAST_VALUE(v) AS v FROM src GROUP BY k;";

    // One global TTL: the aggregation and the materializer write each key at the same times.
    let sc = scenario("k", &format!("{force}SET 'table.exec.state.ttl' = '{TTL_MS} ms';\n{insert}"));
    let sim = run(sc.clone());
    let sink = operator(&sim, "SinkUpsertMaterializer");
    let samples = sim.metrics();
    let mut stored = Vec::new();
    for at in [5_000, 19_000] {
        let s = sample_at(&samples, at);
        let op = sink_of(s, sink);
        let live = last_writes(&sc, s.inputs).values().filter(|&&t| t + TTL_MS > s.time_ms).count() as u64;
        assert_eq!(op.list_rows, op.entries_stored, "one row per list at {} ms", s.time_ms);
        assert_eq!(op.entries_stored - op.entries_expired, live, "rows a read sees at {} ms", s.time_ms);
        assert_eq!(op.keys_visible, live);
        eprintln!("FORCE, TTL 1 s, {} ms: {live} live keys, {} rows stored", s.time_ms, op.list_rows);
        stored.push((live, op.list_rows));
    }
    let [(early_live, early), (late_live, late)] = stored[..] else { unreachable!() };
    assert_eq!((early_live, late_live), (EARLY_LIVE, LATE_LIVE));
    // Stored: the live rows and the expired lists the background cleanup (5 entries per state
    // access) has not reached yet: 1 311 and 1 286 here, under twice the live keys.
    assert!(early < 2 * early_live && late < 2 * late_live, "{early}/{early_live}, {late}/{late_live}");
    assert!(late * 100 <= early * 105 && early * 100 <= late * 105, "level: {early} then {late}");

    // A TTL on the aggregation only (the hint): the sink's lists never expire; an aggregation key
    // that expired comes back as +I, which replaces the key's row in place (its upsert key).
    let sc = scenario(
        "k",
        &format!("{force}{}", insert.replace("SELECT k", &format!("SELECT /*+ STATE_TTL('src' = '{TTL_MS} ms') */ k"))),
    );
    let sim = run(sc.clone());
    let (agg, sink) = (operator(&sim, "GroupAggFunction"), operator(&sim, "SinkUpsertMaterializer"));
    let samples = sim.metrics();
    for (at, seen) in [(5_000, EARLY_SEEN), (19_000, LATE_SEEN)] {
        let s = sample_at(&samples, at);
        let last = last_writes(&sc, s.inputs);
        assert_eq!(last.len() as u64, seen);
        let live = last.values().filter(|&&t| t + TTL_MS > s.time_ms).count() as u64;
        let op = sink_of(s, sink);
        assert_eq!((op.list_rows, op.entries_stored, op.entries_expired), (last.len() as u64, last.len() as u64, 0));
        assert_eq!(s.result_rows, last.len() as u64, "one sink row per key ever seen");
        assert_eq!(s.operators[agg].keys_visible, live);
        eprintln!("FORCE, hint TTL 1 s, {} ms: {} rows (keys seen), {live} live upstream", s.time_ms, op.list_rows);
    }
}
