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
use serde::Deserialize;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;
use yew::Reducible;

/// What an embedded simulator shows, from `mount`'s `options` or the `?embed` link's query.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbedOptions {
    /// Open after this many scenario steps (0: at the start).
    #[serde(default)]
    pub step: u64,
    /// Show the scenario's title, its retention settings and what to watch above the controls.
    #[serde(default = "yes")]
    pub heading: bool,
    /// The parts shown under the controls, in this order.
    #[serde(default = "Panel::all")]
    pub panels: Vec<Panel>,
    /// How much room the parts take ([`Layout`]).
    #[serde(default)]
    pub layout: Layout,
    /// The time range the timeline opens on, as a link's `t=` writes it
    /// (`2019-11-20T15:00..2019-11-21T06:00`, `0..1500`: [`crate::engine::time_range`]); none: the
    /// whole run.
    #[serde(default)]
    pub t: Option<String>,
}

fn yes() -> bool {
    true
}

impl Default for EmbedOptions {
    fn default() -> Self {
        EmbedOptions { step: 0, heading: true, panels: Panel::all(), layout: Layout::Full, t: None }
    }
}

/// A part of the simulator under its controls; each is the full page's own component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Panel {
    /// The timeline of accesses, cleanup timers and state TTL per key.
    Timeline,
    /// "What just happened": the last action's consequences with their rules.
    Happened,
    /// Each operator's keyed state and changelog.
    Operators,
    /// The result table.
    Result,
    /// The retraction flow: the changelog travelling from the source through each operator to
    /// the result ([`RetractionFlow`]).
    Flow,
    /// The charts of state size, timers and emitted rows per operator ([`SimCharts`]), over the
    /// timeline's time range when the timeline is shown.
    Charts,
    /// The state inspector: every key's state entries, expiry and status ([`StateInspector`]).
    Inspector,
}

impl Panel {
    pub const NAMES: &'static str = "timeline, happened, operators, result, flow, charts, inspector";

    pub fn name(self) -> &'static str {
        match self {
            Panel::Timeline => "timeline",
            Panel::Happened => "happened",
            Panel::Operators => "operators",
            Panel::Result => "result",
            Panel::Flow => "flow",
            Panel::Charts => "charts",
            Panel::Inspector => "inspector",
        }
    }

    /// The default: the stepper's four (the retraction flow, the charts and the inspector are
    /// chosen by name).
    pub fn all() -> Vec<Panel> {
        vec![Panel::Timeline, Panel::Happened, Panel::Operators, Panel::Result]
    }

    /// Drawn across the whole width, one under the other, rather than in the two columns.
    fn is_wide(self) -> bool {
        matches!(self, Panel::Timeline | Panel::Flow | Panel::Charts | Panel::Inspector)
    }
}

/// How much room an embedded simulator's parts take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// As on the page: the timeline's rule written out, the controls at the page's size.
    #[default]
    Full,
    /// For a page that explains the scenario around the simulator (the book): the clock beside
    /// its label, smaller buttons, the timeline's rule folded under a summary line and its note
    /// on where lanes come from dropped, tighter cards, the charts three to a row where there is
    /// room (`www/embed.css`, `.compact`). The same parts, the same information otherwise.
    Compact,
}

impl EmbedOptions {
    /// Reads options from a JSON value (`null` for the defaults), each option on its own: every
    /// misspelt or invalid option is refused by name, all of them at once (one per line); `what`
    /// prefixes every message (`options`).
    ///
    /// # Errors
    /// The options and their rules, e.g. `options.panels[0]: unknown panel `timelin`, expected …`.
    pub fn from_value(value: serde_json::Value, what: &str) -> Result<EmbedOptions, String> {
        match EmbedOptions::read(value, what) {
            (options, errors) if errors.is_empty() => Ok(options),
            (_, errors) => Err(errors.join("\n")),
        }
    }

    /// [`EmbedOptions::from_value`], keeping what is valid: the options with every valid one
    /// set and every invalid one at its default, and what was wrong with each.
    pub fn read(value: serde_json::Value, what: &str) -> (EmbedOptions, Vec<String>) {
        let fields = match value {
            serde_json::Value::Null => return (EmbedOptions::default(), Vec::new()),
            serde_json::Value::Object(fields) => fields,
            other => {
                let e = format!("{what}: expected an object such as {{ \"step\": 2 }}, got {}", kind(&other));
                return (EmbedOptions::default(), vec![e]);
            }
        };
        // `options.panels[0]`, or for a link's parameters (`what` empty) `panels[0]`.
        let at = |rest: &str| if what.is_empty() { rest.to_string() } else { format!("{what}.{rest}") };
        let mut options = EmbedOptions::default();
        let mut errors = Vec::new();
        let mut bad_panel = false;
        let mut fields = fields;
        // Panels as a list, or as the element's attribute and a link take them: "timeline,result".
        if let Some(serde_json::Value::String(names)) = fields.get("panels") {
            let (items, empty) = panel_names(names);
            if let Some(e) = empty {
                errors.push(format!("{}: {e}", at("panels")));
            }
            fields.insert("panels".into(), serde_json::Value::Array(items));
        }
        for (name, value) in fields {
            let outcome = match name.as_str() {
                "step" => option(value).map(|v| options.step = v),
                // As a link and an attribute take it: "no", "off", … too (trial 26).
                "heading" => match value {
                    serde_json::Value::String(word) if flag(&word).is_some() => {
                        options.heading = flag(&word).unwrap_or(true);
                        Ok(())
                    }
                    other => option(other).map(|v| options.heading = v),
                },
                // Each panel on its own: every unknown name is said, not only the first.
                "panels" => match value {
                    serde_json::Value::Array(items) => {
                        options.panels.clear();
                        for (i, item) in items.into_iter().enumerate() {
                            match option(item).map_err(|(p, m)| (p, name_variant(&m, "panel"))) {
                                Ok(panel) => options.panels.push(panel),
                                Err((_, message)) => {
                                    bad_panel = true;
                                    errors.push(format!("{}: {message}", at(&format!("panels[{i}]"))));
                                }
                            }
                        }
                        Ok(())
                    }
                    other => option(other).map(|v| options.panels = v).map_err(|(p, m)| (p, name_variant(&m, "panel"))),
                },
                "layout" => option(value).map(|v| options.layout = v).map_err(|(p, m)| (p, name_variant(&m, "layout"))),
                "t" => option(value).map(|v| options.t = v),
                _ => Err((String::new(), format!("unknown field `{name}`, expected one of {}", option_list()))),
            };
            if let Err((path, message)) = outcome {
                errors.push(format!("{}{path}: {message}", at(&name)));
            }
        }
        if options.panels.is_empty() && !bad_panel {
            errors.push(format!("{}: name at least one of {}", at("panels"), Panel::NAMES));
        }
        for (i, p) in options.panels.iter().enumerate() {
            if options.panels[..i].contains(p) {
                errors.push(format!("{}: '{}' is listed twice", at(&format!("panels[{i}]")), p.name()));
            }
        }
        if let Some(Err(e)) = options.t.as_deref().map(crate::engine::time_range::parse_range) {
            errors.push(at(&e.to_string()));
            options.t = None;
        }
        if options.panels.is_empty() {
            options.panels = Panel::all();
        }
        // A panel listed twice (said above) is shown once.
        let mut seen = Vec::new();
        options.panels.retain(|p| {
            let first = !seen.contains(p);
            seen.push(*p);
            first
        });
        (options, errors)
    }
}

/// A yes-or-no parameter or attribute (`heading`): empty (present) or `true` / `yes` / `on` /
/// `1` for yes, `false` / `no` / `off` / `0` for no, in any case (trial 24: `heading=no` was
/// refused).
pub fn flag(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// Panel names as a link, an attribute and `options.panels` take them in one text:
/// `timeline,result` or `timeline result`; and what is wrong with it when a name between two
/// commas is empty (trial 26: `timeline,,result` was taken without a word).
pub fn panel_names(text: &str) -> (Vec<serde_json::Value>, Option<String>) {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let empty = parts.len() > 1 && parts.iter().any(|p| p.is_empty());
    let names = parts.iter().flat_map(|p| p.split_whitespace()).map(|n| n.into()).collect();
    (names, empty.then(|| format!("{} has an empty name between commas", crate::engine::error::quote(text))))
}

/// The options' names, as [`EmbedOptions`]' fields.
const OPTION_NAMES: [&str; 5] = ["step", "heading", "panels", "layout", "t"];

/// `` `step`, `heading`, … `` as serde lists fields.
fn option_list() -> String {
    OPTION_NAMES.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// One option's value, or where in it (`[0]`, empty for the value itself) and what is wrong.
fn option<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        (path, crate::engine::error::serde_message(&e.into_inner()))
    })
}

/// "unknown value `clock`, expected …" as "unknown panel `clock`, expected …": the option's
/// own noun (trial 22: `panels=bogus`); "expected a name, found the number 3" with the names
/// (trial 24: it was serde's "expected string or map").
fn name_variant(message: &str, noun: &str) -> String {
    let names = match noun {
        "panel" => {
            format!("one of {}", Panel::NAMES.split(", ").map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
        }
        _ => "`full` or `compact`".to_string(),
    };
    message.replacen("unknown value", &format!("unknown {noun}"), 1).replacen(
        "expected a name,",
        &format!("expected the name of a {noun}, {names},"),
        1,
    )
}

/// "a string", "an array", … for messages.
fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

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
