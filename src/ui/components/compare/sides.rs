//! One side of Compare: its scenario, position, every metric the engine samples per operator
//! and its result rows, each marked where the other side differs.

use crate::engine::metrics::{OperatorSample, Sample};
use crate::engine::result_table::Lacked;
use crate::engine::scenario::describe_retentions;
use crate::engine::Simulation;
use yew::prelude::*;

/// How many result rows each side lists.
pub(super) const MAX_ROWS: usize = 100;

/// The rows of `sim`'s result a side lists, as text, each with whether `other`'s result lacks
/// it and whether it is stale: once counted (`lacked`), the rows the other side lacks first (up
/// to [`MAX_ROWS`]: at depth they may lie anywhere in 334 676 rows), then its first rows the
/// other side has too; before, its first rows.
fn listed_rows(sim: &Simulation, other: &Simulation, lacked: Option<&Lacked>) -> Vec<(String, bool, bool)> {
    let text = |r: &crate::engine::result_table::ResultRow, only: bool| {
        (super::super::shown(r.row.join(", ")), only, r.stale_since_ms.is_some())
    };
    let result = sim.result();
    let Some(lacked) = lacked else {
        let flags = result.lacked_by(other.result(), MAX_ROWS);
        return result.rows().zip(flags).map(|(r, only)| text(r, only)).collect();
    };
    let mut listed: Vec<_> = lacked.slots.iter().filter_map(|&s| result.in_slot(s)).map(|r| text(r, true)).collect();
    let shared = MAX_ROWS.saturating_sub(listed.len());
    let flags = result.lacked_by(other.result(), shared + lacked.slots.len());
    listed.extend(result.rows().zip(flags).filter(|(_, only)| !only).take(shared).map(|(r, _)| text(r, false)));
    listed
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

/// One side of the comparison, `id` `cmp-left` or `cmp-right`; `lacked`: its result rows the
/// other side lacks and the other side's it lacks, once counted (in slices after the sides are
/// drawn: [`crate::engine::result_table::ResultTable::count_lacked_by`]).
pub(super) fn side(sim: &Simulation, other: &Simulation, id: &str, lacked: Option<[&Lacked; 2]>) -> Html {
    // Under the other side's rows found there only, as many empty rows: the rows both have
    // stand level with each other (trial 25: offset by one after a row one side had).
    let gap = lacked
        .map_or(0, |[mine, theirs]| theirs.slots.len().min(MAX_ROWS).saturating_sub(mine.slots.len().min(MAX_ROWS)));
    let lacked = lacked.map(|[mine, _]| mine);
    let sc = sim.scenario();
    let tf = sim.time_format();
    let shown = listed_rows(sim, other, lacked);
    let rows = sim.result().len();
    let only_here = lacked.map_or("counting the rows not on the other side…".to_string(), |l| match l.count {
        0 => "0 not on the other side".to_string(),
        n => format!("{} not on the other side, listed first", crate::engine::digits::grouped(n)),
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
                    { for (0..gap).map(|_| html! {
                        <tr class="gap"><td><span class="cmp-mark">{ "— only on the other side —" }</span></td></tr>
                    }) }
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
            if rows > shown.len() { <p class="hint">{ format!("… {} more rows", crate::engine::digits::grouped(rows - shown.len())) }</p> }
        </div>
    }
}
