//! The timeline's time range in a link (`t=FROM..TO`): the run's domain the timeline shows,
//! the range written in the scenario's own time format, read back, and checked against the
//! domain. Pure arithmetic and text, no Flink rule.
//!
//! **Form.** `FROM..TO`, each end as the scenario writes its times: an ISO-8601 date-time for a
//! date-time scenario (`2019-11-20T15:00..2019-11-21T06:30`, seconds and milliseconds only when
//! not zero, UTC), a whole number of milliseconds for a millisecond scenario (`0..1500`). Either
//! form is read for either scenario (a date-time is ms since the epoch), so a link stays valid
//! when its scenario's format is changed.
//!
//! **A range outside the run** is refused, with a message, and the timeline shows its default
//! view: the timeline's zoom and pan keep every view inside the run's domain (there is nothing
//! to draw outside it), and a link the page writes always lies inside it at the link's own
//! position, so such a range was edited by hand or belongs to another scenario. Showing it would
//! show an empty axis the user could not get back to by panning; fitting it silently would show
//! something else than the link says.

use super::time::{parse_date_time, Millis, TimeFormat};
use super::time_axis::{snap_step, Viewport, MIN_VIEW_MS};

/// The timeline's domain for a run whose marks span `from_ms..=to_ms`: a little room after the
/// last mark (a 25th of the span), ending on a round time, so that the range reads
/// `– 11-24 06:00`.
pub fn domain(from_ms: Millis, to_ms: Millis) -> Viewport {
    let pad = ((to_ms - from_ms) / 25).max(1);
    let round = snap_step(pad.saturating_mul(5));
    Viewport { from: from_ms, to: (to_ms + pad + round - 1).div_euclid(round) * round }
}

/// One end as a link writes it: `2019-11-20T15:00` (seconds and ms only when not zero), `1500`.
fn end_text(tf: TimeFormat, t: Millis) -> String {
    match tf {
        TimeFormat::DateTime => tf.format(t).replacen(' ', "T", 1),
        TimeFormat::Millis => t.to_string(),
    }
}

/// The `t=` value of a view: `2019-11-20T15:00..2019-11-21T06:30`, `0..1500`.
pub fn range_text(tf: TimeFormat, v: Viewport) -> String {
    format!("{}..{}", end_text(tf, v.from), end_text(tf, v.to))
}

const FORM: &str = "FROM..TO, each a date-time such as 2019-11-20T15:00 (UTC) or a whole number of ms, e.g. \
                    2019-11-20T15:00..2019-11-21T06:00 or 0..1500";

fn end(text: &str, which: &str) -> Result<Millis, String> {
    let t = text.trim();
    if !t.is_empty() && t.trim_start_matches('-').chars().all(|c| c.is_ascii_digit()) {
        return t.parse::<Millis>().map_err(|_| format!("t: {which} {t} is not a number of ms this page can hold"));
    }
    parse_date_time(t).map_err(|_| {
        format!("t: {which} {} is not a date-time or a whole number of ms ({FORM})", super::error::quote(t))
    })
}

/// Reads a `t=` value ([`range_text`]'s form, or either end in the other format).
///
/// # Errors
/// `t:` and the rule: not `FROM..TO`, an end that is no time, an end not after the start, a
/// range narrower than the timeline zooms ([`MIN_VIEW_MS`]).
pub fn parse_range(text: &str) -> Result<Viewport, String> {
    let Some((from, to)) = text.split_once("..") else {
        return Err(format!("t: {} is not a time range ({FORM})", super::error::quote(text)));
    };
    let (from_text, to_text) = (from.trim(), to.trim());
    let (from, to) = (end(from, "the start")?, end(to, "the end")?);
    if to <= from {
        // The ends as the link writes them (dates stay dates, never epoch ms).
        return Err(format!("t: the range must end after it starts ({to_text} is not after {from_text})"));
    }
    if to - from < MIN_VIEW_MS {
        return Err(format!(
            "t: the range is {} ms wide, narrower than the {MIN_VIEW_MS} ms the timeline shows at least",
            to - from
        ));
    }
    Ok(Viewport { from, to })
}

/// A link's range checked against the run's `domain` (see the module's note on a range outside
/// the run).
///
/// # Errors
/// `t:` and both ranges, in the scenario's time format.
pub fn check_range(range: Viewport, domain: Viewport, tf: TimeFormat) -> Result<Viewport, String> {
    if range.from < domain.from || range.to > domain.to {
        return Err(format!(
            "t: {} – {} is not within the run's time, {} – {} (the timeline shows no time outside the run)",
            tf.format(range.from),
            tf.format(range.to),
            tf.format(domain.from),
            tf.format(domain.to)
        ));
    }
    Ok(range)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Millis = 1_574_262_000_000; // 2019-11-20T15:00

    #[test]
    fn a_range_is_written_in_the_scenarios_format_and_read_back() {
        let v = Viewport { from: T0, to: T0 + 15 * 3_600_000 + 30 * 60_000 };
        assert_eq!(range_text(TimeFormat::DateTime, v), "2019-11-20T15:00..2019-11-21T06:30");
        assert_eq!(parse_range("2019-11-20T15:00..2019-11-21T06:30"), Ok(v));
        let odd = Viewport { from: T0 + 1_250, to: T0 + 61_000 };
        assert_eq!(range_text(TimeFormat::DateTime, odd), "2019-11-20T15:00:01.250..2019-11-20T15:01:01");
        assert_eq!(parse_range(&range_text(TimeFormat::DateTime, odd)), Ok(odd));
        let ms = Viewport { from: 0, to: 1_500 };
        assert_eq!(range_text(TimeFormat::Millis, ms), "0..1500");
        assert_eq!(parse_range("0..1500"), Ok(ms));
        // Either form for either scenario; an offset is converted to UTC.
        assert_eq!(parse_range(&format!("{T0}..2019-11-20T16:00:00Z")), Ok(Viewport { from: T0, to: T0 + 3_600_000 }));
    }

    #[test]
    fn a_bad_range_names_the_parameter_and_the_rule() {
        let no_dots = parse_range("2019-11-20T15:00").unwrap_err();
        assert!(no_dots.starts_with("t: '2019-11-20T15:00' is not a time range (FROM..TO, each"), "{no_dots}");
        let bad = parse_range("2019-11-20T15:00..tomorrow").unwrap_err();
        assert!(bad.starts_with("t: the end 'tomorrow' is not a date-time or a whole number of ms"), "{bad}");
        assert_eq!(parse_range("10..5").unwrap_err(), "t: the range must end after it starts (5 is not after 10)");
        assert_eq!(parse_range("10..10").unwrap_err(), "t: the range must end after it starts (10 is not after 10)");
        assert_eq!(
            parse_range("10..12").unwrap_err(),
            "t: the range is 2 ms wide, narrower than the 4 ms the timeline shows at least"
        );
        assert!(parse_range("99999999999999999999..1")
            .unwrap_err()
            .starts_with("t: the start 99999999999999999999 is not"));
    }

    #[test]
    fn a_range_outside_the_run_is_refused_with_both_ranges() {
        let domain = Viewport { from: T0, to: T0 + 86_400_000 };
        let inside = Viewport { from: T0 + 3_600_000, to: T0 + 7_200_000 };
        assert_eq!(check_range(inside, domain, TimeFormat::DateTime), Ok(inside));
        assert_eq!(check_range(domain, domain, TimeFormat::DateTime), Ok(domain));
        let late = Viewport { from: T0 + 3_600_000, to: T0 + 2 * 86_400_000 };
        assert_eq!(
            check_range(late, domain, TimeFormat::DateTime).unwrap_err(),
            "t: 2019-11-20 16:00 – 2019-11-22 15:00 is not within the run's time, 2019-11-20 15:00 – 2019-11-21 15:00 \
             (the timeline shows no time outside the run)"
        );
        assert!(check_range(Viewport { from: 0, to: 10 }, Viewport { from: 5, to: 100 }, TimeFormat::Millis).is_err());
    }

    #[test]
    fn the_domain_ends_on_a_round_time_after_a_little_room() {
        // 15:00 to 06:00 the next day: 36 min of room, ending on the next full hour... of 3 h.
        let d = domain(T0, T0 + 15 * 3_600_000);
        assert_eq!(d.from, T0);
        assert!(d.to >= T0 + 15 * 3_600_000 + 36 * 60_000, "{}", d.to - T0);
        assert_eq!(d.to % snap_step(36 * 60_000 * 5), 0);
        assert_eq!(domain(0, 0), Viewport { from: 0, to: 1 });
    }
}
