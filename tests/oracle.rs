//! Scenarios translated from `shared/oracle/` reproduce what real Apache Flink 2.3 printed.
//! Fixtures: `tests/fixtures/oracle/NAME.scenario.json` (the translation) and
//! `NAME.expected.json` (copied unchanged from the oracle).

mod common;

use common::run;
use flink_state_sim::engine::trace::TraceEvent;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

macro_rules! oracle {
    ($test:ident, $name:literal) => {
        #[wasm_bindgen_test(unsupported = test)]
        fn $test() {
            let scenario = include_str!(concat!("fixtures/oracle/", $name, ".scenario.json"));
            let expected: serde_json::Value =
                serde_json::from_str(include_str!(concat!("fixtures/oracle/", $name, ".expected.json"))).unwrap();
            let sim = run(scenario);
            let last = sim.scenario().operators.last().unwrap().id.clone();
            let got: Vec<serde_json::Value> = sim
                .trace()
                .iter()
                .filter(|e| *e.op == *last)
                .filter_map(|e| match &e.event {
                    TraceEvent::Emitted { message } => Some(serde_json::json!([message.change.label(), message.row])),
                    _ => None,
                })
                .collect();
            assert_eq!(serde_json::Value::Array(got), expected, "{}", $name);
        }
    };
}

oracle!(device_status_lastvalue_nottl, "device_status_lastvalue_nottl");
oracle!(device_status_lastvalue_ttl, "device_status_lastvalue_ttl");
oracle!(device3_lastvalue_nottl, "device3_lastvalue_nottl");
oracle!(device3_lastvalue_ttl, "device3_lastvalue_ttl");
oracle!(global_count_nottl, "global_count_nottl");
oracle!(global_count_ttl, "global_count_ttl");
