//! The engine's tests compiled to wasm and run in headless Chromium, as one test binary: each
//! `tests/<name>.rs` below also runs natively as its own binary (`cargo test --test <name>`).
//! One wasm binary instead of one per file: each is linked, processed by wasm-bindgen and started
//! in its own browser, which was most of the browser tests' time in CI. `tests/wasm_bundles.rs`
//! checks that every test file with `#[wasm_bindgen_test]` is in this bundle or in
//! `wasm_page.rs`, or is named there as one that runs alone.
//!
//! One file: `wasm-pack test --headless --chrome --no-default-features --test wasm_engine -- <name>::`.
#![cfg(target_arch = "wasm32")]

#[path = "cases.rs"]
mod cases;
#[path = "changelog_normalize.rs"]
mod changelog_normalize;
#[path = "deduplicate.rs"]
mod deduplicate;
#[path = "deduplicate_versions.rs"]
mod deduplicate_versions;
#[path = "deep_expressions.rs"]
mod deep_expressions;
#[path = "joins.rs"]
mod joins;
#[path = "lateral_snapshot_join.rs"]
mod lateral_snapshot_join;
#[path = "limits.rs"]
mod limits;
#[path = "metrics.rs"]
mod metrics;
#[path = "mini_batch.rs"]
mod mini_batch;
#[path = "oracle.rs"]
mod oracle;
#[path = "presets.rs"]
mod presets;
#[path = "provenance.rs"]
mod provenance;
#[path = "results_and_lanes.rs"]
mod results_and_lanes;
#[path = "scenario_errors.rs"]
mod scenario_errors;
#[path = "see_views.rs"]
mod see_views;
#[path = "sharded_table.rs"]
mod sharded_table;
#[path = "sql.rs"]
mod sql;
#[path = "state_ttl.rs"]
mod state_ttl;
#[path = "timer_churn.rs"]
mod timer_churn;
#[path = "ttl_background_cleanup.rs"]
mod ttl_background_cleanup;
#[path = "web_api.rs"]
mod web_api;
