//! The group aggregation family: `SELECT <group_by>, <aggregates> FROM <input> GROUP BY
//! <group_by>`, planned by `StreamExecGroupAggregate` (Flink 1.9+; with mini-batch and two phases
//! `StreamExecLocalGroupAggregate` → `StreamExecGlobalGroupAggregate`) and, on the legacy
//! planner, by `DataStreamGroupAggregate`.
//!
//! - [`group_aggregate`]: the spec (`"operator": "GroupAggregate"`) and its compiler; its
//!   aggregate calls (`RawAggregate`, `compile_call`) and `column_index` are also read by the
//!   over, window, rank and deduplicate families, which is why they stay here, in the family that
//!   defines them.
//! - `agg_plan`: the plan texts `EXPLAIN` prints for it.
//! - one file per Flink class: [`GroupAggProcessFunction`] (legacy planner),
//!   [`BlinkGroupAggFunction`] (Blink 1.9 – 1.10), [`GroupAggFunction`] (Flink 1.12+),
//!   [`MiniBatchGroupAggFunction`] and [`MiniBatchLocalGlobalGroupAgg`] (mini-batch).

mod agg_plan;
mod blink_group_agg_function;
mod group_agg_function;
mod group_agg_process_function;
pub(super) mod group_aggregate;
mod mini_batch_global_group_agg_function;
mod mini_batch_group_agg_function;

pub use blink_group_agg_function::BlinkGroupAggFunction;

use crate::engine::trace::TraceEvent;

/// Why an aggregation emits a result equal to its previous one: Flink's group aggregations return
/// without emitting when the new result equals the previous one *and* state cleaning is off
/// (`GroupAggProcessFunction` of the legacy planner, 1.6–1.13: `prevRow.row.equals(newRow.row) &&
/// !stateCleaningEnabled`; the Blink `GroupAggFunction` of 1.9–1.10: `!stateCleaningEnabled &&
/// equalsWithoutHeader(prev, new)`; `GroupAggFunction` 2.3: `!ttlConfig.isEnabled() &&
/// equaliser.equals(prev, new)`; the mini-batch functions since FLINK-33936). With cleaning on,
/// the row is retracted and emitted again; each of those classes says why in the comment on that
/// `return`.
/// `class`: the Flink class whose rule ran (its name is shown with the quote).
pub(crate) fn unchanged_result_reemitted(class: &'static str) -> TraceEvent {
    TraceEvent::Note {
        what: format!(
            "the result is unchanged, but state cleaning is on (idle state retention or state TTL): it is \
             retracted and emitted again, \"to prevent too early state eviction of downstream operators\" \
             (Flink's {class}): each downstream operator sees the key and renews its state"
        ),
    }
}
pub use group_agg_function::GroupAggFunction;
pub use group_agg_process_function::GroupAggProcessFunction;
pub use group_aggregate::GroupAggregateSpec;
pub use mini_batch_global_group_agg_function::MiniBatchLocalGlobalGroupAgg;
pub use mini_batch_group_agg_function::MiniBatchGroupAggFunction;
