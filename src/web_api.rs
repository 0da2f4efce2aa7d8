//! The engine's JavaScript API (wasm only), for pages and documentation that want the trace
//! without the UI. Kept small: list the presets, run a scenario to its end.
//!
//! ```js
//! import init, { presets, runScenario } from './flink-state-sim.js';
//! await init();
//! presets();                       // [{ name: "seed-001-one-day-two-days", title: "..." }, ...]
//! runScenario(jsonText);           // { records: [{ time_ms, op, key, what, timer_ms, kind, row, detail }, ...],
//!                                  //   result: { columns: [...], upsert: false,
//!                                  //             rows: [{ row: [...], stale_since_ms: null }, ...] } }
//! ```
//! Records have the shape of the CLI's `--format jsonl` output.

use crate::engine::presets::PRESETS;
use crate::engine::{Scenario, Simulation};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[derive(Serialize)]
struct PresetInfo {
    name: &'static str,
    title: String,
}

#[derive(Serialize)]
struct RunOutput<'a> {
    records: Vec<crate::engine::trace::TraceRecord<'a>>,
    result: ResultOut<'a>,
}

#[derive(Serialize)]
struct ResultOut<'a> {
    columns: &'a [String],
    upsert: bool,
    rows: Vec<&'a crate::engine::result_table::ResultRow>,
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| JsError::new(&e.to_string()))
}

/// The built-in scenarios: `[{ name, title }]`.
#[wasm_bindgen]
pub fn presets() -> Result<JsValue, JsError> {
    let list: Vec<PresetInfo> = PRESETS
        .iter()
        .map(|(name, json)| PresetInfo { name, title: Scenario::from_json(json).map(|s| s.title).unwrap_or_default() })
        .collect();
    to_js(&list)
}

/// Runs a scenario (JSON text, see docs/scenario-format.md) to its end and returns
/// `{ records, result }`.
///
/// # Errors
/// Throws an `Error` whose message names the field and the rule for an invalid scenario, or
/// says why a step failed.
#[wasm_bindgen(js_name = runScenario)]
pub fn run_scenario(json: JsValue) -> Result<JsValue, JsError> {
    // Taken as any value, not `&str`: wasm-bindgen would read a number or an object passed as a
    // string out of bounds.
    let Some(json) = json.as_string() else {
        return Err(JsError::new("runScenario expects the scenario as a JSON string (JSON.stringify it first)"));
    };
    let mut sim = Simulation::from_json(&json).map_err(|e| JsError::new(&e.to_string()))?;
    sim.run_to_end().map_err(|e| JsError::new(&e.to_string()))?;
    let tf = sim.time_format();
    let out = RunOutput {
        records: sim.trace().iter().map(|e| e.record(tf)).collect(),
        result: ResultOut {
            columns: &sim.result().columns,
            upsert: sim.result().upsert,
            rows: sim.result().rows().collect(),
        },
    };
    to_js(&out)
}
