//! The keyboard: space plays / pauses, → steps, ← steps back, `n` advances to the next timer, `q`
//! hides / shows quiet steps, `?`
//! shows the keys (Escape hides them). [`action_for_event`] maps a `keydown` to its action, for
//! the page (one listener on the document, idle until a key is pressed) and for an embedded
//! simulator (its root's listener, while focused: `super::super::embed`); keys typed into a
//! field, a list or the scrubber (whose own arrows move it) are theirs, and so are keys with
//! Ctrl, Alt or Meta.

use crate::ui::state::{Action, AppState};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The keys and what they do, as the help lists them.
pub const KEYS: &[(&str, &str)] = &[
    ("Space", "play / pause"),
    ("→", "step"),
    ("←", "step back (exactly: checkpoint + replay)"),
    ("n", "advance to the next timer"),
    ("q", "hide / show quiet steps (→ and ← pass the steps that changed nothing)"),
    ("?", "show / hide these keys"),
    ("Esc", "hide these keys"),
    ("+ / − / 0", "on the timeline: zoom in / out / fit; ← → pan it, or move a focused input"),
];

/// The page's keys an embedded simulator does not have (it shows no bookmarks).
pub const PAGE_KEYS: &[(&str, &str)] = &[("[ / ]", "go to the previous / next bookmark")];

/// The action a key stands for, or `None` when the key is not the page's (or belongs to the
/// element it was typed in).
pub fn action_for(key: &str, target_takes_keys: bool) -> Option<Action> {
    if target_takes_keys {
        return None;
    }
    match key {
        " " | "Spacebar" => Some(Action::TogglePlay),
        "ArrowRight" => Some(Action::Step),
        "ArrowLeft" => Some(Action::StepBack),
        "n" | "N" => Some(Action::NextTimer),
        "q" | "Q" => Some(Action::ToggleHideQuiet),
        "?" => Some(Action::ToggleKeys),
        "Escape" => Some(Action::CloseKeys),
        _ => None,
    }
}

/// Whether the element `key` went to uses it itself: a text field, a list, the scrubber, an
/// editable area or the tour's dialog (`super::tour`) takes every key; the timeline's lanes and inputs take the arrows (they pan the
/// view and move an input).
fn takes_keys(target: Option<web_sys::EventTarget>, key: &str) -> bool {
    let Some(el) = target.and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    let tag = el.tag_name().to_ascii_lowercase();
    let arrow = key.starts_with("Arrow");
    matches!(tag.as_str(), "input" | "textarea" | "select")
        || el.closest("[contenteditable]").ok().flatten().is_some()
        || el.closest("#tour").ok().flatten().is_some()
        || arrow && el.closest(".timeline-keys").ok().flatten().is_some()
}

/// The action a `keydown` stands for, for the page and for a focused embedded simulator alike;
/// `None` for a key with Ctrl, Alt or Meta, a held-down space, a key that is not the page's, or
/// one the element it was typed in takes ([`typed_into_target`]).
pub fn action_for_event(e: &web_sys::KeyboardEvent) -> Option<Action> {
    if e.ctrl_key() || e.alt_key() || e.meta_key() || e.repeat() && e.key() == " " {
        return None;
    }
    let key = e.key();
    action_for(&key, typed_into_target(e))
}

/// Whether the element the key went to uses it itself (a field, a list, the timeline's arrows).
pub fn typed_into_target(e: &web_sys::KeyboardEvent) -> bool {
    takes_keys(e.target(), &e.key())
}

/// Listens for the page's keys on the document while the page is mounted (not for an embedded
/// simulator, `enabled` false: it takes keys only while focused).
#[hook]
pub fn use_keys(dispatch: Callback<Action>, enabled: bool) {
    use_effect_with(enabled, move |enabled| {
        let document = web_sys::window().and_then(|w| w.document()).filter(|_| *enabled);
        let listener = document.map(|doc| {
            // Not passive (gloo's default): a key the page takes must not also scroll it (space).
            let options = gloo_events::EventListenerOptions::enable_prevent_default();
            gloo_events::EventListener::new_with_options(&doc, "keydown", options, move |e| {
                let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else { return };
                if let Some(action) = action_for_event(e) {
                    e.prevent_default();
                    dispatch.emit(action);
                }
            })
        });
        move || drop(listener)
    });
}

/// The keys help, when open.
pub fn help(state: &AppState, dispatch: &Callback<Action>) -> Html {
    help_with(state, dispatch, &[])
}

/// The keys help, when open, listing `extra` keys after [`KEYS`] (the page's [`PAGE_KEYS`]).
pub fn help_with(state: &AppState, dispatch: &Callback<Action>, extra: &[(&str, &str)]) -> Html {
    if !state.drive.show_keys {
        return html! {};
    }
    html! {
        <div class="keys-help" id="keys" role="dialog" aria-label="Keyboard keys">
            <h2>{ "Keys" }</h2>
            <dl>
                { for KEYS.iter().chain(extra).map(|(k, what)| html! { <><dt><kbd>{ *k }</kbd></dt><dd>{ *what }</dd></> }) }
            </dl>
            <p class="hint">{ "Keys typed into a field or a list are the field's. Paused, the page runs nothing." }</p>
            <button class="close" aria-label="Close the keys" onclick={dispatch.reform(|_| Action::CloseKeys)}>{ "×" }</button>
        </div>
    }
}
