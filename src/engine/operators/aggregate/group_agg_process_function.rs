//! The legacy planner's group aggregation, `GroupAggProcessFunction`.
//!
//! Models `flink-table/flink-table-planner/src/main/scala/org/apache/flink/table/runtime/aggregate/GroupAggProcessFunction.scala`
//! of Flink 1.10 (the same logic runs in 1.8 to 1.13), a `KeyedProcessFunctionWithCleanupState`
//! over `CRow` messages:
//!
//! 1. `processCleanupTimer(ctx, currentTime)` — the cleanup-timer rule, before state is read;
//! 2. no accumulators and a retraction (`!inputC.change`): return (the message is dropped);
//!    no accumulators otherwise: `firstRow = true`, create them;
//! 3. `inputCnt` (state `GroupAggregateInputCounter`) null → 0;
//! 4. `prevRow` (change = false) = keys of the **current input** + the old results;
//! 5. accumulate (`inputCnt += 1`) or retract (`inputCnt -= 1`); `newRow` (change = true) = keys + new results;
//! 6. `inputCnt != 0`: update both states; unless `firstRow`, either return when
//!    `prevRow.row.equals(newRow.row) && !stateCleaningEnabled`, or emit `prevRow` if
//!    `generateRetraction`; then emit `newRow`;
//! 7. `inputCnt == 0`: emit `prevRow` (a delete, even when `generateRetraction` is false) and
//!    clear both states.
//!
//! `onTimer`: if `stateCleaningEnabled`, `cleanupState(state, cntState)` (and `function.cleanup()`),
//! with no timestamp check (old timers are deleted since 1.8). Cleanup emits nothing.
//!
//! Older legacy planners (`flink-libraries/flink-table`, one class with the same logic):
//! - Flink ≤ 1.7 deleted no cleanup timer (FLINK-10543), so `onTimer` cleans only when
//!   `needToCleanupState(timestamp)`: the timer is the key's stored cleanup time;
//! - Flink ≤ 1.6 had no step 2's early return (FLINK-10674): a retraction for a key without
//!   accumulators creates them and retracts (input count −1, a negative sum), and the result is
//!   emitted as the key's first row, an accumulate message.

use super::GroupAggregateSpec;
use crate::engine::aggregate::{accumulate_or_retract, describe_accumulators, Accumulators};
use crate::engine::cleanup_state::CleanupState;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::options::FlinkMode;
use crate::engine::row::{Change, Message};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::StateCell;

/// `GroupAggProcessFunction` with its keyed state and timers.
#[derive(Debug, Clone)]
pub struct GroupAggProcessFunction {
    spec: GroupAggregateSpec,
    backend: KeyedStateBackend,
    /// `"GroupAggregateState"`: the accumulators.
    state: ValueState<Accumulators>,
    /// `"GroupAggregateInputCounter"`: accumulate messages minus retract messages.
    cnt_state: ValueState<i64>,
    cleanup: CleanupState,
    /// FLINK-10674 (Flink 1.7+): a retraction for a key without accumulators is dropped.
    drops_retraction_without_state: bool,
}

const CLEARED_BY_TIMER: &[&str] = &["GroupAggregateState", "GroupAggregateInputCounter", "CleanupTime"];
const CLEARED_AT_ZERO: &[&str] = &["GroupAggregateState", "GroupAggregateInputCounter"];

impl GroupAggProcessFunction {
    /// The function as `flink` runs it.
    pub fn new(spec: GroupAggregateSpec, retention: IdleStateRetention, flink: FlinkMode) -> Self {
        GroupAggProcessFunction {
            spec,
            backend: KeyedStateBackend::new(0),
            state: ValueState::new("GroupAggregateState"),
            cnt_state: ValueState::new("GroupAggregateInputCounter"),
            cleanup: CleanupState::with_deletion(retention, flink.deletes_old_cleanup_timers()),
            drops_retraction_without_state: flink.drops_retraction_without_state(),
        }
    }
}

impl StreamOperator for GroupAggProcessFunction {
    fn flink_class(&self) -> &'static str {
        "GroupAggProcessFunction"
    }

    /// `processElement(inputC, ctx, out)`.
    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.group_by);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let decision = self.cleanup.process_cleanup_timer(&mut self.backend, key, now);
        ctx.record_cleanup(&key_row, decision);
        let change = input.change.is_accumulate();
        let (mut accs, first_row) = match self.state.peek(key) {
            Some(accs) => (accs.user_value.clone(), false),
            None if !change && self.drops_retraction_without_state => {
                ctx.record(&key_row, || TraceEvent::Dropped {
                    message: input.clone(),
                    reason: "a retraction for a key without accumulators is ignored",
                });
                return Ok(());
            }
            None => (self.spec.calls.iter().map(|c| c.create_accumulator()).collect(), true),
        };
        let mut input_cnt = self.cnt_state.peek(key).map_or(0, |c| c.user_value);
        let prev_row = self.spec.output(&key_row, &accs);
        accumulate_or_retract(&self.spec.calls, &mut accs, &input.row, change)?;
        input_cnt += if change { 1 } else { -1 };
        let new_row = self.spec.output(&key_row, &accs);
        if input_cnt != 0 {
            self.state.update(&mut self.backend.keys, key, accs, now);
            self.cnt_state.update(&mut self.backend.keys, key, input_cnt, now);
            if !first_row {
                if prev_row == new_row && !self.cleanup.state_cleaning_enabled() {
                    ctx.record(&key_row, || TraceEvent::Suppressed {
                        reason: "prevRow equals newRow and state cleaning is disabled",
                        row: prev_row,
                    });
                    return Ok(());
                }
                if prev_row == new_row {
                    ctx.record(&key_row, || super::unchanged_result_reemitted("GroupAggProcessFunction"));
                }
                if self.spec.generate_update_before {
                    ctx.collect(&key_row, Message::new(Change::Legacy(false), prev_row));
                }
            }
            ctx.collect(&key_row, Message::new(Change::Legacy(true), new_row));
        } else {
            ctx.collect(&key_row, Message::new(Change::Legacy(false), prev_row));
            self.state.clear(&mut self.backend.keys, key);
            self.cnt_state.clear(&mut self.backend.keys, key);
            let cleaning = self.cleanup.state_cleaning_enabled();
            ctx.record(&key_row, || TraceEvent::StateCleared {
                states: CLEARED_AT_ZERO,
                cause: ClearCause::CountZero,
                reason: if cleaning {
                    "the input counter reached 0 (the cleanup timer stays registered)"
                } else {
                    "the input counter reached 0"
                },
            });
        }
        Ok(())
    }

    /// `onTimer(timestamp, ctx, out)` for a cleanup timer of `key`.
    fn on_timer(&mut self, timestamp: Millis, key: KeyId, ctx: &mut Context) -> Result<(), String> {
        let key_row = self.backend.keys.row(key).clone();
        ctx.record(&key_row, || TraceEvent::TimerFired { timer_ms: timestamp });
        if !self.cleanup.deletes_old_timers && !self.cleanup.need_to_cleanup_state(key, timestamp) {
            let cleanup_ms = self.cleanup.cleanup_time(key);
            ctx.record(&key_row, || TraceEvent::StaleTimerIgnored { timer_ms: timestamp, cleanup_ms });
            return Ok(());
        }
        if self.cleanup.state_cleaning_enabled() {
            self.state.clear(&mut self.backend.keys, key);
            self.cnt_state.clear(&mut self.backend.keys, key);
            self.cleanup.clear(&mut self.backend, key);
            ctx.record(&key_row, || TraceEvent::StateCleared {
                states: CLEARED_BY_TIMER,
                cause: ClearCause::CleanupTimer,
                reason: "cleanup timer fired: cleanupState(state, cntState); nothing is emitted",
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
        vec![self.state.name, self.cnt_state.name, self.cleanup.cleanup_time_state.name]
    }

    fn key_state(&self, key: KeyId, _now: Millis) -> Vec<Option<StateCell>> {
        let cell = |value: String| StateCell { time_ms: None, value, entries: 1, visible: 1, ttl: None };
        let names = &self.spec.output_columns[self.spec.group_by.len()..];
        vec![
            self.state.peek(key).map(|a| cell(describe_accumulators(names, &a.user_value))),
            self.cnt_state.peek(key).map(|c| cell(c.user_value.to_string())),
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
        self.state.stored() + self.cnt_state.stored() + self.cleanup.cleanup_time_state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![
            (self.state.name, self.state.size(now)),
            (self.cnt_state.name, self.cnt_state.size(now)),
            (self.cleanup.cleanup_time_state.name, self.cleanup.cleanup_time_state.size(now)),
        ]
    }
}
