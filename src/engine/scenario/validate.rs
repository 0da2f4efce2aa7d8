//! Validation: from the written form to a [`Scenario`], naming the field and the rule of every
//! rejection.

use super::raw::{
    DurationValue, OperatorType, RawAggregate, RawIdleStateRetention, RawOperator, RawScenario, RawSource, RawStep,
    TimeValue,
};
use super::{FlinkMode, GroupAggregateSpec, Retention, Scenario, Source, SourceChangelog, Step};
use crate::engine::aggregate::AggCall;
use crate::engine::error::ScenarioError;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::row::{Column, DataType, Row, RowKind};
use crate::engine::time::{check_time, Millis, TimeFormat};

pub(super) fn compile(raw: RawScenario) -> Result<Scenario, ScenarioError> {
    if raw.name.trim().is_empty() {
        return Err(ScenarioError::new("name", "must not be empty"));
    }
    let retention = compile_retention(raw.flink, raw.idle_state_retention.as_ref(), raw.state_ttl)?;
    let source = compile_source(&raw.source)?;
    let operators = compile_pipeline(&raw.pipeline, &source)?;
    let (steps, start_ms, wrote_date_times) = compile_steps(&raw.steps, raw.start, &source)?;
    let time_format = raw.time_format.unwrap_or(if wrote_date_times || raw.start.is_some_and(|s| s.date_time) {
        TimeFormat::DateTime
    } else {
        TimeFormat::Millis
    });
    Ok(Scenario {
        title: raw.title.unwrap_or_else(|| raw.name.clone()),
        name: raw.name,
        description: raw.description.unwrap_or_default(),
        flink: raw.flink,
        time_format,
        start_ms,
        retention,
        source,
        operators,
        steps,
    })
}

fn compile_retention(
    flink: FlinkMode,
    idle: Option<&RawIdleStateRetention>,
    ttl: Option<DurationValue>,
) -> Result<Retention, ScenarioError> {
    match flink {
        FlinkMode::Legacy1_10 => {
            if ttl.is_some() {
                return Err(ScenarioError::new(
                    "state_ttl",
                    "the 1.10 legacy planner cleans state with idle state retention timers, not \
                     table.exec.state.ttl: set idle_state_retention {min, max} instead",
                ));
            }
            match idle {
                None => Ok(Retention::IdleState(IdleStateRetention::NEVER)),
                Some(r) => IdleStateRetention::set_idle_state_retention_time(r.min.0, r.max.0, r.test_harness)
                    .map(Retention::IdleState)
                    .map_err(|m| ScenarioError::new("idle_state_retention", m)),
            }
        }
        FlinkMode::Flink2_3 => {
            if idle.is_some() {
                return Err(ScenarioError::new(
                    "idle_state_retention",
                    "Flink 2.3 keeps state with state TTL: set state_ttl (table.exec.state.ttl) instead. \
                     setIdleStateRetentionTime(min, max) belongs to the legacy planner; from Flink 1.12 \
                     it is deprecated and only sets table.exec.state.ttl = min (max is ignored and \
                     derived as 1.5 × min)",
                ));
            }
            Ok(Retention::StateTtl(ttl.map_or(0, |d| d.0)))
        }
    }
}

fn compile_source(raw: &RawSource) -> Result<Source, ScenarioError> {
    if raw.name.trim().is_empty() {
        return Err(ScenarioError::new("source.name", "must not be empty"));
    }
    if raw.schema.is_empty() {
        return Err(ScenarioError::new("source.schema", "a source needs at least one column"));
    }
    let columns: Vec<Column> =
        raw.schema.iter().map(|(name, t)| Column { name: name.clone(), data_type: *t }).collect();
    check_unique_names(&columns, "source.schema")?;
    Ok(Source { name: raw.name.clone(), columns, changelog: raw.changelog })
}

fn check_unique_names(columns: &[Column], path: &str) -> Result<(), ScenarioError> {
    for (i, c) in columns.iter().enumerate() {
        if c.name.trim().is_empty() {
            return Err(ScenarioError::new(format!("{path}[{i}]"), "a column name must not be empty"));
        }
        if columns[..i].iter().any(|p| p.name == c.name) {
            return Err(ScenarioError::new(format!("{path}[{i}]"), format!("duplicate column name '{}'", c.name)));
        }
    }
    Ok(())
}

fn column_index(columns: &[Column], name: &str, path: &str, input: &str) -> Result<usize, ScenarioError> {
    columns.iter().position(|c| c.name == name).ok_or_else(|| {
        let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        ScenarioError::new(path, format!("no column '{name}' in {input} (columns: {})", names.join(", ")))
    })
}

fn compile_pipeline(raw: &[RawOperator], source: &Source) -> Result<Vec<GroupAggregateSpec>, ScenarioError> {
    if raw.is_empty() {
        return Err(ScenarioError::new("pipeline", "needs at least one operator"));
    }
    let mut specs: Vec<GroupAggregateSpec> = Vec::new();
    for (i, op) in raw.iter().enumerate() {
        let RawOperator { operator: OperatorType::GroupAggregate, id, group_by, aggregates, generate_update_before } =
            op;
        let path = format!("pipeline[{i}]");
        if id.trim().is_empty() || id == "result" || *id == source.name {
            return Err(ScenarioError::new(
                format!("{path}.id"),
                format!(
                    "'{id}' cannot name an operator: ids must be non-empty and differ from the source and 'result'"
                ),
            ));
        }
        if specs.iter().any(|s| s.id == *id) {
            return Err(ScenarioError::new(format!("{path}.id"), format!("duplicate operator id '{id}'")));
        }
        let (input_columns, input_name, input_retracts) = match specs.last() {
            None => {
                (source.columns.clone(), format!("source '{}'", source.name), source.changelog == SourceChangelog::All)
            }
            Some(prev) => (prev.output_columns.clone(), format!("the output of '{}'", prev.id), true),
        };
        let group_by_idx = group_by
            .iter()
            .enumerate()
            .map(|(j, name)| column_index(&input_columns, name, &format!("{path}.group_by[{j}]"), &input_name))
            .collect::<Result<Vec<_>, _>>()?;
        let mut output_columns: Vec<Column> = group_by_idx.iter().map(|&k| input_columns[k].clone()).collect();
        let mut calls = Vec::new();
        for (j, agg) in aggregates.iter().enumerate() {
            let apath = format!("{path}.aggregates[{j}]");
            let (call, data_type) = compile_call(agg, &input_columns, &apath, &input_name)?;
            if input_retracts && !call.supports_retraction() {
                return Err(ScenarioError::new(
                    format!("{apath}.function"),
                    format!(
                        "{} cannot consume {input_name}, which carries retractions: the function has no \
                         retract method here (Flink's planner requires one for a retracting input)",
                        call.display(&input_columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>())
                    ),
                ));
            }
            if agg.alias.trim().is_empty() || output_columns.iter().any(|c| c.name == agg.alias) {
                return Err(ScenarioError::new(
                    format!("{apath}.as"),
                    format!("'{}' cannot name an output column: names must be non-empty and unique", agg.alias),
                ));
            }
            output_columns.push(Column { name: agg.alias.clone(), data_type });
            calls.push(call);
        }
        if output_columns.is_empty() {
            return Err(ScenarioError::new(
                path,
                "a GroupAggregate needs at least one group_by column or one aggregate (it would output empty rows)",
            ));
        }
        specs.push(GroupAggregateSpec {
            id: id.clone(),
            group_by: group_by_idx,
            calls,
            input_columns,
            output_columns,
            input_retracts,
            generate_update_before: *generate_update_before,
        });
    }
    for i in 0..specs.len().saturating_sub(1) {
        if !specs[i].generate_update_before {
            return Err(ScenarioError::new(
                format!("pipeline[{i}].generate_update_before"),
                format!(
                    "false, but '{}' consumes this output and needs UPDATE_BEFORE / retraction messages \
                     to retract old rows (Flink's planner only drops them when nothing downstream needs them)",
                    specs[i + 1].id
                ),
            ));
        }
    }
    Ok(specs)
}

fn compile_call(
    agg: &RawAggregate,
    input: &[Column],
    path: &str,
    input_name: &str,
) -> Result<(AggCall, DataType), ScenarioError> {
    let arg = |j: usize| column_index(input, &agg.args[j], &format!("{path}.args[{j}]"), input_name);
    let arity = |n: usize, usage: &str| {
        if agg.args.len() == n {
            Ok(())
        } else {
            Err(ScenarioError::new(
                format!("{path}.args"),
                format!("{usage} takes {n} argument(s), found {}", agg.args.len()),
            ))
        }
    };
    let numeric = |i: usize, j: usize| {
        let t = input[i].data_type;
        if matches!(t, DataType::Int | DataType::BigInt) {
            Ok(t)
        } else {
            Err(ScenarioError::new(
                format!("{path}.args[{j}]"),
                format!("expects INT or BIGINT, column '{}' is {}", input[i].name, t.name()),
            ))
        }
    };
    match agg.function.to_uppercase().as_str() {
        "COUNT" if agg.args.len() == 1 && agg.args[0] == "*" => Ok((AggCall::CountStar, DataType::BigInt)),
        "COUNT" => {
            arity(1, "COUNT(x) or COUNT(*)")?;
            Ok((AggCall::Count(arg(0)?), DataType::BigInt))
        }
        "SUM" => {
            arity(1, "SUM(x)")?;
            let i = arg(0)?;
            let t = numeric(i, 0)?;
            Ok((AggCall::Sum { arg: i, int32: t == DataType::Int }, t))
        }
        "LAST_VALUE" => {
            arity(1, "LAST_VALUE(x)")?;
            let i = arg(0)?;
            Ok((AggCall::LastValue(i), input[i].data_type))
        }
        "LATEST_BY_TIME" => {
            arity(2, "LATEST_BY_TIME(value, time)")?;
            let (value, time) = (arg(0)?, arg(1)?);
            numeric(time, 1)?;
            Ok((AggCall::LatestByTime { value, time }, input[value].data_type))
        }
        other => Err(ScenarioError::new(
            format!("{path}.function"),
            format!("unknown aggregate function '{other}' (known: COUNT, SUM, LAST_VALUE, LATEST_BY_TIME)"),
        )),
    }
}

fn compile_steps(
    raw: &[RawStep],
    start: Option<TimeValue>,
    source: &Source,
) -> Result<(Vec<Step>, Millis, bool), ScenarioError> {
    let first_time = raw.iter().find_map(|s| s.at.or(s.advance_to));
    let start_ms = start.or(first_time).map_or(0, |t| t.ms);
    let mut wrote_date_times = false;
    let mut now = start_ms;
    let mut steps = Vec::with_capacity(raw.len());
    for (i, s) in raw.iter().enumerate() {
        let path = format!("steps[{i}]");
        let backwards = |t: Millis, field: &str| {
            Err(ScenarioError::new(
                format!("{path}.{field}"),
                format!(
                    "processing time never goes backwards: {t} ms is before {now} ms, the time reached before this step"
                ),
            ))
        };
        let step = match (&s.row, s.advance_to, s.advance_by) {
            (Some(values), None, None) => {
                if let Some(at) = s.at {
                    wrote_date_times |= at.date_time;
                    if at.ms < now {
                        return backwards(at.ms, "at");
                    }
                    now = at.ms;
                }
                compile_input(values, s.at.map(|t| t.ms), s.kind.as_deref(), source, &path)?
            }
            (None, Some(to), None) if s.at.is_none() && s.kind.is_none() => {
                wrote_date_times |= to.date_time;
                if to.ms < now {
                    return backwards(to.ms, "advance_to");
                }
                now = to.ms;
                Step::AdvanceTo(to.ms)
            }
            (None, None, Some(by)) if s.at.is_none() && s.kind.is_none() => {
                now = check_time(now + by.0).map_err(|m| ScenarioError::new(format!("{path}.advance_by"), m))?;
                Step::AdvanceBy(by.0)
            }
            _ => {
                return Err(ScenarioError::new(
                    path,
                    "a step is either an input {\"at\", \"row\", \"kind\"} or {\"advance_to\": time} or \
                     {\"advance_by\": duration}, exactly one of `row`, `advance_to`, `advance_by`",
                ))
            }
        };
        steps.push(step);
    }
    Ok((steps, start_ms, wrote_date_times))
}

fn compile_input(
    values: &[serde_json::Value],
    at: Option<Millis>,
    kind: Option<&str>,
    source: &Source,
    path: &str,
) -> Result<Step, ScenarioError> {
    let kind = match kind {
        None => RowKind::Insert,
        Some(k) => RowKind::parse(k).ok_or_else(|| {
            ScenarioError::new(format!("{path}.kind"), format!("'{k}' is not a row kind (+I, -U, +U, -D)"))
        })?,
    };
    if kind != RowKind::Insert && source.changelog == SourceChangelog::InsertOnly {
        return Err(ScenarioError::new(
            format!("{path}.kind"),
            format!(
                "source '{}' is insert-only: set source.changelog to \"all\" to feed {} rows",
                source.name,
                kind.short_string()
            ),
        ));
    }
    if values.len() != source.columns.len() {
        let names: Vec<&str> = source.columns.iter().map(|c| c.name.as_str()).collect();
        return Err(ScenarioError::new(
            format!("{path}.row"),
            format!(
                "has {} values, source '{}' has {} columns ({})",
                values.len(),
                source.name,
                names.len(),
                names.join(", ")
            ),
        ));
    }
    let row = values
        .iter()
        .zip(&source.columns)
        .enumerate()
        .map(|(j, (v, col))| {
            col.data_type
                .value_from_json(v)
                .map_err(|m| ScenarioError::new(format!("{path}.row[{j}]"), format!("column '{}': {m}", col.name)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Step::Input { at, kind, row: Row(row) })
}
