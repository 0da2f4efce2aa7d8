//! One card per operator: its Flink class and plan, its keyed state now, and its changelog.

use crate::engine::trace::TraceEvent;
use crate::engine::view::OperatorView;
use crate::engine::Simulation;
use crate::ui::components::kind_class;
use yew::prelude::*;

/// How many emitted messages each operator card shows.
const MAX_CHIPS: usize = 40;

pub fn view(sim: &Simulation) -> Html {
    html! {
        <section class="operators">
            <h2>{ "Operators → result" }</h2>
            { for sim.operator_views().into_iter().map(|op| card(sim, op)) }
        </section>
    }
}

fn card(sim: &Simulation, op: OperatorView) -> Html {
    let tf = sim.time_format();
    let last_action = sim.actions().len().checked_sub(1);
    let all: Vec<Html> = sim
        .trace()
        .iter()
        .filter(|e| e.op == op.id)
        .filter_map(|e| match &e.event {
            TraceEvent::Emitted { message } => {
                let fresh = if Some(e.action) == last_action { " fresh" } else { "" };
                Some(html! {
                    <span class={format!("msg {}{fresh}", kind_class(message.change))}
                        title={format!("emitted at {}", tf.format(e.time_ms))}>{ message.to_string() }</span>
                })
            }
            _ => None,
        })
        .collect();
    // The last messages only: the page stays light however long the run.
    let earlier = all.len().saturating_sub(MAX_CHIPS);
    let emitted: Vec<Html> = all.into_iter().skip(earlier).collect();
    let legacy = op.flink_class == "GroupAggProcessFunction";
    html! {
        <div class="operator" id={format!("op-{}", op.id)}>
            <div class="op-head">
                <span class="op-id">{ &op.id }</span>
                <span class="op-class">{ op.flink_class }</span>
            </div>
            <div class="plan">{ &op.plan }</div>
            <table class="state">
                <thead><tr>
                    <th>{ "key" }</th><th>{ op.state_names[0] }</th>
                    if legacy { <th>{ "input count" }</th><th>{ "cleanup time C" }</th> }
                    else { <th>{ "state TTL" }</th> }
                </tr></thead>
                <tbody>
                    if op.keys.is_empty() {
                        <tr><td colspan="4" class="hint">{ "no state" }</td></tr>
                    }
                    { for op.keys.iter().map(|k| html! {
                        <tr class={if k.ttl.is_some_and(|t| t.expired) { "expired" } else { "" }}>
                            <td class="key">{ &k.key }</td>
                            <td>{ k.accumulators.clone().unwrap_or_else(|| "—".into()) }</td>
                            if legacy {
                                <td>{ k.input_count.map(|c| c.to_string()).unwrap_or_else(|| "—".into()) }</td>
                                <td class="cleanup-time">{ k.cleanup_time_ms.map(|t| tf.format(t)).unwrap_or_else(|| "—".into()) }</td>
                            } else {
                                <td class="ttl">{ match k.ttl {
                                    None => "no TTL (table.exec.state.ttl = 0)".to_string(),
                                    Some(t) if t.expired => format!("expired at {} — still stored, invisible", tf.format(t.expires_at_ms)),
                                    Some(t) => format!("expires at {}", tf.format(t.expires_at_ms)),
                                } }</td>
                            }
                        </tr>
                    }) }
                </tbody>
            </table>
            <div class="changelog">
                <span class="label">{ "out " }</span>
                if emitted.is_empty() { <span class="hint">{ "nothing emitted yet" }</span> }
                if earlier > 0 { <span class="earlier">{ format!("… {earlier} earlier, ") }</span> }
                { for emitted }
            </div>
        </div>
    }
}
