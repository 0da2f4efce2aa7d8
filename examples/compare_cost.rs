//! What Compare's move costs natively: `cargo run --profile fuzz --example compare_cost [PAIR#] [TO]`
//! moves both runs of a compare pair (the page's options: metrics trace, time travel) toward step
//! TO (default the end) in parts of 128 actions, side by side, and prints the time per side, the
//! result rows and what one sample of the metrics costs there.
use flink_state_sim::engine::presets::{preset_json, COMPARE_PAIRS};
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let k = args.get(1).and_then(|a| a.parse::<usize>().ok()).unwrap_or(0);
    let (label, l, r) = COMPARE_PAIRS[k];
    println!("{label}");
    let mut sims = Vec::new();
    for name in [l, r] {
        let scenario = Scenario::from_json(preset_json(name).unwrap()).unwrap();
        let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: true };
        let mut sim = Simulation::with_options(scenario, options);
        let to = args.get(2).and_then(|a| a.parse::<usize>().ok()).unwrap_or(sim.step_count() as usize);
        let t = Instant::now();
        while !sim.go_toward(to, 128).unwrap() {}
        let run = t.elapsed().as_secs_f64() * 1000.0;
        let t = Instant::now();
        let sample = sim.sample_now();
        let s = t.elapsed().as_secs_f64() * 1000.0;
        println!(
            "{name}: to {} in {run:.0} ms; result rows {}; a sample {s:.3} ms; checkpoints {:?}",
            sim.action_count(),
            sample.result_rows,
            sim.checkpoint_stats()
        );
        sims.push(sim);
    }
    for (a, b) in [(0, 1), (1, 0)] {
        let t = Instant::now();
        let mut lacked = flink_state_sim::engine::result_table::Lacked::default();
        let next = sims[a].result().count_lacked_by(sims[b].result(), 0, usize::MAX, &mut lacked, 100);
        assert!(next.is_none());
        let n = lacked.count;
        println!("rows of side {a} the other lacks: {n}, counted in {:.1} ms", t.elapsed().as_secs_f64() * 1000.0);
    }
}
