//! A move of the scrubber that replays far, in slices: the first [`SLICE_MS`] of it runs at once
//! (a move within reach ends there, as before), the rest one task per slice
//! ([`crate::engine::Simulation::go_toward`]), so the page paints and takes input between two
//! slices, as "▶| to end" ([`super::to_end`]) does. A newer move of the scrubber takes its place;
//! any other move through the run stops it where it got to (a position like any other), and so
//! does its Cancel. Meanwhile the scrubber shows its progress from where the replay started
//! ([`crate::engine::Simulation::move_origin`]: the checkpoint it restored, or the position it
//! left going forward) and Cancel, as "▶| to end" does. The timeline and the sections below it
//! keep the position the move started from until it ends.
//!
//! Trial 18 measured a scrub at 400 k steps of `seed-000-topn-dedup` leaving the page
//! unanswered for up to 1.3 s (one task replaying up to the checkpoint spacing).

use super::state::{Action, AppState};
use super::to_end::SLICE_MS;
use crate::ui::clock::wall_ms;
use yew::prelude::*;

/// Actions replayed between two looks at the clock inside a slice: a slice overruns
/// [`SLICE_MS`] by at most one part (on `seed-000-topn-dedup`, ~13 µs an action natively, 128
/// are a few ms; parts of 1 024 made tasks of 100–300 ms in a loaded page: trial 23).
const PART: usize = 128;

/// A scrubber move replaying towards `to`, from action `from` (for its progress).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScrubFar {
    pub to: usize,
    pub from: usize,
}

impl AppState {
    /// A scrubber move to `n` (a new one, or the next slice of the one under way).
    pub(super) fn scrub_toward(mut self, n: usize) -> Self {
        self.playing = false;
        let started = wall_ms();
        let from = match self.drive.scrub_to {
            Some(far) if far.to == n => far.from,
            _ => self.sim.as_ref().map_or(0, |s| s.get().move_origin(n)),
        };
        let mut done = false;
        let mut next = self.drive(|s| {
            while wall_ms() - started < SLICE_MS {
                if s.go_toward(n, PART).map_err(|e| e.to_string())? {
                    done = true;
                    return Ok(());
                }
            }
            Ok(())
        });
        next.drive.scrub_to = (!done && next.step_error.is_none()).then_some(ScrubFar { to: n, from });
        next
    }
}

/// The most actions a Back replays in one task; a Back that would replay more goes in slices
/// ([`AppState::back_replays_far`]). As far as a scrub replays before it lays a ladder (about
/// 17 ms natively at 1 M logins, 2.1 µs an untraced action).
pub const FAR_BACK_ACTIONS: usize = crate::engine::time_travel::SCRUB_LADDER_AFTER;

impl AppState {
    /// Whether a Back from here would replay more than [`FAR_BACK_ACTIONS`] (from the nearest
    /// checkpoint or rung: [`crate::engine::Simulation::move_origin`]).
    pub(super) fn back_replays_far(&self) -> bool {
        self.sim.as_ref().is_some_and(|s| {
            let sim = s.get();
            let n = sim.action_count().saturating_sub(1);
            sim.action_count() > 0 && n - sim.move_origin(n).min(n) > FAR_BACK_ACTIONS
        })
    }

    /// Cancel of the move replaying towards `far`: it stops where it got to, after as many more
    /// actions (at most the page's trace window, [`super::state::TRACE_WINDOW_ACTIONS`], and not
    /// past `far.to`) as the views need to show what happened there
    /// ([`crate::engine::Simulation::untraced_window`]).
    pub(super) fn cancel_scrub(self, far: Option<ScrubFar>) -> Self {
        let Some(far) = far else { return self };
        self.drive(|s| {
            let gap = s.untraced_window();
            if gap > 0 {
                let end = s.action_count().saturating_add(gap).min(far.to);
                s.go_to(end).map_err(|e| e.to_string())?;
            }
            Ok(())
        })
    }
}

/// Schedules the next slice after each render while a scrubber move is under way; the page is
/// not settled meanwhile ([`super::settled`]: a scrub is awaited by what it shows, at its end).
#[hook]
pub fn use_scrub_far(state: &UseReducerHandle<AppState>) {
    let target = state.drive.scrub_to.map(|far| far.to);
    let dispatcher = state.dispatcher();
    let sim = state.sim.clone();
    use_effect_with((target, state.version), move |(target, _)| {
        let slice = target.map(|n| {
            // The state the move's first part replaced is freed in a task of its own.
            let timeout = super::to_end::next_slice(sim, move || dispatcher.dispatch(Action::ScrubSlice(n)));
            (timeout, super::settled::pending())
        });
        move || drop(slice)
    });
}
