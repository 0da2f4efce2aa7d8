//! Runs one benchmark workload once at the `metrics` level and prints events/s: a target for
//! `perf record` (`cargo build --release --example profile_workload`).
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| "benches/scenarios/a-cleanup-timers-uniform.json".into());
    let json = std::fs::read_to_string(&path).expect("read the scenario");
    let scenario = Scenario::from_json(&json).expect("valid scenario");
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
    let started = std::time::Instant::now();
    let mut sim = Simulation::with_options(scenario, options);
    sim.run_to_end().expect("runs");
    let secs = started.elapsed().as_secs_f64();
    println!("{path}: {} inputs in {secs:.3} s = {:.2} M events/s", sim.inputs(), sim.inputs() as f64 / secs / 1e6);
}
