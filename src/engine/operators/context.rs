//! What an operator call can see and do: the processing time, its output, the trace.

use crate::engine::cleanup_state::CleanupDecision;
use crate::engine::row::{Change, Message, Row, RowKind};
use crate::engine::time::Millis;
use crate::engine::trace::{TraceEntry, TraceEvent};
use std::rc::Rc;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Messages an operator emitted so far, by kind (serialised without the kinds it never emitted:
/// a legacy operator shows `accumulate`/`retract`, a Flink 2.3 one the `RowKind`s).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct EmitCounts {
    /// `+I`, `-U`, `+U`, `-D` (`RowKind`, Flink 1.11+).
    #[serde(skip_serializing_if = "is_zero")]
    pub insert: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub update_before: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub update_after: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub delete: u64,
    /// The legacy planner's `(true, row)` and `(false, row)`.
    #[serde(skip_serializing_if = "is_zero")]
    pub accumulate: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub retract: u64,
}

impl EmitCounts {
    fn count(&mut self, change: Change) {
        let slot = match change {
            Change::Kind(RowKind::Insert) => &mut self.insert,
            Change::Kind(RowKind::UpdateBefore) => &mut self.update_before,
            Change::Kind(RowKind::UpdateAfter) => &mut self.update_after,
            Change::Kind(RowKind::Delete) => &mut self.delete,
            Change::Legacy(true) => &mut self.accumulate,
            Change::Legacy(false) => &mut self.retract,
        };
        *slot += 1;
    }

    /// All messages emitted.
    pub fn total(&self) -> u64 {
        self.insert + self.update_before + self.update_after + self.delete + self.accumulate + self.retract
    }
}

/// The context of one `processElement` / `onTimer` call.
pub struct Context<'a> {
    /// `ctx.timerService().currentProcessingTime()`, in ms.
    pub now: Millis,
    /// The driving action the call belongs to.
    pub(crate) action: usize,
    /// The operator's id, for the trace.
    pub(crate) op_id: &'a Rc<str>,
    /// Messages emitted downstream (`out.collect`).
    pub(crate) out: &'a mut Vec<Message>,
    /// Where events go at the `full` trace level; `None` at `metrics`.
    pub(crate) trace: Option<&'a mut Vec<TraceEntry>>,
    /// Keys whose state was lost without a message: (key, since when).
    pub(crate) lost: &'a mut Vec<(Row, Millis)>,
    pub(crate) emitted: &'a mut EmitCounts,
}

impl Context<'_> {
    /// Records what the cleanup-timer rule (`CleanupState.registerProcessingCleanupTimer`)
    /// decided for `key_row`, and the timers it registered and deleted.
    pub fn record_cleanup(&mut self, key_row: &Row, decision: CleanupDecision) {
        if self.tracing() {
            self.record(key_row, || TraceEvent::Decision(decision));
            if let Some(timer_ms) = decision.registered() {
                self.record(key_row, || TraceEvent::TimerRegistered { timer_ms });
            }
            if let Some(timer_ms) = decision.deleted() {
                self.record(key_row, || TraceEvent::TimerDeleted { timer_ms });
            }
        }
    }

    /// Whether events are recorded (the `full` trace level).
    pub fn tracing(&self) -> bool {
        self.trace.is_some()
    }

    /// Records an event for `key`. `event` is only built at the `full` trace level.
    pub fn record(&mut self, key: &Row, event: impl FnOnce() -> TraceEvent) {
        if let Some(trace) = self.trace.as_deref_mut() {
            trace.push(TraceEntry {
                action: self.action,
                time_ms: self.now,
                op: self.op_id.clone(),
                key: Some(key.clone()),
                event: event(),
            });
        }
    }

    /// Records an event of a stateless operator (no key).
    pub fn record_unkeyed(&mut self, event: impl FnOnce() -> TraceEvent) {
        if let Some(trace) = self.trace.as_deref_mut() {
            trace.push(TraceEntry {
                action: self.action,
                time_ms: self.now,
                op: self.op_id.clone(),
                key: None,
                event: event(),
            });
        }
    }

    /// `out.collect(message)` of a stateless operator, counted and recorded.
    pub fn collect_unkeyed(&mut self, message: Message) {
        self.emitted.count(message.change);
        if self.tracing() {
            let m = message.clone();
            self.record_unkeyed(|| TraceEvent::Emitted { message: m });
        }
        self.out.push(message);
    }

    /// `out.collect(message)`, counted and recorded in the trace.
    pub fn collect(&mut self, key: &Row, message: Message) {
        self.emitted.count(message.change);
        if self.tracing() {
            let m = message.clone();
            self.record(key, || TraceEvent::Emitted { message: m });
        }
        self.out.push(message);
    }

    /// The key's state was lost at `at` without any message downstream (a cleanup timer, state
    /// TTL): rows it produced can never be retracted.
    pub fn state_lost(&mut self, key: &Row, at: Millis) {
        self.lost.push((key.clone(), at));
    }
}
