//! The retraction flow: the pipeline as a diagram — each source's scan with its inputs, each
//! operator as a box named by its plan text (as Flink's `EXPLAIN` writes it), the sink — drawn
//! as the tree it is: each source above the operators that read it, a join's two inputs side by
//! side with each edge named by its side (left, right). The messages of one step travel down
//! each edge. Select an input to light up everything it caused in every operator and the result
//! rows that depend on it; select a result row to light up the inputs it depends on and the
//! chain of messages that produced it. Stale and at-risk rows say where the state was lost.
//! The tree is the scenario's ([`crate::engine::scenario::OperatorNode::inputs`]); causality,
//! lineage and losses are the engine's
//! ([`Provenance`](crate::engine::provenance::Provenance)); this file only draws them.

use crate::engine::explain::{scan_plan, sink_plan};
use crate::engine::provenance::Provenance;
use crate::engine::scenario::NodeInput;
use crate::engine::trace::TraceEvent;
use crate::engine::Simulation;
use crate::ui::components::kind_class;
use crate::ui::state::SimHandle;
use std::cell::RefCell;
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
    let status = match (input, row, shown_action) {
        (Some(n), _, _) => format!(
            "input #{} {}{} at {}: what it caused is marked ▶ in every operator",
            p.inputs[n as usize].action + 1,
            p.inputs[n as usize].message,
            // Named when there are several sources to tell apart.
            match sim.scenario().sources.as_slice() {
                [_] => String::new(),
                all => format!(" from {}", all[p.inputs[n as usize].source].name),
            },
            sim.time_format().format(p.inputs[n as usize].time_ms)
        ),
        (_, Some(r), _) => format!(
            "result row [{}]: the inputs it depends on and the messages that produced it are marked ▶",
            row_text(r)
        ),
        (_, _, Some(a)) => format!("the messages of the last action (#{}) — select an input or a result row", a + 1),
        _ => "nothing ran yet — Step, then select an input or a result row".to_string(),
    };
    let mut rows_listed: BTreeSet<usize> = (0..row_count.min(MAX_ROWS)).collect();
    rows_listed.extend(lit_rows.iter().copied().take(MAX_ROWS));
    let clear = {
        let selection = selection.clone();
        Callback::from(move |_: MouseEvent| selection.set(Selection::None))
    };
    let ctx = Ctx {
        sim: &sim,
        p: &p,
        step: &step_entries,
        lit: &lit,
        lit_inputs: &lit_inputs,
        input,
        selection: &selection,
        classes: sim.flink_classes(),
        ids: RefCell::new(BTreeSet::new()),
    };
    let scenario = sim.scenario();
    let n_ops = scenario.operators.len();
    // The tree from its root, the last operator, which feeds the result; without operators each
    // source feeds the result.
    let roots: Vec<NodeInput> = match n_ops {
        0 => (0..scenario.sources.len()).map(NodeInput::Source).collect(),
        n => vec![NodeInput::Operator(n - 1)],
    };
    let into_sink = html! {
        <>
            { for roots.iter().map(|&r| html! { <>{ ctx.subtree(r) }{ ctx.edge(r, None, None) }</> }) }
            { sink_box(&sim, &p, &rows_listed, &lit_rows, row, &|s| select(&selection, s)) }
        </>
    };
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
            <ol class="flow-diagram">{ into_sink }</ol>
        </section>
    }
}

/// A click that selects `s`, or clears it when it is already selected.
fn select(selection: &UseStateHandle<Selection>, s: Selection) -> Callback<MouseEvent> {
    let selection = selection.clone();
    Callback::from(move |_: MouseEvent| {
        selection.set(if *selection == s { Selection::None } else { s.clone() });
    })
}

/// What drawing the tree needs: the step on show, what is lit, the selection.
struct Ctx<'a> {
    sim: &'a Simulation,
    p: &'a Provenance,
    /// The trace entries of the step on show.
    step: &'a [usize],
    lit: &'a BTreeSet<usize>,
    lit_inputs: &'a BTreeSet<u32>,
    input: Option<u32>,
    selection: &'a UseStateHandle<Selection>,
    classes: Vec<&'static str>,
    /// Element ids given out (a source read twice is drawn twice; its list's id goes to the first).
    ids: RefCell<BTreeSet<String>>,
}

impl Ctx<'_> {
    /// The name of what an edge starts from: a source's or an operator's.
    fn name_of(&self, from: NodeInput) -> &str {
        let scenario = self.sim.scenario();
        match from {
            NodeInput::Source(s) => &scenario.sources[s].name,
            NodeInput::Operator(j) => &scenario.operators[j].id,
        }
    }

    /// `from` and everything above it, top to bottom, as items of the diagram's list: a source's
    /// box; an operator's input(s), the edge(s) into it and its box. A join's two inputs side by
    /// side, each edge named by its side.
    fn subtree(&self, from: NodeInput) -> Html {
        let i = match from {
            NodeInput::Source(s) => return self.source_box(s),
            NodeInput::Operator(i) => i,
        };
        let node = &self.sim.scenario().operators[i];
        let class = self.classes.get(i).copied().unwrap_or_default();
        let inputs = match node.inputs.as_slice() {
            [one] => html! { <>{ self.subtree(*one) }{ self.edge(*one, Some(i), None) }</> },
            many => html! {
                <li class="fbranches" aria-label={format!("the {} inputs of {}", many.len(), node.id)}>
                    { for many.iter().enumerate().map(|(port, &input)| {
                        let side = if many.len() == 2 { [LEFT, RIGHT][port] } else { "input" };
                        html! {
                            <ol class={classes!("flow-diagram", "fbranch", side)}>
                                { self.subtree(input) }{ self.edge(input, Some(i), Some(side)) }
                            </ol>
                        }
                    }) }
                </li>
            },
        };
        html! { <>{ inputs }{ operator_box(self.sim, i, class, self.step, self.lit) }</> }
    }

    /// The arrow from `from` into operator `to` (`None`: the result), with the messages it
    /// carried in the step on show (kind as text: `+I`, `-U`, `(true,…)`); `side` names a
    /// join's input.
    fn edge(&self, from: NodeInput, to: Option<usize>, side: Option<&'static str>) -> Html {
        let trace = self.sim.trace();
        let scenario = self.sim.scenario();
        let from_name = self.name_of(from);
        let messages: Vec<usize> = self
            .step
            .iter()
            .copied()
            .filter(|&e| {
                let entry = &trace[e];
                let sent = match from {
                    NodeInput::Source(_) => matches!(entry.event, TraceEvent::Input { .. }),
                    NodeInput::Operator(_) => matches!(entry.event, TraceEvent::Emitted { .. }),
                };
                sent && &*entry.op == from_name
            })
            .collect();
        let to_name = to.map_or("result", |t| scenario.operators[t].id.as_str());
        let port = side.map(|s| format!(" ({s} input)")).unwrap_or_default();
        let label = format!("{} message(s) from {from_name} to {to_name}{port}", messages.len());
        let more = messages.len().saturating_sub(MAX_PER_EDGE);
        // Messages appear edge after edge, down the tree.
        let depth = to.map_or(scenario.operators.len() + 1, |t| t + 1);
        html! {
            <li class="fedge" aria-label={label.clone()} data-from={from_name.to_string()} data-to={to_name.to_string()}
                data-side={side}>
                <svg class="farrow" width="24" height="100%" viewBox="0 0 24 40" preserveAspectRatio="none" role="img" aria-label={label}>
                    <line x1="12" y1="0" x2="12" y2="32" vector-effect="non-scaling-stroke" />
                    <polygon points="6,30 18,30 12,40" />
                </svg>
                <div class="fmsgs">
                    if let Some(side) = side { <span class="fport">{ format!("{side} input of {to_name}:") }</span> }
                    if messages.is_empty() { <span class="hint">{ "no message" }</span> }
                    { for messages.iter().take(MAX_PER_EDGE).enumerate().map(|(j, &e)| {
                        let m = trace[e].event.message().map(|m| (super::shown(m), kind_class(m.change))).unwrap_or_default();
                        let on = self.lit.contains(&e);
                        let delay = format!("animation-delay: {}ms", depth * 250 + j * 60);
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

    /// A source's box: its scan, and its inputs (the latest, plus those lit) as buttons.
    fn source_box(&self, s: usize) -> Html {
        let scenario = self.sim.scenario();
        let tf = self.sim.time_format();
        let source = &scenario.sources[s];
        let mine: Vec<u32> =
            (0..self.p.inputs.len() as u32).filter(|&n| self.p.inputs[n as usize].source == s).collect();
        let mut listed: BTreeSet<u32> = mine[mine.len().saturating_sub(MAX_INPUTS)..].iter().copied().collect();
        listed.extend(
            self.lit_inputs.iter().copied().filter(|n| self.p.inputs[*n as usize].source == s).take(MAX_INPUTS),
        );
        let earlier = mine.len().saturating_sub(listed.len());
        // One source keeps the list's old id; several name theirs.
        let id = if scenario.sources.len() == 1 {
            "flow-inputs".to_string()
        } else {
            format!("flow-inputs-{}", source.name)
        };
        let id = self.ids.borrow_mut().insert(id.clone()).then_some(id);
        html! {
            <li class="fnode source" data-source={source.name.clone()}>
                <div class="fhead"><span class="op-id">{ &source.name }</span><span class="op-class">{ "source" }</span></div>
                <div class="fplan">{ scan_plan(source) }</div>
                <ul class="flow-inputs" id={id} aria-label={format!("inputs of {}: select one to see what it caused", source.name)}>
                    if earlier > 0 { <li class="hint">{ format!("… {earlier} earlier inputs") }</li> }
                    { for listed.iter().map(|&n| {
                        let i = &self.p.inputs[n as usize];
                        let on = self.lit_inputs.contains(&n);
                        html! {
                            <li>
                                <button class={classes!("flow-input", kind_class(i.message.change), on.then_some("hl"))}
                                    aria-pressed={(self.input == Some(n)).to_string()}
                                    onclick={select(self.selection, Selection::Input(i.action))}>
                                    { format!("{}#{} ", if on { "▶ " } else { "" }, i.action + 1) }
                                    <span class="msg-text">{ super::shown(&i.message) }</span>
                                    <span class="when">{ format!(" {}", tf.format(i.time_ms)) }</span>
                                </button>
                            </li>
                        }
                    }) }
                    if mine.is_empty() { <li class="hint">{ "no input yet" }</li> }
                </ul>
            </li>
        }
    }
}

/// How a join's two inputs are named (`StreamingJoinOperator`'s `processElement1` / `2`).
const LEFT: &str = "left";
const RIGHT: &str = "right";

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
            { for node.spec.plan_notes().into_iter().map(|n| html! { <div class="fnote plan-note">{ n }</div> }) }
            if !changes.is_empty() {
                <ul class="fchanges" aria-label={format!("what happened in {}", node.id)}>
                    { for changes.iter().take(MAX_PER_EDGE).map(|&e| {
                        let entry = &trace[e];
                        let on = lit.contains(&e);
                        let key = entry.key_label().map(|k| format!("key {k}: ")).unwrap_or_default();
                        html! {
                            <li class={classes!(entry.event.what(), on.then_some("hl"))}>
                                { if on { "▶ " } else { "" } }{ super::shown(key) }{ super::shown(entry.event.describe(tf)) }
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
    // The listed rows only (the first ones, and those lit): up to the last of them, not every row.
    let last_listed = listed.last().copied().unwrap_or(0);
    let result: Vec<_> = sim.result().rows().take(last_listed + 1).collect();
    let row_count = sim.result().len();
    let sink = if sim.result().upsert { "upsert on the key" } else { "retract" };
    html! {
        <li class="fnode sink">
            <div class="fhead"><span class="op-id">{ "result" }</span><span class="op-class">{ sink }</span></div>
            <div class="fplan">{ sink_plan(sim.scenario()) }</div>
            <ul class="flow-rows" id="flow-rows" aria-label="result rows: select one to see the inputs it depends on">
                if row_count == 0 { <li class="hint">{ "empty" }</li> }
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
                                { if on { "▶ " } else { "" } }{ super::shown(format!("[{text}]")) }
                            </button>
                            if !depends.is_empty() { <span class="depends">{ depends }</span> }
                            if let Some(s) = stale { <div class="loss" role="note">{ s }</div> }
                            { for risks.into_iter().map(|r| html! { <div class="loss risk" role="note">{ r }</div> }) }
                            { for restarted.into_iter().map(|r| html! { <div class="loss restarted" role="note">{ r }</div> }) }
                        </li>
                    }
                }) }
                if row_count > listed.len() { <li class="hint">{ format!("… {} more rows", row_count - listed.len()) }</li> }
            </ul>
        </li>
    }
}
