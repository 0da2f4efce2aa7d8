//! A source's changelog mode and primary key: which row kinds its steps may carry, and which
//! primary keys Flink 2.3.0 accepts (the rules in one place).
//!
//! - `insert-only`: `+I` rows only (`ChangelogMode.insertOnly()`).
//! - `all`: `+I`, `-U`, `+U`, `-D` (`ChangelogMode.all()`, a Debezium changelog), with or without
//!   a primary key; with one and `table.exec.source.cdc-events-duplicate` the planner puts a
//!   `ChangelogNormalize` over the scan ([`Source::planned_normalize`]).
//! - `upsert`: `+I` and `+U` replace the key's row, `-D` deletes it, never `-U`
//!   (`ChangelogMode.upsert()`: `UPDATE_AFTER` without `UPDATE_BEFORE`, what `upsert-kafka`
//!   reads). It needs a primary key; the planner always puts a `ChangelogNormalize` over it
//!   (`DynamicSourceUtils.isUpsertSource`, Flink 2.3.0 bytecode).
//!
//! The primary key is checked as `DefaultSchemaResolver.validatePrimaryKey` checks it (Flink
//! 2.3.0, its messages read from `flink-table-api-java-uber-2.3.0.jar`): its columns exist, are
//! physical (not the processing-time attribute) and appear once; the key is named
//! `PK_<col>_<col>` (`Schema.Builder.primaryKey`). Its columns are NOT NULL (`Column '…' is
//! nullable` for a column declared `NULL`): a step row with NULL in one is refused.

use super::raw::RawSource;
use super::{NodeInput, OperatorNode, Source, SourceChangelog};
use crate::engine::error::{quote, ScenarioError};
use crate::engine::options::FlinkMode;
use crate::engine::row::{Column, Row, RowKind, Value};

/// The primary key's column indexes, checked against the source's mode and schema.
///
/// # Errors
/// An upsert source before Flink 1.12, a key on an insert-only source, an upsert source without a key (the `upsert-kafka`
/// connector's message), an unknown, non-physical or repeated column (Flink's messages).
pub(super) fn compile_primary_key(
    raw: &RawSource,
    columns: &[Column],
    path: &str,
    flink: FlinkMode,
) -> Result<Vec<usize>, ScenarioError> {
    if raw.changelog == SourceChangelog::Upsert && !flink.has_row_kind() {
        return Err(ScenarioError::new(
            format!("{path}.changelog"),
            format!(
                "the {} has no upsert sources: upsert-kafka and ChangelogNormalize came with Flink 1.12 (use \
                 \"flink\": \"2.3\")",
                flink.label()
            ),
        ));
    }
    let field = format!("{path}.primary_key");
    let Some(names) = &raw.primary_key else {
        if raw.changelog == SourceChangelog::Upsert {
            // `UpsertKafkaDynamicTableFactory.validatePKConstraints` (flink-connector-kafka).
            return Err(ScenarioError::new(
                field,
                "missing: 'upsert-kafka' tables require to define a PRIMARY KEY constraint. The PRIMARY KEY \
                 specifies which columns should be read from or write to the Kafka message key. The PRIMARY KEY \
                 also defines records in the 'upsert-kafka' table should update or delete on which keys.",
            ));
        }
        return Ok(Vec::new());
    };
    if raw.changelog == SourceChangelog::InsertOnly {
        return Err(ScenarioError::new(
            field,
            "a primary key is modelled on a changelog source only: set changelog to \"upsert\" (upsert-kafka) or \
             \"all\" (a Debezium changelog); an insert-only source's key changes nothing Flink plans",
        ));
    }
    if names.is_empty() {
        return Err(ScenarioError::new(field, "a primary key needs at least one column"));
    }
    let name = format!("PK_{}", names.join("_"));
    let mut key = Vec::with_capacity(names.len());
    for (i, column) in names.iter().enumerate() {
        if names[..i].contains(column) {
            return Err(ScenarioError::new(
                format!("{field}[{i}]"),
                format!(
                    "Invalid primary key {}. A primary key must not contain duplicate columns. Found: [{}]",
                    quote(&name),
                    crate::engine::error::name(column)
                ),
            ));
        }
        match columns.iter().position(|c| c.name == *column) {
            Some(at) => key.push(at),
            None if raw.proctime.as_deref() == Some(column.as_str()) => {
                return Err(ScenarioError::new(
                    format!("{field}[{i}]"),
                    format!("Invalid primary key {}. Column {} is not a physical column.", quote(&name), quote(column)),
                ))
            }
            None => {
                return Err(ScenarioError::new(
                    format!("{field}[{i}]"),
                    format!("Invalid primary key {}. Column {} does not exist.", quote(&name), quote(column)),
                ))
            }
        }
    }
    Ok(key)
}

/// Whether `source` may emit a row of `kind`.
///
/// # Errors
/// A kind the source's changelog mode does not contain, naming the mode to set.
pub(super) fn check_row_kind(source: &Source, kind: RowKind, field: String) -> Result<(), ScenarioError> {
    match (source.changelog, kind) {
        (_, RowKind::Insert) | (SourceChangelog::All, _) => Ok(()),
        (SourceChangelog::Upsert, RowKind::UpdateAfter | RowKind::Delete) => Ok(()),
        (SourceChangelog::Upsert, _) => Err(ScenarioError::new(
            field,
            format!(
                "source {} is an upsert source (changelog \"upsert\", ChangelogMode.upsert()): it emits +I, +U and \
                 -D by key, never -U (ChangelogNormalize makes the -U from the stored row); use \"all\" for a \
                 changelog with -U",
                quote(&source.name)
            ),
        )),
        (SourceChangelog::InsertOnly, _) => Err(ScenarioError::new(
            field,
            format!(
                "source {} is insert-only: set source.changelog to \"all\" (or \"upsert\", without -U) to feed {} rows",
                quote(&source.name),
                kind.short_string()
            ),
        )),
    }
}

/// A step row's primary key columns hold no NULL.
///
/// # Errors
/// The first NULL key column, at `{path}.row[j]`.
pub(super) fn check_key_not_null(source: &Source, row: &Row, path: &str) -> Result<(), ScenarioError> {
    for &j in &source.primary_key {
        if row.0.get(j) == Some(&Value::Null) {
            return Err(ScenarioError::new(
                format!("{path}.row[{j}]"),
                format!(
                    "NULL in primary key column {} of source {}: primary key columns are NOT NULL (Flink: \
                     \"Invalid primary key 'PK_…'. Column '…' is nullable.\")",
                    quote(&source.columns[j].name),
                    quote(&source.name)
                ),
            ));
        }
    }
    Ok(())
}

impl Source {
    /// The primary key's column names.
    pub fn primary_key_names(&self) -> Vec<String> {
        self.primary_key.iter().map(|&i| self.columns[i].name.clone()).collect()
    }

    /// The key of the `ChangelogNormalize` Flink 2.3.0's `StreamPhysicalTableSourceScanRule` puts
    /// over a scan of this source, if it puts one: `DynamicSourceUtils.changelogNormalizeEnabled`
    /// = `isUpsertSource || isSourceChangeEventsDuplicate` — an upsert source (updates without
    /// `UPDATE_BEFORE`, with a primary key), or a changelog source with a primary key when
    /// `table.exec.source.cdc-events-duplicate` (`cdc_events_duplicate`) is on. (The third
    /// condition, not being the versioned side of an event-time temporal join, always holds here.)
    pub fn planned_normalize(&self, cdc_events_duplicate: bool) -> Option<Vec<String>> {
        let normalize = match self.changelog {
            SourceChangelog::Upsert => true,
            SourceChangelog::All => cdc_events_duplicate,
            SourceChangelog::InsertOnly => false,
        };
        (normalize && !self.primary_key.is_empty()).then(|| self.primary_key_names())
    }
}

/// An operator that needs `UPDATE_BEFORE` (an aggregation, a join …) never reads an upsert source
/// directly: Flink's planner always puts a `ChangelogNormalize` over its scan.
///
/// # Errors
/// Naming the operator's input field and the normalize to put before it.
pub(super) fn check_direct_read(source: &Source, reader: &str, field: String) -> Result<(), ScenarioError> {
    if source.changelog != SourceChangelog::Upsert {
        return Ok(());
    }
    Err(ScenarioError::new(
        field,
        format!(
            "{} reads the upsert source {} directly, but needs UPDATE_BEFORE to retract old rows and an upsert \
             source has none: Flink reads it through ChangelogNormalize(key=[{}]) (put a ChangelogNormalize \
             operator before it)",
            quote(reader),
            quote(&source.name),
            source.primary_key_names().join(", ")
        ),
    ))
}

/// Removes the `ChangelogNormalize` operators at `removed` (indexes into `pipeline`, each reading
/// a source, as the planner emits them) from a planned pipeline, their consumers reading the
/// source instead: what Flink 2.3.0's `FlinkChangelogModeInferenceProgram` does with a normalize
/// nothing downstream needs `UPDATE_BEFORE` from (`sql::drop_unneeded_update_before` decides
/// which). `first` is the pipeline compiled once.
pub(super) fn remove_normalizes(
    pipeline: &mut Vec<serde_json::Value>,
    removed: &[usize],
    first: &[OperatorNode],
    sources: &[Source],
) {
    for &i in removed.iter().rev() {
        let Some(NodeInput::Source(s)) = first[i].inputs.first() else { continue };
        let source = serde_json::Value::String(sources[*s].name.clone());
        let id = pipeline[i]["id"].clone();
        pipeline.remove(i);
        for (j, op) in pipeline.iter_mut().enumerate().skip(i) {
            // Its consumer read it by name, or implicitly as the operator listed before it.
            let implicit = j == i && ["input", "left", "right"].iter().all(|f| op.get(*f).is_none());
            for field in ["input", "left", "right"] {
                if op.get(field) == Some(&id) {
                    op[field] = source.clone();
                }
            }
            if implicit {
                op["input"] = source.clone();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Scenario;
    use serde_json::json;

    /// A normalize nobody needs `UPDATE_BEFORE` from is taken out, its consumer reading the
    /// source by name, whether it named the normalize or read it implicitly.
    #[test]
    fn a_removed_normalize_hands_its_source_to_its_consumer() {
        let pipeline = json!([
            { "operator": "ChangelogNormalize", "id": "n1", "key": ["id"] },
            { "operator": "Calc", "id": "c1", "select": ["id", "v"] },
            { "operator": "ChangelogNormalize", "id": "n2", "key": ["id"], "input": "src2" },
            { "operator": "Calc", "id": "c2", "select": ["id"], "input": "n2" },
            { "operator": "Join", "id": "j", "left": "c1", "right": "c2", "join_type": "INNER", "on": [["id", "id"]] }
        ]);
        let source = |name: &str| {
            json!({ "name": name, "schema": [["id", "INT"], ["v", "STRING"]],
                                          "changelog": "upsert", "primary_key": ["id"] })
        };
        let text = json!({ "name": "t", "flink": "2.3", "sources": [source("src1"), source("src2")],
                           "pipeline": pipeline.clone() })
        .to_string();
        // `sources[0]` is the only source the first operator reads implicitly: name it.
        let text = text.replacen(r#""key":["id"]}"#, r#""key":["id"],"input":"src1"}"#, 1);
        let scenario = Scenario::from_json(&text).unwrap();
        let mut planned: Vec<serde_json::Value> = pipeline.as_array().unwrap().clone();
        remove_normalizes(&mut planned, &[0, 2], &scenario.operators, &scenario.sources);
        assert_eq!(
            planned,
            [
                json!({ "operator": "Calc", "id": "c1", "select": ["id", "v"], "input": "src1" }),
                json!({ "operator": "Calc", "id": "c2", "select": ["id"], "input": "src2" }),
                json!({ "operator": "Join", "id": "j", "left": "c1", "right": "c2", "join_type": "INNER",
                        "on": [["id", "id"]] }),
            ]
        );
    }
}
