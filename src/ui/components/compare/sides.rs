//! One side of Compare: its scenario, position, every metric the engine samples per operator
//! and its result rows, each marked where the other side differs.

use crate::engine::metrics::{OperatorSample, Sample};
use crate::engine::scenario::describe_retentions;
use crate::engine::Simulation;
use yew::prelude::*;

/// How many result rows each side lists.
const MAX_ROWS: usize = 100;

/// The first [`MAX_ROWS`] rows of `sim`'s result as text, each with whether `other`'s result
/// lacks it and whether it is stale.
fn first_rows(sim: &Simulation, other: &Simulation) -> Vec<(String, bool, bool)> {
    let lacked = sim.result().lacked_by(other.result(), MAX_ROWS);
    let rows = sim.result().rows().zip(lacked);
    rows.map(|(r, only)| (super::super::shown(r.row.join(", ")), only, r.stale_since_ms.is_some())).collect()
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
        html! { <td class={classes!(differs.then_some("differs"))}>{ crate::engine::digits::grouped(v) }{ if differs { " ≠" } else { "" } }</td> }
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

/// One side of the comparison, `id` `cmp-left` or `cmp-right`; `only_here`: how many of its
/// result rows the other side lacks, once counted (it is counted in slices after the sides are
/// drawn: [`crate::engine::result_table::ResultTable::count_lacked_by`]).
pub(super) fn side(sim: &Simulation, other: &Simulation, id: &str, only_here: Option<usize>) -> Html {
    let sc = sim.scenario();
    let tf = sim.time_format();
    let shown = first_rows(sim, other);
    let rows = sim.result().len();
    let only_here = only_here.map_or("counting the rows not on the other side…".to_string(), |n| {
        format!("{} not on the other side", crate::engine::digits::grouped(n))
    });
    let sample = sim.sample_now();
    let other_sample = other.sample_now();
    let mark = |v: u64, o: u64| if v == o { String::new() } else { " ≠".to_string() };
    html! {
        <div class="cmp-side" id={id.to_string()}>
            <h3>{ if sc.title.is_empty() { sc.name.clone() } else { sc.title.clone() } }</h3>
            <p class="hint">{ format!("{} — {}", sc.flink.label(), describe_retentions(sc)) }</p>
            <p class="cmp-time">{ format!("step {} / {} · {}", sim.next_step(), sim.step_count(), tf.format(sim.now())) }</p>
            <p class="cmp-inputs">{ format!("inputs processed: {}{}", crate::engine::digits::grouped(sample.inputs), mark(sample.inputs, other_sample.inputs)) }</p>
            { metrics_table(sim, other, [&sample, &other_sample]) }
            <p class="cmp-summary">{ format!(
                "result: {} rows{}, {} stale{}; {only_here}",
                crate::engine::digits::grouped(rows), mark(sample.result_rows, other_sample.result_rows),
                crate::engine::digits::grouped(sim.result().stale_len()), mark(sample.stale_rows, other_sample.stale_rows)
            ) }</p>
            <table class="state cmp-result">
                <thead><tr><th>{ sim.result().columns.join(", ") }</th></tr></thead>
                <tbody>
                    { for shown.iter().map(|(text, differs, stale)| {
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
            if rows > MAX_ROWS { <p class="hint">{ format!("… {} more rows", rows - MAX_ROWS) }</p> }
        </div>
    }
}
