//! One lane of the timeline in SVG: the operator and key, accesses (●), the `[last access + min,
//! + max]` window, cleanup timers (▼ live, ✕ deleted, ✸ fired) with their times, clears and
//! state TTL. Labels are measured and placed so that none overlaps another
//! ([`place_labels_by_priority`]); an elided one keeps its mark and tooltip. The lane comes from the engine.

use super::measure::{clip_to, text_width};
use crate::engine::time::TimeFormat;
use crate::engine::time_axis::{place_labels_by_priority, Scale};
use crate::engine::timeline::{ClearMark, Lane, TimerMark, TimerStatus};
use yew::prelude::*;

/// How a lane is laid out: its height, the label column (0 when the label goes above the marks,
/// on narrow screens) and the font sizes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    pub lane_h: f64,
    pub label_w: f64,
    /// Where the marks' middle line is, from the lane's top.
    pub mid: f64,
}

impl Layout {
    pub fn for_width(width: f64) -> Layout {
        if width < 600.0 {
            Layout { lane_h: 58.0, label_w: 0.0, mid: 30.0 }
        } else {
            Layout { lane_h: 46.0, label_w: 170.0, mid: 18.0 }
        }
    }
}

/// The short time of a mark's label: the date-time without the year (`11-22 15:00`), or `11 ms`.
pub fn mark_label(tf: TimeFormat, t: i64) -> String {
    let full = tf.format(t);
    match tf {
        TimeFormat::DateTime if full.len() > 5 && full.as_bytes()[4] == b'-' => full[5..].to_string(),
        _ => full,
    }
}

/// Text marks of one row (labels of timers, clears), placed so none overlaps another, the lower
/// priority first (a fired or live timer's label before a deleted one's): (x, label, class,
/// tooltip, priority).
fn placed_row(marks: Vec<(f64, String, &'static str, String, u8)>, y: f64, scale: &Scale) -> Html {
    let items: Vec<(f64, f64, u8)> =
        marks.iter().map(|(x, label, _, _, priority)| (*x, text_width(label, 10), *priority)).collect();
    let placed = place_labels_by_priority(&items, 6.0, scale.left, scale.right);
    html! {
        { for marks.into_iter().zip(placed).filter_map(|((_, label, class, tip, _), left)| left.map(|left| html! {
            <text class={class} x={format!("{left:.1}")} y={y.to_string()}>{ label }<title>{ tip }</title></text>
        })) }
    }
}

/// The (possibly clipped) key label `shown`, each of the key's values in its own `<tspan>`
/// (isolated by `style.css`): a right-to-left override in one value does not flip the next.
fn key_parts(shown: &str, lane: &Lane) -> Html {
    if lane.global_key || lane.key_values.len() < 2 {
        return html! { { shown } };
    }
    let mut rest = shown;
    let mut parts = Vec::new();
    for (i, value) in lane.key_values.iter().enumerate() {
        if i > 0 {
            let Some(after) = rest.strip_prefix(", ") else { break };
            parts.push(html! { { ", " } });
            rest = after;
        }
        // The whole value, or what the clipping left of it (up to the ellipsis).
        let end = if rest.starts_with(value.as_str()) { value.len() } else { rest.find('…').unwrap_or(rest.len()) };
        parts.push(html! { <tspan class="v">{ &rest[..end] }</tspan> });
        rest = &rest[end..];
    }
    html! { <>{ for parts }{ rest }</> }
}

/// `inspect`: told when the key's label is clicked (or Enter / Space on it), to show the key in
/// the state inspector; `None` where there is no inspector.
pub fn lane_view(
    lane: &Lane,
    y: f64,
    layout: Layout,
    scale: &Scale,
    tf: TimeFormat,
    inspect: Option<Callback<()>>,
) -> Html {
    let mid = y + layout.mid;
    // Every other lane is shaded, so a lane's marks and labels read as its own where lanes are
    // dense (trial 25: a time label sat just above the next lane's "cleaned up").
    let odd = (y / layout.lane_h).round() as u64 % 2 == 1;
    let class = classes!("lane", lane.changed_last.then_some("changed"), odd.then_some("odd"));
    let (key_text, key_tip) = if lane.global_key {
        ("· all rows".to_string(), format!("operator {}, no GROUP BY: one key for all rows", lane.op))
    } else {
        (lane.key.clone(), format!("operator {}, key {}", lane.op, super::shown(&lane.key)))
    };
    // The operator and key fit the label column (or, narrow, the lane's width), key first.
    let room = if layout.label_w > 0.0 { layout.label_w - 10.0 } else { scale.right - 6.0 };
    let op = clip_to(&lane.op, (room * 0.55).max(40.0), 11);
    let key = clip_to(&key_text, (room - text_width(&format!("{op} "), 11)).max(30.0), 11);
    let label_y = if layout.label_w > 0.0 { mid + 4.0 } else { y + 13.0 };
    let width = scale.right + 14.0;
    let visible = |x: f64| x >= scale.left - 8.0 && x <= scale.right + 8.0;
    let timer_labels = lane
        .timers
        .iter()
        .map(|t| {
            let priority = u8::from(matches!(t.status, TimerStatus::Deleted { .. }));
            (scale.x(t.timestamp_ms), mark_label(tf, t.timestamp_ms), "tlabel", timer_tip(t, tf), priority)
        })
        .collect();
    let clear_labels = lane
        .cleared
        .iter()
        .map(|&mark| {
            let (at, label, what) = clear_text(mark, tf);
            // When first: an expiry's tip also says when the entry was removed (trial 28 read
            // "…; nothing emitted, at 09:00" as a second removal time).
            (scale.x(at), label.to_string(), "cleared", format!("{}: {what}", tf.format(at)), 0)
        })
        .collect();
    // A TTL span whose entry is gone stays drawn, greyed, with when and how it was removed.
    let removed_spans: Vec<Html> = lane
        .cleared
        .iter()
        .filter_map(|&mark| match mark {
            ClearMark::Expired { last_access_ms, at_ms, .. } => Some(html! {
                <rect class="ttl expired removed" x={format!("{:.1}", scale.x(last_access_ms))} y={(mid + 8.0).to_string()}
                      width={format!("{:.1}", (scale.x(at_ms) - scale.x(last_access_ms)).max(1.0))} height="5">
                    <title>{ format!("state TTL: last write {} + ttl = {} — {}", tf.format(last_access_ms), tf.format(at_ms), clear_text(mark, tf).2) }</title>
                </rect>
            }),
            _ => None,
        })
        .collect();
    html! {
        <g class={class} data-op={lane.op.clone()} data-key={lane.key.clone()} role="listitem"
            aria-label={format!("{key_tip}: {} accesses, {} timers", lane.accesses.len(), lane.timers.len())}>
            <rect class="lane-bg" x="0" y={y.to_string()} width={width.to_string()} height={(layout.lane_h - 4.0).to_string()} />
            <text class={classes!("lane-label", inspect.is_some().then_some("inspectable"))} x="6" y={label_y.to_string()}
                role={inspect.is_some().then_some("button")} tabindex={inspect.is_some().then_some("0")}
                onpointerdown={inspect.as_ref().map(|_| Callback::from(|e: PointerEvent| e.stop_propagation()))}
                onclick={inspect.clone().map(|i| i.reform(|_: MouseEvent| ()))}
                onkeydown={inspect.clone().map(|i| Callback::from(move |e: KeyboardEvent| {
                    if e.key() == "Enter" || e.key() == " " {
                        e.prevent_default();
                        e.stop_propagation();
                        i.emit(());
                    }
                }))}>
                <tspan class="op">{ format!("{op} ") }</tspan>
                <tspan class={if lane.global_key { "key global" } else { "key" }}>{ key_parts(&key, lane) }</tspan>
                <title>{ if inspect.is_some() { format!("{key_tip} — click to show its state in the state inspector") } else { key_tip.clone() } }</title>
            </text>
            <g clip-path="url(#tl-plot)">
                if let Some((lo, hi)) = lane.window {
                    <rect class="window" x={format!("{:.1}", scale.x(lo))} y={(mid - 9.0).to_string()}
                          width={format!("{:.1}", (scale.x(hi) - scale.x(lo)).max(1.0))} height="18">
                        <title>{ format!("last access + min = {}, last access + max = {}", tf.format(lo), tf.format(hi)) }</title>
                    </rect>
                }
                { for removed_spans }
                if let Some(ttl) = lane.ttl {
                    <rect class={if ttl.expired { "ttl expired" } else { "ttl" }} x={format!("{:.1}", scale.x(ttl.last_access_ms))}
                          y={(mid + 8.0).to_string()} width={format!("{:.1}", (scale.x(ttl.expires_at_ms) - scale.x(ttl.last_access_ms)).max(1.0))} height="5">
                        <title>{ format!("state TTL: last write {} + ttl = {}{}", tf.format(ttl.last_access_ms), tf.format(ttl.expires_at_ms),
                            if ttl.expired { " — expired, still stored, invisible to reads" } else { "" }) }</title>
                    </rect>
                }
                { for lane.accesses.iter().filter(|&&t| visible(scale.x(t))).map(|&t| html! {
                    <circle class="access" cx={format!("{:.1}", scale.x(t))} cy={mid.to_string()} r="4">
                        <title>{ format!("record processed at {}", tf.format(t)) }</title>
                    </circle>
                }) }
                { for lane.timers.iter().filter(|t| visible(scale.x(t.timestamp_ms))).map(|t| timer_view(t, mid, scale, tf)) }
                { placed_row(timer_labels, mid + 19.0, scale) }
                { placed_row(clear_labels, mid - 11.0, scale) }
            </g>
        </g>
    }
}

fn clear_text(mark: ClearMark, tf: TimeFormat) -> (i64, &'static str, String) {
    match mark {
        ClearMark::CleanedUp { at_ms } => {
            (at_ms, "cleaned up", "cleanup timer cleared the state (nothing emitted)".into())
        }
        ClearMark::CountZero { at_ms } => {
            (at_ms, "count 0", "the record count reached 0: the operator emitted the delete".into())
        }
        ClearMark::RowDeleted { at_ms } => {
            (at_ms, "row deleted", "the key's row was deleted: the operator emitted -D with the stored row".into())
        }
        ClearMark::Expired { at_ms, removed_at_ms, by_cleanup, .. } => {
            let how = if by_cleanup {
                "by the incremental cleanup (TtlIncrementalCleanup) while the state was accessed"
            } else {
                "by a read of the key, which found it expired (NeverReturnExpired)"
            };
            (
                at_ms,
                "expired",
                format!("state TTL expired; removed at {} {how}; nothing emitted", tf.format(removed_at_ms)),
            )
        }
    }
}

fn timer_tip(t: &TimerMark, tf: TimeFormat) -> String {
    let what = match t.status {
        TimerStatus::Live => "live".to_string(),
        TimerStatus::Deleted { at_ms } => format!("deleted at {}", tf.format(at_ms)),
        TimerStatus::Fired => "fired: state cleared".to_string(),
    };
    let registered = t
        .registered_at_ms
        .map_or("registered before the actions kept".to_string(), |r| format!("registered at {}", tf.format(r)));
    format!("cleanup timer {} ({registered}): {what}", tf.format(t.timestamp_ms))
}

fn timer_view(t: &TimerMark, mid: f64, scale: &Scale, tf: TimeFormat) -> Html {
    let x = scale.x(t.timestamp_ms);
    let (class, glyph) = match t.status {
        TimerStatus::Live => ("timer live", "▼"),
        TimerStatus::Deleted { .. } => ("timer deleted", "✕"),
        TimerStatus::Fired => ("timer fired", "✸"),
    };
    let class = if t.changed_last { format!("{class} changed") } else { class.to_string() };
    html! {
        <g class={class} data-timer={tf.format(t.timestamp_ms)}>
            <text x={format!("{x:.1}")} y={(mid + 5.0).to_string()} text-anchor="middle" class="glyph">{ glyph }</text>
            <title>{ timer_tip(t, tf) }</title>
        </g>
    }
}
