//! Validation: from the written form to a [`Scenario`], naming the field and the rule of every
//! rejection.

use super::raw::{RawCell, RawIdleStateRetention, RawMiniBatch, RawScenario, RawSource, RawStep};
use super::topology::{compile_pipeline, Settings};
use super::{Scenario, Source, Step};
use crate::engine::error::{name_list, quote, unknown_variant, ScenarioError};
use crate::engine::expect::Expect;
use crate::engine::format::{DurationValue, TimeValue};
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::options::{AggPhaseStrategy, FlinkMode, MiniBatch, Retention};
use crate::engine::row::{Column, DataType, Row, RowKind};
use crate::engine::time::{check_time, Millis, TimeFormat};
use crate::engine::workload::Workload;
use serde_json::value::RawValue;
use std::collections::HashSet;

pub(super) fn compile(mut raw: RawScenario) -> Result<Scenario, ScenarioError> {
    if raw.name.trim().is_empty() {
        return Err(ScenarioError::new("name", "must not be empty"));
    }
    let script = match (&raw.sql, &raw.pipeline) {
        (Some(_), Some(_)) => {
            return Err(ScenarioError::new("sql", "a scenario gives either sql or pipeline, not both"));
        }
        (None, None) => return Err(ScenarioError::new("pipeline", "missing: give a pipeline of operators or sql")),
        (Some(sql), None) => {
            let sql = sql.clone();
            Some(super::sql::apply_options(&mut raw, &sql)?)
        }
        (None, Some(_)) => None,
    };
    let state_backend = raw.state_backend.unwrap_or_default();
    let retention = compile_retention(raw.flink, raw.idle_state_retention.as_ref(), raw.state_ttl)?;
    let mini_batch = compile_mini_batch(raw.flink, raw.mini_batch.as_ref())?;
    let agg_phase_strategy = compile_agg_phase_strategy(raw.flink, raw.agg_phase_strategy.as_deref())?;
    let sources = compile_sources(&raw)?;
    let settings =
        Settings { flink: raw.flink, retention, state_backend, mini_batch, agg_phase_strategy, planned: false };
    let mut sink_conflict = None;
    let (operators, output_names) = match &script {
        Some(script) => {
            let planned = super::sql::plan(script, &sources, raw.cdc_events_duplicate.unwrap_or(false))?;
            let raw = |ops: &[serde_json::Value]| -> Result<Vec<Box<RawValue>>, ScenarioError> {
                ops.iter()
                    .map(|op| serde_json::value::to_raw_value(op).map_err(|e| ScenarioError::new("sql", e.to_string())))
                    .collect()
            };
            // The planned pipeline failed where Flink's planner or code generation would: say
            // so in the SQL's terms (the operator's plan and the reason).
            let in_sql =
                |e: ScenarioError| ScenarioError::new("sql", format!("{} (in the planned {})", e.message, e.path));
            // Two passes, as Flink infers changelog modes: what each operator produces, then
            // which UPDATE_BEFORE messages are needed downstream.
            let first = compile_pipeline(&raw(&planned.pipeline)?, &sources, Settings { planned: true, ..settings })
                .map_err(in_sql)?;
            let pipeline = super::sql::drop_unneeded_update_before(planned.pipeline, &first, &sources);
            let pipeline = super::sql::plan_sink(pipeline, &first, script, planned.sink.as_ref(), &sources)?;
            sink_conflict = planned.sink.as_ref().and_then(|s| s.on_conflict).map(|c| c.behavior);
            let operators = compile_pipeline(&raw(&pipeline)?, &sources, settings).map_err(in_sql)?;
            (operators, Some((planned.output_names, (pipeline, planned.insert_into))))
        }
        None if raw.cdc_events_duplicate.is_some() => {
            return Err(ScenarioError::new(
                "cdc_events_duplicate",
                "table.exec.source.cdc-events-duplicate is a planner option, for sql: a pipeline writes its \
                 ChangelogNormalize operator itself",
            ))
        }
        None => (compile_pipeline(raw.pipeline.as_deref().unwrap_or_default(), &sources, settings)?, None),
    };
    let (output_names, planned) = output_names.unzip();
    let (planned_pipeline, sink_table) = planned.unzip();
    let sink_table = sink_table.flatten();
    let no_steps = raw.steps.is_empty();
    let (steps, mut start_ms, mut wrote_date_times) = compile_steps(raw.steps, raw.start, &sources)?;
    let workload = match &raw.workload {
        Some(w) => Some(Workload::compile(w.get(), &sources, steps_end(&steps, start_ms))?),
        None => None,
    };
    // A scenario of generated events only starts where they do.
    if let (true, None, Some(w)) = (no_steps, raw.start, &workload) {
        start_ms = w.start_ms;
        wrote_date_times |= w.start_written_as_date_time;
    }
    let expect = match &raw.expect {
        Some(e) => {
            let ids: Vec<&str> = operators.iter().map(|n| n.id.as_str()).collect();
            Expect::compile(e.get(), &ids)?
        }
        None => Expect::default(),
    };
    let time_format = raw.time_format.unwrap_or(if wrote_date_times || raw.start.is_some_and(|s| s.date_time) {
        TimeFormat::DateTime
    } else {
        TimeFormat::Millis
    });
    Ok(Scenario {
        title: raw.title.unwrap_or_else(|| raw.name.clone()),
        name: raw.name,
        description: raw.description.unwrap_or_default(),
        watch: raw.watch.unwrap_or_default(),
        flink: raw.flink,
        time_format,
        start_ms,
        retention,
        state_backend,
        sql: raw.sql,
        output_names,
        planned_pipeline,
        sink_table,
        sink_conflict,
        mini_batch,
        agg_phase_strategy,
        sources,
        operators,
        steps,
        workload,
        expect,
    })
}

/// The processing time the steps reach.
fn steps_end(steps: &[Step], start_ms: Millis) -> Millis {
    steps.iter().fold(start_ms, |t, step| match step {
        Step::Input { at, .. } => at.unwrap_or(t),
        Step::AdvanceTo(to) => *to,
        Step::AdvanceBy(by) => t.saturating_add(*by),
    })
}

fn compile_retention(
    flink: FlinkMode,
    idle: Option<&RawIdleStateRetention>,
    ttl: Option<DurationValue>,
) -> Result<Retention, ScenarioError> {
    if flink.uses_cleanup_timers() {
        if ttl.is_some() {
            return Err(ScenarioError::new(
                "state_ttl",
                format!(
                    "the {} cleans state with idle state retention timers, not table.exec.state.ttl \
                     (Flink 1.12+): set idle_state_retention {{min, max}} instead",
                    flink.label()
                ),
            ));
        }
        return match idle {
            None => Ok(Retention::IdleState(IdleStateRetention::NEVER)),
            Some(r) => IdleStateRetention::set_idle_state_retention_time(r.min.0, r.max.0, r.test_harness)
                .map(Retention::IdleState)
                .map_err(|m| {
                    let m = crate::engine::idle_state_retention::message_with_durations(m, r.min.0, r.max.0);
                    ScenarioError::new("idle_state_retention", m)
                }),
        };
    }
    match idle {
        None => Ok(Retention::StateTtl(ttl.map_or(0, |d| d.0))),
        Some(_) if ttl.is_some() => Err(ScenarioError::new(
            "idle_state_retention",
            "setIdleStateRetentionTime(min, max) and state_ttl both set table.exec.state.ttl: set one of them",
        )),
        Some(r) if flink.idle_state_retention_sets_ttl() => {
            IdleStateRetention::set_idle_state_retention_time_1_12(r.min.0, r.max.0, r.test_harness)
                .map(Retention::StateTtl)
                .map_err(|m| {
                    let m = crate::engine::idle_state_retention::message_with_durations(m, r.min.0, r.max.0);
                    ScenarioError::new("idle_state_retention", m)
                })
        }
        Some(_) => Err(ScenarioError::new(
            "idle_state_retention",
            format!(
                "{} keeps state with state TTL: set state_ttl (table.exec.state.ttl) instead. \
                 setIdleStateRetentionTime(min, max), deprecated since Flink 1.12 where it only sets \
                 table.exec.state.ttl = min, was removed in 2.0",
                flink.label()
            ),
        )),
    }
}

/// `table.exec.mini-batch.*`: the Blink planner's (Flink 1.9+); `allow-latency` is checked as
/// `StreamCommonSubGraphBasedOptimizer` checks it when mini-batch is enabled (Flink 2.3).
fn compile_mini_batch(flink: FlinkMode, raw: Option<&RawMiniBatch>) -> Result<Option<MiniBatch>, ScenarioError> {
    let Some(raw) = raw else { return Ok(None) };
    if flink.is_legacy_planner() {
        return Err(ScenarioError::new(
            "mini_batch",
            format!(
                "the {} has no mini-batch: table.exec.mini-batch.* are options of the Blink planner \
                 (Flink 1.9+), which the legacy planner ignores",
                flink.label()
            ),
        ));
    }
    if !raw.enabled {
        return Ok(None);
    }
    let allow_latency_ms = raw.allow_latency.map_or(0, |d| d.0);
    if allow_latency_ms <= 0 {
        return Err(ScenarioError::new("mini_batch.allow_latency", "MiniBatch Latency must be greater than 0 ms."));
    }
    Ok(Some(MiniBatch { allow_latency_ms, size: raw.size.unwrap_or(-1) }))
}

/// `table.optimizer.agg-phase-strategy`, a Blink planner option (Flink 1.9+).
fn compile_agg_phase_strategy(flink: FlinkMode, raw: Option<&str>) -> Result<AggPhaseStrategy, ScenarioError> {
    let Some(text) = raw else { return Ok(AggPhaseStrategy::Auto) };
    if flink.is_legacy_planner() {
        return Err(ScenarioError::new(
            "agg_phase_strategy",
            format!(
                "the {} has no two-phase aggregation: table.optimizer.agg-phase-strategy is an option of \
                 the Blink planner (Flink 1.9+)",
                flink.label()
            ),
        ));
    }
    AggPhaseStrategy::parse(text).ok_or_else(|| {
        let names: Vec<&str> = AggPhaseStrategy::ALL.iter().map(|(n, _)| *n).collect();
        ScenarioError::new("agg_phase_strategy", unknown_variant(text, &names))
    })
}

/// `source` or `sources`: the source tables, names unique.
fn compile_sources(raw: &RawScenario) -> Result<Vec<Source>, ScenarioError> {
    match (&raw.source, &raw.sources) {
        (Some(_), Some(_)) => Err(ScenarioError::new("sources", "a scenario gives either source or sources, not both")),
        (None, None) => {
            Err(ScenarioError::new("source", "missing: give the source table (source) or the source tables (sources)"))
        }
        (Some(source), None) => Ok(vec![compile_source(source, "source", raw)?]),
        (None, Some(list)) if list.is_empty() => Err(ScenarioError::new("sources", "needs at least one source")),
        (None, Some(list)) => {
            let mut sources: Vec<Source> = Vec::with_capacity(list.len());
            for (i, source) in list.iter().enumerate() {
                let source = compile_source(source, &format!("sources[{i}]"), raw)?;
                if sources.iter().any(|s| s.name == source.name) {
                    return Err(ScenarioError::new(
                        format!("sources[{i}].name"),
                        format!("duplicate source name {}", quote(&source.name)),
                    ));
                }
                sources.push(source);
            }
            Ok(sources)
        }
    }
}

fn compile_source(raw: &RawSource, path: &str, scenario: &RawScenario) -> Result<Source, ScenarioError> {
    let flink = scenario.flink;
    if raw.name.trim().is_empty() {
        return Err(ScenarioError::new(format!("{path}.name"), "must not be empty"));
    }
    if raw.schema.is_empty() {
        return Err(ScenarioError::new(format!("{path}.schema"), "a source needs at least one column"));
    }
    let columns: Vec<Column> =
        raw.schema.iter().map(|(name, t)| Column { name: name.clone(), data_type: *t }).collect();
    check_unique_names(&columns, &format!("{path}.schema"))?;
    let proctime = match &raw.proctime {
        None => None,
        Some(name) if name.trim().is_empty() => {
            return Err(ScenarioError::new(format!("{path}.proctime"), "the processing-time attribute needs a name"))
        }
        Some(name) if columns.iter().any(|c| c.name == *name) => {
            return Err(ScenarioError::new(
                format!("{path}.proctime"),
                format!("{} is already a column of the schema: the attribute needs a name of its own", quote(name)),
            ))
        }
        Some(name) => Some(Column { name: name.clone(), data_type: DataType::ProcTime }),
    };
    let primary_key = super::source_changelog::compile_primary_key(raw, &columns, path, flink)?;
    let watermark = super::watermark::compile_watermark(raw, &columns, path, scenario)?;
    Ok(Source {
        name: raw.name.clone(),
        connector: raw.connector.unwrap_or_default(),
        columns,
        changelog: raw.changelog,
        primary_key,
        proctime,
        watermark,
    })
}

fn check_unique_names(columns: &[Column], path: &str) -> Result<(), ScenarioError> {
    let mut seen = HashSet::with_capacity(columns.len());
    for (i, c) in columns.iter().enumerate() {
        if c.name.trim().is_empty() {
            return Err(ScenarioError::new(format!("{path}[{i}]"), "a column name must not be empty"));
        }
        if !seen.insert(c.name.as_str()) {
            return Err(ScenarioError::new(
                format!("{path}[{i}]"),
                format!("duplicate column name {}", quote(&c.name)),
            ));
        }
    }
    Ok(())
}

/// The steps (consumed: a large scenario's written form is freed as it is compiled).
fn compile_steps(
    raw: Vec<RawStep>,
    start: Option<TimeValue>,
    sources: &[Source],
) -> Result<(Vec<Step>, Millis, bool), ScenarioError> {
    let first_time = raw.iter().find_map(|s| s.at.or(s.advance_to));
    let start_ms = start.or(first_time).map_or(0, |t| t.ms);
    let mut wrote_date_times = false;
    let mut now = start_ms;
    let mut steps = Vec::with_capacity(raw.len());
    for (i, s) in raw.into_iter().enumerate() {
        let path = || format!("steps[{i}]");
        // Both times as the scenario writes them: date-times once it wrote one, else ms.
        let backwards = |t: Millis, now: Millis, date_time: bool, field: &str| {
            let tf = if date_time { TimeFormat::DateTime } else { TimeFormat::Millis };
            let (t, now) = (tf.format(t), tf.format(now));
            Err(ScenarioError::new(
                format!("{}.{field}", path()),
                format!("processing time never goes backwards: {t} is before {now}, the time reached before this step"),
            ))
        };
        let step = match (&s.row, s.advance_to, s.advance_by) {
            (Some(values), None, None) => {
                if let Some(at) = s.at {
                    wrote_date_times |= at.date_time;
                    if at.ms < now {
                        return backwards(at.ms, now, wrote_date_times, "at");
                    }
                    now = at.ms;
                }
                let source = source_of_step(s.source.as_deref(), sources, &path)?;
                compile_input(values, s.at.map(|t| t.ms), s.kind.as_deref(), sources, source, &path)?
            }
            (None, Some(to), None) if s.at.is_none() && s.kind.is_none() && s.source.is_none() => {
                wrote_date_times |= to.date_time;
                if to.ms < now {
                    return backwards(to.ms, now, wrote_date_times, "advance_to");
                }
                now = to.ms;
                Step::AdvanceTo(to.ms)
            }
            (None, None, Some(by)) if s.at.is_none() && s.kind.is_none() && s.source.is_none() => {
                now = check_time(now + by.0).map_err(|m| ScenarioError::new(format!("{}.advance_by", path()), m))?;
                Step::AdvanceBy(by.0)
            }
            _ => {
                return Err(ScenarioError::new(
                    path(),
                    "a step is either an input {\"at\", \"source\", \"row\", \"kind\"} or {\"advance_to\": time} or \
                     {\"advance_by\": duration}, exactly one of `row`, `advance_to`, `advance_by`",
                ))
            }
        };
        steps.push(step);
    }
    Ok((steps, start_ms, wrote_date_times))
}

/// The source an input step names (by name), or the only one.
fn source_of_step(name: Option<&str>, sources: &[Source], path: &dyn Fn() -> String) -> Result<usize, ScenarioError> {
    match name {
        Some(name) => sources.iter().position(|s| s.name == name).ok_or_else(|| {
            ScenarioError::new(
                format!("{}.source", path()),
                format!(
                    "{} is not a source of the scenario: {}",
                    quote(name),
                    name_list(sources.iter().map(|s| s.name.as_str()))
                ),
            )
        }),
        None if sources.len() == 1 => Ok(0),
        None => Err(ScenarioError::new(
            format!("{}.source", path()),
            format!(
                "missing: the scenario has several sources ({}); name the one this row comes from",
                name_list(sources.iter().map(|s| s.name.as_str()))
            ),
        )),
    }
}

fn compile_input(
    values: &[RawCell],
    at: Option<Millis>,
    kind: Option<&str>,
    sources: &[Source],
    source_index: usize,
    path: &dyn Fn() -> String,
) -> Result<Step, ScenarioError> {
    let source = &sources[source_index];
    let kind = match kind {
        None => RowKind::Insert,
        Some(k) => RowKind::parse(k).ok_or_else(|| {
            ScenarioError::new(format!("{}.kind", path()), format!("{} is not a row kind (+I, -U, +U, -D)", quote(k)))
        })?,
    };
    super::source_changelog::check_row_kind(source, kind, format!("{}.kind", path()))?;
    if values.len() != source.columns.len() {
        return Err(ScenarioError::new(
            format!("{}.row", path()),
            format!(
                "has {} values, source {} has {} columns ({})",
                values.len(),
                quote(&source.name),
                source.columns.len(),
                name_list(source.columns.iter().map(|c| c.name.as_str()))
            ),
        ));
    }
    let mut row = Row::default();
    for (j, (v, col)) in values.iter().zip(&source.columns).enumerate() {
        let value = v.value(col.data_type).map_err(|m| {
            ScenarioError::new(format!("{}.row[{j}]", path()), format!("column {}: {m}", quote(&col.name)))
        })?;
        row.0.push(value);
    }
    super::source_changelog::check_key_not_null(source, &row, &path())?;
    Ok(Step::Input { at, kind, row, source: source_index })
}
