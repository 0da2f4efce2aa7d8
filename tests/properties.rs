#![cfg(not(target_arch = "wasm32"))]
//! Property tests: random small scenarios driven by random action sequences keep the engine's
//! invariants (timers, the result table, time travel, trace levels). The generators are in
//! `tests/props/`; that no malformed input panics is `tests/no_panic.rs`.
//!
//! Each property runs a few hundred cases by default (the whole file takes well under a minute
//! in a debug build); `PROPTEST_CASES=N` overrides the count for every property. Failing cases
//! are not persisted to files: proptest prints the minimal input, copy it into a regression test.

mod props;

use flink_state_sim::engine::row::Row;
use flink_state_sim::engine::trace::{TraceEntry, TraceEvent};
use flink_state_sim::engine::{Action, Scenario, SimOptions, Simulation, TraceLevel};
use props::*;
use proptest::prelude::*;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn at_most_one_cleanup_timer_per_key(spec in spec_with(true), acts in acts(40)) {
        let mut sim = spec.sim(FULL);
        drive(&mut sim, &spec, &acts, |sim| {
            for op in sim.operator_views() {
                for k in &op.keys {
                    assert!(
                        k.timers_ms.len() <= 1,
                        "operator {} key {} holds timers {:?} at {}", op.id, k.key, k.timers_ms, sim.now()
                    );
                    // The one timer is the stored cleanup time C.
                    if let Some(&t) = k.timers_ms.first() {
                        assert_eq!(k.cleanup_time_ms, Some(t), "operator {} key {}", op.id, k.key);
                    }
                }
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// (b) A timer fires at most once, and only if it was registered and not deleted.
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn timers_fire_once_and_only_when_registered(spec in spec(), acts in acts(40)) {
        let mut sim = spec.sim(FULL);
        drive(&mut sim, &spec, &acts, |_| {});
        type TimerKey = (String, Row);
        let mut live: BTreeMap<TimerKey, BTreeSet<i64>> = BTreeMap::new();
        let mut fired: BTreeSet<(String, Row, i64)> = BTreeSet::new();
        for e in sim.trace() {
            let Some(key) = &e.key else { continue };
            let at = (e.op.to_string(), key.clone());
            match e.event {
                TraceEvent::TimerRegistered { timer_ms } => {
                    live.entry(at).or_default().insert(timer_ms);
                }
                TraceEvent::TimerDeleted { timer_ms } => {
                    let removed = live.get_mut(&at).is_some_and(|s| s.remove(&timer_ms));
                    prop_assert!(removed, "{at:?}: deleted timer {timer_ms} was not registered");
                }
                TraceEvent::TimerFired { timer_ms } => {
                    prop_assert!(e.time_ms == timer_ms, "{at:?}: timer {timer_ms} fired at {}", e.time_ms);
                    let registered = live.get_mut(&at).is_some_and(|s| s.remove(&timer_ms));
                    prop_assert!(registered, "{at:?}: fired timer {timer_ms} was not registered, or was deleted");
                    prop_assert!(fired.insert((at.0, at.1, timer_ms)), "timer {timer_ms} fired twice");
                }
                _ => {}
            }
        }
        // What the trace leaves registered is exactly what the operators hold.
        let from_trace: BTreeSet<(String, Row, i64)> =
            live.into_iter().flat_map(|((op, key), ts)| ts.into_iter().map(move |t| (op.clone(), key.clone(), t))).collect();
        let held: BTreeSet<(String, Row, i64)> = sim
            .operator_views()
            .into_iter()
            .flat_map(|op| {
                op.keys.into_iter().flat_map(move |k| {
                    let id = op.id.clone();
                    k.timers_ms.into_iter().map(move |t| (id.clone(), k.row.clone(), t))
                })
            })
            .collect();
        prop_assert_eq!(from_trace, held);
        if !spec.legacy() {
            prop_assert!(fired.is_empty(), "Flink 2.3's GroupAggFunction uses no timers");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// (c) The result table is the fold of the last operator's changelog.
// ---------------------------------------------------------------------------------------------

/// The rows of the result the last operator's emitted changelog makes, sorted.
///
/// A retract result is a multiset: an accumulate adds a row, a retraction removes one equal row
/// if there is one. An upsert result holds one row per unique key (the leading `key_len`
/// columns): an accumulate replaces the key's row, a retraction deletes it (a row gone stale is
/// still the key's row: the key's next row overwrites it).
fn fold_changelog(sim: &Simulation) -> Vec<Row> {
    let last = sim.scenario().operators.last().unwrap();
    let upsert = sim.result().upsert;
    let key_len = last.spec.unique_key_len();
    let key_of = |row: &Row| -> Row { row.0[..key_len].iter().cloned().collect() };
    let mut rows: Vec<Row> = Vec::new();
    for e in sim.trace().iter().filter(|e| *e.op == *last.id) {
        match &e.event {
            TraceEvent::Emitted { message: m } if upsert => {
                let key = key_of(&m.row);
                let at = rows.iter().position(|r| key_of(r) == key);
                match (m.change.is_accumulate(), at) {
                    (true, Some(i)) => rows[i] = m.row.clone(),
                    (true, None) => rows.push(m.row.clone()),
                    (false, Some(i)) => {
                        rows.remove(i);
                    }
                    (false, None) => {}
                }
            }
            TraceEvent::Emitted { message: m } => {
                if m.change.is_accumulate() {
                    rows.push(m.row.clone());
                } else if let Some(i) = rows.iter().position(|r| *r == m.row) {
                    rows.remove(i);
                }
            }
            _ => {}
        }
    }
    rows.sort();
    rows
}

fn result_rows(sim: &Simulation) -> Vec<Row> {
    let mut rows: Vec<Row> = sim.result().rows().map(|r| r.row.clone()).collect();
    rows.sort();
    rows
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn result_is_the_fold_of_the_last_changelog(spec in spec(), acts in acts(40)) {
        let mut sim = spec.sim(FULL);
        drive(&mut sim, &spec, &acts, |_| {});
        // An operator failure stops the pipeline part-way through a batch: the trace then holds
        // messages the result never got. Generated scenarios do not fail; skip if one does.
        prop_assume!(sim.failure().is_none());
        prop_assert_eq!(result_rows(&sim), fold_changelog(&sim), "upsert: {}", sim.result().upsert);
    }
}

// ---------------------------------------------------------------------------------------------
// (d) seek(k) is a straight run of the first k actions.
// ---------------------------------------------------------------------------------------------

/// A simulation that carried out exactly `actions`.
fn straight(scenario: &Scenario, options: SimOptions, actions: &[Action]) -> Simulation {
    let mut sim = Simulation::with_options(scenario.clone(), options);
    for (i, &a) in actions.iter().enumerate() {
        let _ = sim.act(a);
        assert_eq!(sim.action_count(), i + 1, "a recorded action {a:?} was refused on replay");
    }
    sim
}

/// The trace entries of the window `sim` keeps: all of them, or the last `keep` actions'.
///
/// A straight run drops entries older than the window lazily (when they are at least half the
/// trace), a seek drops them all, so `trace()` itself can differ by entries older than the
/// window (see `known_bug_seek_trace_differs_from_a_straight_run_outside_the_window`).
fn kept_window(sim: &Simulation) -> &[TraceEntry] {
    let from = match sim.options().keep_actions {
        None => 0,
        Some(keep) => sim.action_count().saturating_sub(keep),
    };
    let trace = sim.trace();
    &trace[trace.partition_point(|e| e.action < from)..]
}

fn assert_same(sim: &Simulation, fresh: &Simulation, what: &str) {
    assert_eq!(sim.action_count(), fresh.action_count(), "{what}: action count");
    assert_eq!(sim.state_dump(), fresh.state_dump(), "{what}: state");
    assert_eq!(sim.last_action(), fresh.last_action(), "{what}: last action");
    assert_eq!(sim.last_action_entries(), fresh.last_action_entries(), "{what}: last action's entries");
    assert_eq!(kept_window(sim), kept_window(fresh), "{what}: kept trace");
    assert_eq!(sim.trace(), fresh.trace(), "{what}: trace");
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn seek_equals_a_straight_run(
        spec in spec(),
        acts in acts(30),
        (trace, keep) in prop_oneof![
            2 => Just((TraceLevel::Full, None)),
            2 => (1usize..=4).prop_map(|k| (TraceLevel::Full, Some(k))),
            1 => Just((TraceLevel::Metrics, None)),
        ],
        targets in prop::collection::vec(any::<prop::sample::Index>(), 1..6),
        detour in acts(6),
    ) {
        let options = SimOptions { trace, keep_actions: keep, time_travel: true };
        let mut sim = spec.sim(options);
        drive(&mut sim, &spec, &acts, |_| {});
        let history = sim.history().to_vec();
        let n = history.len();
        prop_assert_eq!(n, sim.action_count());
        let end_dump = sim.state_dump();
        for target in &targets {
            let k = target.index(n + 1);
            sim.seek(k).unwrap();
            assert_same(&sim, &straight(sim.scenario(), options, &history[..k]), &format!("seek({k}) of {n}"));
        }
        // Back to the end: the state before the seeks.
        sim.seek(n).unwrap();
        prop_assert_eq!(sim.state_dump(), end_dump);
        // A different future from a seek back replaces the recorded one.
        let k = targets[0].index(n + 1);
        sim.seek(k).unwrap();
        drive(&mut sim, &spec, &detour, |_| {});
        let new_history = sim.history().to_vec();
        prop_assert_eq!(&new_history[..k], &history[..k]);
        assert_same(&sim, &straight(sim.scenario(), options, &new_history[..sim.action_count()]), "after a detour");
        let m = targets[targets.len() - 1].index(sim.history().len() + 1);
        sim.seek(m).unwrap();
        assert_same(&sim, &straight(sim.scenario(), options, &sim.history()[..m]), "seek after a detour");
    }
}

/// A scenario of `spec` followed by a workload of `events` generated inputs, `rate` a second.
fn with_workload(spec: &Spec, seed: u64, events: usize, rate: u64) -> Scenario {
    let mut v = spec.to_value();
    v["workload"] = json!({
        "seed": seed, "events": events, "rate": rate, "keys": 4, "key_column": "k", "key_prefix": "w",
        "columns": {"v": {"uniform": [-3, 5]}},
    });
    Scenario::from_json(&v.to_string()).unwrap_or_else(|e| panic!("the generated scenario is invalid: {e}\n{v}"))
}

proptest! {
    // Long runs: time travel keeps a checkpoint every 2048 actions at first, so seeking here
    // restores one (the short runs above always replay from the start).
    #![proptest_config(config(24))]

    #[test]
    fn seek_across_checkpoints_equals_a_straight_run(
        spec in spec(),
        seed in any::<u64>(),
        rate in prop_oneof![Just(1000u64), 1u64..=2000],
        n in 2100usize..3000,
        // Time advances among the steps, after the first checkpoint (an advance past the next
        // event's time blocks the rest, and the run must pass 2048 actions).
        extra in prop::collection::vec((2100usize..3000, acts(2)), 0..6),
        // A seek restores the nearest checkpoint before the first action whose trace it must
        // rebuild: with the whole trace kept, that is the start.
        (trace, keep) in prop_oneof![
            1 => Just((TraceLevel::Full, None)),
            3 => (1usize..=40).prop_map(|k| (TraceLevel::Full, Some(k))),
            1 => Just((TraceLevel::Full, Some(3000))),
            3 => Just((TraceLevel::Metrics, None)),
        ],
        targets in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>()), 1..5),
    ) {
        let scenario = with_workload(&spec, seed, n, rate);
        let options = SimOptions { trace, keep_actions: keep, time_travel: true };
        let mut sim = Simulation::with_options(scenario, options);
        let mut plan: Vec<Act> = vec![Act::Step; n];
        for (at, acts) in &extra {
            let at = (*at).min(plan.len());
            plan.splice(at..at, acts.iter().copied());
        }
        drive(&mut sim, &spec, &plan, |_| {});
        let history = sim.history().to_vec();
        let n = history.len();
        prop_assert!(n > 2048, "{n} actions");
        for (target, after_checkpoint) in &targets {
            let k = if *after_checkpoint { 2048 + target.index(n - 2048 + 1) } else { target.index(n + 1) };
            sim.seek(k).unwrap();
            assert_same(&sim, &straight(sim.scenario(), options, &history[..k]), &format!("seek({k}) of {n}"));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// (e) The `metrics` and `full` trace levels end in the same state.
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn trace_levels_end_in_the_same_state(spec in spec(), acts in acts(40)) {
        let step_times = spec.step_times();
        let run = |options: SimOptions| {
            let mut sim = spec.sim(options);
            let mut outcomes = vec![];
            for a in &acts {
                let action = a.action(&sim, &step_times);
                outcomes.push((action, sim.act(action)));
            }
            (sim, outcomes)
        };
        let (full, full_outcomes) = run(FULL);
        let (metrics, metrics_outcomes) = run(METRICS);
        prop_assert_eq!(full_outcomes, metrics_outcomes);
        prop_assert_eq!(full.state_dump(), metrics.state_dump());
        prop_assert!(metrics.trace().is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// (f) No input panics.
// ---------------------------------------------------------------------------------------------
/// An upsert result (the last operator has `generate_update_before: false`) holds one row per
/// key: when the key's state was lost (cleanup timer, or state TTL), its stale row is overwritten
/// by the key's next row, as an upsert sink keyed on the grouping key overwrites it. (It used to
/// add the new row beside the stale one.)
#[test]
fn upsert_result_holds_one_row_per_key_after_state_loss() {
    for retention in [
        r#""flink": "1.10-legacy", "idle_state_retention": {"min": 2, "max": 2, "test_harness": true}"#,
        r#""flink": "2.3", "state_ttl": 2"#,
    ] {
        let json = format!(
            r#"{{"name": "upsert-stale", {retention},
                "source": {{"name": "src", "schema": [["k", "STRING"]]}},
                "pipeline": [{{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
                               "aggregates": [{{"function": "COUNT", "args": ["*"], "as": "cnt"}}],
                               "generate_update_before": false}}],
                "steps": [{{"at": 0, "row": ["b"]}}, {{"at": 2, "row": ["b"]}}]}}"#
        );
        let mut sim = Simulation::from_json(&json).unwrap();
        sim.run_to_end().unwrap();
        assert!(sim.result().upsert);
        let rows: Vec<String> = sim
            .result()
            .rows()
            .map(|r| format!("{}{}", r.row.join(","), if r.stale_since_ms.is_some() { " (stale)" } else { "" }))
            .collect();
        assert_eq!(rows.len(), 1, "{retention}: one row per key in an upsert result, found {rows:?}");
        assert_eq!(result_rows(&sim), fold_changelog(&sim), "{retention}");
    }
}

/// With a kept window (`keep_actions: Some(n)`), `trace()` after `seek(k)` is the `trace()` of a
/// straight run to `k`. (A straight run dropped old entries lazily and a seek eagerly, so the two
/// used to differ outside the window.)
#[test]
fn seek_trace_equals_a_straight_run_with_a_kept_window() {
    let json = flink_state_sim::engine::presets::preset_json("cleanup-harness-min5-max10").unwrap();
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: Some(2), time_travel: true };
    let run = |n: usize| {
        let mut sim = Simulation::with_options(Scenario::from_json(json).unwrap(), options);
        for _ in 0..n {
            sim.step().unwrap();
        }
        sim
    };
    let mut sim = run(5);
    sim.seek(3).unwrap();
    let straight = run(3);
    assert_eq!(kept_window(&sim), kept_window(&straight), "the window itself is equal");
    let actions = |s: &Simulation| s.trace().iter().map(|e| e.action).collect::<BTreeSet<_>>();
    assert_eq!(actions(&sim), actions(&straight), "actions whose entries trace() holds");
}
