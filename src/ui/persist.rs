//! Files and links: the scenario as a file (export, import), the autosave to `localStorage`, and
//! the permalink — the scenario and the position in the URL — with Back / Forward through steps.
//!
//! **The URL.** `?preset=NAME&step=N` for a preset unchanged, `?s=DATA&step=N` for any other
//! scenario, `DATA` being its JSON text compressed as LZ-String's `compressToEncodedURIComponent`
//! (the `lz-str` crate; the JavaScript `lz-string` library reads it too). `step=N` says N steps
//! were run; when other actions were carried out (advance by, next timer), `actions=` lists them
//! all instead: `s3.b3600000.n.t1574262000000` (3 steps, advance by 1 h, next timer, advance to).
//! `t=FROM..TO` adds the time range the timeline shows, when the user chose one (zoomed, panned;
//! none for the default view), in the scenario's time format ([`crate::engine::time_range`]): a
//! zoom or pan replaces the address, never pushes an entry. A bad `t=` opens the link with a note
//! saying why, and the timeline's default view.
//! A scenario whose link would pass [`MAX_ADDRESS_CHARS`] (more than a web server accepts) is not
//! written into the address: the page's bare address stays, the autosave brings the scenario back
//! over a reload, and a note says so and offers Export.
//! A link is read within bounds ([`crate::link`]): at most [`MAX_LINK_CHARS`] characters, a
//! scenario that decodes to at most [`crate::link::MAX_SCENARIO_UNITS`] (checked while decoding,
//! so a "zip bomb" link is refused after a few ms), and an imported file of at most
//! [`crate::link::MAX_IMPORT_BYTES`]; a link that asks for more steps than the page replays on load opens at
//! the start, with a note offering to go there ([`crate::ui::far::MAX_ACTIONS_ON_OPEN`]).
//!
//! **History.** Each user action that moves the page (Step, Next timer, Advance, a scenario
//! loaded) pushes a history entry, so Back / Forward move through them; Play pushes one entry
//! when it starts moving and replaces it when paused (nothing is written at the beats between),
//! so a long Play is one entry, not hundreds. A position reached by Back / Forward replaces, never
//! pushes. The writes happen just after the frame that shows the position (see `schedule`).
//!
//! **Autosave.** The scenario (a preset's name, or its text) and the actions, under
//! [`STORAGE_KEY`], rewritten when they change ([`super::autosave`]).
//!
//! Persistence is on for the page itself only ([`super::AppProps::persist`]): an embedded
//! simulator or a test's does not touch the URL or the storage.

pub use super::autosave::{first_visit, initial_state, load_saved, mark_tour_seen, STORAGE_KEY, TOUR_KEY};
use super::autosave::{hide_quiet_saved, js_error_text, save, save_hide_quiet, saved_text};
use super::files_state::{LongLink, Position, ScenarioRef};
use super::state::{Action, AppState};
use crate::engine::time::Millis;
use crate::engine::time_axis::Viewport;
use crate::engine::time_range::{parse_range, range_text};
use crate::engine::Action as EngineAction;
use crate::link::{decompress_scenario, MAX_ADDRESS_CHARS, MAX_LINKED_TEXT_BYTES, MAX_LINK_CHARS};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsValue;
use yew::prelude::*;

/// The most actions a link or the autosave may carry (a 1 M-event run has 1 M steps).
const MAX_ACTIONS: u64 = 10_000_000;

// ---------------------------------------------------------------------------------------------
// The actions, compactly

/// `s3.b3600000.n.t1574262000000`: runs of actions, `s` step, `n` next timer, `bD` advance by
/// D ms, `tT` advance to T ms, each optionally followed by `*K` for K repetitions.
pub fn encode_actions(actions: &[(EngineAction, u64)]) -> String {
    let parts: Vec<String> = actions
        .iter()
        .map(|(a, n)| {
            let one = match a {
                EngineAction::Step => "s".to_string(),
                EngineAction::NextTimer => "n".to_string(),
                EngineAction::AdvanceBy(ms) => format!("b{ms}"),
                EngineAction::AdvanceTo(ms) => format!("t{ms}"),
            };
            match (a, n) {
                (_, 1) => one,
                (EngineAction::Step | EngineAction::NextTimer, n) => format!("{one}{n}"),
                (_, n) => format!("{one}*{n}"),
            }
        })
        .collect();
    parts.join(".")
}

/// Reads [`encode_actions`]' form.
///
/// # Errors
/// Naming the part that is not an action.
pub fn decode_actions(text: &str) -> Result<Vec<(EngineAction, u64)>, String> {
    let mut out = Vec::new();
    let mut total = 0u64;
    for part in text.split('.').filter(|p| !p.is_empty()) {
        let bad = || format!("actions: '{part}' is not an action (s, n, bMS, tMS, optionally *COUNT)");
        let (head, count) = match part.split_once('*') {
            Some((h, c)) => (h, c.parse::<u64>().map_err(|_| bad())?),
            None => (part, 1),
        };
        let (kind, num) = head.split_at(1.min(head.len()));
        let (action, count) = match kind {
            "s" | "n" => {
                let n = if num.is_empty() { count } else { num.parse::<u64>().map_err(|_| bad())? * count };
                (if kind == "s" { EngineAction::Step } else { EngineAction::NextTimer }, n)
            }
            "b" => (EngineAction::AdvanceBy(num.parse().map_err(|_| bad())?), count),
            "t" => (EngineAction::AdvanceTo(num.parse().map_err(|_| bad())?), count),
            _ => return Err(bad()),
        };
        total = total.saturating_add(count);
        if total > MAX_ACTIONS {
            return Err(format!("actions: more than {MAX_ACTIONS} actions"));
        }
        out.push((action, count));
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// The URL

/// The query string of `position` (`?preset=…&step=3`, then `&t=` and `range` when given: the
/// timeline's range as [`crate::engine::time_range::range_text`] writes it); `compressed` is the
/// scenario text's compressed form when the caller has it already.
pub fn query(position: &Position, compressed: Option<&str>, range: Option<&str>) -> String {
    let range = range.map(|r| format!("&t={r}")).unwrap_or_default();
    format!("{}{range}", position_query(position, compressed))
}

/// [`query`] without the range.
fn position_query(position: &Position, compressed: Option<&str>) -> String {
    let scenario = match &position.scenario {
        ScenarioRef::Preset(name) => format!("preset={}", String::from(js_sys::encode_uri_component(name))),
        ScenarioRef::Json(json) => match compressed {
            Some(c) => format!("s={c}"),
            None => format!("s={}", lz_str::compress_to_encoded_uri_component(json.as_str())),
        },
    };
    let only_steps = position.actions.iter().all(|(a, _)| *a == EngineAction::Step);
    if only_steps {
        format!("?{scenario}&step={}", position.action_count())
    } else {
        format!("?{scenario}&actions={}", encode_actions(&position.actions))
    }
}

/// Reads a query string (`?preset=…&step=3`, with or without the `?`). `Ok(None)` when it names
/// no scenario (a plain page address).
///
/// # Errors
/// What is wrong with the link, naming the parameter.
pub fn parse_query(query: &str) -> Result<Option<Position>, String> {
    if query.len() > MAX_LINK_CHARS {
        return Err(format!(
            "the link is {} characters long, more than the {} the page reads",
            crate::engine::digits::grouped(query.len()),
            crate::engine::digits::grouped(MAX_LINK_CHARS)
        ));
    }
    let mut preset = None;
    let mut data = None;
    let mut actions = Vec::new();
    for pair in query.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        // No `+` → space here: `+` is one of LZ-String's URI characters.
        let value = js_sys::decode_uri_component(value).map(String::from).unwrap_or_else(|_| value.to_string());
        match key {
            "preset" => preset = Some(value),
            "s" => data = Some(value),
            "step" => {
                let n = value.parse::<u64>().map_err(|_| format!("step: '{value}' is not a whole number of steps"))?;
                if n > MAX_ACTIONS {
                    return Err(format!("step: {n} is more than {MAX_ACTIONS} steps"));
                }
                actions = vec![(EngineAction::Step, n)];
            }
            "actions" => actions = decode_actions(&value)?,
            _ => {}
        }
    }
    let scenario = match (preset, data) {
        (Some(_), Some(_)) => return Err("preset and s: a link names a preset or carries a scenario, not both".into()),
        (Some(name), None) => ScenarioRef::Preset(name),
        (None, Some(data)) => ScenarioRef::Json(decompress_scenario(&data)?),
        (None, None) if actions.is_empty() => return Ok(None),
        (None, None) => return Err("the link has a step but no scenario (preset= or s=)".into()),
    };
    Ok(Some(Position { scenario, actions: actions.into_iter().filter(|(_, n)| *n > 0).collect() }))
}

/// [`parse_query`], except that a bad `step=` or `actions=` loses nothing else: the link's
/// scenario opens at its start, and the position's error comes back to be said (trial 19: a bad
/// `step=` opened the default preset instead of the link's scenario).
///
/// # Errors
/// What is wrong with the link's scenario, naming the parameter.
pub fn parse_query_keeping_scenario(query: &str) -> Result<Option<(Position, Option<String>)>, String> {
    match parse_query(query) {
        Ok(position) => Ok(position.map(|p| (p, None))),
        Err(e) if e.starts_with("step:") || e.starts_with("actions:") => {
            let position_param = |p: &&str| {
                let key = p.split_once('=').map_or(*p, |(k, _)| k);
                key == "step" || key == "actions"
            };
            let rest: Vec<&str> = query.trim_start_matches('?').split('&').filter(|p| !position_param(p)).collect();
            match parse_query(&rest.join("&")) {
                Ok(Some(position)) => Ok(Some((position, Some(e)))),
                // Both said: the default preset opens for want of a scenario, not for the step.
                Ok(None) => Err(format!("{e}, and the link names no scenario (preset= or s=)")),
                Err(_) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// The address of the page at `state`'s position (for the copy-link button).
pub fn permalink(state: &AppState) -> String {
    let location = web_sys::window().map(|w| w.location());
    let base = location
        .map(|l| format!("{}{}", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default()))
        .unwrap_or_default();
    let range = shown_range_text(state);
    state.persisted_position().map(|p| format!("{base}{}", query(&p, None, range.as_deref()))).unwrap_or(base)
}

thread_local! {
    /// The timeline's range the user chose on the page ([`use_persistence`]'s `range`).
    static SHOWN: std::cell::Cell<Option<(Millis, Millis)>> = const { std::cell::Cell::new(None) };
}

/// The `t=` value of the range the user chose, in `state`'s scenario's time format.
fn shown_range_text(state: &AppState) -> Option<String> {
    let (from, to) = SHOWN.with(std::cell::Cell::get)?;
    let tf = state.sim.as_ref()?.get().time_format();
    Some(range_text(tf, Viewport { from, to }))
}

/// The parameters the page's own address reads ([`parse_query`], [`range_param`]).
pub(super) const PAGE_PARAMETERS: [&str; 5] = ["preset", "s", "step", "actions", "t"];

/// The parameters of `query` the page does not read, each once, in order (an `?embed` link's
/// are read by [`super::embed`]).
fn unknown_parameters(query: &str) -> Vec<String> {
    let mut unknown: Vec<String> = Vec::new();
    for pair in query.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
        let key = pair.split_once('=').map_or(pair, |(k, _)| k);
        let shown = crate::engine::error::name(key);
        if !PAGE_PARAMETERS.contains(&key) && !unknown.contains(&shown) {
            unknown.push(shown);
        }
    }
    unknown
}

/// The note for parameters the page does not read: said, not ignored without a word.
pub(super) fn unknown_parameters_note(query: &str) -> Option<String> {
    let unknown = unknown_parameters(query);
    (!unknown.is_empty()).then(|| {
        format!(
            "link: {} {} not read by the page (it reads {}); the rest of the link opened",
            unknown.join(", "),
            if unknown.len() == 1 { "is" } else { "are" },
            PAGE_PARAMETERS.join(", ")
        )
    })
}

/// The `t=` of a query string: `Ok(None)` when it has none.
///
/// # Errors
/// `t:` and the rule ([`parse_range`]).
pub fn range_param(query: &str) -> Result<Option<Viewport>, String> {
    let value = query.trim_start_matches('?').split('&').find_map(|p| p.strip_prefix("t="));
    let Some(value) = value else { return Ok(None) };
    let value = js_sys::decode_uri_component(value).map(String::from).unwrap_or_else(|_| value.to_string());
    parse_range(&value).map(Some)
}

/// The range of the page's own link, if it has a valid one (an invalid one is reported by
/// [`initial_state`]).
pub fn link_range() -> Option<Viewport> {
    range_param(&current_query()).ok().flatten()
}

pub(super) fn current_query() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

fn write_url(query: &str, replace: bool) {
    let Some(window) = web_sys::window() else { return };
    let Ok(history) = window.history() else { return };
    let path = window.location().pathname().unwrap_or_default();
    let hash = window.location().hash().unwrap_or_default();
    let url = format!("{path}{query}{hash}");
    // A refused write (a sandboxed document) leaves the URL as it was: the page goes on.
    let _ = if replace {
        history.replace_state_with_url(&JsValue::NULL, "", Some(&url))
    } else {
        history.push_state_with_url(&JsValue::NULL, "", Some(&url))
    };
}

// ---------------------------------------------------------------------------------------------
// The hook

/// What the hook remembers between renders.
#[derive(Default)]
struct Memory {
    /// The scenario text last compressed, and its compressed form.
    compressed: Option<(String, String)>,
    /// The autosave text last written.
    saved: Option<String>,
    /// The running Play has written its entry: its next beats write nothing until the pause.
    play_written: bool,
    /// Whether the last URL write was during a drag of an input.
    dragging: bool,
    /// Set by Back / Forward: the next write replaces.
    from_history: bool,
    /// No URL written yet: the first write replaces the address the page was opened with.
    first_done: bool,
    /// The state of the latest render, written by the pending write.
    latest: Option<UseReducerHandle<AppState>>,
    /// A write is scheduled (after the next frame is painted) and not yet done.
    scheduled: bool,
    /// The animation frame the pending write waits for.
    frame: Option<gloo_render::AnimationFrame>,
    /// Held while a write is scheduled: the page is not settled ([`super::settled`]).
    busy: Option<super::settled::Pending>,
    /// The position part of the query last written: a write that changes only `t=` replaces.
    written_position: Option<String>,
}

/// Schedules the write of the URL and the autosave for the latest state, after the next frame is
/// painted (an animation frame, then a task): `history.pushState` and `localStorage` are
/// synchronous calls into the browser that take several ms each, so they would delay every Step's
/// paint. Renders before the write coalesce into it (a burst of steps within one frame is one
/// history entry, at its last position).
fn schedule(state: &UseReducerHandle<AppState>, memory: &Rc<RefCell<Memory>>) {
    let mut m = memory.borrow_mut();
    if !m.first_done {
        // The first write, at mount, replaces the address the page was opened with: at once, so
        // that the page's first action pushes an entry of its own.
        drop(m);
        return sync(state, memory, false);
    }
    m.latest = Some(state.clone());
    if m.scheduled {
        return;
    }
    m.scheduled = true;
    m.busy = Some(super::settled::pending());
    let memory = memory.clone();
    m.frame = Some(gloo_render::request_animation_frame(move |_| {
        gloo_timers::callback::Timeout::new(0, move || flush(&memory, false)).forget();
    }));
}

/// Carries out the scheduled write now, if one is pending (or, `leaving`, the write Play left
/// for its pause).
fn flush(memory: &Rc<RefCell<Memory>>, leaving: bool) {
    let (latest, _busy) = {
        let mut m = memory.borrow_mut();
        if !(m.scheduled || leaving && m.play_written) {
            return;
        }
        m.scheduled = false;
        (m.latest.clone(), m.busy.take())
    };
    if let Some(state) = latest {
        sync(&state, memory, leaving);
    }
}

/// Keeps the URL and the autosave in step with `state` and the timeline's chosen `range` (written
/// just after the frame that shows it, [`schedule`]; at once when the page is left), and answers
/// Back / Forward (the range the timeline shows stays as it is). A no-op unless `enabled`.
#[hook]
pub fn use_persistence(state: &UseReducerHandle<AppState>, enabled: bool, range: Option<(Millis, Millis)>) {
    let memory = use_mut_ref(Memory::default);
    {
        let (memory, dispatcher) = (memory.clone(), state.dispatcher());
        use_effect_with(enabled, move |enabled| {
            let on_unmount = enabled.then(|| memory.clone());
            let listeners = enabled.then(|| {
                let window = web_sys::window().expect("a page has a window");
                let on_leave = memory.clone();
                let leave = gloo_events::EventListener::new(&window, "pagehide", move |_| flush(&on_leave, true));
                let history = gloo_events::EventListener::new(&window, "popstate", move |_| {
                    // A write still pending (the position being left, within a frame of Back) is dropped:
                    // it would push over the entry Back went to.
                    let dropped = {
                        let mut m = memory.borrow_mut();
                        m.scheduled = false;
                        m.busy.take()
                    };
                    drop(dropped);
                    match parse_query(&current_query()) {
                        Ok(Some(position)) => {
                            memory.borrow_mut().from_history = true;
                            dispatcher.dispatch(Action::GoTo(position));
                        }
                        Ok(None) => {}
                        Err(e) => dispatcher.dispatch(Action::LinkCopied(Err((current_query(), e)))),
                    }
                });
                (leave, history)
            });
            move || {
                drop(listeners);
                // Unmounted (an embedding page removed it): what is pending is written now.
                if let Some(memory) = on_unmount {
                    flush(&memory, true);
                }
            }
        });
    }
    use_effect_with((state.drive.hide_quiet, enabled), |(on, enabled)| {
        // Written when changed, not at mount (the page opened with what was saved).
        if *enabled && *on != hide_quiet_saved() {
            save_hide_quiet(*on);
        }
    });
    let state = state.clone();
    use_effect_with((state.version, enabled, range), move |(_, enabled, range)| {
        if *enabled {
            SHOWN.with(|s| s.set(*range));
            schedule(&state, &memory);
        }
    });
}

/// Writes the URL and the autosave for `state` when they changed. While Play runs, only its first
/// beat writes (the entry it pushes); the next are left to the pause, or to `leaving` (the page is
/// hidden or unmounted): `history.replaceState` and `localStorage` at every beat would cost Play
/// several ms each.
fn sync(state: &UseReducerHandle<AppState>, memory: &Rc<RefCell<Memory>>, leaving: bool) {
    let Some(position) = state.persisted_position() else { return };
    // A far move going in slices is written once, where it ends (trial 24: the address showed
    // the positions it passed); when the page is left, where it got to.
    if state.drive.scrub_to.is_some() && !leaving {
        return;
    }
    let mut m = memory.borrow_mut();
    // A run to the end is written like Play: at its first slice, then where it stops.
    let playing = state.playing || state.drive.to_end.is_some();
    if playing && m.play_written && !leaving {
        return;
    }
    // A link longer than a web server accepts is not written: the bare address, the autosave
    // bringing the scenario back over a reload, and the page saying so. A text too long for any
    // link is not even compressed.
    let compressed = match &position.scenario {
        ScenarioRef::Json(json) if json.len() > MAX_LINKED_TEXT_BYTES => Err(LongLink::Text(json.len())),
        ScenarioRef::Json(json) => {
            if m.compressed.as_ref().is_none_or(|(j, _)| j != json) {
                m.compressed = Some((json.clone(), lz_str::compress_to_encoded_uri_component(json.as_str())));
            }
            Ok(m.compressed.as_ref().map(|(_, c)| c.clone()))
        }
        ScenarioRef::Preset(_) => Ok(None),
    };
    let (at, q, long_link) = match compressed {
        Err(long) => (String::new(), String::new(), Some(long)),
        Ok(compressed) => {
            let at = position_query(&position, compressed.as_deref());
            let q = query(&position, compressed.as_deref(), shown_range_text(state).as_deref());
            match compressed.filter(|_| q.len() > MAX_ADDRESS_CHARS) {
                Some(c) => (String::new(), String::new(), Some(LongLink::Compressed(c.len()))),
                None => (at, q, None),
            }
        }
    };
    if long_link != state.files.long_link {
        state.dispatch(Action::LongLink(long_link));
    }
    if q != current_query() {
        // A drag of an input on the timeline pushes one entry, at its first move, then replaces it;
        // so does Play, at its first beat, then at its pause. A new range alone replaces.
        let range_only = m.written_position.as_deref() == Some(at.as_str());
        let replace = !m.first_done || m.from_history || m.play_written || m.dragging || range_only;
        write_url(&q, replace);
        m.play_written = playing;
        m.written_position = Some(at);
    }
    if !playing {
        m.play_written = false;
    }
    m.first_done = true;
    m.from_history = false;
    m.dragging = state.drive.dragging;
    let text = saved_text(&position);
    if m.saved.as_deref() != Some(text.as_str()) {
        let outcome = save(&text);
        let problem = outcome.as_ref().err().map(|e| {
            format!("Autosave failed ({e}): a reload will not bring this session back; export the scenario to keep it.")
        });
        m.saved = outcome.is_ok().then_some(text);
        drop(m);
        if problem != state.files.storage_error {
            state.dispatch(Action::StorageProblem(problem));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Files (export, import: [`super::files`])

pub use super::files::{export, export_sql, file_name, import};

/// Copies the permalink to the clipboard and dispatches the outcome.
pub fn copy_link(state: &AppState, dispatch: Callback<Action>) {
    if let Some(ScenarioRef::Json(json)) = state.persisted_position().map(|p| p.scenario) {
        if json.len() > MAX_LINKED_TEXT_BYTES {
            // Not compressed (it would take the page for up to a second), not copied. The note on
            // the long link, when shown, already says why and what to do (trial 22: said twice).
            let text = match state.files.long_link {
                Some(_) => {
                    "No link copied: this scenario is too long for a link (the note above says what to do).".into()
                }
                None => format!("No link copied. {}", LongLink::Text(json.len()).text()),
            };
            return dispatch.emit(Action::FilesNote(super::files_state::Note { text, error: true }));
        }
    }
    let url = permalink(state);
    let Some(window) = web_sys::window() else { return };
    let promise = window.navigator().clipboard().write_text(&url);
    let busy = super::settled::pending();
    wasm_bindgen_futures::spawn_local(async move {
        let _busy = busy;
        let outcome = wasm_bindgen_futures::JsFuture::from(promise).await;
        dispatch.emit(Action::LinkCopied(outcome.map(|_| url.clone()).map_err(|e| (url, js_error_text(&e)))));
    });
}
