//! How long the page's "See" queries take on the 100 k-login preset with the page's options (full
//! trace, the last 400 actions kept): provenance (the retraction flow), the chart series and the
//! state inspector with a key filter, at 10 k and 99 k steps. `cargo run --release --example see_timing`
use flink_state_sim::engine::chart::operator_charts;
use flink_state_sim::engine::inspector::inspect;
use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::engine::provenance::Provenance;
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
fn main() {
    let json = PRESETS.iter().find(|(n, _)| *n == "what-if-100k-logins").unwrap().1;
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: Some(400), time_travel: true };
    let mut sim = Simulation::with_options(Scenario::from_json(json).unwrap(), options);
    for target in [10_000, 99_000] {
        while sim.action_count() < target {
            sim.step().unwrap();
        }
        let t = std::time::Instant::now();
        let mut n = 0;
        for _ in 0..20 {
            n += Provenance::of(&sim).rows.len();
        }
        let prov = t.elapsed().as_secs_f64() * 1000.0 / 20.0;
        let t = std::time::Instant::now();
        for _ in 0..20 {
            n += operator_charts(&sim.metrics(), 0).len();
        }
        let charts = t.elapsed().as_secs_f64() * 1000.0 / 20.0;
        let t = std::time::Instant::now();
        for _ in 0..5 {
            n += inspect(&sim, 0, "user-1", 100).map_or(0, |i| i.matched);
        }
        let insp = t.elapsed().as_secs_f64() * 1000.0 / 5.0;
        let t = std::time::Instant::now();
        for _ in 0..20 {
            n += sim.operator_views_limited(0).len();
        }
        let views0 = t.elapsed().as_secs_f64() * 1000.0 / 20.0;
        let t = std::time::Instant::now();
        for _ in 0..20 {
            n += sim.metrics().len();
        }
        let metrics = t.elapsed().as_secs_f64() * 1000.0 / 20.0;
        println!("  operator_views_limited(0) {views0:.2} ms, metrics() {metrics:.2} ms");
        println!("at {target}: provenance {prov:.2} ms, charts {charts:.2} ms, inspector (filter) {insp:.2} ms, rows {} ({n})", sim.result().len());
    }
}
