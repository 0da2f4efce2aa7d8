//! [`Simulation::seek`]: restore the nearest checkpoint, replay the recorded actions after it
//! ([`super::time_travel`] for the checkpoints and a step back's ladder); what time travel holds
//! (checkpoints, rungs) and the states it left to free later.

use super::{Simulation, StepError, TraceLevel};

/// The fewest actions a part of [`Simulation::go_toward`] carries out. Any part length ends at
/// an exact position: every part records the trace the whole move's target needs (none before
/// it), so the first restores the checkpoint the whole move would and the others replay on from
/// it. (It was 1 024 — a trace window — before parts took the target's; on
/// `seed-000-topn-dedup`, 13 µs an action natively, a part of 1 024 was a 100–300 ms task in a
/// loaded page: trial 23.)
const MIN_PART: usize = 32;

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
    /// there would lay are taken on the way ([`super::super::time_travel::Checkpoints::lay_ladder`]).
    /// Nothing changes if the run stops before them.
    pub fn plan_ladder_to(&mut self, end: usize) {
        let needed = self.trace_needed_from(end.saturating_sub(1));
        let bytes = self.engine.pipeline.approx_bytes();
        self.checkpoints.lay_ladder(self.engine.actions, needed, bytes);
    }

    /// One part, at most `budget` actions long (at least `MIN_PART`, 32), of
    /// [`Simulation::go_to`]`(n)`, for a caller that shares its thread (the page moves to a far
    /// position in slices and answers input between them): the first part restores the
    /// checkpoint the whole move would, each part replays (or, past the recorded actions, steps)
    /// on towards `n`. Each part ends at a position of the run, exactly that position's state;
    /// `Ok(true)` once at `n`, where `go_to(n)` would have ended. Where the checkpoints are far
    /// apart (more than [`super::super::time_travel::SCRUB_LADDER_AFTER`] actions), a move that
    /// replays more than a ladder's spacing lays a step back's ladder behind `n` on its way, as a
    /// Back does, so the Backs and the short moves back after it restore a rung nearby.
    ///
    /// # Errors
    /// As [`Simulation::go_to`]'s.
    pub fn go_toward(&mut self, n: usize, budget: usize) -> Result<bool, StepError> {
        let budget = budget.max(MIN_PART);
        let target = n.min(self.history.len());
        if self.engine.actions != target {
            // A part ending `budget` after where the move starts restores the same checkpoint
            // (its trace needs no earlier one: `budget` exceeds the trace window), and the parts
            // after it replay forward.
            let needed = self.trace_needed_from(target);
            let part = target.min(self.move_origin(n).saturating_add(budget));
            // Its first part lays the ladder (forward from here too: a move back after a long
            // move forward needs it as much); the parts after find it laid and take its rungs.
            let ladder = self.checkpoints.stats().1 > super::super::time_travel::SCRUB_LADDER_AFTER;
            self.seek_traced(part, needed, ladder)?;
            return Ok(part == n);
        }
        for _ in 0..budget {
            if self.engine.actions >= n {
                break;
            }
            if !self.can_step() {
                return Err(StepError(format!(
                    "cannot go to action {n}: the run stops at action {}{}",
                    self.engine.actions,
                    self.step_blocked().map(|r| format!(" ({r})")).unwrap_or_default()
                )));
            }
            self.step()?;
        }
        Ok(self.engine.actions >= n)
    }

    /// Where [`Simulation::go_toward`]`(n)` (and [`Simulation::go_to`]) starts from: the position
    /// here when it can replay (or step) forward from here, else the checkpoint it restores. The
    /// page shows a far move's progress from it.
    pub fn move_origin(&self, n: usize) -> usize {
        let here = self.engine.actions;
        let target = n.min(self.history.len());
        if here == target {
            return here;
        }
        let needed = self.trace_needed_from(target);
        let from = self.checkpoints.nearest_position(needed);
        let forward = here <= target && here >= from && self.trace_from <= needed;
        if forward {
            here
        } else {
            from
        }
    }

    /// Whether the next action takes a checkpoint or a rung (a copy of the engine state: 5–10 ms
    /// on `seed-000-topn-dedup`): a caller that works in slices ("▶| to end") starts a slice with
    /// it rather than end one with it.
    pub fn copy_due_next(&self) -> bool {
        self.options.time_travel && self.checkpoints.due(self.engine.actions + 1)
    }

    /// How many actions a move must carry out past here for the kept trace to hold the window
    /// the options ask for ([`super::SimOptions::keep_actions`]); 0 when it holds it. A part of
    /// [`Simulation::go_toward`] traces only what its target needs, so a far move stopped
    /// part-way holds no trace of the actions before where it stopped: the views that read the
    /// trace (what just happened, the lanes) would show nothing happening.
    pub fn untraced_window(&self) -> usize {
        self.trace_from.saturating_sub(self.trace_needed_from(self.engine.actions))
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

    /// [`Simulation::seek`]; `ladder`: lay a step back's ladder of checkpoints on the way
    /// ([`super::super::time_travel::Checkpoints::lay_ladder`]) when the replay is long.
    pub(in crate::engine) fn seek_with(&mut self, n: usize, ladder: bool) -> Result<(), StepError> {
        self.seek_traced(n, self.trace_needed_from(n), ladder)
    }

    /// [`Simulation::seek_with`] to `n`, recording the trace from action `needed` on (a part of
    /// [`Simulation::go_toward`] records only what its target needs: none before it). The rungs
    /// planned (by this replay's ladder or an earlier one) are taken as the replay passes them.
    fn seek_traced(&mut self, n: usize, needed: usize, ladder: bool) -> Result<(), StepError> {
        if !self.options.time_travel {
            return Err(StepError("time travel is off for this simulation".into()));
        }
        if n > self.history.len() {
            return Err(StepError(format!("cannot go to action {n}: {} were recorded", self.history.len())));
        }
        let here = self.engine.actions;
        // Back within the kept trace (it holds a window more than it shows, `trim_trace`): the
        // entries of the actions before `n` are the same whichever run made them, so they stay,
        // those from `n` on go, and the replay from the nearest checkpoint before `n` traces
        // nothing. A step back's replay is then at most a ladder's spacing of untraced actions.
        let keep_trace = n < here && self.trace_from <= needed && self.options.keep_actions.is_some();
        // A step back (a move of a scrub one action back is one too) lays its ladder below its
        // own target: the Backs after it keep the trace and restore the rung below theirs.
        let back = ladder && n + 1 == here && self.options.keep_actions.is_some();
        let ladder_target = if back { n } else { needed };
        // Otherwise a step back traces up to a window more than it needs, from the checkpoint it
        // restores anyway, so that the Backs after it keep the trace ([`Simulation::trim_trace`]
        // keeps as much).
        let needed = match self.options.keep_actions {
            _ if keep_trace => n,
            Some(keep) if back && self.options.trace == TraceLevel::Full => {
                needed.saturating_sub(keep).max(self.checkpoints.nearest_position(needed))
            }
            _ => needed,
        };
        // The checkpoint to restore: the nearest at or before what the trace needs (and before
        // `n`). Replaying forward from here gives the same, when the trace kept so far covers
        // what is needed.
        let anchor = needed.min(n);
        let from = self.checkpoints.nearest_position(anchor);
        let forward = here <= n && here >= from && self.trace_from <= needed;
        if keep_trace {
            let (_, engine) = self.checkpoints.nearest(anchor);
            self.retired.replace([std::mem::replace(&mut self.engine, engine)]);
            let cut = self.trace.partition_point(|e| e.action < n);
            self.trace.truncate(cut);
        } else if !forward {
            let (from, engine) = self.checkpoints.nearest(anchor);
            self.retired.replace([std::mem::replace(&mut self.engine, engine)]);
            self.trace.clear();
            self.trace_from = from;
        }
        let bytes = self.engine.pipeline.approx_bytes();
        if ladder {
            self.checkpoints.lay_ladder(self.engine.actions, ladder_target, bytes);
        }
        // And the fine rungs just below its target, so the Backs after it replay a few actions.
        if back {
            self.checkpoints.lay_fine_rungs(self.engine.actions, n);
        }
        let history = std::mem::take(&mut self.history);
        let level = self.options.trace;
        self.options.time_travel = false;
        let mut outcome = Ok(());
        let start = self.engine.actions;
        while self.engine.actions < n {
            let i = self.engine.actions;
            self.checkpoints.take_planned(i, &self.engine, bytes);
            self.options.trace = if i >= needed { level } else { TraceLevel::Metrics };
            if i < needed && !keep_trace {
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

    /// Frees one state kept for later: the one the last seek replaced, else one of the
    /// checkpoints the last thinning dropped (kept so that the step or seek that made them
    /// garbage does not include freeing them; the next seek or thinning frees them otherwise).
    /// One at a time: freeing a thinned checkpoint of `seed-000-topn-dedup` took 20 ms. True
    /// while more remain. Changes nothing else.
    ///
    /// A state is freed in parts ([`drop_in_parts`](crate::engine::drop_later::drop_in_parts)): a call
    /// frees at most [`SWEEP_PARTS`](crate::engine::drop_later::SWEEP_PARTS) of its chunks and shards,
    /// the next call the next ones (one Top-N state freed at once took 45–73 ms in the page).
    pub fn release_retired(&mut self) -> bool {
        if !crate::engine::drop_later::has_buried() {
            if !self.retired.is_empty() {
                self.retired.release_one();
            } else {
                self.checkpoints.release_retired();
            }
        }
        crate::engine::drop_later::sweep();
        self.has_retired()
    }
    /// Whether [`Simulation::release_retired`] has anything to free.
    pub fn has_retired(&self) -> bool {
        !self.retired.is_empty() || self.checkpoints.has_retired() || crate::engine::drop_later::has_buried()
    }
    /// The checkpoints time travel keeps: how many, and the spacing (actions) now.
    pub fn checkpoint_stats(&self) -> (usize, usize) {
        self.checkpoints.stats()
    }
    /// The positions of the rungs of the step back's ladder ([`crate::engine::time_travel`]).
    pub fn ladder_rungs(&self) -> Vec<usize> {
        self.checkpoints.rungs()
    }
    /// The positions of the fine rungs the last Backs laid ([`crate::engine::time_travel`]).
    pub fn fine_rungs(&self) -> Vec<usize> {
        self.checkpoints.fine_rungs()
    }
    /// How many actions the last seek (a step back, a `go_to` back) replayed: what its time
    /// grows with.
    pub fn last_replay_len(&self) -> usize {
        self.replayed
    }
}
