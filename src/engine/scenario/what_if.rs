//! What-if runs: the page's workload form turned into a scenario. The scenario keeps the pipeline
//! and every setting of the scenario on screen (Flink version, retention, state TTL, mini-batch)
//! and replaces its input by a seeded [`workload`](crate::engine::workload), so a user can ask
//! "what does this query's state do over a million events like mine?".
//!
//! No Flink rule lives here: the result is an ordinary scenario text, validated by
//! [`Scenario::from_json`](super::Scenario::from_json), whose errors name the `workload.*` field
//! the form shows them next to.

use super::Scenario;
use crate::engine::error::ScenarioError;
use crate::engine::row::DataType;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The workload form: the fields of a scenario's `workload` a user sets by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WhatIf {
    pub seed: u64,
    pub events: u64,
    /// Events per second of processing time.
    pub rate: u64,
    /// The population of regular keys.
    pub keys: u64,
    /// The source column the key goes into.
    pub key_column: String,
    /// `None`: keys drawn uniformly; `Some(s)`: by Zipf's law with exponent `s`.
    pub zipf: Option<f64>,
    /// The share of events whose key is seen once.
    pub new_keys: f64,
    /// The share of events whose key comes back once after `returning_after`.
    pub returning_share: f64,
    /// The idle gap of returning keys, in Flink's duration syntax (`13 h`).
    pub returning_after: String,
    /// The generators of the other source columns, as the JSON object of `workload.columns`;
    /// for a scenario of several sources, the JSON array of `workload.sources` (each source's
    /// share, key column and generators; `key_column` is then not used).
    pub columns: String,
}

/// Reads the scenario text as a JSON object (it must also be a valid scenario).
fn scenario_object(base_json: &str) -> Result<(Scenario, Map<String, Value>), ScenarioError> {
    let scenario = Scenario::from_json(base_json)?;
    let text = base_json.strip_prefix('\u{feff}').unwrap_or(base_json);
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok((scenario, object)),
        _ => Err(ScenarioError::new("scenario", "expected a JSON object")),
    }
}

/// A generator for a column of `data_type` when the scenario has no workload to take it from:
/// a few distinct values, so the rows differ without the column mattering.
fn default_generator(data_type: DataType) -> Value {
    match data_type {
        DataType::String => json!({"one_of": ["a", "b", "c"]}),
        DataType::Boolean => json!({"one_of": [true, false]}),
        DataType::Int | DataType::BigInt => json!({"uniform": [0, 1]}),
        DataType::ProcTime => json!("proctime"),
    }
}

impl WhatIf {
    /// The form prefilled for the scenario `base_json`: its workload's values when it has one;
    /// otherwise 1 M events at 10 000 per second over 100 000 keys drawn uniformly, the key in the
    /// first `STRING` column (else the first `INT` or `BIGINT` one, else the first column: a
    /// `BOOLEAN` key is refused, naming the field), the other columns from
    /// [`default_generator`].
    ///
    /// # Errors
    /// `base_json`'s own error when it is not a valid scenario.
    pub fn for_scenario(base_json: &str) -> Result<WhatIf, ScenarioError> {
        let (scenario, object) = scenario_object(base_json)?;
        let columns = &scenario.source().columns;
        let key_of = |columns: &[crate::engine::row::Column]| {
            columns
                .iter()
                .find(|c| c.data_type == DataType::String)
                .or_else(|| columns.iter().find(|c| matches!(c.data_type, DataType::Int | DataType::BigInt)))
                .or(columns.first())
                .map(|c| c.name.clone())
                .unwrap_or_default()
        };
        let key_column = key_of(columns);
        let mut form = WhatIf {
            seed: 1,
            events: 1_000_000,
            rate: 10_000,
            keys: 100_000,
            zipf: None,
            new_keys: 0.0,
            returning_share: 0.0,
            returning_after: "1 h".into(),
            columns: String::new(),
            key_column,
        };
        let generators: Map<String, Value> = columns
            .iter()
            .filter(|c| c.name != form.key_column)
            .map(|c| (c.name.clone(), default_generator(c.data_type)))
            .collect();
        form.columns = Value::Object(generators).to_string();
        if scenario.sources.len() > 1 {
            // Several sources: an equal share each, keyed on a column every source has (what a
            // join's key usually is), else each on its own first key-like column.
            let n = scenario.sources.len();
            let shared = scenario.sources[0].columns.iter().find(|c| {
                c.data_type != DataType::Boolean
                    && scenario.sources.iter().all(|s| s.columns.iter().any(|o| o.name == c.name))
            });
            let feeds: Vec<Value> = scenario
                .sources
                .iter()
                .enumerate()
                .map(|(i, source)| {
                    let key = shared.map_or_else(|| key_of(&source.columns), |c| c.name.clone());
                    let generators: Map<String, Value> = source
                        .columns
                        .iter()
                        .filter(|c| c.name != key)
                        .map(|c| (c.name.clone(), default_generator(c.data_type)))
                        .collect();
                    // The last share takes the rounding, so the shares add up to 1.
                    let share = if i + 1 == n { 1.0 - (n - 1) as f64 / n as f64 } else { 1.0 / n as f64 };
                    json!({ "source": source.name, "share": share, "key_column": key, "columns": generators })
                })
                .collect();
            form.columns = Value::Array(feeds).to_string();
        }
        let Some(Value::Object(w)) = object.get("workload") else {
            return Ok(form);
        };
        let number = |k: &str| w.get(k).and_then(Value::as_u64);
        form.seed = number("seed").unwrap_or(form.seed);
        form.events = scenario.workload.as_ref().map_or(form.events, |w| w.events);
        form.rate = number("rate").unwrap_or(1000);
        form.keys = number("keys").unwrap_or(form.keys);
        if let Some(k) = w.get("key_column").and_then(Value::as_str) {
            form.key_column = k.to_string();
        }
        form.zipf = w.get("distribution").and_then(|d| d.get("zipf")).and_then(Value::as_f64);
        form.new_keys = w.get("new_keys").and_then(Value::as_f64).unwrap_or(0.0);
        if let Some(r) = w.get("returning") {
            form.returning_share = r.get("share").and_then(Value::as_f64).unwrap_or(0.0);
            if let Some(after) = r.get("after") {
                form.returning_after = after.as_str().map_or_else(|| after.to_string(), str::to_string);
            }
        }
        if let Some(c) = w.get("columns").or(w.get("sources")) {
            form.columns = c.to_string();
        }
        Ok(form)
    }
}

/// The scenario `base_json` with its input replaced by the workload `form` describes: the
/// explicit steps, the expectations and the "what to watch" text are dropped (they describe the
/// old input), the first event comes at the base scenario's start, and times are written as the
/// base writes them. The text is validated before it is returned.
///
/// # Errors
/// `base_json`'s own error when it is not a valid scenario; `workload.columns` when
/// `form.columns` is not a JSON object; otherwise the new scenario's error, naming the
/// `workload.*` field (for example `workload.returning.share: …`).
/// The form's default key prefix: the key column's name and a dash, cut to the workload's
/// limit (`workload::MAX_KEY_PREFIX_CHARS`) so that a long column name still gives a valid form
/// (found by the fuzzer: a 68-character column name made the prefilled form invalid).
fn default_key_prefix(key_column: &str) -> String {
    let max = crate::engine::workload::MAX_KEY_PREFIX_CHARS - 1;
    format!("{}-", key_column.chars().take(max).collect::<String>())
}

pub fn what_if_scenario(base_json: &str, form: &WhatIf) -> Result<String, ScenarioError> {
    let (scenario, mut object) = scenario_object(base_json)?;
    let (columns, feeds) = match serde_json::from_str::<Value>(&form.columns) {
        Ok(Value::Object(c)) if scenario.sources.len() == 1 => (c, None),
        Ok(Value::Array(feeds)) if scenario.sources.len() > 1 => (Map::new(), Some(feeds)),
        _ if scenario.sources.len() > 1 => {
            return Err(ScenarioError::new(
                "workload.sources",
                "expected a JSON array of sources, each {\"source\", \"share\", \"key_column\", \"columns\"}",
            ))
        }
        _ => return Err(ScenarioError::new("workload.columns", "expected a JSON object of column generators")),
    };
    let key_prefix = object
        .get("workload")
        .and_then(|w| w.get("key_prefix"))
        .and_then(Value::as_str)
        .map_or_else(|| default_key_prefix(&form.key_column), str::to_string);
    let mut workload = json!({
        "seed": form.seed,
        "events": form.events,
        "rate": form.rate,
        "start": scenario.start_ms,
        "keys": form.keys,
        "key_column": form.key_column,
        "key_prefix": key_prefix,
        "distribution": match form.zipf { Some(s) => json!({"zipf": s}), None => json!("uniform") },
        "new_keys": form.new_keys,
        "columns": columns,
    });
    if let (Some(feeds), Some(w)) = (feeds, workload.as_object_mut()) {
        w.shift_remove("key_column");
        w.shift_remove("columns");
        w.insert("sources".into(), Value::Array(feeds));
    }
    // Only a STRING key column takes a prefix (an INT or BIGINT one gets the key's number).
    let string_key = match workload.get("sources").and_then(Value::as_array) {
        Some(feeds) => feeds.iter().all(|f| {
            let (source, key) =
                (f["source"].as_str().unwrap_or_default(), f["key_column"].as_str().unwrap_or_default());
            scenario
                .sources
                .iter()
                .any(|s| s.name == source && s.columns.iter().any(|c| c.name == key && c.data_type == DataType::String))
        }),
        None => scenario.source().columns.iter().any(|c| c.name == form.key_column && c.data_type == DataType::String),
    };
    if !string_key {
        if let Some(w) = workload.as_object_mut() {
            w.shift_remove("key_prefix");
        }
    }
    if form.returning_share > 0.0 {
        workload["returning"] = json!({"share": form.returning_share, "after": form.returning_after});
    }
    for dropped in ["steps", "expect", "watch", "start"] {
        object.shift_remove(dropped);
    }
    let name = object.get("name").and_then(Value::as_str).unwrap_or("scenario").to_string();
    object.insert("name".into(), json!(format!("{name}-what-if")));
    object.insert(
        "title".into(),
        json!(format!("What if: {} events, {} keys — the pipeline of {name}", form.events, form.keys)),
    );
    object.insert(
        "description".into(),
        json!(format!(
            "The pipeline and settings of '{name}' on a generated workload (seed {}): {} events at {} per second over \
             {} keys.",
            form.seed, form.events, form.rate, form.keys
        )),
    );
    object.insert("time_format".into(), serde_json::to_value(scenario.time_format).unwrap_or(Value::Null));
    object.insert("workload".into(), workload);
    let text = serde_json::to_string_pretty(&Value::Object(object))
        .map_err(|e| ScenarioError::new("scenario", e.to_string()))?;
    Scenario::from_json(&text)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::presets::PRESETS;
    use crate::engine::{SimOptions, Simulation, TraceLevel};

    fn preset(name: &str) -> &'static str {
        PRESETS.iter().find(|(n, _)| *n == name).map(|(_, j)| *j).unwrap()
    }

    #[test]
    fn a_scenario_with_a_workload_prefills_the_form_from_it() {
        let form = WhatIf::for_scenario(preset("what-if-100k-logins")).unwrap();
        assert_eq!((form.seed, form.events, form.rate, form.keys), (2024, 100_000, 1, 20_000));
        assert_eq!((form.key_column.as_str(), form.zipf, form.new_keys), ("user_id", Some(1.1), 0.05));
        assert_eq!((form.returning_share, form.returning_after.as_str()), (0.01, "13 h"));
        assert_eq!(form.columns, r#"{"login_ms":"proctime"}"#);
    }

    #[test]
    fn the_same_form_gives_back_the_same_workload() {
        let base = preset("what-if-100k-logins");
        let form = WhatIf::for_scenario(base).unwrap();
        let text = what_if_scenario(base, &form).unwrap();
        let (a, b) = (Scenario::from_json(base).unwrap(), Scenario::from_json(&text).unwrap());
        let run = |s: Scenario| {
            let mut sim = Simulation::with_options(
                s,
                SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false },
            );
            sim.run_to_end().unwrap();
            (sim.now(), sim.result().len(), sim.peaks())
        };
        assert_eq!(run(a), run(b));
    }

    #[test]
    fn a_scenario_without_workload_gets_defaults_and_keeps_its_pipeline_and_settings() {
        let base = preset("seed-004-device-status");
        let mut form = WhatIf::for_scenario(base).unwrap();
        assert_eq!(form.key_column, "devId");
        assert_eq!(form.columns, r#"{"status":{"uniform":[0,1]},"times":{"uniform":[0,1]}}"#);
        form.events = 5000;
        let text = what_if_scenario(base, &form).unwrap();
        let (a, b) = (Scenario::from_json(base).unwrap(), Scenario::from_json(&text).unwrap());
        assert_eq!(b.steps.len(), 0);
        assert_eq!(b.workload.as_ref().map(|w| (w.events, w.start_ms)), Some((5000, a.start_ms)));
        assert_eq!((b.flink, b.retention, b.operators.len()), (a.flink, a.retention, a.operators.len()));
        assert_eq!(b.time_format, a.time_format);
    }

    /// A join's two sources: the form holds `workload.sources`, an equal share each on the same
    /// key population, and the what-if scenario feeds both (found by the fuzzer: the form was
    /// refused for a scenario of several sources).
    #[test]
    fn a_scenario_of_several_sources_gets_one_feed_per_source() {
        let base = preset("dimension-expires-left-join");
        let mut form = WhatIf::for_scenario(base).unwrap();
        assert_eq!(
            form.columns,
            r#"[{"source":"orders","share":0.5,"key_column":"user_id","columns":{"order_id":{"one_of":["a","b","c"]},"amount":{"uniform":[0,1]}}},{"source":"users","share":0.5,"key_column":"user_id","columns":{"region":{"one_of":["a","b","c"]}}}]"#
        );
        form.events = 2000;
        let scenario = Scenario::from_json(&what_if_scenario(base, &form).unwrap()).unwrap();
        let mut sim = crate::engine::Simulation::new(scenario);
        sim.run_to_end().unwrap();
        assert_eq!(sim.inputs(), 2000);
    }

    #[test]
    fn a_scenario_without_a_string_column_gets_a_numeric_key_without_prefix() {
        let base = r#"{"name": "n", "flink": "2.3",
            "source": {"name": "s", "schema": [["b", "BOOLEAN"], ["id", "INT"], ["v", "BIGINT"]]},
            "pipeline": [{"operator": "GroupAggregate", "id": "a", "group_by": ["id"],
                          "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}]}],
            "steps": [{"at": 1, "row": [true, 1, 2]}]}"#;
        let mut form = WhatIf::for_scenario(base).unwrap();
        assert_eq!(form.key_column, "id");
        form.events = 10;
        let text = what_if_scenario(base, &form).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["workload"].get("key_prefix"), None);
        let mut sim = Simulation::new(Scenario::from_json(&text).unwrap());
        sim.run_to_end().unwrap();
        assert_eq!(sim.inputs(), 10);
    }

    #[test]
    fn bad_fields_are_named() {
        let base = preset("seed-004-device-status");
        let mut form = WhatIf::for_scenario(base).unwrap();
        form.returning_share = 1.5;
        let e = what_if_scenario(base, &form).unwrap_err();
        assert!(e.path.starts_with("workload.returning"), "{e}");
        form.returning_share = 0.0;
        form.columns = "[1]".into();
        assert_eq!(what_if_scenario(base, &form).unwrap_err().path, "workload.columns");
        form.columns = "{}".into();
        assert!(what_if_scenario(base, &form).unwrap_err().to_string().starts_with("workload.columns"));
    }

    #[test]
    fn a_long_key_column_name_gives_a_prefix_within_the_limit() {
        let p = default_key_prefix(&"x".repeat(70));
        assert_eq!(p.chars().count(), crate::engine::workload::MAX_KEY_PREFIX_CHARS);
        assert!(p.ends_with("x-"));
        assert_eq!(default_key_prefix("user_id"), "user_id-");
    }
}
