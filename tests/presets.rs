//! The built-in presets reproduce the seed documents' worked examples and Flink's own harness
//! vector exactly. Runs natively (`cargo test`) and in the browser (`wasm-pack test`).

mod common;

use common::{emitted, run, text, timer_events};
use flink_state_sim::engine::presets::{load_preset, preset_json, PRESETS};
use flink_state_sim::engine::Simulation;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn t(what: &str, key: &str, at: &str) -> (String, String, String) {
    (what.into(), key.into(), at.into())
}

#[wasm_bindgen_test(unsupported = test)]
fn every_preset_is_valid() {
    for (name, _) in PRESETS {
        let s = load_preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.name, *name);
    }
}

/// Every preset says what to watch (the page shows it under the title, issue 17).
#[wasm_bindgen_test(unsupported = test)]
fn every_preset_says_what_to_watch() {
    for (name, _) in PRESETS {
        let s = load_preset(name).unwrap();
        assert!(s.watch.len() > 80, "{name} has no \"watch\" worth reading: {:?}", s.watch);
    }
}

/// The figures `what-if-100k-logins` tells the user to watch are the run's own.
#[wasm_bindgen_test(unsupported = test)]
fn the_what_if_preset_quotes_its_own_figures() {
    use flink_state_sim::engine::{SimOptions, TraceLevel};
    let scenario = load_preset("what-if-100k-logins").unwrap();
    let watch = scenario.watch.clone();
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(scenario, options);
    sim.run_to_end().unwrap();
    let s = sim.sample_now();
    let op = s.operators[0];
    // Thousands grouped with a space, as the watch text writes them.
    let n = |v: u64| {
        let d = v.to_string();
        let mut out = String::new();
        for (i, c) in d.chars().enumerate() {
            if i > 0 && (d.len() - i).is_multiple_of(3) {
                out.push(' ');
            }
            out.push(c);
        }
        out
    };
    for figure in [
        n(op.timers_registered as u64),
        n(op.timers_deleted as u64),
        n(op.timers_fired as u64),
        n(s.result_rows as u64),
        n(s.stale_rows as u64),
    ] {
        assert!(watch.contains(&format!("{figure} ")), "the watch text lacks {figure}: {watch}");
    }
}

/// Seed 001: min 1 day, max 2 days, one key at 11-20 15:00, 11-20 16:00, 11-21 16:00.
#[wasm_bindgen_test(unsupported = test)]
fn seed_001_one_day_two_days() {
    let sim = run(preset_json("seed-001-one-day-two-days").unwrap());
    assert_eq!(
        timer_events(&sim, "logins_per_user"),
        vec![
            t("timer_registered", "u1", "2019-11-22 15:00"),
            t("timer_registered", "u1", "2019-11-23 16:00"),
            t("timer_deleted", "u1", "2019-11-22 15:00"),
            t("timer_fired", "u1", "2019-11-23 16:00"),
        ]
    );
    let lines = text(&sim);
    let expect = [
        "2019-11-20 15:00  logins_per_user  key=u1  no cleanup time C yet → register now + max = 2019-11-20 15:00 + 2 d = 2019-11-22 15:00",
        "2019-11-20 16:00  logins_per_user  key=u1  now + min = 2019-11-21 16:00 <= C = 2019-11-22 15:00 → keep 2019-11-22 15:00",
        "2019-11-21 16:00  logins_per_user  key=u1  now + min = 2019-11-22 16:00 > C = 2019-11-22 15:00 → register 2019-11-23 16:00, delete 2019-11-22 15:00",
        "2019-11-23 16:00  logins_per_user  key=u1  timer fired for 2019-11-23 16:00",
        "2019-11-23 16:00  logins_per_user  key=u1  state cleared (GroupAggregateState, GroupAggregateInputCounter, CleanupTime): cleanup timer fired: cleanupState(state, cntState); nothing is emitted",
    ];
    for line in expect {
        assert!(lines.iter().any(|l| l == line), "missing line {line:?} in\n{}", lines.join("\n"));
    }
    assert_eq!(
        emitted(&sim, "logins_per_user"),
        ["(true,u1,1)", "(false,u1,1)", "(true,u1,2)", "(false,u1,2)", "(true,u1,3)"]
    );
    assert!(sim.operator_views()[0].keys.is_empty(), "the key's state is gone after the timer fired");
    assert_eq!(sim.time_format().format(sim.now()), "2019-11-24 00:00");
}

/// Flink 1.10 `KeyedProcessFunctionWithCleanupStateTest`, min 5 ms / max 10 ms.
#[wasm_bindgen_test(unsupported = test)]
fn cleanup_harness_min5_max10() {
    let mut sim = Simulation::new(load_preset("cleanup-harness-min5-max10").unwrap());
    for _ in 0..5 {
        sim.step().unwrap();
    }
    let cleanup = |sim: &Simulation| -> Vec<(String, Option<i64>)> {
        sim.operator_views()[0].keys.iter().map(|k| (k.key.clone(), k.cleanup_time_ms)).collect()
    };
    assert_eq!(
        cleanup(&sim),
        vec![("a".into(), Some(11)), ("b".into(), Some(18)), ("c".into(), Some(15))],
        "after t=8: a kept 11 (5 + 5 = 10 is not > 11), b moved to 18, c at 15"
    );
    assert_eq!(
        timer_events(&sim, "agg"),
        vec![
            t("timer_registered", "a", "11 ms"),
            t("timer_registered", "b", "11 ms"),
            t("timer_registered", "c", "15 ms"),
            t("timer_registered", "b", "18 ms"),
            t("timer_deleted", "b", "11 ms"),
        ]
    );
    sim.step().unwrap(); // advance to 11
    assert_eq!(cleanup(&sim), vec![("b".into(), Some(18)), ("c".into(), Some(15))]);
    sim.step().unwrap(); // 15
    assert_eq!(cleanup(&sim), vec![("b".into(), Some(18))]);
    sim.step().unwrap(); // 18
    assert!(cleanup(&sim).is_empty());
    let fired: Vec<_> = timer_events(&sim, "agg").into_iter().filter(|e| e.0 == "timer_fired").collect();
    assert_eq!(
        fired,
        vec![t("timer_fired", "a", "11 ms"), t("timer_fired", "c", "15 ms"), t("timer_fired", "b", "18 ms")]
    );
    assert!(sim.is_finished());
}

/// Seed 004 on the legacy planner: exactly the seed's messages.
#[wasm_bindgen_test(unsupported = test)]
fn seed_004_device_status_legacy() {
    let sim = run(preset_json("seed-004-device-status").unwrap());
    assert_eq!(emitted(&sim, "inner"), ["(true,dev1,1)", "(false,dev1,1)", "(true,dev1,0)"]);
    assert_eq!(emitted(&sim, "outer"), ["(true,1,1)", "(false,1,1)", "(true,0,1)"]);
    assert_eq!(sim.result().rows().map(|r| r.row.join(",")).collect::<Vec<_>>(), ["0,1"]);
}

/// Seed 004 on Flink 2.3: what real Flink 2.3 emits (shared/oracle/device_status_lastvalue_nottl).
#[wasm_bindgen_test(unsupported = test)]
fn seed_004_device_status_flink_2_3() {
    let sim = run(preset_json("seed-004-device-status-flink-2.3").unwrap());
    assert_eq!(emitted(&sim, "inner"), ["+I[dev1, 1]", "-U[dev1, 1]", "+U[dev1, 0]"]);
    assert_eq!(emitted(&sim, "outer"), ["+I[1, 1]", "-D[1, 1]", "+I[0, 1]"]);
}

/// Running a scenario twice gives the same trace (the engine has no clock and no randomness):
/// every preset's first 2 000 steps with the full trace (the workload presets go on for hundreds
/// of thousands; the whole of `what-if-100k-logins` is pinned below).
#[wasm_bindgen_test(unsupported = test)]
fn runs_are_deterministic() {
    fn first_steps(json: &str) -> Simulation {
        let mut sim = Simulation::from_json(json).unwrap();
        while sim.can_step() && sim.next_step() < 2_000 {
            sim.step().unwrap();
        }
        sim
    }
    for (name, json) in PRESETS {
        let once = first_steps(json);
        assert!(once.next_step() > 0, "{name}");
        assert_eq!(text(&once), text(&first_steps(json)), "{name}");
    }
}

/// The seeded workload generates the same events natively and in the browser: the end state of
/// `what-if-100k-logins`, pinned (the same numbers under `cargo test` and `wasm-pack test`).
#[wasm_bindgen_test(unsupported = test)]
fn the_workload_preset_is_the_same_on_every_platform() {
    use flink_state_sim::engine::{SimOptions, TraceLevel};
    let scenario = load_preset("what-if-100k-logins").unwrap();
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(scenario, options);
    sim.run_to_end().unwrap();
    let s = sim.sample_now();
    let op = s.operators[0];
    assert_eq!((s.inputs, s.result_rows, s.stale_rows), (100_000, 18_306, 9_219));
    assert_eq!((op.keys, op.timers_registered, op.timers_deleted, op.timers_fired), (9_087, 23_682, 5_376, 9_219));
    assert_eq!((op.emitted.accumulate, op.emitted.retract), (100_000, 81_694));
    let first: Vec<String> = sim.result().rows().take(3).map(|r| r.row.join(",")).collect();
    assert_eq!(first, ["user-14413,3", "user-25,375", "user-7,1382"]);
}

/// The trace of a window of actions, produced by replay, is what a straight run with the whole
/// trace recorded for those actions.
#[wasm_bindgen_test(unsupported = test)]
fn the_trace_of_a_window_is_produced_by_replay() {
    use flink_state_sim::engine::{SimOptions, TraceLevel};
    let scenario = load_preset("cleanup-harness-min5-max10").unwrap();
    let mut whole = Simulation::new(scenario.clone());
    whole.run_to_end().unwrap();
    let windowed = SimOptions { trace: TraceLevel::Full, keep_actions: Some(1), time_travel: true };
    let mut sim = Simulation::with_options(scenario, windowed);
    sim.run_to_end().unwrap();
    assert!(sim.trace().iter().all(|e| e.action + 1 == sim.action_count()), "only the last action's entries are kept");
    let expected: Vec<_> = whole.trace().iter().filter(|e| (2..5).contains(&e.action)).cloned().collect();
    assert!(!expected.is_empty());
    assert_eq!(sim.trace_window(2, 5).unwrap(), expected);
}

/// Seed 002, the DAU query over a week of logins: one TTL of 3 days for the whole query forgets
/// u1's first login when u1 comes back on Thursday, 3 d 1 h later, and counts u1 as new again;
/// with the TTL on the GROUP BY alone (the `STATE_TTL` hint, table.exec.state.ttl = 0) it does not.
#[wasm_bindgen_test(unsupported = test)]
fn seed_002_dau_new_users_global_and_per_operator_ttl() {
    let global = run(preset_json("seed-002-dau-new-users-global-ttl").unwrap());
    let per_op = run(preset_json("seed-002-dau-new-users-per-operator-ttl").unwrap());
    let rows = |sim: &Simulation| sim.result().rows().map(|r| r.row.join(",")).collect::<Vec<_>>();
    let week = |thursday: &'static str| {
        [
            "2019-11-18,2,2",
            "2019-11-19,2,1",
            "2019-11-20,2,0",
            thursday,
            "2019-11-22,2,0",
            "2019-11-23,1,0",
            "2019-11-24,1,0",
        ]
    };
    assert_eq!(rows(&global), week("2019-11-21,3,2"), "u1 and u4 counted as new on Thursday");
    assert_eq!(rows(&per_op), week("2019-11-21,3,1"), "u4 only");
    let expired =
        "2019-11-21 10:00  OverAggregate[3]  key=u1  accState expired: last access 2019-11-18 09:00 + ttl = 2019-11-21 09:00 \
                   <= now → removed on read, the key starts empty";
    assert!(text(&global).iter().any(|l| l == expired), "{:#?}", text(&global));
    assert!(!text(&per_op).iter().any(|l| l.contains("accState expired")), "the OVER window keeps its state");
    let dau = "GroupAggregate(groupBy=[t_date], select=[t_date, COUNT(DISTINCT user_id) AS cnt_login, \
               COUNT(DISTINCT new_user_id) AS cnt_new]";
    assert_eq!(global.operator_views()[3].plan, format!("{dau})"));
    assert_eq!(per_op.operator_views()[3].plan, format!("{dau}, stateTtlHints=[[[STATE_TTL options:[3 d]]]])"));
    // At the end (Monday 00:00): the OVER window's users have no TTL, the days have 3 days.
    let views = per_op.operator_views();
    assert!(views[1].keys.iter().all(|k| k.ttl.is_none()), "operator OverAggregate[3] (t): no state TTL");
    let monday = views[3].keys.iter().find(|k| k.key == "2019-11-18").unwrap().ttl.unwrap();
    assert_eq!(per_op.time_format().format(monday.expires_at_ms), "2019-11-21 10:00");
    assert!(monday.expired);
}

/// The check files of seed 002 (`tests/scenarios/seeds/`, whose `expect` the `check` test runs)
/// run exactly their preset: only the texts for people differ.
#[wasm_bindgen_test(unsupported = test)]
fn seed_002_check_files_run_their_presets() {
    let pairs = [
        ("seed-002-dau-new-users-global-ttl", include_str!("scenarios/seeds/seed-002-dau-new-users-global-ttl.json")),
        (
            "seed-002-dau-new-users-per-operator-ttl",
            include_str!("scenarios/seeds/seed-002-dau-new-users-per-operator-ttl.json"),
        ),
    ];
    let run_part = |json: &str| {
        let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
        let obj = v.as_object_mut().unwrap();
        for people in ["title", "description", "watch", "expect"] {
            obj.remove(people);
        }
        v
    };
    for (name, check) in pairs {
        assert_eq!(run_part(preset_json(name).unwrap()), run_part(check), "{name}");
    }
}

/// `upsert-sink-on-conflict`: the sink's `SinkUpsertMaterializer` keeps one row per user
/// currently in a city, under the city, and the result holds each city's latest user.
#[wasm_bindgen_test(unsupported = test)]
fn upsert_sink_on_conflict_keeps_every_row_per_primary_key() {
    let mut sim = Simulation::new(load_preset("upsert-sink-on-conflict").unwrap());
    let values = |sim: &Simulation, city: &str| -> Option<(String, usize)> {
        let views = sim.operator_views();
        let sink = views.last().unwrap();
        assert_eq!(sink.state_names, ["values"]);
        let key = sink.keys.iter().find(|k| k.key == city)?;
        key.states[0].as_ref().map(|c| (c.value.clone(), c.entries))
    };
    let mut paris = Vec::new();
    for _ in 0..3 {
        sim.step().unwrap();
        paris.push(values(&sim, "Paris").unwrap().1);
    }
    assert_eq!(paris, [1, 2, 3], "Paris's state grows with every user living there");
    assert_eq!(values(&sim, "Paris").unwrap().0, "[u1, Paris], [u2, Paris], [u3, Paris]");
    sim.run_to_end().unwrap();
    assert_eq!(values(&sim, "Paris"), None, "the last user left Paris: -D, the key's state cleared");
    assert_eq!(values(&sim, "Berlin").unwrap().0, "[u1, Berlin], [u2, Berlin], [u4, Berlin]");
    assert_eq!(emitted(&sim, "Sink[3]").last().map(String::as_str), Some("+U[u4, Berlin]"));
    let result: Vec<String> = sim.result().rows().map(|r| r.row.join(", ")).collect();
    assert_eq!(result, ["u4, Berlin", "u3, Rome"]);
}
