//! Processing time, durations and how they are written.
//!
//! Every time in the engine is **processing time in milliseconds since the Unix epoch (UTC)**,
//! an `i64` like Java's `long` in Flink's `ProcessingTimeService`. Every duration is a number of
//! **milliseconds**. Scenarios may write times as ISO-8601 date-times (UTC) and durations in
//! Flink's own syntax (`24 h`, `1 d`, `5 min`, `300 ms`), parsed here.

use super::error::quote;
use super::format::any_ascii_case;
use chrono::{DateTime, NaiveDate, NaiveDateTime, Timelike, Utc};

/// Processing time or a duration, in milliseconds.
pub type Millis = i64;

/// The latest processing time a scenario may use: 9999-12-31T23:59:59.999Z, in ms. Times and
/// durations are bounded by it so that `now + max`, `lastAccess + ttl` and every timer stay far
/// from `i64` overflow (Java's `long` would wrap there and Flink would misbehave; a scenario that
/// needs such values is rejected instead).
pub const MAX_TIME_MS: Millis = 253_402_300_799_999;

/// The latest processing time (ms) the simulation may be advanced to at run time: a quarter of
/// `i64::MAX`, so that timers registered beyond [`MAX_TIME_MS`] (`now + max`) can still be
/// reached and adding any duration up to `MAX_TIME_MS` never overflows.
pub const MAX_RUNTIME_MS: Millis = Millis::MAX / 4;

/// The latest processing time a scenario can reach ([`MAX_TIME_MS`]), as people read it.
pub const LATEST_TIME_TEXT: &str = "9999-12-31T23:59:59.999Z";

/// Checks that a processing time is within `0..=MAX_TIME_MS`.
///
/// # Errors
/// What is wrong with it, in dates: before 1970 or after [`LATEST_TIME_TEXT`].
pub fn check_time(t: Millis) -> Result<Millis, String> {
    if t < 0 {
        Err(format!("processing time {t} ms is before 1970-01-01T00:00:00Z, where a scenario's time starts (0 ms)"))
    } else if t > MAX_TIME_MS {
        Err(format!("processing time {t} ms is after {LATEST_TIME_TEXT}, the latest time a scenario can reach"))
    } else {
        Ok(t)
    }
}

/// Checks that a duration is within `0..=MAX_TIME_MS`.
///
/// # Errors
/// What is wrong with it: negative, or longer than a scenario's whole time range.
pub fn check_duration(d: Millis) -> Result<Millis, String> {
    if d < 0 {
        Err(format!("duration {d} ms is negative"))
    } else if d > MAX_TIME_MS {
        Err(format!(
            "duration {} is longer than a scenario's whole time range (1970 to 9999, about 8,000 years)",
            format_duration(d)
        ))
    } else {
        Ok(d)
    }
}

/// Milliseconds in one minute, hour and day.
pub const MINUTE_MS: Millis = 60_000;
pub const HOUR_MS: Millis = 60 * MINUTE_MS;
pub const DAY_MS: Millis = 24 * HOUR_MS;

/// The time units of Flink's `TimeUtils.TimeUnit`, with their labels, as in
/// `flink-core/src/main/java/org/apache/flink/util/TimeUtils.java` (1.10 to 1.x; the version
/// read is commit 080cf9b0). Nanos per unit, so sub-millisecond units convert exactly.
const UNITS: &[(&str, &[&str], i128)] = &[
    ("DAYS", &["d", "day", "days"], 86_400_000_000_000),
    ("HOURS", &["h", "hour", "hours"], 3_600_000_000_000),
    ("MINUTES", &["min", "minute", "minutes"], 60_000_000_000),
    ("SECONDS", &["s", "sec", "secs", "second", "seconds"], 1_000_000_000),
    ("MILLISECONDS", &["ms", "milli", "millis", "millisecond", "milliseconds"], 1_000_000),
    ("MICROSECONDS", &["µs", "micro", "micros", "microsecond", "microseconds"], 1_000),
    ("NANOSECONDS", &["ns", "nano", "nanos", "nanosecond", "nanoseconds"], 1),
];

/// Parses a duration the way Flink's `TimeUtils.parseDuration` does, and returns it in
/// milliseconds as `Duration.toMillis()` would (sub-millisecond parts are truncated, as in Flink).
///
/// The text is a non-negative integer, optional whitespace, and an optional unit label
/// (no label means milliseconds): `"300"`, `"300 ms"`, `"5 min"`, `"24 h"`, `"1 d"`.
/// Only one number-and-unit is accepted (`"1 h 30 min"` is rejected, as in Flink).
///
/// # Errors
/// Flink's own messages: `"argument is an empty- or whitespace-only string"`,
/// `"text does not start with a number"`, numeric overflow, or an unknown unit label with the
/// list of recognized units.
pub fn parse_duration(text: &str) -> Result<Millis, String> {
    // Java's `String.trim()` strips the characters up to U+0020 only: a no-break space stays.
    let java_trim = |s: &str| s.trim_matches(|c: char| c <= ' ').to_string();
    let trimmed = java_trim(text);
    let trimmed = trimmed.as_str();
    if trimmed.is_empty() {
        return Err("argument is an empty- or whitespace-only string".into());
    }
    let digits_end = trimmed.char_indices().find(|(_, c)| !c.is_ascii_digit()).map_or(trimmed.len(), |(i, _)| i);
    let number = &trimmed[..digits_end];
    let label = java_trim(&trimmed[digits_end..]).to_lowercase();
    if number.is_empty() {
        // Flink's message, then the text it is about (and why a minus sign is refused).
        let why = if trimmed.starts_with('-') { ": a duration is never negative" } else { "" };
        return Err(format!("text does not start with a number ({}{why})", quote(trimmed)));
    }
    let value: i64 = number.parse().map_err(|_| {
        format!("The value {} cannot be re represented as 64bit number (numeric overflow).", quote(number))
    })?;
    if label.is_empty() {
        return Ok(value);
    }
    let Some((_, _, nanos)) = UNITS.iter().find(|(_, labels, _)| labels.contains(&label.as_str())) else {
        let all: Vec<String> =
            UNITS.iter().map(|(name, labels, _)| format!("{name}: ({})", labels.join(" | "))).collect();
        return Err(format!(
            "Time interval unit label {} does not match any of the recognized units: {}",
            quote(&label),
            all.join(", ")
        ));
    };
    let millis = i128::from(value) * nanos / 1_000_000;
    i64::try_from(millis).map_err(|_| format!("the duration {} overflows 64-bit milliseconds", quote(trimmed)))
}

/// What [`parse_duration`] accepts, as a JSON Schema `pattern` (ECMA-262 regex; the scenario
/// format's schema, `flink-state-sim schema`): whitespace as Java's `trim()` strips it, digits,
/// and one of the `UNITS` labels in any ASCII case. The range check is the parser's.
pub fn duration_pattern() -> String {
    let labels: Vec<String> =
        UNITS.iter().flat_map(|(_, labels, _)| labels.iter().map(|l| any_ascii_case(l))).collect();
    format!("^[\\x00- ]*[0-9]+[\\x00- ]*({})?[\\x00- ]*$", labels.join("|"))
}

/// Formats a duration in milliseconds with the highest unit that divides it exactly, as Flink's
/// `TimeUtils.formatWithHighestUnit` does: `86400000` → `"1 d"`, `300000` → `"5 min"`,
/// `1500` → `"1500 ms"`, `0` → `"0 ms"`.
pub fn format_duration(ms: Millis) -> String {
    const HIGHEST_FIRST: &[(Millis, &str)] =
        &[(DAY_MS, "d"), (HOUR_MS, "h"), (MINUTE_MS, "min"), (1_000, "s"), (1, "ms")];
    if ms == 0 {
        return "0 ms".into();
    }
    let (size, label) = HIGHEST_FIRST.iter().find(|(size, _)| ms % size == 0).copied().unwrap_or((1, "ms"));
    format!("{} {label}", ms / size)
}

/// Parses an ISO-8601 date-time into processing time (ms since the epoch).
///
/// Accepted: `2019-11-20T15:00`, `2019-11-20T15:00:00`, `2019-11-20T15:00:00.250`, the same
/// with a space instead of `T`, each read as **UTC**, and RFC 3339 with an explicit offset
/// (`2019-11-20T15:00:00Z`, `2019-11-20T23:00:00+08:00`), converted to UTC.
///
/// # Errors
/// A message that quotes the text and lists the accepted forms.
pub fn parse_date_time(text: &str) -> Result<Millis, String> {
    let t = text.trim();
    // chrono reads a leap second (`23:59:60`) as the next second; processing time has none.
    let leap = || {
        format!("{} is a leap second: processing time (Java's System.currentTimeMillis) has no leap seconds", quote(t))
    };
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        if dt.nanosecond() >= 1_000_000_000 {
            return Err(leap());
        }
        return Ok(dt.with_timezone(&Utc).timestamp_millis());
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%d %H:%M"] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(t, format) {
            if naive.nanosecond() >= 1_000_000_000 {
                return Err(leap());
            }
            return Ok(naive.and_utc().timestamp_millis());
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        if let Some(midnight) = date.and_hms_opt(0, 0, 0) {
            return Ok(midnight.and_utc().timestamp_millis());
        }
    }
    Err(format!(
        "{} is not an ISO-8601 date-time (expected e.g. 2019-11-20T15:00, 2019-11-20T15:00:00.250 \
         or 2019-11-20T15:00:00Z; times without an offset are UTC)",
        quote(t)
    ))
}

/// What [`parse_date_time`] accepts, as a JSON Schema `pattern` (ECMA-262 regex): a date, an
/// optional time of day after `T` or a space, optional seconds and fraction, an optional offset.
/// The range and calendar checks are the parser's.
pub const DATE_TIME_PATTERN: &str =
    "^\\s*[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9]{1,2}:[0-9]{1,2}(:[0-9]{1,2}(\\.[0-9]+)?)?([Zz]|[+-][0-9]{2}:[0-9]{2})?)?\\s*$";

/// How the page, the CLI and decision texts write processing times. One format per scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", try_from = "String")]
pub enum TimeFormat {
    /// `2019-11-22 15:00` (UTC; seconds and milliseconds are shown only when not zero).
    DateTime,
    /// `11 ms`, for harness-scale scenarios.
    Millis,
}

crate::string_enum!(TimeFormat, [("date-time", TimeFormat::DateTime), ("millis", TimeFormat::Millis)]);

impl TimeFormat {
    /// Formats a processing time (ms since the epoch).
    pub fn format(self, t: Millis) -> String {
        match self {
            TimeFormat::Millis => format!("{t} ms"),
            TimeFormat::DateTime => match DateTime::<Utc>::from_timestamp_millis(t) {
                Some(dt) if t % 1000 != 0 => dt.format("%Y-%m-%d %H:%M:%S%.3f").to_string(),
                Some(dt) if t % MINUTE_MS != 0 => dt.format("%Y-%m-%d %H:%M:%S").to_string(),
                Some(dt) => dt.format("%Y-%m-%d %H:%M").to_string(),
                None => format!("{t} ms"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_flink_durations() {
        assert_eq!(parse_duration("24 h"), Ok(86_400_000));
        assert_eq!(parse_duration("1 d"), Ok(86_400_000));
        assert_eq!(parse_duration("2days"), Ok(172_800_000));
        assert_eq!(parse_duration("5 min"), Ok(300_000));
        assert_eq!(parse_duration("300 ms"), Ok(300));
        assert_eq!(parse_duration("300"), Ok(300));
        assert_eq!(parse_duration(" 10 S "), Ok(10_000));
        assert_eq!(parse_duration("1500 µs"), Ok(1));
        assert_eq!(parse_duration("\t5\nmin\r"), Ok(300_000), "tabs and newlines are trimmed, as by Java");
    }

    #[test]
    fn rejects_what_flink_rejects() {
        assert_eq!(parse_duration("  "), Err("argument is an empty- or whitespace-only string".into()));
        assert_eq!(parse_duration("h"), Err("text does not start with a number ('h')".into()));
        assert_eq!(
            parse_duration(" -5 min"),
            Err("text does not start with a number ('-5 min': a duration is never negative)".into())
        );
        let err = parse_duration("1 h 30 min").unwrap_err();
        assert!(err.starts_with("Time interval unit label 'h 30 min' does not match"), "{err}");
        assert!(err.contains("MINUTES: (min | minute | minutes)"), "{err}");
        assert!(parse_duration("-5 min").is_err());
        let nbsp = parse_duration("5\u{a0}min").unwrap_err();
        assert!(nbsp.starts_with("Time interval unit label '\\u{a0}min' does not match"), "{nbsp}");
        assert!(parse_duration("99999999999999999999").unwrap_err().contains("numeric overflow"));
    }

    #[test]
    fn formats_with_highest_unit() {
        assert_eq!(format_duration(86_400_000), "1 d");
        assert_eq!(format_duration(172_800_000), "2 d");
        assert_eq!(format_duration(300_000), "5 min");
        assert_eq!(format_duration(1_500), "1500 ms");
        assert_eq!(format_duration(0), "0 ms");
    }

    #[test]
    fn parses_and_formats_date_times_in_utc() {
        let t = parse_date_time("2019-11-20T15:00").unwrap();
        assert_eq!(t, 1_574_262_000_000);
        assert_eq!(parse_date_time("2019-11-20 15:00:00"), Ok(t));
        assert_eq!(parse_date_time("2019-11-20T15:00:00Z"), Ok(t));
        assert_eq!(parse_date_time("2019-11-20T23:00:00+08:00"), Ok(t));
        assert_eq!(TimeFormat::DateTime.format(t), "2019-11-20 15:00");
        assert_eq!(TimeFormat::DateTime.format(1_574_347_472_000), "2019-11-21 14:44:32");
        assert_eq!(TimeFormat::DateTime.format(t + 5), "2019-11-20 15:00:00.005");
        assert_eq!(TimeFormat::Millis.format(11), "11 ms");
        assert!(parse_date_time("20/11/2019").unwrap_err().contains("not an ISO-8601"));
        assert!(parse_date_time("2016-12-31T23:59:60Z").unwrap_err().contains("is a leap second"));
        assert!(parse_date_time("2016-12-31T23:59:60").unwrap_err().contains("is a leap second"));
    }
}
