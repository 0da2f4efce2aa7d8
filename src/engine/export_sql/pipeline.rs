//! A JSON pipeline as SQL: one `CREATE TEMPORARY VIEW` per operator, named by its id, written
//! as the SQL Flink 2.3's planner plans into that operator (docs/scenario-format.md, per
//! operator):
//!
//! | operator | SQL |
//! |---|---|
//! | `GroupAggregate` | `SELECT keys, aggs FROM input GROUP BY keys`; its `state_ttl` as the `STATE_TTL` hint (FLIP-373) |
//! | `Calc` | `SELECT items FROM input WHERE condition` |
//! | `OverAggregate` | `SELECT cols, agg(x) OVER (PARTITION BY … ORDER BY pt frame) AS a FROM input` |
//! | `Rank` | `SELECT cols FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY … ORDER BY …) AS rn FROM input) WHERE rn <= N` |
//! | `Deduplicate` | the same on the processing-time attribute, `ASC` (first row) or `DESC` (last), `= 1` |
//!
//! The tests read each export back as a `"sql"` scenario: it must plan into the same pipeline
//! (`explain_lines` equal).

use super::{ident, unique, Feeding, Refused};
use crate::engine::row::Column;
use crate::engine::scenario::Scenario;
use serde_json::Value;

/// The views of `pipeline` (the scenario's JSON operators), the names now taken, and what the
/// `INSERT` reads.
pub fn body(
    pipeline: &Value,
    scenario: &Scenario,
    mut taken: Vec<String>,
) -> Result<(Vec<String>, Vec<String>, Feeding), Refused> {
    let ops = pipeline.as_array().ok_or_else(|| Refused("the scenario has no pipeline".into()))?;
    let mut input = scenario.source().name.clone();
    let mut input_columns: Vec<Column> = scenario.source().output_columns();
    let mut views = Vec::new();
    for (op, node) in ops.iter().zip(&scenario.operators) {
        let kind = op.get("operator").and_then(Value::as_str).unwrap_or_default();
        let output = node.spec.output_columns();
        let at = |what: &str| Refused(format!("operator {} ({kind}): {what}", ident(&node.id)));
        let own_ttl = node.spec.state_ttl().map(|t| t.written.clone());
        if op.get("generate_update_before").and_then(Value::as_bool) == Some(false) && node.spec.output_retracts() {
            return Err(at(
                "generate_update_before: false: from SQL, Flink's planner drops UPDATE_BEFORE itself where nothing \
                 downstream needs it (an upsert sink, an UpdateFastStrategy Top-N), which the simulator's SQL \
                 planner does not model yet, and the print sink needs every -U",
            ));
        }
        let query = match kind {
            "GroupAggregate" => {
                let group = strings(op, "group_by");
                let hint = match &own_ttl {
                    Some(ttl) => {
                        format!("/*+ STATE_TTL({} = {}) */ ", super::string_literal(&input), super::string_literal(ttl))
                    }
                    None => String::new(),
                };
                let mut items: Vec<String> = group.iter().map(|g| ident(g)).collect();
                let names = output.get(group.len()..).unwrap_or_default();
                items.extend(aggregate_calls(op, names).map_err(|m| at(&m))?);
                let mut q = format!("SELECT {hint}{} FROM {}", items.join(", "), ident(&input));
                if !group.is_empty() {
                    q.push_str(&format!(" GROUP BY {}", group.iter().map(|g| ident(g)).collect::<Vec<_>>().join(", ")));
                }
                q
            }
            "Calc" => {
                let mut q = format!("SELECT {} FROM {}", strings(op, "select").join(", "), ident(&input));
                if let Some(w) = op.get("where").and_then(Value::as_str) {
                    q.push_str(&format!(" WHERE {w}"));
                }
                q
            }
            "OverAggregate" => {
                let names = output.get(input_columns.len()..).unwrap_or_default();
                let calls = aggregate_calls(op, &[]).map_err(|m| at(&m))?;
                let window = format!(
                    "PARTITION BY {} ORDER BY {} {}",
                    list(&strings(op, "partition_by")),
                    list(&strings(op, "order_by")),
                    op.get("window").and_then(Value::as_str).unwrap_or_default()
                );
                let window = window.replace("PARTITION BY  ORDER BY", "ORDER BY");
                let mut items: Vec<String> = input_columns.iter().map(|c| ident(&c.name)).collect();
                for (call, name) in calls.iter().zip(names) {
                    items.push(format!("{call} OVER ({window}) AS {}", ident(&name.name)));
                }
                format!("SELECT {} FROM {}", items.join(", "), ident(&input))
            }
            "Rank" | "Deduplicate" => {
                if own_ttl.is_some() {
                    return Err(at(
                        "its own state_ttl: Flink 2.3 gives a Top-N or a deduplication a TTL of its own only in a \
                         compiled plan (COMPILE PLAN, edit the node's state ttl, EXECUTE PLAN), which a SQL script \
                         cannot carry; the STATE_TTL hint is for joins and group aggregations",
                    ));
                }
                rank(op, kind, scenario, &input, &input_columns, output).map_err(|m| at(&m))?
            }
            "SinkUpsertMaterializer" => {
                return Err(at(
                    "a sink with a primary key: the export writes into a print sink of its own, without a key, where \
                     Flink would not materialize; not exported",
                ));
            }
            other => {
                return Err(at(&format!(
                    "{other} has no Flink 2.3 SQL: it is simulated for the legacy planner's Table API only"
                )))
            }
        };
        let name = unique(&node.id, &taken);
        views.push(format!("CREATE TEMPORARY VIEW {} AS\n{query};", ident(&name)));
        taken.push(name.clone());
        input = name;
        input_columns = output.to_vec();
    }
    Ok((views, taken, Feeding::View(input)))
}

/// The string array `op[field]` (absent: empty).
fn strings(op: &Value, field: &str) -> Vec<String> {
    op.get(field)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// Column names, quoted and comma-separated.
fn list(columns: &[String]) -> String {
    columns
        .iter()
        .map(|c| {
            let mut words = c.split_whitespace();
            let name = words.next().unwrap_or_default();
            match words.next() {
                Some(dir) => format!("{} {}", ident(name), dir.to_ascii_uppercase()),
                None => ident(name),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `COUNT(*) AS cnt`, `COUNT(DISTINCT x) AS d`, … (without `AS` when `names` is empty).
fn aggregate_calls(op: &Value, names: &[Column]) -> Result<Vec<String>, String> {
    let aggs = op.get("aggregates").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = Vec::new();
    for (i, a) in aggs.iter().enumerate() {
        let function = a.get("function").and_then(Value::as_str).unwrap_or_default().to_ascii_uppercase();
        let args: Vec<String> = strings(a, "args");
        let arg =
            |args: &[String]| args.iter().map(|x| if x == "*" { "*".into() } else { ident(x) }).collect::<Vec<_>>();
        let call = match function.as_str() {
            "COUNT" | "SUM" | "MIN" | "MAX" | "LAST_VALUE" => format!("{function}({})", arg(&args).join(", ")),
            "COUNT_DISTINCT" => format!("COUNT(DISTINCT {})", arg(&args).join(", ")),
            "LATEST_BY_TIME" => {
                return Err("LATEST_BY_TIME is seed 004's user-defined function (latestTimeUdf), not a built-in \
                            function of Flink 2.3: the script would need its jar"
                    .into())
            }
            other => return Err(format!("the aggregate function {other} has no Flink 2.3 SQL form here")),
        };
        match names.get(i) {
            Some(n) => out.push(format!("{call} AS {}", ident(&n.name))),
            None => out.push(call),
        }
    }
    Ok(out)
}

/// A Top-N or a deduplication: `ROW_NUMBER()` in a sub-query, filtered by `rn <= N` (`= 1`).
fn rank(
    op: &Value,
    kind: &str,
    scenario: &Scenario,
    input: &str,
    input_columns: &[Column],
    output: &[Column],
) -> Result<String, String> {
    let (partition, order, filter) = if kind == "Deduplicate" {
        if op.get("generate_insert").and_then(Value::as_bool) == Some(false) {
            return Err("generate_insert: false is table.exec.deduplicate.insert-update-after-sensitive-enabled, \
                        an option this export does not set (the simulator's SQL does not read it)"
                .into());
        }
        let pt = scenario
            .source()
            .proctime
            .as_ref()
            .ok_or("a deduplication orders by the processing-time attribute, and the source declares none")?;
        let keep = op.get("keep").and_then(Value::as_str).unwrap_or("FirstRow");
        let dir = if keep.eq_ignore_ascii_case("LastRow") { "DESC" } else { "ASC" };
        (strings(op, "key"), format!("{} {dir}", ident(&pt.name)), "= 1".to_string())
    } else {
        let n = op.get("rank_end").and_then(Value::as_u64).unwrap_or(1);
        (strings(op, "partition_by"), list(&strings(op, "order_by")), format!("<= {n}"))
    };
    let column_names: Vec<String> = input_columns.iter().map(|c| c.name.clone()).collect();
    let rn = match op.get("rank_column").and_then(Value::as_str) {
        Some(r) => r.to_string(),
        None => unique("rn", &column_names),
    };
    let window = if partition.is_empty() {
        format!("ORDER BY {order}")
    } else {
        format!("PARTITION BY {} ORDER BY {order}", list(&partition))
    };
    let selected: Vec<String> = output.iter().map(|c| ident(&c.name)).collect();
    Ok(format!(
        "SELECT {} FROM (\n  SELECT *, ROW_NUMBER() OVER ({window}) AS {} FROM {}\n) WHERE {} {filter}",
        selected.join(", "),
        ident(&rn),
        ident(input),
        ident(&rn)
    ))
}
