//! Where a step back's time goes at depth, natively: `cargo run --release --example
//! time_travel_cost [PRESET] [EVENTS]` runs the preset's workload (EVENTS events, default the
//! preset's) with the page's options, then times step back, `go_to` random positions and a clone
//! of the simulation, and prints the checkpoints kept and the engine's own state estimate.
use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use std::time::Instant;

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn stats(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    format!("p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms (n={n})", v[n / 2], v[(n * 9 / 10).min(n - 1)], v[n - 1])
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("what-if-100k-logins", String::as_str);
    let json = PRESETS.iter().find(|(n, _)| *n == name).expect("a preset's name").1;
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    if let Some(events) = args.get(2) {
        value["workload"]["events"] = events.parse::<u64>().unwrap().into();
    }
    let scenario = Scenario::from_json(&value.to_string()).unwrap();
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: Some(400), time_travel: true };
    let mut sim = Simulation::with_options(scenario, options);
    let t = Instant::now();
    while sim.can_step() {
        sim.step().unwrap();
    }
    println!("{name}: {} actions in {:.0} ms", sim.action_count(), ms(t));
    println!("checkpoints (count, spacing): {:?}", sim.checkpoint_stats());
    let t = Instant::now();
    let copy = sim.clone();
    println!("clone of the simulation: {:.1} ms", ms(t));
    drop(copy);
    // CLONES=N: N more clones, for a profiler (`perf record`) to see where a clone's time goes.
    if let Some(n) = std::env::var("CLONES").ok().and_then(|n| n.parse::<usize>().ok()) {
        let t = Instant::now();
        for _ in 0..n {
            drop(std::hint::black_box(sim.clone()));
        }
        println!("{n} clones: {:.1} ms each", ms(t) / n as f64);
        return;
    }
    // MOVES=a,b,c: go_toward each position in turn (in parts, as the page's scrubber does), with
    // the time and the actions each replayed (trial 23's drag on the Top-N preset).
    if let Ok(moves) = std::env::var("MOVES") {
        for to in moves.split(',').filter_map(|m| m.trim().parse::<usize>().ok()) {
            let t = Instant::now();
            let mut replayed = 0;
            while !sim.go_toward(to, 128).unwrap() {
                replayed += sim.last_replay_len();
            }
            replayed += sim.last_replay_len();
            println!("go to {to}: {:.1} ms, {replayed} actions replayed", ms(t));
        }
        return;
    }
    // BACKS=N: N step backs after a first one (which lays the ladder), for a profiler
    // (`perf record -D MS`, started after the run) to see where a Back's time goes.
    if let Some(n) = std::env::var("BACKS").ok().and_then(|n| n.parse::<usize>().ok()) {
        sim.step_back().unwrap();
        let t = Instant::now();
        let mut replayed = 0;
        for _ in 0..n {
            sim.step_back().unwrap();
            replayed += sim.last_replay_len();
        }
        println!(
            "{n} step backs: {:.2} ms each, {:.1} actions replayed each",
            ms(t) / n as f64,
            replayed as f64 / n as f64
        );
        return;
    }
    let t = Instant::now();
    let result = sim.result().clone();
    println!("of which the result table ({} rows): {:.1} ms", result.len(), ms(t));
    drop(result);
    let back: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            sim.step_back().unwrap();
            ms(t)
        })
        .collect();
    println!("step back: {}", stats(back));
    let length = sim.run_length();
    let mut x: u64 = 12_345;
    let go: Vec<f64> = (0..20)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let to = (x >> 33) as usize % length;
            let t = Instant::now();
            sim.go_to(to).unwrap();
            ms(t)
        })
        .collect();
    println!("go_to random: {}", stats(go));
}
