//! The sink of `INSERT INTO` a table with a `PRIMARY KEY`: whether Flink 2.3 puts a
//! `SinkUpsertMaterializer` in front of it, or refuses to plan, with Flink's messages.
//!
//! Read from the 2.3.0 planner bytecode (`FlinkChangelogModeInferenceProgram$
//! SatisfyUpdateKindTraitVisitor.analyzeUpsertMaterializeStrategy`, `StreamPhysicalSink`,
//! `ExecutionConfigOptions`):
//!
//! ```text
//! inputChangelogMode = changelog mode of the sink's input (its update kind not chosen yet)
//! sinkChangelogMode  = tableSink.getChangelogMode(inputChangelogMode)      // print: the same
//! sinkIsAppend  = sinkChangelogMode.containsOnly(INSERT)
//! sinkIsRetract = sinkChangelogMode.contains(UPDATE_BEFORE)
//! if conflictStrategy != null and (sinkIsAppend or sinkIsRetract):
//!     ValidationException("ON CONFLICT clause is only allowed for upsert sinks. The sink '…' is not an
//!                          upsert sink because it only accepts INSERT (append-only) changes.")
//! if conflictStrategy is ERROR or NOTHING: validateSourcesHaveWatermarks(sink)
//! match table.exec.sink.upsert-materialize (default AUTO):
//!     FORCE → pk.nonEmpty && !sinkIsRetract
//!     NONE  → false
//!     AUTO  → if pk.isEmpty || sinkIsAppend || sinkIsRetract: false
//!             if inputIsAppend && conflictStrategy is DEDUPLICATE: false
//!             required = !primaryKeysContainsUpsertKey      // no upsert key of the input ⊆ pk
//!             if table.exec.sink.require-on-conflict (default true) && required && conflictStrategy == null:
//!                 ValidationException("The query has an upsert key that differs from the primary key …")
//!             required
//! ```
//!
//! The sinks here are Flink's `print` connector, whose `getChangelogMode(requested)` returns what
//! it is given; when Flink asks, the input's update kind is not chosen yet, so an updating input
//! reads as an upsert stream (`sinkIsRetract` is false: the fixtures' `GroupAggregate` input
//! gets `upsertMaterialize=[true]` under `AUTO`), and an insert-only input as append-only.

use super::script::{OnConflict, Script, SetOption};
use super::SqlError;
use crate::engine::error::quote;
use crate::engine::operators::ConflictBehavior;
use sqlparser::tokenizer::Location;

/// `table.exec.sink.upsert-materialize` (`ExecutionConfigOptions.UpsertMaterialize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UpsertMaterialize {
    /// Materialize where the query's upsert key is not contained in the sink's primary key.
    #[default]
    Auto,
    /// Never.
    None,
    /// Always, for a sink with a primary key.
    Force,
}

/// The options of the sink rule (set by `SET`; only the planner reads them: the JSON form of a
/// SQL scenario carries their outcome, the materializer in the pipeline or not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SinkOptions {
    /// `table.exec.sink.upsert-materialize`, default `AUTO`.
    pub upsert_materialize: UpsertMaterialize,
    /// `table.exec.sink.require-on-conflict`, default `true` (Flink 2.3).
    pub require_on_conflict: bool,
}

impl Default for SinkOptions {
    fn default() -> Self {
        SinkOptions { upsert_materialize: UpsertMaterialize::Auto, require_on_conflict: true }
    }
}

/// The options this rule reads, besides `table.exec.sink.upsert-materialize-strategy.type`
/// (only its default `LEGACY` is modelled).
pub const OPTIONS: &[&str] = &[
    "table.exec.sink.upsert-materialize",
    "table.exec.sink.require-on-conflict",
    "table.exec.sink.upsert-materialize-strategy.type",
];

/// Reads one of [`OPTIONS`] into `options`, with Flink's parse errors (enum names and booleans
/// in any case, as `ConfigurationUtils` converts them).
///
/// # Errors
/// A value Flink cannot parse, or a strategy other than `LEGACY` (`SinkUpsertMaterializerV2`,
/// not modelled).
pub fn read_option(options: &mut SinkOptions, option: &SetOption) -> Result<(), String> {
    let key = option.key.as_str();
    let value = option.value.trim();
    let bad = |expected: &str| format!("{key}: Could not parse value {} for key '{key}' ({expected})", quote(value));
    match key {
        "table.exec.sink.upsert-materialize" => {
            options.upsert_materialize = match value.to_ascii_uppercase().as_str() {
                "AUTO" => UpsertMaterialize::Auto,
                "NONE" => UpsertMaterialize::None,
                "FORCE" => UpsertMaterialize::Force,
                _ => return Err(bad("NONE, AUTO or FORCE")),
            }
        }
        "table.exec.sink.require-on-conflict" => {
            options.require_on_conflict = match value.to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => return Err(bad("true or false")),
            }
        }
        _ => match value.to_ascii_uppercase().as_str() {
            "LEGACY" => {}
            "VALUE" | "MAP" | "ADAPTIVE" => {
                return Err(format!(
                    "{key} = {}: Flink 2.3 then runs SinkUpsertMaterializerV2 (SequencedMultiSetState, state TTL \
                     disabled), which is not modelled; LEGACY (the default) runs SinkUpsertMaterializer",
                    quote(value)
                ))
            }
            _ => return Err(bad("LEGACY, VALUE, MAP or ADAPTIVE")),
        },
    }
    Ok(())
}

/// The sink's options from the script's `SET`s.
///
/// # Errors
/// As [`read_option`], at the `SET`'s line and column.
pub fn options(script: &Script) -> Result<SinkOptions, SqlError> {
    let mut options = SinkOptions::default();
    for option in script.options.iter().filter(|o| OPTIONS.contains(&o.key.as_str())) {
        read_option(&mut options, option).map_err(|m| super::script::err(option.at, m))?;
    }
    Ok(options)
}

/// The `INSERT INTO` target as the rule sees it.
#[derive(Debug, Clone)]
pub struct SinkTarget {
    pub table: String,
    /// The sink's columns (the query's output columns map to them in order).
    pub columns: Vec<String>,
    /// The primary key's column positions (empty: none).
    pub primary_key: Vec<usize>,
    pub on_conflict: Option<OnConflict>,
    /// Where the `INSERT` was written (Flink's `ValidationException` has no position; the
    /// statement's is given).
    pub at: Location,
}

impl SinkTarget {
    /// `ObjectIdentifier.asSummaryString()` of a temporary table.
    pub fn identifier(&self) -> String {
        format!("default_catalog.default_database.{}", self.table)
    }
}

/// What the rule needs of the query's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryOutput {
    /// Its changelog holds inserts only.
    pub insert_only: bool,
    /// Its upsert key (column positions), `None` when it has none.
    pub upsert_key: Option<Vec<usize>>,
}

/// `analyzeUpsertMaterializeStrategy` (Flink 2.3.0): whether the sink materializes, or Flink's
/// refusal at its place in the SQL. `sources` are the tables the query reads (none of them has
/// a watermark here).
///
/// # Errors
/// Flink's `ValidationException` messages: `ON CONFLICT` on an append-only sink, `DO ERROR` /
/// `DO NOTHING` without watermarks, an upsert key differing from the primary key without
/// `ON CONFLICT` while `table.exec.sink.require-on-conflict` is on.
pub fn upsert_materialize(
    sink: &SinkTarget,
    query: &QueryOutput,
    options: SinkOptions,
    sources: &[String],
) -> Result<bool, SqlError> {
    let sink_is_append = query.insert_only;
    let sink_is_retract = false;
    if let Some(c) = sink.on_conflict {
        if sink_is_append || sink_is_retract {
            let why = if sink_is_append {
                "it only accepts INSERT (append-only) changes"
            } else {
                "it requires UPDATE_BEFORE (retract mode)"
            };
            return Err(super::script::err(
                c.at,
                format!(
                    "ON CONFLICT clause is only allowed for upsert sinks. The sink '{}' is not an upsert sink because \
                     {why}.",
                    sink.identifier()
                ),
            ));
        }
        if matches!(c.behavior, ConflictBehavior::Error | ConflictBehavior::Nothing) {
            // `validateSourcesHaveWatermarks`: the simulator's sources declare no WATERMARK.
            let names: Vec<String> = sources.iter().map(|s| format!("default_catalog.default_database.{s}")).collect();
            return Err(super::script::err(
                c.at,
                format!(
                    "ON CONFLICT DO {} requires all source tables to define watermarks, but the following source(s) do \
                     not: {}. Please add a WATERMARK declaration to these tables.",
                    c.behavior.name(),
                    names.join(", ")
                ),
            ));
        }
    }
    let pk = &sink.primary_key;
    match options.upsert_materialize {
        UpsertMaterialize::Force => Ok(!pk.is_empty() && !sink_is_retract),
        UpsertMaterialize::None => Ok(false),
        UpsertMaterialize::Auto => {
            if pk.is_empty() || sink_is_append || sink_is_retract {
                return Ok(false);
            }
            let dedup = sink.on_conflict.is_some_and(|c| c.behavior == ConflictBehavior::Deduplicate);
            if query.insert_only && dedup {
                return Ok(false);
            }
            // `primaryKeysContainsUpsertKey`: some upsert key ⊆ the primary key.
            let contained = query.upsert_key.as_ref().is_some_and(|uk| uk.iter().all(|i| pk.contains(i)));
            let required = !contained;
            if options.require_on_conflict && required && sink.on_conflict.is_none() {
                let names = |cols: &[usize]| -> String {
                    let names: Vec<&str> =
                        cols.iter().filter_map(|&i| sink.columns.get(i)).map(String::as_str).collect();
                    format!("[{}]", names.join(", "))
                };
                // `getUpsertKeyNames`: each upsert key as `[a, b]`, joined by `, `.
                let upsert = query.upsert_key.as_deref().map(names).unwrap_or_default();
                return Err(super::script::err(
                    sink.at,
                    format!(
                        "The query has an upsert key that differs from the primary key of the sink table '{}'. \
                         Primary key: {}, upsert key: {upsert}. This can lead to non-deterministic results when \
                         multiple records with different upsert keys map to the same primary key. Please specify an \
                         ON CONFLICT clause to define how conflicts should be handled: ON CONFLICT DO DEDUPLICATE \
                         (update to the latest record, state intensive, since we need to keep the entire history), \
                         or ON CONFLICT DO ERROR (fail on conflict), or ON CONFLICT DO NOTHING (keep first record).",
                        sink.identifier(),
                        names(pk),
                    ),
                ));
            }
            Ok(required)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sink(on_conflict: Option<ConflictBehavior>) -> SinkTarget {
        let at = Location { line: 2, column: 1 };
        SinkTarget {
            table: "snk".into(),
            columns: vec!["k".into(), "v".into()],
            primary_key: vec![1],
            on_conflict: on_conflict.map(|behavior| OnConflict { behavior, at: Location { line: 2, column: 60 } }),
            at,
        }
    }

    const UPDATING_ON_K: QueryOutput = QueryOutput { insert_only: false, upsert_key: None };

    fn on_k() -> QueryOutput {
        QueryOutput { upsert_key: Some(vec![0]), ..UPDATING_ON_K }
    }

    fn mode(m: UpsertMaterialize, require: bool) -> SinkOptions {
        SinkOptions { upsert_materialize: m, require_on_conflict: require }
    }

    fn src() -> Vec<String> {
        vec!["src".into()]
    }

    #[test]
    fn auto_materializes_when_the_upsert_key_is_not_in_the_primary_key() {
        let dedup = sink(Some(ConflictBehavior::Deduplicate));
        assert_eq!(upsert_materialize(&dedup, &on_k(), SinkOptions::default(), &src()), Ok(true));
        assert_eq!(upsert_materialize(&sink(None), &on_k(), mode(UpsertMaterialize::Auto, false), &src()), Ok(true));
        let e = upsert_materialize(&sink(None), &on_k(), SinkOptions::default(), &src()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.message.starts_with(
            "The query has an upsert key that differs from the primary key of the sink table \
             'default_catalog.default_database.snk'. Primary key: [v], upsert key: [k]. This can lead"
        ));
        // The upsert key inside the primary key: nothing to materialize, nothing to refuse.
        let mut on_v = sink(None);
        on_v.primary_key = vec![0, 1];
        assert_eq!(upsert_materialize(&on_v, &on_k(), SinkOptions::default(), &src()), Ok(false));
        // No upsert key at all: the key cannot be in the primary key.
        assert_eq!(upsert_materialize(&dedup, &UPDATING_ON_K, SinkOptions::default(), &src()), Ok(true));
    }

    #[test]
    fn none_and_force_decide_alone() {
        let none = mode(UpsertMaterialize::None, true);
        assert_eq!(upsert_materialize(&sink(None), &on_k(), none, &src()), Ok(false));
        let force = mode(UpsertMaterialize::Force, true);
        assert_eq!(upsert_materialize(&sink(None), &on_k(), force, &src()), Ok(true));
        // FORCE materializes an insert-only query too, but needs a primary key.
        let append = QueryOutput { insert_only: true, upsert_key: None };
        assert_eq!(upsert_materialize(&sink(None), &append, force, &src()), Ok(true));
        let mut no_pk = sink(None);
        no_pk.primary_key.clear();
        assert_eq!(upsert_materialize(&no_pk, &on_k(), force, &src()), Ok(false));
        assert_eq!(upsert_materialize(&sink(None), &append, SinkOptions::default(), &src()), Ok(false));
    }

    #[test]
    fn on_conflict_refusals_are_flinks() {
        let e = upsert_materialize(&sink(Some(ConflictBehavior::Nothing)), &on_k(), SinkOptions::default(), &src())
            .unwrap_err();
        assert_eq!((e.line, e.column), (2, 60));
        assert_eq!(
            e.message,
            "ON CONFLICT DO NOTHING requires all source tables to define watermarks, but the following source(s) do \
             not: default_catalog.default_database.src. Please add a WATERMARK declaration to these tables."
        );
        // Before any mode is read: NONE refuses it too.
        let none = mode(UpsertMaterialize::None, true);
        let e = upsert_materialize(&sink(Some(ConflictBehavior::Error)), &on_k(), none, &src()).unwrap_err();
        assert!(e.message.starts_with("ON CONFLICT DO ERROR requires all source tables"), "{}", e.message);
        let append = QueryOutput { insert_only: true, upsert_key: None };
        let e = upsert_materialize(&sink(Some(ConflictBehavior::Deduplicate)), &append, none, &src()).unwrap_err();
        assert_eq!(
            e.message,
            "ON CONFLICT clause is only allowed for upsert sinks. The sink 'default_catalog.default_database.snk' is \
             not an upsert sink because it only accepts INSERT (append-only) changes."
        );
    }

    #[test]
    fn options_parse_as_flink_parses_them() {
        let set = |key: &str, value: &str| SetOption {
            key: key.into(),
            value: value.into(),
            at: Location { line: 1, column: 1 },
        };
        let mut o = SinkOptions::default();
        read_option(&mut o, &set("table.exec.sink.upsert-materialize", "force")).unwrap();
        read_option(&mut o, &set("table.exec.sink.require-on-conflict", "FALSE")).unwrap();
        assert_eq!(o, mode(UpsertMaterialize::Force, false));
        let e = read_option(&mut o, &set("table.exec.sink.upsert-materialize", "always")).unwrap_err();
        assert!(e.contains("Could not parse value 'always'"), "{e}");
        read_option(&mut o, &set("table.exec.sink.upsert-materialize-strategy.type", "LEGACY")).unwrap();
        let e = read_option(&mut o, &set("table.exec.sink.upsert-materialize-strategy.type", "MAP")).unwrap_err();
        assert!(e.contains("SinkUpsertMaterializerV2"), "{e}");
    }
}
