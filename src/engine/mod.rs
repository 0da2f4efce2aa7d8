//! The simulator's engine: pure, deterministic Rust with no clock, no randomness and no web
//! types. It builds natively (CLI, tests) and for wasm (the page).
//!
//! Where each Flink rule lives:
//! - processing time, durations, date-times: [`time`] (`TimeUtils.parseDuration`)
//! - timers: [`timer_service`] (`InternalTimerServiceImpl`)
//! - idle state retention config: [`idle_state_retention`] (`TableConfig.setIdleStateRetentionTime`)
//! - the cleanup-timer rule: [`cleanup_state`] (`CleanupState`, `KeyedProcessFunctionWithCleanupState`)
//! - state TTL: [`state_ttl`] (`StateTtlConfig`, `TtlUtils`, `TtlValueState`)
//! - aggregate functions: [`aggregate`]
//! - operators: [`operators`] (`GroupAggProcessFunction`, `GroupAggFunction`)
//! - rows and changelog messages: [`row`] (`RowKind`, `CRow`)

pub mod aggregate;
pub mod cleanup_state;
pub mod error;
pub mod idle_state_retention;
pub mod keyed_state;
pub mod operators;
pub mod pipeline;
pub mod presets;
pub mod result_table;
pub mod row;
pub mod scenario;
pub mod simulation;
pub mod state_ttl;
pub mod time;
pub mod timeline;
pub mod timer_service;
pub mod trace;
pub mod view;

pub use error::{ScenarioError, StepError};
pub use scenario::{FlinkMode, Scenario};
pub use simulation::Simulation;
