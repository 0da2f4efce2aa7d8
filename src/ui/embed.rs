//! The simulator embedded in another page: the controls and the simulation's panels only (no page
//! chrome: no preset or Flink chooser, no files, no Compare, What-if or editor), sized to its
//! container, and inert until clicked — it scrolls and takes the page's keys only while focus is
//! inside it (CSS `:focus-within`, `www/embed.css`; [`on_key`]), and the keys it takes do not
//! reach the host page; Esc hides the keys help, else gives the focus back to the page.
//!
//! Two ways in, one [`Embed`]:
//! - the page opened with `?embed` (or `#embed`), for an `<iframe>`: the scenario and position
//!   come from the same query as a permalink (`preset=`, `s=`, `step=`), the options from
//!   `panels=`, `layout=` and `heading=` ([`from_location`]);
//! - `mount(element, scenario, options)` from JavaScript (`super::mount`).
//!
//! An embedded simulator never reads or writes the URL's history or `localStorage`.

use super::components::charts::SimCharts;
use super::components::flow::RetractionFlow;
use super::components::header::{TEXT_MAX_CHARS, TITLE_MAX_CHARS};
use super::components::inspector::StateInspector;
use super::components::timeline::Timeline;
use super::components::{controls, happened, keys, operators, result};
use super::files_state::Position;
use super::persist;
use super::state::{Action, AppState};
use crate::engine::error::shown_text;
use crate::engine::scenario::describe_retentions;
use crate::engine::time::Millis;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;
use yew::Reducible;

mod options;

pub use options::{flag, panel_names, EmbedOptions, Layout, Panel};

/// Where the embedded app's state is: built before the app renders (so JavaScript can step it at
/// once), then the app's own reducer, until destroyed.
enum Phase {
    Waiting(Rc<AppState>),
    Mounted(UseReducerHandle<AppState>),
    Destroyed,
}

/// One embedded simulator: its options and the way to its state from outside the app (the
/// `mount` handle). The app's reducer stays the only place the state changes.
pub struct Embed {
    pub options: EmbedOptions,
    phase: RefCell<Phase>,
}

impl PartialEq for Embed {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Embed {
    pub fn new(state: AppState, options: EmbedOptions) -> Rc<Embed> {
        Rc::new(Embed { options, phase: RefCell::new(Phase::Waiting(Rc::new(state))) })
    }

    /// The state the app starts from (its reducer's initial state).
    pub(crate) fn initial_state(&self) -> AppState {
        match &*self.phase.borrow() {
            Phase::Waiting(state) => (**state).clone(),
            Phase::Mounted(handle) => (**handle).clone(),
            Phase::Destroyed => AppState::default(),
        }
    }

    /// Called on every render of the app: from now on its reducer holds the state.
    pub(crate) fn attach(&self, handle: &UseReducerHandle<AppState>) {
        let mut phase = self.phase.borrow_mut();
        if !matches!(*phase, Phase::Destroyed) {
            *phase = Phase::Mounted(handle.clone());
        }
    }

    /// Reads the current state; `None` once destroyed.
    pub fn with_state<R>(&self, f: impl FnOnce(&AppState) -> R) -> Option<R> {
        match &*self.phase.borrow() {
            Phase::Waiting(state) => Some(f(state)),
            Phase::Mounted(handle) => Some(f(handle)),
            Phase::Destroyed => None,
        }
    }

    /// Carries out `action` as the app's own buttons do (before the first render, on the state
    /// the app will start from). Returns false once destroyed.
    pub fn dispatch(&self, action: Action) -> bool {
        let handle = match &mut *self.phase.borrow_mut() {
            Phase::Waiting(state) => {
                *state = Reducible::reduce(state.clone(), action);
                return true;
            }
            Phase::Mounted(handle) => handle.clone(),
            Phase::Destroyed => return false,
        };
        handle.dispatch(action);
        true
    }

    /// The time range the timeline opens on (`t`, checked by [`EmbedOptions::from_value`]).
    pub fn range(&self) -> Option<crate::engine::time_axis::Viewport> {
        self.options.t.as_deref().and_then(|t| crate::engine::time_range::parse_range(t).ok())
    }

    /// No more state: every later call says so.
    pub fn destroyed(&self) {
        *self.phase.borrow_mut() = Phase::Destroyed;
    }

    pub fn is_destroyed(&self) -> bool {
        matches!(*self.phase.borrow(), Phase::Destroyed)
    }
}

/// What the app keeps for the panels: the timeline's time range on show and the callback that
/// tells it (the charts follow it), and the version the panels under the timeline are drawn at
/// (one frame after the controls, as on the page: `super::deferred`).
pub struct PanelState<'a> {
    pub on_view: &'a Callback<(Millis, Millis)>,
    pub view: Option<(Millis, Millis)>,
    pub deferred: u64,
    /// The time range the timeline opens on ([`Embed::range`], unless the link's scenario could
    /// not be opened).
    pub range: Option<crate::engine::time_axis::Viewport>,
}

/// The embedded simulator; `root` is its root element's ref (the panic hook's view, `data-settled`).
pub fn view(state: &AppState, dispatch: &Callback<Action>, embed: &Embed, root: &NodeRef, ps: &PanelState) -> Html {
    let sim = state.sim.as_ref().map(|s| s.get());
    let scenario = sim.as_ref().map(|s| s.scenario());
    let on_keydown = {
        let (dispatch, keys_shown) = (dispatch.clone(), state.drive.show_keys);
        Callback::from(move |e: KeyboardEvent| on_key(&e, keys_shown, &dispatch))
    };
    // A button pressed with the mouse leaves the focus on the simulator's root, not on itself:
    // a focused button that becomes disabled (Step at the last step) or goes away (the help's ×)
    // drops the focus to the host page, and the simulator its keys and scrolling with it.
    let keep_focus = Callback::from(|e: MouseEvent| {
        let Some(target) = e.target_dyn_into::<web_sys::Element>() else { return };
        let button = target.closest("button").ok().flatten();
        let root = target.closest(".fss.embed").ok().flatten().and_then(|r| r.dyn_into::<web_sys::HtmlElement>().ok());
        if let (Some(_), Some(root)) = (button, root) {
            e.prevent_default();
            let _ = root.focus();
        }
    });
    let compact = embed.options.layout == Layout::Compact;
    html! {
        <div class={classes!("fss", "embed", compact.then_some("compact"))} ref={root.clone()} tabindex="-1" onkeydown={on_keydown} onmousedown={keep_focus} role="group"
            aria-label={scenario.map(|s| format!("flink-state-sim: {}", s.name)).unwrap_or_default()}>
            <p class="embed-hint" aria-hidden="true">{ "click to use · Esc to leave" }</p>
            if state.drive.show_keys {
                // At the top of what is in view, however far the simulator is scrolled.
                <div class="embed-keys">{ keys::help(state, dispatch) }</div>
            }
            if let (true, Some(s)) = (embed.options.heading, scenario) {
                <div class="embed-head">
                    <strong id="scenario-title">{
                        shown_text(if s.title.is_empty() { &s.name } else { &s.title }, TITLE_MAX_CHARS).into_owned()
                    }</strong>
                    <span class="retention" id="retention">{ describe_retentions(s) }</span>
                    if !s.watch.is_empty() {
                        <details class="watch" id="scenario-watch">
                            <summary>{ "What to watch" }</summary>
                            <p>{ shown_text(&s.watch, TEXT_MAX_CHARS).into_owned() }</p>
                        </details>
                    }
                </div>
            }
            if let Some(note) = &state.files.note {
                <div id="files-note" class={classes!("files-note", note.error.then_some("error"))}>{ &note.text }</div>
            }
            { super::far::view(state, dispatch) }
            if let Some(err) = &state.scenario_error {
                <div class="error" id="scenario-error" role="alert">{ err }</div>
            }
            { controls::view(state, dispatch) }
            if let Some(err) = &state.step_error {
                <div class="error" id="step-error" role="alert">{ err }</div>
            }
            if let (Some(sim), Some(handle)) = (&sim, &state.sim) {
                { panels(sim, &embed.options.panels, &|p: Panel| match p {
                    Panel::Timeline => html! {
                        <Timeline sim={handle.clone()} version={state.version} dispatch={dispatch.clone()}
                            on_view={ps.on_view.clone()} compact={compact} request={ps.range}
                            inspectable={embed.options.panels.contains(&Panel::Inspector)} />
                    },
                    Panel::Flow => html! { <RetractionFlow sim={handle.clone()} version={ps.deferred} /> },
                    // Over the timeline's range when the timeline is shown, else the whole run.
                    Panel::Charts => html! {
                        <SimCharts sim={handle.clone()} version={ps.deferred}
                            view={ps.view.filter(|_| embed.options.panels.contains(&Panel::Timeline))} />
                    },
                    Panel::Inspector => html! {
                        <StateInspector sim={handle.clone()} version={ps.deferred} inspect={state.drive.inspect.clone()} />
                    },
                    Panel::Happened | Panel::Operators | Panel::Result => html! {},
                }) }
            }
        </div>
    }
}

/// A key pressed inside the embedded simulator, which takes the page's keys while the focus is
/// inside it ([`keys::action_for_event`]): what it takes, and what a field or the timeline inside
/// it takes, does not reach the host page (whose own keys, such as mdBook's ← → turning pages,
/// would act too). Esc hides the keys help, or, when it is hidden, gives the focus back to the
/// page (also from a field).
fn on_key(e: &KeyboardEvent, keys_shown: bool, dispatch: &Callback<Action>) {
    let target = e.target_dyn_into::<web_sys::Element>();
    let root = target.as_ref().and_then(|t| t.closest(".fss.embed").ok().flatten());
    if !root.is_some_and(|r| r.matches(":focus-within").unwrap_or(false)) {
        return; // not focused: the page's keys are the host page's
    }
    let modifier = e.ctrl_key() || e.alt_key() || e.meta_key();
    if e.key() == "Escape" && !modifier {
        if keys_shown {
            dispatch.emit(Action::CloseKeys);
        } else if let Some(el) = target.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = el.blur();
        }
    } else if let Some(action) = keys::action_for_event(e) {
        dispatch.emit(action);
    } else if !modifier && (keys::typed_into_target(e) || e.default_prevented()) {
        // A field's or the timeline's key: theirs, and not the host page's either.
        e.stop_propagation();
        return;
    } else {
        return;
    }
    e.prevent_default();
    e.stop_propagation();
}

/// The chosen panels in their order: the wide ones (the timeline, the retraction flow, the
/// charts, the inspector: the components `wide` draws) full width, the others in the page's two
/// columns, where the first of them is chosen — "what just happened" on the left, the operators
/// and the result on the right.
fn panels(sim: &crate::engine::Simulation, chosen: &[Panel], wide: &dyn Fn(Panel) -> Html) -> Html {
    let part = |p: &Panel| match p {
        Panel::Happened => happened::view(sim),
        Panel::Operators => operators::view(sim),
        Panel::Result => result::view(sim),
        _ => wide(*p),
    };
    let rest: Vec<&Panel> = chosen.iter().filter(|p| !p.is_wide()).collect();
    let left: Vec<&Panel> = rest.iter().copied().filter(|p| **p == Panel::Happened).collect();
    let right: Vec<&Panel> = rest.iter().copied().filter(|p| **p != Panel::Happened).collect();
    let columns = if !left.is_empty() && !right.is_empty() {
        html! {
            <div class="columns">
                { for left.into_iter().map(part) }
                <div class="flow">{ for right.into_iter().map(part) }</div>
            </div>
        }
    } else {
        html! { <div class="flow">{ for left.into_iter().chain(right).map(part) }</div> }
    };
    let first_column = chosen.iter().position(|p| !p.is_wide());
    html! {
        <>
            { for chosen.iter().enumerate().map(|(i, p)| match (p.is_wide(), Some(i) == first_column) {
                (true, _) => part(p),
                (false, true) => columns.clone(),
                (false, false) => html! {},
            }) }
        </>
    }
}

/// The query parameters an `?embed` link may carry.
const LINK_PARAMETERS: &str = "embed, preset, s, step, actions, panels, layout, heading, t";

/// The embedded simulator the page's address asks for: `?embed` (with `preset=`/`s=`,
/// `step=`, `panels=timeline,result`, `layout=compact`, `heading=false`, `t=FROM..TO`) or `#embed`; `None` for the page itself.
/// A link that cannot be opened opens the default preset, and the simulator says why.
pub fn from_location() -> Option<Rc<Embed>> {
    let location = web_sys::window()?.location();
    let query = location.search().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    let has_embed = query.trim_start_matches('?').split('&').any(|p| p == "embed" || p.starts_with("embed="));
    if !has_embed && hash != "#embed" {
        return None;
    }
    // A bad option or position loses nothing else: the link's scenario (at its start when the
    // position is bad), and its valid options (all defaults when one is bad); each problem is said.
    let mut problems = Vec::new();
    let state = match persist::parse_query_keeping_scenario(&query) {
        Ok(Some((p, None))) => AppState::open(&p, "link"),
        Ok(Some((p, Some(bad)))) => {
            problems.push(format!("{bad} — shown at its start"));
            AppState::open(&p, "link")
        }
        Ok(None) => AppState::default(),
        Err(e) => {
            problems.push(format!("{e} — the default preset is shown instead"));
            AppState::default()
        }
    };
    // A bad option is ignored (left at its default); the link's other options apply (trial 23: one bad
    // option dropped them all).
    let (options, errors) = read_link_options(&query);
    let count = errors.len();
    for (k, line) in errors.into_iter().enumerate() {
        problems.push(match k + 1 == count {
            true if count == 1 => format!("{line} — ignored; the link's other options apply"),
            true => format!("{line} — these are ignored; the link's other options apply"),
            false => line,
        });
    }
    let mut state = state;
    if !problems.is_empty() {
        let mut text = problems.iter().map(|p| format!("link: {p}")).collect::<Vec<_>>().join("\n");
        // What opening the link said (a step past the end) goes with them, first.
        if let Some(opened) = state.files.note.take() {
            text = format!("{}\n{text}", opened.text);
        }
        state.files.note = Some(super::files_state::Note { text, error: true });
    }
    Some(Embed::new(state, options))
}

/// An `?embed` link's position and options.
///
/// # Errors
/// The parameter and the rule.
pub fn link(query: &str) -> Result<(Option<Position>, EmbedOptions), String> {
    let options = link_options(query)?;
    Ok((persist::parse_query(query)?, options))
}

/// The options of an `?embed` link (its other parameters are the page's: `preset`, `s`, `step`,
/// `actions`).
///
/// # Errors
/// Every bad option, one per line, or an unknown parameter.
pub fn link_options(query: &str) -> Result<EmbedOptions, String> {
    match read_link_options(query) {
        (options, errors) if errors.is_empty() => Ok(options),
        (_, errors) => Err(errors.join("\n")),
    }
}

/// [`link_options`], keeping the valid ones ([`EmbedOptions::read`]), with every problem.
fn read_link_options(query: &str) -> (EmbedOptions, Vec<String>) {
    let mut options = serde_json::Map::new();
    let mut errors = Vec::new();
    for pair in query.trim_start_matches('?').split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = js_sys::decode_uri_component(value).map(String::from).unwrap_or_else(|_| value.to_string());
        match key {
            "embed" | "preset" | "s" | "step" | "actions" => {}
            "panels" => {
                let (names, empty) = panel_names(&value);
                if let Some(e) = empty {
                    errors.push(format!("panels: {e}"));
                }
                options.insert("panels".into(), serde_json::Value::Array(names));
            }
            "layout" => {
                options.insert("layout".into(), value.into());
            }
            "t" => {
                options.insert("t".into(), value.into());
            }
            "heading" => {
                let on = match flag(&value) {
                    Some(on) => on,
                    None => {
                        errors.push(format!("heading: {} is not true or false", crate::engine::error::quote(&value)));
                        continue;
                    }
                };
                options.insert("heading".into(), on.into());
            }
            _ => errors.push(format!(
                "{}: not a parameter of an embed link ({LINK_PARAMETERS})",
                crate::engine::error::quote(key)
            )),
        }
    }
    let (options, more) = EmbedOptions::read(serde_json::Value::Object(options), "");
    errors.extend(more);
    (options, errors)
}
