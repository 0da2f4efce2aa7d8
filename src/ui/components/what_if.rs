//! The what-if panel: a workload form over the pipeline on screen ([`WhatIf`]), run by the engine
//! at `metrics` trace level in slices of about [`SLICE_MS`] ms of work between browser frames (the
//! page stays responsive; a progress bar shows how far it is), then the run's summary
//! ([`run_summary`]) and, on request, the what-if scenario loaded into the stepper.

use crate::engine::scenario::what_if::{what_if_scenario, WhatIf};
use crate::engine::summary::run_summary;
use crate::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use crate::ui::clock::wall_ms;
use crate::ui::components::charts::ChartsPanel;
use gloo_timers::future::TimeoutFuture;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Wall-clock ms of engine work between two frames, so the page keeps drawing while it runs.
pub const SLICE_MS: f64 = 12.0;
/// Steps between two looks at the clock inside a slice.
const CLOCK_EVERY: u64 = 500;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The scenario on screen, whose pipeline and settings the what-if run keeps.
    pub json: String,
    /// Loads a scenario text into the stepper.
    pub on_open: Callback<String>,
}

/// Where the run stands.
#[derive(Clone, PartialEq)]
enum Run {
    Idle,
    Running {
        done: u64,
        total: u64,
    },
    Done {
        lines: Vec<String>,
        json: String,
        /// The run's metrics series and what the charts need to draw it.
        charts: Rc<WhatIfCharts>,
    },
    /// The form's scenario was refused (`path` names the field) or the run failed.
    Failed {
        path: String,
        message: String,
    },
}

/// The what-if run's metrics, for its charts ([`ChartsPanel`]).
#[derive(Clone, PartialEq)]
struct WhatIfCharts {
    samples: Rc<Vec<crate::engine::metrics::Sample>>,
    ops: Vec<String>,
    time_format: crate::engine::time::TimeFormat,
    from_ms: crate::engine::time::Millis,
    to_ms: crate::engine::time::Millis,
}

impl WhatIfCharts {
    fn of(sim: &Simulation) -> Self {
        let scenario = sim.scenario();
        WhatIfCharts {
            samples: Rc::new(sim.metrics()),
            ops: scenario.operators.iter().map(|n| n.id.clone()).collect(),
            time_format: sim.time_format(),
            from_ms: scenario.start_ms,
            to_ms: sim.now().max(scenario.start_ms + 1),
        }
    }
}

fn input_value(e: &Event) -> String {
    e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).map(|i| i.value()).unwrap_or_default()
}

/// One labelled field of the form; its error (when the engine's message names it) beside it.
/// Checked as it is typed, so that an error goes away before the pointer reaches Run (checked on
/// leaving the field, the error line vanished under the pointer and the click missed Run).
fn field(
    label: &str,
    id: &str,
    value: String,
    error: Option<&str>,
    oninput: Callback<InputEvent>,
    onchange: Callback<Event>,
) -> Html {
    html! {
        <label class="wi-field" for={id.to_string()}>
            <span>{ label }</span>
            <input id={id.to_string()} value={value} oninput={oninput} onchange={onchange}
                aria-invalid={error.is_some().to_string()} />
            if let Some(e) = error { <span class="wi-error" role="alert">{ e }</span> }
        </label>
    }
}

/// The form's fields, each with the scenario path the engine's errors name.
const FIELDS: &[(&str, &str, &str)] = &[
    ("events", "workload.events", "wi-events"),
    ("events per second", "workload.rate", "wi-rate"),
    ("keys", "workload.keys", "wi-keys"),
    ("Zipf exponent (empty: uniform)", "workload.distribution", "wi-zipf"),
    ("share of new keys seen once", "workload.new_keys", "wi-new-keys"),
    ("share of keys returning once", "workload.returning.share", "wi-returning-share"),
    ("… returning after", "workload.returning.after", "wi-returning-after"),
    ("seed", "workload.seed", "wi-seed"),
    ("other columns (JSON generators)", "workload.columns", "wi-columns"),
];

fn get(form: &WhatIf, i: usize) -> String {
    match i {
        0 => form.events.to_string(),
        1 => form.rate.to_string(),
        2 => form.keys.to_string(),
        3 => form.zipf.map(|s| s.to_string()).unwrap_or_default(),
        4 => form.new_keys.to_string(),
        5 => form.returning_share.to_string(),
        6 => form.returning_after.clone(),
        7 => form.seed.to_string(),
        _ => form.columns.clone(),
    }
}

/// Sets field `i` from its text, or says why the text is not a value of the field's type.
fn set(form: &mut WhatIf, i: usize, text: &str) -> Result<(), String> {
    let t = text.trim();
    // `1000000`, `1_000_000`, `1 000 000` or `1e6`: a whole number however written, never rounded.
    let whole = |t: &str| {
        let digits = t.replace(['_', ' '], "");
        let scientific = || {
            let (mantissa, exponent) = digits.split_once(['e', 'E'])?;
            let v = mantissa.parse::<f64>().ok()? * 10f64.powi(exponent.parse::<i32>().ok()?);
            (v >= 0.0 && v.fract() == 0.0 && v <= 9_007_199_254_740_992.0).then_some(v as u64)
        };
        digits.parse::<u64>().ok().or_else(scientific).ok_or_else(|| format!("expected a whole number, found '{t}'"))
    };
    let share = |t: &str| t.parse::<f64>().map_err(|_| format!("expected a number from 0 to 1, found '{t}'"));
    match i {
        0 => form.events = whole(t)?,
        1 => form.rate = whole(t)?,
        2 => form.keys = whole(t)?,
        3 if t.is_empty() => form.zipf = None,
        3 => form.zipf = Some(t.parse().map_err(|_| format!("expected a number or nothing, found '{t}'"))?),
        4 => form.new_keys = share(t)?,
        5 => form.returning_share = share(t)?,
        6 => form.returning_after = t.to_string(),
        7 => form.seed = whole(t)?,
        _ => form.columns = t.to_string(),
    }
    Ok(())
}

#[component]
pub fn WhatIfPanel(props: &Props) -> Html {
    let form = use_state(|| WhatIf::for_scenario(&props.json).ok());
    let run = use_state(|| Run::Idle);
    // Bumped to cancel a run in progress (a new run, or a new scenario on screen).
    let generation = use_mut_ref(|| 0u64);
    // Per field, the text being typed, kept on show as typed (`1_000` is not rewritten to `1000`
    // under the cursor) until the field is left; with why it is not a value of the field, if it is
    // not — then Run refuses until it is fixed, so it never runs the value from before.
    let drafts = use_mut_ref(|| vec![None::<(String, Option<String>)>; FIELDS.len()]);
    {
        let (form, run, generation, drafts) = (form.clone(), run.clone(), generation.clone(), drafts.clone());
        use_effect_with(props.json.clone(), move |json| {
            *generation.borrow_mut() += 1;
            form.set(WhatIf::for_scenario(json).ok());
            run.set(Run::Idle);
            drafts.borrow_mut().iter_mut().for_each(|d| *d = None);
        });
    }
    let redraw = use_force_update();
    let Some(current) = (*form).clone() else {
        return html! {};
    };
    let on_field = |i: usize| {
        let (form, run, current, drafts, redraw) =
            (form.clone(), run.clone(), current.clone(), drafts.clone(), redraw.clone());
        Callback::from(move |e: InputEvent| {
            let mut next = current.clone();
            let text = input_value(&e);
            match set(&mut next, i, &text) {
                Ok(()) => {
                    drafts.borrow_mut()[i] = Some((text, None));
                    form.set(Some(next));
                    run.set(Run::Idle);
                }
                Err(message) => {
                    drafts.borrow_mut()[i] = Some((text, Some(message)));
                    redraw.force_update();
                }
            }
        })
    };
    // Leaving a field with a valid value shows it as the form holds it (`2e3` → `2000`).
    let on_leave = |i: usize| {
        let (drafts, redraw) = (drafts.clone(), redraw.clone());
        Callback::from(move |_: Event| {
            let valid = matches!(&drafts.borrow()[i], Some((_, None)));
            if valid {
                drafts.borrow_mut()[i] = None;
                redraw.force_update();
            }
        })
    };
    let on_run = {
        let (run, generation, base, current) = (run.clone(), generation.clone(), props.json.clone(), current.clone());
        let drafts = drafts.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(i) = drafts.borrow().iter().position(|d| matches!(d, Some((_, Some(_))))) {
                let message = format!("not run: the field '{}' is not valid", FIELDS[i].0);
                return run.set(Run::Failed { path: "form".into(), message });
            }
            let text = match what_if_scenario(&base, &current) {
                Ok(text) => text,
                Err(e) => return run.set(Run::Failed { path: e.path.clone(), message: e.message.clone() }),
            };
            let Ok(scenario) = Scenario::from_json(&text) else { return };
            let total = scenario.step_count();
            let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
            let sim = Rc::new(RefCell::new(Simulation::with_options(scenario, options)));
            let mine = {
                let mut g = generation.borrow_mut();
                *g += 1;
                *g
            };
            let (run, generation) = (run.clone(), generation.clone());
            run.set(Run::Running { done: 0, total });
            yew::platform::spawn_local(async move {
                let started = wall_ms();
                loop {
                    TimeoutFuture::new(0).await;
                    if *generation.borrow() != mine {
                        return;
                    }
                    let mut s = sim.borrow_mut();
                    let slice_start = wall_ms();
                    'slice: while wall_ms() - slice_start < SLICE_MS {
                        for _ in 0..CLOCK_EVERY {
                            if !s.can_step() {
                                break 'slice;
                            }
                            if let Err(e) = s.step() {
                                return run.set(Run::Failed { path: "run".into(), message: e.to_string() });
                            }
                        }
                    }
                    if !s.can_step() {
                        let secs = (wall_ms() - started) / 1000.0;
                        let charts = Rc::new(WhatIfCharts::of(&s));
                        return run.set(Run::Done { lines: run_summary(&s, secs), json: text, charts });
                    }
                    run.set(Run::Running { done: s.next_step(), total });
                }
            });
        })
    };
    let on_cancel = {
        let (run, generation) = (run.clone(), generation.clone());
        Callback::from(move |_: MouseEvent| {
            *generation.borrow_mut() += 1;
            run.set(Run::Idle);
        })
    };
    let error_of = |path: &str| match &*run {
        Run::Failed { path: p, message } if p == path || p.starts_with(&format!("{path}.")) => Some(message.clone()),
        _ => None,
    };
    let running = matches!(*run, Run::Running { .. });
    html! {
        <details class="what-if" id="what-if">
            <summary>{ "What if… — this pipeline on a generated workload of millions of events" }</summary>
            <div class="wi-form">
                { for FIELDS.iter().enumerate().map(|(i, (label, path, id))| {
                    match drafts.borrow()[i].clone() {
                        Some((text, Some(message))) => field(label, id, text, Some(&message), on_field(i), on_leave(i)),
                        Some((text, None)) => field(label, id, text, error_of(path).as_deref(), on_field(i), on_leave(i)),
                        None => field(label, id, get(&current, i), error_of(path).as_deref(), on_field(i), on_leave(i)),
                    }
                }) }
                <p class="hint">{ format!("key column: {} (the generator puts each event's key there)", current.key_column) }</p>
            </div>
            <div class="wi-actions">
                <button id="wi-run" onclick={on_run} disabled={running}>{ "Run what-if" }</button>
                if running { <button id="wi-cancel" onclick={on_cancel}>{ "Cancel" }</button> }
            </div>
            { match &*run {
                Run::Idle => html! {},
                Run::Running { done, total } => html! {
                    <div class="wi-progress">
                        <progress id="wi-progress" max={total.to_string()} value={done.to_string()}
                            aria-label="what-if run progress" />
                        <span>{ format!("{done} / {total} steps") }</span>
                    </div>
                },
                Run::Failed { path, message } if !FIELDS.iter().any(|f| path == f.1 || path.starts_with(&format!("{}.", f.1))) => html! {
                    <div class="error" id="wi-error" role="alert">{ format!("{path}: {message}") }</div>
                },
                Run::Failed { .. } => html! {},
                Run::Done { lines, json, charts } => {
                    let (on_open, json) = (props.on_open.clone(), json.clone());
                    html! {
                        <div class="wi-result" id="wi-result">
                            <pre>{ lines.join("\n") }</pre>
                            <ChartsPanel samples={charts.samples.clone()} ops={charts.ops.clone()}
                                time_format={charts.time_format} from_ms={charts.from_ms} to_ms={charts.to_ms}
                                cursor_ms={charts.to_ms} id="wi-charts" />
                            <button id="wi-open" onclick={Callback::from(move |_: MouseEvent| on_open.emit(json.clone()))}>
                                { "Open this workload in the stepper" }
                            </button>
                        </div>
                    }
                }
            } }
        </details>
    }
}
