//! Simulators in a documentation page, from JavaScript: `mount(element, scenario, options)`
//! returns a [`Simulator`] handle (`step()`, `seek(k)`, `destroy()`, `position`, `steps`, `now`),
//! and the custom element `<flink-state-sim>` does the same from HTML.
//!
//! ```js
//! import init, { mount } from './flink-state-sim.js';
//! await init();                     // also defines <flink-state-sim>
//! const a = mount(document.getElementById('a'), 'seed-001-one-day-two-days', { step: 2 });
//! const b = mount(document.getElementById('b'), jsonText, { panels: ['operators', 'result'] });
//! const c = mount(document.getElementById('c'), 'seed-004-device-status', { panels: ['flow', 'charts'], layout: 'compact' });
//! a.step(); b.seek(0); a.destroy();
//! ```
//!
//! Each simulator renders into a shadow root of its element, with the page's stylesheet inside
//! it, so the host page's CSS and the simulator's do not touch; it never writes the URL or
//! `localStorage`. Bad arguments throw an `Error` naming the argument and the rule
//! (`mount: options.stpe: unknown field …`); nothing is mounted then.

use super::embed::{Embed, EmbedOptions};
use super::files_state::{Position, ScenarioRef};
use super::state::{Action, AppState};
use super::{App, AppProps};
use crate::engine::error::quote;
use crate::engine::presets::{preset_json, PRESETS};
use crate::engine::{Action as EngineAction, Scenario};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, ShadowRoot, ShadowRootInit, ShadowRootMode};

/// The page's stylesheet and the embed's, put into each simulator's shadow root.
const STYLE: &str = concat!(
    include_str!("../../www/style.css"),
    "\n",
    include_str!("../../www/embed.css"),
    "\n",
    include_str!("../../www/see.css")
);

/// The custom element's name.
pub const ELEMENT_NAME: &str = "flink-state-sim";

/// One embedded simulator (returned by `mount`).
#[wasm_bindgen]
pub struct Simulator {
    embed: Rc<Embed>,
    app: Option<yew::AppHandle<App>>,
    host: Element,
    parts: Vec<Element>,
}

fn destroyed(what: &str) -> JsError {
    JsError::new(&format!("{what}: this simulator was destroyed"))
}

#[wasm_bindgen]
impl Simulator {
    /// Runs the next scenario step, as the Step button does.
    ///
    /// # Errors
    /// When no step can run (all ran, time was advanced past it, the simulation stopped) or the
    /// step fails, with the reason.
    pub fn step(&self) -> Result<(), JsError> {
        let why = self
            .embed
            .with_state(|s| {
                let Some(handle) = &s.sim else { return Some("no scenario is loaded".to_string()) };
                let sim = handle.get();
                if let Some(blocked) = sim.step_blocked() {
                    Some(blocked)
                } else if let Some(f) = sim.failure() {
                    Some(format!("the simulation stopped: {f}"))
                } else if sim.is_finished() {
                    Some(format!("all {} steps have run", sim.step_count()))
                } else {
                    None
                }
            })
            .ok_or_else(|| destroyed("step"))?;
        if let Some(why) = why {
            return Err(JsError::new(&format!("step: {why}")));
        }
        self.embed.dispatch(Action::Step);
        match self.embed.with_state(|s| s.step_error.clone()).flatten() {
            Some(e) => Err(JsError::new(&format!("step: {e}"))),
            None => Ok(()),
        }
    }

    /// Goes to the state after the scenario's first `k` steps (0: the start), forward by
    /// stepping, back by the engine's checkpoint and replay.
    ///
    /// # Errors
    /// When `k` is not a whole number from 0 to the number of steps, or a step on the way fails.
    pub fn seek(&self, k: JsValue) -> Result<(), JsError> {
        let (json, count) = self
            .embed
            .with_state(|s| (s.json.clone(), s.sim.as_ref().map_or(0, |h| h.get().step_count())))
            .ok_or_else(|| destroyed("seek"))?;
        let k = whole_number(&k).ok_or_else(|| {
            JsError::new(&format!("seek: k: expected a whole number of steps from 0 to {count}, got {}", describe(&k)))
        })?;
        if k > count {
            return Err(JsError::new(&format!("seek: k: {k} is past the scenario's last step ({count} steps)")));
        }
        let actions = if k == 0 { vec![] } else { vec![(EngineAction::Step, k)] };
        self.embed.dispatch(Action::GoTo(Position { scenario: ScenarioRef::Json(json), actions }));
        let (at, note) = self
            .embed
            .with_state(|s| (position_of(s), s.files.note.as_ref().map(|n| n.text.clone())))
            .ok_or_else(|| destroyed("seek"))?;
        if at != k {
            return Err(JsError::new(&format!("seek: stopped at step {at}: {}", note.unwrap_or_default())));
        }
        Ok(())
    }

    /// Removes the simulator from its element (the element stays, empty, and can take another).
    /// Calling it again does nothing.
    pub fn destroy(&mut self) {
        if let Some(app) = self.app.take() {
            app.destroy();
        }
        for part in self.parts.drain(..) {
            part.remove();
        }
        let _ = self.host.remove_attribute("data-flink-state-sim");
        self.embed.destroyed();
    }

    /// How many scenario steps have run.
    ///
    /// # Errors
    /// Once destroyed.
    #[wasm_bindgen(getter)]
    pub fn position(&self) -> Result<f64, JsError> {
        self.embed.with_state(|s| position_of(s) as f64).ok_or_else(|| destroyed("position"))
    }

    /// How many steps the scenario has.
    ///
    /// # Errors
    /// Once destroyed.
    #[wasm_bindgen(getter)]
    pub fn steps(&self) -> Result<f64, JsError> {
        self.embed
            .with_state(|s| s.sim.as_ref().map_or(0, |h| h.get().step_count()) as f64)
            .ok_or_else(|| destroyed("steps"))
    }

    /// Processing time, as the simulator shows it (`2019-11-20 15:00`, `11 ms`).
    ///
    /// # Errors
    /// Once destroyed.
    #[wasm_bindgen(getter)]
    pub fn now(&self) -> Result<String, JsError> {
        self.embed.with_state(AppState::now_text).ok_or_else(|| destroyed("now"))
    }
}

#[cfg(any(feature = "test-panic", debug_assertions))]
#[wasm_bindgen]
impl Simulator {
    /// Makes this simulator's reducer panic, in a task of its own (feature `test-panic` only: for
    /// tests/browser_crash.rs and a screenshot of the message; never in the page's build).
    #[doc(hidden)]
    #[wasm_bindgen(js_name = __testPanic)]
    pub fn __test_panic(&self) {
        let embed = self.embed.clone();
        gloo_timers::callback::Timeout::new(0, move || {
            embed.dispatch(Action::TestPanic);
        })
        .forget();
    }
}

fn position_of(state: &AppState) -> u64 {
    state.sim.as_ref().map_or(0, |h| h.get().next_step())
}

/// Mounts a simulator into `element`.
///
/// - `element`: a DOM element (a `<div>`); the simulator fills its width and grows with its
///   content, or scrolls inside it when the element's height is set (only once clicked).
/// - `scenario`: a preset's name (`presets()`) or a scenario's JSON text.
/// - `options` (optional): `{ step: 2, heading: false, panels: ["operators", "result"],
///   layout: "compact" }` — open after `step` steps; hide the scenario's title; show these panels
///   (`timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector`) in this order;
///   the `full` (default) or `compact` layout ([`super::embed::Layout`]); `t:
///   "2019-11-20T15:00..2019-11-21T06:00"`, the timeline's time range (a link's `t=`).
///
/// # Errors
/// Throws an `Error` naming the argument and the rule; nothing is mounted then.
#[wasm_bindgen]
pub fn mount(element: JsValue, scenario: JsValue, options: JsValue) -> Result<Simulator, JsError> {
    let prepared = prepare(&element, &scenario, &options);
    let (host, scenario, options) = prepared.map_err(|e| JsError::new(&format!("mount: {e}")))?;
    mount_on(host, scenario, options, "options.step").map_err(|e| JsError::new(&format!("mount: {e}")))
}

/// `mount`'s arguments read, or every bad one at once, one per line: the element's, the
/// options' and the scenario's, and a step past the scenario's end alongside the other options'
/// errors.
fn prepare(
    element: &JsValue,
    scenario: &JsValue,
    options: &JsValue,
) -> Result<(Element, ScenarioRef, EmbedOptions), String> {
    let mut errors = Vec::new();
    let host = element_of(element).map_err(|e| errors.push(e)).ok();
    let raw = json_of(options, "options").map_err(|e| errors.push(e)).ok();
    let parsed = raw.clone().and_then(|v| EmbedOptions::from_value(v, "options").map_err(|e| errors.push(e)).ok());
    let scenario = scenario_of(scenario, "scenario").map_err(|e| errors.push(e)).ok();
    if let (None, Some(raw), Some(scenario)) = (&parsed, &raw, &scenario) {
        let step = raw.get("step").and_then(serde_json::Value::as_u64);
        if let Some(Err(e)) = step.map(|step| check_step(scenario, step, "options.step")) {
            errors.push(e);
        }
    }
    match (host, parsed, scenario) {
        (Some(host), Some(options), Some(scenario)) if errors.is_empty() => Ok((host, scenario, options)),
        _ => Err(errors.join("\n")),
    }
}

/// The state to open, then the shadow root, then the app: every check comes before the element
/// is touched.
fn mount_on(host: Element, scenario: ScenarioRef, options: EmbedOptions, step_name: &str) -> Result<Simulator, String> {
    check_step(&scenario, options.step, step_name)?;
    let actions = if options.step == 0 { vec![] } else { vec![(EngineAction::Step, options.step)] };
    let state = AppState::open_with(&Position { scenario, actions }, "replaying the steps", false);
    if let Some(note) = state.files.note.as_ref().filter(|n| n.error) {
        return Err(format!("{step_name}: {}", note.text.trim_end_matches(": opened where it stopped")));
    }
    let root = shadow_root(&host)?;
    let document = host.owner_document().ok_or("element: it is not in a document")?;
    let style = document.create_element("style").map_err(|_| "element: cannot add a stylesheet".to_string())?;
    style.set_text_content(Some(STYLE));
    let container = document.create_element("div").map_err(|_| "element: cannot add the simulator".to_string())?;
    container.set_class_name("fss-host");
    root.append_child(&style)
        .and_then(|_| root.append_child(&container))
        .map_err(|_| "element: cannot add the simulator".to_string())?;
    let _ = host.set_attribute("data-flink-state-sim", "");
    let embed = Embed::new(state, options);
    // Before Yew's renderer, which would otherwise set its own panic hook over it.
    super::crash::install();
    let props = AppProps { persist: false, embed: Some(embed.clone()) };
    let app = yew::Renderer::<App>::with_root_and_props(container.clone(), props).render();
    Ok(Simulator { embed, app: Some(app), host, parts: vec![style, container] })
}

/// Whether `scenario` has `step` steps to open after.
fn check_step(scenario: &ScenarioRef, step: u64, step_name: &str) -> Result<(), String> {
    let json = match scenario {
        ScenarioRef::Preset(name) => preset_json(name).unwrap_or_default(),
        ScenarioRef::Json(json) => json.as_str(),
    };
    let count = Scenario::from_json(json).map(|s| s.step_count()).unwrap_or(0);
    match step > count {
        true => Err(past_last_step(step_name, step, count)),
        false => Ok(()),
    }
}

/// What a position `step` past a scenario of `count` steps is told, named `step_name` (`mount`'s
/// option, a link's `step`).
pub(super) fn past_last_step(step_name: &str, step: u64, count: u64) -> String {
    format!("{step_name}: {step} is past the scenario's last step ({count} steps)")
}

/// `element`'s open shadow root: a new one, or the empty one a destroyed simulator left.
fn shadow_root(host: &Element) -> Result<ShadowRoot, String> {
    match host.shadow_root() {
        Some(root) if root.first_child().is_none() => Ok(root),
        Some(_) => Err("element: it already holds a simulator (destroy() it first) or another shadow root".into()),
        None => host.attach_shadow(&ShadowRootInit::new(ShadowRootMode::Open)).map_err(|_| {
            format!(
                "element: a <{}> cannot hold a simulator (a shadow root); use a <div>",
                host.tag_name().to_lowercase()
            )
        }),
    }
}

fn element_of(value: &JsValue) -> Result<Element, String> {
    value.dyn_ref::<Element>().cloned().ok_or_else(|| {
        let hint =
            if value.is_null() || value.is_undefined() { " (did the element's lookup find nothing?)" } else { "" };
        format!("element: expected a DOM element, got {}{hint}", describe(value))
    })
}

/// `scenario`: a preset's name or a scenario's JSON text, checked.
fn scenario_of(value: &JsValue, what: &str) -> Result<ScenarioRef, String> {
    let Some(text) = value.as_string() else {
        let hint = if value.is_object() { " (JSON.stringify a scenario object first)" } else { "" };
        return Err(format!(
            "{what}: expected a preset's name or a scenario's JSON text, got {}{hint}",
            describe(value)
        ));
    };
    scenario_text(text, what)
}

fn scenario_text(text: String, what: &str) -> Result<ScenarioRef, String> {
    let name = text.trim();
    if name.starts_with('{') {
        // The scenario's own root is "scenario" too: said once (trial 23: "scenario: scenario: …").
        Scenario::from_json(&text).map_err(|e| match e.path.as_str() {
            "scenario" if what == "scenario" => format!("{what}: {}", e.message),
            _ => format!("{what}: {e}"),
        })?;
        return Ok(ScenarioRef::Json(text));
    }
    if preset_json(name).is_some() {
        return Ok(ScenarioRef::Preset(name.to_string()));
    }
    let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
    Err(format!(
        "{what}: no preset named {} (presets: {}); a scenario of your own is given as its JSON text",
        quote(name),
        names.join(", ")
    ))
}

/// `options` as JSON: `undefined` and `null` are the defaults.
fn json_of(value: &JsValue, what: &str) -> Result<serde_json::Value, String> {
    if value.is_undefined() || value.is_null() {
        return Ok(serde_json::Value::Null);
    }
    if !value.is_object() || value.is_function() || js_sys::Array::is_array(value) {
        return Err(format!("{what}: expected an object such as {{ step: 2 }}, got {}", describe(value)));
    }
    serde_wasm_bindgen::from_value(value.clone()).map_err(|e| format!("{what}: {e}"))
}

fn whole_number(value: &JsValue) -> Option<u64> {
    let n = value.as_f64()?;
    (n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0).then_some(n as u64)
}

/// A JavaScript value in a message: `null`, `undefined`, `the number 3`, `the string '…'`, ….
fn describe(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if value.is_undefined() {
        "undefined".into()
    } else if let Some(s) = value.as_string() {
        format!("the string {}", quote(&s))
    } else if let Some(n) = value.as_f64() {
        format!("the number {n}")
    } else if value.as_bool().is_some() {
        "a boolean".into()
    } else if value.is_function() {
        "a function".into()
    } else if js_sys::Array::is_array(value) {
        "an array".into()
    } else {
        "an object".into()
    }
}

// ---------------------------------------------------------------------------------------------
// <flink-state-sim>

#[wasm_bindgen(inline_js = r#"
export function define_custom_element(name, mountElement) {
  if (typeof customElements === 'undefined' || customElements.get(name)) return false;
  customElements.define(name, class extends HTMLElement {
    connectedCallback() {
      if (this.simulator) return;
      // Upgraded while the parser is still inside it: wait for its children (the scenario).
      if (document.readyState === 'loading') {
        document.addEventListener('DOMContentLoaded', () => { if (this.isConnected) this.connectedCallback(); }, { once: true });
        return;
      }
      this.simulator = mountElement(this);
    }
    disconnectedCallback() {
      if (this.simulator) { this.simulator.destroy(); this.simulator = undefined; }
    }
  });
  return true;
}
"#)]
extern "C" {
    fn define_custom_element(name: &str, mount_element: &JsValue) -> bool;
}

/// Defines the custom element `<flink-state-sim>` (or `name`): `scenario="PRESET"` or the
/// scenario's JSON in a `<script type="application/json">` child, `step="2"`,
/// `panels="operators result"`, `layout="compact"`, `heading="false"`. The element's `simulator` property is its
/// [`Simulator`]. Bad attributes show their errors in the element, all of them (and in the
/// console). Returns
/// false when the name is taken. The module's start defines `flink-state-sim` already.
#[wasm_bindgen(js_name = defineElement)]
pub fn define_element(name: Option<String>) -> bool {
    let closure = Closure::<dyn Fn(Element) -> JsValue>::new(|el: Element| match mount_element(&el) {
        Ok(sim) => JsValue::from(sim),
        Err(e) => {
            let tag = el.tag_name().to_lowercase();
            show_error(&el, &e.lines().map(|line| format!("<{tag}>: {line}")).collect::<Vec<_>>().join("\n"));
            JsValue::UNDEFINED
        }
    });
    define_custom_element(name.as_deref().unwrap_or(ELEMENT_NAME), &closure.into_js_value())
}

/// The element's own attributes: everything else is HTML's.
const ATTRIBUTES: &str = "scenario, step, panels, layout, heading, t";
const GLOBAL_ATTRIBUTES: &[&str] =
    &["id", "class", "style", "title", "hidden", "lang", "dir", "tabindex", "slot", "part"];

/// Mounts the element's simulator, or every error of its attributes and scenario, one per line.
fn mount_element(el: &Element) -> Result<Simulator, String> {
    if let Some(old) = el.query_selector(":scope > .flink-state-sim-error").ok().flatten() {
        old.remove();
    }
    let mut options = serde_json::Map::new();
    let mut scenario = None;
    let mut errors = Vec::new();
    let mut asked_step = None;
    for name in el.get_attribute_names().iter().filter_map(|n| n.as_string()) {
        let value = el.get_attribute(&name).unwrap_or_default();
        match name.as_str() {
            "scenario" => scenario = Some(value),
            "step" => match value.trim().parse::<u64>() {
                Ok(n) => {
                    asked_step = Some(n);
                    options.insert("step".into(), n.into());
                }
                Err(_) => errors.push(format!("attribute step: {} is not a whole number of steps", quote(&value))),
            },
            "panels" => {
                let (names, empty) = super::embed::panel_names(&value);
                if let Some(e) = empty {
                    errors.push(format!("attribute panels: {e}"));
                }
                options.insert("panels".into(), serde_json::Value::Array(names));
            }
            "layout" => {
                options.insert("layout".into(), value.trim().into());
            }
            "t" => {
                options.insert("t".into(), value.trim().into());
            }
            "heading" => match super::embed::flag(&value) {
                Some(on) => {
                    options.insert("heading".into(), on.into());
                }
                None => errors.push(format!("attribute heading: {} is not true or false", quote(value.trim()))),
            },
            n if GLOBAL_ATTRIBUTES.contains(&n) || ["data-", "aria-", "on"].iter().any(|p| n.starts_with(p)) => {}
            n => errors.push(format!("attribute {n}: not an attribute of this element ({ATTRIBUTES})")),
        }
    }
    let options = EmbedOptions::from_value(serde_json::Value::Object(options), "attribute")
        .map_err(|e| errors.extend(e.lines().map(|l| l.replacen("attribute.", "attribute ", 1))))
        .ok();
    let inline =
        el.query_selector(":scope > script[type='application/json']").ok().flatten().and_then(|s| s.text_content());
    let text = match (scenario, inline) {
        (Some(_), Some(_)) => {
            errors.push(
                "scenario: given twice, as an attribute and as a <script type=\"application/json\"> child".into(),
            );
            None
        }
        (Some(s), None) | (None, Some(s)) => Some(s),
        (None, None) => {
            errors.push("scenario: missing: a preset's name in scenario=\"…\", or the scenario's JSON in a <script type=\"application/json\"> child".into());
            None
        }
    };
    // The scenario is read whatever else is wrong, so that its error is said with the others.
    let scenario = text.and_then(|t| scenario_text(t, "scenario").map_err(|e| errors.push(e)).ok());
    // A step past the scenario's end is said with the other errors too.
    if let (Some(s), Some(step), false) = (&scenario, asked_step, errors.is_empty()) {
        if let Err(e) = check_step(s, step, "attribute step") {
            errors.push(e);
        }
    }
    let (Some(options), Some(scenario), true) = (options, scenario, errors.is_empty()) else {
        return Err(errors.join("\n"));
    };
    mount_on(el.clone(), scenario, options, "attribute step")
}

/// An error in the element itself (it has no simulator) and in the console, one per line.
fn show_error(el: &Element, text: &str) {
    web_sys::console::error_1(&JsValue::from_str(text));
    let Some(document) = el.owner_document() else { return };
    if let Ok(p) = document.create_element("p") {
        p.set_class_name("flink-state-sim-error");
        let _ = p.set_attribute("role", "alert");
        let _ = p.set_attribute("style", "white-space: pre-line");
        p.set_text_content(Some(text));
        let _ = el.append_child(&p);
    }
}
