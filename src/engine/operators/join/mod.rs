//! Regular joins: the `Join` node of Flink's plan (`StreamPhysicalJoin`, `StreamExecJoin`).
//!
//! - [`join`]: the scenario format's `Join` operator and what the planner decides for it.
//! - [`streaming_join_operator`]: `StreamingJoinOperator`, Flink 2.3.0.
//! - [`streaming_semi_anti_join_operator`]: `StreamingSemiAntiJoinOperator` (`IN`, `EXISTS`,
//!   `NOT EXISTS`).
//! - [`lateral_snapshot_join`]: the `LateralSnapshotJoin` operator (`LATERAL SNAPSHOT`, FLIP-579,
//!   apache/flink main), run by [`lateral_snapshot_join_operator`]'s `LateralSnapshotJoinOperator` with its keyed
//!   states in [`lateral_snapshot_join_state`].
//! - [`join_record_state_view`]: each side's records (`JoinRecordStateViews`,
//!   `OuterJoinRecordStateViews`).

#[allow(clippy::module_inception)]
pub mod join;
pub mod join_record_state_view;
pub mod lateral_snapshot_join;
pub mod lateral_snapshot_join_operator;
pub mod lateral_snapshot_join_state;
pub mod streaming_join_operator;
pub mod streaming_semi_anti_join_operator;
