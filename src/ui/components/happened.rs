//! "What just happened": the last action and everything it caused, with the rule's numbers.

use crate::engine::trace::{TraceEntry, TraceEvent};
use crate::engine::Simulation;
use crate::ui::components::kind_class;
use yew::prelude::*;

pub fn view(sim: &Simulation) -> Html {
    let tf = sim.time_format();
    let label = sim.actions().last().map(|a| a.label.clone());
    let entries = sim.last_action_entries();
    let body = match label {
        None => {
            html! { <p class="hint">{ "Nothing yet. Step runs the next input; advancing time fires due timers." }</p> }
        }
        Some(l) => html! {
            <>
                <p class="action" id="last-action">{ l }</p>
                if entries.is_empty() {
                    <p class="hint">{ "No timer was due and nothing changed." }</p>
                }
                <ul class="entries">
                    { for entries.iter().map(|e| entry_view(e, tf)) }
                </ul>
            </>
        },
    };
    html! {
        <section class="happened" id="happened">
            <h2>{ "What just happened" }</h2>
            if let Some(f) = sim.failure() {
                <div class="error">{ format!("stopped: {f}") }</div>
            }
            { body }
        </section>
    }
}

fn entry_view(e: &TraceEntry, tf: crate::engine::time::TimeFormat) -> Html {
    let class = match &e.event {
        TraceEvent::Emitted { message } => format!("entry emitted {}", kind_class(message.change)),
        other => format!("entry {}", other.what()),
    };
    let key = e.key_text().map(|k| format!(" [{k}]")).unwrap_or_default();
    html! {
        <li class={class}>
            <span class="when">{ tf.format(e.time_ms) }</span>
            <span class="where">{ format!("{}{key}", e.op) }</span>
            <span class="what">{ e.event.describe(tf) }</span>
        </li>
    }
}
