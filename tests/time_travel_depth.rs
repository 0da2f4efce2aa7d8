//! What a step back costs at depth, counted in actions replayed (not in wall-clock time, which
//! depends on the machine): of `b` consecutive Backs at most `1 + b / LADDER_SPACING` replay more
//! than [`LADDER_SPACING`] actions (the ladder, `engine/time_travel.rs`), at 50 k actions as at
//! 200 k, where the run's own checkpoints are 4× further apart; between two rungs, the Backs
//! replay from the fine rungs the Backs before them laid, a few actions each. The state after a
//! Back from a rung is exactly a straight run's.
use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::engine::time_travel::{FINE_MAX, LADDER_SPACING, SCRUB_LADDER_AFTER};
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};

/// The page's trace window (`ui::state::TRACE_WINDOW_ACTIONS`, compiled for wasm only).
const WINDOW: usize = 400;

fn options() -> SimOptions {
    SimOptions { trace: TraceLevel::Full, keep_actions: Some(WINDOW), time_travel: true }
}

/// The 100 k-login preset's workload with `events` events over 500 users.
fn logins(events: u64) -> Scenario {
    logins_of(events, 500)
}

/// The 100 k-login preset's workload with `events` events over `keys` regular users.
fn logins_of(events: u64, keys: u64) -> Scenario {
    let json = PRESETS.iter().find(|(n, _)| *n == "what-if-100k-logins").unwrap().1;
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    value["workload"]["events"] = events.into();
    value["workload"]["keys"] = keys.into();
    Scenario::from_json(&value.to_string()).unwrap()
}

fn ran(events: u64) -> Simulation {
    ran_of(logins(events), events)
}

fn ran_of(scenario: Scenario, events: u64) -> Simulation {
    let mut sim = Simulation::with_options(scenario, options());
    while sim.can_step() {
        sim.step().unwrap();
    }
    assert_eq!(sim.action_count() as u64, events);
    sim
}

/// `backs` consecutive Backs from the end of `events` actions (the engine's `metrics` trace, so
/// a Back replays from the checkpoint before its target): returns (the most actions one
/// replayed, how many replayed more than `LADDER_SPACING`). Every replay stays within the run's
/// checkpoint spacing.
fn consecutive_backs(events: u64, backs: usize) -> (usize, usize, usize) {
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: true };
    let mut sim = Simulation::with_options(logins(events), options);
    while sim.can_step() {
        sim.step().unwrap();
    }
    let spacing = sim.checkpoint_stats().1;
    let (mut worst, mut long) = (0, 0);
    for _ in 0..backs {
        sim.step_back().unwrap();
        let replayed = sim.last_replay_len();
        assert!(replayed <= spacing, "a Back replayed {replayed} actions, more than the spacing {spacing}");
        worst = worst.max(replayed);
        long += usize::from(replayed > LADDER_SPACING);
    }
    assert_eq!(sim.action_count() as u64, events - backs as u64);
    println!("{events} actions, checkpoints {spacing} apart: {backs} Backs replayed at most {worst}, {long} more than {LADDER_SPACING}");
    (spacing, worst, long)
}

#[test]
fn backs_replay_a_bounded_number_of_actions_whatever_the_depth() {
    let backs = LADDER_SPACING + 76;
    let allowed = 1 + backs / LADDER_SPACING;
    let (shallow_spacing, _, shallow_long) = consecutive_backs(50_000, backs);
    let (deep_spacing, deep_worst, deep_long) = consecutive_backs(200_000, backs);
    assert!(shallow_long <= allowed, "{shallow_long} long replays in {backs} Backs at 50 k");
    assert!(deep_long <= allowed, "{deep_long} long replays in {backs} Backs at 200 k");
    // The run's own checkpoints spread with depth (the first Back replays up to that far), the
    // others did not.
    assert!(deep_spacing >= 4 * shallow_spacing, "spacing {deep_spacing} at 200 k, {shallow_spacing} at 50 k");
    assert!(deep_worst > LADDER_SPACING, "the first Back at 200 k replays from a checkpoint far behind");
}

#[test]
fn a_back_from_a_rung_gives_a_straight_runs_state_and_trace() {
    // 20 k actions: checkpoints every 2048. A Back to 18 430 (its trace from 18 030: the trace a
    // seek to 18 431 kept starts at 18 031) replays from 16 384 and lays a rung below its own
    // target, at 17 406; a Back to 17 905 (trace from 17 505, after a seek that kept it from
    // 17 506) replays from that rung.
    let mut sim = ran(20_000);
    sim.go_to(18_431).unwrap();
    sim.step_back().unwrap();
    assert_eq!(sim.last_replay_len(), 18_430 - 16_384);
    sim.go_to(17_906).unwrap();
    sim.step_back().unwrap();
    assert_eq!(sim.last_replay_len(), 17_905 - 17_406);
    let mut straight = Simulation::with_options(logins(20_000), options());
    while straight.action_count() < 17_905 {
        straight.step().unwrap();
    }
    assert_eq!(sim.action_count(), 17_905);
    assert_eq!(sim.trace(), straight.trace());
    assert_eq!(sim.metrics(), straight.metrics());
    assert_eq!(sim.now(), straight.now());
    assert!(sim.result().rows().eq(straight.result().rows()));
    assert_eq!(sim.sample_now(), straight.sample_now());
}

/// Backs one after another keep the trace they need: a Back that must trace (its window starts
/// before the kept trace) traces up to a window more, from the checkpoint it restores anyway,
/// and the Backs after it drop the entries of the actions undone and replay untraced from the
/// rung below their own target (at most a ladder's spacing, not a spacing and a window). Each
/// position's trace, state and metrics are a straight run's.
#[test]
fn backs_one_after_another_keep_the_trace_and_replay_untraced_from_the_rung_below() {
    let mut sim = ran(20_000);
    sim.step_back().unwrap();
    let first = sim.last_replay_len();
    let mut replays = Vec::new();
    for _ in 0..300 {
        sim.step_back().unwrap();
        replays.push(sim.last_replay_len());
    }
    assert!(first > LADDER_SPACING, "the first Back replays from a checkpoint: {first}");
    // From 19 998 down to 19 699, every Back within the trace the first one kept: each replays
    // from the nearest of the rung laid at 19 999 − 1 024 = 18 975 and the fine rungs the Backs
    // before it laid (the first one's at 19 999 − 8, − 16, …, − 512).
    assert_eq!(replays, fine_rung_replays(18_975, 19_999, (19_699..=19_998).rev()));
    assert_eq!(&replays[..17], [7, 6, 5, 4, 3, 2, 1, 0, 7, 6, 5, 4, 3, 2, 1, 0, 15]);
    let mut sorted = replays.clone();
    sorted.sort_unstable();
    assert_eq!((sorted[150], sorted[270], sorted[299]), (4, 7, 255), "median, p90, the longest");
    assert!(sim.fine_rungs().len() <= FINE_MAX && sim.fine_rungs().iter().all(|p| *p <= 19_699));
    let mut straight = Simulation::with_options(logins(20_000), options());
    straight.go_to(19_699).unwrap();
    assert_eq!(sim.trace(), straight.trace());
    assert_eq!(sim.metrics(), straight.metrics());
    assert!(sim.result().rows().eq(straight.result().rows()));
    assert_eq!(sim.sample_now(), straight.sample_now());
    // Steps forward again append to the kept trace as a straight run does.
    for _ in 0..150 {
        sim.step().unwrap();
    }
    straight.go_to(19_849).unwrap();
    assert_eq!(sim.trace(), straight.trace());
}

/// What each Back to `targets` (descending) replays under the fine rungs' rule
/// (`time_travel`'s docs), after a first Back to `first` that replayed from below all its fine
/// rungs: from the nearest of `rung` and the fine rungs at or below its target; it then drops
/// the fine rungs above its target and lays `target − 2^k` (8 ≤ 2^k < 1 024) above where it
/// replayed from, the lowest dropped past [`FINE_MAX`].
fn fine_rung_replays(rung: usize, first: usize, targets: impl Iterator<Item = usize>) -> Vec<usize> {
    let lay = |fine: &mut Vec<usize>, from: usize, target: usize| {
        fine.retain(|p| *p <= target);
        fine.extend((3..10).map(|k| target - (1 << k)).filter(|p| *p > from));
        fine.sort_unstable();
        while fine.len() > FINE_MAX {
            fine.remove(0);
        }
    };
    let mut fine = Vec::new();
    lay(&mut fine, 0, first);
    targets
        .map(|t| {
            let from = fine.iter().copied().filter(|p| *p <= t).max().unwrap_or(rung).max(rung);
            lay(&mut fine, from, t);
            t - from
        })
        .collect()
}

#[test]
fn a_run_to_its_end_lays_the_ladder_so_the_first_back_replays_little() {
    // 200 k actions with the page's trace window: checkpoints end up far apart, so without a
    // plan the first Back replays from one far behind (the test above); "▶| to end" plans the
    // ladder before it runs.
    let mut sim = Simulation::with_options(logins(200_000), options());
    sim.plan_ladder_to(200_000);
    while sim.can_step() {
        sim.step().unwrap();
    }
    let spacing = sim.checkpoint_stats().1;
    assert!(spacing >= 8 * LADDER_SPACING, "checkpoints {spacing} apart");
    sim.step_back().unwrap();
    // The Back to 199 999 needs the trace from 199 599; the nearest rung is LADDER_SPACING
    // before that.
    assert_eq!(sim.last_replay_len(), 199_999 - (199_999 - WINDOW - LADDER_SPACING));
    let mut straight = Simulation::with_options(logins(200_000), options());
    while straight.action_count() < 199_999 {
        straight.step().unwrap();
    }
    assert_eq!(sim.trace(), straight.trace());
    assert_eq!(sim.metrics(), straight.metrics());
    assert!(sim.result().rows().eq(straight.result().rows()));
    assert_eq!(sim.sample_now(), straight.sample_now());
    // A plan past where the run stops takes nothing wrong: the next Backs are as before.
    sim.plan_ladder_to(10_000_000);
    sim.step().unwrap();
    sim.step_back().unwrap();
    assert!(sim.last_replay_len() <= LADDER_SPACING + WINDOW, "{}", sim.last_replay_len());
}

#[test]
fn going_toward_a_position_in_parts_ends_where_go_to_ends() {
    // From the end of 20 k actions back to 5 000 (restores the checkpoint at 4 096, then replays
    // in parts of 32, the least a part is), then forward to 19 000 within the recorded actions,
    // then, after a fork, past them by stepping.
    let mut sim = ran(20_000);
    let mut straight = Simulation::with_options(logins(20_000), options());
    let mut positions = Vec::new();
    while !sim.go_toward(5_000, 1).unwrap() {
        positions.push(sim.action_count());
        // Each part ends at an exact position of the run (its trace: none before the target's).
        if positions.len() == 7 {
            straight.go_to(4_096 + 7 * 32).unwrap();
            assert_eq!(sim.action_count(), 4_096 + 7 * 32);
            assert_eq!((sim.now(), sim.metrics()), (straight.now(), straight.metrics()));
            assert!(sim.result().rows().eq(straight.result().rows()));
        }
    }
    assert_eq!(positions, (1..=28).map(|k| 4_096 + 32 * k).collect::<Vec<_>>(), "parts of 32 from 4 096");
    let mut check = |sim: &Simulation, n: usize| {
        straight.go_to(n).unwrap();
        assert_eq!(sim.action_count(), n);
        assert_eq!(sim.trace(), straight.trace());
        assert_eq!(sim.metrics(), straight.metrics());
        assert_eq!(sim.now(), straight.now());
        assert!(sim.result().rows().eq(straight.result().rows()));
    };
    check(&sim, 5_000);
    // Forward to 19 000: its trace needs 18 600 on, so the checkpoint at 18 432 is restored (as a
    // seek would) and the rest replayed.
    let mut positions = Vec::new();
    while !sim.go_toward(19_000, 1_024).unwrap() {
        positions.push(sim.action_count());
    }
    assert!(positions.is_empty(), "{positions:?}");
    assert_eq!(sim.last_replay_len(), 19_000 - 18_432);
    check(&sim, 19_000);
    // With the page's trace and no checkpoint between here and there, parts go forward from here.
    sim.go_to(16_384).unwrap();
    while !sim.go_toward(18_400, 500).unwrap() {
        positions.push(sim.action_count());
    }
    assert_eq!(positions, [16_884, 17_384, 17_884, 18_384], "parts of 500 from here");
    check(&sim, 18_400);
    sim.go_to(3_000).unwrap();
    sim.discard_future();
    while !sim.go_toward(6_000, 1_024).unwrap() {}
    check(&sim, 6_000);
}

/// What a seek replaced, and the checkpoints a thinning dropped, are kept to be freed later, one
/// per `release_retired` (the page does it in tasks of their own): nothing else changes, and a
/// copy of the simulation holds none of it.
#[test]
fn replaced_states_and_thinned_checkpoints_are_freed_later_and_change_nothing() {
    let mut sim = Simulation::with_options(logins(70_000), options());
    // Step until a thinning drops checkpoints (the budget of 32 is passed at 32 × 2048 actions).
    let mut thinned_at = None;
    while sim.can_step() {
        let (count, _) = sim.checkpoint_stats();
        sim.step().unwrap();
        if sim.has_retired() {
            assert!(sim.checkpoint_stats().0 < count, "a thinning kept fewer");
            thinned_at = Some(sim.action_count());
            break;
        }
    }
    let at = thinned_at.expect("a thinning within 70 000 actions");
    assert!(!sim.clone().has_retired(), "a copy holds none");
    let mut freed = 1;
    while sim.release_retired() {
        freed += 1;
    }
    assert!(freed >= 2 && !sim.has_retired(), "{freed} freed one at a time");
    // A Back keeps the state it replaced; the result is the same, freed or not.
    sim.step_back().unwrap();
    assert!(sim.has_retired());
    let result: Vec<String> = sim.result().rows().map(|r| r.row.join(",")).collect();
    let mut straight = Simulation::with_options(logins(70_000), options());
    straight.go_to(at - 1).unwrap();
    let straight: Vec<String> = straight.result().rows().map(|r| r.row.join(",")).collect();
    assert_eq!(result, straight);
    assert!(!sim.release_retired());
    assert_eq!(sim.result().rows().map(|r| r.row.join(",")).collect::<Vec<_>>(), result);
}

/// A move of the scrubber as the page makes it (`go_toward` in parts of 1 024): the actions
/// it replayed in all its parts.
fn scrub(sim: &mut Simulation, n: usize) -> usize {
    let mut replayed = 0;
    loop {
        let done = sim.go_toward(n, 1_024).unwrap();
        replayed += sim.last_replay_len();
        if done {
            return replayed;
        }
    }
}

/// Where checkpoints are more than `SCRUB_LADDER_AFTER` apart, a scrub lays a step back's ladder
/// behind its target, as a Back does, whether it replays from a checkpoint or forward from where
/// the page stands: after it, each of four moves back by 1 000 actions (a pixel of a 1 000-pixel
/// scrubber at 1 M steps) and five Backs that stays within what the scrub replayed restores a
/// rung and replays at most `LADDER_SPACING` plus the trace window. Without the ladder they
/// replayed from the checkpoint far behind (or, after a scrub forward from where the page
/// stood, from the rung or checkpoint behind that). 200 k
/// actions over 20 000 users: checkpoints 16 384 apart. The state reached is a straight run's.
#[test]
fn a_far_scrub_lays_the_ladder_so_the_moves_back_after_it_replay_little() {
    let scenario = || logins_of(200_000, 20_000);
    let mut sim = ran_of(scenario(), 200_000);
    let spacing = sim.checkpoint_stats().1;
    assert!(spacing > SCRUB_LADDER_AFTER, "checkpoints {spacing} apart");
    let mut x: u64 = 12_345;
    let (mut checked, mut forward) = (0, 0);
    for i in 0..16 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let random = 20_000 + (x >> 33) as usize % 170_000;
        // A scrub to a random position; every other time, then a scrub 5 000 actions on from
        // there (forward from there when no checkpoint lies between), and the moves back after it.
        let target = match i % 2 {
            0 => random,
            _ => {
                scrub(&mut sim, random);
                random + 5_000
            }
        };
        {
            let here = sim.action_count();
            let far = scrub(&mut sim, target);
            let start = target - far;
            forward += usize::from(start == here);
            let mut moves: Vec<(usize, usize)> = (1..=4).map(|k| (k, scrub(&mut sim, target - 1_000 * k))).collect();
            for _ in 0..5 {
                sim.step_back().unwrap();
                moves.push((4, sim.last_replay_len()));
            }
            // A rung behind move k's target: at the scrub's target − window − k × LADDER_SPACING,
            // laid when after where the scrub's replay started.
            for (k, replayed) in moves {
                if target - WINDOW - k * LADDER_SPACING > start {
                    checked += 1;
                    assert!(
                        replayed <= LADDER_SPACING + WINDOW,
                        "to {target} (replayed {far} from {start}), then {k} back: replayed {replayed}"
                    );
                }
            }
        }
    }
    assert!(checked >= 100 && forward >= 3, "{checked} moves checked, {forward} scrubs forward from here");
    let at = sim.action_count();
    let mut straight = Simulation::with_options(scenario(), options());
    straight.go_to(at).unwrap();
    assert_eq!(sim.trace(), straight.trace());
    assert_eq!(sim.metrics(), straight.metrics());
    assert!(sim.result().rows().eq(straight.result().rows()));
    assert_eq!(sim.sample_now(), straight.sample_now());
}
