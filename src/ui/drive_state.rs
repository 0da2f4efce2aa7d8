//! What the page keeps for driving a run — Play's speed, a skipped input, a drag in progress, the
//! keyboard help — and the reducer of the drive actions: step back, scrub, fork, skip, move an
//! input. Every move through the run is the engine's ([`Simulation::go_to`],
//! [`Simulation::step_back`]: checkpoint + replay); every edit is a change of the scenario's text
//! loaded through the engine's parser, then the actions replayed on it.

use super::files_state::{edit_step, Note, StepField};
use super::state::{Action, AppState};
use crate::engine::replay::{actions_without_step, scenario_without_step};
use crate::engine::simulation::QuietStop;
use crate::engine::time::{Millis, TimeFormat};
use crate::engine::Action as EngineAction;
use crate::engine::Simulation;
use crate::ui::clock::wall_ms;

/// One of Play's speeds: a beat every `interval_ms` of wall-clock time runs `steps_per_beat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Speed {
    pub label: &'static str,
    pub interval_ms: u32,
    pub steps_per_beat: u64,
}

/// Play's speeds, slowest first: ×1 is a step every 0.9 s.
pub const SPEEDS: &[Speed] = &[
    Speed { label: "×1", interval_ms: 900, steps_per_beat: 1 },
    Speed { label: "×2", interval_ms: 450, steps_per_beat: 1 },
    Speed { label: "×5", interval_ms: 180, steps_per_beat: 1 },
    Speed { label: "×10", interval_ms: 90, steps_per_beat: 1 },
    Speed { label: "×100", interval_ms: 90, steps_per_beat: 10 },
    Speed { label: "×1000", interval_ms: 90, steps_per_beat: 100 },
];

impl Speed {
    /// `10 steps/s`, `1.1 steps/s`.
    pub fn rate(&self) -> String {
        let per_s = self.steps_per_beat as f64 * 1000.0 / f64::from(self.interval_ms);
        if per_s >= 10.0 {
            format!("{per_s:.0} steps/s")
        } else {
            format!("{per_s:.1} steps/s")
        }
    }
}

/// The page's driving state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DriveState {
    /// Play's speed, an index into [`SPEEDS`].
    pub speed: usize,
    /// The input left out by "skip", with what brings it back.
    pub skipped: Option<Skipped>,
    /// An input is being dragged on the timeline (the URL is replaced, not pushed, meanwhile).
    pub dragging: bool,
    /// The dragged input's step and the scenario text before the drag, to go back to when it is
    /// dropped at a time the engine refuses.
    pub drag_origin: Option<(usize, String)>,
    /// The keyboard help is open.
    pub show_keys: bool,
    /// The step error is the "advance by" box's (shown beside it, not above the page).
    pub error_from_advance: bool,
    /// "▶| to end" is running, in slices ([`super::to_end`]).
    pub to_end: Option<super::to_end::ToEnd>,
    /// A scrubber move still replaying towards this position, in slices ([`super::scrub_far`]).
    pub scrub_to: Option<super::scrub_far::ScrubFar>,
    /// "hide quiet steps": Step and Back pass the steps that changed nothing
    /// ([`crate::engine::quiet`]); kept in the browser's local settings ([`super::persist`]).
    pub hide_quiet: bool,
    /// What the last Step or Back passed while hiding quiet steps, for the note beside them.
    pub passed_quiet: Option<PassedQuiet>,
    /// A key clicked on the timeline, for the state inspector to show ([`Inspect`]).
    pub inspect: Option<Inspect>,
}

/// A key to show in the state inspector: operator `op`'s key labelled `key`; `seq` tells two
/// clicks on the same key apart (each opens the inspector on it again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inspect {
    pub op: usize,
    pub key: String,
    pub seq: u64,
}

/// Quiet steps a Step or Back passed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassedQuiet {
    pub back: bool,
    pub passed: u64,
    pub stop: QuietStop,
}

impl PassedQuiet {
    /// The note: "passed 3 quiet steps", and why it stopped when not at a change.
    pub fn text(&self) -> String {
        let n = self.passed;
        let steps = if n == 1 { "1 quiet step" } else { "" };
        let steps = if steps.is_empty() { format!("{n} quiet steps") } else { steps.to_string() };
        match (self.back, self.stop) {
            (true, _) => format!("back past {steps} (they changed nothing)"),
            (false, QuietStop::Changed) => format!("passed {steps} (they changed nothing)"),
            (false, QuietStop::End) => format!("passed {steps}: the run ended without a change"),
            (false, QuietStop::Budget) => format!(
                "passed {steps}, no change yet: stopped after {} ms of work so that the page stays usable — Step goes on",
                super::to_end::SLICE_MS
            ),
        }
    }
}

/// Quiet steps a Step passes before it looks at the clock: a few quiet steps are passed whatever
/// the machine's load (then at most [`super::to_end::SLICE_MS`] of work).
pub const QUIET_STEPS_AT_LEAST: u64 = 64;

/// The `localStorage` key of "hide quiet steps".
pub const HIDE_QUIET_KEY: &str = "flink-state-sim.hide-quiet";

/// An input step left out of the run, and the scenario and actions from before.
#[derive(Clone, Debug, PartialEq)]
pub struct Skipped {
    /// Its index in the scenario's steps (1-based in what the page says).
    pub step: u64,
    /// The row and time, as the page says them: `+I[u1] at 2019-11-20 16:00`.
    pub what: String,
    pub json: String,
    pub actions: Vec<EngineAction>,
}

/// A time as the table editor writes it: `2019-11-20T16:30` (date-time scenarios), `12`.
pub fn time_text(tf: TimeFormat, t: Millis) -> String {
    match tf {
        TimeFormat::DateTime => tf.format(t).replacen(' ', "T", 1),
        TimeFormat::Millis => t.to_string(),
    }
}

/// The actions carried out (not those recorded after a step back).
fn done_actions(sim: &Simulation) -> Vec<EngineAction> {
    sim.history()[..sim.action_count().min(sim.history().len())].to_vec()
}

impl AppState {
    /// Step: the next scenario step, or, hiding quiet steps, on to the next step that changes
    /// something, within [`super::to_end::SLICE_MS`] of work per press after the first
    /// [`QUIET_STEPS_AT_LEAST`]. The engine decides what is quiet and steps; the page only
    /// bounds the work and says what was passed.
    pub(super) fn step_once(self) -> Self {
        if !self.drive.hide_quiet {
            return self.drive(|s| s.step().map_err(|e| e.to_string()));
        }
        let started = wall_ms();
        let mut past = None;
        let mut next = self.drive(|s| {
            let budget = |passed| passed < QUIET_STEPS_AT_LEAST || wall_ms() - started < super::to_end::SLICE_MS;
            past = Some(s.step_past_quiet(budget).map_err(|e| e.to_string())?);
            Ok(())
        });
        next.drive.passed_quiet =
            past.filter(|p| p.passed > 0).map(|p| PassedQuiet { back: false, passed: p.passed, stop: p.stop });
        next
    }

    pub(super) fn reduce_drive(mut self, action: Action) -> Self {
        match action {
            Action::StepBack if self.drive.hide_quiet => {
                self.playing = false;
                let mut passed = 0;
                let mut next = self.drive(|s| {
                    passed = s.back_past_quiet().map_err(|e| format!("step back: {e}"))?;
                    Ok(())
                });
                next.drive.passed_quiet =
                    (passed > 0).then_some(PassedQuiet { back: true, passed, stop: QuietStop::Changed });
                next
            }
            // A Back with no checkpoint or rung near behind (after a far move was stopped
            // part-way, where the checkpoints are far apart) replays far: it goes in slices, as a
            // far scrub does, with its progress and Cancel, and lays the ladder the next Backs use.
            Action::StepBack if self.back_replays_far() => {
                let n = self.sim.as_ref().map_or(0, |s| s.get().action_count()).saturating_sub(1);
                self.scrub_toward(n)
            }
            Action::StepBack => {
                self.playing = false;
                self.drive(|s| s.step_back().map_err(|e| format!("step back: {e}")))
            }
            Action::Inspect { op, key } => {
                let seq = self.drive.inspect.as_ref().map_or(0, |i| i.seq + 1);
                self.drive.inspect = Some(Inspect { op, key, seq });
                self
            }
            Action::ToggleHideQuiet => {
                self.drive.hide_quiet = !self.drive.hide_quiet;
                self.drive.passed_quiet = None;
                self
            }
            Action::ScrubTo(n) => self.scrub_toward(n),
            // A slice of a move that was since replaced or stopped does nothing.
            Action::ScrubSlice(n) if self.drive.scrub_to.is_some_and(|far| far.to == n) => self.scrub_toward(n),
            Action::ScrubSlice(_) => self,
            Action::SetSpeed(i) => {
                self.drive.speed = i.min(SPEEDS.len() - 1);
                self
            }
            Action::TogglePlay => {
                let playing = !self.playing && self.can_step();
                AppState { playing, step_error: if playing { None } else { self.step_error.clone() }, ..self }
            }
            Action::DiscardFuture => self.drive(|s| {
                s.discard_future();
                Ok(())
            }),
            Action::SkipStep(step) => self.skip(step),
            Action::UndoSkip => match self.drive.skipped.take() {
                Some(skipped) => {
                    let mut next = self.with_json(skipped.json);
                    if let Err(e) = next.replay(skipped.actions.into_iter()) {
                        next.step_error = Some(format!("bringing step {} back: {e}", skipped.step + 1));
                    }
                    next
                }
                None => self,
            },
            Action::MoveInput { step, at_ms, done } => {
                let Some(tf) = self.sim.as_ref().map(|s| s.get().time_format()) else { return self };
                if self.drive.drag_origin.is_none() {
                    self.drive.drag_origin = Some((step, self.json.clone()));
                }
                let table = edit_step(&self.files.table, step, StepField::At, &time_text(tf, at_ms));
                let mut next = if *self.files.table == table { self } else { self.apply_table(table) };
                next.drive.dragging = !done;
                if done {
                    next = next.dropped_input(tf, at_ms);
                }
                next
            }
            Action::ToggleKeys => {
                self.drive.show_keys = !self.drive.show_keys;
                self
            }
            Action::CloseKeys => {
                self.drive.show_keys = false;
                self
            }
            _ => self,
        }
    }

    /// An input dragged on the timeline was let go at `at_ms`. When the engine refuses that time,
    /// the input goes back to where it was before the drag (table, marks and run agree again) and
    /// a note says why; the positions the drag passed through are forgotten.
    fn dropped_input(mut self, tf: TimeFormat, at_ms: Millis) -> Self {
        let Some((step, before)) = self.drive.drag_origin.take() else { return self };
        let Some(error) = self.files.table_error.clone() else { return self };
        // The scenario text from before the drag (a preset stays the preset), replayed to here.
        let position = self.position();
        let mut next = self.with_json(before);
        if let Some(p) = position {
            if let Err(e) = next.replay(p.actions()) {
                next.step_error = Some(format!("the run replayed up to where it stopped: {e}"));
            }
        }
        let stays = next.sim.as_ref().and_then(|s| {
            let sim = s.get();
            let mark = crate::engine::timeline::input_marks(&sim).into_iter().find(|m| m.step == step as u64);
            mark.map(|m| sim.time_format().format(m.at_ms))
        });
        next.files.note = Some(Note {
            text: format!(
                "Input #{} was not moved to {}: {error} — it stays at {}",
                step + 1,
                tf.format(at_ms),
                stays.unwrap_or_else(|| "the time the steps before it reach".into())
            ),
            error: true,
        });
        next
    }

    /// The run replayed without explicit step `step`: the scenario without it (the engine's
    /// [`scenario_without_step`]), the actions carried out without the Step that ran it.
    fn skip(mut self, step: u64) -> Self {
        let Some((actions, what)) = self.sim.as_ref().map(|s| {
            let sim = s.get();
            let what = crate::engine::timeline::input_marks(&sim)
                .into_iter()
                .find(|m| m.step == step)
                .map(|m| format!("{} at {}", m.row_text(sim.scenario()), sim.time_format().format(m.at_ms)))
                .unwrap_or_default();
            (done_actions(&sim), what)
        }) else {
            return self;
        };
        let text = match scenario_without_step(&self.json, step) {
            Ok(text) => text,
            Err(e) => {
                self.step_error = Some(format!("skip step {}: {e}", step + 1));
                return self;
            }
        };
        let original = self.json.clone();
        let (kept, _) = actions_without_step(&actions, step);
        let mut next = self.with_json(text);
        if next.scenario_error.is_some() {
            return next;
        }
        if let Err(e) = next.replay(kept.into_iter()) {
            next.step_error = Some(format!("the run without step {}: {e}: it stopped there", step + 1));
        }
        next.drive.skipped = Some(Skipped { step, what, json: original, actions });
        next
    }
}
