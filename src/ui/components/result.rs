//! The result table: the final rows after applying the last operator's changelog. Rows whose
//! key's state was lost silently (cleanup timer, state TTL) are marked stale.

use crate::engine::trace::TraceEvent;
use crate::engine::Simulation;
use yew::prelude::*;

/// How many result rows the page lists (in a box that scrolls).
const MAX_ROWS: usize = 100;

pub fn view(sim: &Simulation) -> Html {
    let tf = sim.time_format();
    let result = sim.result();
    // What a stale row means, said once under the table (and on each row's hover).
    let why_stale = if result.upsert {
        "the state of its key was lost without a message (cleanup timer, state TTL); the key's next row overwrites it"
    } else {
        "the state of its key was lost without a message (cleanup timer, state TTL); nothing will ever retract or update it"
    };
    let missing = sim.trace().iter().filter(|e| matches!(e.event, TraceEvent::ResultMissingRow { .. })).count();
    let sink = if result.upsert {
        "upsert on the key: the last operator sends no UPDATE_BEFORE"
    } else {
        "rows after applying the changelog"
    };
    html! {
        <div class="operator result" id="result">
            <div class="op-head"><span class="op-id">{ "result" }</span><span class="op-class">{ sink }</span></div>
            <div class="table-box">
            <table class="state" id="result-table">
                <thead><tr>
                    { for result.columns.iter().map(|c| html! { <th>{ c }</th> }) }
                    <th class="stale-col"></th>
                </tr></thead>
                <tbody>
                    if result.is_empty() {
                        <tr><td colspan={(result.columns.len() + 1).to_string()} class="hint">{ "empty" }</td></tr>
                    }
                    { for result.rows().take(MAX_ROWS).map(|r| {
                        let stale = r.stale_since_ms.map(|t| format!("⚠ stale since {}", tf.format(t)));
                        html! {
                            <tr class={if stale.is_some() { "stale" } else { "" }}>
                                { for r.row.0.iter().map(|v| html! { <td><bdi>{ super::shown(v) }</bdi></td> }) }
                                <td class="stale-note" title={stale.is_some().then_some(why_stale)}>{ stale.unwrap_or_default() }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            </div>
            if result.stale_len() > 0 {
                <p class="hint stale-why" id="stale-why">{ format!("⚠ stale: {why_stale}") }</p>
            }
            if result.len() > MAX_ROWS {
                <p class="hint">{ format!("… {} more rows ({} rows, {} stale)", result.len() - MAX_ROWS, result.len(), result.stale_len()) }</p>
            }
            if missing > 0 {
                <p class="error">{ format!("{missing} retraction(s) found no matching row") }</p>
            }
        </div>
    }
}
