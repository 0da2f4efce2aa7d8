//! What the page's charts draw from the metrics series ([`super::metrics`]): per operator, state
//! size (entries physically stored vs visible to reads, keys), timers (live, and registrations /
//! deletions / firings so far) and emitted rows per kind, over processing time; and time-axis
//! ticks at round intervals with labels in the scenario's [`TimeFormat`]. The page only scales
//! the points to pixels.

use super::metrics::{OperatorSample, Sample};
use super::time::{Millis, TimeFormat, DAY_MS, MINUTE_MS};
use chrono::{DateTime, Utc};

/// One line of a chart: its label and its points (processing time ms, value).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(Millis, u64)>,
}

/// One chart: a title, its lines, and the largest value on them.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub title: &'static str,
    pub series: Vec<Series>,
    pub max: u64,
}

/// One number of an operator's sample.
pub type Measure = fn(&OperatorSample) -> u64;

fn series(samples: &[Sample], op: usize, label: &str, value: impl Fn(&OperatorSample) -> u64) -> Series {
    let points = samples.iter().filter_map(|s| s.operators.get(op).map(|o| (s.time_ms, value(o)))).collect();
    Series { label: label.to_string(), points }
}

fn chart(title: &'static str, series: Vec<Series>) -> Chart {
    let max = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).max().unwrap_or(0);
    Chart { title, series, max }
}

/// The operator the charts show until one is chosen: the first, in pipeline order, whose state
/// or timers ever held anything (a stateless `Calc` first in the pipeline charts flat zeros:
/// trial 19), else the first.
pub fn default_operator(samples: &[Sample]) -> usize {
    let ops = samples.last().map_or(0, |s| s.operators.len());
    let kept = |i: usize| {
        samples.iter().any(|s| s.operators.get(i).is_some_and(|o| o.entries_stored > 0 || o.timers_registered > 0))
    };
    (0..ops).find(|&i| kept(i)).unwrap_or(0)
}

/// The three charts of operator `op`. State size: entries stored (what the state backend holds),
/// entries visible (stored minus those whose TTL expired: `NeverReturnExpired` hides them until
/// a read removes them) and keys. Timers: registered now, and the totals registered, deleted,
/// fired. Emitted rows: the totals per kind the operator emitted (only the kinds it emitted;
/// `(true,…)` / `(false,…)` on the legacy planner).
pub fn operator_charts(samples: &[Sample], op: usize) -> Vec<Chart> {
    let mut sizes = vec![
        series(samples, op, "entries stored", |o| o.entries_stored),
        series(samples, op, "entries visible", |o| o.entries_stored.saturating_sub(o.entries_expired)),
        series(samples, op, "keys", |o| o.keys),
    ];
    // The rows inside list-valued entries (SinkUpsertMaterializer's), when the operator has any.
    if samples.iter().any(|s| s.operators.get(op).is_some_and(|o| o.list_rows > 0)) {
        sizes.push(series(samples, op, "rows in state lists", |o| o.list_rows));
    }
    let state = chart("state size", sizes);
    let timers = chart(
        "timers",
        vec![
            series(samples, op, "live timers", |o| o.timers),
            series(samples, op, "registered", |o| o.timers_registered),
            series(samples, op, "deleted", |o| o.timers_deleted),
            series(samples, op, "fired", |o| o.timers_fired),
        ],
    );
    let kinds: [(&str, Measure); 6] = [
        ("+I", |o| o.emitted.insert),
        ("-U", |o| o.emitted.update_before),
        ("+U", |o| o.emitted.update_after),
        ("-D", |o| o.emitted.delete),
        ("(true,…)", |o| o.emitted.accumulate),
        ("(false,…)", |o| o.emitted.retract),
    ];
    let last = samples.last().and_then(|s| s.operators.get(op));
    let emitted = kinds
        .iter()
        .filter(|(_, f)| last.is_some_and(|o| f(o) > 0))
        .map(|(label, f)| series(samples, op, label, f))
        .collect();
    vec![state, timers, chart("emitted rows (total)", emitted)]
}

/// Ticks for a time axis over `[from, to]`: at most `max_ticks` multiples of the smallest round
/// interval that fits, each with its label. Dates are written once per day: `11-21 14:00`
/// at the first tick and where the day changes, `15:00` elsewhere (`11-21` for day steps;
/// seconds only when the interval needs them, milliseconds only on an axis shorter than 2 s). Millisecond scenarios:
/// `t = 0 ms`, then `10 ms`.
pub fn time_ticks(from: Millis, to: Millis, max_ticks: usize, tf: TimeFormat) -> Vec<(Millis, String)> {
    let span = (to - from).max(1);
    let wanted = span / max_ticks.max(1) as Millis;
    let mut step = super::time_axis::STEPS
        .iter()
        .copied()
        .find(|&s| s >= wanted)
        .unwrap_or_else(|| (wanted / DAY_MS + 1) * DAY_MS);
    if tf == TimeFormat::DateTime && step < 1000 && span >= 2000 {
        // Whole seconds on a date-time axis of two seconds or more: no `.500` ticks.
        step = 1000;
    }
    let first = from.div_euclid(step) * step + if from.rem_euclid(step) == 0 { 0 } else { step };
    let mut out = Vec::new();
    let mut t = first;
    let mut last_day = None;
    while t <= to && out.len() <= max_ticks {
        let label = match tf {
            TimeFormat::Millis if out.is_empty() => format!("t = {t} ms"),
            TimeFormat::Millis => format!("{t} ms"),
            TimeFormat::DateTime => date_label(t, step, &mut last_day),
        };
        out.push((t, label));
        t = t.saturating_add(step);
    }
    out
}

fn date_label(t: Millis, step: Millis, last_day: &mut Option<String>) -> String {
    let Some(dt) = DateTime::<Utc>::from_timestamp_millis(t) else { return format!("{t} ms") };
    let day = dt.format("%m-%d").to_string();
    let clock = if step % MINUTE_MS == 0 {
        dt.format("%H:%M").to_string()
    } else if step % 1000 == 0 {
        dt.format("%H:%M:%S").to_string()
    } else {
        dt.format("%H:%M:%S%.3f").to_string()
    };
    let new_day = last_day.as_deref() != Some(day.as_str());
    *last_day = Some(day.clone());
    match (step % DAY_MS == 0, new_day) {
        (true, _) => day,
        (false, true) => format!("{day} {clock}"),
        (false, false) => clock,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_default_operator_is_the_first_that_kept_state() {
        let sample = |stored: [u64; 3]| Sample {
            time_ms: 0,
            inputs: 0,
            result_rows: 0,
            stale_rows: 0,
            operators: stored
                .iter()
                .map(|&n| OperatorSample { entries_stored: n, ..OperatorSample::default() })
                .collect(),
        };
        assert_eq!(super::default_operator(&[]), 0);
        assert_eq!(super::default_operator(&[sample([0, 0, 0])]), 0);
        assert_eq!(super::default_operator(&[sample([0, 0, 0]), sample([0, 0, 4]), sample([0, 2, 0])]), 1);
    }

    use super::*;
    use crate::engine::time::HOUR_MS;

    #[test]
    fn ticks_are_round_and_labelled_for_people() {
        // 2019-11-20 15:00 to 2019-11-24 00:00, 5 ticks at most: every day at midnight.
        let from = 1_574_262_000_000;
        let to = 1_574_553_600_000;
        let ticks = time_ticks(from, to, 5, TimeFormat::DateTime);
        let labels: Vec<&str> = ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["11-21", "11-22", "11-23", "11-24"]);
        let hours = time_ticks(from, from + 3 * HOUR_MS, 4, TimeFormat::DateTime);
        let labels: Vec<&str> = hours.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["11-20 15:00", "16:00", "17:00", "18:00"]);
        let ms = time_ticks(0, 11, 3, TimeFormat::Millis);
        assert_eq!(ms.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>(), ["t = 0 ms", "5 ms", "10 ms"]);
        let secs = time_ticks(0, 2_000, 4, TimeFormat::DateTime);
        assert_eq!(
            secs.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>(),
            ["01-01 00:00:00", "00:00:01", "00:00:02"]
        );
    }
}
