//! The scenario's inputs on the timeline's axis: each a mark to drag (or move with ← →) to another
//! time, or, when more than [`MAX_INPUT_MARKS`] are in view, groups of them with their count.

use super::timeline::{Pointer, SOURCE_ROW_H};
use crate::engine::time::Millis;
use crate::engine::time_axis::{snap, snap_step, Scale};
use crate::engine::timeline::InputMark;
use crate::ui::state::Action;
use yew::prelude::*;

/// The most input marks in view drawn one by one (each draggable); more are drawn as groups.
const MAX_INPUT_MARKS: usize = 300;
/// The width of the axis one group of inputs covers, in px: room for its count (`2.5k`).
const GROUP_PX: f64 = 30.0;

/// A group's count as its mark writes it: `427`, `2.5k`, `30k`.
fn short_count(n: usize) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=9_999 if n % 1_000 >= 100 => format!("{:.1}k", (n / 100) as f64 / 10.0),
        _ => format!("{}k", n / 1_000),
    }
}

/// The scenario's inputs in view on the axis: each one ([`input_view`]), or, when more than
/// [`MAX_INPUT_MARKS`] are in view (a scenario of 30 000 steps drew 30 000 SVG groups, 3 s),
/// one mark per [`GROUP_PX`] of the axis with how many it holds: zoom in to move one.
/// (`30.0` px: a count of up to four characters fits before the next group.)
pub(super) fn inputs_view(
    inputs: &[InputMark],
    scenario: &crate::engine::Scenario,
    sources: &[&str],
    (scale, tf, step): (&Scale, crate::engine::time::TimeFormat, Millis),
    pointer: &Pointer,
    dispatch: &Callback<Action>,
) -> Html {
    let on_axis = |m: &&InputMark| {
        let x = scale.x(m.at_ms);
        x >= scale.left - 0.5 && x <= scale.right + 0.5
    };
    let in_view = |m: &&InputMark| m.runnable && on_axis(m);
    // Several sources: a mark goes in its source's row, named.
    let row_of = |m: &InputMark| match sources.len() {
        0 | 1 => (0, None),
        _ => (m.source, sources.get(m.source).copied()),
    };
    if inputs.iter().filter(on_axis).nth(MAX_INPUT_MARKS).is_none() {
        // The inputs time was advanced past stay drawn, greyed (trial 28: after `n` jumped past
        // two inputs their marks vanished).
        return inputs
            .iter()
            .filter(on_axis)
            .map(|m| match m.runnable {
                true => input_view(m, m.row_text(scenario), scale, tf, pointer, dispatch, step, row_of(m)),
                false => passed_input_view(m, m.row_text(scenario), scale, tf, row_of(m)),
            })
            .collect();
    }
    // (row, column) → (count, done, first ms, last ms)
    let mut groups: std::collections::BTreeMap<(usize, i64), (usize, usize, Millis, Millis)> = Default::default();
    for m in inputs.iter().filter(in_view) {
        let column = ((scale.x(m.at_ms) - scale.left) / GROUP_PX).floor() as i64;
        let g = groups.entry((row_of(m).0, column)).or_insert((0, 0, m.at_ms, m.at_ms));
        g.0 += 1;
        g.1 += usize::from(m.done);
        g.2 = g.2.min(m.at_ms);
        g.3 = g.3.max(m.at_ms);
    }
    let groups: Vec<_> = groups.into_iter().collect();
    // A count is written where it fits before the next group of its row (else it is in the label).
    let next_x: Vec<Option<f64>> = (0..groups.len())
        .map(|i| groups.get(i + 1).filter(|g| g.0 .0 == groups[i].0 .0).map(|g| scale.x(g.1 .2).max(scale.left)))
        .collect();
    groups
        .into_iter()
        .zip(next_x)
        .map(|(((row, _), (count, done, first, last)), next_x)| {
            let x = scale.x(first).max(scale.left);
            let count_text = short_count(count);
            let count_w = 5.5 * count_text.len() as f64;
            let count_fits = next_x.is_none_or(|n| n - x >= count_w + 8.0);
            let dy = SOURCE_ROW_H * row as f64;
            let class = if done == count { "input group done" } else { "input group upcoming" };
            let from = match sources.len() {
                0 | 1 => String::new(),
                _ => format!(" from {}", sources.get(row).copied().unwrap_or_default()),
            };
            let when = if first == last {
                format!("at {}", tf.format(first))
            } else {
                format!("from {} to {}", tf.format(first), tf.format(last))
            };
            let label = format!("{count} inputs{from} {when} ({done} done): zoom in to move one");
            html! {
                <g class={class} data-count={count.to_string()} role="img" aria-label={label.clone()}>
                    <text x={format!("{x:.1}")} y={format!("{:.1}", 49.0 + dy)} text-anchor="middle">{ "▾" }</text>
                    if count_fits {
                        <text class="count" x={format!("{:.1}", x + 4.0)} y={format!("{:.1}", 40.0 + dy)}>{ count_text }</text>
                    }
                    <title>{ label }</title>
                </g>
            }
        })
        .collect()
}

/// What an input mark is: `input step 2, (true,u1) from users at 2019-11-20 16:00`.
fn input_label(m: &InputMark, row_text: &str, source: Option<&str>, tf: crate::engine::time::TimeFormat) -> String {
    let from = source.map(|s| format!(" from {s}")).unwrap_or_default();
    format!("input step {}, {row_text}{from} at {}", m.step + 1, tf.format(m.at_ms))
}

/// An input time was advanced past (`n`, advance by): not run, and it cannot run from here; a
/// mark to see, not to drag.
fn passed_input_view(
    m: &InputMark,
    row_text: String,
    scale: &Scale,
    tf: crate::engine::time::TimeFormat,
    (row, source): (usize, Option<&str>),
) -> Html {
    let x = scale.x(m.at_ms);
    let dy = SOURCE_ROW_H * row as f64;
    let label = format!(
        "{}: not run — time was advanced past it (◀ Back or Reset to run it)",
        input_label(m, &row_text, source, tf)
    );
    html! {
        <g class="input passed" key={m.step.to_string()} data-step={m.step.to_string()} data-at={tf.format(m.at_ms)}
            role="img" aria-label={label.clone()} data-source={source.map(str::to_string)}>
            <text x={format!("{x:.1}")} y={format!("{:.1}", 49.0 + dy)} text-anchor="middle">{ "▿" }</text>
            <title>{ label }</title>
        </g>
    }
}

/// One of the scenario's inputs on the axis: drag it (or focus it and press ← →) to move it.
#[allow(clippy::too_many_arguments)]
fn input_view(
    m: &InputMark,
    // Its row in Flink's print format.
    row_text: String,
    scale: &Scale,
    tf: crate::engine::time::TimeFormat,
    pointer: &Pointer,
    dispatch: &Callback<Action>,
    step: Millis,
    // Its row on the axis (its source's) and the source's name when there are several.
    (row, source): (usize, Option<&str>),
) -> Html {
    let x = scale.x(m.at_ms);
    let dy = SOURCE_ROW_H * row as f64;
    let (class, glyph, state) =
        if m.done { ("input done", "▾", "done") } else { ("input upcoming", "▿", "upcoming") };
    let index = m.step as usize;
    let at = m.at_ms;
    let on_down = pointer.on_input_start.reform(move |e: PointerEvent| (e, index, at));
    let nudge = snap_step(step);
    let dispatch = dispatch.clone();
    let on_key = Callback::from(move |e: KeyboardEvent| {
        let by = match e.key().as_str() {
            "ArrowLeft" => -nudge,
            "ArrowRight" => nudge,
            _ => return,
        };
        e.prevent_default();
        dispatch.emit(Action::MoveInput { step: index, at_ms: snap(at + by, nudge), done: true });
    });
    let label = format!("{} ({state}): drag it, or press ← → to move it", input_label(m, &row_text, source, tf));
    html! {
        <g class={classes!(class, "timeline-keys")} key={m.step.to_string()} data-step={m.step.to_string()} data-at={tf.format(m.at_ms)}
            tabindex="0" role="slider" aria-label={label.clone()} aria-valuetext={tf.format(m.at_ms)}
            onpointerdown={on_down} onkeydown={on_key} data-source={source.map(str::to_string)}>
            <rect class="hit" x={format!("{:.1}", x - 9.0)} y={format!("{:.1}", 32.0 + dy)} width="18" height="22" />
            <text x={format!("{x:.1}")} y={format!("{:.1}", 49.0 + dy)} text-anchor="middle">{ glyph }</text>
            <title>{ label }</title>
        </g>
    }
}
