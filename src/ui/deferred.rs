//! Progressive rendering: the sections below the timeline (the operator cards, the result, the
//! retraction flow, the charts, the state inspector) show the page's state one frame after the
//! controls and the timeline do. A Step first paints what is at the top of the page, then the rest;
//! while Play runs faster than the screen refreshes, those sections render once per frame, at the
//! latest state, instead of once per step. What they show is the same; only when changes.

use super::settled;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The version (the page state's [`super::state::AppState::version`]) the deferred sections
/// show: `version` itself, from just after the next frame is painted (an animation frame, then a
/// task). Versions reached meanwhile are skipped; the latest one is shown. Until the render that
/// shows `version`, the page is not settled ([`settled`]).
#[hook]
pub fn use_deferred_version(version: u64) -> u64 {
    let shown = use_state_eq(|| version);
    let latest = use_mut_ref(|| version);
    let pending: Rc<RefCell<Option<gloo_render::AnimationFrame>>> = use_mut_ref(|| None);
    // Behind from the render that moved `version` on to the render that catches up (this hook
    // runs in the App's render).
    let behind = use_mut_ref(|| None::<settled::Pending>);
    if *shown == version {
        behind.borrow_mut().take();
    } else if behind.borrow().is_none() {
        *behind.borrow_mut() = Some(settled::pending());
    }
    *latest.borrow_mut() = version;
    {
        let shown = shown.clone();
        use_effect_with(version, move |_| {
            if pending.borrow().is_none() && *shown != *latest.borrow() {
                let done = pending.clone();
                let frame = gloo_render::request_animation_frame(move |_| {
                    gloo_timers::callback::Timeout::new(0, move || {
                        done.borrow_mut().take();
                        shown.set(*latest.borrow());
                    })
                    .forget();
                });
                *pending.borrow_mut() = Some(frame);
            }
        });
    }
    *shown
}
