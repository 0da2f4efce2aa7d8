//! One card per operator: its Flink class and plan, its keyed state now, and its changelog.

use crate::engine::time::{format_duration, TimeFormat};
use crate::engine::trace::TraceEvent;
use crate::engine::view::{KeyView, OperatorView, StateCell};
use crate::engine::Simulation;
use crate::ui::components::kind_class;
use yew::prelude::*;

/// How many emitted messages each operator card shows.
const MAX_CHIPS: usize = 40;
/// How many keys each operator card lists.
const MAX_KEYS: usize = 50;

pub fn view(sim: &Simulation) -> Html {
    let emitted_totals: Vec<u64> = sim.sample_now().operators.iter().map(|o| o.emitted.total()).collect();
    html! {
        <section class="operators">
            <h2>{ "Operators → result" }</h2>
            { for sim.operator_views_limited(MAX_KEYS).into_iter().enumerate().map(|(i, op)| {
                card(sim, op, emitted_totals.get(i).copied().unwrap_or(0))
            }) }
        </section>
    }
}

fn card(sim: &Simulation, op: OperatorView, emitted_total: u64) -> Html {
    let tf = sim.time_format();
    let last_action = sim.last_action().map(|a| a.index);
    // The last messages only (from the trace the page keeps): the page stays light however long the run.
    let recent: Vec<Html> = sim
        .trace()
        .iter()
        .rev()
        .filter(|e| *e.op == *op.id)
        .filter_map(|e| match &e.event {
            TraceEvent::Emitted { message } => {
                let fresh = if Some(e.action) == last_action { " fresh" } else { "" };
                Some(html! {
                    <span class={format!("msg {}{fresh}", kind_class(message.change))}
                        title={format!("emitted at {}", tf.format(e.time_ms))}>{ super::shown(message) }</span>
                })
            }
            _ => None,
        })
        .take(MAX_CHIPS)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let earlier = (emitted_total as usize).saturating_sub(recent.len());
    let more_keys = op.key_count.saturating_sub(op.keys.len());
    // Each state's own TTL in its cell when several states have one (a join's two sides, which
    // may differ: the STATE_TTL hint); otherwise one column for the key's.
    let per_state = op.keys.iter().any(|k| k.states.iter().flatten().filter(|c| c.ttl.is_some()).count() > 1);
    let ttl = !per_state && op.keys.iter().any(|k| k.ttl.is_some());
    let columns = op.state_names.len() + 1 + usize::from(ttl);
    html! {
        <div class="operator" id={format!("op-{}", op.id)}>
            <div class="op-head">
                <span class="op-id">{ &op.id }</span>
                <span class="op-class">{ op.flink_class }</span>
            </div>
            <div class="plan">{ &op.plan }</div>
            { for op.plan_notes.iter().map(|n| html! { <div class="hint plan-note">{ *n }</div> }) }
            if !op.metrics.is_empty() {
                <div class="op-metrics" title="the operator's own metrics (Flink's metric group)">
                    { op.metrics.iter().map(|(n, v)| format!("{n} = {v}")).collect::<Vec<_>>().join(" · ") }
                </div>
            }
            <div class="table-box">
            <table class="state">
                <thead><tr>
                    <th>{ "key" }</th>
                    { for op.state_names.iter().map(|n| html! { <th>{ camel_breaks(n) }</th> }) }
                    if ttl { <th>{ "state TTL" }</th> }
                </tr></thead>
                <tbody>
                    if op.keys.is_empty() {
                        <tr><td colspan={columns.to_string()} class="hint">{ "no state" }</td></tr>
                    }
                    { for op.keys.iter().map(|k| key_row(&op, k, ttl, per_state, tf)) }
                    if more_keys > 0 {
                        <tr><td colspan={columns.to_string()} class="hint">{ format!("… {more_keys} more keys (shown: the {} the last actions touched; the state inspector finds any key)", op.keys.len()) }</td></tr>
                    }
                </tbody>
            </table>
            </div>
            <div class="changelog">
                <span class="label">{ "out " }</span>
                if recent.is_empty() && earlier == 0 { <span class="hint">{ "nothing emitted yet" }</span> }
                if earlier > 0 { <span class="earlier">{ format!("… {earlier} earlier, ") }</span> }
                { for recent }
            </div>
        </div>
    }
}

fn key_row(op: &OperatorView, k: &KeyView, ttl_column: bool, per_state: bool, tf: TimeFormat) -> Html {
    // Per state: the row is greyed when every state it holds is expired, each cell when its is.
    let expired = if per_state {
        let mut cells = k.states.iter().flatten().peekable();
        cells.peek().is_some() && cells.all(|c| c.ttl.is_some_and(|t| t.expired))
    } else {
        k.ttl.is_some_and(|t| t.expired)
    };
    let ttl = k.ttl.map(|t| {
        if t.expired {
            format!("expired at {} — still stored, invisible", tf.format(t.expires_at_ms))
        } else {
            format!("expires at {}", tf.format(t.expires_at_ms))
        }
    });
    html! {
        <tr class={if expired { "expired" } else { "" }}>
            <td class={if k.row.0.is_empty() { "key global" } else { "key" }}>{ key_cell(k) }</td>
            { for op.state_names.iter().zip(&k.states).map(|(name, cell)| state_cell(name, cell.as_ref(), per_state, tf)) }
            if ttl_column { <td class="ttl">{ ttl.unwrap_or_else(|| "—".into()) }</td> }
        </tr>
    }
}

/// The key as [`crate::engine::row::Row::key_label`] writes it, each value isolated (`<bdi>`): a
/// right-to-left override in one value does not flip the values after it.
fn key_cell(k: &KeyView) -> Html {
    if k.row.0.is_empty() {
        return html! { { super::shown(&k.key) } };
    }
    let values = k.row.0.iter().enumerate().map(|(i, v)| {
        html! { <>{ if i > 0 { ", " } else { "" } }<bdi>{ super::shown(v) }</bdi></> }
    });
    html! { { for values } }
}

/// One state's cell: the cleanup time as a time, a TTL state with its expiry, others as stored.
/// With `per_state`, the cell says its own TTL (`TTL 1 d: expires at …`, or expired and still
/// stored) and is greyed once expired, as a key's row is.
fn state_cell(name: &str, cell: Option<&StateCell>, per_state: bool, tf: TimeFormat) -> Html {
    let Some(cell) = cell else { return html! { <td>{ "—" }</td> } };
    // A state holding a processing time (a cleanup time, a TTL timer's deadline): in the
    // scenario's units, the stored Long in the tooltip.
    if let Some(t) = cell.time_ms {
        return html! {
            <td class="cleanup-time" title={format!("stored: {} (epoch ms)", cell.value)}>{ tf.format(t) }</td>
        };
    }
    let Some(ttl) = cell.ttl.filter(|_| per_state) else { return html! { <td>{ &cell.value }</td> } };
    let when = if ttl.expired {
        format!(
            "TTL {}: expired at {} — still stored, invisible",
            format_duration(ttl.ttl_ms()),
            tf.format(ttl.expires_at_ms)
        )
    } else {
        format!("TTL {}: expires at {}", format_duration(ttl.ttl_ms()), tf.format(ttl.expires_at_ms))
    };
    let partly = (cell.visible > 0 && cell.visible < cell.entries)
        .then(|| format!(" ({} of {} entries visible)", cell.visible, cell.entries));
    html! {
        <td class={classes!("state-cell", ttl.expired.then_some("expired"))} data-state={name.to_string()}>
            <span class="value">{ &cell.value }</span>
            if let Some(p) = partly { <span class="entries">{ p }</span> }
            <span class="cell-ttl">{ when }</span>
        </td>
    }
}

/// A state's name with a line-break opportunity before each inner capital
/// (`GroupAggregate|Input|Counter`), so a narrow card's header wraps instead of clipping the
/// table; the text is unchanged.
fn camel_breaks(name: &str) -> Html {
    let mut parts: Vec<&str> = Vec::new();
    let mut start = 0;
    let bytes = name.as_bytes();
    for i in 1..bytes.len() {
        if bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase() {
            parts.push(&name[start..i]);
            start = i;
        }
    }
    parts.push(&name[start..]);
    html! {
        { for parts.into_iter().enumerate().map(|(i, p)| html! { <>if i > 0 { <wbr /> }{ p }</> }) }
    }
}
