//! A scenario's `"sql"`: its `SET` options folded into the scenario's settings, its query
//! planned into the pipeline ([`crate::engine::planner`]).

use super::raw::{RawMiniBatch, RawScenario};
use super::{Source, StateBackend};
use crate::engine::error::{quote, ScenarioError};
use crate::engine::format::DurationValue;
use crate::engine::planner::{self, script::Script, sink, SetOption, SourceTable, SqlError};
use crate::engine::time::{check_duration, parse_duration};

/// The options a script may `SET`, and the scenario field each one is.
pub const MODELLED_OPTIONS: &[(&str, &str)] = &[
    ("table.exec.state.ttl", "state_ttl"),
    ("table.exec.mini-batch.enabled", "mini_batch.enabled"),
    ("table.exec.mini-batch.allow-latency", "mini_batch.allow_latency"),
    ("table.exec.mini-batch.size", "mini_batch.size"),
    ("table.optimizer.agg-phase-strategy", "agg_phase_strategy"),
    ("state.backend.type", "state_backend"),
    ("table.exec.source.cdc-events-duplicate", "cdc_events_duplicate"),
];

/// Options that change nothing the simulator shows, accepted as Flink accepts them.
const NEUTRAL_OPTIONS: &[&str] = &["execution.runtime-mode", "parallelism.default", "sql-client.execution.result-mode"];

/// `sql` as a [`ScenarioError`]: `sql: line L, column C: message`.
pub fn sql_error(e: &SqlError) -> ScenarioError {
    ScenarioError::new("sql", e.to_string())
}

/// Parses the script and folds its `SET`s into `raw` (refusing an option the scenario also sets
/// in its own field).
///
/// # Errors
/// A parse error, an option that is not modelled, a bad value, or an option set twice.
pub(super) fn apply_options(raw: &mut RawScenario, sql: &str) -> Result<Script, ScenarioError> {
    let script = planner::script::parse(sql).map_err(|e| sql_error(&e))?;
    if let Some(refusal) = &script.lateral_snapshot_refusal {
        if !raw.flink.has_lateral_snapshot_join() {
            return Err(sql_error(refusal));
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    let mini_batch_in_fields = raw.mini_batch.is_some();
    for option in &script.options {
        let err = |m: String| sql_error(&SqlError { line: option.at.line, column: option.at.column, message: m });
        let Some(&(key, field)) = MODELLED_OPTIONS.iter().find(|(k, _)| *k == option.key) else {
            if NEUTRAL_OPTIONS.contains(&option.key.as_str()) {
                check_neutral(option).map_err(err)?;
                continue;
            }
            if let Some(&key) = sink::OPTIONS.iter().find(|k| **k == option.key) {
                // Read by the sink rule ([`plan_sink`]); checked here, where the SET is.
                if seen.contains(&key) {
                    return Err(err(format!("{key} is set twice")));
                }
                seen.push(key);
                sink::read_option(&mut sink::SinkOptions::default(), option).map_err(err)?;
                continue;
            }
            let keys: Vec<&str> =
                MODELLED_OPTIONS.iter().map(|(k, _)| *k).chain(sink::OPTIONS.iter().copied()).collect();
            return Err(err(format!("option {} is not modelled (options: {})", quote(&option.key), keys.join(", "))));
        };
        let conflict =
            || err(format!("{key} is set both here and in the scenario's field {field}: set it in one place"));
        if seen.contains(&key) {
            return Err(err(format!("{key} is set twice")));
        }
        seen.push(key);
        let value = option.value.trim();
        match key {
            "table.exec.state.ttl" => {
                if raw.state_ttl.is_some() {
                    return Err(conflict());
                }
                let ms = parse_duration(value).and_then(check_duration).map_err(|m| err(format!("{key}: {m}")))?;
                raw.state_ttl = Some(DurationValue(ms));
            }
            "table.optimizer.agg-phase-strategy" => {
                if raw.agg_phase_strategy.is_some() {
                    return Err(conflict());
                }
                raw.agg_phase_strategy = Some(value.to_string());
            }
            "table.exec.source.cdc-events-duplicate" => {
                if raw.cdc_events_duplicate.is_some() {
                    return Err(conflict());
                }
                raw.cdc_events_duplicate = Some(parse_bool(key, value).map_err(err)?);
            }
            "state.backend.type" => {
                if raw.state_backend.is_some() {
                    return Err(conflict());
                }
                raw.state_backend =
                    Some(StateBackend::try_from(value.to_string()).map_err(|m| err(format!("{key}: {m}")))?);
            }
            _ => {
                // table.exec.mini-batch.*: one object of the scenario.
                if mini_batch_in_fields {
                    return Err(err(format!(
                        "{key} is set both here and in the scenario's field mini_batch: set it in one place"
                    )));
                }
                let mb = raw.mini_batch.get_or_insert(RawMiniBatch { enabled: false, allow_latency: None, size: None });
                match key {
                    "table.exec.mini-batch.enabled" => mb.enabled = parse_bool(key, value).map_err(err)?,
                    "table.exec.mini-batch.allow-latency" => {
                        let ms =
                            parse_duration(value).and_then(check_duration).map_err(|m| err(format!("{key}: {m}")))?;
                        mb.allow_latency = Some(DurationValue(ms));
                    }
                    _ => {
                        mb.size = Some(value.parse().map_err(|_| {
                            err(format!(
                                "{key}: Could not parse value {} for key '{key}' (a whole number)",
                                quote(value)
                            ))
                        })?)
                    }
                }
            }
        }
    }
    Ok(script)
}

/// A boolean option's value, as Flink's `ConfigurationUtils` reads it.
fn parse_bool(key: &str, value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("{key}: Could not parse value {} for key '{key}' (true or false)", quote(value))),
    }
}

fn check_neutral(option: &SetOption) -> Result<(), String> {
    let value = option.value.trim();
    match option.key.as_str() {
        "execution.runtime-mode" if !value.eq_ignore_ascii_case("streaming") => {
            Err(format!("execution.runtime-mode = {}: the simulator runs streaming jobs only", quote(value)))
        }
        "parallelism.default" if value != "1" => Err(format!(
            "parallelism.default = {}: the simulator runs one parallel instance (its keys all in one task)",
            quote(value)
        )),
        _ => Ok(()),
    }
}

/// Plans the script's query over `sources`: the pipeline as the scenario format's JSON operators.
/// `cdc_events_duplicate`: `table.exec.source.cdc-events-duplicate` (which sources Flink reads
/// through a `ChangelogNormalize`, [`Source::planned_normalize`]).
///
/// # Errors
/// What the planner refuses, at its line and column.
pub(super) fn plan(
    script: &Script,
    sources: &[Source],
    cdc_events_duplicate: bool,
) -> Result<planner::PlannedQuery, ScenarioError> {
    let tables: Vec<SourceTable> = sources
        .iter()
        .map(|source| SourceTable {
            name: source.name.clone(),
            columns: source.columns.iter().map(|c| c.name.clone()).collect(),
            proctime: source.proctime.as_ref().map(|c| c.name.clone()),
            normalize: source.planned_normalize(cdc_events_duplicate),
            watermark: source.watermark.as_ref().map(|w| source.columns[w.column].name.clone()),
        })
        .collect();
    planner::plan(script, &tables).map_err(|e| sql_error(&e))
}

/// The JSON form of a SQL scenario (`text`): the same scenario with `"pipeline"` (the operators
/// the SQL is planned into) in place of `"sql"`, and the script's `SET` options as the
/// scenario's own fields. It simulates exactly as the SQL does.
///
/// # Errors
/// When `text` is not a valid scenario with `"sql"`.
pub fn to_json_form(text: &str) -> Result<String, ScenarioError> {
    let scenario = super::Scenario::from_json(text)?;
    let (Some(sql), Some(pipeline)) = (&scenario.sql, &scenario.planned_pipeline) else {
        return Err(ScenarioError::new("sql", "the scenario has no sql to turn into a pipeline"));
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| ScenarioError::new("", e.to_string()))?;
    let serde_json::Value::Object(fields) = value else {
        return Err(ScenarioError::new("", "a scenario is a JSON object"));
    };
    let script = planner::script::parse(sql).map_err(|e| sql_error(&e))?;
    let mut out = serde_json::Map::new();
    for (key, v) in fields {
        // The planned pipeline holds the ChangelogNormalize this option asked for.
        if key == "cdc_events_duplicate" {
            continue;
        }
        if key == "sql" {
            for option in &script.options {
                let value = option.value.trim();
                match option.key.as_str() {
                    "table.exec.state.ttl" => {
                        out.insert("state_ttl".into(), value.into());
                    }
                    "table.optimizer.agg-phase-strategy" => {
                        out.insert("agg_phase_strategy".into(), value.into());
                    }
                    "state.backend.type" => {
                        out.insert("state_backend".into(), value.into());
                    }
                    key if key.starts_with("table.exec.mini-batch.") => {
                        let mb = out.entry("mini_batch").or_insert_with(|| serde_json::json!({ "enabled": false }));
                        let field = key.trim_start_matches("table.exec.mini-batch.");
                        mb[field.replace('-', "_")] = match field {
                            "enabled" => value.eq_ignore_ascii_case("true").into(),
                            "size" => value.parse::<i64>().map_or_else(|_| value.into(), Into::into),
                            _ => value.into(),
                        };
                    }
                    _ => {}
                }
            }
            out.insert("pipeline".into(), serde_json::Value::Array(pipeline.clone()));
        } else {
            out.insert(key, v);
        }
    }
    serde_json::to_string_pretty(&serde_json::Value::Object(out)).map_err(|e| ScenarioError::new("", e.to_string()))
}

/// The line and column (1-based) of a SQL error (`sql: line L, column C: …`), for an editor to
/// mark it.
pub fn error_location(e: &ScenarioError) -> Option<(u64, u64)> {
    if e.path != "sql" {
        return None;
    }
    let rest = e.message.strip_prefix("line ")?;
    let (line, rest) = rest.split_once(", column ")?;
    let (column, _) = rest.split_once(':')?;
    Some((line.parse().ok()?, column.parse().ok()?))
}

/// `FlinkChangelogModeInferenceProgram.SatisfyUpdateKindTraitVisitor` (Flink 2.3): the sink (a
/// retract sink: `print`, `collect()`) needs `UPDATE_BEFORE`; an operator produces it only when
/// its consumer needs it (a `Calc` passes its consumer's need on; a `Rank` with
/// `UpdateFastStrategy` needs `ONLY_UPDATE_AFTER`). `first` is the pipeline compiled once with
/// every operator producing it; the operators whose consumer does not need it get
/// `"generate_update_before": false`. A `ChangelogNormalize` whose consumer does not need it is
/// removed instead (its delete-kind visitor, Flink 2.3.0 bytecode: not
/// `ChangelogNormalizeRequirementResolver.isRequired` — no filter in it, no metadata column,
/// `ONLY_UPDATE_AFTER` asked — and the scan satisfies the delete kind asked), and its consumer
/// reads the source's upserts as they come.
pub fn drop_unneeded_update_before(
    mut pipeline: Vec<serde_json::Value>,
    first: &[super::OperatorNode],
    sources: &[Source],
) -> Vec<serde_json::Value> {
    // Whether each operator's consumer needs its UPDATE_BEFORE; the last one's does (the sink
    // of a retract stream).
    let mut needed = vec![true; first.len()];
    let mut removed = Vec::new();
    for i in (0..first.len().min(pipeline.len())).rev() {
        let kind = pipeline[i].get("operator").and_then(|k| k.as_str()).unwrap_or_default().to_string();
        if !needed[i] && matches!(kind.as_str(), "GroupAggregate" | "Rank" | "Deduplicate") {
            pipeline[i]["generate_update_before"] = serde_json::Value::Bool(false);
        }
        if !needed[i] && kind == "ChangelogNormalize" {
            removed.push(i);
        }
        for (port, input) in first[i].inputs.iter().enumerate() {
            if let super::NodeInput::Operator(j) = *input {
                let own = first[i].spec.needs_update_before_from(port);
                needed[j] = match kind.as_str() {
                    "Calc" => needed[i],
                    // A join passes its consumer's need on (`SatisfyUpdateKindTraitVisitor`: an
                    // input may drop UPDATE_BEFORE only when the join's consumer does not need
                    // them and the input's unique key holds the join key).
                    "Join" => needed[i] || own,
                    _ => own,
                };
            }
        }
    }
    removed.sort_unstable();
    super::source_changelog::remove_normalizes(&mut pipeline, &removed, first, sources);
    pipeline
}

/// The sink rule (`analyzeUpsertMaterializeStrategy`, [`sink::upsert_materialize`]) on the
/// compiled pipeline `first`: when Flink 2.3 materializes the `INSERT INTO` sink, the pipeline
/// ends in a `SinkUpsertMaterializer` keyed by the sink's primary key (its id `Sink[N]`, the
/// number Flink gives the sink node). The query's upsert key is what the last operator keys its
/// output on ([`crate::engine::operators::OperatorSpec::state_key_columns`] and
/// [`crate::engine::operators::OperatorSpec::upsert_key_extra`]); an updating output keyed on
/// nothing (a global aggregation) counts as having no upsert key.
///
/// # Errors
/// Flink's refusals, at the `INSERT`'s or the `ON CONFLICT`'s line and column.
pub(super) fn plan_sink(
    mut pipeline: Vec<serde_json::Value>,
    first: &[super::OperatorNode],
    script: &Script,
    target: Option<&sink::SinkTarget>,
    sources: &[Source],
) -> Result<Vec<serde_json::Value>, ScenarioError> {
    let (Some(target), Some(last)) = (target, first.last()) else { return Ok(pipeline) };
    let options = sink::options(script).map_err(|e| sql_error(&e))?;
    let spec = &last.spec;
    let key: Vec<usize> = spec.state_key_columns().into_iter().chain(spec.upsert_key_extra()).collect();
    let query =
        sink::QueryOutput { insert_only: !spec.output_retracts(), upsert_key: (!key.is_empty()).then_some(key) };
    let mut scans = Vec::new();
    scanned(first, first.len() - 1, sources, &mut scans);
    let materialize = sink::upsert_materialize(target, &query, options, &scans).map_err(|e| sql_error(&e))?;
    if materialize {
        let primary_key: Vec<&String> = target.primary_key.iter().filter_map(|&i| target.columns.get(i)).collect();
        let mut op = serde_json::json!({
            "operator": "SinkUpsertMaterializer",
            "id": format!("Sink[{}]", pipeline.len() + 2),
            "table": target.table,
            "fields": target.columns,
            "primary_key": primary_key,
        });
        if let Some(c) = target.on_conflict {
            op["conflict_strategy"] = c.behavior.name().into();
        }
        pipeline.push(op);
    }
    Ok(pipeline)
}

/// The tables scanned under operator `i`, in the order Flink's `collectSourcesWithoutWatermarks`
/// meets them (depth first, inputs left to right; a table scanned twice is named twice).
fn scanned(nodes: &[super::OperatorNode], i: usize, sources: &[Source], out: &mut Vec<String>) {
    for input in &nodes[i].inputs {
        match *input {
            super::NodeInput::Source(s) => out.extend(sources.get(s).map(|t| t.name.clone())),
            super::NodeInput::Operator(j) => scanned(nodes, j, sources, out),
        }
    }
}
