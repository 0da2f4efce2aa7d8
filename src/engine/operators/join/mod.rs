//! Regular joins: the `Join` node of Flink's plan (`StreamPhysicalJoin`, `StreamExecJoin`).
//!
//! - [`join`]: the scenario format's `Join` operator and what the planner decides for it.
//! - [`streaming_join_operator`]: `StreamingJoinOperator`, Flink 2.3.0.
//! - [`streaming_semi_anti_join_operator`]: `StreamingSemiAntiJoinOperator` (`IN`, `EXISTS`,
//!   `NOT EXISTS`).
//! - [`join_record_state_view`]: each side's records (`JoinRecordStateViews`,
//!   `OuterJoinRecordStateViews`).

#[allow(clippy::module_inception)]
pub mod join;
pub mod join_record_state_view;
pub mod streaming_join_operator;
pub mod streaming_semi_anti_join_operator;
