//! A chain of operators, each consuming the previous one's changelog, ending in a result table.
//!
//! Between two group aggregations Flink shuffles by the next operator's key (a network
//! exchange, FIFO per channel), so with parallelism 1 the next operator sees the previous one's
//! messages in emission order. The simulator runs each operator over the whole batch a record
//! caused before moving to the next operator, which gives the same per-operator order and a
//! readable trace. All of it happens at the same processing time.

use super::error::StepError;
use super::operators::{Context, Operator};
use super::result_table::ResultTable;
use super::row::{Message, Row};
use super::scenario::Scenario;
use super::time::Millis;
use super::trace::{ClearCause, TraceEntry, TraceEvent};

/// The operators and the result table of a scenario.
#[derive(Debug, Clone)]
pub struct Pipeline {
    pub source_name: String,
    pub operators: Vec<Operator>,
    pub result: ResultTable,
}

impl Pipeline {
    pub fn new(scenario: &Scenario) -> Self {
        let operators: Vec<Operator> =
            scenario.operators.iter().map(|spec| Operator::new(spec.clone(), scenario.retention)).collect();
        let last = scenario.operators.last();
        let columns = last.map(|s| s.output_columns.iter().map(|c| c.name.clone()).collect()).unwrap_or_default();
        let key_len = last.map_or(0, |s| s.group_by.len());
        let upsert = last.is_some_and(|s| !s.generate_update_before);
        Pipeline {
            source_name: scenario.source.name.clone(),
            operators,
            result: ResultTable::new(columns, key_len, upsert),
        }
    }

    /// Feeds one source message at processing time `now` (ms) through every operator.
    ///
    /// # Errors
    /// When an operator fails.
    pub fn process_input(
        &mut self,
        message: Message,
        now: Millis,
        action: usize,
        trace: &mut Vec<TraceEntry>,
    ) -> Result<(), StepError> {
        trace.push(TraceEntry {
            action,
            time_ms: now,
            op: self.source_name.clone(),
            key: None,
            event: TraceEvent::Input { message: message.clone() },
        });
        self.flow(0, vec![message], now, action, trace)
    }

    /// Marks result rows stale whose key's state the last operator lost silently (a cleanup
    /// timer, or TTL expiry found by a read).
    fn mark_stale_results(&mut self, entries: &[TraceEntry]) {
        let Some(last) = self.operators.last() else { return };
        let last_id = &last.spec().id;
        for e in entries.iter().filter(|e| e.op == *last_id) {
            let lost_at = match e.event {
                TraceEvent::StateCleared { cause: ClearCause::CleanupTimer, .. } => e.time_ms,
                TraceEvent::StateExpired { expired_at_ms, .. } => expired_at_ms,
                _ => continue,
            };
            if let Some(key) = &e.key {
                self.result.mark_stale(key, lost_at);
            }
        }
    }

    /// Runs `messages` through operators `from..` and into the result table.
    fn flow(
        &mut self,
        from: usize,
        mut messages: Vec<Message>,
        now: Millis,
        action: usize,
        trace: &mut Vec<TraceEntry>,
    ) -> Result<(), StepError> {
        let trace_start = trace.len();
        for op in &mut self.operators[from..] {
            let mut out = Vec::new();
            let id = op.spec().id.clone();
            for m in &messages {
                let mut ctx = Context { now, action, op_id: &id, out: &mut out, trace };
                op.process_element(m, &mut ctx)
                    .map_err(|e| StepError(format!("operator '{id}' failed on {m}: {e}")))?;
            }
            messages = out;
        }
        // Rows whose state was lost go stale before this batch's new rows arrive.
        self.mark_stale_results(&trace[trace_start..]);
        for m in messages {
            if !self.result.apply(&m) {
                trace.push(TraceEntry {
                    action,
                    time_ms: now,
                    op: "result".into(),
                    key: None,
                    event: TraceEvent::ResultMissingRow { message: m },
                });
            }
        }
        Ok(())
    }

    /// The earliest registered timer of any operator: (timestamp ms, operator index, key).
    /// Ties go to the lower operator index, then to the earlier registration.
    pub fn next_timer(&self) -> Option<(Millis, usize, &Row)> {
        self.operators
            .iter()
            .enumerate()
            .filter_map(|(i, op)| op.timers().and_then(|t| t.peek()).map(|(ts, seq, key)| ((ts, i, seq), key)))
            .min_by_key(|(order, _)| *order)
            .map(|((ts, i, _), key)| (ts, i, key))
    }

    /// Fires, in order, every timer with timestamp `<= time`. Each fires at its own timestamp
    /// (the processing time its callback sees); what a callback emits flows downstream.
    ///
    /// # Errors
    /// When a downstream operator fails.
    pub fn fire_timers_until(
        &mut self,
        time: Millis,
        action: usize,
        trace: &mut Vec<TraceEntry>,
    ) -> Result<(), StepError> {
        while let Some((ts, i, _)) = self.next_timer() {
            if ts > time {
                break;
            }
            let op = &mut self.operators[i];
            let Some((ts, key)) = op.timers_mut().and_then(|t| t.poll_due(time)) else {
                break;
            };
            let id = op.spec().id.clone();
            let mut out = Vec::new();
            let trace_start = trace.len();
            let mut ctx = Context { now: ts, action, op_id: &id, out: &mut out, trace };
            op.on_timer(&key, ts, &mut ctx);
            self.mark_stale_results(&trace[trace_start..]);
            if !out.is_empty() {
                self.flow(i + 1, out, ts, action, trace)?;
            }
        }
        Ok(())
    }
}
