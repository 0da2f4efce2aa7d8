//! The JavaScript API (`presets`, `runScenario`) in the browser.
#![cfg(target_arch = "wasm32")]

use flink_state_sim::engine::presets::preset_json;
use flink_state_sim::web_api::{presets, run_scenario};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn json(v: &JsValue) -> serde_json::Value {
    serde_wasm_bindgen::from_value(v.clone()).unwrap()
}

#[wasm_bindgen_test]
fn lists_presets() {
    let list = json(&presets().unwrap());
    assert_eq!(list[0]["name"], "seed-001-one-day-two-days");
    assert_eq!(list.as_array().unwrap().len(), 11);
    assert_eq!(list[8]["name"], "what-if-100k-logins");
}

#[wasm_bindgen_test]
fn runs_seed_004_on_flink_2_3() {
    let out = json(&run_scenario(JsValue::from_str(preset_json("seed-004-device-status-flink-2.3").unwrap())).unwrap());
    let outer: Vec<String> = out["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["op"] == "outer" && r["what"] == "emitted")
        .map(|r| format!("{}{}", r["kind"].as_str().unwrap(), r["row"]))
        .collect();
    assert_eq!(outer, ["+I[1,1]", "-D[1,1]", "+I[0,1]"]);
    assert_eq!(
        out["result"],
        serde_json::json!({"columns": ["st", "cnt"], "upsert": false, "rows": [{"row": [0, 1], "stale_since_ms": null}]})
    );
}

#[wasm_bindgen_test]
fn rejects_a_bad_scenario_with_the_field() {
    let err = run_scenario(JsValue::from_str(r#"{"name": "x"}"#)).unwrap_err();
    let message = js_sys::Error::from(JsValue::from(err)).message();
    assert_eq!(String::from(message), "scenario: missing field `flink` at line 1 column 13");
    let err = run_scenario(JsValue::from_f64(42.0)).unwrap_err();
    let message = js_sys::Error::from(JsValue::from(err)).message();
    assert!(String::from(message).starts_with("runScenario expects the scenario as a JSON string"));
}
