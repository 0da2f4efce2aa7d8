//! Compare's two runs and the shared scrubber's moves: both runs go toward the same step a part
//! at a time, in turn, so neither runs ahead of the other (trial 24: on the Top-N pair the left
//! side went all the way first while the right stayed at step 0 for 35 s).

use crate::engine::{Scenario, SimOptions, Simulation, TraceLevel};

/// Actions one run carries out before the other takes its turn (and between two looks at the
/// clock): [`Simulation::go_toward`]'s part.
const PART: usize = 128;

/// The two runs, both at `position` steps.
pub(super) struct Pair {
    pub sims: [Simulation; 2],
    pub position: u64,
}

/// A move of the shared scrubber under way.
pub(super) struct Move {
    /// The step both runs are going to.
    pub to: u64,
    /// Where each run's move starts (the position here, or the checkpoint it restores).
    origins: [usize; 2],
    /// Whether each run has taken its first part (before it, it is still where it was).
    started: [bool; 2],
}

impl Pair {
    pub fn new(left: &str, right: &str) -> Result<Pair, String> {
        let sim = |side: &str, text: &str| {
            let scenario = Scenario::from_json(text).map_err(|e| format!("{side}: {e}"))?;
            let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: true };
            Ok::<_, String>(Simulation::with_options(scenario, options))
        };
        Ok(Pair { sims: [sim("left", left)?, sim("right", right)?], position: 0 })
    }

    /// The steps of the longer run.
    pub fn steps(&self) -> u64 {
        self.sims.iter().map(Simulation::step_count).max().unwrap_or(0)
    }

    /// Where `sim` goes for step `to`: that step, or its last when it has fewer. Only Step
    /// actions are taken, so action i is step i.
    fn target(sim: &Simulation, to: u64) -> usize {
        usize::try_from(to.min(sim.step_count())).unwrap_or(usize::MAX)
    }

    /// Whether `sim` has gone as far toward `target` as it can.
    fn arrived(sim: &Simulation, target: usize) -> bool {
        sim.action_count() == target || (target > sim.action_count() && !sim.can_step())
    }

    /// A move of both runs to step `to`, from where they are. A run that steps on past its
    /// recorded actions takes a step back's ladder on the way, as "▶| to end" does
    /// ([`Simulation::plan_ladder_to`]): the first Back at the end of the Top-N pair replayed
    /// 138 k actions a side, 2.5 s (trial 26).
    pub fn start(&mut self, to: u64) -> Move {
        for sim in &mut self.sims {
            let target = Self::target(sim, to);
            if target > sim.action_count() && sim.move_origin(target) == sim.action_count() {
                sim.plan_ladder_to(target);
            }
        }
        let origin = |sim: &Simulation| sim.move_origin(Self::target(sim, to));
        Move { to, origins: [origin(&self.sims[0]), origin(&self.sims[1])], started: [false; 2] }
    }

    /// Moves both runs toward `m.to` until the wall clock (`now()`, ms) passes `until`: a part of
    /// [`PART`] actions of each in turn (back by checkpoint + replay, forward by stepping:
    /// [`Simulation::go_toward`]), each run's first part whatever the clock says. True once both
    /// are there; the position shown is `m.to` from then on.
    pub fn go_toward(&mut self, m: &mut Move, until: f64, now: impl Fn() -> f64) -> Result<bool, String> {
        loop {
            if m.started == [true; 2] && now() > until {
                return Ok(false);
            }
            let mut there = true;
            for (sim, started) in self.sims.iter_mut().zip(&mut m.started) {
                let target = Self::target(sim, m.to);
                if Self::arrived(sim, target) {
                    *started = true;
                    continue;
                }
                there = false;
                sim.go_toward(target, PART).map_err(|e| e.to_string())?;
                *started = true;
            }
            if there {
                self.position = m.to;
                return Ok(true);
            }
        }
    }

    /// How far the move has come, in actions carried out of those it takes (both runs).
    pub fn progress(&self, m: &Move) -> (u64, u64) {
        let mut done_total = (0u64, 0u64);
        for ((sim, origin), started) in self.sims.iter().zip(m.origins).zip(m.started) {
            let target = Self::target(sim, m.to);
            let total = target.saturating_sub(origin) as u64;
            let done = if started { sim.action_count().saturating_sub(origin) as u64 } else { 0 };
            done_total = (done_total.0 + done.min(total), done_total.1 + total);
        }
        done_total
    }

    /// Frees one part of what the runs' moves left to free (the state a move replaced, thinned
    /// checkpoints: [`Simulation::release_retired`]); true while more is left.
    pub fn release_retired(&mut self) -> bool {
        if let Some(sim) = self.sims.iter_mut().find(|s| s.has_retired()) {
            sim.release_retired();
        }
        self.sims.iter().any(Simulation::has_retired)
    }

    /// Cancel: the move ends where it got to, the step the run ahead has reached (the other is
    /// at most a part behind it: both go the same way, a part each in turn).
    pub fn stop_where_it_got(&self, m: &mut Move) {
        if m.started == [true; 2] {
            let reached = self.sims.iter().map(Simulation::action_count).max().unwrap_or(0);
            m.to = reached as u64;
        } else {
            // Neither has moved yet.
            m.to = self.position;
        }
    }
}
