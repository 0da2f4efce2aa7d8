//! One call of an operator's function — a record, a timer, a watermark — as every caller in the
//! pipeline makes it: the operator's states read the call's time as their TTL clock
//! (`TtlTimeProvider`), a [`Context`] collects what it emits and records, the key accesses are
//! finished, and the entries the state TTL's background cleanup removed during the call are
//! traced.

use super::{Node, TraceSink};
use crate::engine::error::{escape_line, quote, StepError};
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Message, Row};
use crate::engine::time::Millis;
use crate::engine::trace::{TraceEntry, TraceEvent};

/// Calls `f` on `node`'s operator at `now`, its output into `out`; `what` says which call it was
/// in an error (`on +I[a, 1]`, `in onTimer(5)`).
///
/// # Errors
/// The operator's failure: `operator 'X' failed <what>: <its message>`.
#[allow(clippy::too_many_arguments)]
pub(super) fn call<R>(
    node: &mut Node,
    lost: &mut Vec<(Row, Millis)>,
    out: &mut Vec<Message>,
    now: Millis,
    action: usize,
    trace: &mut TraceSink,
    f: impl FnOnce(&mut dyn StreamOperator, &mut Context) -> Result<R, String>,
    what: impl FnOnce() -> String,
) -> Result<R, StepError> {
    node.op.backend_mut().keys.set_ttl_time(now);
    let start = trace.as_ref().map_or(0, |t| t.len());
    let Node { op, id, emitted, .. } = node;
    let mut ctx = Context { now, action, op_id: id, out, trace: trace.as_deref_mut(), lost, emitted };
    let outcome = f(op.as_mut(), &mut ctx);
    op.backend_mut().keys.finish();
    end_call(node, start, now, action, trace.as_deref_mut());
    outcome.map_err(|e| StepError(format!("operator {} failed {}: {}", quote(&node.id), what(), escape_line(&e))))
}

/// After an operator call: the entries the state TTL's background cleanup removed during the
/// call go into the trace right after the call's first event. Each was removed by a state access
/// of the call, and before any read of its own key in that call (an entry written in the call is
/// not expired), so this order tells the same story.
fn end_call(node: &mut Node, start: usize, now: Millis, action: usize, trace: Option<&mut Vec<TraceEntry>>) {
    let cleaned = node.op.backend_mut().keys.take_cleaned_up();
    let Some(trace) = trace else { return };
    if cleaned.is_empty() {
        return;
    }
    let at = (start + 1).min(trace.len());
    let entries = cleaned.into_iter().map(|c| TraceEntry {
        action,
        time_ms: now,
        op: node.id.clone(),
        key: Some(c.key),
        event: TraceEvent::StateCleanedUp {
            state: c.state,
            last_access_ms: c.last_access_ms,
            expired_at_ms: c.expired_at_ms,
        },
    });
    trace.splice(at..at, entries);
}
