//! The 1.10 legacy planner's `ProcTimeBoundedRowsOver`: `agg(x) OVER (… ORDER BY proctime ROWS
//! BETWEEN n PRECEDING AND CURRENT ROW)`.
//!
//! Models `flink-table/flink-table-planner/.../runtime/aggregate/ProcTimeBoundedRowsOver.scala`
//! (Flink 1.10, read from the source), a `ProcessFunctionWithCleanupState` with idle state
//! retention's cleanup timers. Its algorithm is Flink 2.3's
//! [`ProcTimeRowsBoundedPrecedingFunction`](super::ProcTimeRowsBoundedPrecedingFunction) (which
//! was ported from it), with these differences, all modelled:
//! - its states are named `windowBufferMapState` and `aggregationState` (the others alike);
//! - it emits `CRow(row, true)`;
//! - a missing `smallestTSState` reads as `0` (Scala unboxing `null`), so a stored smallest
//!   time of 0 ms counts as none;
//! - it does not check that the list to retract from exists (a `NullPointerException`).

use super::over_aggregate::OverAggregateSpec;
use super::proc_time_rows_bounded_preceding_function::Flavor;
use super::ProcTimeRowsBoundedPrecedingFunction;
use crate::engine::idle_state_retention::IdleStateRetention;

const LEGACY_1_10: Flavor = Flavor {
    class: "ProcTimeBoundedRowsOver",
    input_state: "windowBufferMapState",
    acc_state: "aggregationState",
    cleared: &[
        "windowBufferMapState",
        "aggregationState",
        "processedCountState",
        "smallestTSState",
        "ProcTimeBoundedRowsOverCleanupTime",
    ],
    legacy: true,
};

impl ProcTimeRowsBoundedPrecedingFunction {
    /// `ProcTimeBoundedRowsOver` with the scenario's idle state retention.
    pub fn legacy(spec: OverAggregateSpec, retention: IdleStateRetention) -> Self {
        Self::with_flavor(spec, retention, LEGACY_1_10)
    }
}
