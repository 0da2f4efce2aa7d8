//! Helpers shared by the engine tests (which run natively and, under `wasm-pack test`, in the browser).
#![allow(dead_code)]

#[cfg(target_arch = "wasm32")]
pub mod browser;
#[cfg(not(target_arch = "wasm32"))]
pub mod conformance;
#[cfg(target_arch = "wasm32")]
pub mod embed;
#[cfg(target_arch = "wasm32")]
pub mod wait;

use flink_state_sim::engine::trace::TraceEvent;
use flink_state_sim::engine::Simulation;

/// Runs a scenario (JSON text) to its end.
pub fn run(json: &str) -> Simulation {
    let mut sim = Simulation::from_json(json).expect("scenario is valid");
    sim.run_to_end().expect("scenario runs");
    sim
}

/// What operator `op` emitted, in Flink's print format.
pub fn emitted(sim: &Simulation, op: &str) -> Vec<String> {
    sim.trace()
        .iter()
        .filter(|e| &*e.op == op)
        .filter_map(|e| match &e.event {
            TraceEvent::Emitted { message } => Some(message.to_string()),
            _ => None,
        })
        .collect()
}

/// The whole trace in the CLI's text format.
pub fn text(sim: &Simulation) -> Vec<String> {
    sim.trace().iter().map(|e| e.text_line(sim.time_format())).collect()
}

/// (what, key, timer) of every timer event of operator `op`, times in the scenario's format.
pub fn timer_events(sim: &Simulation, op: &str) -> Vec<(String, String, String)> {
    let tf = sim.time_format();
    sim.trace()
        .iter()
        .filter(|e| &*e.op == op)
        .filter_map(|e| {
            e.event.timer_ms().map(|t| (e.event.what().to_string(), e.key_text().unwrap_or_default(), tf.format(t)))
        })
        .collect()
}
