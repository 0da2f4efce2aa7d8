//! The OVER aggregation family: `SELECT *, agg(x) OVER (PARTITION BY … ORDER BY <proctime>
//! <window>) FROM <input>` on processing time, planned by `StreamExecOverAggregate` (Blink /
//! Flink 1.9+) and, on the legacy planner, by `DataStreamOverAggregate`.
//!
//! - [`over_aggregate`]: the spec (`"operator": "OverAggregate"`) and its compiler.
//! - one file per Flink class: [`ProcTimeRowsBoundedPrecedingFunction`],
//!   [`ProcTimeUnboundedPrecedingFunction`], [`ProcTimeRangeBoundedPrecedingFunction`] (Flink
//!   2.3), and the legacy planner's `ProcTimeBoundedRowsOver` and `ProcTimeUnboundedOver`.

pub(super) mod over_aggregate;
mod proc_time_bounded_rows_over;
mod proc_time_range_bounded_preceding_function;
mod proc_time_rows_bounded_preceding_function;
mod proc_time_unbounded_over;
mod proc_time_unbounded_preceding_function;

pub use over_aggregate::OverAggregateSpec;
pub use proc_time_range_bounded_preceding_function::ProcTimeRangeBoundedPrecedingFunction;
pub use proc_time_rows_bounded_preceding_function::ProcTimeRowsBoundedPrecedingFunction;
pub use proc_time_unbounded_preceding_function::ProcTimeUnboundedPrecedingFunction;
