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
    assert_eq!(list.as_array().unwrap().len(), 22);
    assert_eq!(list[8]["name"], "sql-dedup-keep-last-heap");
    assert_eq!(list[16]["name"], "what-if-100k-logins");
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

/// `repro/more/E18`: a BIGINT beyond ±(2^53 − 1) crosses as an exact `BigInt`; whole numbers in
/// the safe range stay `number`s.
#[wasm_bindgen_test]
fn a_bigint_beyond_2_pow_53_crosses_exactly_as_a_js_bigint() {
    let scenario = include_str!("fixtures/repro/more/E18-bigint-beyond-2p53-runScenario-throws.json");
    let out = run_scenario(JsValue::from_str(scenario)).expect("runScenario runs a valid scenario");
    let get = |v: &JsValue, k: &str| js_sys::Reflect::get(v, &JsValue::from_str(k)).unwrap();
    let records = js_sys::Array::from(&get(&out, "records"));
    let rows: Vec<(String, js_sys::Array)> = records
        .iter()
        .filter(|r| js_sys::Array::is_array(&get(r, "row")))
        .map(|r| (get(&r, "what").as_string().unwrap(), js_sys::Array::from(&get(&r, "row"))))
        .collect();
    // Each record that carries the input row: its BIGINT as a BigInt whose decimal text is exact.
    let big: Vec<String> = rows
        .iter()
        .flat_map(|(what, row)| row.iter().map(move |v| (what.clone(), v)))
        .filter(|(_, v)| v.is_bigint())
        .map(|(what, v)| format!("{what} {}", String::from(js_sys::BigInt::from(v).to_string(10).unwrap())))
        .collect();
    assert_eq!(big, ["input 9007199254740993", "received 9007199254740993"]);
    assert!(
        rows.iter().flat_map(|(_, row)| row.iter()).all(|v| v.as_f64() != Some(9_007_199_254_740_992.0)),
        "rounded"
    );
    // Every time is a plain number, and the result's count too.
    for r in records.iter() {
        let t = get(&r, "time_ms");
        assert_eq!(t.as_f64(), Some(1.0), "time_ms of {r:?}");
    }
    let result_rows = js_sys::Array::from(&get(&get(&out, "result"), "rows"));
    assert_eq!(result_rows.length(), 1);
    let row = js_sys::Array::from(&get(&result_rows.get(0), "row"));
    assert_eq!(row.get(0).as_string().as_deref(), Some("a"));
    assert_eq!(row.get(1).as_f64(), Some(1.0));
    assert!(get(&result_rows.get(0), "stale_since_ms").is_null());
}
