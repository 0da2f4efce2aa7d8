//! The SQL planner: a Flink SQL script (`SET`s, `CREATE TEMPORARY VIEW`s, one query) over the
//! scenario's source → the scenario format's pipeline, planned the way Flink 2.3's planner
//! plans it, so that the pipeline's operators are the nodes of Flink's optimized plan.
//!
//! Layers, each in its file:
//! - `script`: statements split and parsed (sqlparser);
//! - `convert`: SQL → relational tree (Calcite's `SqlToRelConverter`, Flink's rank rule), with
//!   `window` (`OVER`) and `aggregate` (`GROUP BY`);
//! - `optimize`: field trimming, Calc merging and removal (Flink's stream optimizer);
//! - `emit`: the tree → the pipeline's JSON operators, which the scenario then validates and
//!   compiles exactly as a hand-written pipeline (one path to running operators).
//!
//! The physical choices that depend on options and on the input's changelog (rank strategy,
//! deduplication, local/global aggregation, `_RETRACT` calls, changelog modes) are made by the
//! engine's operators when the pipeline is compiled, in one place for SQL and JSON alike.

mod aggregate;
mod convert;
mod emit;
mod join;
mod lateral_snapshot;
mod optimize;
mod rel;
pub mod reserved_words;
pub mod script;
pub mod sink;
mod window;

pub use convert::SourceTable;
pub use script::{SetOption, MAX_SQL_CHARS};

use convert::Catalog;
use std::collections::HashMap;

/// A planning error at a line and column of the SQL (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError {
    pub line: u64,
    pub column: u64,
    pub message: String,
}

impl std::fmt::Display for SqlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

/// A planned query.
#[derive(Debug, Clone)]
pub struct PlannedQuery {
    /// The pipeline's operators, as JSON objects of the scenario format.
    pub pipeline: Vec<serde_json::Value>,
    /// The query's output columns (what a sink receives, named as the query names them).
    pub output_names: Vec<String>,
    /// The sink table of `INSERT INTO` and its columns, if any.
    pub insert_into: Option<(String, Vec<String>)>,
    /// The same sink with its primary key and `ON CONFLICT` clause, for the sink rule
    /// ([`sink::upsert_materialize`]), which needs the compiled pipeline's changelog.
    pub sink: Option<sink::SinkTarget>,
}

/// Plans `script`'s query over `source`.
///
/// # Errors
/// The first construct that is not modelled or not valid, at its line and column.
pub fn plan(script: &script::Script, sources: &[SourceTable]) -> Result<PlannedQuery, SqlError> {
    let mut catalog = Catalog { sources, views: HashMap::new(), table_arguments: &script.table_arguments };
    for view in &script.views {
        if sources.iter().any(|s| s.name == view.name) {
            return Err(script::err(
                view.at,
                format!("Temporary table {} already exists (the source)", crate::engine::error::quote(&view.name)),
            ));
        }
        let rel = convert::query(&view.query, &catalog)?;
        catalog.views.insert(view.name.clone(), rel);
    }
    let rel = convert::query(&script.query, &catalog)?;
    if let Some((at, message)) = leftover_row_number(&rel) {
        return Err(script::err(at, message));
    }
    let output_names = rel.names.clone();
    if let Some(table) = &script.insert_into {
        let sink = script.tables.iter().find(|t| t.name == *table);
        if let Some(sink) = sink {
            if sink.columns.len() != output_names.len() {
                return Err(script::err(
                    script.query_at,
                    format!(
                        "Column types of query result and sink for {} do not match: the query has {} columns, \
                         the sink {}",
                        crate::engine::error::quote(table),
                        output_names.len(),
                        sink.columns.len()
                    ),
                ));
            }
        }
    }
    let optimized = optimize::optimize(rel);
    if let Some(message) = filter_over_normalize(&optimized, sources) {
        return Err(script::err(script.query_at, message));
    }
    let pipeline = emit::pipeline(&optimized, sources);
    if pipeline.is_empty() {
        return Err(script::err(
            script.query_at,
            "the query reads the source unchanged: there is no operator to simulate",
        ));
    }
    let insert_into = script.insert_into.as_ref().map(|table| {
        let columns =
            script.tables.iter().find(|t| t.name == *table).map_or_else(|| output_names.clone(), |t| t.columns.clone());
        (table.clone(), columns)
    });
    let sink = script.insert_into.as_ref().and_then(|table| script.tables.iter().find(|t| t.name == *table)).map(|t| {
        sink::SinkTarget {
            table: t.name.clone(),
            columns: t.columns.clone(),
            primary_key: t.primary_key.iter().filter_map(|k| t.columns.iter().position(|c| c == k)).collect(),
            on_conflict: script.on_conflict,
            at: script.query_at,
        }
    });
    Ok(PlannedQuery { pipeline, output_names, insert_into, sink })
}

/// Where a `ROW_NUMBER()` that no filter turned into a rank was written, and why Flink refuses
/// it: without a rank filter it is an OVER aggregation, which `StreamExecOverAggregate` (Flink
/// 2.3) translates only when ordered by one time attribute, ascending.
fn leftover_row_number(rel: &rel::Rel) -> Option<(sqlparser::tokenizer::Location, &'static str)> {
    if let rel::Node::RowNumber { at, order, input, .. } = &rel.node {
        let message = match order.as_slice() {
            [_, _, ..] => "The window can only be ordered by a single time column.",
            [(_, true)] => "The window can only be ordered in ASCENDING mode.",
            // Flink 2.3 runs a ROW_NUMBER over a non-time ascending order as an OVER aggregation
            // (`over_row_number_nontime_asc`), which the engine does not model.
            [(field, false)] if !is_proctime(input, *field) => {
                "ROW_NUMBER() without a rank filter, over a non-time order: Flink 2.3 runs it as an OVER \
                 aggregation (NonTimeRowsUnboundedPrecedingFunction), which is not modelled"
            }
            _ => {
                "ROW_NUMBER() without a filter on it (WHERE rn <= N) is not modelled: Flink plans a Top-N or a \
                  deduplication only from a filter on the row number"
            }
        };
        return Some((*at, message));
    }
    rel.inputs().into_iter().find_map(leftover_row_number)
}

/// Why a filter right above the scan of a table Flink normalizes is refused: Flink 2.3.0 moves
/// it — below the `ChangelogNormalize` when it reads only primary key columns, into it
/// (`ChangelogNormalize(key=[id], condition=[…])`, `processLastRowOnChangelogWithFilter`)
/// otherwise, and into the scan (`filter=[…]`) for a source that accepts filters
/// (`PushCalcPastChangelogNormalizeRule`, `PushFilterIntoTableSourceScanRule`) — which is not
/// modelled.
fn filter_over_normalize(rel: &rel::Rel, sources: &[SourceTable]) -> Option<String> {
    if let rel::Node::Calc { input, condition: Some(_), .. } = &rel.node {
        if let rel::Node::Scan(table) = &input.node {
            if sources.iter().any(|s| s.name == *table && s.normalize.is_some()) {
                return Some(format!(
                    "a filter on {}, which Flink reads through a ChangelogNormalize: Flink 2.3 pushes it below \
                     or into the ChangelogNormalize (condition=[…]) and into the scan, which is not modelled; \
                     filter after an aggregation or a join instead",
                    crate::engine::error::quote(table)
                ));
            }
        }
    }
    rel.inputs().into_iter().find_map(|r| filter_over_normalize(r, sources))
}

/// Whether field `i` of `rel` is the source's processing-time attribute, passed on unchanged.
fn is_proctime(rel: &rel::Rel, i: usize) -> bool {
    match &rel.node {
        rel::Node::Calc { input, items, .. } => match items.get(i) {
            Some(rel::Ex::ProcTime) => true,
            Some(rel::Ex::Col(j)) => is_proctime(input, *j),
            _ => false,
        },
        rel::Node::Over { input, .. } | rel::Node::Rank { input, .. } | rel::Node::RowNumber { input, .. } => {
            i < input.names.len() && is_proctime(input, i)
        }
        rel::Node::Scan(_) | rel::Node::Aggregate { .. } | rel::Node::Join { .. } => false,
    }
}
