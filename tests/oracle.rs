//! Scenarios translated from `shared/oracle/` reproduce what real Apache Flink 2.3 printed: each
//! file under `tests/scenarios/oracle/` carries the recorded changelog in its `expect` block
//! (copied unchanged from the oracle's `NAME.expected.json`) and passes `check`, natively and in
//! the browser.

use flink_state_sim::engine::{expect, Scenario};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

macro_rules! oracle {
    ($test:ident, $name:literal) => {
        #[wasm_bindgen_test(unsupported = test)]
        fn $test() {
            let scenario = Scenario::from_json(include_str!(concat!("scenarios/oracle/", $name, ".json"))).unwrap();
            assert!(!scenario.expect.is_empty());
            if let Err(difference) = expect::check(scenario) {
                panic!("{}: {difference}", $name);
            }
        }
    };
}

oracle!(device_status_lastvalue_nottl, "device_status_lastvalue_nottl");
oracle!(device_status_lastvalue_ttl, "device_status_lastvalue_ttl");
oracle!(device3_lastvalue_nottl, "device3_lastvalue_nottl");
oracle!(device3_lastvalue_ttl, "device3_lastvalue_ttl");
oracle!(global_count_nottl, "global_count_nottl");
oracle!(global_count_ttl, "global_count_ttl");
oracle!(agg_append_all_nottl, "agg_append_all_nottl");
oracle!(agg_append_all_ttl, "agg_append_all_ttl");
oracle!(agg_append_minmaxdistinct_nottl, "agg_append_minmaxdistinct_nottl");
oracle!(agg_retract_lastvalue_nottl, "agg_retract_lastvalue_nottl");
oracle!(agg_retract_lastvalue_ttl, "agg_retract_lastvalue_ttl");
oracle!(rank_top1_ts_asc_nottl, "rank_top1_ts_asc_nottl");
oracle!(rank_top1_ts_desc_nottl, "rank_top1_ts_desc_nottl");
oracle!(rank_top1_ts_asc_into_count_nottl, "rank_top1_ts_asc_into_count_nottl");
oracle!(topn2_norank_nottl, "topn2_norank_nottl");
oracle!(topn2_withrank_nottl, "topn2_withrank_nottl");
oracle!(topn2_withrank_ttl, "topn2_withrank_ttl");
oracle!(agg_retract_all_nottl, "agg_retract_all_nottl");
oracle!(agg_retract_all_ttl, "agg_retract_all_ttl");
oracle!(device_status_top1_nottl, "device_status_top1_nottl");
oracle!(topn2_over_agg_norank_nottl, "topn2_over_agg_norank_nottl");
oracle!(topn2_over_agg_norank_ttl, "topn2_over_agg_norank_ttl");
oracle!(dedup_first_proctime_nottl, "dedup_first_proctime_nottl");
oracle!(dedup_first_proctime_ttl, "dedup_first_proctime_ttl");
oracle!(dedup_last_proctime_nottl, "dedup_last_proctime_nottl");
oracle!(dedup_last_proctime_ttl, "dedup_last_proctime_ttl");
oracle!(dau_over_1preceding_nottl, "dau_over_1preceding_nottl");
oracle!(dau_over_1preceding_ttl, "dau_over_1preceding_ttl");
oracle!(device3_lastvalue_minibatch, "device3_lastvalue_minibatch");
