//! A position too far to replay on load. A link (or the autosave) carries the actions to replay
//! (`step=10000000`); replaying them when the page opens would freeze the tab, and a link is
//! anyone's. So the page opens at the start when there are more than [`MAX_ACTIONS_ON_OPEN`], with
//! a note offering to go there: "Go there" replays them in slices of [`SLICE_MS`] of work between
//! frames, with a progress bar and Cancel (as the What-if run does), and the page stays usable.
//!
//! Memory while going there: the page's trace keeps the last
//! [`super::state::TRACE_WINDOW_ACTIONS`] actions' entries and its checkpoints a bounded budget
//! ([`crate::engine::time_travel::MEMORY_BUDGET`]); what grows is the recorded actions (16 bytes
//! each, for Back) and the scenario's own live state (its keys) — and so Cancel stays at hand.

use super::files_state::{Note, Position};
use super::state::{Action, AppState};
use crate::engine::Action as EngineAction;
use crate::ui::clock::wall_ms;
use yew::prelude::*;

/// The most actions a link or the autosave replays when the page opens; beyond, it opens at the
/// start with a note offering to go there. A preset's scenario has tens of steps; replaying 10 000
/// takes well under a second.
pub const MAX_ACTIONS_ON_OPEN: u64 = 10_000;

/// Wall-clock ms of replay between two frames while going there.
pub const SLICE_MS: f64 = 12.0;
/// Actions between two looks at the clock inside a slice (as `super::to_end`: a slice overruns
/// [`SLICE_MS`] by at most 32 actions, a few ms even in a debug build).
const CLOCK_EVERY: u64 = 32;

/// A position a link or the autosave asked for, not replayed on load.
#[derive(Clone, Debug, PartialEq)]
pub struct Far {
    /// What asked for it: "link", "saved session".
    pub what: String,
    /// The actions to carry out, run-length encoded.
    pub actions: Vec<(EngineAction, u64)>,
    /// How many of them.
    pub total: u64,
    /// How many have been carried out.
    pub done: u64,
    /// Going there now (slices scheduled).
    pub running: bool,
}

impl Far {
    /// The position asked for (for the permalink and the autosave while it is pending).
    pub fn position(&self, scenario: super::files_state::ScenarioRef) -> Position {
        Position { scenario, actions: self.actions.clone() }
    }

    /// The actions from the `done`-th on.
    fn remaining(&self) -> impl Iterator<Item = EngineAction> + '_ {
        let mut skip = self.done;
        self.actions.iter().flat_map(move |(a, n)| {
            let left = n.saturating_sub(skip);
            skip = skip.saturating_sub(*n);
            std::iter::repeat_n(*a, left as usize)
        })
    }

    /// "step 10 000 000" or "action 12 (of …)": what the note says it asks for.
    pub fn target(&self) -> String {
        if self.actions.iter().all(|(a, _)| *a == EngineAction::Step) {
            format!("step {}", spaced(self.total))
        } else {
            format!("{} actions", spaced(self.total))
        }
    }
}

/// `10000000` → `10 000 000`.
pub fn spaced(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

impl AppState {
    /// Opening at `position`: its actions are replayed now when they are few, else left for "Go
    /// there" ([`Far`]).
    pub(super) fn replay_or_defer(&mut self, position: &Position, what: &str) -> Result<(), String> {
        let total = position.action_count();
        if total > MAX_ACTIONS_ON_OPEN {
            let actions = position.actions.clone();
            self.files.far = Some(Far { what: what.to_string(), actions, total, done: 0, running: false });
            return Ok(());
        }
        self.replay(position.actions())
    }

    /// Go there, one slice, cancel.
    pub(super) fn reduce_far(mut self, action: Action) -> Self {
        let Some(mut far) = self.files.far.take() else { return self };
        match action {
            Action::GoFar => {
                far.running = true;
                self.playing = false;
                if let Some(handle) = self.sim.as_ref() {
                    // A Back at the position asked for restores a rung laid on the way.
                    let mut sim = handle.borrow_mut();
                    let end = sim.action_count() as u64 + far.total.saturating_sub(far.done);
                    sim.plan_ladder_to(usize::try_from(end).unwrap_or(usize::MAX));
                }
            }
            Action::CancelFar => far.running = false,
            Action::DismissFar => return self,
            Action::FarSlice if far.running => {
                let Some(handle) = self.sim.clone() else { return self };
                let started = wall_ms();
                let mut sim = handle.borrow_mut();
                let mut remaining = far.remaining();
                let mut done = far.done;
                let mut failed = None;
                'slice: while wall_ms() - started < SLICE_MS {
                    for _ in 0..CLOCK_EVERY {
                        let Some(a) = remaining.next() else { break 'slice };
                        if let Err(e) = sim.act(a) {
                            failed =
                                Some(format!("action {} ({}) could not run — {e}", done + 1, sim.describe_planned(a)));
                            break 'slice;
                        }
                        done += 1;
                        // A step that thinned the checkpoints ends the slice (to_end::next_slice).
                        if sim.has_retired() {
                            break 'slice;
                        }
                    }
                }
                drop(remaining);
                drop(sim);
                far.done = done;
                if let Some(e) = failed {
                    self.files.note =
                        Some(Note { text: format!("{}: {e}: opened where it stopped", far.what), error: true });
                    return self;
                }
                if far.done >= far.total {
                    return self;
                }
            }
            _ => {}
        }
        self.files.far = Some(far);
        self
    }
}

/// Schedules the next slice while going there: after each render of a running [`Far`], a task
/// (the browser paints and takes input between).
#[hook]
pub fn use_far(state: &UseReducerHandle<AppState>) {
    let running = state.files.far.as_ref().is_some_and(|f| f.running);
    let dispatcher = state.dispatcher();
    let sim = state.sim.clone();
    use_effect_with((running, state.version), move |(running, _)| {
        let timeout = running.then(|| super::to_end::next_slice(sim, move || dispatcher.dispatch(Action::FarSlice)));
        move || drop(timeout)
    });
}

/// The note: "This link asks for step 10 000 000 — Go there", then the progress and Cancel.
pub fn view(state: &AppState, dispatch: &Callback<Action>) -> Html {
    let Some(far) = &state.files.far else { return html! {} };
    let asks = format!("This {} asks for {}", far.what, far.target());
    html! {
        <div id="far-note" class="files-note" role="status">
            if far.running {
                <span>{ format!("{asks}: going there…") }</span>
                <progress id="far-progress" max={far.total.to_string()} value={far.done.to_string()}
                    aria-label="progress to the link's position" />
                <span id="far-count">{ format!("{} / {}", spaced(far.done), spaced(far.total)) }</span>
                <button id="far-cancel" onclick={super::to_end::single_click(dispatch, Action::CancelFar)}>{ "Cancel" }</button>
            } else {
                <span>{
                    if far.done == 0 {
                        format!("{asks}; it opened at the start (more than {} actions are not replayed on load).", spaced(MAX_ACTIONS_ON_OPEN))
                    } else {
                        format!("{asks}; stopped at {} of {}.", spaced(far.done), spaced(far.total))
                    }
                }</span>
                <button id="far-go" onclick={super::to_end::single_click(dispatch, Action::GoFar)}>
                    { if far.done == 0 { "Go there" } else { "Go on" } }
                </button>
                <button class="close" aria-label="Dismiss" onclick={dispatch.reform(|_| Action::DismissFar)}>{ "×" }</button>
            }
        </div>
    }
}
