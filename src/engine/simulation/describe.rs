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

    /// The scenario's inputs an advance of time (`record`, not a Step) went past without running
    /// them, as (step index, time ms): their times are now before the current time, so they
    /// cannot run from here (Flink's processing time never goes back); a Back or a Reset runs them.
    pub fn inputs_passed_by(&self, record: &ActionRecord) -> Vec<(u64, Millis)> {
        if record.action == Action::Step {
            return Vec::new();
        }
        crate::engine::timeline::input_marks(self)
            .into_iter()
            .filter(|m| !m.done && m.at_ms >= record.from_ms && m.at_ms < record.to_ms)
            .map(|m| (m.step, m.at_ms))
            .collect()
    }

    /// An action not yet carried out, for people (a link's action that could not run):
    /// `advance time by -100 ms`, `advance time to 2019-11-21 16:00`, `the next step`.
    pub fn describe_planned(&self, action: Action) -> String {
        match action {
            Action::Step => "the next step".into(),
            Action::AdvanceTo(t) => format!("advance time to {}", self.time_format().format(t)),
            Action::AdvanceBy(by) => format!("advance time by {}", format_duration(by)),
            Action::NextTimer => "advance time to the next timer".into(),
        }
    }

    /// State that expired by TTL during the last action and is still stored (nothing happens in
    /// Flink at that moment; the value becomes invisible): (operator id, key, expiry time ms),
    /// in expiry order.
    pub fn expired_in_last_action(&self) -> Vec<(String, String, Millis)> {
        let Some(last) = &self.engine.last else { return vec![] };
        self.engine.pipeline.expired_between(last.from_ms, last.to_ms)
    }

    /// From now on, keeps the keys whose state becomes invisible by state TTL, in every operator,
    /// for [`Simulation::take_invisible`]: what [`Simulation::expired_in_last_action`] tells by
    /// looking at every key, told as it happens (for a run over millions of steps). Call it before
    /// the first step; it changes nothing the run computes.
    pub fn log_invisible(&mut self) {
        self.engine.pipeline.log_invisible();
    }

    /// (operator index, key, expiry time ms) of the keys whose state became invisible by TTL
    /// since the last call, in the order time reached them: after [`Simulation::log_invisible`].
    pub fn take_invisible(&mut self) -> Vec<(usize, crate::engine::row::Row, Millis)> {
        self.engine.pipeline.take_invisible()
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

#[cfg(test)]
mod tests {
    use crate::engine::presets::PRESETS;
    use crate::engine::{Action, Scenario, Simulation};

    #[test]
    fn a_planned_action_is_said_in_the_scenarios_units() {
        let json = PRESETS.iter().find(|(n, _)| *n == "seed-001-one-day-two-days").unwrap().1;
        let sim = Simulation::new(Scenario::from_json(json).unwrap());
        assert_eq!(sim.describe_planned(Action::AdvanceBy(-100)), "advance time by -100 ms");
        assert_eq!(sim.describe_planned(Action::AdvanceBy(3_600_000)), "advance time by 1 h");
        assert!(sim.describe_planned(Action::AdvanceTo(1_574_294_400_000)).starts_with("advance time to 2019-11-21"));
        assert_eq!(sim.describe_planned(Action::Step), "the next step");
    }

    #[test]
    fn an_advance_past_inputs_names_them_and_a_step_none() {
        let json = PRESETS.iter().find(|(n, _)| *n == "seed-001-one-day-two-days").unwrap().1;
        let mut sim = Simulation::new(Scenario::from_json(json).unwrap());
        sim.step().unwrap();
        assert_eq!(sim.inputs_passed_by(sim.last_action().unwrap()), []);
        // The next timer is at 2019-11-22 15:00, past the logins at 11-20 16:00 and 11-21 16:00.
        sim.advance_to_next_timer().unwrap();
        let tf = sim.time_format();
        let passed: Vec<(u64, String)> =
            sim.inputs_passed_by(sim.last_action().unwrap()).into_iter().map(|(s, t)| (s, tf.format(t))).collect();
        assert_eq!(passed, [(1, "2019-11-20 16:00".to_string()), (2, "2019-11-21 16:00".to_string())]);
    }
}
