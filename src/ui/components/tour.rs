//! The guided first visit: the steps of [`crate::engine::tour`] (seed 001, the run's own numbers)
//! in a dialog that points at the part of the page each names and goes to the step each is about
//! (`Action::GoTo`, the permalink's path). It opens by itself on a first visit of the page itself
//! (never in an embed or a test's page: [`crate::ui::persist::first_visit`]), and the Tour button
//! opens it again.
//!
//! Keys, as the keys help's dialog: focus moves into the dialog and Tab stays inside it; Enter
//! or → goes on, ← back, Esc closes (anywhere on the page). The page's own keys
//! ([`super::keys`]) leave keys typed inside the dialog alone.

use crate::engine::presets::DEFAULT_PRESET;
use crate::engine::tour::{first_visit, TourPart};
use crate::engine::Action as EngineAction;
use crate::ui::files_state::{Position, ScenarioRef};
use crate::ui::state::Action;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};
use yew::prelude::*;

/// The CSS class of the part a step points at.
const TARGET_CLASS: &str = "tour-target";

/// The element a step points at.
fn selector(part: TourPart) -> &'static str {
    match part {
        TourPart::Step => "#step",
        TourPart::Timeline => "#timeline",
        TourPart::Happened => "#happened",
        TourPart::Result => "#result",
        TourPart::Bookmarks => "#bookmarks",
    }
}

/// Scrolls the part a step points at into view, only when it is above the view or under the
/// dialog (the page does not jump around a part in plain view). The steps below the timeline
/// speak of what it draws (a timer registered, fired): when the timeline and the part's first
/// lines fit above the dialog together, the timeline is put at the top and the part below it
/// (trial 21: steps 4 and 5 scrolled the timeline out of view); else the part is put at the top.
fn scroll_to(target: &Element, timeline: Option<&Element>, dialog: Option<&Element>) {
    let rect = target.get_bounding_client_rect();
    let card_top = dialog.map_or(0.0, |d| d.get_bounding_client_rect().top());
    if !(rect.top() < 0.0 || rect.top() > 8.0 && rect.bottom() > card_top) {
        return;
    }
    let window = web_sys::window();
    let height = window.as_ref().and_then(|w| w.inner_height().ok()).and_then(|h| h.as_f64()).unwrap_or(0.0);
    let above = timeline.map(Element::get_bounding_client_rect).filter(|t| t.top() < rect.top());
    match (above, window) {
        // The part's first 160 px (its heading and first lines) at least.
        (Some(t), Some(w)) if rect.top() + rect.height().min(160.0) - t.top() + 16.0 <= card_top.min(height) => {
            // The whole part above the dialog when it fits there, though the timeline's top
            // (its heading, its legend) goes out of view for it.
            let room = card_top.min(height) - 8.0;
            let whole = if rect.height() + 16.0 <= room { rect.bottom() - room } else { f64::MIN };
            w.scroll_by_with_x_and_y(0.0, (t.top() - 8.0).max(whole));
        }
        _ => target.scroll_into_view_with_bool(true),
    }
}

#[derive(Properties, PartialEq, Clone)]
pub struct TourProps {
    pub dispatch: Callback<Action>,
    /// Where the page stands in seed 001's straight run (`None`: another scenario or position).
    pub here: Option<u64>,
    pub on_close: Callback<()>,
}

/// The dialog's buttons, in order (what Tab cycles through).
fn buttons(dialog: &Element) -> Vec<HtmlElement> {
    let Ok(list) = dialog.query_selector_all("button:not([disabled])") else { return vec![] };
    (0..list.length()).filter_map(|i| list.item(i)).filter_map(|n| n.dyn_into::<HtmlElement>().ok()).collect()
}

#[component]
pub fn Tour(props: &TourProps) -> Html {
    let steps = use_memo((), |_| first_visit());
    let index = use_state(|| 0usize);
    let dialog = use_node_ref();
    let next_ref = use_node_ref();
    // The tour is the engine's; a preset without one would show nothing (hooks run regardless).
    let steps = (*steps).clone().unwrap_or_default();
    let count = steps.len();
    let i = (*index).min(count.saturating_sub(1));
    let step = steps.get(i).cloned();
    {
        // Go to the step's position, point at its part; focus the dialog's "next" button.
        let (dispatch, here, next_ref) = (props.dispatch.clone(), props.here, next_ref.clone());
        let dialog_ref = dialog.clone();
        let target = step.as_ref().map(|s| (s.at_step, s.part));
        use_effect_with(i, move |_| {
            let Some((at, part)) = target else { return Box::new(|| ()) as Box<dyn FnOnce()> };
            if here != Some(at) {
                let actions = if at > 0 { vec![(EngineAction::Step, at)] } else { vec![] };
                dispatch.emit(Action::GoTo(Position { scenario: ScenarioRef::Preset(DEFAULT_PRESET.into()), actions }));
            }
            if let Some(button) = next_ref.cast::<HtmlElement>() {
                let _ = button.focus();
            }
            let dialog_el = dialog_ref.cast::<Element>();
            let document = web_sys::window().and_then(|w| w.document());
            let target = document.as_ref().and_then(|d| d.query_selector(selector(part)).ok().flatten());
            let timeline = document.as_ref().and_then(|d| d.query_selector("#timeline").ok().flatten());
            if let Some(t) = &target {
                let _ = t.class_list().add_1(TARGET_CLASS);
                scroll_to(t, timeline.as_ref(), dialog_el.as_ref());
            }
            // Once more when the page has settled at the step: the sections below the timeline
            // catch up after it, and "What just happened" grows (trial 24: at 400 x 900 the card
            // hid the bottom of step 4's, measured before it grew).
            let again = target.clone().map(|t| {
                let done = std::cell::Cell::new(false);
                gloo_timers::callback::Interval::new(16, move || {
                    let settled = web_sys::window()
                        .and_then(|w| w.document())
                        .and_then(|d| d.query_selector(".fss[data-settled]").ok().flatten())
                        .is_some();
                    if settled && !done.replace(true) {
                        scroll_to(&t, timeline.as_ref(), dialog_el.as_ref());
                    }
                })
            });
            Box::new(move || {
                drop(again);
                if let Some(t) = target {
                    let _ = t.class_list().remove_1(TARGET_CLASS);
                }
            })
        });
    }
    {
        // When it closes, the focus goes back where it was before it opened, or (on a first
        // visit, when nothing had it) to the Tour button that opens it again (trial 19: it fell
        // to the page's <body>).
        let before = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
        use_effect_with((), move |_| {
            move || {
                let document = web_sys::window().and_then(|w| w.document());
                let body = document.as_ref().and_then(|d| d.body()).map(Element::from);
                let back = before
                    .filter(|e| e.is_connected() && Some(e) != body.as_ref())
                    .or_else(|| document.as_ref().and_then(|d| d.query_selector("#tour-open").ok().flatten()));
                if let Some(e) = back.and_then(|e| e.dyn_into::<HtmlElement>().ok()) {
                    let _ = e.focus();
                }
            }
        });
    }
    {
        // Esc closes the tour wherever the focus is.
        let on_close = props.on_close.clone();
        use_effect_with((), move |_| {
            let document = web_sys::window().and_then(|w| w.document());
            let listener = document.map(|doc| {
                gloo_events::EventListener::new(&doc, "keydown", move |e| {
                    if e.dyn_ref::<web_sys::KeyboardEvent>().is_some_and(|k| k.key() == "Escape") {
                        on_close.emit(());
                    }
                })
            });
            move || drop(listener)
        });
    }
    let Some(step) = step else { return html! {} };
    let go = |to: usize| {
        let index = index.clone();
        Callback::from(move |_: MouseEvent| index.set(to))
    };
    let close = props.on_close.reform(|_: MouseEvent| ());
    let last = i + 1 == count;
    let on_key = {
        let (index, on_close, dialog) = (index.clone(), props.on_close.clone(), dialog.clone());
        Callback::from(move |e: KeyboardEvent| {
            let on_button = e
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .is_some_and(|t| t.tag_name().eq_ignore_ascii_case("button"));
            match e.key().as_str() {
                "ArrowRight" if !last => index.set(i + 1),
                "ArrowRight" => on_close.emit(()),
                "Enter" if !on_button && !last => index.set(i + 1),
                "ArrowLeft" if i > 0 => index.set(i - 1),
                "Tab" => {
                    let Some(d) = dialog.cast::<Element>() else { return };
                    let all = buttons(&d);
                    let active = web_sys::window().and_then(|w| w.document()).and_then(|doc| doc.active_element());
                    let at = active.and_then(|a| all.iter().position(|b| **b == a));
                    let to = match (at, e.shift_key()) {
                        (Some(0) | None, true) => all.len().checked_sub(1),
                        (Some(p), false) if p + 1 == all.len() => Some(0),
                        (None, false) => Some(0),
                        _ => return,
                    };
                    if let Some(b) = to.and_then(|t| all.get(t)) {
                        let _ = b.focus();
                    }
                }
                "Escape" => return,
                _ => return,
            }
            e.prevent_default();
            e.stop_propagation();
        })
    };
    html! {
        <div class="tour" id="tour" role="dialog" aria-modal="true" aria-labelledby="tour-title"
            aria-describedby="tour-text" ref={dialog} onkeydown={on_key}>
            <p class="tour-count" id="tour-count">{ format!("Tour {} / {count}", i + 1) }</p>
            <h2 id="tour-title">{ &step.title }</h2>
            <p id="tour-text">{ &step.text }</p>
            <div class="tour-nav">
                <button id="tour-back" onclick={go(i.saturating_sub(1))} disabled={i == 0}>{ "← Back" }</button>
                if last {
                    <button id="tour-next" ref={next_ref} onclick={close.clone()}>{ "Done" }</button>
                } else {
                    <button id="tour-next" ref={next_ref} onclick={go(i + 1)}>{ "Next →" }</button>
                }
            </div>
            <button class="close" id="tour-close" aria-label="Close the tour" onclick={close}>{ "×" }</button>
        </div>
    }
}
