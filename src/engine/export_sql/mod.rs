//! `flink-state-sim export-sql`: a scenario → a Flink SQL script that Flink 2.3's SQL client runs
//! unchanged (`sql-client.sh -f NAME.sql`): the `SET`s, a source holding the scenario's rows in
//! order, one `CREATE TEMPORARY VIEW` per operator (or the scenario's own SQL), a `print` sink
//! and the `INSERT INTO` it. Where Flink 2.3 cannot express the scenario the export is refused
//! with the reason ([`Refused`]); where the simulated output depends on processing time passing
//! between rows (Flink's source emits every row at once) it carries warnings.
//!
//! Layers, each in its file:
//! - `source`: the rows as one literal-only `VALUES` (one ordered `Values` node) under a view
//!   that casts them to the schema's types and adds `PROCTIME()`;
//! - `pipeline`: each JSON operator as the SQL Flink plans into it;
//! - `statements`: a `"sql"` scenario's own statements, split and re-targeted to the sink;
//! - `timing`: where the real run's output can differ because time does not pass.

mod pipeline;
mod source;
mod statements;
mod timing;

use super::options::{AggPhaseStrategy, FlinkMode, Retention, StateBackend};
use super::row::DataType;
use super::scenario::{Scenario, SourceChangelog};
use super::time::format_duration;

/// Why a scenario cannot be exported (the CLI exits 2 with it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An exported script, in its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// Why the real run's output can differ from the simulation's (also in the script as
    /// `-- WARNING:` comments).
    pub warnings: Vec<String>,
    /// Leading comments: what the script is, the warnings.
    header: Vec<String>,
    /// `SET 'key' = 'value';` statements.
    options: Vec<String>,
    /// The source view over `VALUES`.
    source: String,
    /// The views, the sink table and the `INSERT INTO`: what the simulator's planner reads back.
    body: Vec<String>,
}

impl Exported {
    /// The whole script.
    pub fn sql(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        parts.push(self.header.join("\n"));
        parts.push(self.options.join("\n"));
        parts.push(self.source.clone());
        parts.extend(self.body.iter().cloned());
        let mut text = parts.join("\n\n");
        text.push('\n');
        text
    }

    /// The script without its source view: the `SET`s, the views, the sink and the `INSERT`, as
    /// a scenario's `"sql"` over the same source (how the tests check that the export plans into
    /// the scenario's pipeline).
    pub fn planner_sql(&self) -> String {
        let mut parts = self.options.clone();
        parts.extend(self.body.iter().cloned());
        parts.join("\n")
    }
}

/// The name the file takes: `NAME.sql`, the scenario's name with characters other than
/// letters, digits, `-`, `_` and `.` replaced by `_`.
pub fn file_name(scenario_name: &str) -> String {
    let stem: String = scenario_name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .collect();
    format!("{}.sql", if stem.is_empty() { "scenario" } else { &stem })
}

/// `` `name` ``: every identifier the export writes is quoted with back-ticks (Flink SQL's
/// quoting), so a column named like a keyword (`key`, `value`, `inner`) stays a column.
pub(crate) fn ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A SQL string literal: `'it''s'`.
pub(crate) fn string_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The Flink SQL type of a column.
pub(crate) fn sql_type(t: DataType) -> &'static str {
    match t {
        DataType::Int => "INT",
        DataType::BigInt => "BIGINT",
        DataType::String => "STRING",
        DataType::Boolean => "BOOLEAN",
        DataType::ProcTime => "TIMESTAMP_LTZ(3)",
    }
}

/// Exports the scenario written as `text` (the JSON of a file or a preset).
///
/// # Errors
/// An invalid scenario (its own message), or [`Refused`] with the reason Flink 2.3 cannot run it
/// as the simulator runs it.
pub fn export(text: &str) -> Result<Exported, Refused> {
    let scenario = Scenario::from_json(text).map_err(|e| Refused(format!("invalid scenario: {e}")))?;
    let value: serde_json::Value =
        serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text)).map_err(|e| Refused(e.to_string()))?;
    check_expressible(&scenario)?;
    if let Some(source) = scenario.sources.iter().find(|s| s.watermark.is_some()) {
        return Err(Refused(format!(
            "source {} declares a watermark: the exported source is a VALUES view, which has no WATERMARK \
             clause (and its row-time column would need to be a TIMESTAMP(3)); remove the watermark to export",
            ident(&source.name)
        )));
    }
    let taken: Vec<String> = vec![scenario.source().name.clone()];
    let (mut body, taken, feeding) = match &scenario.sql {
        Some(sql) => statements::body(sql, taken)?,
        None => pipeline::body(value.get("pipeline").unwrap_or(&serde_json::Value::Null), &scenario, taken)?,
    };
    let sink = unique("sink", &taken);
    let last = scenario.operators.last().ok_or_else(|| Refused("the scenario has no operator".into()))?;
    let columns = last.spec.output_columns();
    if let Some(pt) = columns.iter().find(|c| c.data_type == DataType::ProcTime) {
        return Err(Refused(format!(
            "the result holds the processing-time attribute {}: Flink prints the wall-clock time there, which no \
             run can repeat; select the columns without it",
            ident(&pt.name)
        )));
    }
    if last.spec.output_retracts() && !last.spec.generates_update_before() {
        return Err(Refused(format!(
            "{} emits no -U (generate_update_before: false), as Flink plans it for an upsert sink; the print \
             sink takes every change, so Flink would emit -U there: remove generate_update_before",
            ident(&last.id)
        )));
    }
    let names: Vec<String> = match &scenario.output_names {
        Some(n) => n.clone(),
        None => columns.iter().map(|c| c.name.clone()).collect(),
    };
    let fields: Vec<String> =
        names.iter().zip(columns).map(|(n, c)| format!("  {} {}", ident(n), sql_type(c.data_type))).collect();
    body.push(format!("CREATE TABLE {} (\n{}\n) WITH ('connector' = 'print');", ident(&sink), fields.join(",\n")));
    body.push(feeding.insert_into(&ident(&sink)));
    let warnings = timing::warnings(&scenario);
    let mut header = vec![
        format!("-- Flink SQL exported by flink-state-sim from scenario {}.", string_literal(&scenario.name)),
        "-- Runs unchanged in Flink 2.3's SQL client (sql-client.sh -f FILE); the print sink writes the".into(),
        format!("-- changelog the simulator shows for operator {}.", string_literal(&last.id)),
    ];
    header.extend(warnings.iter().map(|w| format!("-- WARNING: {w}")));
    Ok(Exported { warnings, header, options: options(&scenario), source: source::view(&scenario)?, body })
}

/// What the query's last statement reads: a view (`SELECT * FROM v`) or a query of its own.
pub(crate) enum Feeding {
    View(String),
    Query(String),
}

impl Feeding {
    fn insert_into(&self, sink: &str) -> String {
        match self {
            Feeding::View(v) => format!("INSERT INTO {sink} SELECT * FROM {};", ident(v)),
            Feeding::Query(q) => format!("INSERT INTO {sink}\n{q};"),
        }
    }
}

/// `name`, or `name_2`, `name_3`, … when it is taken (case-insensitively, as Flink's catalog
/// names are looked up in the SQL client).
pub(crate) fn unique(name: &str, taken: &[String]) -> String {
    let free = |n: &str| !taken.iter().any(|t| t.eq_ignore_ascii_case(n));
    if free(name) {
        return name.to_string();
    }
    (2..).map(|i| format!("{name}_{i}")).find(|n| free(n)).unwrap_or_default()
}

/// Refuses what Flink 2.3 has no way to express, from the scenario's settings alone (cheap: the
/// page disables its "⤓ Flink SQL" button with this reason). [`export`] may still refuse a
/// scenario this lets through (a watermark, a processing-time column in the result, …).
///
/// # Errors
/// [`Refused`], with the reason.
pub fn check_expressible(scenario: &Scenario) -> Result<(), Refused> {
    if scenario.flink != FlinkMode::Flink2_3 {
        let why = match scenario.flink {
            FlinkMode::Flink1_12 => "Flink 2.3 does not run the 1.12 – 1.18 operators this mode simulates (their \
                                     mini-batch and retraction bugs were fixed since)"
                .to_string(),
            FlinkMode::Main => "the script would run on Flink 2.3, which has neither main's FLINK-40681 fix in \
                                the join nor its LATERAL SNAPSHOT join"
                .to_string(),
            FlinkMode::Blink1_10 => "Flink 2.3 has no Blink 1.10 planner and no idle state retention \
                                     (TableConfig.setIdleStateRetentionTime was removed in 2.0)"
                .to_string(),
            _ => "Flink 2.3 has no legacy planner and no idle state retention \
                  (TableConfig.setIdleStateRetentionTime was removed in 2.0)"
                .to_string(),
        };
        let harness = match scenario.retention {
            Retention::IdleState(r) if r.test_harness => {
                "; its retention (test_harness) exists only in Flink's operator test harness"
            }
            _ => "",
        };
        return Err(Refused(format!(
            "the scenario simulates {} (\"flink\": \"{}\"): {why}{harness}. Run it with \"flink\": \"2.3\" to export it",
            scenario.flink.label(),
            scenario.flink.id()
        )));
    }
    if scenario.source().changelog == SourceChangelog::All {
        return Err(Refused(
            "the source is a changelog (\"changelog\": \"all\"): Flink 2.3's SQL has no built-in source of literal \
             rows that emits -U/+U/-D (VALUES is insert-only; the `values` connector with changelog-mode is in the \
             planner's test jar only), and a changelog format (debezium-json) needs a file beside the script"
                .into(),
        ));
    }
    if scenario.source().changelog == SourceChangelog::Upsert {
        return Err(Refused(
            "the source is an upsert source (\"changelog\": \"upsert\"): its +U/-D rows come from an upsert \
             connector (upsert-kafka), which Flink 2.3's distribution does not ship and VALUES cannot stand in for"
                .into(),
        ));
    }
    if scenario.workload.is_some() {
        return Err(Refused(
            "the scenario generates its input (\"workload\"): only explicit steps are written out as rows; \
             remove the workload to export the steps"
                .into(),
        ));
    }
    Ok(())
}

/// `SET` statements: the runtime mode and parallelism the simulation assumes, then the
/// scenario's options (`table.exec.state.ttl`, `table.exec.mini-batch.*`,
/// `table.optimizer.agg-phase-strategy`, `state.backend.type`), the keys
/// [`crate::engine::scenario::sql::MODELLED_OPTIONS`] reads back.
fn options(scenario: &Scenario) -> Vec<String> {
    let set = |k: &str, v: &str| format!("SET {} = {};", string_literal(k), string_literal(v));
    let mut out = vec![set("execution.runtime-mode", "streaming"), set("parallelism.default", "1")];
    if let Retention::StateTtl(ms) = scenario.retention {
        if ms > 0 {
            out.push(set("table.exec.state.ttl", &format_duration(ms)));
        }
    }
    if let Some(mb) = scenario.mini_batch {
        out.push(set("table.exec.mini-batch.enabled", "true"));
        out.push(set("table.exec.mini-batch.allow-latency", &format_duration(mb.allow_latency_ms)));
        out.push(set("table.exec.mini-batch.size", &mb.size.to_string()));
    }
    if scenario.agg_phase_strategy != AggPhaseStrategy::Auto {
        out.push(set("table.optimizer.agg-phase-strategy", scenario.agg_phase_strategy.name()));
    }
    if scenario.state_backend == StateBackend::RocksDb {
        out.push(set("state.backend.type", "rocksdb"));
    }
    out
}

#[cfg(test)]
mod tests;
