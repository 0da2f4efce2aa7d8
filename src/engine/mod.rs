//! The simulator's engine: pure, deterministic Rust with no clock, no randomness and no web
//! types. It builds natively (CLI, tests) and for wasm (the page).
//!
//! Where each Flink rule lives:
//! - processing time, durations, date-times: [`time`] (`TimeUtils.parseDuration`)
//! - timers: [`timer_service`] (`InternalTimerServiceImpl`)
//! - idle state retention config: [`idle_state_retention`] (`TableConfig.setIdleStateRetentionTime`)
//! - the cleanup-timer rule: [`cleanup_state`] (`CleanupState`, `KeyedProcessFunctionWithCleanupState`)
//! - keyed state (`ValueState`, `MapState`, `ListState`) and state TTL: [`state`]
//!   (`HeapValueState`, `TtlValueState`, `TtlMapState`, `TtlListState`, `StateTtlConfig`, `TtlUtils`)
//! - aggregate functions: [`aggregate`]
//! - operators: [`operators`] (`GroupAggProcessFunction`, `GroupAggFunction`), one folder per SQL
//!   operator family, one file per class
//! - rows and changelog messages: [`row`] (`RowKind`, `CRow`)
//!
//! Around the rules: the [`pipeline`] of operators and its [`result_table`], the [`simulation`]
//! that drives it ([`time_travel`] for seeking), the [`trace`] and the [`metrics`] series, the
//! seeded [`workload`] generator, and the [`scenario`] format (its JSON forms shared with the
//! operators in `format`; the [`options`] the operators run with, `FlinkMode` among them).
//! Scenarios in: Flink SQL through the [`planner`], Flink's compiled plans (`COMPILE PLAN` JSON,
//! their state metadata: `StateMetadata`) through [`compiled_plan`].
//!
//! Read-only queries for the page: [`view`] (operators' state), [`timeline`], [`provenance`]
//! (which input caused which message and result row; where state was lost without a message),
//! [`inspector`] (per-key state, visible / expired-but-stored / gone), [`chart`] (series and
//! time ticks from the metrics), [`explain`] (the source's and sink's `EXPLAIN` names).

pub mod aggregate;
pub mod bookmarks;
pub mod chart;
pub mod cleanup_state;
pub mod compiled_plan;
pub mod digits;
pub mod drop_later;
pub mod error;
pub mod expect;
pub mod explain;
pub mod export_sql;
pub mod expr;
pub(crate) mod format;
pub mod idle_state_retention;
pub mod inspector;
pub mod metrics;
pub mod operators;
pub mod options;
pub mod pipeline;
pub mod planner;
pub mod presets;
pub mod provenance;
pub mod quiet;
pub mod replay;
pub mod result_table;
pub mod row;
pub mod scenario;
pub mod sharded_table;
pub mod shared_vec;
pub mod simulation;
pub mod state;
pub mod summary;
pub mod symbol;
pub mod time;
pub mod time_axis;
pub mod time_range;
pub mod time_travel;
pub mod timeline;
pub mod timer_service;
pub mod tour;
pub mod trace;
pub mod view;
pub mod workload;
mod zipf;

pub use error::{ScenarioError, StepError};
pub use scenario::{FlinkMode, Scenario};
pub use simulation::{Action, SimOptions, Simulation};
pub use trace::TraceLevel;
