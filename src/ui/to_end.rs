//! "▶| to end" without freezing the page: the remaining steps run in slices of [`SLICE_MS`] of
//! work, one task each, so the browser paints and takes input between two slices (as "Go there",
//! [`super::far`], and the What-if run do); a progress bar and Cancel show meanwhile. Cancel
//! stays where the run got to (a position like any other: Back, scrub and Step work from it).
//!
//! At 400 k steps (`seed-000-topn-dedup`) the run took 8 s in one task before, with the page
//! frozen; now each task takes one slice plus a render of the controls: the timeline and the
//! sections below it keep the run's starting position until it stops (`super::App`).

use super::state::{Action, AppState};
use crate::ui::clock::wall_ms;
use yew::prelude::*;

/// Wall-clock ms of steps between two renders while running to the end.
pub const SLICE_MS: f64 = 12.0;
/// Steps between two looks at the clock inside a slice.
const CLOCK_EVERY: u64 = 32;

/// A run to the end in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToEnd {
    /// The scenario step the run started at (for the progress of this run).
    pub from_step: u64,
}

impl AppState {
    /// Start, one slice, cancel.
    pub(super) fn reduce_to_end(mut self, action: Action) -> Self {
        match action {
            Action::RunToEnd => {
                if let Some(sim) = self.sim.as_ref().filter(|s| s.get().can_step()) {
                    let from_step = sim.get().next_step();
                    {
                        // A Back at the end restores a rung laid on the way (one Step per step).
                        let mut s = sim.borrow_mut();
                        let end = s.action_count() as u64 + s.step_count().saturating_sub(from_step);
                        s.plan_ladder_to(usize::try_from(end).unwrap_or(usize::MAX));
                    }
                    self.drive.to_end = Some(ToEnd { from_step });
                    self.drive.scrub_to = None;
                    self.playing = false;
                    self.step_error = None;
                }
                self
            }
            Action::CancelToEnd => {
                self.drive.to_end = None;
                self
            }
            Action::ToEndSlice if self.drive.to_end.is_some() => {
                let started = wall_ms();
                let mut next = self.drive(|s| {
                    let mut first = true;
                    while wall_ms() - started < SLICE_MS {
                        for _ in 0..CLOCK_EVERY {
                            if !s.can_step() {
                                return Ok(());
                            }
                            // A step that copies the state (a checkpoint, a rung) starts a slice,
                            // so the copy is not added to a slice's 12 ms of steps.
                            if !first && s.copy_due_next() {
                                return Ok(());
                            }
                            first = false;
                            s.step().map_err(|e| e.to_string())?;
                            // A step that thinned the checkpoints ends the slice: freeing them is
                            // the next task's ([`next_slice`]).
                            if s.has_retired() {
                                return Ok(());
                            }
                        }
                    }
                    Ok(())
                });
                if next.step_error.is_some() || !next.can_step() {
                    next.drive.to_end = None;
                }
                next
            }
            _ => self,
        }
    }
}

/// Whether `action` stops a run to the end: any other move through the run, another run, a new
/// scenario; not what leaves the run as it is (a setting of Play, the keys help, a note).
pub(super) fn stops_it(action: &Action) -> bool {
    !matches!(
        action,
        Action::RunToEnd
            | Action::ToEndSlice
            | Action::ScrubSlice(_)
            | Action::SetAdvanceText(_)
            | Action::SetSpeed(_)
            | Action::ToggleHideQuiet
            | Action::Inspect { .. }
            | Action::ToggleKeys
            | Action::CloseKeys
            | Action::Tick
            | Action::Pause
            | Action::StorageProblem(_)
            | Action::LongLink(_)
            | Action::LinkCopied(_)
            | Action::FilesNote(_)
            | Action::DismissFilesNote
            | Action::DismissFlinkRefusal
    )
}

/// Schedules the next slice after each render while running to the end (a task: the browser
/// paints and handles input between two slices); the page is not settled meanwhile.
#[hook]
pub fn use_to_end(state: &UseReducerHandle<AppState>) {
    let running = state.drive.to_end.is_some();
    let dispatcher = state.dispatcher();
    let sim = state.sim.clone();
    use_effect_with((running, state.version), move |(running, _)| {
        // Not settled while it runs ([`super::settled`]: automation waiting for the page waits
        // for the run's end or its Cancel; trial 21: it was settled 0.1 s into a 10 s run).
        let timeout = running
            .then(|| (next_slice(sim, move || dispatcher.dispatch(Action::ToEndSlice)), super::settled::pending()));
        move || drop(timeout)
    });
}

/// A task that runs the next slice of a long action (`slice`: dispatch it). When the slice before
/// left engine states to free (checkpoints thinned away: 20 ms each on `seed-000-topn-dedup`),
/// a task frees each, and the slice runs in a task after them: no task holds two.
pub(super) fn next_slice(
    sim: Option<super::state::SimHandle>,
    slice: impl FnOnce() + 'static,
) -> gloo_timers::callback::Timeout {
    gloo_timers::callback::Timeout::new(0, move || match sim.filter(|s| s.get().has_retired()) {
        Some(sim) => {
            sim.release_retired();
            // The slice's action does nothing once the run was cancelled meanwhile.
            next_slice(Some(sim), slice).forget();
        }
        None => slice(),
    })
}

/// Frees the engine states left for later ([`super::state::SimHandle::release_retired`]), one
/// per task, from the next task on.
pub(super) fn release_in_tasks(sim: super::state::SimHandle) {
    if sim.get().has_retired() {
        in_tasks(move || sim.release_retired());
    }
}

/// Calls `free_one` once per task, from the next task on, while it says more is left: what a
/// run left to free ([`crate::engine::Simulation::release_retired`]) goes a part per task.
pub(crate) fn in_tasks(mut free_one: impl FnMut() -> bool + 'static) {
    gloo_timers::callback::Timeout::new(0, move || {
        if free_one() {
            in_tasks(free_one);
        }
    })
    .forget();
}

/// The click of a button that swaps with another in the same place (a run's start and its
/// Cancel): the second click of a double-click lands on the other button and is not taken for it
/// (trial 28: a double-click on "▶| to end" stopped the run at action 0, with nothing said; trial
/// 29: a double-click on Cancel started it again). A click from the keyboard (`detail` 0) or a
/// single one counts.
pub(crate) fn single_click(dispatch: &Callback<Action>, action: Action) -> Callback<MouseEvent> {
    let dispatch = dispatch.clone();
    Callback::from(move |e: MouseEvent| {
        if e.detail() < 2 {
            dispatch.emit(action.clone());
        }
    })
}

/// The button, or while running: the progress of this run and Cancel.
/// What the box says while the run goes on (under Cancel; its title where the page is too narrow
/// for it beside the controls).
const HINT: &str = "running to the end: the views below catch up when it stops";

pub fn view(state: &AppState, dispatch: &Callback<Action>, step_disabled: bool) -> Html {
    let (Some(to_end), Some(handle)) = (&state.drive.to_end, &state.sim) else {
        return html! {
            <button id="run-all" onclick={single_click(dispatch, Action::RunToEnd)} disabled={step_disabled}
                title="Run every remaining step (in slices: the page stays usable, with progress and Cancel)">{ "▶| to end" }</button>
        };
    };
    let sim = handle.get();
    let (done, total) = (sim.next_step() - to_end.from_step, sim.step_count() - to_end.from_step);
    html! {
        // As wide as the button it replaces (style.css): the controls do not move while it runs.
        <span id="to-end" class="to-end" role="status" title={HINT}>
            <button id="to-end-cancel" onclick={single_click(dispatch, Action::CancelToEnd)}
                title="Stop here (Back, scrub and Step work from where it stopped)">{ "■ Cancel" }</button>
            <progress id="to-end-progress" max={total.to_string()} value={done.to_string()}
                aria-label="progress to the end of the run" />
            <span class="hint">{ HINT }</span>
        </span>
    }
}
