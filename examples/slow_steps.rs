//! The slowest single steps of a preset's run, natively (`cargo run --release --example
//! slow_steps [PRESET]`), with the page's options: where a run to the end pauses (a checkpoint's
//! clone, a ladder's rung, a compaction), by action position; and the frees the page does in a
//! task of their own (`Simulation::release_retired`: the checkpoints a thinning dropped).
use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use std::time::Instant;

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "seed-000-topn-dedup".into());
    let json = PRESETS.iter().find(|(n, _)| *n == name).expect("a preset's name").1;
    let scenario = Scenario::from_json(json).unwrap();
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: Some(400), time_travel: true };
    let mut sim = Simulation::with_options(scenario, options);
    let end = sim.action_count() + sim.step_count() as usize;
    sim.plan_ladder_to(end);
    let mut times = Vec::new();
    let t0 = Instant::now();
    while sim.can_step() {
        let t = Instant::now();
        sim.step().unwrap();
        times.push((t.elapsed().as_secs_f64() * 1000.0, sim.action_count()));
        while sim.has_retired() {
            let sweep = flink_state_sim::engine::drop_later::has_buried();
            let t = Instant::now();
            sim.release_retired();
            println!(
                "release_retired after action {} ({}): {:.2} ms",
                sim.action_count(),
                if sweep { "a sweep of buried parts" } else { "a state dropped in parts, then a sweep" },
                t.elapsed().as_secs_f64() * 1000.0
            );
        }
    }
    println!("{name}: {} actions in {:.0} ms", sim.action_count(), t0.elapsed().as_secs_f64() * 1000.0);
    // WINDOW=N: the slowest runs of N actions in a row (a slice of the page's work is many
    // actions: a pause spread over them is as long a task as one slow action).
    if let Some(w) = std::env::var("WINDOW").ok().and_then(|w| w.parse::<usize>().ok()) {
        let mut sums: Vec<(f64, usize)> = times.windows(w).map(|x| (x.iter().map(|t| t.0).sum(), x[0].1)).collect();
        sums.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut shown: Vec<usize> = Vec::new();
        for (ms, at) in sums {
            if shown.iter().all(|s| s.abs_diff(at) >= w) {
                println!("{ms:8.2} ms in the {w} actions from action {at}");
                shown.push(at);
                if shown.len() == 10 {
                    break;
                }
            }
        }
    }
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (ms, at) in times.iter().take(15) {
        println!("{ms:8.2} ms at action {at}");
    }
}
