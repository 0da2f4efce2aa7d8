//! Compare: the same input under two configurations side by side — a pair of presets written for
//! it (with vs without retention, global vs per-operator TTL, legacy planner vs 2.3, min = max vs a
//! wide gap), or the scenario on screen against itself on another Flink version or edited by hand.
//! One shared scrubber moves both runs to the same step (exactly: forward by stepping, back by
//! the engine's checkpoint + replay); result rows found on one side only are highlighted.

use crate::engine::metrics::{OperatorSample, Sample};
use crate::engine::presets::{preset_json, COMPARE_PAIRS};
use crate::engine::scenario::{describe_retentions, with_flink};
use crate::engine::{FlinkMode, Scenario, SimOptions, Simulation, TraceLevel};
use std::cell::RefCell;
use std::collections::HashMap;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// How many result rows each side lists.
const MAX_ROWS: usize = 100;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The scenario on screen (the left side unless a pair is chosen).
    pub json: String,
}

/// The two runs, both at `position` steps.
struct Pair {
    sims: [Simulation; 2],
    position: u64,
}

impl Pair {
    fn new(left: &str, right: &str) -> Result<Pair, String> {
        let sim = |side: &str, text: &str| {
            let scenario = Scenario::from_json(text).map_err(|e| format!("{side}: {e}"))?;
            let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: true };
            Ok::<_, String>(Simulation::with_options(scenario, options))
        };
        Ok(Pair { sims: [sim("left", left)?, sim("right", right)?], position: 0 })
    }

    /// The steps of the longer run.
    fn steps(&self) -> u64 {
        self.sims.iter().map(Simulation::step_count).max().unwrap_or(0)
    }

    /// Moves both runs toward step `to` (a run with fewer steps stops at its last) until the
    /// wall clock passes `until` (ms): back by checkpoint + replay, forward by stepping, in parts
    /// of [`PART`] actions (`Simulation::go_toward`). True once both are there; the position
    /// shown is `to` from then on.
    fn go_toward(&mut self, to: u64, until: f64) -> Result<bool, String> {
        for sim in &mut self.sims {
            // Only Step actions were taken, so action i is step i.
            let target = usize::try_from(to.min(sim.step_count())).unwrap_or(usize::MAX);
            while sim.action_count() != target && (target < sim.action_count() || sim.can_step()) {
                if wall_ms() > until {
                    return Ok(false);
                }
                sim.go_toward(target, PART).map_err(|e| e.to_string())?;
            }
        }
        self.position = to;
        Ok(true)
    }
}

/// Actions between two looks at the clock while moving both runs.
const PART: usize = 128;

fn wall_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// One slice of the move under way (`moving`): both runs toward its step for
/// [`crate::ui::to_end::SLICE_MS`] of work; the move ends there, or at an error.
fn move_slice(pair: &RefCell<Option<Pair>>, moving: &RefCell<Option<u64>>, error: &UseStateHandle<Option<String>>) {
    let Some(to) = *moving.borrow() else { return };
    let until = wall_ms() + crate::ui::to_end::SLICE_MS;
    let outcome = pair.borrow_mut().as_mut().map(|p| p.go_toward(to, until));
    match outcome {
        Some(Ok(false)) => {}
        Some(Ok(true)) | None => *moving.borrow_mut() = None,
        Some(Err(e)) => {
            *moving.borrow_mut() = None;
            error.set(Some(e));
        }
    }
}

/// The result rows of `sim` as text (stale ones flagged), each with whether the other side has
/// the same row as many times (a multiset comparison; stale flags are not compared).
fn rows_with_difference(sim: &Simulation, other: &Simulation) -> Vec<(String, bool, bool)> {
    let mut others: HashMap<String, usize> = HashMap::new();
    for r in other.result().rows() {
        *others.entry(r.row.join(", ")).or_default() += 1;
    }
    sim.result()
        .rows()
        .map(|r| {
            let text = r.row.join(", ");
            let shared = others.get_mut(&text).is_some_and(|n| {
                let found = *n > 0;
                *n = n.saturating_sub(1);
                found
            });
            (text, !shared, r.stale_since_ms.is_some())
        })
        .collect()
}

/// Every metric the engine samples per operator, as (label, value).
const METRICS: &[(&str, crate::engine::chart::Measure)] = &[
    ("keys", |o| o.keys),
    ("keys visible", |o| o.keys_visible),
    ("entries stored", |o| o.entries_stored),
    ("… of them expired", |o| o.entries_expired),
    ("rows in state lists", |o| o.list_rows),
    ("timers now", |o| o.timers),
    ("timers registered", |o| o.timers_registered),
    ("timers deleted", |o| o.timers_deleted),
    ("timers fired", |o| o.timers_fired),
    ("emitted +I", |o| o.emitted.insert),
    ("emitted -U", |o| o.emitted.update_before),
    ("emitted +U", |o| o.emitted.update_after),
    ("emitted -D", |o| o.emitted.delete),
    ("emitted (true,..)", |o| o.emitted.accumulate),
    ("emitted (false,..)", |o| o.emitted.retract),
];

/// Whether a metric row is shown: always but for a message kind neither side's Flink emits and
/// the rows in state lists when neither side keeps any (only `SinkUpsertMaterializer` does).
fn shown(label: &str, get: fn(&OperatorSample) -> u64, samples: [&Sample; 2]) -> bool {
    let sometimes = label.starts_with("emitted") || label == "rows in state lists";
    !sometimes || samples.iter().any(|s| s.operators.iter().any(|o| get(o) != 0))
}

/// The metrics table of one side: a column per operator, a row per metric, each cell marked
/// where the other side's operator of the same id differs (or has no such operator).
fn metrics_table(sim: &Simulation, other: &Simulation, samples: [&Sample; 2]) -> Html {
    let ids: Vec<&str> = sim.scenario().operators.iter().map(|n| n.id.as_str()).collect();
    let other_ids: Vec<&str> = other.scenario().operators.iter().map(|n| n.id.as_str()).collect();
    let twin = |i: usize| other_ids.iter().position(|id| *id == ids[i]).and_then(|j| samples[1].operators.get(j));
    let cell = |v: u64, o: Option<u64>| {
        let differs = o != Some(v);
        html! { <td class={classes!(differs.then_some("differs"))}>{ v }{ if differs { " ≠" } else { "" } }</td> }
    };
    html! {
        <table class="state cmp-ops">
            <thead><tr><th>{ "metric" }</th>{ for ids.iter().map(|id| html! { <th>{ *id }</th> }) }</tr></thead>
            <tbody>
                { for METRICS.iter().filter(|(l, get)| shown(l, *get, samples)).map(|(label, get)| html! {
                    <tr><th scope="row">{ *label }</th>
                        { for samples[0].operators.iter().enumerate().map(|(i, o)| cell(get(o), twin(i).map(get))) }
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

fn side(sim: &Simulation, other: &Simulation, id: &str) -> Html {
    let sc = sim.scenario();
    let tf = sim.time_format();
    let rows = rows_with_difference(sim, other);
    let differing = rows.iter().filter(|r| r.1).count();
    let sample = sim.sample_now();
    let other_sample = other.sample_now();
    let mark = |v: u64, o: u64| if v == o { String::new() } else { " ≠".to_string() };
    html! {
        <div class="cmp-side" id={id.to_string()}>
            <h3>{ if sc.title.is_empty() { sc.name.clone() } else { sc.title.clone() } }</h3>
            <p class="hint">{ format!("{} — {}", sc.flink.label(), describe_retentions(sc)) }</p>
            <p class="cmp-time">{ format!("step {} / {} · {}", sim.next_step(), sim.step_count(), tf.format(sim.now())) }</p>
            <p class="cmp-inputs">{ format!("inputs processed: {}{}", sample.inputs, mark(sample.inputs, other_sample.inputs)) }</p>
            { metrics_table(sim, other, [&sample, &other_sample]) }
            <p class="cmp-summary">{ format!(
                "result: {} rows{}, {} stale{}; {} not on the other side",
                rows.len(), mark(sample.result_rows, other_sample.result_rows),
                sim.result().stale_len(), mark(sample.stale_rows, other_sample.stale_rows), differing
            ) }</p>
            <table class="state cmp-result">
                <thead><tr><th>{ sim.result().columns.join(", ") }</th></tr></thead>
                <tbody>
                    { for rows.iter().take(MAX_ROWS).map(|(text, differs, stale)| {
                        let class = classes!(differs.then_some("differs"), stale.then_some("stale"));
                        let mark = match (differs, stale) {
                            (true, true) => " ≠ only here · ⚠ stale",
                            (true, false) => " ≠ only here",
                            (false, true) => " ⚠ stale",
                            _ => "",
                        };
                        html! { <tr class={class}><td>{ text }<span class="cmp-mark">{ mark }</span></td></tr> }
                    }) }
                </tbody>
            </table>
            if rows.len() > MAX_ROWS { <p class="hint">{ format!("… {} more rows", rows.len() - MAX_ROWS) }</p> }
        </div>
    }
}

#[component]
pub fn ComparePanel(props: &Props) -> Html {
    let pair = use_mut_ref(|| None::<Pair>);
    // The step a move of the shared scrubber is going to, while it goes in slices.
    let moving = use_mut_ref(|| None::<u64>);
    let error = use_state(|| None::<String>);
    // Bumped when the pair changes, so the panel re-renders.
    let version = use_state(|| 0u64);
    let right_ref = use_node_ref();
    // The scenario on screen the pair was made from (`None`: a preset pair): when the page shows
    // another scenario, that pair is dropped, so the panel never shows another scenario's runs.
    let origin = use_mut_ref(|| None::<String>);
    // What the two choosers show: the pair or the Flink version the runs on screen come from
    // (`""`: their placeholder), so they never name another comparison than the one shown.
    let chosen = use_mut_ref(|| (String::new(), String::new()));
    let (pair_ref, flink_ref) = (use_node_ref(), use_node_ref());
    // Drops the pair on screen (a refused right side must not leave the previous runs showing).
    let clear = {
        let (pair, origin, version, chosen, moving) =
            (pair.clone(), origin.clone(), version.clone(), chosen.clone(), moving.clone());
        Callback::from(move |()| {
            *pair.borrow_mut() = None;
            *moving.borrow_mut() = None;
            *origin.borrow_mut() = None;
            *chosen.borrow_mut() = (String::new(), String::new());
            version.set(*version + 1);
        })
    };
    {
        // The choosers follow `chosen` after each render (a `<select>` the user has changed no
        // longer follows its options' `selected`).
        let (chosen, pair_ref, flink_ref) = (chosen.clone(), pair_ref.clone(), flink_ref.clone());
        use_effect(move || {
            let (p, f) = chosen.borrow().clone();
            for (r, v) in [(&pair_ref, p), (&flink_ref, f)] {
                if let Some(select) = r.cast::<web_sys::HtmlSelectElement>() {
                    if select.value() != v {
                        select.set_value(&v);
                    }
                }
            }
        });
    }
    {
        let (origin, clear, error, json) = (origin.clone(), clear.clone(), error.clone(), props.json.clone());
        use_effect_with(json, move |json| {
            let stale = origin.borrow().as_ref().is_some_and(|o| o != json);
            if stale {
                clear.emit(());
                error.set(None);
            }
        });
    }
    let load = {
        let (pair, error, version, origin, clear, moving) =
            (pair.clone(), error.clone(), version.clone(), origin.clone(), clear.clone(), moving.clone());
        Callback::from(move |(left, right, from): (String, String, Option<String>)| match Pair::new(&left, &right) {
            Ok(p) => {
                *pair.borrow_mut() = Some(p);
                *moving.borrow_mut() = None;
                *origin.borrow_mut() = from;
                error.set(None);
                version.set(*version + 1);
            }
            Err(e) => {
                clear.emit(());
                error.set(Some(e));
            }
        })
    };
    let on_pair = {
        let (load, chosen) = (load.clone(), chosen.clone());
        Callback::from(move |e: Event| {
            let value = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|s| s.value());
            if let Some((label, l, r)) = value.and_then(|v| COMPARE_PAIRS.iter().find(|(label, _, _)| *label == v)) {
                if let (Some(l), Some(r)) = (preset_json(l), preset_json(r)) {
                    load.emit((l.to_string(), r.to_string(), None));
                    *chosen.borrow_mut() = (label.to_string(), String::new());
                }
            }
        })
    };
    // The engine's conversion for a Flink version that refuses the scenario's settings, offered
    // (never applied unasked), as the page's own Flink chooser does.
    let conversion = use_state(|| None::<crate::engine::scenario::RetentionConversion>);
    let on_flink = {
        let (load, error, json, conversion, clear, chosen) =
            (load.clone(), error.clone(), props.json.clone(), conversion.clone(), clear.clone(), chosen.clone());
        Callback::from(move |e: Event| {
            let id = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|s| s.value());
            let Some(mode) = id.as_deref().and_then(FlinkMode::parse) else { return };
            match with_flink(&json, mode).and_then(|right| Scenario::from_json(&right).map(|_| right)) {
                Ok(right) => {
                    conversion.set(None);
                    load.emit((json.clone(), right, Some(json.clone())));
                    *chosen.borrow_mut() = (String::new(), mode.id().to_string());
                }
                Err(e) => {
                    clear.emit(());
                    // The refusal is about the version chosen: the chooser keeps naming it.
                    *chosen.borrow_mut() = (String::new(), mode.id().to_string());
                    let offered =
                        crate::engine::scenario::idle_state_retention_as_state_ttl(&json, mode).ok().flatten();
                    conversion.set(offered.filter(|c| Scenario::from_json(&c.text).is_ok()));
                    error.set(Some(format!("right: {e}")));
                }
            }
        })
    };
    let on_convert = {
        let (load, json, conversion) = (load.clone(), props.json.clone(), conversion.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(c) = (*conversion).clone() {
                conversion.set(None);
                // The version chooser already names the version converted to.
                load.emit((json.clone(), c.text, Some(json.clone())));
            }
        })
    };
    let on_edited = {
        let (load, json, right_ref, chosen) = (load.clone(), props.json.clone(), right_ref.clone(), chosen.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(t) = right_ref.cast::<web_sys::HtmlTextAreaElement>() {
                load.emit((json.clone(), t.value(), Some(json.clone())));
                // An edited copy: neither a pair nor a version.
                *chosen.borrow_mut() = (String::new(), String::new());
            }
        })
    };
    // A move of the shared scrubber goes in slices (trial 23: to the end of the timer-churn pair
    // was one task of 665 ms): its first at once, the next one task each after a render; a newer
    // move takes its place.
    let go = {
        let (pair, error, version, moving) = (pair.clone(), error.clone(), version.clone(), moving.clone());
        Callback::from(move |to: u64| {
            *moving.borrow_mut() = Some(to);
            error.set(None);
            move_slice(&pair, &moving, &error);
            version.set(*version + 1);
        })
    };
    {
        let (pair, error, version, moving) = (pair.clone(), error.clone(), version.clone(), moving.clone());
        let under_way = moving.borrow().is_some();
        use_effect_with((*version, under_way), move |&(at, under_way)| {
            let next = under_way.then(|| {
                let busy = crate::ui::settled::pending();
                gloo_timers::callback::Timeout::new(0, move || {
                    let _busy = busy;
                    move_slice(&pair, &moving, &error);
                    version.set(at + 1);
                })
            });
            move || drop(next)
        });
    }
    let current = pair.borrow();
    let going = *moving.borrow();
    let (position, steps) = current.as_ref().map_or((0, 0), |p| (p.position, p.steps()));
    let on_scrub = {
        let go = go.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).map(|i| i.value());
            if let Some(to) = v.and_then(|v| v.parse::<u64>().ok()) {
                go.emit(to);
            }
        })
    };
    let (back, forward) = (go.clone(), go);
    html! {
        <details class="compare" id="compare">
            <summary>{ "Compare — the same input under two configurations, side by side" }</summary>
            <div class="cmp-choose">
                <label>{ "A pair: " }
                    <select id="cmp-pair" ref={pair_ref} onchange={on_pair} aria-label="pair of scenarios to compare">
                        <option value="" selected=true>{ "choose…" }</option>
                        { for COMPARE_PAIRS.iter().map(|(label, _, _)| html! { <option value={*label}>{ *label }</option> }) }
                    </select>
                </label>
                <label>{ " or the scenario on screen vs itself on " }
                    <select id="cmp-flink" ref={flink_ref} onchange={on_flink} aria-label="Flink version of the right side">
                        <option value="" selected=true>{ "Flink…" }</option>
                        { for FlinkMode::ALL.iter().map(|m| html! { <option value={m.id()}>{ m.label() }</option> }) }
                    </select>
                </label>
                <details class="cmp-edit">
                    <summary>{ "or vs an edited copy" }</summary>
                    <textarea ref={right_ref} id="cmp-right-json" rows="10" value={props.json.clone()}
                        aria-label="scenario JSON of the right side" />
                    <button id="cmp-apply" onclick={on_edited}>{ "Compare with this" }</button>
                </details>
            </div>
            if let Some(e) = &*error { <div class="error" id="cmp-error" role="alert">{ e }</div> }
            if let (Some(c), Some(_)) = (&*conversion, &*error) {
                <p class="conversion">
                    <button id="cmp-convert" onclick={on_convert}>{ "Compare with the converted settings" }</button>
                    <span>{ &c.summary }</span>
                </p>
            }
            if let Some(p) = current.as_ref() {
                <div class="cmp-scrub">
                    <button id="cmp-back" disabled={position == 0}
                        onclick={Callback::from(move |_: MouseEvent| back.emit(position.saturating_sub(1)))}>{ "◀ step back" }</button>
                    <input type="range" id="cmp-scrubber" min="0" max={steps.to_string()} value={position.to_string()}
                        oninput={on_scrub} aria-label="step of both runs" />
                    <button id="cmp-step" disabled={position >= steps}
                        onclick={Callback::from(move |_: MouseEvent| forward.emit(position + 1))}>{ "step ▶" }</button>
                    <span id="cmp-position">{ match going {
                        Some(to) => format!("going to step {to} / {steps}…"),
                        None => format!("step {position} / {steps}"),
                    } }</span>
                </div>
                <div class="cmp-sides">
                    { side(&p.sims[0], &p.sims[1], "cmp-left") }
                    { side(&p.sims[1], &p.sims[0], "cmp-right") }
                </div>
            }
        </details>
    }
}
