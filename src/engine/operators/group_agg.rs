//! Flink 2.3's group aggregation, `GroupAggFunction` (with `GroupAggHelper`).
//!
//! Models `flink-table/flink-table-runtime/.../operators/aggregate/GroupAggFunction.java` and
//! `operators/aggregate/utils/GroupAggHelper.java` (Flink 2.x; the same logic since 1.12):
//!
//! ```text
//! acc = accState.value()                          // TTL: an expired value is removed and reads as null
//! if acc == null:
//!     if isRetractMsg(input): return              // UPDATE_BEFORE or DELETE on an empty key is dropped
//!     firstRow = true; acc = createAccumulators()
//! prev = getValue(acc); accumulate or retract; new = getValue(acc)
//! if !recordCounter.recordCountIsZero(acc):
//!     accState.update(acc)                        // a write: refreshes the TTL
//!     if !firstRow:
//!         if !ttlConfig.isEnabled() && prev == new: return     // unchanged results only with TTL on
//!         if generateUpdateBefore: emit -U[key, prev]
//!         emit +U[key, new]
//!     else emit +I[key, new]
//! else:
//!     if !firstRow: emit -D[key, prev]
//!     accState.clear()
//! ```
//!
//! `RecordCounter`: when the input can retract, the planner makes sure a `COUNT(*)` exists
//! (adding a hidden one) and a key is empty when it reaches 0; for an insert-only input the
//! count is never zero, so `-D` is never emitted. The equaliser compares aggregate values only.
//! State TTL is `StateConfigUtil.createTtlConfig(table.exec.state.ttl)`; no timers are used.

use super::Context;
use crate::engine::aggregate::{accumulate_or_retract, Accumulator, AggCall};
use crate::engine::row::{Change, Message, Row, RowKind, Value};
use crate::engine::scenario::GroupAggregateSpec;
use crate::engine::state_ttl::{StateTtlConfig, TtlRead, TtlValueState, Visibility};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::{KeyView, OperatorView, TtlView};

/// `GroupAggFunction` with its keyed state.
#[derive(Debug, Clone)]
pub struct GroupAggFunction {
    pub spec: GroupAggregateSpec,
    /// The aggregate calls run: the spec's, plus a hidden `COUNT(*)` when the input retracts
    /// and the query has none.
    calls: Vec<AggCall>,
    /// Index in `calls` of the `COUNT(*)` the record counter reads (`indexOfCountStar`).
    index_of_count_star: Option<usize>,
    /// `"accState"`: the accumulators, behind the TTL decorator.
    acc_state: TtlValueState<Row, Vec<Accumulator>>,
}

impl GroupAggFunction {
    /// `state_ttl_ms` is `table.exec.state.ttl` in ms (0 disables TTL).
    pub fn new(spec: GroupAggregateSpec, state_ttl_ms: Millis) -> Self {
        let mut calls = spec.calls.clone();
        let index_of_count_star = if spec.input_retracts {
            Some(calls.iter().position(|c| *c == AggCall::CountStar).unwrap_or_else(|| {
                calls.push(AggCall::CountStar);
                calls.len() - 1
            }))
        } else {
            None
        };
        GroupAggFunction {
            spec,
            calls,
            index_of_count_star,
            acc_state: TtlValueState::new("accState", StateTtlConfig::create_ttl_config(state_ttl_ms)),
        }
    }

    /// The visible aggregate values (the hidden `COUNT(*)` is not part of the output).
    fn get_value(&self, accs: &[Accumulator]) -> Row {
        Row(self.spec.calls.iter().zip(accs).map(|(c, a)| c.get_value(a)).collect())
    }

    /// `RecordCounter.recordCountIsZero(acc)`.
    fn record_count_is_zero(&self, accs: &[Accumulator]) -> bool {
        match self.index_of_count_star {
            Some(i) => self.calls[i].get_value(&accs[i]) == Value::Int(0),
            None => false,
        }
    }

    /// `processElement(input, ctx, out)`.
    ///
    /// # Errors
    /// When an aggregate function fails (Flink would fail the job).
    pub fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key = input.row.project(&self.spec.group_by);
        ctx.record(&key, TraceEvent::Received { message: input.clone() });
        let stored = match self.acc_state.value(&key, ctx.now) {
            TtlRead::Absent => None,
            TtlRead::Fresh(accs) => Some(accs),
            TtlRead::Expired { last_access_ms, expired_at_ms, returned } => {
                ctx.record(
                    &key,
                    TraceEvent::StateExpired { state: self.acc_state.name(), last_access_ms, expired_at_ms },
                );
                returned
            }
        };
        let accumulate = input.change.is_accumulate();
        let (mut accs, first_row) = match stored {
            Some(accs) => (accs, false),
            None if !accumulate => {
                ctx.record(
                    &key,
                    TraceEvent::Dropped {
                        message: input.clone(),
                        reason: "a retraction for a key without state is ignored (it may have expired)".into(),
                    },
                );
                return Ok(());
            }
            None => (self.calls.iter().map(|c| c.create_accumulator()).collect(), true),
        };
        let prev = self.get_value(&accs);
        accumulate_or_retract(&self.calls, &mut accs, &input.row, accumulate)?;
        let new = self.get_value(&accs);
        let emit = |kind: RowKind, values: Row| Message::new(Change::Kind(kind), key.concat(&values));
        if !self.record_count_is_zero(&accs) {
            self.acc_state.update(&key, accs, ctx.now);
            if first_row {
                ctx.collect(&key, emit(RowKind::Insert, new));
            } else {
                if !self.acc_state.config.is_enabled() && prev == new {
                    ctx.record(
                        &key,
                        TraceEvent::Suppressed {
                            reason: format!("aggregate values [{}] unchanged and state TTL is off", new.join(", ")),
                        },
                    );
                    return Ok(());
                }
                if self.spec.generate_update_before {
                    ctx.collect(&key, emit(RowKind::UpdateBefore, prev));
                }
                ctx.collect(&key, emit(RowKind::UpdateAfter, new));
            }
        } else {
            if !first_row {
                ctx.collect(&key, emit(RowKind::Delete, prev));
            }
            self.acc_state.clear(&key);
            ctx.record(
                &key,
                TraceEvent::StateCleared {
                    states: vec![self.acc_state.name()],
                    cause: ClearCause::CountZero,
                    reason: "COUNT(*) reached 0 (recordCountIsZero)".into(),
                },
            );
        }
        Ok(())
    }

    /// The operator's keys and state at processing time `now`.
    pub fn view(&self, now: Millis) -> OperatorView {
        let names = &self.spec.output_columns[self.spec.group_by.len()..];
        let describe = |accs: &[Accumulator]| {
            let mut parts: Vec<String> =
                names.iter().zip(accs).map(|(n, a)| format!("{}: {}", n.name, a.describe())).collect();
            if self.index_of_count_star == Some(self.spec.calls.len()) {
                parts.push(format!("COUNT(*) (hidden): {}", accs[self.spec.calls.len()].describe()));
            }
            parts.join(", ")
        };
        OperatorView {
            id: self.spec.id.clone(),
            flink_class: "GroupAggFunction",
            plan: self.spec.plan_text(),
            state_names: vec![self.acc_state.name()],
            keys: self
                .acc_state
                .iter()
                .map(|(k, stored)| KeyView {
                    key: k.key_label(),
                    row: k.clone(),
                    accumulators: Some(describe(&stored.user_value)),
                    input_count: None,
                    cleanup_time_ms: None,
                    timers_ms: vec![],
                    ttl: self.acc_state.config.is_enabled().then(|| TtlView {
                        last_access_ms: stored.last_access_ms,
                        expires_at_ms: self.acc_state.config.expiration_timestamp(stored.last_access_ms),
                        expired: self.acc_state.visibility(stored, now) == Visibility::ExpiredStillStored,
                    }),
                })
                .collect(),
        }
    }
}
