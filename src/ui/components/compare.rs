//! Compare: the same input under two configurations side by side — a pair of presets written for
//! it (with vs without retention, global vs per-operator TTL, legacy planner vs 2.3, min = max vs a
//! wide gap), or the scenario on screen against itself on another Flink version or edited by hand.
//! One shared scrubber moves both runs to the same step (exactly: forward by stepping, back by
//! the engine's checkpoint + replay); result rows found on one side only are highlighted.

mod pair;
mod sides;

use crate::engine::presets::{preset_json, COMPARE_PAIRS};
use crate::engine::result_table::Lacked;
use crate::engine::scenario::with_flink;
use crate::engine::{FlinkMode, Scenario};
use crate::ui::clock::wall_ms;
use crate::ui::settled::Pending;
use pair::{Move, Pair};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The scenario on screen (the left side unless a pair is chosen).
    pub json: String,
}

/// A move of the shared scrubber under way, and the page's pending work while it lasts: the
/// page is settled only when both runs are there and the sides show them.
struct Moving {
    m: Move,
    _busy: Pending,
}

/// The rows of each side's result the other lacks, counted in slices after the sides are drawn
/// at a position (`of`: the panel's `version` then): the count of the Top-N pair's 334 676 rows
/// a side is a long task at once.
struct Count {
    of: u64,
    /// The slot each side's count goes on from, `None` once it is done.
    next: [Option<usize>; 2],
    lacked: [Lacked; 2],
    /// The page's pending work until the count is done.
    busy: Option<Pending>,
}

impl Count {
    fn new(of: u64) -> Count {
        Count { of, next: [Some(0); 2], lacked: Default::default(), busy: Some(crate::ui::settled::pending()) }
    }

    /// Both sides' rows the other lacks, once counted.
    fn done(&self) -> Option<&[Lacked; 2]> {
        (self.next == [None; 2]).then_some(&self.lacked)
    }

    /// Counts on for [`crate::ui::to_end::SLICE_MS`] of work, in parts of [`COUNT_PART`] slots.
    fn slice(&mut self, pair: &Pair) {
        let until = wall_ms() + crate::ui::to_end::SLICE_MS;
        for (i, (a, b)) in [(0, 1), (1, 0)].into_iter().enumerate() {
            while let Some(from) = self.next[i] {
                if wall_ms() > until {
                    return;
                }
                let (mine, theirs) = (pair.sims[a].result(), pair.sims[b].result());
                self.next[i] = mine.count_lacked_by(theirs, from, COUNT_PART, &mut self.lacked[i], sides::MAX_ROWS);
            }
        }
        self.busy = None;
    }
}

/// Result slots counted between two looks at the clock.
const COUNT_PART: usize = 4096;

/// One slice of the move under way (`moving`): both runs toward its step for
/// [`crate::ui::to_end::SLICE_MS`] of work; the move ends there, or at an error.
///
/// Once the move is over, what the runs' moves left to free goes a part per task, as the page
/// frees its own run's (a Top-N state freed within the next move was a 165–196 ms task: trial
/// 25); a new move stops it (its end starts it again).
fn move_slice(
    pair: &Rc<RefCell<Option<Pair>>>,
    moving: &Rc<RefCell<Option<Moving>>>,
    error: &UseStateHandle<Option<String>>,
) {
    let mut going = moving.borrow_mut();
    let Some(mv) = going.as_mut() else { return };
    let until = wall_ms() + crate::ui::to_end::SLICE_MS;
    let outcome = pair.borrow_mut().as_mut().map(|p| p.go_toward(&mut mv.m, until, wall_ms));
    match outcome {
        Some(Ok(false)) => return,
        Some(Ok(true)) | None => *going = None,
        Some(Err(e)) => {
            *going = None;
            error.set(Some(e));
        }
    }
    let (pair, moving) = (pair.clone(), moving.clone());
    crate::ui::to_end::in_tasks(move || {
        moving.borrow().is_none() && pair.borrow_mut().as_mut().is_some_and(Pair::release_retired)
    });
}

#[component]
pub fn ComparePanel(props: &Props) -> Html {
    let pair = use_mut_ref(|| None::<Pair>);
    // The step a move of the shared scrubber is going to, while it goes in slices.
    let moving = use_mut_ref(|| None::<Moving>);
    // The sides as last drawn, and the `version` they show: a move leaves them as they were
    // (greyed) until both runs are there, so they never show two different steps, and the
    // panel's render in each slice of a move costs nothing of the runs' size (trial 24: 334 676
    // result rows a side on the Top-N pair made each slice's render a long task, 93 s in all).
    let drawn = use_mut_ref(|| None::<(u64, Option<[usize; 2]>, Html)>);
    let count = use_mut_ref(|| None::<Count>);
    // Bumped by each slice of the count, so the panel re-renders.
    let counted = use_state(|| 0u64);
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
        let (pair, origin, version, chosen, moving, count) =
            (pair.clone(), origin.clone(), version.clone(), chosen.clone(), moving.clone(), count.clone());
        Callback::from(move |()| {
            *pair.borrow_mut() = None;
            *moving.borrow_mut() = None;
            *count.borrow_mut() = None;
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
    // The engine's conversion for a Flink version that refuses the scenario's settings, offered
    // (never applied unasked), as the page's own Flink chooser does.
    let conversion = use_state(|| None::<crate::engine::scenario::RetentionConversion>);
    {
        // A pair, or a refusal and its conversion, of another scenario than the one on screen
        // is dropped (trial 25: seed 001's refusal and its conversion stayed under another
        // preset, and the conversion compared that preset with seed 001).
        let (origin, clear, error, json, conversion) =
            (origin.clone(), clear.clone(), error.clone(), props.json.clone(), conversion.clone());
        use_effect_with(json, move |json| {
            let stale = origin.borrow().as_ref().is_some_and(|o| o != json);
            if stale {
                clear.emit(());
                error.set(None);
                conversion.set(None);
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
    let on_flink = {
        let (load, error, json, conversion, clear, chosen, origin) = (
            load.clone(),
            error.clone(),
            props.json.clone(),
            conversion.clone(),
            clear.clone(),
            chosen.clone(),
            origin.clone(),
        );
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
                    // The refusal is about the scenario on screen and the version chosen: the
                    // chooser keeps naming it, and another scenario drops it.
                    *origin.borrow_mut() = Some(json.clone());
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
    // move takes its place. The page is not settled until it ends.
    let go = {
        let (pair, error, version, moving, count) =
            (pair.clone(), error.clone(), version.clone(), moving.clone(), count.clone());
        Callback::from(move |to: u64| {
            let Some(m) = pair.borrow_mut().as_mut().map(|p| p.start(to)) else { return };
            *moving.borrow_mut() = Some(Moving { m, _busy: crate::ui::settled::pending() });
            *count.borrow_mut() = None;
            error.set(None);
            move_slice(&pair, &moving, &error);
            version.set(*version + 1);
        })
    };
    // Cancel: both runs stop where the move got to (the one behind catches up a part at most).
    let cancel = {
        let (pair, error, version, moving) = (pair.clone(), error.clone(), version.clone(), moving.clone());
        Callback::from(move |_: MouseEvent| {
            if let (Some(p), Some(mv)) = (pair.borrow().as_ref(), moving.borrow_mut().as_mut()) {
                p.stop_where_it_got(&mut mv.m);
            }
            move_slice(&pair, &moving, &error);
            version.set(*version + 1);
        })
    };
    {
        let (pair, error, version, moving) = (pair.clone(), error.clone(), version.clone(), moving.clone());
        let under_way = moving.borrow().is_some();
        use_effect_with((*version, under_way), move |&(at, under_way)| {
            let next = under_way.then(|| {
                gloo_timers::callback::Timeout::new(0, move || {
                    move_slice(&pair, &moving, &error);
                    version.set(at + 1);
                })
            });
            move || drop(next)
        });
    }
    let current = pair.borrow();
    let going = moving.borrow().as_ref().map(|mv| mv.m.to);
    let (position, steps) = current.as_ref().map_or((0, 0), |p| (p.position, p.steps()));
    // Where the scrubber's handle and the step buttons stand: the step a move goes to.
    let at = going.unwrap_or(position);
    let progress = current.as_ref().zip(moving.borrow().as_ref()).map(|(p, mv)| p.progress(&mv.m));
    let sides = current.as_ref().map(|p| {
        let mut drawn = drawn.borrow_mut();
        if let (Some((_, _, html)), Some(_)) = (drawn.as_ref(), going) {
            return html.clone();
        }
        let mut count = count.borrow_mut();
        if count.as_ref().is_none_or(|c| c.of != *version) {
            *count = Some(Count::new(*version));
        }
        let lacked = count.as_ref().and_then(Count::done);
        let counts = lacked.map(|l| [l[0].count, l[1].count]);
        match drawn.as_ref() {
            Some((v, c, html)) if (*v, *c) == (*version, counts) => html.clone(),
            _ => {
                let html = html! { <>
                    { sides::side(&p.sims[0], &p.sims[1], "cmp-left", lacked.map(|l| [&l[0], &l[1]])) }
                    { sides::side(&p.sims[1], &p.sims[0], "cmp-right", lacked.map(|l| [&l[1], &l[0]])) }
                </> };
                *drawn = Some((*version, counts, html.clone()));
                html
            }
        }
    });
    {
        // The count goes on one slice per task until done (a move drops it).
        let (pair, count, counted) = (pair.clone(), count.clone(), counted.clone());
        let running = count.borrow().as_ref().is_some_and(|c| c.done().is_none()) && going.is_none();
        use_effect_with((*counted, *version, running), move |&(tick, _, running)| {
            let next = running.then(|| {
                gloo_timers::callback::Timeout::new(0, move || {
                    if let (Some(p), Some(c)) = (pair.borrow().as_ref(), count.borrow_mut().as_mut()) {
                        c.slice(p);
                    }
                    counted.set(tick + 1);
                })
            });
            move || drop(next)
        });
    }
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
            if let Some(sides) = sides {
                <div class="cmp-scrub">
                    <button id="cmp-back" disabled={at == 0}
                        onclick={Callback::from(move |_: MouseEvent| back.emit(at.saturating_sub(1)))}>{ "◀ step back" }</button>
                    <input type="range" id="cmp-scrubber" min="0" max={steps.to_string()} value={at.to_string()}
                        oninput={on_scrub} aria-label="step of both runs" />
                    <button id="cmp-step" disabled={at >= steps}
                        onclick={Callback::from(move |_: MouseEvent| forward.emit(at + 1))}>{ "step ▶" }</button>
                    <span id="cmp-position">{ match going {
                        Some(to) => format!("going to step {to} / {steps}…"),
                        None => format!("step {position} / {steps}"),
                    } }</span>
                </div>
                if let Some((done, total)) = progress {
                    <p class="cmp-going" id="cmp-going" role="status">
                        <button id="cmp-cancel" onclick={cancel}>{ "Cancel" }</button>
                        <progress id="cmp-progress" max={total.max(1).to_string()} value={done.min(total).to_string()}
                            aria-label={format!("both runs going from step {position} to step {at}")} />
                        <span class="hint">{ format!(
                            "both runs are replaying: the sides below show step {position} until both are at step {at}"
                        ) }</span>
                    </p>
                }
                <div class={classes!("cmp-sides", going.is_some().then_some("catching-up"))}>{ sides }</div>
            }
        </details>
    }
}
