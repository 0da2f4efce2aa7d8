//! Seeded workloads: a scenario's input described as a generator instead of (or after) explicit
//! steps, for what-if runs of millions of events.
//!
//! The generator is lazy (one event at a time, never a list of steps) and deterministic across
//! platforms: one seeded PCG-64 (`rand_pcg::Pcg64Mcg`, a fixed algorithm), draws made in a fixed
//! order, integer ranges drawn as `u64` (never `usize`), and the Zipf sampler's logarithms and
//! exponentials from the `libm` crate (the same code natively and in wasm, whatever the
//! platform's math library does).
//!
//! Event `i` (0-based) arrives at `start + i × 1000 / rate` ms. Its key is, with probability
//! `returning.share`, a new key that will come back once, `returning.after` later (an idle gap:
//! what makes expiry visible); with probability `new_keys`, a new key seen once; otherwise a key
//! of the population of `keys` drawn uniformly or by Zipf's law (rank 1 the most frequent). A
//! returning key takes the first event slot at or after its return time, so the workload has
//! exactly `events` events and its times stay on the rate's grid.

use super::error::{quote, serde_message, ScenarioError};
use super::format::parse_part;
use super::row::{DataType, Row, Value};
use super::scenario::Source;
use super::symbol::Sym;
use super::time::{check_time, Millis};
use super::zipf::ZipfSampler;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::{BTreeMap, VecDeque};

mod feed;

/// The largest key population.
pub const MAX_KEYS: u64 = 10_000_000;
/// The most events a workload may have.
pub const MAX_EVENTS: u64 = 1_000_000_000;
/// The longest `key_prefix`, in characters. Every STRING key the generator makes is the prefix
/// and a number, and each distinct key is kept (cached and interned) while the run lasts: a
/// 10 000-character prefix on a million keys asked for 10 GB. The only generated text that grows
/// with events or keys; constants and `one_of` values are made once.
pub const MAX_KEY_PREFIX_CHARS: usize = 64;

/// A seeded generator of `+I` rows, run after the steps: the same seed gives the same events
/// natively and in the browser.
#[derive(Deserialize, JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a workload object {\"seed\", \"events\" or \"duration\", \"rate\", \"keys\", ...}"
)]
#[schemars(rename = "Workload")]
// Exactly one of `events` and `duration` (checked in `Workload::compile`).
#[schemars(extend("oneOf" = [
    { "required": ["events"], "properties": { "duration": false } },
    { "required": ["duration"], "properties": { "events": false } }
]))]
pub(crate) struct RawWorkload {
    /// The generator's seed.
    seed: u64,
    /// How many events (1 to 1 000 000 000); or give `duration`.
    #[serde(default)]
    events: Option<u64>,
    /// For how long events are generated (`duration × rate` events); or give `events`.
    #[serde(default)]
    duration: Option<super::format::DurationValue>,
    /// Events per second of processing time (default 1000): event `i` arrives at
    /// `start + i × 1000 / rate` ms.
    #[serde(default = "default_rate")]
    rate: u64,
    /// The first event's time (default: the time the steps reach).
    #[serde(default)]
    start: Option<super::format::TimeValue>,
    /// The population of regular keys (1 to 10 000 000).
    keys: u64,
    /// The source column the key goes into: a STRING column gets `key_prefix` + the key's
    /// number, an INT or BIGINT column the number (one source; with several, each of
    /// `sources` names its own).
    #[serde(default)]
    key_column: Option<String>,
    /// The prefix of STRING keys (at most 64 characters, `MAX_KEY_PREFIX_CHARS`).
    #[serde(default)]
    #[schemars(length(max = 64))]
    key_prefix: Option<String>,
    /// How keys are drawn: `"uniform"` (default) or `{"zipf": s}`, rank `k` with probability
    /// proportional to `1 / k^s`.
    #[serde(default)]
    #[schemars(with = "Option<RawDistribution>")]
    distribution: Option<Box<serde_json::value::RawValue>>,
    /// The share of events (0 to 1) whose key was never seen before and is not seen again.
    #[serde(default)]
    new_keys: f64,
    /// Keys that come back once after an idle gap.
    #[serde(default)]
    returning: Option<RawReturning>,
    /// One generator per source column other than `key_column`; every column needs one.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawColumnGenerator>")]
    columns: BTreeMap<String, Box<serde_json::value::RawValue>>,
    /// Events for several sources (a join's inputs), each with its share of the events, its key
    /// column and its columns' generators; the keys are drawn from one population.
    #[serde(default)]
    sources: Option<Vec<feed::RawFeed>>,
}

/// Reads one enum-valued field (`raw`, its JSON text) as `T`; a value that is not one of its forms
/// gets `expecting` and the value found, not serde's "expected value".
pub(crate) fn parse_form<T: serde::de::DeserializeOwned>(
    raw: &serde_json::value::RawValue,
    path: &str,
    expecting: &str,
) -> Result<T, ScenarioError> {
    serde_json::from_str(raw.get()).map_err(|e| {
        let message = if e.is_syntax() || e.to_string().starts_with("expected value") {
            format!("expected {expecting}, found {}", quote(raw.get()))
        } else {
            serde_message(&e)
        };
        ScenarioError::new(format!("workload.{path}"), message)
    })
}

fn default_rate() -> u64 {
    1000
}

/// How population keys are drawn.
#[derive(Deserialize, JsonSchema, Default, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[schemars(rename = "Distribution")]
enum RawDistribution {
    /// Every key equally likely.
    #[default]
    Uniform,
    /// Rank `k` drawn with probability proportional to `1 / k^s`, `s` in (0, 100].
    Zipf(f64),
}

/// `{"share": p, "after": D}`: the share of events whose key is new and comes back once, `D`
/// later (at the first event slot at or after that time).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "{\"share\": number, \"after\": duration}")]
#[schemars(rename = "Returning")]
struct RawReturning {
    /// The share of events (0 to 1; with `new_keys` at most 1).
    share: f64,
    /// The idle gap before the key returns.
    after: super::format::DurationValue,
}

/// How a source column is filled.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[schemars(rename = "ColumnGenerator")]
pub(crate) enum RawColumnGenerator {
    /// The event's processing time, ms (a BIGINT column).
    Proctime,
    /// The event's index, from 0 (a BIGINT column).
    Sequence,
    /// The same value in every event.
    Constant(serde_json::Value),
    /// A whole number drawn uniformly from `[lo, hi]`.
    Uniform([i64; 2]),
    /// One of the values, drawn uniformly.
    OneOf(Vec<serde_json::Value>),
}

/// How a non-key column is filled.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ColumnGenerator {
    Proctime,
    Sequence,
    Constant(Value),
    Uniform(i64, i64),
    OneOf(Vec<Value>),
}

/// How population keys are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Distribution {
    Uniform,
    Zipf(ZipfSampler),
}

/// A validated workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub seed: u64,
    pub events: u64,
    /// Events per second.
    pub rate: u64,
    /// Processing time of the first event, ms.
    pub start_ms: Millis,
    /// Whether `start` was written as a date-time (the scenario then shows date-times).
    pub start_written_as_date_time: bool,
    pub keys: u64,
    key_prefix: String,
    distribution: Distribution,
    new_keys: f64,
    returning: Option<(f64, Millis)>,
    /// The sources fed, with their shares of the events.
    feeds: Vec<feed::Feed>,
}

impl Workload {
    /// Processing time of event `i`.
    pub fn time_of(&self, i: u64) -> Millis {
        // i <= MAX_EVENTS (10^9), so i × 1000 fits a u64.
        let offset = i.saturating_mul(1000) / self.rate;
        self.start_ms.saturating_add(i64::try_from(offset).unwrap_or(Millis::MAX))
    }

    /// Processing time of the last event.
    pub fn end_ms(&self) -> Millis {
        self.time_of(self.events.saturating_sub(1))
    }

    /// Parses and validates the `workload` field (`raw`, its JSON text) against the source's
    /// columns; `after_ms` is the time the explicit steps reach (the default start).
    ///
    /// # Errors
    /// A [`ScenarioError`] naming the field and the rule.
    pub fn compile(raw: &str, sources: &[Source], after_ms: Millis) -> Result<Workload, ScenarioError> {
        let w: RawWorkload = parse_part(raw, "workload")?;
        let err = |field: &str, msg: String| ScenarioError::new(format!("workload.{field}"), msg);
        if w.rate == 0 || w.rate > 1_000_000_000 {
            return Err(err("rate", format!("{} events per second is outside 1 ..= 1000000000", w.rate)));
        }
        let (events, field) = match (w.events, w.duration) {
            (Some(n), None) => (n, "events"),
            (None, Some(d)) => {
                ((i128::from(d.0) * i128::from(w.rate) / 1000).clamp(0, i128::from(u64::MAX)) as u64, "duration")
            }
            _ => return Err(err("events", "give exactly one of `events` or `duration`".into())),
        };
        if events == 0 || events > MAX_EVENTS {
            let what = match field {
                "duration" => format!("at {} events per second this duration makes {events} events", w.rate),
                _ => format!("{events} events"),
            };
            return Err(err(field, format!("{what}, outside 1 ..= {MAX_EVENTS}")));
        }
        if w.keys == 0 || w.keys > MAX_KEYS {
            return Err(err("keys", format!("{} keys is outside 1 ..= {MAX_KEYS}", w.keys)));
        }
        let share = |field: &str, p: f64| {
            if (0.0..=1.0).contains(&p) {
                Ok(p)
            } else {
                Err(err(field, format!("{p} is not a share between 0 and 1")))
            }
        };
        let new_keys = share("new_keys", w.new_keys)?;
        let returning = match &w.returning {
            None => None,
            Some(r) => Some((share("returning.share", r.share)?, r.after.0)),
        };
        if new_keys + returning.map_or(0.0, |r| r.0) > 1.0 {
            return Err(err("new_keys", "new_keys + returning.share must not exceed 1".into()));
        }
        let distribution = match &w.distribution {
            None => RawDistribution::Uniform,
            Some(raw) => parse_form(raw, "distribution", "\"uniform\" or {\"zipf\": exponent}")?,
        };
        let distribution = match distribution {
            RawDistribution::Uniform => Distribution::Uniform,
            RawDistribution::Zipf(s) if s > 0.0 && s.is_finite() && s <= 100.0 => {
                Distribution::Zipf(ZipfSampler::new(w.keys as f64, s))
            }
            RawDistribution::Zipf(s) => {
                return Err(err("distribution", format!("Zipf exponent {s} is outside (0, 100]")));
            }
        };
        let fresh_max = w.keys.saturating_add(events);
        let feeds = feed::compile(&w, sources, fresh_max)?;
        if w.key_prefix.is_some() && feeds.iter().any(|f| f.key_type != DataType::String) {
            return Err(err("key_prefix", "only a STRING key column takes a prefix".into()));
        }
        if let Some(prefix) = w.key_prefix.as_deref().filter(|p| p.chars().nth(MAX_KEY_PREFIX_CHARS).is_some()) {
            return Err(err(
                "key_prefix",
                format!(
                    "{} is longer than {MAX_KEY_PREFIX_CHARS} characters (each generated key is the prefix and a number)",
                    quote(prefix)
                ),
            ));
        }
        let start_ms = match w.start {
            Some(t) => t.ms,
            None => after_ms,
        };
        let start_written_as_date_time = w.start.is_some_and(|t| t.date_time);
        let workload = Workload {
            seed: w.seed,
            events,
            rate: w.rate,
            start_ms,
            start_written_as_date_time,
            keys: w.keys,
            key_prefix: w.key_prefix.unwrap_or_default(),
            distribution,
            new_keys,
            returning,
            feeds,
        };
        check_time(workload.end_ms()).map_err(|m| err("events", format!("the last event would be at {m}")))?;
        if start_ms < after_ms {
            return Err(err("start", format!("{start_ms} ms is before {after_ms} ms, where the explicit steps end")));
        }
        Ok(workload)
    }
}

/// Where a workload's generator stands: its random state and the keys waiting to return.
#[derive(Debug, Clone)]
pub struct WorkloadCursor {
    rng: Pcg64Mcg,
    /// The next event's index.
    next: u64,
    /// The next never-seen key's number (after the population's).
    next_fresh: u64,
    /// Keys that will return: (due time ms, key), in due order.
    returns: VecDeque<(Millis, Value)>,
}

impl WorkloadCursor {
    pub fn new(w: &Workload) -> Self {
        WorkloadCursor { rng: Pcg64Mcg::seed_from_u64(w.seed), next: 0, next_fresh: w.keys, returns: VecDeque::new() }
    }

    /// Events generated so far.
    pub fn generated(&self) -> u64 {
        self.next
    }

    /// The processing time of the next event, if any remain.
    pub fn peek_time(&self, w: &Workload) -> Option<Millis> {
        (self.next < w.events).then(|| w.time_of(self.next))
    }

    fn key_value(w: &Workload, key_type: DataType, n: u64) -> Value {
        match key_type {
            // A numbered symbol: nothing stored per key (engine::symbol).
            DataType::String => Value::Str(Sym::numbered(&w.key_prefix, n)),
            _ => Value::Int(n as i64),
        }
    }

    /// The next event: (processing time ms, the source's index, row), or `None` when all were
    /// generated.
    pub fn next_event(&mut self, w: &Workload) -> Option<(Millis, usize, Row)> {
        let t = self.peek_time(w)?;
        let i = self.next;
        self.next += 1;
        // With several sources, one draw picks the event's source first.
        let feed = match w.feeds.as_slice() {
            [only] => only,
            feeds => {
                let p = self.rng.random::<f64>();
                feeds.iter().find(|f| p < f.share_end).unwrap_or(&feeds[feeds.len() - 1])
            }
        };
        let key = match self.returns.front() {
            Some((due, _)) if *due <= t => self.returns.pop_front().map(|(_, k)| k).unwrap_or(Value::Null),
            _ => {
                let p = if w.new_keys > 0.0 || w.returning.is_some() { self.rng.random::<f64>() } else { 1.0 };
                let returning = w.returning.map_or(0.0, |r| r.0);
                if p < returning + w.new_keys {
                    let key = Self::key_value(w, feed.key_type, self.next_fresh);
                    self.next_fresh += 1;
                    if let (true, Some((_, after))) = (p < returning, w.returning) {
                        self.returns.push_back((t.saturating_add(after), key));
                    }
                    key
                } else {
                    let n = match w.distribution {
                        Distribution::Uniform => self.rng.random_range(0..w.keys),
                        Distribution::Zipf(z) => z.sample(&mut self.rng) - 1,
                    };
                    Self::key_value(w, feed.key_type, n)
                }
            }
        };
        let row = feed
            .generators
            .iter()
            .map(|g| match g {
                None => key,
                Some(ColumnGenerator::Proctime) => Value::Int(t),
                Some(ColumnGenerator::Sequence) => Value::Int(i as i64),
                Some(ColumnGenerator::Constant(v)) => *v,
                Some(ColumnGenerator::Uniform(lo, hi)) => Value::Int(self.rng.random_range(*lo..=*hi)),
                Some(ColumnGenerator::OneOf(vs)) => vs[self.rng.random_range(0..vs.len() as u64) as usize],
            })
            .collect();
        Some((t, feed.source, row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::engine::row::Column;
    use crate::engine::scenario::SourceChangelog;

    fn columns() -> Vec<Source> {
        vec![Source {
            name: "src".into(),
            connector: Default::default(),
            primary_key: Vec::new(),
            columns: vec![
                Column { name: "user".into(), data_type: DataType::String },
                Column { name: "ts".into(), data_type: DataType::BigInt },
            ],
            changelog: SourceChangelog::InsertOnly,
            proctime: None,
            watermark: None,
        }]
    }

    fn workload(extra: &str) -> Workload {
        let raw = format!(
            r#"{{"seed": 7, "events": 1000, "rate": 10, "keys": 50, "key_column": "user", "key_prefix": "u",
                "columns": {{"ts": "proctime"}} {extra}}}"#
        );
        Workload::compile(&raw, &columns(), 0).unwrap()
    }

    #[test]
    fn the_same_seed_gives_the_same_events() {
        let w = workload("");
        let (mut a, mut b) = (WorkloadCursor::new(&w), WorkloadCursor::new(&w));
        for _ in 0..1000 {
            assert_eq!(a.next_event(&w), b.next_event(&w));
        }
        assert!(a.next_event(&w).is_none());
        let mut c = WorkloadCursor::new(&w);
        assert_eq!(c.next_event(&w), Some((0, 0, Row::from(vec![Value::str("u34"), Value::Int(0)]))));
        assert_eq!(w.time_of(999), 99_900, "10 events per second");
    }

    #[test]
    fn zipf_favours_the_first_ranks() {
        let w = workload(r#", "distribution": {"zipf": 1.1}"#);
        let mut cur = WorkloadCursor::new(&w);
        let mut counts = BTreeMap::new();
        while let Some((_, _, row)) = cur.next_event(&w) {
            *counts.entry(row.0[0].to_string()).or_insert(0) += 1;
        }
        assert!(counts["u0"] > counts["u1"] && counts["u1"] > counts.get("u40").copied().unwrap_or(0));
        assert!(counts["u0"] > 200, "rank 1 of 50 with s = 1.1 takes about a quarter: {}", counts["u0"]);
    }

    #[test]
    fn returning_keys_come_back_after_the_gap() {
        let w = workload(r#", "returning": {"share": 0.05, "after": "10 s"}"#);
        let mut cur = WorkloadCursor::new(&w);
        let mut first: BTreeMap<String, Vec<Millis>> = BTreeMap::new();
        while let Some((t, _, row)) = cur.next_event(&w) {
            first.entry(row.0[0].to_string()).or_default().push(t);
        }
        let fresh: Vec<&Vec<Millis>> =
            first.iter().filter(|(k, _)| k[1..].parse::<u64>().unwrap() >= 50).map(|(_, v)| v).collect();
        assert!(fresh.len() > 20, "{} returning keys", fresh.len());
        for times in fresh.iter().filter(|v| v[0] + 10_000 <= 99_900) {
            assert_eq!(times.len(), 2);
            assert!(times[1] >= times[0] + 10_000 && times[1] < times[0] + 10_100, "{times:?}");
        }
    }

    #[test]
    fn bad_workloads_name_the_field() {
        let err = |extra: &str| {
            let raw = format!(
                r#"{{"seed": 1, "events": 10, "keys": 5, "key_column": "user", "columns": {{"ts": "proctime"}} {extra}}}"#
            );
            Workload::compile(&raw, &columns(), 0).unwrap_err().to_string()
        };
        assert!(err(r#", "rate": 0"#).starts_with("workload.rate: 0 events per second"));
        assert!(err(r#", "new_keys": 1.5"#).starts_with("workload.new_keys: 1.5 is not a share"));
        assert!(err(r#", "distribution": {"zipf": -1}"#).starts_with("workload.distribution: Zipf exponent -1"));
        assert_eq!(
            err(r#", "distribution": {}"#),
            r#"workload.distribution: expected "uniform" or {"zipf": exponent}, found '{}'"#
        );
        let raw = r#"{"seed": 1, "events": 10, "keys": 5, "key_column": "user"}"#;
        assert!(Workload::compile(raw, &columns(), 0)
            .unwrap_err()
            .to_string()
            .starts_with("workload.columns: column 'ts' has no generator"));
    }
}
