//! Expectations a scenario carries (`"expect"`), checked after a run: what each operator emits,
//! which timers it registers, deletes and fires, and the result table at the end. The CLI's
//! `check` runs them, so documentation can keep its examples honest in its own CI.
//!
//! ```json
//! "expect": {
//!   "changelog": { "outer": [["+I", [1, 1]], ["-D", [1, 1]], ["+I", [0, 1]]] },
//!   "timers": { "agg": [["registered", "u1", "2019-11-22T15:00"], ["fired", "u1", "2019-11-23T16:00"]] },
//!   "result": [[0, 1]],
//!   "stale_rows": 0
//! }
//! ```
//!
//! A changelog lists one operator's messages in order as `[kind, [values...]]`, `kind` being
//! `+I`/`-U`/`+U`/`-D`, or `true`/`false` on the legacy planner (the form of the oracle fixtures).
//! Timers list `[what, key, time]` in order, `what` one of `registered`, `deleted`, `fired`,
//! `key` the key's values joined by `", "` and `time` in ms or as a date-time. `result` lists the
//! result table's rows in order.
//!
//! `"expect": {"error": "..."}` states instead that the scenario is refused with exactly that
//! message (an invalid setting, with Flink's own message where it has one); it stands alone.

use super::error::{name, name_list, quote, ScenarioError};
use super::format::{parse_part, TimeValue};
use super::scenario::Scenario;
use super::simulation::Simulation;
use super::trace::TraceEvent;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// What a run must produce, checked by `flink-state-sim check`; or `{"error": "..."}`: the
/// scenario must be refused with exactly that message.
#[derive(Deserialize, JsonSchema, Default)]
#[serde(
    deny_unknown_fields,
    expecting = "an expect object {\"changelog\", \"timers\", \"result\", \"stale_rows\", \"error\"}"
)]
#[schemars(rename = "Expect")]
pub(crate) struct RawExpect {
    /// The scenario must be refused with exactly this message (`path: rule`).
    #[serde(default)]
    error: Option<String>,
    /// Per operator id, every message it emits, in order: `[kind, [values...]]`, kind `+I`,
    /// `-U`, `+U`, `-D` (or `true`/`false` on the legacy planner).
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Vec<(MessageKindName, Vec<serde_json::Value>)>>")]
    changelog: BTreeMap<String, Vec<(String, Vec<serde_json::Value>)>>,
    /// Per operator id, every timer event in order: `[what, key, time]`, `key` the key's values
    /// joined by `", "`.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Vec<(TimerEventName, String, TimeValue)>>")]
    timers: BTreeMap<String, Vec<(String, String, TimeValue)>>,
    /// The result table's rows at the end, in order.
    #[serde(default)]
    result: Option<Vec<Vec<serde_json::Value>>>,
    /// How many of the result table's rows are stale at the end.
    #[serde(default)]
    stale_rows: Option<usize>,
}

/// The message kinds of an expected changelog: `RowKind`'s short strings, and the legacy
/// planner's change flags.
const MESSAGE_KINDS: [&str; 6] = ["+I", "-U", "+U", "-D", "true", "false"];

/// What can happen to a timer.
const TIMER_EVENTS: [&str; 3] = ["registered", "deleted", "fired"];

/// One of [`MESSAGE_KINDS`], in the JSON Schema (read as a string, checked by [`Expect::compile`]).
struct MessageKindName;

impl JsonSchema for MessageKindName {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "MessageKind".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": MESSAGE_KINDS })
    }
}

/// One of [`TIMER_EVENTS`], in the JSON Schema (read as a string, checked by [`Expect::compile`]).
struct TimerEventName;

impl JsonSchema for TimerEventName {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "TimerEvent".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": TIMER_EVENTS })
    }
}

/// A scenario's validated expectations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expect {
    /// Operator id → its messages, as `kind[v, ...]` text in the scenario's print form.
    changelog: BTreeMap<String, Vec<(String, serde_json::Value)>>,
    /// Operator id → `(what, key, time ms)`.
    timers: BTreeMap<String, Vec<(String, String, i64)>>,
    result: Option<Vec<serde_json::Value>>,
    stale_rows: Option<usize>,
}

/// The name `expect.changelog` gives the query's output: the messages the sink receives.
pub const SINK: &str = "sink";

impl Expect {
    /// Parses the `expect` field (`raw`, its JSON text) against the scenario's operators.
    ///
    /// # Errors
    /// A [`ScenarioError`] naming the field: an unknown operator id, an unknown kind or timer event.
    pub fn compile(raw: &str, operator_ids: &[&str]) -> Result<Expect, ScenarioError> {
        let e: RawExpect = parse_part(raw, "expect")?;
        if let Some(message) = e.error {
            // Reached only when everything else loaded: the expected refusal did not happen.
            return Err(ScenarioError::new(
                "expect.error",
                format!("the scenario loads, but it expects to be refused with: {message}"),
            ));
        }
        let known = |path: String, id: &str| {
            if operator_ids.contains(&id) {
                Ok(())
            } else {
                Err(ScenarioError::new(
                    path,
                    format!("no operator {} (operators: {})", quote(id), name_list(operator_ids.iter().copied())),
                ))
            }
        };
        let mut changelog = BTreeMap::new();
        for (written, messages) in e.changelog {
            // `sink`: the messages the query's output receives, the last operator's (unless an
            // operator is named `sink`).
            let id = match operator_ids.last() {
                Some(last) if written == SINK && !operator_ids.contains(&SINK) => last.to_string(),
                _ => written.clone(),
            };
            let written = written.as_str();
            known(format!("expect.changelog.{}", name(written)), &id)?;
            if changelog.contains_key(&id) {
                return Err(ScenarioError::new(
                    format!("expect.changelog.{}", name(written)),
                    format!("the changelog of {} is given twice (sink is the last operator)", quote(&id)),
                ));
            }
            for (i, (kind, _)) in messages.iter().enumerate() {
                if !MESSAGE_KINDS.contains(&kind.as_str()) {
                    return Err(ScenarioError::new(
                        format!("expect.changelog.{}[{i}]", name(written)),
                        format!("{} is not a message kind ({})", quote(kind), MESSAGE_KINDS.join(", ")),
                    ));
                }
            }
            let messages = messages.into_iter().map(|(k, v)| (k, serde_json::Value::Array(v))).collect();
            changelog.insert(id, messages);
        }
        let mut timers = BTreeMap::new();
        for (id, events) in e.timers {
            known(format!("expect.timers.{}", name(&id)), &id)?;
            for (i, (what, _, _)) in events.iter().enumerate() {
                if !TIMER_EVENTS.contains(&what.as_str()) {
                    return Err(ScenarioError::new(
                        format!("expect.timers.{}[{i}]", name(&id)),
                        format!("{} is not a timer event ({})", quote(what), TIMER_EVENTS.join(", ")),
                    ));
                }
            }
            timers.insert(id, events.into_iter().map(|(w, k, t)| (w, k, t.ms)).collect());
        }
        Ok(Expect {
            changelog,
            timers,
            result: e.result.map(|rows| rows.into_iter().map(serde_json::Value::Array).collect()),
            stale_rows: e.stale_rows,
        })
    }

    /// Whether there is anything to check.
    pub fn is_empty(&self) -> bool {
        self.changelog.is_empty() && self.timers.is_empty() && self.result.is_none() && self.stale_rows.is_none()
    }
}

/// `kind[v, ...]` for people, e.g. `+I[1, 1]` or `true[dev1, 1]`.
fn show(kind: &str, values: &serde_json::Value) -> String {
    let values: Vec<String> = values.as_array().map_or(vec![], |vs| vs.iter().map(ToString::to_string).collect());
    format!("{kind}[{}]", values.join(", "))
}

/// The first difference between `expected` and `got`, as `path[i]: expected X, got Y`.
fn first_difference(path: &str, expected: &[String], got: &[String]) -> Option<String> {
    let i = expected.iter().zip(got).position(|(e, g)| e != g).unwrap_or(expected.len().min(got.len()));
    match (expected.get(i), got.get(i)) {
        (None, None) => None,
        (Some(e), Some(g)) => Some(format!("{path}[{i}]: expected {e}, got {g}")),
        (Some(e), None) => Some(format!("{path}[{i}]: expected {e}, got nothing more ({} in all)", got.len())),
        (None, Some(g)) => Some(format!("{path}[{i}]: expected nothing more ({i} in all), got {g}")),
    }
}

/// What checking a scenario file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// Its expectations hold.
    Passed,
    /// It loads and runs, but states no expectation.
    NothingExpected,
    /// It is refused with the message its `expect.error` states.
    RefusedAsExpected,
}

/// Checks a scenario file's text: loads it, runs it and checks its expectations, or, when it
/// expects to be refused (`expect.error`), checks that it is refused with that message.
///
/// # Errors
/// The first difference, as [`check`]; or why it did not load.
pub fn check_text(text: &str) -> Result<Checked, String> {
    let expected_error = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("expect")?.get("error")?.as_str().map(str::to_string));
    match (Scenario::from_json(text), expected_error) {
        (Err(e), Some(expected)) if e.to_string() == expected => Ok(Checked::RefusedAsExpected),
        (Err(e), Some(expected)) if e.path == "expect.error" => {
            Err(format!("expect.error: expected the scenario to be refused with {expected:?}, but it loads"))
        }
        (Err(e), Some(expected)) => Err(format!("expect.error: expected {expected:?}, got {:?}", e.to_string())),
        (Err(e), None) => Err(e.to_string()),
        (Ok(scenario), _) => {
            let nothing = scenario.expect.is_empty();
            check(scenario)?;
            Ok(if nothing { Checked::NothingExpected } else { Checked::Passed })
        }
    }
}

/// Runs `scenario` to its end (recording the whole trace) and checks its expectations.
///
/// # Errors
/// The first difference (or why the run failed), naming where: `expect.changelog.outer[2]:
/// expected -D[1, 1], got +U[1, 2]`.
pub fn check(scenario: Scenario) -> Result<(), String> {
    let expect = scenario.expect.clone();
    let mut sim = Simulation::new(scenario);
    sim.run_to_end().map_err(|e| format!("the run failed: {}", e.0))?;
    let tf = sim.time_format();
    for (id, messages) in &expect.changelog {
        let got: Vec<String> = sim
            .trace()
            .iter()
            .filter(|e| *e.op == **id)
            .filter_map(|e| match &e.event {
                TraceEvent::Emitted { message } => {
                    Some(show(message.change.label(), &serde_json::to_value(&message.row).unwrap_or_default()))
                }
                _ => None,
            })
            .collect();
        let expected: Vec<String> = messages.iter().map(|(k, v)| show(k, v)).collect();
        if let Some(d) = first_difference(&format!("expect.changelog.{}", name(id)), &expected, &got) {
            return Err(d);
        }
    }
    for (id, events) in &expect.timers {
        let got: Vec<String> = sim
            .trace()
            .iter()
            .filter(|e| *e.op == **id)
            .filter_map(|e| {
                let what = match e.event {
                    TraceEvent::TimerRegistered { .. } => "registered",
                    TraceEvent::TimerDeleted { .. } => "deleted",
                    TraceEvent::TimerFired { .. } => "fired",
                    _ => return None,
                };
                let t = e.event.timer_ms()?;
                Some(format!("{what} {} {}", e.key_text().unwrap_or_default(), tf.format(t)))
            })
            .collect();
        let expected: Vec<String> = events.iter().map(|(w, k, t)| format!("{w} {k} {}", tf.format(*t))).collect();
        if let Some(d) = first_difference(&format!("expect.timers.{}", name(id)), &expected, &got) {
            return Err(d);
        }
    }
    if let Some(rows) = &expect.result {
        let got: Vec<String> =
            sim.result().rows().map(|r| serde_json::to_value(&r.row).unwrap_or_default().to_string()).collect();
        let expected: Vec<String> = rows.iter().map(ToString::to_string).collect();
        if let Some(d) = first_difference("expect.result", &expected, &got) {
            return Err(d);
        }
    }
    if let Some(n) = expect.stale_rows {
        let got = sim.result().stale_len();
        if got != n {
            return Err(format!("expect.stale_rows: expected {n}, got {got}"));
        }
    }
    Ok(())
}

/// The `expect` block that `scenario`'s run satisfies: every operator's changelog, every timer
/// event (when there are any), the result table and its stale rows — what `flink-state-sim check
/// --draft` prints. A draft: read it against Flink's rules before keeping it in the file.
///
/// # Errors
/// Why the run failed.
pub fn observed(scenario: Scenario) -> Result<serde_json::Value, String> {
    use serde_json::{json, Map, Value};
    let mut sim = Simulation::new(scenario);
    sim.run_to_end().map_err(|e| format!("the run failed: {}", e.0))?;
    let tf = sim.time_format();
    // Times as the scenario writes them: `2019-11-22T15:00` for date-time scenarios, else ms.
    let time = |t: i64| match tf {
        super::time::TimeFormat::DateTime if t >= 0 => serde_json::Value::from(tf.format(t).replacen(' ', "T", 1)),
        _ => serde_json::Value::from(t),
    };
    let (mut changelog, mut timers) = (Map::new(), Map::new());
    for e in sim.trace() {
        let what = match &e.event {
            TraceEvent::Emitted { message } => {
                let row = serde_json::to_value(&message.row).unwrap_or_default();
                push_to(&mut changelog, &e.op, json!([message.change.label(), row]));
                continue;
            }
            TraceEvent::TimerRegistered { .. } => "registered",
            TraceEvent::TimerDeleted { .. } => "deleted",
            TraceEvent::TimerFired { .. } => "fired",
            _ => continue,
        };
        if let Some(t) = e.event.timer_ms() {
            push_to(&mut timers, &e.op, json!([what, e.key_text().unwrap_or_default(), time(t)]));
        }
    }
    let result: Vec<Value> = sim.result().rows().map(|r| serde_json::to_value(&r.row).unwrap_or_default()).collect();
    let mut out = Map::new();
    out.insert("changelog".into(), Value::Object(changelog));
    if !timers.is_empty() {
        out.insert("timers".into(), Value::Object(timers));
    }
    out.insert("result".into(), Value::Array(result));
    out.insert("stale_rows".into(), Value::from(sim.result().stale_len()));
    Ok(Value::Object(out))
}

/// Appends `item` to the array under `op` (a new one for a new operator).
fn push_to(map: &mut serde_json::Map<String, serde_json::Value>, op: &str, item: serde_json::Value) {
    if let serde_json::Value::Array(items) = map.entry(op).or_insert_with(|| serde_json::Value::Array(Vec::new())) {
        items.push(item);
    }
}
