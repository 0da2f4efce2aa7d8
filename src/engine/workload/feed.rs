//! Which sources a workload feeds: one (`key_column` and `columns` at the top level), or several
//! (`sources`: each its share of the events, its key column, its columns' generators), all
//! drawing their keys from the one population, so a join's two inputs meet on the same keys.

use super::{parse_form, ColumnGenerator, RawColumnGenerator, RawWorkload};
use crate::engine::error::{name_list, quote, ScenarioError};
use crate::engine::row::{Column, DataType};
use crate::engine::scenario::Source;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One source of a workload of several.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "{\"source\", \"share\", \"key_column\", \"columns\"}")]
#[schemars(rename = "WorkloadSource")]
pub(crate) struct RawFeed {
    /// The source's name.
    source: String,
    /// Its share of the events (0 to 1; the shares add up to 1).
    share: f64,
    /// Its column that gets the event's key.
    key_column: String,
    /// One generator per other column.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, RawColumnGenerator>")]
    columns: BTreeMap<String, Box<serde_json::value::RawValue>>,
}

/// A source the workload feeds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Feed {
    /// Its index in the scenario's sources.
    pub(crate) source: usize,
    /// The events up to this share (cumulative) go to it.
    pub(crate) share_end: f64,
    pub(crate) key_type: DataType,
    /// One generator per column (`None` for the key column).
    pub(crate) generators: Vec<Option<ColumnGenerator>>,
}

/// The feeds of `w` over the scenario's `sources`; keys are numbered up to `fresh_max`.
pub(crate) fn compile(w: &RawWorkload, sources: &[Source], fresh_max: u64) -> Result<Vec<Feed>, ScenarioError> {
    let err = |field: &str, msg: String| ScenarioError::new(format!("workload.{field}"), msg);
    let Some(list) = &w.sources else {
        if sources.len() > 1 {
            return Err(err(
                "sources",
                format!(
                    "the scenario has several sources ({}): give each one's share, key column and columns",
                    name_list(sources.iter().map(|s| s.name.as_str()))
                ),
            ));
        }
        let key_column = w.key_column.as_deref().ok_or_else(|| err("key_column", "missing".into()))?;
        let feed = feed(0, 1.0, &sources[0].columns, key_column, &w.columns, "", fresh_max)?;
        return Ok(vec![feed]);
    };
    if w.key_column.is_some() || !w.columns.is_empty() {
        let field = if w.key_column.is_some() { "key_column" } else { "columns" };
        return Err(err(field, "with `sources`, each source names its key column and columns".into()));
    }
    if list.is_empty() {
        return Err(err("sources", "needs at least one source".into()));
    }
    let mut feeds: Vec<Feed> = Vec::new();
    let mut total = 0.0;
    for (i, f) in list.iter().enumerate() {
        let path = format!("sources[{i}].");
        let s = sources.iter().position(|s| s.name == f.source).ok_or_else(|| {
            err(
                &format!("{path}source"),
                format!(
                    "{} is not a source of the scenario: {}",
                    quote(&f.source),
                    name_list(sources.iter().map(|s| s.name.as_str()))
                ),
            )
        })?;
        if feeds.iter().any(|x| x.source == s) {
            return Err(err(&format!("{path}source"), format!("{} is fed twice", quote(&f.source))));
        }
        if !(f.share > 0.0 && f.share <= 1.0) {
            return Err(err(&format!("{path}share"), format!("{} is not a share in (0, 1]", f.share)));
        }
        total += f.share;
        feeds.push(feed(s, total, &sources[s].columns, &f.key_column, &f.columns, &path, fresh_max)?);
    }
    if (total - 1.0).abs() > 1e-9 {
        return Err(err("sources", format!("the shares add up to {total}, not 1")));
    }
    if let Some(last) = feeds.last_mut() {
        last.share_end = 1.0;
    }
    Ok(feeds)
}

/// One source's feed: its key column (numbered keys fit its type) and a generator for every
/// other column.
fn feed(
    source: usize,
    share_end: f64,
    columns: &[Column],
    key_column: &str,
    generators_raw: &BTreeMap<String, Box<serde_json::value::RawValue>>,
    path: &str,
    fresh_max: u64,
) -> Result<Feed, ScenarioError> {
    let err = |field: &str, msg: String| ScenarioError::new(format!("workload.{path}{field}"), msg);
    let key = columns
        .iter()
        .position(|c| c.name == key_column)
        .ok_or_else(|| err("key_column", format!("no column {} in the source", quote(key_column))))?;
    let key_type = columns[key].data_type;
    match key_type {
        DataType::String | DataType::BigInt => {}
        DataType::Int if fresh_max <= i32::MAX as u64 => {}
        other => {
            return Err(err(
                "key_column",
                format!(
                    "{} is {}: keys are numbered 0 ..= {fresh_max}; use STRING, BIGINT or INT",
                    quote(key_column),
                    other.name()
                ),
            ))
        }
    }
    let mut generators = vec![None; columns.len()];
    for (name, raw) in generators_raw {
        let field = format!("columns.{}", crate::engine::error::name(name));
        let g: RawColumnGenerator = parse_form(
            raw,
            &format!("{path}{field}"),
            "a column generator: \"proctime\", \"sequence\", {\"constant\": v}, {\"uniform\": [lo, hi]} or {\"one_of\": [v, ...]}",
        )?;
        let i = columns
            .iter()
            .position(|c| c.name == *name)
            .ok_or_else(|| err(&field, format!("no column {} in the source", quote(name))))?;
        if i == key {
            return Err(err(&field, "the key column is generated from `keys`; give it no generator".into()));
        }
        let t = columns[i].data_type;
        let value = |v: &serde_json::Value| t.value_from_json(v).map_err(|m| err(&field, m));
        generators[i] = Some(match &g {
            RawColumnGenerator::Proctime | RawColumnGenerator::Sequence if t != DataType::BigInt => {
                return Err(err(&field, format!("needs a BIGINT column, {} is {}", quote(name), t.name())));
            }
            RawColumnGenerator::Proctime => ColumnGenerator::Proctime,
            RawColumnGenerator::Sequence => ColumnGenerator::Sequence,
            RawColumnGenerator::Constant(v) => ColumnGenerator::Constant(value(v)?),
            RawColumnGenerator::Uniform([lo, hi]) => {
                value(&serde_json::json!(lo))?;
                value(&serde_json::json!(hi))?;
                if lo > hi {
                    return Err(err(&field, format!("uniform range [{lo}, {hi}] is empty")));
                }
                ColumnGenerator::Uniform(*lo, *hi)
            }
            RawColumnGenerator::OneOf(vs) if vs.is_empty() => {
                return Err(err(&field, "one_of needs at least one value".into()));
            }
            RawColumnGenerator::OneOf(vs) => ColumnGenerator::OneOf(vs.iter().map(value).collect::<Result<_, _>>()?),
        });
    }
    if let Some((_, c)) = columns.iter().enumerate().find(|(i, _)| *i != key && generators[*i].is_none()) {
        return Err(err(
            "columns",
            format!("column {} has no generator (proctime, sequence, constant, uniform or one_of)", quote(&c.name)),
        ));
    }
    Ok(Feed { source, share_end, key_type, generators })
}
