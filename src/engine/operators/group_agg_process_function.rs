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

use super::Context;
use crate::engine::aggregate::{accumulate_or_retract, Accumulator};
use crate::engine::cleanup_state::CleanupState;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::keyed_state::ValueState;
use crate::engine::row::{Change, Message, Row};
use crate::engine::scenario::GroupAggregateSpec;
use crate::engine::time::Millis;
use crate::engine::timer_service::TimerService;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::{KeyView, OperatorView};
use std::collections::BTreeSet;

/// `GroupAggProcessFunction` with its keyed state and timers.
#[derive(Debug, Clone)]
pub struct GroupAggProcessFunction {
    pub spec: GroupAggregateSpec,
    /// `"GroupAggregateState"`: the accumulators.
    state: ValueState<Row, Vec<Accumulator>>,
    /// `"GroupAggregateInputCounter"`: accumulate messages minus retract messages.
    cnt_state: ValueState<Row, i64>,
    cleanup: CleanupState<Row>,
    pub timers: TimerService<Row>,
}

impl GroupAggProcessFunction {
    pub fn new(spec: GroupAggregateSpec, retention: IdleStateRetention) -> Self {
        GroupAggProcessFunction {
            spec,
            state: ValueState::new("GroupAggregateState"),
            cnt_state: ValueState::new("GroupAggregateInputCounter"),
            cleanup: CleanupState::new(retention),
            timers: TimerService::default(),
        }
    }

    fn results(&self, key: &Row, accs: &[Accumulator]) -> Row {
        key.concat(&Row(self.spec.calls.iter().zip(accs).map(|(c, a)| c.get_value(a)).collect()))
    }

    /// `processElement(inputC, ctx, out)`.
    ///
    /// # Errors
    /// When an aggregate function fails (Flink would fail the job).
    pub fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key = input.row.project(&self.spec.group_by);
        ctx.record(&key, TraceEvent::Received { message: input.clone() });
        let decision = self.cleanup.process_cleanup_timer(&key, ctx.now, &mut self.timers);
        ctx.record(&key, TraceEvent::Decision(decision));
        if let Some(timer_ms) = decision.registered() {
            ctx.record(&key, TraceEvent::TimerRegistered { timer_ms });
        }
        if let Some(timer_ms) = decision.deleted() {
            ctx.record(&key, TraceEvent::TimerDeleted { timer_ms });
        }
        let change = input.change.is_accumulate();
        let (mut accs, first_row) = match self.state.value(&key) {
            Some(accs) => (accs.clone(), false),
            None if !change => {
                ctx.record(
                    &key,
                    TraceEvent::Dropped {
                        message: input.clone(),
                        reason: "a retraction for a key without accumulators is ignored".into(),
                    },
                );
                return Ok(());
            }
            None => (self.spec.calls.iter().map(|c| c.create_accumulator()).collect(), true),
        };
        let mut input_cnt = self.cnt_state.value(&key).copied().unwrap_or(0);
        let prev_row = self.results(&key, &accs);
        accumulate_or_retract(&self.spec.calls, &mut accs, &input.row, change)?;
        input_cnt += if change { 1 } else { -1 };
        let new_row = self.results(&key, &accs);
        if input_cnt != 0 {
            self.state.update(&key, accs);
            self.cnt_state.update(&key, input_cnt);
            if !first_row {
                if prev_row == new_row && !self.cleanup.state_cleaning_enabled() {
                    ctx.record(
                        &key,
                        TraceEvent::Suppressed {
                            reason: format!(
                                "prevRow {} equals newRow and state cleaning is disabled",
                                Message::new(Change::Legacy(false), prev_row)
                            ),
                        },
                    );
                    return Ok(());
                }
                if self.spec.generate_update_before {
                    ctx.collect(&key, Message::new(Change::Legacy(false), prev_row));
                }
            }
            ctx.collect(&key, Message::new(Change::Legacy(true), new_row));
        } else {
            ctx.collect(&key, Message::new(Change::Legacy(false), prev_row));
            self.state.clear(&key);
            self.cnt_state.clear(&key);
            ctx.record(
                &key,
                TraceEvent::StateCleared {
                    states: vec![self.state.name, self.cnt_state.name],
                    cause: ClearCause::CountZero,
                    reason: if self.cleanup.state_cleaning_enabled() {
                        "the input counter reached 0 (the cleanup timer stays registered)".into()
                    } else {
                        "the input counter reached 0".into()
                    },
                },
            );
        }
        Ok(())
    }

    /// `onTimer(timestamp, ctx, out)` for a cleanup timer of `key`.
    pub fn on_timer(&mut self, key: &Row, timestamp: Millis, ctx: &mut Context) {
        ctx.record(key, TraceEvent::TimerFired { timer_ms: timestamp });
        if self.cleanup.state_cleaning_enabled() {
            self.state.clear(key);
            self.cnt_state.clear(key);
            self.cleanup.clear(key);
            ctx.record(
                key,
                TraceEvent::StateCleared {
                    states: vec![self.state.name, self.cnt_state.name, self.cleanup.cleanup_time_state.name],
                    cause: ClearCause::CleanupTimer,
                    reason: "cleanup timer fired: cleanupState(state, cntState); nothing is emitted".into(),
                },
            );
        }
    }

    /// The operator's keys and state.
    pub fn view(&self) -> OperatorView {
        let mut keys: BTreeSet<&Row> = self.state.iter().map(|(k, _)| k).collect();
        keys.extend(self.cleanup.cleanup_time_state.iter().map(|(k, _)| k));
        let names = &self.spec.output_columns[self.spec.group_by.len()..];
        OperatorView {
            id: self.spec.id.clone(),
            flink_class: "GroupAggProcessFunction",
            plan: self.spec.plan_text(),
            state_names: vec![self.state.name, self.cnt_state.name, self.cleanup.cleanup_time_state.name],
            keys: keys
                .into_iter()
                .map(|k| KeyView {
                    key: k.key_label(),
                    row: (*k).clone(),
                    accumulators: self.state.value(k).map(|accs| {
                        names
                            .iter()
                            .zip(accs)
                            .map(|(n, a)| format!("{}: {}", n.name, a.describe()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }),
                    input_count: self.cnt_state.value(k).copied(),
                    cleanup_time_ms: self.cleanup.cleanup_time(k),
                    timers_ms: self.timers.timers_of(k),
                    ttl: None,
                })
                .collect(),
        }
    }
}
