//! "What just happened": the last action and everything it caused, with the rule's numbers.

use crate::engine::cleanup_state::CleanupDecision;
use crate::engine::error::cut;
use crate::engine::time::{Millis, TimeFormat};
use crate::engine::trace::{TraceEntry, TraceEvent};
use crate::engine::Simulation;
use crate::ui::components::kind_class;
use yew::prelude::*;

/// How many consequences of one action the panel lists (an advance can fire thousands of timers).
const MAX_ENTRIES: usize = 100;
/// The most characters of a key, and of a line, shown (a key is anyone's: trial 20's 20 000-character
/// key filled the page).
const MAX_KEY_CHARS: usize = 120;
const MAX_LINE_CHARS: usize = 600;

pub fn view(sim: &Simulation) -> Html {
    let tf = sim.time_format();
    let last = sim.last_action();
    // With cleaning disabled the rule decides nothing each time; the retention badge says so once.
    let entries: Vec<&TraceEntry> = sim
        .last_action_entries()
        .iter()
        .filter(|e| !matches!(e.event, TraceEvent::Decision(CleanupDecision::Disabled { .. })))
        .collect();
    let expired = sim.expired_in_last_action();
    let body = match last {
        None => {
            html! { <p class="hint">{ "Nothing yet. Step runs the next input; advancing time fires due timers." }</p> }
        }
        Some(action) => {
            // Times are shown only where they differ from the action's end time (timers fire at
            // their own timestamps during an advance).
            let when = |t: Millis| (t != action.to_ms).then(|| html! { <span class="when">{ tf.format(t) }</span> });
            html! {
                <>
                    <p class="action" id="last-action">{ sim.describe_action(action) }</p>
                    { passed_inputs(&sim.inputs_passed_by(action), tf) }
                    if entries.is_empty() && expired.is_empty() {
                        <p class="hint">{ "No timer was due and nothing changed." }</p>
                    }
                    <ul class="entries">
                        { for entries.iter().take(MAX_ENTRIES).map(|e| entry_view(e, tf, when(e.time_ms))) }
                        if entries.len() > MAX_ENTRIES {
                            <li class="entry more">{ format!("… and {} more", entries.len() - MAX_ENTRIES) }</li>
                        }
                        { for expired.iter().take(MAX_ENTRIES).map(|(op, key, at)| html! {
                            <li class="entry ttl_expired">
                                { when(*at).unwrap_or_default() }
                                <span class="where">{ format!("{op} [{}]", if key.is_empty() { "(global)" } else { key }) }</span>
                                <span class="what">{ "state TTL expired (lastAccess + ttl <= now): still stored but invisible to reads; \
                                    removed when next read, or by background cleanup (not modelled). Nothing is emitted." }</span>
                            </li>
                        }) }
                        if expired.len() > MAX_ENTRIES {
                            <li class="entry more">{ format!("… and {} more keys whose state TTL expired", expired.len() - MAX_ENTRIES) }</li>
                        }
                    </ul>
                </>
            }
        }
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

/// The inputs an advance went past without running them (trial 28: `n` jumped past two inputs
/// and this panel did not say so).
fn passed_inputs(passed: &[(u64, Millis)], tf: TimeFormat) -> Html {
    const LISTED: usize = 5;
    if passed.is_empty() {
        return html! {};
    }
    let mut listed: Vec<String> =
        passed.iter().take(LISTED).map(|(step, at)| format!("step {} at {}", step + 1, tf.format(*at))).collect();
    if passed.len() > LISTED {
        listed.push(format!("{} more", passed.len() - LISTED));
    }
    let n = passed.len();
    let (s, them, they) = if n == 1 { ("", "it", "it") } else { ("s", "them", "they") };
    html! {
        <p class="hint" id="passed-inputs">{ format!(
            "It went past {n} input{s} without running {them} ({}): processing time does not go back, so {they} cannot \
             run from here — ◀ Back or Reset runs {them}.",
            listed.join(", ")
        ) }</p>
    }
}

fn entry_view(e: &TraceEntry, tf: TimeFormat, when: Option<Html>) -> Html {
    let class = match &e.event {
        TraceEvent::Emitted { message } => format!("entry emitted {}", kind_class(message.change)),
        other => format!("entry {}", other.what()),
    };
    let key = e.key_label().map(|k| format!(" [{}]", cut(&k, MAX_KEY_CHARS))).unwrap_or_default();
    html! {
        <li class={class}>
            { when.unwrap_or_default() }
            <span class="where">{ format!("{}{key}", e.op) }</span>
            <span class="what">{ cut(&e.event.describe(tf), MAX_LINE_CHARS).into_owned() }</span>
        </li>
    }
}
