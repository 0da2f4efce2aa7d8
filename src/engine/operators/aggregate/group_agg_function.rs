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

use super::GroupAggregateSpec;
use crate::engine::aggregate::{accumulate_or_retract_filtered, describe_accumulators, Accumulators, AggCall};
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, RowKind, Value};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::{StateCell, TtlView};

/// `GroupAggFunction` with its keyed state.
#[derive(Debug, Clone)]
pub struct GroupAggFunction {
    spec: GroupAggregateSpec,
    /// The aggregate calls run: the spec's, plus a hidden `COUNT(*)` when the input retracts
    /// and the query has none.
    calls: Vec<AggCall>,
    /// Per call, its FILTER column.
    filters: Vec<Option<usize>>,
    /// Index in `calls` of the `COUNT(*)` the record counter reads (`indexOfCountStar`).
    index_of_count_star: Option<usize>,
    backend: KeyedStateBackend,
    /// `"accState"`: the accumulators, behind the TTL decorator.
    acc_state: ValueState<Accumulators>,
}

const ACC_STATE: &[&str] = &["accState"];

impl GroupAggFunction {
    /// `state_ttl_ms` is `table.exec.state.ttl` in ms (0 disables TTL).
    pub fn new(spec: GroupAggregateSpec, state_ttl_ms: Millis) -> Self {
        let mut calls = spec.calls.clone();
        let mut filters = spec.filters.clone();
        filters.resize(calls.len(), None);
        // The record counter is a `COUNT(*)` without a FILTER (`AggregateUtil.inferAggAccumulatorNames`
        // / `indexOfCountStar`), the query's own or a hidden one.
        let index_of_count_star = if spec.input_retracts {
            Some(calls.iter().zip(&filters).position(|(c, f)| *c == AggCall::CountStar && f.is_none()).unwrap_or_else(
                || {
                    calls.push(AggCall::CountStar);
                    filters.push(None);
                    calls.len() - 1
                },
            ))
        } else {
            None
        };
        let config = StateTtlConfig::create_ttl_config(state_ttl_ms);
        GroupAggFunction {
            spec,
            calls,
            filters,
            index_of_count_star,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            acc_state: ValueState::with_ttl("accState", config),
        }
    }

    /// `RecordCounter.recordCountIsZero(acc)`.
    fn record_count_is_zero(&self, accs: &Accumulators) -> bool {
        match self.index_of_count_star {
            Some(i) => self.calls[i].get_value(&accs[i]) == Value::Int(0),
            None => false,
        }
    }
}

impl StreamOperator for GroupAggFunction {
    fn flink_class(&self) -> &'static str {
        "GroupAggFunction"
    }

    /// `processElement(input, ctx, out)`.
    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.group_by);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let stored = match self.acc_state.value(&mut self.backend.keys, key, now) {
            TtlRead::Absent => None,
            TtlRead::Fresh(accs) => Some(accs),
            TtlRead::Expired { last_access_ms, expired_at_ms, returned } => {
                ctx.record(&key_row, || TraceEvent::StateExpired {
                    state: self.acc_state.name,
                    last_access_ms,
                    expired_at_ms,
                });
                ctx.state_lost(&key_row, expired_at_ms);
                returned
            }
        };
        let accumulate = input.change.is_accumulate();
        let (mut accs, first_row) = match stored {
            Some(accs) => (accs, false),
            None if !accumulate => {
                ctx.record(&key_row, || TraceEvent::Dropped {
                    message: input.clone(),
                    reason: "a retraction for a key without state is ignored (it may have expired)",
                });
                return Ok(());
            }
            None => (self.calls.iter().map(|c| c.create_accumulator()).collect(), true),
        };
        let prev = self.spec.output(&key_row, &accs);
        accumulate_or_retract_filtered(&self.calls, &self.filters, &mut accs, &input.row, accumulate)?;
        let new = self.spec.output(&key_row, &accs);
        if !self.record_count_is_zero(&accs) {
            self.acc_state.update(&mut self.backend.keys, key, accs, now);
            if first_row {
                ctx.collect(&key_row, Message::new(Change::Kind(RowKind::Insert), new));
            } else {
                // The equaliser compares the aggregate values; the keys are equal by construction.
                if !self.acc_state.config.is_enabled() && prev == new {
                    ctx.record(&key_row, || TraceEvent::Suppressed {
                        reason: "aggregate values unchanged and state TTL is off",
                        row: new,
                    });
                    return Ok(());
                }
                if prev == new {
                    ctx.record(&key_row, || super::unchanged_result_reemitted("GroupAggFunction"));
                }
                if self.spec.generate_update_before {
                    ctx.collect(&key_row, Message::new(Change::Kind(RowKind::UpdateBefore), prev));
                }
                ctx.collect(&key_row, Message::new(Change::Kind(RowKind::UpdateAfter), new));
            }
        } else {
            if !first_row {
                ctx.collect(&key_row, Message::new(Change::Kind(RowKind::Delete), prev));
            }
            self.acc_state.clear(&mut self.backend.keys, key);
            ctx.record(&key_row, || TraceEvent::StateCleared {
                states: ACC_STATE,
                cause: ClearCause::CountZero,
                reason: "COUNT(*) reached 0 (recordCountIsZero)",
            });
        }
        Ok(())
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        vec![self.acc_state.name]
    }

    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        let names = &self.spec.output_columns[self.spec.group_by.len()..];
        let cell = self.acc_state.peek(key).map(|stored| {
            let mut value = describe_accumulators(names, &stored.user_value);
            if self.index_of_count_star == Some(self.spec.calls.len()) {
                value
                    .push_str(&format!(", COUNT(*) (hidden): {}", stored.user_value[self.spec.calls.len()].describe()));
            }
            let ttl = self.ttl_of(key, now);
            let visible = usize::from(!ttl.is_some_and(|t| t.expired));
            StateCell { time_ms: None, value, entries: 1, visible, ttl }
        });
        vec![cell]
    }

    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        let config = &self.acc_state.config;
        let stored = self.acc_state.peek(key)?;
        config.is_enabled().then(|| TtlView {
            last_access_ms: stored.last_access_ms,
            expires_at_ms: config.expiration_timestamp(stored.last_access_ms),
            expired: config.expired(stored.last_access_ms, now),
        })
    }

    fn entries_stored(&self) -> u64 {
        self.acc_state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![(self.acc_state.name, self.acc_state.size(now))]
    }
}
