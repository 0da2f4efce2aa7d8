//! Runs one scenario to its end and prints inputs/s: a target for `perf record` and
//! `valgrind --tool=callgrind`.
//!
//! `cargo run --release --example profile_workload -- [SCENARIO.json] [metrics|full|page|bookmarks]`
//! (default: benchmark workload (a) at the `metrics` level). At `full`, the trace is drained
//! after every step, as the CLI streams it; `page` keeps a window of it and records for time
//! travel, as the page does; `bookmarks` runs the bookmarks' look through the run
//! (`BookmarkScan`, full trace, expiries told as they happen). With `PHASE=N` in the environment it also prints the time per event
//! of every N inputs (wall clock, and on Linux this process's CPU time, which another process's
//! load on the machine changes less): whether a run slows down as it goes.
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
    if mode.as_deref() == Some("bookmarks") {
        let started = std::time::Instant::now();
        let b = flink_state_sim::engine::bookmarks::scan(&scenario, u64::MAX);
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{path} (bookmarks): {} steps in {secs:.3} s = {:.2} M steps/s ({} bookmarked steps)",
            b.scanned,
            b.scanned as f64 / secs / 1e6,
            b.count(None)
        );
        return;
    }
    let started = std::time::Instant::now();
    let mut sim = Simulation::with_options(scenario, options);
    let mut entries = 0usize;
    let phase: u64 = std::env::var("PHASE").ok().and_then(|p| p.parse().ok()).unwrap_or(0);
    let mut mark = (0u64, std::time::Instant::now(), cpu_seconds());
    while !sim.is_finished() {
        sim.step().expect("runs");
        if !page {
            entries += sim.drain_trace().len();
        }
        if phase > 0 && (sim.inputs() >= mark.0 + phase || sim.is_finished()) {
            let (inputs, wall, cpu) = (sim.inputs(), std::time::Instant::now(), cpu_seconds());
            let per_event = |s: f64| s * 1e6 / (inputs - mark.0) as f64;
            let cpu_text = match (cpu, mark.2) {
                (Some(now), Some(then)) => format!(", CPU {:.2} µs", per_event(now - then)),
                _ => String::new(),
            };
            eprintln!(
                "inputs {}..{inputs}: wall {:.2} µs{cpu_text} per event",
                mark.0,
                per_event((wall - mark.1).as_secs_f64())
            );
            mark = (inputs, wall, cpu);
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{path} ({level:?}): {} inputs in {secs:.3} s = {:.2} M events/s ({entries} trace entries)",
        sim.inputs(),
        sim.inputs() as f64 / secs / 1e6
    );
}

/// This process's user + system CPU time, from `/proc/self/stat` (Linux; `None` elsewhere).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which may hold spaces) close with ')'.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    // utime and stime are the 14th and 15th fields, in clock ticks (USER_HZ, 100 on Linux).
    Some((ticks(11)? + ticks(12)?) / 100.0)
}
