//! What the page and the CLI say about a simulation: the last action for people, the state
//! that expired by TTL during it, and a text dump of the whole engine state (the property tests
//! compare dumps).

use super::{Action, ActionRecord, Simulation};
use crate::engine::time::{format_duration, Millis};

impl Simulation {
    /// What the last action was, for people: `step 3/5: input +I[u1] at 2019-11-21 16:00`.
    pub fn describe_action(&self, record: &ActionRecord) -> String {
        let tf = self.time_format();
        match (&record.action, &record.step) {
            (Action::Step, Some((i, Some(m)))) => {
                format!("step {}/{}: input {m} at {}", i + 1, self.step_count(), tf.format(record.to_ms))
            }
            (Action::Step, Some((i, None))) => {
                format!("step {}/{}: advance time to {}", i + 1, self.step_count(), tf.format(record.to_ms))
            }
            (Action::AdvanceBy(by), _) => {
                format!("advance time by {} to {}", format_duration(*by), tf.format(record.to_ms))
            }
            (Action::NextTimer, _) => format!("advance time to the next timer, {}", tf.format(record.to_ms)),
            _ => format!("advance time to {}", tf.format(record.to_ms)),
        }
    }

    /// State that expired by TTL during the last action and is still stored (nothing happens in
    /// Flink at that moment; the value becomes invisible): (operator id, key, expiry time ms),
    /// in expiry order.
    pub fn expired_in_last_action(&self) -> Vec<(String, String, Millis)> {
        let Some(last) = &self.engine.last else { return vec![] };
        self.engine.pipeline.expired_between(last.from_ms, last.to_ms)
    }

    /// Every operator's keys with their state entries and timers, the result's rows, the
    /// metrics and the time, as text: two simulations are in the same state exactly when their
    /// dumps are equal (the property tests compare them).
    pub fn state_dump(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let e = &self.engine;
        let _ = writeln!(out, "now={} next_step={} inputs={} failure={:?}", e.now, e.next_step, e.inputs, e.failure);
        for (node, view) in e.pipeline.nodes().iter().zip(self.operator_views()) {
            let _ = writeln!(out, "operator {} emitted={:?}", view.id, node.emitted);
            for k in &view.keys {
                let _ =
                    writeln!(out, "  {:?} {:?} C={:?} timers={:?}", k.row, k.states, k.cleanup_time_ms, k.timers_ms);
            }
            let _ = writeln!(out, "  sizes={:?}", view.sizes);
        }
        for r in e.pipeline.result.rows() {
            let _ = writeln!(out, "result {:?} {:?}", r.row, r.stale_since_ms);
        }
        let _ = writeln!(out, "metrics {:?}", self.metrics());
        out
    }
}
