//! The retraction flow: the pipeline as a diagram — the source scan, each operator as a box named
//! by its plan text (as Flink's `EXPLAIN` writes it), the sink — with the messages of one step on
//! each edge, travelling down. Select an input to light up everything it caused in every
//! operator and the result rows that depend on it; select a result row to light up the inputs
//! it depends on and the chain of messages that produced it. Stale and at-risk rows say where
//! the state was lost. Causality, lineage and losses are the engine's
//! ([`Provenance`](crate::engine::provenance::Provenance)); this file only draws them.

use crate::engine::explain::{sink_plan, source_plan};
use crate::engine::provenance::Provenance;
use crate::engine::trace::{TraceEntry, TraceEvent};
use crate::engine::Simulation;
use crate::ui::components::kind_class;
use crate::ui::state::SimHandle;
use std::collections::BTreeSet;
use yew::prelude::*;

/// Inputs listed in the source box (the latest ones, plus those a selected row depends on).
const MAX_INPUTS: usize = 12;
/// Result rows listed in the sink box (plus those a selected input reaches).
const MAX_ROWS: usize = 30;
/// Inputs named in a result row's "depends on".
const MAX_DEPENDS: usize = 8;
/// Messages drawn on one edge, and state changes listed in one operator box.
const MAX_PER_EDGE: usize = 12;

#[derive(Properties, Clone)]
pub struct Props {
    pub sim: SimHandle,
    /// The page state's version: the flow is drawn again when it changes.
    pub version: u64,
}

impl PartialEq for Props {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
    }
}

/// What is selected: an input (by the action that fed it) or a result row (by its values).
#[derive(Clone, PartialEq)]
enum Selection {
    None,
    Input(usize),
    Row(String),
}

#[component]
pub fn RetractionFlow(props: &Props) -> Html {
    let selection = use_state(|| Selection::None);
    let sim = props.sim.get();
    // A selection belongs to the scenario it was made on.
    let scenario_id = format!("{}/{}", sim.scenario().name, sim.step_count());
    let made_on = use_mut_ref(String::new);
    if *made_on.borrow() != scenario_id {
        *made_on.borrow_mut() = scenario_id;
        if *selection != Selection::None {
            selection.set(Selection::None);
        }
    }
    let p = Provenance::of(&sim);
    let trace = sim.trace();
    let row_count = sim.result().len();
    let row_text = |r: usize| sim.result().rows().nth(r).map(|r| r.row.join(", ")).unwrap_or_default();
    // Resolve the selection against the trace and result now on show.
    let input = match &*selection {
        Selection::Input(action) => p.inputs.iter().position(|i| i.action == *action).map(|n| n as u32),
        _ => None,
    };
    let row = match &*selection {
        Selection::Row(text) => sim.result().rows().position(|r| r.row.join(", ") == *text),
        _ => None,
    };
    // Entries lit: what the input caused, or the chain that produced the row.
    let lit: BTreeSet<usize> = match (input, row) {
        (Some(n), _) => p.entries_of_input(n).into_iter().collect(),
        (_, Some(r)) => p.rows[r].produced_by.map(|e| p.chain(e)).unwrap_or_default().into_iter().collect(),
        _ => BTreeSet::new(),
    };
    let lit_inputs: BTreeSet<u32> = match (input, row) {
        (Some(n), _) => BTreeSet::from([n]),
        (_, Some(r)) => p.rows[r].inputs.iter().copied().collect(),
        _ => BTreeSet::new(),
    };
    let lit_rows: BTreeSet<usize> = match (input, row) {
        (Some(n), _) => p.rows_of_input(n).into_iter().collect(),
        (_, Some(r)) => BTreeSet::from([r]),
        _ => BTreeSet::new(),
    };
    // The step on show: the selected input's, the one that produced the selected row, or the last.
    let shown_action = match (input, row) {
        (Some(n), _) => Some(p.inputs[n as usize].action),
        (_, Some(r)) => p.rows[r].produced_by.map(|e| trace[e].action),
        _ => sim.last_action().map(|a| a.index),
    };
    let step_entries: Vec<usize> = (0..trace.len()).filter(|&e| Some(trace[e].action) == shown_action).collect();
    let scenario = sim.scenario();
    let tf = sim.time_format();
    let classes: Vec<&'static str> = sim.flink_classes();
    let ops: Vec<&str> = scenario.operators.iter().map(|n| n.id.as_str()).collect();
    let select = |s: Selection| {
        let selection = selection.clone();
        Callback::from(move |_: MouseEvent| {
            selection.set(if *selection == s { Selection::None } else { s.clone() });
        })
    };
    let clear = {
        let selection = selection.clone();
        Callback::from(move |_: MouseEvent| selection.set(Selection::None))
    };
    // Edge `i` carries what enters operator `i` (`ops.len()`: what enters the sink).
    let edge_messages = |i: usize| -> Vec<usize> {
        step_entries
            .iter()
            .copied()
            .filter(|&e| {
                let entry = &trace[e];
                if i == 0 {
                    matches!(entry.event, TraceEvent::Input { .. }) && *entry.op == *scenario.source().name
                } else {
                    matches!(entry.event, TraceEvent::Emitted { .. }) && *entry.op == *ops[i - 1]
                }
            })
            .collect()
    };
    let status = match (input, row, shown_action) {
        (Some(n), _, _) => format!(
            "input #{} {} at {}: what it caused is marked ▶ in every operator",
            p.inputs[n as usize].action + 1,
            p.inputs[n as usize].message,
            tf.format(p.inputs[n as usize].time_ms)
        ),
        (_, Some(r), _) => format!(
            "result row [{}]: the inputs it depends on and the messages that produced it are marked ▶",
            row_text(r)
        ),
        (_, _, Some(a)) => format!("the messages of the last action (#{}) — select an input or a result row", a + 1),
        _ => "nothing ran yet — Step, then select an input or a result row".to_string(),
    };
    // Inputs to list: the latest, and the lit ones.
    let mut listed: BTreeSet<u32> =
        (p.inputs.len().saturating_sub(MAX_INPUTS)..p.inputs.len()).map(|n| n as u32).collect();
    listed.extend(lit_inputs.iter().copied().take(MAX_INPUTS));
    let earlier = p.inputs.len().saturating_sub(listed.len());
    let mut rows_listed: BTreeSet<usize> = (0..row_count.min(MAX_ROWS)).collect();
    rows_listed.extend(lit_rows.iter().copied().take(MAX_ROWS));
    html! {
        <section class="see-flow" id="flow" aria-labelledby="flow-title">
            <h2 id="flow-title">{ "Retraction flow" }</h2>
            <p class="flow-status" id="flow-status" aria-live="polite">
                { status }
                if input.is_some() || row.is_some() {
                    { " " }<button class="flow-clear" id="flow-clear" onclick={clear}>{ "clear selection" }</button>
                }
            </p>
            if !p.complete {
                <p class="hint">{ "inputs before the kept trace (the last actions) are not shown; their share in state is not traced" }</p>
            }
            <ol class="flow-diagram">
                <li class="fnode source">
                    <div class="fplan">{ source_plan(scenario) }</div>
                    <ul class="flow-inputs" id="flow-inputs" aria-label="inputs: select one to see what it caused">
                        if earlier > 0 { <li class="hint">{ format!("… {earlier} earlier inputs") }</li> }
                        { for listed.iter().map(|&n| {
                            let i = &p.inputs[n as usize];
                            let on = lit_inputs.contains(&n);
                            html! {
                                <li>
                                    <button class={classes!("flow-input", kind_class(i.message.change), on.then_some("hl"))}
                                        aria-pressed={(input == Some(n)).to_string()}
                                        onclick={select(Selection::Input(i.action))}>
                                        { format!("{}#{} ", if on { "▶ " } else { "" }, i.action + 1) }
                                        <span class="msg-text">{ i.message.to_string() }</span>
                                        <span class="when">{ format!(" {}", tf.format(i.time_ms)) }</span>
                                    </button>
                                </li>
                            }
                        }) }
                        if p.inputs.is_empty() { <li class="hint">{ "no input yet" }</li> }
                    </ul>
                </li>
                { for (0..=ops.len()).map(|i| {
                    let edge = edge(trace, &edge_messages(i), &lit, if i == 0 { &scenario.source().name } else { ops[i - 1] },
                        ops.get(i).copied().unwrap_or("result"), i);
                    let node = if i < ops.len() {
                        operator_box(&sim, i, classes.get(i).copied().unwrap_or_default(), &step_entries, &lit)
                    } else {
                        sink_box(&sim, &p, &rows_listed, &lit_rows, row, &select)
                    };
                    html! { <>{ edge }{ node }</> }
                }) }
            </ol>
        </section>
    }
}

/// The arrow into the next box, with the messages on it (kind as text: `+I`, `-U`, `(true,…)`).
fn edge(trace: &[TraceEntry], messages: &[usize], lit: &BTreeSet<usize>, from: &str, to: &str, i: usize) -> Html {
    let label = format!("{} message(s) from {from} to {to}", messages.len());
    let more = messages.len().saturating_sub(MAX_PER_EDGE);
    html! {
        <li class="fedge" aria-label={label.clone()}>
            <svg class="farrow" width="24" height="100%" viewBox="0 0 24 40" preserveAspectRatio="none" role="img" aria-label={label}>
                <line x1="12" y1="0" x2="12" y2="32" vector-effect="non-scaling-stroke" />
                <polygon points="6,30 18,30 12,40" />
            </svg>
            <div class="fmsgs">
                if messages.is_empty() { <span class="hint">{ "no message" }</span> }
                { for messages.iter().take(MAX_PER_EDGE).enumerate().map(|(j, &e)| {
                    let m = trace[e].event.message().map(|m| (m.to_string(), kind_class(m.change))).unwrap_or_default();
                    let on = lit.contains(&e);
                    let delay = format!("animation-delay: {}ms", i * 250 + j * 60);
                    html! {
                        <span class={classes!("msg", "travel", m.1, on.then_some("hl"))} style={delay}>
                            { if on { "▶ " } else { "" } }{ m.0 }
                        </span>
                    }
                }) }
                if more > 0 { <span class="hint">{ format!(" … {more} more") }</span> }
            </div>
        </li>
    }
}

/// An operator's box: its plan, its Flink class, and what happened in it during the step on show
/// besides receiving and emitting (the rule's decision, timers, state cleared or expired).
fn operator_box(sim: &Simulation, i: usize, flink_class: &'static str, step: &[usize], lit: &BTreeSet<usize>) -> Html {
    let trace = sim.trace();
    let tf = sim.time_format();
    let node = &sim.scenario().operators[i];
    let changes: Vec<usize> = step
        .iter()
        .copied()
        .filter(|&e| *trace[e].op == *node.id)
        .filter(|&e| !matches!(trace[e].event, TraceEvent::Received { .. } | TraceEvent::Emitted { .. }))
        .collect();
    let more = changes.len().saturating_sub(MAX_PER_EDGE);
    html! {
        <li class="fnode op" id={format!("flow-op-{}", node.id)}>
            <div class="fhead">
                <span class="op-id">{ &node.id }</span>
                <span class="op-class">{ flink_class }</span>
            </div>
            <div class="fplan">{ node.spec.plan() }</div>
            if !changes.is_empty() {
                <ul class="fchanges" aria-label={format!("what happened in {}", node.id)}>
                    { for changes.iter().take(MAX_PER_EDGE).map(|&e| {
                        let entry = &trace[e];
                        let on = lit.contains(&e);
                        let key = entry.key_label().map(|k| format!("key {k}: ")).unwrap_or_default();
                        html! {
                            <li class={classes!(entry.event.what(), on.then_some("hl"))}>
                                { if on { "▶ " } else { "" } }{ key }{ entry.event.describe(tf) }
                            </li>
                        }
                    }) }
                    if more > 0 { <li class="hint">{ format!("… {more} more") }</li> }
                </ul>
            }
        </li>
    }
}

/// The sink's box: the result rows as buttons; stale ones say where the last operator lost the
/// state, at-risk ones where an upstream operator did.
fn sink_box(
    sim: &Simulation,
    p: &Provenance,
    listed: &BTreeSet<usize>,
    lit: &BTreeSet<usize>,
    selected: Option<usize>,
    select: &impl Fn(Selection) -> Callback<MouseEvent>,
) -> Html {
    let tf = sim.time_format();
    let result: Vec<_> = sim.result().rows().collect();
    let sink = if sim.result().upsert { "upsert on the key" } else { "retract" };
    html! {
        <li class="fnode sink">
            <div class="fhead"><span class="op-id">{ "result" }</span><span class="op-class">{ sink }</span></div>
            <div class="fplan">{ sink_plan(sim.scenario()) }</div>
            <ul class="flow-rows" id="flow-rows" aria-label="result rows: select one to see the inputs it depends on">
                if result.is_empty() { <li class="hint">{ "empty" }</li> }
                { for listed.iter().map(|&r| {
                    let rp = &p.rows[r];
                    let text = result[r].row.join(", ");
                    let on = lit.contains(&r);
                    let stale = result[r].stale_since_ms.map(|at| match rp.stale {
                        Some(l) => format!("⚠ stale since {}: {}", tf.format(at), p.losses[l].describe(tf)),
                        None => match p.older_loss_of_row(sim, r) {
                            Some(loss) => format!("⚠ stale since {}: {}", tf.format(at), loss.describe(tf)),
                            None => format!("⚠ stale since {}: the loss is older than the kept trace", tf.format(at)),
                        },
                    });
                    let risks: Vec<String> = rp.at_risk.iter().map(|&l| format!(
                        "⚠ at risk: {}; what it had sent downstream can never be retracted", p.losses[l].describe(tf))).collect();
                    let restarted: Vec<String> = rp.restarted_after.iter().filter(|l| !rp.at_risk.contains(l)).map(|&l| format!(
                        "↺ computed from a state that started empty again after: {}", p.losses[l].describe(tf))).collect();
                    let depends = if rp.inputs.is_empty() {
                        String::new()
                    } else {
                        let ids: Vec<String> =
                            rp.inputs.iter().take(MAX_DEPENDS).map(|&n| format!("#{}", p.inputs[n as usize].action + 1)).collect();
                        let more = rp.inputs.len().saturating_sub(MAX_DEPENDS);
                        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                        let earlier = if p.complete { "" } else { " (and inputs before the kept trace)" };
                        format!("depends on input {}{more}{earlier}", ids.join(", "))
                    };
                    html! {
                        <li class={classes!("flow-row-item", stale.is_some().then_some("stale"), (!risks.is_empty()).then_some("at-risk"))}>
                            <button class={classes!("flow-row", on.then_some("hl"))} aria-pressed={(selected == Some(r)).to_string()}
                                onclick={select(Selection::Row(text.clone()))}>
                                { if on { "▶ " } else { "" } }{ format!("[{text}]") }
                            </button>
                            if !depends.is_empty() { <span class="depends">{ depends }</span> }
                            if let Some(s) = stale { <div class="loss" role="note">{ s }</div> }
                            { for risks.into_iter().map(|r| html! { <div class="loss risk" role="note">{ r }</div> }) }
                            { for restarted.into_iter().map(|r| html! { <div class="loss restarted" role="note">{ r }</div> }) }
                        </li>
                    }
                }) }
                if result.len() > listed.len() { <li class="hint">{ format!("… {} more rows", result.len() - listed.len()) }</li> }
            </ul>
        </li>
    }
}
