//! Runs one scenario to its end and prints inputs/s: a target for `perf record` and
//! `valgrind --tool=callgrind`.
//!
//! `cargo run --release --example profile_workload -- [SCENARIO.json] [metrics|full|page]`
//! (default: benchmark workload (a) at the `metrics` level). At `full`, the trace is drained
//! after every step, as the CLI streams it; `page` keeps a window of it and records for time
//! travel, as the page does.
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "benches/scenarios/a-cleanup-timers-uniform.json".into());
    let mode = args.next();
    let level = match mode.as_deref() {
        Some("full" | "page") => TraceLevel::Full,
        _ => TraceLevel::Metrics,
    };
    // `page`: as the page runs it, a window of the trace kept and time travel on.
    let page = mode.as_deref() == Some("page");
    let json = std::fs::read_to_string(&path).expect("read the scenario");
    let parsing = std::time::Instant::now();
    let scenario = Scenario::from_json(&json).expect("valid scenario");
    eprintln!("parsed and validated in {:.3} s", parsing.elapsed().as_secs_f64());
    let options = if page {
        SimOptions { trace: level, keep_actions: Some(400), time_travel: true }
    } else {
        SimOptions { trace: level, keep_actions: None, time_travel: false }
    };
    let started = std::time::Instant::now();
    let mut sim = Simulation::with_options(scenario, options);
    let mut entries = 0usize;
    while !sim.is_finished() {
        sim.step().expect("runs");
        if !page {
            entries += sim.drain_trace().len();
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{path} ({level:?}): {} inputs in {secs:.3} s = {:.2} M events/s ({entries} trace entries)",
        sim.inputs(),
        sim.inputs() as f64 / secs / 1e6
    );
}
