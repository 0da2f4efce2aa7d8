//! The group window family: the legacy planner's row-count windows (`Tumble over n.rows`,
//! `Slide over n.rows every m.rows`), planned by `DataStreamGroupWindowAggregate`.
//!
//! - [`count_window_aggregate`]: the spec (`"operator": "CountWindowAggregate"`) and its compiler.
//! - one file per Flink class: `count_window_operator` (`WindowOperator` /
//!   `EvictingWindowOperator` over a count window) and `state_cleaning_count_trigger`
//!   (`StateCleaningCountTrigger`).

pub(super) mod count_window_aggregate;
mod count_window_operator;
mod state_cleaning_count_trigger;
