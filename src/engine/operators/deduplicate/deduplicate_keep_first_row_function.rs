//! The Blink planner's keep-first deduplication of Flink 1.9.0 – 1.10.0 without mini-batch:
//! `DeduplicateKeepFirstRowFunction` in `flink-table/flink-table-runtime-blink/.../operators/
//! deduplicate/` (read from the source at apache/flink c28c86e, the `BaseRow` era before
//! FLINK-16581 moved deduplication to state TTL), a `KeyedProcessFunctionWithCleanupState`,
//! with `DeduplicateFunctionHelper.processFirstRow` of the same era:
//!
//! ```text
//! processElement:
//!   registerProcessingCleanupTimer(ctx, currentProcessingTime)   // idle state retention
//!   checkArgument(isAccumulateMsg(input))
//!   if state.value() != null: return                             // "existsState", a Boolean flag
//!   state.update(true); out.collect(input)
//! onTimer: if stateCleaningEnabled: cleanupState(state)         // flag and cleanup time cleared
//! ```
//!
//! Unlike state TTL, a duplicate moves the cleanup timer (`registerProcessingCleanupTimer` runs
//! before the flag is read): a key that keeps sending duplicates is never forgotten. A key idle
//! for the retention loses its flag when its timer fires, and its next row is emitted again. The
//! planner (`StreamExecDeduplicate.producesUpdates = keepLastRow`) labels keep-first insert-only.

use super::deduplicate::DeduplicateSpec;
use crate::engine::cleanup_state::CleanupState;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::Message;
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::{StateCell, TtlView};

const CLEARED_BY_TIMER: &[&str] = &["existsState", "DeduplicateFunctionKeepFirstRow"];

/// Blink 1.10's `DeduplicateKeepFirstRowFunction` with its keyed state and cleanup timers.
#[derive(Debug, Clone)]
pub struct DeduplicateKeepFirstRowFunction {
    spec: DeduplicateSpec,
    backend: KeyedStateBackend,
    /// `"existsState"`: whether the key has had its first row.
    state: ValueState<bool>,
    /// `initCleanupTimeState("DeduplicateFunctionKeepFirstRow")` and the cleanup-timer rule.
    cleanup: CleanupState,
}

impl DeduplicateKeepFirstRowFunction {
    /// `new DeduplicateKeepFirstRowFunction(minRetentionTime, maxRetentionTime)`.
    pub fn new(spec: DeduplicateSpec, retention: IdleStateRetention) -> Self {
        DeduplicateKeepFirstRowFunction {
            spec,
            backend: KeyedStateBackend::new(0),
            state: ValueState::new("existsState"),
            cleanup: CleanupState::new(retention).named("DeduplicateFunctionKeepFirstRow"),
        }
    }
}

/// `Preconditions.checkArgument(BaseRowUtil.isAccumulateMsg(currentRow))` of the 1.10 helper.
pub(super) fn check_accumulate(input: &Message) -> Result<(), String> {
    if input.change.is_accumulate() {
        Ok(())
    } else {
        Err(format!(
            "java.lang.IllegalArgumentException in DeduplicateFunctionHelper.processFirstRow: {input} is not an \
             accumulate message (the planner built this Deduplicate for an insert-only input)"
        ))
    }
}

impl StreamOperator for DeduplicateKeepFirstRowFunction {
    fn flink_class(&self) -> &'static str {
        "DeduplicateKeepFirstRowFunction"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.key);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let decision = self.cleanup.process_cleanup_timer(&mut self.backend, key, now);
        ctx.record_cleanup(&key_row, decision);
        check_accumulate(input)?;
        if self.state.peek(key).is_some() {
            ctx.record(&key_row, || TraceEvent::Dropped {
                message: input.clone(),
                reason: "duplicate: keep FirstRow (the key's existsState flag is set; the cleanup timer moved all \
                         the same)",
            });
            return Ok(());
        }
        self.state.update(&mut self.backend.keys, key, true, now);
        ctx.collect(&key_row, input.clone());
        Ok(())
    }

    /// `onTimer`: no timestamp check — old timers are deleted.
    fn on_timer(&mut self, timestamp: Millis, key: KeyId, ctx: &mut Context) -> Result<(), String> {
        let key_row = self.backend.keys.row(key).clone();
        ctx.record(&key_row, || TraceEvent::TimerFired { timer_ms: timestamp });
        if self.cleanup.state_cleaning_enabled() {
            self.state.clear(&mut self.backend.keys, key);
            self.cleanup.clear(&mut self.backend, key);
            ctx.record(&key_row, || TraceEvent::StateCleared {
                states: CLEARED_BY_TIMER,
                cause: ClearCause::CleanupTimer,
                reason: "cleanup timer fired: cleanupState(state); the key's next row is emitted as a first row",
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
        vec![self.state.name, self.cleanup.cleanup_time_state.name]
    }

    fn key_state(&self, key: KeyId, _now: Millis) -> Vec<Option<StateCell>> {
        let cell = |value: String| StateCell { time_ms: None, value, entries: 1, visible: 1, ttl: None };
        vec![self.state.peek(key).map(|s| cell(s.user_value.to_string())), self.cleanup.state_cell(key)]
    }

    fn ttl_of(&self, _key: KeyId, _now: Millis) -> Option<TtlView> {
        None
    }

    fn cleanup_time(&self, key: KeyId) -> Option<Millis> {
        self.cleanup.cleanup_time(key)
    }

    fn entries_stored(&self) -> u64 {
        self.state.stored() + self.cleanup.cleanup_time_state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![
            (self.state.name, self.state.size(now)),
            (self.cleanup.cleanup_time_state.name, self.cleanup.cleanup_time_state.size(now)),
        ]
    }
}
