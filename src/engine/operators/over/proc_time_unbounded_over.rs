//! The 1.10 legacy planner's `ProcTimeUnboundedOver`: `agg(x) OVER (… ORDER BY proctime ROWS|RANGE
//! BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`.
//!
//! Models `flink-table/flink-table-planner/.../runtime/aggregate/ProcTimeUnboundedOver.scala`
//! (Flink 1.10, read from the source), a `ProcessFunctionWithCleanupState`: every element runs
//! the cleanup-timer rule (`processCleanupTimer`) before reading its state `overState`; it then
//! accumulates and emits `CRow(input ++ aggregates, true)`. `onTimer`: if `stateCleaningEnabled`,
//! `cleanupState(state)` — silent; the key's next row starts from empty accumulators. The
//! cleanup time is kept in `ProcTimeUnboundedPartitionedOverCleanupTime`. Flink 2.3 replaced the
//! timers with state TTL (FLINK-29349), see [`ProcTimeUnboundedPrecedingFunction`].

use super::over_aggregate::OverAggregateSpec;
use super::ProcTimeUnboundedPrecedingFunction;
use crate::engine::cleanup_state::CleanupState;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::state::ValueState;

impl ProcTimeUnboundedPrecedingFunction {
    /// `ProcTimeUnboundedOver` with the scenario's idle state retention.
    pub fn legacy(spec: OverAggregateSpec, retention: IdleStateRetention) -> Self {
        let mut cleanup = CleanupState::new(retention);
        cleanup.cleanup_time_state = ValueState::new("ProcTimeUnboundedPartitionedOverCleanupTime");
        Self::with_cleanup(spec, "ProcTimeUnboundedOver", "overState", cleanup)
    }
}
