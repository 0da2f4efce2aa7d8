//! The timeline's time axis, as pure arithmetic the page draws: the viewport over processing time
//! (zoom, pan, following the current time), round tick steps labelled in the scenario's time
//! format (`11-21 06:00`, `t = 7 h 30 min` — never raw milliseconds), and the placement of labels
//! so that none overlaps another (the page measures each label in its font; one that does not fit
//! is elided, its mark keeps its tooltip). No Flink rule is decided here.

use super::time::{Millis, TimeFormat, DAY_MS, HOUR_MS, MINUTE_MS};
use chrono::{DateTime, Datelike, Timelike, Utc};

const SECOND_MS: Millis = 1000;

/// Tick steps (ms), in increasing order: 1-2-5 below a second, then clock units. The timeline's
/// and the charts' ([`super::chart::time_ticks`]) axes both tick at these.
pub const STEPS: &[Millis] = &[
    1,
    2,
    5,
    10,
    20,
    50,
    100,
    200,
    500,
    SECOND_MS,
    2 * SECOND_MS,
    5 * SECOND_MS,
    10 * SECOND_MS,
    15 * SECOND_MS,
    30 * SECOND_MS,
    MINUTE_MS,
    2 * MINUTE_MS,
    5 * MINUTE_MS,
    10 * MINUTE_MS,
    15 * MINUTE_MS,
    30 * MINUTE_MS,
    HOUR_MS,
    2 * HOUR_MS,
    3 * HOUR_MS,
    6 * HOUR_MS,
    12 * HOUR_MS,
    DAY_MS,
    2 * DAY_MS,
    7 * DAY_MS,
    14 * DAY_MS,
    30 * DAY_MS,
    90 * DAY_MS,
    180 * DAY_MS,
    365 * DAY_MS,
    730 * DAY_MS,
    1825 * DAY_MS,
    3650 * DAY_MS,
    36500 * DAY_MS,
];

/// The narrowest view the timeline zooms to (ms).
pub const MIN_VIEW_MS: Millis = 4;

/// A linear map from processing time (ms) to a horizontal pixel position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub from: Millis,
    pub to: Millis,
    /// The pixel positions of `from` and `to`.
    pub left: f64,
    pub right: f64,
}

impl Scale {
    /// The pixel position of `t` (outside `[left, right]` when `t` is outside the view).
    pub fn x(&self, t: Millis) -> f64 {
        let span = (self.to - self.from).max(1) as f64;
        self.left + (t - self.from) as f64 / span * (self.right - self.left)
    }
    /// The processing time at pixel `x`.
    pub fn t(&self, x: f64) -> Millis {
        let width = (self.right - self.left).max(1.0);
        self.from + ((x - self.left) / width * (self.to - self.from) as f64).round() as Millis
    }
    /// Milliseconds per pixel.
    pub fn ms_per_px(&self) -> f64 {
        (self.to - self.from) as f64 / (self.right - self.left).max(1.0)
    }
}

/// The part of processing time the timeline shows, `[from, to]` (ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewport {
    pub from: Millis,
    pub to: Millis,
}

impl Viewport {
    pub fn width(&self) -> Millis {
        self.to - self.from
    }

    /// Zoomed by `factor` (< 1 zooms in) around `anchor`, which stays where it is on screen; never
    /// narrower than [`MIN_VIEW_MS`] nor wider than `domain`, and kept inside it.
    pub fn zoom(self, factor: f64, anchor: Millis, domain: Viewport) -> Viewport {
        let anchor = anchor.clamp(self.from, self.to);
        let width =
            ((self.width() as f64 * factor).round() as Millis).clamp(MIN_VIEW_MS, domain.width().max(MIN_VIEW_MS));
        let share = (anchor - self.from) as f64 / self.width().max(1) as f64;
        let from = anchor - (width as f64 * share).round() as Millis;
        Viewport { from, to: from + width }.inside(domain)
    }

    /// Moved by `by` ms (negative: to the left), kept inside `domain`.
    pub fn pan(self, by: Millis, domain: Viewport) -> Viewport {
        Viewport { from: self.from.saturating_add(by), to: self.to.saturating_add(by) }.inside(domain)
    }

    /// The same width moved (not resized) to lie inside `domain` as far as it fits.
    pub fn inside(self, domain: Viewport) -> Viewport {
        let width = self.width().min(domain.width());
        let from = self.from.clamp(domain.from, domain.to - width);
        Viewport { from, to: from + width }
    }

    /// Follows the current time `now` by turning pages: the view itself while `now` is in its
    /// first nine tenths, else the view moved by a whole number of pages (eight tenths of its
    /// width each) so that `now` is between a tenth and nine tenths in. It depends on `now` only
    /// through the page it falls on, so ticks and labels stay put while stepping within a page.
    pub fn follow(self, now: Millis, domain: Viewport) -> Viewport {
        let w = self.width().max(1);
        if now >= self.from && now <= self.from + w * 9 / 10 {
            return self;
        }
        let page = (w * 8 / 10).max(1);
        let k = (now - self.from - w / 10).div_euclid(page);
        let from = self.from + k * page;
        Viewport { from, to: from + w }.inside(domain)
    }
}

/// A tick of the axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Tick {
    pub t: Millis,
    pub x: f64,
    pub label: String,
    /// Where the label's left edge goes, or `None` when it is elided (it would overlap another).
    pub label_left: Option<f64>,
}

/// The tick step (ms) for `scale`: the smallest round step that leaves `min_spacing` px between
/// ticks. A date-time axis wider than two seconds never ticks at fractions of a second.
pub fn tick_step(tf: TimeFormat, scale: &Scale, min_spacing: f64) -> Millis {
    let span = scale.to - scale.from;
    let wanted = scale.ms_per_px() * min_spacing;
    STEPS
        .iter()
        .copied()
        .filter(|&s| !(tf == TimeFormat::DateTime && span >= 2 * SECOND_MS && s < SECOND_MS))
        .find(|&s| s as f64 >= wanted)
        .unwrap_or(STEPS[STEPS.len() - 1])
}

/// A round step about a fifth of `step` (at least 1 ms): what dragging an input snaps to.
pub fn snap_step(step: Millis) -> Millis {
    STEPS.iter().copied().rev().find(|&s| s * 5 <= step).unwrap_or(1)
}

/// `t` rounded to the nearest multiple of `step`.
pub fn snap(t: Millis, step: Millis) -> Millis {
    let step = step.max(1);
    (t + step / 2).div_euclid(step) * step
}

/// The ticks of `scale` every `step` ms, labelled for the step (the date where it changes, or in
/// front of the first label), with labels placed by [`place_labels`] using `measure` (a label's
/// width in px) and `gap` px between labels.
pub fn ticks(tf: TimeFormat, scale: &Scale, step: Millis, gap: f64, measure: &dyn Fn(&str) -> f64) -> Vec<Tick> {
    let step = step.max(1);
    let first = scale.from.div_euclid(step) * step + if scale.from.rem_euclid(step) == 0 { 0 } else { step };
    let mut out: Vec<Tick> = Vec::new();
    let mut t = first;
    let mut previous: Option<Millis> = None;
    while t <= scale.to && out.len() < 1000 {
        let label = tick_label(tf, t, step, previous);
        out.push(Tick { t, x: scale.x(t), label, label_left: None });
        previous = Some(t);
        t = match t.checked_add(step) {
            Some(next) => next,
            None => break,
        };
    }
    let items: Vec<(f64, f64)> = out.iter().map(|tick| (tick.x, measure(&tick.label))).collect();
    for (tick, left) in out.iter_mut().zip(place_labels(&items, gap, scale.left, scale.right)) {
        tick.label_left = left;
    }
    out
}

/// The label of a tick at `t` on an axis ticking every `step` ms; `previous` is the tick before
/// it, if any (the date is written where it changes).
///
/// Date-time: `11-21` for steps of days (`2019-11-21` first and where the year changes),
/// `15:00` / `15:00:05` / `15:00:00.5` for steps of minutes, seconds, fractions (with the date
/// `11-21 ` in front first and where the day changes). Milliseconds: `t = 11 ms`, and for longer
/// steps the time in the step's units, `t = 2 s`, `t = 7 h 30 min`, `t = 3 d`.
pub fn tick_label(tf: TimeFormat, t: Millis, step: Millis, previous: Option<Millis>) -> String {
    match tf {
        TimeFormat::Millis => format!("t = {}", human_offset(t, step)),
        TimeFormat::DateTime => {
            let (Some(dt), prev) = (DateTime::<Utc>::from_timestamp_millis(t), previous) else {
                return format!("t = {}", human_offset(t, step));
            };
            let prev = prev.and_then(DateTime::<Utc>::from_timestamp_millis);
            let new_day = prev.is_none_or(|p| p.date_naive() != dt.date_naive());
            let new_year = prev.is_none_or(|p| p.year() != dt.year());
            if step >= DAY_MS {
                return if new_year { dt.format("%Y-%m-%d").to_string() } else { dt.format("%m-%d").to_string() };
            }
            let clock = if step >= MINUTE_MS {
                dt.format("%H:%M").to_string()
            } else if step >= SECOND_MS {
                dt.format("%H:%M:%S").to_string()
            } else {
                let ms = format!("{:03}", dt.nanosecond() / 1_000_000);
                let fraction = ms.trim_end_matches('0');
                format!("{}.{}", dt.format("%H:%M:%S"), if fraction.is_empty() { "0" } else { fraction })
            };
            if new_day {
                format!("{} {clock}", dt.format("%m-%d"))
            } else {
                clock
            }
        }
    }
}

/// An end of the view's range (`11-22 22:53 – 11-24 06:00`) at the precision of an axis ticking
/// every `step` ms: a date-time in minutes for steps of a minute and more (with the date, without
/// the year, as [`tick_label`] writes a first tick), seconds for steps of seconds, and the
/// fraction of a second the step needs below that (`14:44:34.1` for 100 ms); `t` is cut to that
/// precision, not rounded up. Milliseconds are written as they are, `11 ms`.
pub fn range_label(tf: TimeFormat, t: Millis, step: Millis) -> String {
    match tf {
        TimeFormat::Millis => tf.format(t),
        TimeFormat::DateTime => {
            let step = step.max(1);
            let precision = if step >= MINUTE_MS {
                MINUTE_MS
            } else if step >= SECOND_MS {
                SECOND_MS
            } else {
                [100, 10].into_iter().find(|p| step % p == 0).unwrap_or(1)
            };
            tick_label(tf, t.div_euclid(precision) * precision, step.min(precision), None)
        }
    }
}

/// `t` ms as a duration in the units of `step` and above: `11 ms`, `2 s`, `7 h 30 min`, `3 d`
/// (negative times get a `-`).
pub fn human_offset(t: Millis, step: Millis) -> String {
    const UNITS: &[(Millis, &str)] = &[(DAY_MS, "d"), (HOUR_MS, "h"), (MINUTE_MS, "min"), (SECOND_MS, "s"), (1, "ms")];
    let sign = if t < 0 { "-" } else { "" };
    let mut rest = t.unsigned_abs();
    // The smallest unit the step needs (a 500 ms step over seconds shows milliseconds).
    let smallest = UNITS.iter().map(|(u, _)| *u).find(|&u| step.unsigned_abs().is_multiple_of(u as u64)).unwrap_or(1);
    let mut parts = Vec::new();
    for &(unit, name) in UNITS {
        if unit < smallest {
            break;
        }
        let n = rest / unit as u64;
        rest %= unit as u64;
        if n > 0 {
            parts.push(format!("{n} {name}"));
        }
    }
    if parts.is_empty() {
        let name = UNITS.iter().find(|(u, _)| *u == smallest).map_or("ms", |(_, n)| n);
        return format!("0 {name}");
    }
    format!("{sign}{}", parts.join(" "))
}

/// Places labels, each `(x, width)` centred on `x` (sorted by `x`), left to right inside
/// `[left, right]` (one near an edge is moved inward), each at least `gap` px after the last one
/// placed. Returns each label's left edge, or `None` for one elided because it would overlap.
pub fn place_labels(items: &[(f64, f64)], gap: f64, left: f64, right: f64) -> Vec<Option<f64>> {
    let mut end = f64::NEG_INFINITY;
    items
        .iter()
        .map(|&(x, w)| {
            if x < left - 0.5 || x > right + 0.5 || w > right - left {
                return None;
            }
            let at = (x - w / 2.0).clamp(left, right - w);
            if at < end + gap {
                return None;
            }
            end = at + w;
            Some(at)
        })
        .collect()
}

/// [`place_labels`] with priorities: labels of priority 0 are placed first (left to right), then
/// those of priority 1 where they still fit, and so on, so an important label (a fired or live
/// timer) is never elided in favour of a minor one (a deleted timer). Items need not be sorted.
pub fn place_labels_by_priority(items: &[(f64, f64, u8)], gap: f64, left: f64, right: f64) -> Vec<Option<f64>> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| items[a].2.cmp(&items[b].2).then(items[a].0.total_cmp(&items[b].0)));
    let mut placed: Vec<(f64, f64)> = Vec::new();
    let mut out = vec![None; items.len()];
    for i in order {
        let (x, w, _) = items[i];
        if x < left - 0.5 || x > right + 0.5 || w > right - left {
            continue;
        }
        let at = (x - w / 2.0).clamp(left, right - w);
        if placed.iter().all(|&(lo, hi)| at + w + gap <= lo || at >= hi + gap) {
            placed.push((at, at + w));
            out[i] = Some(at);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::parse_date_time;

    #[test]
    fn a_label_of_higher_priority_is_placed_before_an_earlier_minor_one() {
        // Two overlapping labels: the minor one first in x loses to the important one.
        let got = place_labels_by_priority(&[(100.0, 60.0, 1), (130.0, 60.0, 0), (300.0, 60.0, 1)], 6.0, 0.0, 800.0);
        assert_eq!(got, [None, Some(100.0), Some(270.0)]);
        // Equal priorities: left to right, as place_labels.
        let same = place_labels_by_priority(&[(100.0, 60.0, 0), (130.0, 60.0, 0)], 6.0, 0.0, 800.0);
        assert_eq!(same, [Some(70.0), None]);
    }

    fn chars(s: &str) -> f64 {
        s.chars().count() as f64 * 6.5
    }

    fn scale(from: Millis, to: Millis) -> Scale {
        Scale { from, to, left: 0.0, right: 800.0 }
    }

    #[test]
    fn a_range_is_written_at_the_precision_of_its_tick_step() {
        let t = parse_date_time("2019-11-22T22:53:47.556").unwrap();
        // Steps of hours or days: minutes, never seconds or milliseconds.
        assert_eq!(range_label(TimeFormat::DateTime, t, 12 * HOUR_MS), "11-22 22:53");
        assert_eq!(range_label(TimeFormat::DateTime, t, 2 * DAY_MS), "11-22 22:53");
        assert_eq!(range_label(TimeFormat::DateTime, t, 5 * MINUTE_MS), "11-22 22:53");
        // Steps of seconds: seconds; under a second: the fraction the step needs.
        assert_eq!(range_label(TimeFormat::DateTime, t, 10 * SECOND_MS), "11-22 22:53:47");
        assert_eq!(range_label(TimeFormat::DateTime, t, 200), "11-22 22:53:47.5");
        assert_eq!(range_label(TimeFormat::DateTime, t, 20), "11-22 22:53:47.55");
        assert_eq!(range_label(TimeFormat::DateTime, t, 5), "11-22 22:53:47.556");
        // A whole second under a sub-second step keeps one decimal, as its tick does.
        let whole = parse_date_time("2019-11-21T14:44:34").unwrap();
        assert_eq!(range_label(TimeFormat::DateTime, whole, 100), "11-21 14:44:34.0");
        // Milliseconds stay as they are.
        assert_eq!(range_label(TimeFormat::Millis, 11, 1), "11 ms");
    }

    #[test]
    fn a_two_second_date_time_run_ticks_whole_seconds() {
        let t0 = parse_date_time("2019-11-20T15:00").unwrap();
        let s = scale(t0, t0 + 2_200);
        let step = tick_step(TimeFormat::DateTime, &s, 90.0);
        assert_eq!(step, 1000);
        let labels: Vec<String> =
            ticks(TimeFormat::DateTime, &s, step, 8.0, &chars).into_iter().map(|t| t.label).collect();
        assert_eq!(labels, ["11-20 15:00:00", "15:00:01", "15:00:02"]);
        // Zoomed in to a fraction of a second, fractions are ticked and written short.
        let s = scale(t0, t0 + 900);
        let step = tick_step(TimeFormat::DateTime, &s, 90.0);
        assert_eq!(step, 200);
        assert_eq!(tick_label(TimeFormat::DateTime, t0 + 500, step, Some(t0 + 400)), "15:00:00.5");
        assert_eq!(tick_label(TimeFormat::DateTime, t0 + 250, 50, Some(t0 + 200)), "15:00:00.25");
    }

    #[test]
    fn day_scale_axes_write_the_date_where_it_changes() {
        let t0 = parse_date_time("2019-11-20T00:00").unwrap();
        assert_eq!(tick_label(TimeFormat::DateTime, t0 + 6 * HOUR_MS, 6 * HOUR_MS, Some(t0)), "06:00");
        assert_eq!(tick_label(TimeFormat::DateTime, t0 + DAY_MS, 6 * HOUR_MS, Some(t0 + 18 * HOUR_MS)), "11-21 00:00");
        assert_eq!(tick_label(TimeFormat::DateTime, t0 + DAY_MS, DAY_MS, None), "2019-11-21");
        assert_eq!(tick_label(TimeFormat::DateTime, t0 + 2 * DAY_MS, DAY_MS, Some(t0 + DAY_MS)), "11-22");
    }

    #[test]
    fn millisecond_axes_use_human_units() {
        assert_eq!(tick_label(TimeFormat::Millis, 11, 1, None), "t = 11 ms");
        assert_eq!(tick_label(TimeFormat::Millis, 27_000_000, 30 * MINUTE_MS, None), "t = 7 h 30 min");
        assert_eq!(tick_label(TimeFormat::Millis, 1_500, 500, None), "t = 1 s 500 ms");
        assert_eq!(tick_label(TimeFormat::Millis, 0, HOUR_MS, None), "t = 0 h");
        assert_eq!(tick_label(TimeFormat::Millis, 2 * DAY_MS, DAY_MS, None), "t = 2 d");
    }

    #[test]
    fn labels_never_overlap() {
        let s = Scale { from: 0, to: 1000, left: 10.0, right: 410.0 };
        for step in [1, 2, 5, 10, 20, 50] {
            let ticks = ticks(TimeFormat::Millis, &s, step, 6.0, &chars);
            let placed: Vec<(f64, f64)> =
                ticks.iter().filter_map(|t| t.label_left.map(|l| (l, l + chars(&t.label)))).collect();
            assert!(!placed.is_empty());
            for w in placed.windows(2) {
                assert!(w[1].0 >= w[0].1 + 6.0, "step {step}: {w:?} overlap");
            }
            assert!(placed.iter().all(|(l, r)| *l >= 10.0 && *r <= 410.0), "inside the axis");
        }
        assert_eq!(
            place_labels(&[(0.0, 40.0), (10.0, 40.0), (100.0, 40.0)], 4.0, 0.0, 200.0),
            [Some(0.0), None, Some(80.0)]
        );
    }

    #[test]
    fn the_viewport_zooms_pans_and_turns_pages() {
        let domain = Viewport { from: 0, to: 10_000 };
        let v = Viewport { from: 0, to: 10_000 };
        let z = v.zoom(0.5, 2_000, domain);
        assert_eq!(z, Viewport { from: 1_000, to: 6_000 }, "the anchor stays at the same share of the width");
        assert_eq!(z.zoom(4.0, 3_000, domain), domain, "never wider than the domain");
        assert_eq!(z.pan(-5_000, domain), Viewport { from: 0, to: 5_000 }, "kept inside the domain");
        assert_eq!(Viewport { from: 0, to: 10 }.zoom(0.01, 5, domain).width(), MIN_VIEW_MS);
        let page = Viewport { from: 0, to: 1_000 };
        assert_eq!(page.follow(850, domain), page, "unchanged while now is in the first 9/10");
        assert_eq!(page.follow(950, domain), Viewport { from: 800, to: 1_800 }, "turned one page");
        assert_eq!(page.follow(1_650, domain), Viewport { from: 800, to: 1_800 }, "the same page");
        assert_eq!(page.follow(1_750, domain), Viewport { from: 1_600, to: 2_600 }, "the next page");
        assert_eq!(
            Viewport { from: 1_600, to: 2_600 }.follow(300, domain),
            Viewport { from: 0, to: 1_000 },
            "and back"
        );
    }

    #[test]
    fn snapping() {
        assert_eq!(snap_step(6 * HOUR_MS), HOUR_MS);
        assert_eq!(snap_step(HOUR_MS), 10 * MINUTE_MS);
        assert_eq!(snap_step(2), 1);
        assert_eq!(snap(1_234, 100), 1_200);
        assert_eq!(snap(1_250, 100), 1_300);
    }
}
