//! [`Simulation::seek`]: restore the nearest checkpoint, replay the recorded actions after it
//! ([`super::time_travel`] for the checkpoints and a step back's ladder).

use super::{Simulation, StepError, TraceLevel};

impl Simulation {
    /// The first action whose trace entries a state at action `n` must hold.
    fn trace_needed_from(&self, n: usize) -> usize {
        match (self.options.trace, self.options.keep_actions) {
            (TraceLevel::Metrics, _) => n,
            (TraceLevel::Full, None) => 0,
            (TraceLevel::Full, Some(keep)) => n.saturating_sub(keep),
        }
    }

    /// Prepares a step back from the end of a run that is about to carry out actions up to
    /// `end` ("▶| to end", going to a far link's position): the rungs of the ladder a Back from
    /// there would lay are taken on the way ([`super::super::time_travel::Checkpoints::plan_ladder`]).
    /// Nothing changes if the run stops before them.
    pub fn plan_ladder_to(&mut self, end: usize) {
        let needed = self.trace_needed_from(end.saturating_sub(1));
        let bytes = self.engine.pipeline.approx_bytes();
        self.checkpoints.plan_ladder(self.engine.actions, needed, bytes);
    }

    /// Goes to the state after the first `n` recorded actions: restores the nearest checkpoint
    /// and replays the actions after it. The state, the result, the metrics and the kept trace
    /// are exactly those of a straight run to `n`.
    ///
    /// # Errors
    /// When time travel is off, or fewer than `n` actions were recorded.
    pub fn seek(&mut self, n: usize) -> Result<(), StepError> {
        self.seek_with(n, false)
    }

    /// [`Simulation::seek`]; `ladder`: take a step back's ladder of checkpoints on the way
    /// ([`Checkpoints::ladder_for`]) when the replay is long.
    pub(in crate::engine) fn seek_with(&mut self, n: usize, ladder: bool) -> Result<(), StepError> {
        if !self.options.time_travel {
            return Err(StepError("time travel is off for this simulation".into()));
        }
        if n > self.history.len() {
            return Err(StepError(format!("cannot go to action {n}: {} were recorded", self.history.len())));
        }
        let here = self.engine.actions;
        let needed = self.trace_needed_from(n);
        // Replaying forward from here gives the same as from a checkpoint, when the trace kept
        // so far covers what the target needs.
        let from = self.checkpoints.nearest_position(needed);
        let forward = here <= n && here >= from && self.trace_from <= needed;
        if !forward {
            let (from, engine) = self.checkpoints.nearest(needed);
            self.engine = engine;
            self.trace.clear();
            self.trace_from = from;
        }
        let rungs = match ladder {
            true => self.checkpoints.ladder_for(self.engine.actions, needed, self.engine.pipeline.approx_bytes()),
            false => Vec::new(),
        };
        let history = std::mem::take(&mut self.history);
        let level = self.options.trace;
        self.options.time_travel = false;
        let mut outcome = Ok(());
        let start = self.engine.actions;
        while self.engine.actions < n {
            let i = self.engine.actions;
            if rungs.contains(&i) {
                self.checkpoints.take_rung(i, &self.engine, &rungs);
            }
            self.options.trace = if i >= needed { level } else { TraceLevel::Metrics };
            if i < needed {
                self.trace_from = i + 1;
            }
            let result = self.act(history[i]);
            if self.engine.actions == i {
                outcome = result;
                break;
            }
            if self.engine.failure.is_some() {
                break;
            }
        }
        self.replayed = self.engine.actions - start;
        self.options.trace = level;
        self.options.time_travel = true;
        self.history = history;
        self.trim_trace();
        match outcome {
            Err(e) => Err(StepError(format!("replay stopped before action {n}: {}", e.0))),
            Ok(()) => Ok(()),
        }
    }
}
