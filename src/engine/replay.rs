//! Moving through a run and changing its past, on top of [`Simulation::seek`] (checkpoint +
//! replay): the run's length for a scrubber, going to any position of it (back by replay,
//! forward by stepping), one action back, and the same run without one of its inputs.
//!
//! A run's positions count actions: position `n` is the state after the first `n` actions. The
//! recorded actions (a seek back keeps them, so Step redoes them) are followed by one Step per
//! scenario step they did not run: the whole run, as far as it is known.

use super::error::StepError;
use super::scenario::Scenario;
use super::simulation::{Action, SimOptions, Simulation};
use super::ScenarioError;

impl Simulation {
    /// The whole run's length in actions: the recorded ones, then a Step for each scenario step
    /// they leave (none after a failure, which ends the run).
    pub fn run_length(&self) -> usize {
        let recorded = self.history().len();
        let stopped = self.failure().is_some() && self.action_count() == recorded;
        let rest = if stopped { 0 } else { self.step_count().saturating_sub(self.steps_recorded()) };
        recorded.saturating_add(usize::try_from(rest).unwrap_or(usize::MAX))
    }

    /// Goes to position `n` of the run: a recorded position by [`Simulation::seek`], one beyond
    /// the recorded actions by seeking to their end and stepping on.
    ///
    /// # Errors
    /// When time travel is off, or a step cannot run (time was advanced past it, an operator
    /// failed): the simulation stays where that happened.
    pub fn go_to(&mut self, n: usize) -> Result<(), StepError> {
        // One part with no bound seeks to the recorded actions' end; a second steps on past it.
        while !self.go_toward(n, usize::MAX)? {}
        Ok(())
    }

    /// Goes one action back (exactly: checkpoint + replay); the action stays recorded, so Step
    /// redoes it.
    ///
    /// # Errors
    /// At the start of the run, or when time travel is off.
    pub fn step_back(&mut self) -> Result<(), StepError> {
        match self.action_count() {
            0 => Err(StepError("this is the start of the run: nothing to step back to".into())),
            n => self.seek_with(n - 1, true),
        }
    }
}

/// The actions `actions` with the Step that ran scenario step `step` left out (the `step`-th
/// Step: each runs the next step), and whether one was.
pub fn actions_without_step(actions: &[Action], step: u64) -> (Vec<Action>, bool) {
    let mut steps = 0u64;
    let mut removed = false;
    let kept = actions
        .iter()
        .copied()
        .filter(|a| {
            if *a != Action::Step || removed {
                return true;
            }
            steps += 1;
            removed = steps == step + 1;
            !removed
        })
        .collect();
    (kept, removed)
}

/// The scenario text `text` without its explicit step `step` (field order kept), for "skip one
/// input": the other steps keep their times; a step after it without `at` runs at the time the
/// steps before it reach, as ever.
///
/// # Errors
/// When the text is not a scenario with that step (a workload's generated events cannot be
/// left out this way: the message says so).
pub fn scenario_without_step(text: &str, step: u64) -> Result<String, ScenarioError> {
    let scenario = Scenario::from_json(text)?;
    let explicit = scenario.steps.len() as u64;
    if step >= explicit {
        let what = if step < scenario.step_count() {
            format!("step {step} is workload event {} (generated; only explicit steps can be skipped)", step - explicit)
        } else {
            format!("there is no step {step}")
        };
        return Err(ScenarioError::new("steps", format!("{what}: the scenario has {explicit} explicit steps")));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ScenarioError::new("scenario", format!("invalid JSON: {e}")))?;
    if let Some(steps) = value.get_mut("steps").and_then(serde_json::Value::as_array_mut) {
        steps.remove(step as usize);
    }
    serde_json::to_string_pretty(&value).map_err(|e| ScenarioError::new("scenario", e.to_string()))
}

/// A simulation of `scenario` with `actions` carried out, stopping at the first that cannot run:
/// that action's index and error, if one could not.
pub fn replayed(
    scenario: Scenario,
    options: SimOptions,
    actions: impl IntoIterator<Item = Action>,
) -> (Simulation, Option<(usize, StepError)>) {
    let mut sim = Simulation::with_options(scenario, options);
    for (i, a) in actions.into_iter().enumerate() {
        if let Err(e) = sim.act(a) {
            return (sim, Some((i, e)));
        }
    }
    (sim, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::presets::{load_preset, preset_json};

    #[test]
    fn the_run_length_counts_recorded_actions_and_the_steps_they_leave() {
        let mut sim = Simulation::new(load_preset("seed-001-one-day-two-days").unwrap());
        assert_eq!(sim.run_length(), 4);
        sim.step().unwrap();
        sim.advance_by(1).unwrap();
        assert_eq!(sim.run_length(), 5, "one advance and the four steps");
        sim.step_back().unwrap();
        sim.step_back().unwrap();
        assert_eq!((sim.action_count(), sim.run_length()), (0, 5), "stepping back keeps the run");
        sim.go_to(5).unwrap();
        assert!(sim.is_finished());
        assert!(sim.step_back().is_ok() && sim.go_to(0).is_ok());
        assert!(sim.step_back().unwrap_err().0.contains("start of the run"));
    }

    #[test]
    fn going_to_a_position_equals_a_straight_run() {
        let mut straight = Simulation::new(load_preset("cleanup-harness-min5-max10").unwrap());
        let mut scrubbed = straight.clone();
        scrubbed.go_to(7).unwrap();
        scrubbed.go_to(2).unwrap();
        for _ in 0..2 {
            straight.step().unwrap();
        }
        assert_eq!(scrubbed.state_dump(), straight.state_dump());
        scrubbed.go_to(3).unwrap();
        straight.step().unwrap();
        assert_eq!(scrubbed.state_dump(), straight.state_dump());
        assert_eq!(scrubbed.history().len(), 7, "the run after the position stays recorded");
        scrubbed.discard_future();
        assert_eq!((scrubbed.history().len(), scrubbed.run_length()), (3, straight.step_count() as usize));
    }

    #[test]
    fn a_blocked_step_stops_go_to_with_the_reason() {
        let mut sim = Simulation::new(load_preset("seed-001-one-day-two-days").unwrap());
        sim.step().unwrap();
        sim.advance_by(crate::engine::time::DAY_MS).unwrap();
        let err = sim.go_to(4).unwrap_err().0;
        assert!(err.starts_with("cannot go to action 4: the run stops at action 2 (steps[1] is at"), "{err}");
    }

    #[test]
    fn skipping_an_input_replays_the_rest_without_it() {
        use Action::*;
        assert_eq!(actions_without_step(&[Step, NextTimer, Step, Step], 1), (vec![Step, NextTimer, Step], true));
        assert_eq!(actions_without_step(&[Step, NextTimer], 3), (vec![Step, NextTimer], false));
        let text = preset_json("seed-001-one-day-two-days").unwrap();
        let skipped = scenario_without_step(text, 1).unwrap();
        let scenario = Scenario::from_json(&skipped).unwrap();
        assert_eq!(scenario.steps.len(), 3);
        let (sim, failed) = replayed(scenario, SimOptions::default(), actions_without_step(&[Step, Step, Step], 1).0);
        assert!(failed.is_none());
        assert_eq!(sim.operator_views()[0].keys[0].states[0].as_ref().unwrap().value, "cnt: 2");
        let err = scenario_without_step(preset_json("what-if-100k-logins").unwrap(), 5).unwrap_err();
        assert_eq!(err.path, "steps");
        assert!(err.to_string().contains("workload event 5 (generated; only explicit steps can be skipped)"), "{err}");
    }
}
