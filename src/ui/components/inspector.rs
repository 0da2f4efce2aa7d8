//! The state inspector: per operator and key, what each keyed state holds (accumulators, a
//! Top-N's sorted map, a dedup flag, an OVER window's rows), the last access, the cleanup time
//! or TTL expiry, the timers, and whether the state is visible, expired but still stored, or
//! gone. A filter box and a cap keep an operator of thousands of keys light; nothing is computed
//! while the inspector is closed. The query is the engine's ([`crate::engine::inspector`]).

use crate::engine::inspector::{inspect, InspectedKey, KeyStatus};
use crate::engine::time::TimeFormat;
use crate::ui::drive_state::Inspect;
use crate::ui::state::SimHandle;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The most keys listed at once.
pub const MAX_KEYS: usize = 100;

#[derive(Properties, Clone)]
pub struct Props {
    pub sim: SimHandle,
    pub version: u64,
    /// A key clicked on the timeline: the inspector opens on it (its operator, its label as the
    /// search) and scrolls into view.
    #[prop_or_default]
    pub inspect: Option<Inspect>,
}

impl PartialEq for Props {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version && self.inspect == other.inspect
    }
}

#[component]
pub fn StateInspector(props: &Props) -> Html {
    let open = use_state(|| false);
    // The operator chosen, or `None`: the first that keeps keyed state (a SQL plan often starts
    // with a Calc, which keeps none).
    let op = use_state(|| None::<usize>);
    let filter = use_state(String::new);
    let details = use_node_ref();
    {
        let (open, op, filter, details) = (open.clone(), op.clone(), filter.clone(), details.clone());
        use_effect_with(props.inspect.clone(), move |inspect| {
            if let Some(i) = inspect {
                open.set(true);
                op.set(Some(i.op));
                filter.set(i.key.clone());
                if let Some(d) = details.cast::<web_sys::HtmlDetailsElement>() {
                    d.set_open(true);
                    d.scroll_into_view();
                }
            }
        });
    }
    let on_toggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            let d = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok());
            open.set(d.is_some_and(|d| d.open()));
        })
    };
    let on_op = {
        let op = op.clone();
        Callback::from(move |e: Event| {
            let v = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|s| s.value());
            op.set(Some(v.and_then(|v| v.parse().ok()).unwrap_or(0)));
        })
    };
    let on_filter = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).map(|i| i.value());
            filter.set(v.unwrap_or_default());
        })
    };
    let sim = props.sim.get();
    let ops: Vec<String> = sim.scenario().operators.iter().map(|n| n.id.clone()).collect();
    let first_with_state = || sim.operator_views_limited(0).iter().position(|v| !v.state_names.is_empty()).unwrap_or(0);
    let chosen = op.unwrap_or_else(first_with_state).min(ops.len().saturating_sub(1));
    let body = if *open {
        match inspect(&sim, chosen, &filter, MAX_KEYS) {
            Some(i) => {
                let tf = sim.time_format();
                let shown = i.keys.len();
                // A materializer's rows, all keys together (each key's are in its cell).
                let rows = if i.list_rows > 0 {
                    format!("; {} rows in their state lists", i.list_rows)
                } else {
                    String::new()
                };
                html! {
                    <>
                        <p class="hint" id="inspector-count">{ format!(
                            "{} {}: {shown} of {} matching keys shown ({} stored{rows}; gone keys from the kept trace)",
                            i.op_id, i.flink_class, i.matched, i.stored) }</p>
                        <div class="inspector-scroll">
                            <table class="state inspector-table" id="inspector-table">
                                <thead><tr>
                                    <th scope="col">{ "key" }</th>
                                    { for i.state_names.iter().map(|n| html! { <th scope="col">{ *n }</th> }) }
                                    <th scope="col">{ "last access" }</th>
                                    <th scope="col">{ "cleanup time / TTL expiry" }</th>
                                    <th scope="col">{ "timers" }</th>
                                    <th scope="col">{ "status" }</th>
                                </tr></thead>
                                <tbody>
                                    { for i.keys.iter().map(|k| key_row(k, &i.state_names, tf)) }
                                    if i.keys.is_empty() {
                                        <tr><td colspan={(i.state_names.len() + 5).to_string()} class="hint">{ "no key matches" }</td></tr>
                                    }
                                </tbody>
                            </table>
                        </div>
                    </>
                }
            }
            None => html! { <p class="hint">{ "no operator" }</p> },
        }
    } else {
        html! {}
    };
    html! {
        <details class="see-inspector" id="inspector" ontoggle={on_toggle} ref={details}>
            <summary>{ "State inspector — every key's state entries, last access, expiry, and visible / expired-but-stored / gone" }</summary>
            <div class="inspector-controls">
                <label for="inspector-op">{ "operator " }</label>
                <select id="inspector-op" onchange={on_op}>
                    { for ops.iter().enumerate().map(|(i, id)| html! {
                        <option value={i.to_string()} selected={i == chosen}>{ id }</option>
                    }) }
                </select>
                <label for="inspector-filter">{ " key or value contains " }</label>
                <input id="inspector-filter" type="search" value={(*filter).clone()} oninput={on_filter}
                    placeholder="a key or a value" aria-label="search the keys and their states' values" />
            </div>
            { body }
        </details>
    }
}

fn key_row(k: &InspectedKey, names: &[&'static str], tf: TimeFormat) -> Html {
    let (class, status) = match k.status {
        KeyStatus::Visible => ("i-visible", "visible".to_string()),
        KeyStatus::ExpiredStored { since_ms } => {
            ("i-expired", format!("expired at {} — still stored, invisible to reads", tf.format(since_ms)))
        }
        KeyStatus::Gone { at_ms, why } => ("i-gone", format!("gone since {}: {}", tf.format(at_ms), why.describe())),
    };
    let expiry = match (k.cleanup_time_ms, k.ttl_expires_ms) {
        (Some(c), _) => format!("C = {}", tf.format(c)),
        (None, Some(t)) => format!("TTL {}", tf.format(t)),
        (None, None) => "—".into(),
    };
    let timers: Vec<String> = k.timers_ms.iter().map(|t| tf.format(*t)).collect();
    // Several states with a TTL each (a join's sides, each with its own: the STATE_TTL hint):
    // each cell says its own, greyed once expired.
    let per_state = k.states.iter().flatten().filter(|c| c.ttl.is_some()).count() > 1;
    let cell_ttl = |c: &crate::engine::view::StateCell| {
        c.ttl.filter(|_| per_state).map(|t| {
            let d = crate::engine::time::format_duration(t.ttl_ms());
            if t.expired {
                format!("TTL {d}: expired at {} — still stored, invisible to reads", tf.format(t.expires_at_ms))
            } else {
                format!("TTL {d}: expires at {}", tf.format(t.expires_at_ms))
            }
        })
    };
    html! {
        <tr class={classes!("ikey", class)}>
            <th scope="row" class="key">{ super::shown(&k.key) }</th>
            { for k.states.iter().zip(names).map(|(cell, name)| match cell {
                Some(c) => {
                    let expired = per_state && c.ttl.is_some_and(|t| t.expired);
                    html! {
                        <td data-label={*name} class={classes!("state-cell", expired.then_some("expired"))}>
                            if let Some(t) = c.time_ms {
                                <span class="value time" title={format!("stored: {} (epoch ms)", c.value)}>{ tf.format(t) }</span>
                            } else {
                                <span class="value">{ super::shown(&c.value) }</span>
                            }
                            if c.entries != c.visible {
                                <span class="entries">{ format!(" ({} of {} entries visible)", c.visible, c.entries) }</span>
                            }
                            if let Some(t) = cell_ttl(c) { <span class="cell-ttl">{ t }</span> }
                        </td>
                    }
                }
                None => html! { <td data-label={*name} class="hint">{ "—" }</td> },
            }) }
            <td data-label="last access">{ k.last_access_ms.map(|t| tf.format(t)).unwrap_or_else(|| "—".into()) }</td>
            <td data-label="cleanup / TTL">{ expiry }</td>
            <td data-label="timers">{ if timers.is_empty() { "—".to_string() } else { timers.join(", ") } }</td>
            <td data-label="status" class="status">{ status }</td>
        </tr>
    }
}
