//! What a dense checkpoint really costs in memory, structure shared with the live state:
//! `cargo run --release --example checkpoint_delta -- PRESET EVENTS K N` runs the preset's
//! workload (EVENTS events) and, over its last K × N actions, keeps a clone of the simulation
//! every K actions; prints the resident memory before and after, per clone. `DROP=1` drops each
//! clone at once (what stepping alone costs). README, "Time travel at depth".
use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};

fn rss_kb() -> usize {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    s.lines().find(|l| l.starts_with("VmRSS")).unwrap().split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = &args[1];
    let events: u64 = args[2].parse().unwrap();
    let k: usize = args[3].parse().unwrap();
    let n: usize = args[4].parse().unwrap();
    let json = PRESETS.iter().find(|(p, _)| p == name).unwrap().1;
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    value["workload"]["events"] = events.into();
    let scenario = Scenario::from_json(&value.to_string()).unwrap();
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: Some(400), time_travel: false };
    let mut sim = Simulation::with_options(scenario, options);
    let total = sim.run_length();
    let start = total - k * n;
    while sim.action_count() < start {
        sim.step().unwrap();
    }
    let before = rss_kb();
    let t = std::time::Instant::now();
    let mut kept = Vec::new();
    for _ in 0..n {
        if std::env::var("DROP").is_err() {
            kept.push(sim.clone());
        }
        for _ in 0..k {
            sim.step().unwrap();
        }
    }
    let after = rss_kb();
    println!(
        "{name} {events}: {} clones every {k}: RSS {} -> {} KB, {:.0} KB per clone, {:.0} ms",
        n,
        before,
        after,
        (after - before) as f64 / n as f64,
        t.elapsed().as_secs_f64() * 1000.0
    );
}
