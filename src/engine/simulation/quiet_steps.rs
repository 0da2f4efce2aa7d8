//! Stepping past quiet actions ([`crate::engine::quiet`]): the next step that changed something,
//! the previous position whose last action changed something.

use super::{Simulation, StepError};

/// Where [`Simulation::step_past_quiet`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PastQuiet {
    /// Quiet steps run and passed before stopping.
    pub passed: u64,
    /// Why it stopped.
    pub stop: QuietStop,
}

/// Why stepping past quiet steps stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuietStop {
    /// At a step that changed something (it ran: the page shows it).
    Changed,
    /// No step can run any more (all ran, or the next is blocked); the last one ran was quiet.
    End,
    /// The caller's budget ran out (its `go_on` said no) before a step changed something.
    Budget,
}

impl Simulation {
    /// Whether action `index` (0 for the first) changed nothing ([`crate::engine::quiet`]);
    /// `None` when it was not recorded (time travel off, the metrics trace level, a failed
    /// action, or not run yet).
    pub fn is_quiet(&self, index: usize) -> Option<bool> {
        self.quiet.get(index)
    }

    /// Whether each of the first `limit` scenario steps that ran was quiet (`None`: not
    /// recorded, or an advance ran instead), in step order; scans the actions carried out until
    /// `limit` steps are found.
    pub fn quiet_steps(&self, limit: usize) -> Vec<Option<bool>> {
        let done = self.action_count().min(self.history().len());
        self.history()[..done]
            .iter()
            .enumerate()
            .filter(|(_, a)| **a == super::Action::Step)
            .take(limit)
            .map(|(i, _)| self.is_quiet(i))
            .collect()
    }

    /// Runs scenario steps until one changes something, no step can run, or `go_on(passed)`
    /// (asked before each step after the first) says no: at least one step runs. The caller
    /// bounds the work (the page: its slice of wall-clock time; the engine has no clock).
    ///
    /// # Errors
    /// The first step that fails (the steps before it stay run).
    pub fn step_past_quiet(&mut self, mut go_on: impl FnMut(u64) -> bool) -> Result<PastQuiet, StepError> {
        let mut passed = 0;
        loop {
            self.step()?;
            if self.is_quiet(self.action_count() - 1) != Some(true) {
                return Ok(PastQuiet { passed, stop: QuietStop::Changed });
            }
            if !self.can_step() {
                return Ok(PastQuiet { passed: passed + 1, stop: QuietStop::End });
            }
            passed += 1;
            if !go_on(passed) {
                return Ok(PastQuiet { passed, stop: QuietStop::Budget });
            }
        }
    }

    /// Goes back past quiet actions: to the position just after the latest earlier action that
    /// changed something (the start of the run when none did), in one seek (checkpoint + replay;
    /// the scan of the recorded bits is the only part that grows with the quiet actions passed). Returns how many quiet actions
    /// were passed (besides the one Back always undoes). An action not recorded counts as a
    /// change (it is not hidden).
    ///
    /// # Errors
    /// At the start of the run, or when time travel is off.
    pub fn back_past_quiet(&mut self) -> Result<u64, StepError> {
        let n = self.action_count();
        if n == 0 {
            return Err(StepError("this is the start of the run: nothing to step back to".into()));
        }
        // The latest action before the last one (which Back undoes) not known to be quiet.
        let mut to = n - 1;
        while to > 0 && self.is_quiet(to - 1) == Some(true) {
            to -= 1;
        }
        let passed = (n - 1 - to) as u64;
        self.seek_with(to, true)?;
        Ok(passed)
    }
}
