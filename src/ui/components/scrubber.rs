//! The scrubber over the whole run (every recorded action, then a Step for each scenario step
//! not yet run), with what moving back leaves — the recorded future, which Step redoes or "fork
//! from here" discards — and the input "skip" left out. Moving is the engine's
//! ([`crate::engine::Simulation::go_to`]); a move goes at once, and while the handle is dragged
//! faster than the screen refreshes the page goes to the latest position once per animation
//! frame; it requests no frame otherwise.

use crate::ui::settled;
use crate::ui::state::{Action, AppState};
use gloo_render::{request_animation_frame, AnimationFrame};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The position wanted by the last `input` event and the frame that will go there (the page is
/// not settled until it has passed, [`settled`]).
#[derive(Default)]
struct Pending {
    to: Option<usize>,
    frame: Option<(AnimationFrame, settled::Pending)>,
}

/// What the scrubber calls with each position it is dragged to: goes there at once, or, when a
/// move was already made in this frame, to the latest position asked for at the next frame.
#[hook]
pub fn use_scrub(dispatch: Callback<Action>) -> Callback<usize> {
    let pending = use_mut_ref(Pending::default);
    use_callback(dispatch, move |to: usize, dispatch| schedule(&pending, to, dispatch))
}

pub fn view(state: &AppState, dispatch: &Callback<Action>, on_scrub: &Callback<usize>) -> Html {
    let Some(handle) = &state.sim else { return html! {} };
    let sim = handle.get();
    let (at, length) = (sim.action_count(), sim.run_length());
    let recorded_ahead = sim.history().len().saturating_sub(at);
    let tf = sim.time_format();
    let on_input = on_scrub.reform(|e: InputEvent| {
        e.target_unchecked_into::<web_sys::HtmlInputElement>().value().parse::<usize>().unwrap_or_default()
    });
    // While a far move replays in slices (`scrub_far`), the handle stays where it was put.
    let (at, label) = match state.drive.scrub_to {
        Some(far) => (far.to, format!("going to action {} / {length}… (at {at})", far.to)),
        None => (at, format!("action {at} / {length} · {}", tf.format(sim.now()))),
    };
    // Its progress from where the replay started, and Cancel (it stops where it got to).
    let going = state.drive.scrub_to.map(|far| {
        let (max, value) = (far.to.abs_diff(far.from), sim.action_count().abs_diff(far.from));
        html! {
            <span id="scrub-going" class="scrub-going" role="status">
                <button id="scrub-cancel" onclick={dispatch.reform(|_| Action::CancelScrub)}
                    title="Stop here (Back, scrub and Step work from where it stopped)">{ "■ Cancel" }</button>
                <progress id="scrub-progress" max={max.to_string()} value={value.min(max).to_string()}
                    aria-label={format!("replaying from action {} to action {}", far.from, far.to)} />
                // As "▶| to end" says: the step and the clock above go with the replay, the views
                // below keep where the move started (trial 23: "two moments").
                <span class="hint">{ "replaying: the views below catch up when it stops" }</span>
            </span>
        }
    });
    html! {
        <div class="scrub" role="group" aria-label="Position in the run">
            <div class="scrub-row">
                <label for="scrubber" class="visually-hidden">{ "position in the run (actions)" }</label>
                <input type="range" id="scrubber" min="0" max={length.to_string()} value={at.to_string()} step="1"
                    oninput={on_input} aria-valuetext={label.clone()} disabled={length == 0}
                    title="Drag to any point of the run: back exactly by checkpoint + replay, forward by stepping" />
                <span id="scrub-position" class="progress">{ label }</span>
                { for going }
            </div>
            if recorded_ahead > 0 {
                <p class="future" id="future">
                    <span class="future-text">{ format!("{recorded_ahead} later action{} recorded: Step (→) redoes {}.",
                        if recorded_ahead == 1 { "" } else { "s" }, if recorded_ahead == 1 { "it" } else { "them" }) }</span>
                    <button id="fork" onclick={dispatch.reform(|_| Action::DiscardFuture)}
                        title="Discard the recorded future and take another path from here: edit an input in the table below, advance, or skip one">
                        { "↳ fork from here" }</button>
                    <span class="hint">{ " Or edit a past input in the table below: the run is replayed to here with the edit, and the recorded future is discarded." }</span>
                </p>
            }
            if let Some(s) = &state.drive.skipped {
                <p class="skipped" id="skipped" role="status">
                    <span>{ format!("Step {} skipped ({}): the run was replayed without it. ", s.step + 1, s.what) }</span>
                    <button id="undo-skip" onclick={dispatch.reform(|_| Action::UndoSkip)}>{ "↺ bring it back" }</button>
                </p>
            }
        </div>
    }
}

/// Goes to `to` at once when no move was made in this animation frame, else keeps it as the
/// position to go to at the next frame: the first move of a drag (or a click, or a key) is
/// immediate, and however fast the `input` events come there is at most one move per frame.
fn schedule(pending: &Rc<RefCell<Pending>>, to: usize, dispatch: &Callback<Action>) {
    let mut p = pending.borrow_mut();
    if p.frame.is_some() {
        p.to = Some(to);
        return;
    }
    let (pending2, dispatch2) = (pending.clone(), dispatch.clone());
    let frame = request_animation_frame(move |_| {
        let (to, busy) = {
            let mut p = pending2.borrow_mut();
            (p.to.take(), p.frame.take())
        };
        if let Some(to) = to {
            dispatch2.emit(Action::ScrubTo(to));
        }
        drop(busy);
    });
    p.frame = Some((frame, settled::pending()));
    drop(p);
    dispatch.emit(Action::ScrubTo(to));
}
