//! The autosave to `localStorage` and the page's first state: the scenario (a preset's name, or
//! its text) and the actions, under [`STORAGE_KEY`], rewritten when they change
//! ([`super::persist`] writes it); at load, the link's position, else the autosave's, else the
//! default preset, with a note for whatever could not be opened. The Web Storage API is used
//! straight from `web-sys` rather than through `gloo-storage`, whose `LocalStorage` panics
//! (`expect_throw`) when the browser denies storage (a sandboxed or third-party iframe): here a
//! quota or access error is shown in the page and the page goes on.

use super::files_state::{Note, Position, ScenarioRef};
use super::persist::{
    current_query, decode_actions, encode_actions, parse_query, parse_query_keeping_scenario, range_param,
    unknown_parameters_note, PAGE_PARAMETERS,
};
use super::state::AppState;
use crate::engine::presets::DEFAULT_PRESET;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

/// The `localStorage` key of the autosave.
pub const STORAGE_KEY: &str = "flink-state-sim.autosave";

/// The `localStorage` key that remembers the first-visit tour was shown ([`first_visit`]).
pub const TOUR_KEY: &str = "flink-state-sim.tour-seen";

/// What the autosave keeps.
#[derive(Serialize, Deserialize)]
struct Saved {
    /// A preset's name, when the scenario is one unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    preset: Option<String>,
    /// Else the scenario's JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scenario: Option<String>,
    /// [`encode_actions`]' form.
    actions: String,
}

/// A JavaScript exception as `Name: message`.
pub(super) fn js_error_text(e: &JsValue) -> String {
    let field = |name: &str| js_sys::Reflect::get(e, &JsValue::from_str(name)).ok().and_then(|v| v.as_string());
    match (field("name"), field("message")) {
        (Some(n), Some(m)) => format!("{n}: {m}"),
        (Some(n), None) => n,
        (None, Some(m)) => m,
        (None, None) => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    }
}

fn local_storage() -> Result<web_sys::Storage, String> {
    let window = web_sys::window().ok_or("no window")?;
    match window.local_storage() {
        Ok(Some(storage)) => Ok(storage),
        Ok(None) => Err("this browser has no localStorage".into()),
        Err(e) => Err(js_error_text(&e)),
    }
}

/// The autosave's text for `position`.
pub(super) fn saved_text(position: &Position) -> String {
    let (preset, scenario) = match &position.scenario {
        ScenarioRef::Preset(p) => (Some(p.clone()), None),
        ScenarioRef::Json(j) => (None, Some(j.clone())),
    };
    serde_json::to_string(&Saved { preset, scenario, actions: encode_actions(&position.actions) }).unwrap_or_default()
}

/// Writes the autosave.
///
/// # Errors
/// The browser's reason (`QuotaExceededError: …`, `SecurityError: …`), for the page to show.
pub(super) fn save(text: &str) -> Result<(), String> {
    let storage = local_storage()?;
    storage.set_item(STORAGE_KEY, text).map_err(|e| js_error_text(&e))
}

/// The autosave, if any.
///
/// # Errors
/// When storage cannot be read or what it holds is not an autosave.
pub fn load_saved() -> Result<Option<Position>, String> {
    let storage = local_storage()?;
    let Some(text) = storage.get_item(STORAGE_KEY).map_err(|e| js_error_text(&e))? else { return Ok(None) };
    let saved: Saved = serde_json::from_str(&text).map_err(|e| format!("unreadable ({e})"))?;
    let scenario = match (saved.preset, saved.scenario) {
        (Some(p), _) => ScenarioRef::Preset(p),
        (None, Some(s)) => ScenarioRef::Json(s),
        (None, None) => return Ok(None),
    };
    Ok(Some(Position { scenario, actions: decode_actions(&saved.actions)? }))
}

/// Whether this is a first visit, when the guided tour opens by itself: the page was opened with
/// no link and no autosave, and the tour was never shown. Storage that cannot be read counts as
/// no first visit (the tour could not be remembered and would open at every visit).
pub fn first_visit() -> bool {
    let Ok(storage) = local_storage() else { return false };
    let seen = storage.get_item(TOUR_KEY).map(|v| v.is_some()).unwrap_or(true);
    let saved = storage.get_item(STORAGE_KEY).map(|v| v.is_some()).unwrap_or(true);
    !seen && !saved && matches!(parse_query(&current_query()), Ok(None))
}

/// Remembers that the tour was shown: it does not open by itself again. A refused write is
/// ignored (the autosave reports storage problems).
pub fn mark_tour_seen() {
    if let Ok(storage) = local_storage() {
        let _ = storage.set_item(TOUR_KEY, "1");
    }
}

/// The page's first state: the link in the URL if there is one, else the autosave, else the
/// default preset. A link or autosave that cannot be opened loads the default preset, and a note
/// says why.
pub fn initial_state() -> AppState {
    let mut state = initial_position();
    state.drive.hide_quiet = hide_quiet_saved();
    state
}

/// Whether "hide quiet steps" was left on (the browser's local settings; off when storage
/// cannot be read).
pub(super) fn hide_quiet_saved() -> bool {
    let key = super::drive_state::HIDE_QUIET_KEY;
    local_storage().ok().and_then(|s| s.get_item(key).ok().flatten()).is_some_and(|v| v == "1")
}

/// Remembers "hide quiet steps" (a refused write is ignored: the autosave reports storage
/// problems).
pub(super) fn save_hide_quiet(on: bool) {
    if let Ok(storage) = local_storage() {
        let _ = storage.set_item(super::drive_state::HIDE_QUIET_KEY, if on { "1" } else { "0" });
    }
}

/// The link's position, else the autosave's, else the default preset ([`initial_state`]).
fn initial_position() -> AppState {
    let fallback = |what: &str, e: String| {
        let mut state = AppState::default();
        state.files.note = Some(super::files_state::Note {
            text: format!("{what}: {e} — the default preset '{DEFAULT_PRESET}' is loaded instead"),
            error: true,
        });
        state
    };
    let query = current_query();
    let mut state = match parse_query_keeping_scenario(&query) {
        Ok(Some((position, bad_position))) => {
            let mut state = AppState::open(&position, "link");
            // A bad step loses nothing else: the link's scenario opens at its start. When that
            // scenario could not be opened either, both are said (trial 22: only the preset was).
            if let Some(e) = bad_position {
                let text = match state.files.note.take() {
                    Some(opened) => format!("{}\nlink: {e}", opened.text),
                    None => format!("link: {e} — the link's scenario opened at its start"),
                };
                state.files.note = Some(Note { text, error: true });
            }
            state
        }
        Err(e) => return fallback("link", e),
        Ok(None) => {
            let mut state = match load_saved() {
                Ok(Some(position)) => AppState::open(&position, "saved session"),
                Ok(None) => AppState::default(),
                Err(e) => {
                    let mut state = AppState::default();
                    state.files.storage_error = Some(format!("The saved session could not be read: {e}"));
                    state
                }
            };
            let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
            if let Some(text) = hash_link_note(&hash) {
                note_once(&mut state, text);
            }
            state
        }
    };
    // A bad range loses nothing else (with a scenario in the link or without): the page opens,
    // the timeline on its default view.
    if let Err(e) = range_param(&query) {
        note_once(&mut state, format!("link: {e} — the timeline shows the run as usual"));
    }
    if let Some(text) = unknown_parameters_note(&query) {
        note_once(&mut state, text);
    }
    state
}

/// Shows `text` as the page's note unless an earlier one is already there (the first said wins).
fn note_once(state: &mut AppState, text: String) {
    if state.files.note.is_none() {
        state.files.note = Some(Note { text, error: true });
    }
}

/// A link with its parameters after `#` (`#preset=NAME`), which the page does not read: what to
/// write instead. `None` for any other fragment (`#embed`, none).
fn hash_link_note(hash: &str) -> Option<String> {
    let fragment = hash.strip_prefix('#')?;
    let names_one = fragment.split('&').any(|p| p.split_once('=').is_some_and(|(k, _)| PAGE_PARAMETERS.contains(&k)));
    names_one.then(|| {
        let shown = crate::engine::error::name(fragment);
        format!("link: the part after # ({shown}) is not read — a link carries its parameters after ?, as ?{shown}")
    })
}
