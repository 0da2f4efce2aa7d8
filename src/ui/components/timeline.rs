//! The SVG timeline: one lane per (operator, key) with accesses, the `[now + min, now + max]`
//! window of the last access, cleanup timers (live, deleted, fired), clears, and state TTL.
//! The lanes come from the engine ([`crate::engine::timeline`]); this file only scales them.

use crate::engine::scenario::Retention;
use crate::engine::time::{Millis, TimeFormat};
use crate::engine::timeline::{timeline, ClearMark, Lane, TimerMark, TimerStatus};
use crate::engine::Simulation;
use yew::prelude::*;

const WIDTH: f64 = 1000.0;
const LABEL_W: f64 = 175.0;
const LANE_H: f64 = 46.0;
const AXIS_H: f64 = 26.0;

struct Scale {
    from: Millis,
    to: Millis,
}

impl Scale {
    fn x(&self, t: Millis) -> f64 {
        let span = (self.to - self.from).max(1) as f64;
        LABEL_W + 10.0 + (t - self.from) as f64 / span * (WIDTH - LABEL_W - 30.0)
    }
}

/// A short label for a time on the axis: the date-time without the year, or `11 ms`.
fn short(tf: TimeFormat, t: Millis) -> String {
    let full = tf.format(t);
    let dated = full.len() > 5 && full.as_bytes()[4] == b'-';
    match tf {
        TimeFormat::DateTime if dated => full[5..].to_string(),
        _ => full,
    }
}

/// `text` cut to `max` characters with an ellipsis, for labels in a fixed width.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(max - 1).collect::<String>())
    }
}

/// Axis ticks at round multiples (1 ms … 7 d) of the epoch, at most about six of them.
fn nice_ticks(from: Millis, to: Millis) -> Vec<Millis> {
    const STEPS: &[Millis] = &[
        1,
        2,
        5,
        10,
        20,
        50,
        100,
        200,
        500,
        1_000,
        2_000,
        5_000,
        10_000,
        30_000,
        60_000,
        300_000,
        900_000,
        1_800_000,
        3_600_000,
        10_800_000,
        21_600_000,
        43_200_000,
        86_400_000,
        172_800_000,
        604_800_000,
    ];
    let span = (to - from).max(1);
    let step = STEPS.iter().copied().find(|s| span / s <= 5).unwrap_or(span).max(1);
    let first = from.div_euclid(step) * step + if from.rem_euclid(step) == 0 { 0 } else { step };
    (0..8).map(|i| first.saturating_add(i * step)).take_while(|&t| t <= to).collect()
}

pub fn view(sim: &Simulation) -> Html {
    let tl = timeline(sim);
    let tf = sim.time_format();
    // Leave room after the last mark for its label.
    let pad = ((tl.to_ms - tl.from_ms) / 12).max(1);
    let scale = Scale { from: tl.from_ms, to: tl.to_ms + pad };
    let height = AXIS_H + LANE_H * tl.lanes.len().max(1) as f64 + 8.0;
    let ticks = nice_ticks(tl.from_ms, tl.to_ms);
    let now_x = scale.x(tl.now_ms);
    let timers = matches!(sim.scenario().retention, Retention::IdleState(r) if r.state_cleaning_enabled());
    let ttl = sim.scenario().has_state_ttl();
    html! {
        <section class="timeline">
            <h2>{ "Timeline" }<span class="legend">
                <span class="lg access">{ "● access" }</span>
                if timers {
                    <span class="lg window">{ "▭ [last access + min, + max]" }</span>
                    <span class="lg live">{ "▼ cleanup timer" }</span>
                    <span class="lg deleted">{ "✕ deleted" }</span>
                    <span class="lg fired">{ "✸ fired" }</span>
                }
                if ttl {
                    <span class="lg ttl">{ "▬ state TTL (grey: expired, still stored)" }</span>
                }
                <span class="lg upcoming">{ "▿ upcoming input" }</span>
                <span class="lg now">{ "│ now" }</span>
            </span></h2>
            <div class="scroll">
            <svg id="timeline" viewBox={format!("0 0 {WIDTH} {height}")} width="100%" preserveAspectRatio="xMinYMin meet">
                { for ticks.iter().map(|&t| { let x = scale.x(t); html! {
                    <g class="tick">
                        <line x1={x.to_string()} x2={x.to_string()} y1="18" y2={height.to_string()} />
                        <text x={x.to_string()} y="12" text-anchor="middle">{ short(tf, t) }</text>
                    </g>
                }}) }
                { for tl.lanes.iter().enumerate().map(|(i, lane)| lane_view(lane, i, &scale, tf)) }
                if tl.lanes.is_empty() {
                    <text class="empty" x={(LABEL_W + 10.0).to_string()} y={(AXIS_H + 26.0).to_string()}>
                        { "No keyed state yet: press Step." }
                    </text>
                }
                { for tl.upcoming_inputs_ms.iter().map(|&t| { let x = scale.x(t); html! {
                    <g class="upcoming">
                        <text x={x.to_string()} y="24" text-anchor="middle">{ "▿" }</text>
                        <title>{ format!("upcoming input at {}", tf.format(t)) }</title>
                    </g>
                }}) }
                <g class="now">
                    <line x1={now_x.to_string()} x2={now_x.to_string()} y1="16" y2={height.to_string()} />
                    <title>{ format!("now = {}", tf.format(tl.now_ms)) }</title>
                </g>
            </svg>
            </div>
            if tl.hidden_lanes > 0 {
                <p class="hint" id="hidden-lanes">{ format!("{} more keys touched earlier are not drawn (the {} most recently touched are)", tl.hidden_lanes, tl.lanes.len()) }</p>
            }
        </section>
    }
}

fn lane_view(lane: &Lane, i: usize, scale: &Scale, tf: TimeFormat) -> Html {
    let y = AXIS_H + LANE_H * i as f64;
    let mid = y + 18.0;
    let class = if lane.changed_last { "lane changed" } else { "lane" };
    html! {
        <g class={class} data-op={lane.op.clone()} data-key={lane.key.clone()}>
            <rect class="lane-bg" x="0" y={y.to_string()} width={WIDTH.to_string()} height={(LANE_H - 4.0).to_string()} />
            <text class="lane-label" x="6" y={(mid + 4.0).to_string()}>
                <tspan class="op">{ format!("{} ", clip(&lane.op, 16)) }</tspan>
                <tspan class="key">{ clip(&lane.key, 10) }</tspan>
                <title>{ format!("operator {}, key {}", lane.op, lane.key) }</title>
            </text>
            if let Some((lo, hi)) = lane.window {
                <rect class="window" x={scale.x(lo).to_string()} y={(mid - 9.0).to_string()}
                      width={(scale.x(hi) - scale.x(lo)).max(1.0).to_string()} height="18">
                    <title>{ format!("last access + min = {}, last access + max = {}", tf.format(lo), tf.format(hi)) }</title>
                </rect>
            }
            if let Some(ttl) = lane.ttl {
                <rect class={if ttl.expired { "ttl expired" } else { "ttl" }} x={scale.x(ttl.last_access_ms).to_string()}
                      y={(mid + 8.0).to_string()} width={(scale.x(ttl.expires_at_ms) - scale.x(ttl.last_access_ms)).max(1.0).to_string()} height="5">
                    <title>{ format!("state TTL: last write {} + ttl = {}{}", tf.format(ttl.last_access_ms), tf.format(ttl.expires_at_ms),
                        if ttl.expired { " — expired, still stored, invisible to reads" } else { "" }) }</title>
                </rect>
            }
            { for lane.accesses.iter().map(|&t| html! {
                <circle class="access" cx={scale.x(t).to_string()} cy={mid.to_string()} r="4">
                    <title>{ format!("record processed at {}", tf.format(t)) }</title>
                </circle>
            }) }
            { for lane.cleared.iter().map(|&mark| {
                let (at, label, what) = match mark {
                    ClearMark::CleanedUp { at_ms } => (at_ms, "cleaned up", "cleanup timer cleared the state (nothing emitted)"),
                    ClearMark::CountZero { at_ms } => (at_ms, "count 0", "the record count reached 0: the operator emitted the delete"),
                    ClearMark::Expired { at_ms } => (at_ms, "expired", "state TTL expired (removed when read later; nothing emitted)"),
                };
                html! {
                    <text class="cleared" x={scale.x(at).to_string()} y={(mid - 11.0).to_string()} text-anchor="middle">
                        { label }<title>{ format!("{what}, at {}", tf.format(at)) }</title>
                    </text>
                }
            }) }
            { for lane.timers.iter().zip(labelled(&lane.timers, scale, tf)).map(|(t, label)| timer_view(t, label, mid, scale, tf)) }
        </g>
    }
}

/// Width of a character of a timer's time label (10 px), in the SVG's units.
const LABEL_CHAR_W: f64 = 6.0;

/// Which timers of a lane get their time label: one that would overlap a label already placed is
/// left out (its glyph stays, its time is in its tooltip). Live and fired timers are placed
/// before deleted ones, each in time order.
fn labelled(timers: &[TimerMark], scale: &Scale, tf: TimeFormat) -> Vec<bool> {
    let mut order: Vec<usize> = (0..timers.len()).collect();
    order.sort_by_key(|&i| matches!(timers[i].status, TimerStatus::Deleted { .. }));
    let mut placed: Vec<(f64, f64)> = Vec::new();
    let mut shown = vec![false; timers.len()];
    for i in order {
        let x = scale.x(timers[i].timestamp_ms);
        let half = short(tf, timers[i].timestamp_ms).chars().count() as f64 * LABEL_CHAR_W / 2.0 + 2.0;
        if placed.iter().all(|&(lo, hi)| x + half <= lo || x - half >= hi) {
            placed.push((x - half, x + half));
            shown[i] = true;
        }
    }
    shown
}

fn timer_view(t: &TimerMark, label: bool, mid: f64, scale: &Scale, tf: TimeFormat) -> Html {
    let x = scale.x(t.timestamp_ms);
    let (class, glyph, what) = match t.status {
        TimerStatus::Live => ("timer live", "▼", "live".to_string()),
        TimerStatus::Deleted { at_ms } => ("timer deleted", "✕", format!("deleted at {}", tf.format(at_ms))),
        TimerStatus::Fired => ("timer fired", "✸", "fired: state cleared".to_string()),
    };
    let class = if t.changed_last { format!("{class} changed") } else { class.to_string() };
    html! {
        <g class={class} data-timer={tf.format(t.timestamp_ms)}>
            <text x={x.to_string()} y={(mid + 5.0).to_string()} text-anchor="middle" class="glyph">{ glyph }</text>
            if label {
                <text x={x.to_string()} y={(mid + 19.0).to_string()} text-anchor="middle" class="tlabel">{ short(tf, t.timestamp_ms) }</text>
            }
            <title>{ format!("cleanup timer {} ({}): {what}", tf.format(t.timestamp_ms),
                t.registered_at_ms.map_or("registered before the actions kept".to_string(), |r| format!("registered at {}", tf.format(r)))) }</title>
        </g>
    }
}
