//! The result table: the final rows after applying the last operator's changelog.

use crate::engine::trace::TraceEvent;
use crate::engine::Simulation;
use yew::prelude::*;

pub fn view(sim: &Simulation) -> Html {
    let result = sim.result();
    let missing = sim.trace().iter().filter(|e| matches!(e.event, TraceEvent::ResultMissingRow { .. })).count();
    html! {
        <div class="operator result" id="result">
            <div class="op-head"><span class="op-id">{ "result" }</span>
                <span class="op-class">{ "rows after applying the changelog" }</span></div>
            <table class="state" id="result-table">
                <thead><tr>{ for result.columns.iter().map(|c| html! { <th>{ c }</th> }) }</tr></thead>
                <tbody>
                    if result.rows().is_empty() {
                        <tr><td colspan={result.columns.len().max(1).to_string()} class="hint">{ "empty" }</td></tr>
                    }
                    { for result.rows().iter().map(|r| html! {
                        <tr>{ for r.0.iter().map(|v| html! { <td>{ v.to_string() }</td> }) }</tr>
                    }) }
                </tbody>
            </table>
            if missing > 0 {
                <p class="error">{ format!("{missing} retraction(s) found no matching row") }</p>
            }
        </div>
    }
}
