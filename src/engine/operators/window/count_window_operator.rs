//! The window operators of a legacy count window with [`StateCleaningCountTrigger`].
//!
//! Models the DataStream runtime's `WindowOperator` and `EvictingWindowOperator`
//! (`flink-streaming-java/.../runtime/operators/windowing/`, Flink 1.10, read from the source) on
//! `GlobalWindows` — one window per key, so its state namespace plays no part — as
//! `DataStreamGroupWindowAggregate` builds them (see [`super::count_window_aggregate`]):
//!
//! ```text
//! processElement(element):
//!   windowState.add(element)                 // tumbling: accumulate into the AggregatingState;
//!                                            // sliding: append to the ListState
//!   result = trigger.onElement(element)
//!   if result.isFire(): contents = windowState.get(); if contents != null: emitWindowContents
//!   if result.isPurge(): windowState.clear()
//!   registerCleanupTimer(window)             // GlobalWindow: maxTimestamp = Long.MAX_VALUE, none
//! onProcessingTime(timer):
//!   result = trigger.onProcessingTime(timer.timestamp)
//!   if result.isFire(): contents = windowState.get(); if contents != null: emitWindowContents
//!   if result.isPurge(): windowState.clear()
//! EvictingWindowOperator.emitWindowContents:
//!   CountEvictor(size).evictBefore: keep the last `size` elements; run the window function over
//!   them; windowState.clear(); re-add the kept elements
//! ```
//!
//! So the idle-state-retention cleanup timer (`FIRE_AND_PURGE`) **emits the window's partial
//! contents** before purging them: a tumbling window the rows since its last full window (nothing
//! when the window just fired and was purged), a sliding window its last `size` rows — the rows
//! of the last window it emitted again when none arrived since. The output is `(true, row)`:
//! the grouping key, then the aggregates (`IncrementalAggregateWindowFunction` /
//! `AggregateApplyWindowFunction`).

use super::count_window_aggregate::CountWindowAggregateSpec;
use super::state_cleaning_count_trigger::{OnTimer, StateCleaningCountTrigger};
use crate::engine::aggregate::{accumulate_or_retract, describe_accumulators, Accumulators};
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::options::FlinkMode;
use crate::engine::row::{Change, Message, Row};
use crate::engine::state::ttl::StateTtlConfig;
use crate::engine::state::{KeyId, KeyedStateBackend, ListState, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent, WindowTrigger};
use crate::engine::view::StateCell;

/// The window's contents (`"window-contents"`).
#[derive(Debug, Clone)]
enum WindowState {
    /// Tumbling: the accumulators of an `AggregatingState` (incremental aggregation).
    Aggregating(ValueState<Accumulators>),
    /// Sliding: the rows, for `CountEvictor.of(size)` to keep the last `size` of.
    Evicting { rows: ListState<Row>, size: u64 },
}

/// `WindowOperator` / `EvictingWindowOperator` with `StateCleaningCountTrigger`.
#[derive(Debug, Clone)]
pub struct CountWindowOperator {
    spec: CountWindowAggregateSpec,
    backend: KeyedStateBackend,
    window: WindowState,
    trigger: StateCleaningCountTrigger,
}

const TRIGGER_CLEARED: &[&str] = &["count", "countCleanup"];
const CONTENTS: &[&str] = &["window-contents"];

impl CountWindowOperator {
    /// The operators `flink`'s legacy planner builds for `spec`, with its idle state retention.
    pub fn new(spec: CountWindowAggregateSpec, retention: IdleStateRetention, flink: FlinkMode) -> Self {
        let deletes = flink.deletes_old_cleanup_timers();
        let (window, trigger) = match spec.slide {
            None => (
                WindowState::Aggregating(ValueState::new("window-contents")),
                StateCleaningCountTrigger::of(retention, spec.size, true, deletes),
            ),
            Some(slide) => (
                WindowState::Evicting {
                    rows: ListState::new("window-contents", StateTtlConfig::DISABLED),
                    size: spec.size,
                },
                StateCleaningCountTrigger::of(retention, slide, false, deletes),
            ),
        };
        CountWindowOperator { spec, backend: KeyedStateBackend::new(0), window, trigger }
    }

    /// `windowState.add(element)`.
    fn add(&mut self, key: KeyId, row: &Row, now: Millis) -> Result<(), String> {
        let keys = &mut self.backend.keys;
        match &mut self.window {
            WindowState::Aggregating(state) => {
                let mut accs: Accumulators = match state.peek(key) {
                    Some(a) => a.user_value.clone(),
                    None => self.spec.calls.iter().map(|c| c.create_accumulator()).collect(),
                };
                accumulate_or_retract(&self.spec.calls, &mut accs, row, true)?;
                state.update(keys, key, accs, now);
            }
            WindowState::Evicting { rows, .. } => rows.add(keys, key, row.clone(), now),
        }
        Ok(())
    }

    /// `contents = windowState.get(); if (contents != null) emitWindowContents(..)`, then the
    /// purge when `purge`.
    fn fire(&mut self, key: KeyId, key_row: &Row, purge: bool, now: Millis, ctx: &mut Context) -> Result<(), String> {
        let keys = &mut self.backend.keys;
        let output = match &mut self.window {
            WindowState::Aggregating(state) => state.peek(key).map(|a| self.spec.output(key_row, &a.user_value)),
            WindowState::Evicting { rows, size } => {
                let mut contents: Vec<Row> = rows.peek(key).iter().map(|e| e.user_value.clone()).collect();
                if contents.is_empty() {
                    None
                } else {
                    // CountEvictor.evictBefore: drop all but the last `size`.
                    let keep_from = contents.len().saturating_sub(usize::try_from(*size).unwrap_or(usize::MAX));
                    contents.drain(..keep_from);
                    let mut accs: Accumulators = self.spec.calls.iter().map(|c| c.create_accumulator()).collect();
                    for row in &contents {
                        accumulate_or_retract(&self.spec.calls, &mut accs, row, true)?;
                    }
                    if keep_from > 0 {
                        // FLINK-4369's work-around: the state is rewritten with the kept elements.
                        rows.update(keys, key, contents, now);
                    }
                    Some(self.spec.output(key_row, &accs))
                }
            }
        };
        if let Some(row) = output {
            ctx.collect(key_row, Message::new(Change::Legacy(true), row));
        }
        if purge {
            let cleared = match &mut self.window {
                WindowState::Aggregating(state) => state.clear(&mut self.backend.keys, key),
                WindowState::Evicting { rows, .. } => rows.clear(&mut self.backend.keys, key),
            };
            if cleared {
                ctx.record(key_row, || TraceEvent::StateCleared {
                    states: CONTENTS,
                    cause: ClearCause::WindowPurged,
                    reason: "FIRE_AND_PURGE: windowState.clear()",
                });
            }
        }
        Ok(())
    }

    /// Rows the window holds for `key` (for a tumbling window, those the trigger counted).
    fn elements(&self, key: KeyId) -> u64 {
        match &self.window {
            WindowState::Aggregating(state) => {
                if state.peek(key).is_some() {
                    self.trigger.count_of(key).unwrap_or(0)
                } else {
                    0
                }
            }
            WindowState::Evicting { rows, size } => (rows.peek(key).len() as u64).min(*size),
        }
    }
}

impl StreamOperator for CountWindowOperator {
    fn flink_class(&self) -> &'static str {
        match self.window {
            WindowState::Aggregating(_) => "WindowOperator + PurgingTrigger(StateCleaningCountTrigger)",
            WindowState::Evicting { .. } => "EvictingWindowOperator (CountEvictor) + StateCleaningCountTrigger",
        }
    }

    /// `WindowOperator.processElement` / `EvictingWindowOperator.processElement`.
    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.group_by);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        self.add(key, &input.row, now)?;
        let (decision, result) = self.trigger.on_element(&mut self.backend, key, now);
        ctx.record_cleanup(&key_row, decision);
        if !result.is_fire() {
            return Ok(());
        }
        let by = WindowTrigger::Count { max_count: self.trigger.max_count };
        let purge = result.is_purge();
        // The trigger cleared its count: a tumbling window holds `maxCount` elements.
        let elements = match self.window {
            WindowState::Aggregating(_) => self.trigger.max_count,
            WindowState::Evicting { .. } => self.elements(key),
        };
        ctx.record(&key_row, || TraceEvent::WindowTriggered { by, purge, elements });
        self.fire(key, &key_row, purge, now, ctx)
    }

    /// `onProcessingTime(timer)`: the cleanup timer of `key`.
    fn on_timer(&mut self, timestamp: Millis, key: KeyId, ctx: &mut Context) -> Result<(), String> {
        let key_row = self.backend.keys.row(key).clone();
        ctx.record(&key_row, || TraceEvent::TimerFired { timer_ms: timestamp });
        // What the window holds, read before the trigger clears its count.
        let elements = self.elements(key);
        match self.trigger.on_processing_time(&mut self.backend, key, timestamp) {
            OnTimer::Disabled => Ok(()),
            OnTimer::Stale { cleanup_ms } => {
                ctx.record(&key_row, || TraceEvent::StaleTimerIgnored { timer_ms: timestamp, cleanup_ms });
                Ok(())
            }
            OnTimer::Cleaned => {
                ctx.record(&key_row, || TraceEvent::StateCleared {
                    states: TRIGGER_CLEARED,
                    cause: ClearCause::CleanupTimer,
                    reason: "cleanup timer fired: StateCleaningCountTrigger.clear(window, ctx), then FIRE_AND_PURGE",
                });
                let by = WindowTrigger::CleanupTimer;
                ctx.record(&key_row, || TraceEvent::WindowTriggered { by, purge: true, elements });
                self.fire(key, &key_row, true, timestamp, ctx)
            }
        }
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        vec!["window-contents", self.trigger.count.name, self.trigger.cleanup.cleanup_time_state.name]
    }

    fn key_state(&self, key: KeyId, _now: Millis) -> Vec<Option<StateCell>> {
        let cell =
            |value: String, entries: usize| StateCell { time_ms: None, value, entries, visible: entries, ttl: None };
        let contents = match &self.window {
            WindowState::Aggregating(state) => {
                state.peek(key).map(|a| cell(describe_accumulators(self.spec.aggregate_columns(), &a.user_value), 1))
            }
            WindowState::Evicting { rows, .. } => {
                let rows = rows.peek(key);
                (!rows.is_empty()).then(|| {
                    let text: Vec<String> = rows.iter().map(|r| format!("[{}]", r.user_value.join(", "))).collect();
                    cell(text.join(" "), rows.len())
                })
            }
        };
        vec![contents, self.trigger.count_of(key).map(|c| cell(c.to_string(), 1)), self.trigger.cleanup.state_cell(key)]
    }

    fn ttl_of(&self, _key: KeyId, _now: Millis) -> Option<crate::engine::view::TtlView> {
        None
    }

    fn cleanup_time(&self, key: KeyId) -> Option<Millis> {
        self.trigger.cleanup.cleanup_time(key)
    }

    fn entries_stored(&self) -> u64 {
        let contents = match &self.window {
            WindowState::Aggregating(state) => state.stored(),
            WindowState::Evicting { rows, .. } => rows.stored(),
        };
        contents + self.trigger.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        let contents = match &self.window {
            WindowState::Aggregating(state) => state.size(now),
            WindowState::Evicting { rows, .. } => rows.size(now),
        };
        let [count, cleanup] = self.trigger.sizes(now);
        vec![("window-contents", contents), count, cleanup]
    }
}
