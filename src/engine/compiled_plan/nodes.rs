//! Each `ExecNode` of a compiled plan → the scenario format's operator object, the same object
//! the SQL planner emits for the same node (`src/engine/planner/emit.rs`): a `Calc` with SQL
//! `select` items and `where`, a `GroupAggregate` (one for `GroupAggregate` and for a mini-batch
//! `LocalGroupAggregate` → `GlobalGroupAggregate` pair, which the engine splits again under the
//! same settings), a `Rank` (also for a processing-time `Deduplicate`, which the engine's `Rank`
//! becomes again), an `OverAggregate`. The JSON fields read are those of Flink 2.3's
//! `StreamExec*` classes (`@JsonProperty` names).

use super::rex::{self, ident, Field, Scope};
use super::{Import, Node};
use crate::engine::error::{quote, ScenarioError};
use crate::engine::time::{DAY_MS, HOUR_MS, MINUTE_MS};
use serde_json::{json, Value};

/// The aggregate functions the engine runs, by the name the plan gives them: Calcite's
/// `internalName`, or `systemName` for a function registered by name (`LATEST_BY_TIME`, the
/// user-defined function of the seed-004 preset, `tests/conformance/udf/LatestByTime.java`).
const AGG_FUNCTIONS: &[(&str, &str)] = &[
    ("$COUNT$1", "COUNT"),
    ("$SUM$1", "SUM"),
    // `SUM(x) OVER w` is `CASE(COUNT(x) OVER w > 0, $SUM0(x) OVER w, NULL)` (Calcite's `makeOver`).
    ("$$SUM0$1", "$SUM0"),
    ("$MIN$1", "MIN"),
    ("$MAX$1", "MAX"),
    ("$LAST_VALUE$1", "LAST_VALUE"),
    ("LATEST_BY_TIME", "LATEST_BY_TIME"),
];

/// Functions whose accumulators merge (`TwoStageOptimizedAggregateRule`'s
/// `doAllSupportPartialMerge`), as the engine's `AggCall::supports_merge` has them.
pub(super) const MERGEABLE: &[&str] = &["COUNT", "SUM", "$SUM0", "MIN", "MAX", "COUNT_DISTINCT"];

/// An array of field indexes (`grouping`, `partition.fields`, `uniqueKeys`) as names of `inputs`.
fn names_of(node: &Node, field: &str, v: &Value, inputs: &[Field]) -> Result<Vec<String>, ScenarioError> {
    let list = v.as_array().ok_or_else(|| node.err(field, "expected an array of field indexes"))?;
    list.iter()
        .map(|i| {
            i.as_u64()
                .and_then(|i| inputs.get(usize::try_from(i).ok()?))
                .map(|f| f.name.clone())
                .ok_or_else(|| node.err(field, format!("{} is not a field of the input ({} fields)", i, inputs.len())))
        })
        .collect()
}

/// `StreamExecCalc`: `projection` and `condition` (RexNodes) → `select` and `where`.
pub(super) fn calc(im: &mut Import, node: &Node, inputs: &[Field], outputs: &[Field]) -> Result<Value, ScenarioError> {
    let projection = node.array("projection")?;
    if projection.len() != outputs.len() {
        return Err(node.err(
            "projection",
            format!("{} expressions for the {} fields of the outputType", projection.len(), outputs.len()),
        ));
    }
    // The processing-time attribute is named where the plan first computes `PROCTIME()`.
    for (item, out) in projection.iter().zip(outputs) {
        if rex::call_name(item) == "$PROCTIME$1" && im.proctime.is_none() {
            im.name_proctime(&out.name);
        }
    }
    if serde_json::to_string(node.json).is_ok_and(|t| t.contains("\"$PROCTIME$1\"")) && im.proctime.is_none() {
        im.name_proctime("proctime");
    }
    let scope = Scope { inputs };
    let mut select = Vec::new();
    for (j, (item, out)) in projection.iter().zip(outputs).enumerate() {
        let text = rex::sql(item, &scope).map_err(|m| node.err(&format!("projection[{j}]"), m))?;
        let plain = item.get("kind").and_then(Value::as_str) == Some("INPUT_REF") && text == ident(&out.name);
        select.push(if plain { text } else { format!("{text} AS {}", ident(&out.name)) });
    }
    let mut op = json!({ "operator": "Calc", "id": node.op_id("Calc"), "select": select });
    if let Some(c) = node.json.get("condition").filter(|c| !c.is_null()) {
        op["where"] = Value::String(rex::sql(c, &scope).map_err(|m| node.err("condition", m))?);
    }
    Ok(op)
}

/// One aggregate call → `{"function", "args", "as"}`.
fn agg_call(node: &Node, path: &str, call: &Value, inputs: &[Field], alias: &str) -> Result<Value, ScenarioError> {
    let name = rex::call_name(call);
    let Some(&(_, function)) = AGG_FUNCTIONS.iter().find(|(n, _)| *n == name) else {
        let known: Vec<&str> = AGG_FUNCTIONS.iter().map(|(n, _)| *n).collect();
        return Err(node.err(
            path,
            format!("the aggregate function {} is not modelled (modelled: {})", quote(&name), known.join(", ")),
        ));
    };
    // `FILTER (WHERE …)`: the BOOLEAN input field the call reads (`filterArg`, -1 for none).
    let filter = match call.get("filterArg").and_then(Value::as_i64).unwrap_or(-1) {
        -1 => None,
        f => match usize::try_from(f).ok().and_then(|f| inputs.get(f)) {
            Some(field) => Some(field.name.clone()),
            None => {
                return Err(node.err(
                    &format!("{path}.filterArg"),
                    format!("{f} is out of range: the input has {} fields", inputs.len()),
                ))
            }
        },
    };
    for flag in ["approximate", "ignoreNulls"] {
        if call.get(flag).and_then(Value::as_bool) == Some(true) {
            return Err(node.err(&format!("{path}.{flag}"), format!("{flag} = true is not modelled")));
        }
    }
    let distinct = call.get("distinct").and_then(Value::as_bool).unwrap_or(false);
    let function = match (function, distinct) {
        ("COUNT", true) => "COUNT_DISTINCT",
        (f, true) => return Err(node.err(&format!("{path}.distinct"), format!("{f}(DISTINCT …) is not modelled"))),
        (f, false) => f,
    };
    let args = names_of(node, &format!("{path}.argList"), call.get("argList").unwrap_or(&Value::Null), inputs)?;
    let args = if args.is_empty() { vec!["*".to_string()] } else { args };
    let mut out = json!({ "function": function, "args": args, "as": alias });
    if let Some(f) = filter {
        out["filter"] = Value::String(f);
    }
    Ok(out)
}

/// The `aggCalls` of a node, named by the `outputType` fields after the `skip` leading ones.
fn agg_calls(node: &Node, inputs: &[Field], outputs: &[Field], skip: usize) -> Result<Vec<Value>, ScenarioError> {
    let calls = node.array("aggCalls")?;
    if skip + calls.len() != outputs.len() {
        return Err(node.err(
            "aggCalls",
            format!(
                "{} calls after {skip} leading fields do not fit the {} outputType fields",
                calls.len(),
                outputs.len()
            ),
        ));
    }
    calls
        .iter()
        .enumerate()
        .map(|(j, c)| agg_call(node, &format!("aggCalls[{j}]"), c, inputs, &outputs[skip + j].name))
        .collect()
}

/// `StreamExecGroupAggregate`, or the `StreamExecGlobalGroupAggregate` of a two-phase pair
/// (`inputs` then being its `localAggInputRowType`, what the local aggregate read).
pub(super) fn group_aggregate(
    im: &mut Import,
    node: &Node,
    inputs: &[Field],
    outputs: &[Field],
) -> Result<Value, ScenarioError> {
    let group_by = names_of(node, "grouping", node.get("grouping")?, inputs)?;
    let aggregates = agg_calls(node, inputs, outputs, group_by.len())?;
    let mergeable = aggregates.iter().all(|a| a["function"].as_str().is_some_and(|f| MERGEABLE.contains(&f)));
    im.note_aggregate(node, mergeable);
    let mut op = json!({
        "operator": "GroupAggregate",
        "id": node.op_id("GroupAggregate"),
        "group_by": group_by,
        "aggregates": aggregates,
    });
    generate_update_before(node, &mut op);
    Ok(op)
}

/// `"generate_update_before": false` when the node says so (the default is `true`).
fn generate_update_before(node: &Node, op: &mut Value) {
    if node.json.get("generateUpdateBefore").and_then(Value::as_bool) == Some(false) {
        op["generate_update_before"] = Value::Bool(false);
    }
}

/// `StreamExecRank`: a `ROW_NUMBER` Top-N from rank 1.
pub(super) fn rank(node: &Node, inputs: &[Field], outputs: &[Field]) -> Result<Value, ScenarioError> {
    let rank_type = node.str("rankType")?;
    if rank_type != "ROW_NUMBER" {
        return Err(node.err("rankType", format!("{} is not modelled (only ROW_NUMBER)", quote(rank_type))));
    }
    let range = node.get("rankRange")?;
    if range.get("type").and_then(Value::as_str) != Some("Constant") {
        return Err(node.err("rankRange", "a variable rank range is not modelled (only a constant rankEnd)"));
    }
    let start = range.get("start").and_then(Value::as_i64);
    let end = range.get("end").and_then(Value::as_u64).ok_or_else(|| node.err("rankRange.end", "expected a number"))?;
    if start != Some(1) {
        return Err(
            node.err("rankRange.start", "a Top-N that starts after rank 1 is not modelled (rankStart must be 1)")
        );
    }
    let partition =
        names_of(node, "partition.fields", node.get("partition")?.get("fields").unwrap_or(&Value::Null), inputs)?;
    let order = node
        .get("orderBy")?
        .get("fields")
        .and_then(Value::as_array)
        .ok_or_else(|| node.err("orderBy.fields", "expected an array"))?;
    let mut order_by = Vec::new();
    for (j, f) in order.iter().enumerate() {
        let path = format!("orderBy.fields[{j}]");
        let name = names_of(node, &path, &json!([f.get("index").cloned().unwrap_or(Value::Null)]), inputs)?.remove(0);
        let asc = f.get("isAscending").and_then(Value::as_bool).unwrap_or(true);
        // Flink's default null collation (`FlinkPlannerImpl`'s `NullCollation.LOW`): NULLS FIRST
        // ascending, NULLS LAST descending, which the engine's sort follows.
        if f.get("nullIsLast").and_then(Value::as_bool).unwrap_or(!asc) == asc {
            return Err(
                node.err(&format!("{path}.nullIsLast"), "a non-default NULLS FIRST / NULLS LAST is not modelled")
            );
        }
        order_by.push(format!("{name} {}", if asc { "ASC" } else { "DESC" }));
    }
    let mut op = json!({
        "operator": "Rank",
        "id": node.op_id("Rank"),
        "partition_by": partition,
        "order_by": order_by,
        "rank_end": end,
    });
    if node.json.get("outputRowNumber").and_then(Value::as_bool) == Some(true) {
        let last = outputs.last().filter(|_| outputs.len() == inputs.len() + 1);
        let last = last.ok_or_else(|| node.err("outputType", "expected the input's fields and the row number"))?;
        op["rank_column"] = Value::String(last.name.clone());
    }
    generate_update_before(node, &mut op);
    Ok(op)
}

/// `StreamExecDeduplicate` on processing time: the `Rank` it was planned from (rank 1 by the
/// processing-time attribute, ascending to keep the first row, descending the last), or a
/// `Deduplicate` when `table.exec.deduplicate.insert-update-after-sensitive-enabled` is off
/// (which only that object can say).
pub(super) fn deduplicate(im: &Import, node: &Node, inputs: &[Field]) -> Result<Value, ScenarioError> {
    if node.json.get("isRowtime").and_then(Value::as_bool) == Some(true) {
        return Err(node.err("isRowtime", "deduplication on event time (a rowtime attribute) is not modelled"));
    }
    let config = |k: &str| node.json.get("configuration").and_then(|c| c.get(k)).and_then(Value::as_str);
    if im.mini_batch_enabled() && config("table.exec.deduplicate.mini-batch.compact-changes-enabled") == Some("true") {
        return Err(node
            .err("configuration", "table.exec.deduplicate.mini-batch.compact-changes-enabled = true is not modelled"));
    }
    let key = names_of(node, "uniqueKeys", node.get("uniqueKeys")?, inputs)?;
    let keep_last =
        node.get("keepLastRow")?.as_bool().ok_or_else(|| node.err("keepLastRow", "expected true or false"))?;
    let pt = inputs
        .iter()
        .find(|f| f.proctime)
        .ok_or_else(|| node.err("outputType", "the input has no processing-time attribute to deduplicate on"))?;
    let mut op = if config("table.exec.deduplicate.insert-update-after-sensitive-enabled") == Some("false") {
        json!({
            "operator": "Deduplicate",
            "id": node.op_id("Deduplicate"),
            "key": key,
            "keep": if keep_last { "LastRow" } else { "FirstRow" },
            "generate_insert": false,
        })
    } else {
        json!({
            "operator": "Rank",
            "id": node.op_id("Rank"),
            "partition_by": key,
            "order_by": [format!("{} {}", pt.name, if keep_last { "DESC" } else { "ASC" })],
            "rank_end": 1,
        })
    };
    generate_update_before(node, &mut op);
    Ok(op)
}

/// `StreamExecOverAggregate`: one window group ordered by the processing-time attribute,
/// ending at the current row. (`unboundedOverVersion` picks between two event-time functions
/// only: on processing time Flink 2.3 runs `ProcTimeUnboundedPrecedingFunction` either way.)
pub(super) fn over_aggregate(node: &Node, inputs: &[Field], outputs: &[Field]) -> Result<Value, ScenarioError> {
    let spec = node.get("overSpec")?;
    let groups =
        spec.get("groups").and_then(Value::as_array).ok_or_else(|| node.err("overSpec.groups", "expected an array"))?;
    let [group] = groups.as_slice() else {
        return Err(
            node.err("overSpec.groups", format!("{} window groups: only one OVER window is modelled", groups.len()))
        );
    };
    let partition = names_of(
        node,
        "overSpec.partition.fields",
        spec.get("partition").and_then(|p| p.get("fields")).unwrap_or(&Value::Null),
        inputs,
    )?;
    let order = group.get("orderBy").and_then(|o| o.get("fields")).and_then(Value::as_array);
    let [order] = order.map(Vec::as_slice).unwrap_or_default() else {
        return Err(node.err("overSpec.groups[0].orderBy", "The window can only be ordered by a single time column."));
    };
    let order_name = names_of(
        node,
        "overSpec.groups[0].orderBy",
        &json!([order.get("index").cloned().unwrap_or(Value::Null)]),
        inputs,
    )?
    .remove(0);
    if !inputs.iter().any(|f| f.proctime && f.name == order_name) {
        return Err(node.err(
            "overSpec.groups[0].orderBy",
            format!(
                "{} is not a processing-time attribute: OVER windows ordered by anything else (event time, a \
                 non-time column) are not modelled",
                quote(&order_name)
            ),
        ));
    }
    if order.get("isAscending").and_then(Value::as_bool) == Some(false) {
        return Err(node.err("overSpec.groups[0].orderBy", "The window can only be ordered in ASCENDING mode."));
    }
    let window = frame(node, spec, group)?;
    let aggregates = agg_calls_of(node, group, inputs, outputs)?;
    Ok(json!({
        "operator": "OverAggregate",
        "id": node.op_id("OverAggregate"),
        "partition_by": partition,
        "order_by": [order_name],
        "window": window,
        "aggregates": aggregates,
    }))
}

fn agg_calls_of(node: &Node, group: &Value, inputs: &[Field], outputs: &[Field]) -> Result<Vec<Value>, ScenarioError> {
    let calls = group
        .get("aggCalls")
        .and_then(Value::as_array)
        .ok_or_else(|| node.err("overSpec.groups[0].aggCalls", "expected an array"))?;
    if inputs.len() + calls.len() != outputs.len() {
        return Err(node.err("outputType", "expected the input's fields and one field per aggregate call"));
    }
    calls
        .iter()
        .enumerate()
        .map(|(j, c)| {
            agg_call(node, &format!("overSpec.groups[0].aggCalls[{j}]"), c, inputs, &outputs[inputs.len() + j].name)
        })
        .collect()
}

/// The frame as the engine's `OverAggregate` reads it (`ROWS BETWEEN 1 PRECEDING AND CURRENT
/// ROW`, `RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW`).
fn frame(node: &Node, spec: &Value, group: &Value) -> Result<String, ScenarioError> {
    let path = "overSpec.groups[0]";
    let rows = group
        .get("isRows")
        .and_then(Value::as_bool)
        .ok_or_else(|| node.err(&format!("{path}.isRows"), "expected true or false"))?;
    let units = if rows { "ROWS" } else { "RANGE" };
    let kind = |b: &str| group.get(b).and_then(|b| b.get("kind")).and_then(Value::as_str).unwrap_or("?");
    if kind("upperBound") != "CURRENT_ROW" {
        return Err(node.err(&format!("{path}.upperBound"), "OVER RANGE FOLLOWING windows are not supported yet."));
    }
    let lower = group.get("lowerBound").cloned().unwrap_or(Value::Null);
    match kind("lowerBound") {
        "UNBOUNDED_PRECEDING" => Ok(format!("{units} BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")),
        "BOUNDED_WINDOW" if lower.get("isPreceding").and_then(Value::as_bool) == Some(true) => {
            let offset = lower.get("offset").cloned().unwrap_or(Value::Null);
            // The offset is a literal, or a reference past the input's fields into `constants`.
            let offset = match offset.get("kind").and_then(Value::as_str) {
                Some("INPUT_REF") => {
                    let i = offset.get("inputIndex").and_then(Value::as_u64).unwrap_or(u64::MAX);
                    let first = spec.get("originalInputFields").and_then(Value::as_u64).unwrap_or(0);
                    let c = i.checked_sub(first).and_then(|c| spec.get("constants")?.get(usize::try_from(c).ok()?));
                    c.cloned().ok_or_else(|| node.err(&format!("{path}.lowerBound.offset"), "refers to no constant"))?
                }
                _ => offset,
            };
            let value =
                offset.get("value").and_then(|v| v.as_i64().or_else(|| v.as_str()?.parse().ok())).filter(|&v| v >= 0);
            let value =
                value.ok_or_else(|| node.err(&format!("{path}.lowerBound.offset"), "expected a whole number"))?;
            if rows {
                return Ok(format!("ROWS BETWEEN {value} PRECEDING AND CURRENT ROW"));
            }
            let unit = [(DAY_MS, "DAY"), (HOUR_MS, "HOUR"), (MINUTE_MS, "MINUTE"), (1_000, "SECOND")]
                .into_iter()
                .find(|(ms, _)| value > 0 && value % ms == 0);
            match unit {
                Some((ms, unit)) => {
                    Ok(format!("RANGE BETWEEN INTERVAL '{}' {unit} PRECEDING AND CURRENT ROW", value / ms))
                }
                None => Err(node.err(
                    &format!("{path}.lowerBound.offset"),
                    format!("a RANGE of {value} ms is not modelled (whole seconds, minutes, hours or days)"),
                )),
            }
        }
        "CURRENT_ROW" => {
            Err(node.err(&format!("{path}.lowerBound"), "a frame of the current row alone is not modelled"))
        }
        other => Err(node.err(&format!("{path}.lowerBound"), format!("the bound {} is not modelled", quote(other)))),
    }
}
