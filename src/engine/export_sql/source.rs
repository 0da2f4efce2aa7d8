//! The source: the scenario's input rows, in order, as pure Flink SQL.
//!
//! A `VALUES` whose rows hold **literals only** stays one `Values` node, which a single task
//! emits in the written order: Calcite's `SqlToRelConverter.convertRowValues` (Flink 2.3's copy)
//! puts rows made only of `SqlLiteral`s into one `LogicalValues`, and makes any other row (one
//! holding a `CAST`, a function call) a one-row projection, all of them then a `UNION ALL`, whose
//! order varies from run to run. So the rows hold literals only and a view above them casts each
//! column to the schema's type and adds the processing-time attribute (`PROCTIME()`):
//!
//! - the literals' types are what the `VALUES` infers per column: `1` is `INT`, `5000000000`
//!   `BIGINT` (a column with both becomes `BIGINT`), strings of different lengths `VARCHAR(n)`
//!   (Flink's type system turns ragged `CHAR`s into `VARCHAR`, so nothing is padded); the view's
//!   `CAST` gives the schema's `INT`, `BIGINT`, `STRING`, `BOOLEAN`;
//! - a bare `NULL` in a `VALUES` is refused by Calcite's validator (`Illegal use of 'NULL'`) and
//!   `CAST(NULL AS INT)` is not a literal, so a column holding a NULL gets a `BOOLEAN` flag
//!   column after it (`TRUE`: the value is NULL) and a placeholder (`0`, `''`, `FALSE`) in its
//!   place; the view reads `CASE WHEN n1 THEN NULL ELSE f1 END`.
//!
//! Checked on Flink 2.3.0 (`tests/conformance/run_sql.py`): the plan is one `Values` under a
//! `Calc`, and every run prints the rows in the written order.

use super::{ident, sql_type, string_literal, Refused};
use crate::engine::row::{DataType, Value};
use crate::engine::scenario::{Scenario, Step};

/// `CREATE TEMPORARY VIEW src AS SELECT CAST(f0 AS STRING) AS k, …, PROCTIME() AS pt FROM
/// (VALUES (…), …) AS t(f0, …);`, each row followed by the processing time it has in the
/// simulation, as a comment.
pub fn view(scenario: &Scenario) -> Result<String, Refused> {
    let tf = scenario.time_format;
    let mut rows: Vec<(&[Value], i64)> = Vec::new();
    let mut now = scenario.start_ms;
    for step in &scenario.steps {
        match step {
            Step::Input { at, row, .. } => {
                now = at.unwrap_or(now);
                rows.push((&row.0, now));
            }
            Step::AdvanceTo(t) => now = *t,
            Step::AdvanceBy(d) => now = now.saturating_add(*d),
        }
    }
    if rows.is_empty() {
        return Err(Refused("the scenario has no input rows: a VALUES source needs at least one".into()));
    }
    let columns = &scenario.source().columns;
    let nullable: Vec<bool> =
        (0..columns.len()).map(|i| rows.iter().any(|(r, _)| matches!(r.get(i), Some(Value::Null)))).collect();
    let mut names: Vec<String> = Vec::new();
    let mut casts: Vec<String> = Vec::new();
    for (i, c) in columns.iter().enumerate() {
        names.push(format!("f{i}"));
        let value = if nullable[i] {
            names.push(format!("n{i}"));
            format!("CASE WHEN n{i} THEN NULL ELSE f{i} END")
        } else {
            format!("f{i}")
        };
        casts.push(format!("CAST({value} AS {}) AS {}", sql_type(c.data_type), ident(&c.name)));
    }
    if let Some(pt) = &scenario.source().proctime {
        casts.push(format!("PROCTIME() AS {}", ident(&pt.name)));
    }
    if rows.iter().any(|(r, _)| r.contains(&Value::Int(i64::MIN))) {
        return Err(Refused(
            "a row holds -9223372036854775808, which has no BIGINT literal in Flink SQL (its magnitude \
             overflows before the minus applies) and would need a CAST, which breaks the VALUES' order"
                .into(),
        ));
    }
    let count = rows.len();
    let lines: Vec<String> = rows
        .iter()
        .enumerate()
        .map(|(n, (row, at))| {
            let mut cells: Vec<String> = Vec::new();
            for (i, c) in columns.iter().enumerate() {
                let v = row.get(i).unwrap_or(&Value::Null);
                cells.push(literal(v, c.data_type));
                if nullable[i] {
                    cells.push(if *v == Value::Null { "TRUE" } else { "FALSE" }.into());
                }
            }
            let comma = if n + 1 < count { "," } else { " " };
            format!("  ({}){comma} -- {}", cells.join(", "), tf.format(*at))
        })
        .collect();
    Ok(format!(
        "CREATE TEMPORARY VIEW {} AS\nSELECT {}\nFROM (VALUES\n{}\n) AS t({});",
        ident(&scenario.source().name),
        casts.join(", "),
        lines.join("\n"),
        names.join(", ")
    ))
}

/// A value as a literal of `VALUES`; NULL as the column type's placeholder (its flag says NULL).
fn literal(v: &Value, t: DataType) -> String {
    match v {
        Value::Null => match t {
            DataType::String => "''".into(),
            DataType::Boolean => "FALSE".into(),
            _ => "0".into(),
        },
        Value::Bool(b) => if *b { "TRUE" } else { "FALSE" }.into(),
        Value::Int(i) => i.to_string(),
        Value::Str(s) => string_literal(&s.text()),
        Value::Ts(ms) => format!("TO_TIMESTAMP_LTZ({ms}, 3)"),
    }
}
