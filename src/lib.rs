//! flink-state-sim: step through how Apache Flink keeps, expires and cleans keyed state, and how
//! results are retracted between streaming SQL operators.
//!
//! - [`engine`]: the pure simulator (scenarios, operators, timers, state TTL, the trace).
//! - [`link`]: the limits on links and files, and a permalink's bounded decoding.
//! - `ui` (wasm only): the Yew page that drives and displays the engine.
//! - `web_api` (wasm only): `presets()` and `runScenario(json)` for JavaScript.
//!
//! ```
//! use flink_state_sim::engine::{presets, Simulation};
//! let mut sim = Simulation::new(presets::load_preset("cleanup-harness-min5-max10").unwrap());
//! sim.run_to_end().unwrap();
//! assert!(sim.operator_views()[0].keys.is_empty()); // every key was cleaned up
//! ```

pub mod engine;

/// The limits on links and files, and a link's bounded decoding.
pub mod link;

#[cfg(target_arch = "wasm32")]
pub mod ui;

#[cfg(target_arch = "wasm32")]
pub mod web_api;
