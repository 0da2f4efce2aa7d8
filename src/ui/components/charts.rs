//! Charts of the engine's metrics series, per operator: state size (stored vs visible), timers
//! (live, and registrations / deletions / firings so far), emitted rows per kind, over processing
//! time, with the current processing time as a cursor. The series and the time ticks are the
//! engine's ([`crate::engine::chart`]); lines are told apart by dash pattern and legend text, not
//! only by colour. Used by the stepper (cursor at "now") and by the what-if result.

use crate::engine::chart::{default_operator, operator_charts, time_ticks, Chart};
use crate::engine::metrics::Sample;
use crate::engine::time::{Millis, TimeFormat};
use crate::engine::time_axis::range_label;
use crate::ui::state::SimHandle;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The plot's own coordinates (stretched to the chart's width): x 0..1000, y 0..100.
const W: f64 = 1000.0;
const H: f64 = 100.0;
/// At most this many time ticks (every other one is hidden on a narrow screen).
const TICKS: usize = 6;

#[derive(Properties, PartialEq, Clone)]
pub struct Props {
    pub samples: Rc<Vec<Sample>>,
    /// The operators' ids, in pipeline order.
    pub ops: Vec<String>,
    pub time_format: TimeFormat,
    /// The time axis, ms.
    pub from_ms: Millis,
    pub to_ms: Millis,
    /// Where the cursor stands (the current processing time).
    pub cursor_ms: Millis,
    /// Prefix of the element ids (two chart panels may be on the page).
    pub id: AttrValue,
    /// A "whole run" toggle: whether it is on, and what pressing it asks for.
    #[prop_or_default]
    pub whole_run: Option<(bool, Callback<bool>)>,
}

/// The charts of one operator at a time, chosen with a selector.
#[component]
pub fn ChartsPanel(props: &Props) -> Html {
    // None until the user picks one: then the engine's default (the first that kept state).
    let op = use_state(|| None::<usize>);
    let chosen = op.unwrap_or_else(|| default_operator(&props.samples)).min(props.ops.len().saturating_sub(1));
    let on_op = {
        let op = op.clone();
        Callback::from(move |e: Event| {
            let v = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|s| s.value());
            op.set(Some(v.and_then(|v| v.parse().ok()).unwrap_or(0)));
        })
    };
    let select_id = format!("{}-op", props.id);
    let charts = operator_charts(&props.samples, chosen);
    let x = |t: Millis| -> f64 {
        let span = (props.to_ms - props.from_ms).max(1) as f64;
        ((t - props.from_ms) as f64 / span * W).clamp(0.0, W)
    };
    let ticks = time_ticks(props.from_ms, props.to_ms, TICKS, props.time_format);
    // The range is written at about the precision of the ticks (no milliseconds on a day scale).
    let precision = (props.to_ms - props.from_ms) / TICKS as Millis;
    html! {
        <section class="see-charts" id={props.id.clone()} aria-label="metrics charts">
            <div class="charts-head">
                <h2>{ "Charts" }</h2>
                <label for={select_id.clone()}>{ "operator " }</label>
                <select id={select_id} onchange={on_op} aria-label="operator to chart">
                    { for props.ops.iter().enumerate().map(|(i, id)| html! {
                        <option value={i.to_string()} selected={i == chosen}>{ id }</option>
                    }) }
                </select>
                <span class="hint" id={format!("{}-range", props.id)}>{ format!("{} samples; {} – {}; cursor at {}", props.samples.len(),
                    range_label(props.time_format, props.from_ms, precision), range_label(props.time_format, props.to_ms, precision),
                    props.time_format.format(props.cursor_ms)) }</span>
                if let Some((on, toggle)) = &props.whole_run {
                    <button id={format!("{}-whole", props.id)} aria-pressed={on.to_string()}
                        onclick={let (on, toggle) = (*on, toggle.clone()); Callback::from(move |_| toggle.emit(!on))}
                        title="Show the whole run, to the last timer still pending (else the timeline's view)">
                        { "whole run" }
                    </button>
                }
            </div>
            <div class="charts">
                { for charts.iter().enumerate().map(|(c, chart)| one_chart(props, chart, c, &x, &ticks)) }
            </div>
        </section>
    }
}

/// A step line over `[from, to]`: the value holds until the next sample (the last sample before
/// the range holds at its left edge, the first after it ends the line at the right edge).
fn points(chart: &Chart, s: usize, from: Millis, to: Millis, x: &impl Fn(Millis) -> f64) -> String {
    let max = chart.max.max(1) as f64;
    let y = |v: u64| H - v as f64 / max * (H - 4.0) - 2.0;
    let all = &chart.series[s].points;
    let start = all.partition_point(|p| p.0 <= from).saturating_sub(1);
    let end = (all.partition_point(|p| p.0 <= to) + 1).min(all.len());
    let mut out = Vec::new();
    let mut prev: Option<u64> = None;
    for &(t, v) in &all[start..end] {
        if let Some(p) = prev {
            out.push(format!("{:.1},{:.1}", x(t), y(p)));
        }
        out.push(format!("{:.1},{:.1}", x(t), y(v)));
        prev = Some(v);
    }
    out.join(" ")
}

/// The value of series `s` at the cursor: the last sample at or before it.
fn value_at(chart: &Chart, s: usize, t: Millis) -> u64 {
    chart.series[s].points.iter().take_while(|p| p.0 <= t).last().map_or(0, |p| p.1)
}

fn one_chart(props: &Props, chart: &Chart, c: usize, x: &impl Fn(Millis) -> f64, ticks: &[(Millis, String)]) -> Html {
    let id = format!("{}-{c}", props.id);
    let cursor = x(props.cursor_ms);
    let pct = |v: f64| format!("{:.2}%", v / W * 100.0);
    let summary: Vec<String> = (0..chart.series.len())
        .map(|s| format!("{} {}", chart.series[s].label, value_at(chart, s, props.cursor_ms)))
        .collect();
    let label = format!("{} over processing time; at the cursor: {}", chart.title, summary.join(", "));
    html! {
        <figure class="chart" id={id.clone()}>
            <figcaption>
                <span class="chart-title">{ chart.title }</span>
                { for chart.series.iter().enumerate().map(|(s, series)| html! {
                    <span class={format!("legend s{s}")}>
                        <svg width="22" height="8" aria-hidden="true"><line x1="0" y1="4" x2="22" y2="4" /></svg>
                        { format!("{} {}", series.label, value_at(chart, s, props.cursor_ms)) }
                    </span>
                }) }
                if chart.series.is_empty() { <span class="hint">{ "nothing emitted yet" }</span> }
            </figcaption>
            <svg class="chart-svg" width="100%" height="126" role="img" aria-label={label}>
                <text class="ymax" x="3" y="11">{ chart.max.to_string() }</text>
                <svg x="0" y="14" width="100%" height="90" viewBox={format!("0 0 {W} {H}")} preserveAspectRatio="none">
                    <rect class="plot" x="0" y="0" width={W.to_string()} height={H.to_string()} />
                    { for chart.series.iter().enumerate().map(|(s, _)| html! {
                        <polyline class={format!("line s{s}")} points={points(chart, s, props.from_ms, props.to_ms, x)} vector-effect="non-scaling-stroke" />
                    }) }
                    <line class="cursor" id={format!("{id}-cursor")} x1={format!("{cursor:.1}")} x2={format!("{cursor:.1}")}
                        y1="0" y2={H.to_string()} vector-effect="non-scaling-stroke" />
                </svg>
                { for ticks.iter().enumerate().map(|(k, (t, text))| {
                    let at = x(*t);
                    let anchor = if at < W * 0.08 { "start" } else if at > W * 0.92 { "end" } else { "middle" };
                    html! {
                        <g class={classes!("tick", (k % 2 == 1).then_some("odd"))}>
                            <line x1={pct(at)} x2={pct(at)} y1="104" y2="108" />
                            <text x={pct(at)} y="121" text-anchor={anchor}>{ text }</text>
                        </g>
                    }
                }) }
            </svg>
        </figure>
    }
}

#[derive(Properties, Clone)]
pub struct SimProps {
    pub sim: SimHandle,
    pub version: u64,
    /// The time range to show (the timeline's view, ms); `None`: the scenario's run.
    #[prop_or_default]
    pub view: Option<(Millis, Millis)>,
}

impl PartialEq for SimProps {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version && self.view == other.view
    }
}

/// The stepper's charts: the series so far, over the timeline's time range (or the scenario's
/// run), the cursor at "now".
#[component]
pub fn SimCharts(props: &SimProps) -> Html {
    let whole = use_state(|| false);
    let on = *whole;
    let sim = props.sim.get();
    let scenario = sim.scenario();
    let samples = Rc::new(sim.metrics());
    let ops: Vec<String> = scenario.operators.iter().map(|n| n.id.clone()).collect();
    let (from, to) = if on {
        // The timeline's whole domain: the run, its retention horizon and every pending timer.
        let tl = crate::engine::timeline::timeline(&sim);
        (tl.from_ms, tl.to_ms.max(tl.from_ms + 1))
    } else {
        props
            .view
            .filter(|(from, to)| to > from)
            .unwrap_or((scenario.start_ms, scenario.end_ms().max(sim.now()).max(scenario.start_ms + 1)))
    };
    let toggle = Callback::from(move |on: bool| whole.set(on));
    html! {
        <ChartsPanel samples={samples} ops={ops} time_format={sim.time_format()} from_ms={from}
            to_ms={to} cursor_ms={sim.now()} id="charts" whole_run={Some((on, toggle))} />
    }
}
