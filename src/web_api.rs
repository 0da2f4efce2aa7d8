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
//!
//! **Integers.** A whole number within JavaScript's safe range (±(2^53 − 1)) is a `number`; one
//! beyond it (a `BIGINT` value such as 9007199254740993) is a `BigInt` with the exact value, so
//! nothing is rounded and nothing throws. `typeof v === "bigint"` tells them apart;
//! `JSON.stringify` needs a replacer for a `BigInt` (`(k, v) => typeof v === "bigint" ? v.toString() : v`).

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

/// The largest integer a JavaScript `number` holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// `value` as a JavaScript value (objects, arrays, strings, numbers); whole numbers beyond
/// ±[`MAX_SAFE_INTEGER`] as `BigInt`s. The direct serializer refuses them (it would round), so a
/// value that holds one is converted through `serde_json` instead.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    match value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()) {
        Ok(v) => Ok(v),
        Err(_) => {
            let json = serde_json::to_value(value).map_err(|e| JsError::new(&e.to_string()))?;
            Ok(json_to_js(&json))
        }
    }
}

fn json_to_js(value: &serde_json::Value) -> JsValue {
    use serde_json::Value;
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i) => JsValue::from_f64(i as f64),
            (Some(i), _) => js_sys::BigInt::from(i).into(),
            (None, Some(u)) => js_sys::BigInt::from(u).into(),
            _ => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => items.iter().map(json_to_js).collect::<js_sys::Array>().into(),
        Value::Object(fields) => {
            let object = js_sys::Object::new();
            for (k, v) in fields {
                let _ = js_sys::Reflect::set(&object, &JsValue::from_str(k), &json_to_js(v));
            }
            object.into()
        }
    }
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
