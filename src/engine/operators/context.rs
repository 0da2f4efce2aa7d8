//! What an operator call can see and do: the processing time, its output, the trace.

use crate::engine::row::{Message, Row};
use crate::engine::time::Millis;
use crate::engine::trace::{TraceEntry, TraceEvent};

/// The context of one `processElement` / `onTimer` call.
pub struct Context<'a> {
    /// `ctx.timerService().currentProcessingTime()`, in ms.
    pub now: Millis,
    /// The driving action the call belongs to.
    pub action: usize,
    /// The operator's id, for the trace.
    pub op_id: &'a str,
    /// Messages emitted downstream (`out.collect`).
    pub out: &'a mut Vec<Message>,
    pub trace: &'a mut Vec<TraceEntry>,
}

impl Context<'_> {
    /// Records an event for `key`.
    pub fn record(&mut self, key: &Row, event: TraceEvent) {
        self.trace.push(TraceEntry {
            action: self.action,
            time_ms: self.now,
            op: self.op_id.to_string(),
            key: Some(key.clone()),
            event,
        });
    }

    /// `out.collect(message)`, recorded in the trace.
    pub fn collect(&mut self, key: &Row, message: Message) {
        self.record(key, TraceEvent::Emitted { message: message.clone() });
        self.out.push(message);
    }
}
