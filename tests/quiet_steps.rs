//! "Hide steps that changed nothing": which steps of the presets are quiet, as the engine decides
//! (`engine::quiet::changed_something`), that a quiet step leaves every view as it was, and
//! stepping past quiet steps forward and back.

use flink_state_sim::engine::presets::{load_preset, PRESETS};
use flink_state_sim::engine::simulation::{PastQuiet, QuietStop};
use flink_state_sim::engine::Simulation;

fn sim(preset: &str) -> Simulation {
    Simulation::new(load_preset(preset).unwrap())
}

/// The 1-based numbers of the quiet steps among the first `n` of `preset`.
fn quiet_steps(preset: &str, n: usize) -> Vec<usize> {
    let mut sim = sim(preset);
    let mut quiet = Vec::new();
    for i in 0..n {
        if !sim.can_step() {
            break;
        }
        sim.step().unwrap();
        match sim.is_quiet(i) {
            Some(true) => quiet.push(i + 1),
            Some(false) => {}
            None => panic!("{preset}: step {} not recorded", i + 1),
        }
    }
    quiet
}

#[test]
fn the_quiet_steps_of_the_presets_are_exactly_these() {
    // A row that cannot enter the top N, where no cleanup timer is involved (state cleaning off):
    // 10:05 o1, 11:30 o1, 13:10 o2; then step 6, an advance to 16:00 with no timer due.
    assert_eq!(quiet_steps("seed-000-topn-dedup-no-retention", 6), vec![2, 4, 5, 6]);
    // With retention the cleanup rule re-registers at 11:30 (a timer is a change) and o2's state
    // was cleared at 12:10, so 13:10 enters again: only 10:05 is quiet (the rule keeps C).
    assert_eq!(quiet_steps("seed-000-topn-dedup", 6), vec![2]);
    // An advance with no timer due, before any state expires (the hint's TTL is longer)...
    assert_eq!(quiet_steps("dimension-expires-left-join-hint", 100), vec![3]);
    // ... and the same advance where the right side's state TTL runs out on the way: its
    // entries expire (drawn grey, invisible to reads) without any trace entry.
    assert_eq!(quiet_steps("dimension-expires-left-join", 100), Vec::<usize>::new());
    // An advance at the end of seed 002 lets the last days' counts expire and their result rows
    // go stale.
    assert_eq!(quiet_steps("seed-002-dau-new-users-global-ttl", 100), Vec::<usize>::new());
    // A duplicate ChangelogNormalize drops without a state write (TTL off).
    assert_eq!(quiet_steps("upsert-source-normalize", 100), vec![4]);
    // D = 5 cannot enter the top 2.
    assert_eq!(quiet_steps("sql-top2-per-group-with-rank", 100), vec![4]);
    // Every step of seed 001 writes the count (and its timers).
    assert_eq!(quiet_steps("seed-001-one-day-two-days", 100), Vec::<usize>::new());
    // A keep-last-row duplicate is stored anyway (Flink updates the state before comparing), and
    // an unchanged aggregate still writes its accumulators: not quiet.
    assert_eq!(quiet_steps("sql-dedup-keep-last-heap", 100), Vec::<usize>::new());
    assert_eq!(quiet_steps("sql-min-max-distinct", 100), Vec::<usize>::new());
}

#[test]
fn a_quiet_step_leaves_the_state_the_timers_and_the_result_as_they_were() {
    let mut checked = 0;
    for (name, _) in PRESETS {
        let mut sim = sim(name);
        for i in 0..300 {
            if !sim.can_step() {
                break;
            }
            let before = (sim.operator_views(), sim.result().rows().cloned().collect::<Vec<_>>(), sim.next_timer_ms());
            sim.step().unwrap();
            if sim.is_quiet(i) == Some(true) {
                let after =
                    (sim.operator_views(), sim.result().rows().cloned().collect::<Vec<_>>(), sim.next_timer_ms());
                assert_eq!(before, after, "{name}: step {} is quiet but changed a view", i + 1);
                checked += 1;
            }
        }
    }
    println!("{checked} quiet steps checked");
    assert!(checked >= 8, "only {checked} quiet steps checked");
}

#[test]
fn step_passes_quiet_steps_and_says_how_many() {
    let mut s = sim("seed-000-topn-dedup-no-retention");
    let always = |_| true;
    assert_eq!(s.step_past_quiet(always).unwrap(), PastQuiet { passed: 0, stop: QuietStop::Changed });
    assert_eq!(s.next_step(), 1);
    // Step 2 quiet, step 3 changes.
    assert_eq!(s.step_past_quiet(always).unwrap(), PastQuiet { passed: 1, stop: QuietStop::Changed });
    assert_eq!(s.next_step(), 3);
    // Steps 4, 5 and 6 (the advance) quiet, step 7 (order-1) changes.
    assert_eq!(s.step_past_quiet(always).unwrap(), PastQuiet { passed: 3, stop: QuietStop::Changed });
    assert_eq!(s.next_step(), 7);
    // Back: undoes step 7 and passes 6, 5, 4: the page shows step 3 again.
    assert_eq!(s.back_past_quiet().unwrap(), 3);
    assert_eq!(s.action_count(), 3);
    // Back again: undoes step 3 and passes step 2.
    assert_eq!(s.back_past_quiet().unwrap(), 1);
    assert_eq!(s.action_count(), 1);
    assert_eq!(s.back_past_quiet().unwrap(), 0);
    assert_eq!(s.action_count(), 0);
    assert!(s.back_past_quiet().unwrap_err().0.contains("start of the run"));
    // Redone after the seeks back: the same answers.
    for _ in 0..7 {
        s.step().unwrap();
    }
    let quiet: Vec<bool> = (0..7).map(|i| s.is_quiet(i).unwrap()).collect();
    assert_eq!(quiet, vec![false, true, false, true, true, true, false]);
}

#[test]
fn a_budget_stops_the_skip_and_the_end_of_the_run_too() {
    let mut s = sim("seed-000-topn-dedup-no-retention");
    s.step().unwrap();
    s.step().unwrap();
    s.step().unwrap();
    // Asked once (after step 4, quiet): no more.
    let mut asked = Vec::new();
    let out = s.step_past_quiet(|passed| {
        asked.push(passed);
        false
    });
    assert_eq!(out.unwrap(), PastQuiet { passed: 1, stop: QuietStop::Budget });
    assert_eq!(asked, vec![1]);
    assert_eq!(s.next_step(), 4);
    // A run whose last steps are quiet ends there: the preset's first six steps alone.
    let mut json: serde_json::Value = serde_json::from_str(
        flink_state_sim::engine::presets::preset_json("seed-000-topn-dedup-no-retention").unwrap(),
    )
    .unwrap();
    json.as_object_mut().unwrap().remove("workload");
    json["steps"].as_array_mut().unwrap().truncate(6);
    let mut s = Simulation::from_json(&json.to_string()).unwrap();
    assert_eq!(s.step_count(), 6);
    for _ in 0..3 {
        s.step().unwrap();
    }
    assert_eq!(s.step_past_quiet(|_| true).unwrap(), PastQuiet { passed: 3, stop: QuietStop::End });
    assert!(!s.can_step());
}

#[test]
fn another_path_forgets_what_the_old_one_recorded() {
    let mut s = sim("seed-000-topn-dedup-no-retention");
    for _ in 0..6 {
        s.step().unwrap();
    }
    s.go_to(1).unwrap();
    // An advance instead of step 2: the recorded steps after it are forgotten.
    s.advance_by(60_000).unwrap();
    assert_eq!(s.is_quiet(1), Some(true), "an advance with no timer due is quiet");
    assert_eq!(s.is_quiet(2), None);
}
