//! The Blink planner's group aggregation of Flink 1.9.0 – 1.10.0: `GroupAggFunction` in
//! `flink-table/flink-table-runtime-blink/.../operators/aggregate/GroupAggFunction.java` (1.10.0,
//! read from the source), a `KeyedProcessFunctionWithCleanupState`:
//!
//! ```text
//! registerProcessingCleanupTimer(ctx, currentProcessingTime)    // idle state retention
//! acc = accState.value()
//! if acc == null: firstRow = true; acc = createAccumulators()    // no early return (FLINK-16047)
//! prev = getValue(); accumulate or retract; new = getValue()
//! if !recordCounter.recordCountIsZero(acc):
//!     accState.update(acc)
//!     if !firstRow:
//!         if !stateCleaningEnabled && equalsWithoutHeader(prev, new): return
//!         if generateRetraction: emit (false, key + prev)
//!     emit (true, key + new)
//! else:
//!     if !firstRow: emit (false, key + prev)
//!     accState.clear(); function.cleanup()
//! onTimer: if stateCleaningEnabled: cleanupState(accState); function.cleanup()
//! ```
//!
//! A retraction for a key without state (cleaned by its timer) creates accumulators and retracts
//! from them: `COUNT(*)` becomes −1, which is not zero, so the state is stored and the negative
//! result emitted as an accumulate message (FLINK-16047, fixed in 1.10.1 with the legacy
//! planner's fix of FLINK-10674). The messages carry the Blink header `ACCUMULATE_MSG` /
//! `RETRACT_MSG`, printed as `toRetractStream` prints them: `(true,row)` / `(false,row)`.

use super::GroupAggregateSpec;
use crate::engine::aggregate::{accumulate_or_retract, describe_accumulators, Accumulators, AggCall};
use crate::engine::cleanup_state::CleanupState;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Value};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::StateCell;

/// Blink 1.10's `GroupAggFunction` with its keyed state and cleanup timers.
#[derive(Debug, Clone)]
pub struct BlinkGroupAggFunction {
    spec: GroupAggregateSpec,
    /// The spec's calls, plus a hidden `COUNT(*)` when the input retracts and has none.
    calls: Vec<AggCall>,
    /// `indexOfCountStar` of the `RecordCounter`.
    index_of_count_star: Option<usize>,
    backend: KeyedStateBackend,
    /// `"accState"`: the accumulators.
    acc_state: ValueState<Accumulators>,
    /// `"GroupAggregateCleanupTime"` and the cleanup-timer rule.
    cleanup: CleanupState,
}

const CLEARED_BY_TIMER: &[&str] = &["accState", "GroupAggregateCleanupTime"];
const CLEARED_AT_ZERO: &[&str] = &["accState"];

impl BlinkGroupAggFunction {
    pub fn new(spec: GroupAggregateSpec, retention: IdleStateRetention) -> Self {
        let mut calls = spec.calls.clone();
        let index_of_count_star = if spec.input_retracts {
            Some(calls.iter().position(|c| *c == AggCall::CountStar).unwrap_or_else(|| {
                calls.push(AggCall::CountStar);
                calls.len() - 1
            }))
        } else {
            None
        };
        BlinkGroupAggFunction {
            spec,
            calls,
            index_of_count_star,
            backend: KeyedStateBackend::new(0),
            acc_state: ValueState::new("accState"),
            cleanup: CleanupState::new(retention).named("GroupAggregateCleanupTime"),
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

impl StreamOperator for BlinkGroupAggFunction {
    fn flink_class(&self) -> &'static str {
        "GroupAggFunction"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.group_by);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let decision = self.cleanup.process_cleanup_timer(&mut self.backend, key, now);
        ctx.record_cleanup(&key_row, decision);
        let accumulate = input.change.is_accumulate();
        let (mut accs, first_row) = match self.acc_state.peek(key) {
            Some(stored) => (stored.user_value.clone(), false),
            None => (self.calls.iter().map(|c| c.create_accumulator()).collect(), true),
        };
        if first_row && !accumulate {
            ctx.record(&key_row, || TraceEvent::Dropped {
                message: input.clone(),
                reason: "no accumulators for this key: new ones are created and the retraction is applied to \
                         them (FLINK-16047, fixed in 1.10.1)",
            });
        }
        let prev = self.spec.output(&key_row, &accs);
        accumulate_or_retract(&self.calls, &mut accs, &input.row, accumulate)?;
        let new = self.spec.output(&key_row, &accs);
        if !self.record_count_is_zero(&accs) {
            self.acc_state.update(&mut self.backend.keys, key, accs, now);
            if !first_row {
                if !self.cleanup.state_cleaning_enabled() && prev == new {
                    ctx.record(&key_row, || TraceEvent::Suppressed {
                        reason: "aggregate values unchanged and state cleaning is disabled",
                        row: new,
                    });
                    return Ok(());
                }
                if prev == new {
                    ctx.record(&key_row, || super::unchanged_result_reemitted("GroupAggFunction"));
                }
                if self.spec.generate_update_before {
                    ctx.collect(&key_row, Message::new(Change::Legacy(false), prev));
                }
            }
            ctx.collect(&key_row, Message::new(Change::Legacy(true), new));
        } else {
            if !first_row {
                ctx.collect(&key_row, Message::new(Change::Legacy(false), prev));
            }
            self.acc_state.clear(&mut self.backend.keys, key);
            ctx.record(&key_row, || TraceEvent::StateCleared {
                states: CLEARED_AT_ZERO,
                cause: ClearCause::CountZero,
                reason: "COUNT(*) reached 0 (recordCountIsZero); the cleanup timer stays registered",
            });
        }
        Ok(())
    }

    /// `onTimer`: no timestamp check — old timers are deleted.
    fn on_timer(&mut self, timestamp: Millis, key: KeyId, ctx: &mut Context) -> Result<(), String> {
        let key_row = self.backend.keys.row(key).clone();
        ctx.record(&key_row, || TraceEvent::TimerFired { timer_ms: timestamp });
        if self.cleanup.state_cleaning_enabled() {
            self.acc_state.clear(&mut self.backend.keys, key);
            self.cleanup.clear(&mut self.backend, key);
            ctx.record(&key_row, || TraceEvent::StateCleared {
                states: CLEARED_BY_TIMER,
                cause: ClearCause::CleanupTimer,
                reason: "cleanup timer fired: cleanupState(accState); nothing is emitted",
            });
            ctx.state_lost(&key_row, timestamp);
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
        vec![self.acc_state.name, self.cleanup.cleanup_time_state.name]
    }

    fn key_state(&self, key: KeyId, _now: Millis) -> Vec<Option<StateCell>> {
        let cell = |value: String| StateCell { time_ms: None, value, entries: 1, visible: 1, ttl: None };
        let names = &self.spec.output_columns[self.spec.group_by.len()..];
        vec![
            self.acc_state.peek(key).map(|a| {
                let mut value = describe_accumulators(names, &a.user_value);
                if self.index_of_count_star == Some(self.spec.calls.len()) {
                    value.push_str(&format!(", COUNT(*) (hidden): {}", a.user_value[self.spec.calls.len()].describe()));
                }
                cell(value)
            }),
            self.cleanup.state_cell(key),
        ]
    }

    fn ttl_of(&self, _key: KeyId, _now: Millis) -> Option<crate::engine::view::TtlView> {
        None
    }

    fn cleanup_time(&self, key: KeyId) -> Option<Millis> {
        self.cleanup.cleanup_time(key)
    }

    fn entries_stored(&self) -> u64 {
        self.acc_state.stored() + self.cleanup.cleanup_time_state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![
            (self.acc_state.name, self.acc_state.size(now)),
            (self.cleanup.cleanup_time_state.name, self.cleanup.cleanup_time_state.size(now)),
        ]
    }
}
