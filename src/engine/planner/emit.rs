//! From the optimized tree to the scenario format's pipeline: one JSON operator object per
//! node, the same objects a user writes by hand, so a SQL scenario and a JSON one go through the
//! same validation and build the same Flink classes (the engine's operators decide what the
//! planner's physical rules decide from there: `Rank` becomes a `Deduplicate` on a
//! processing-time order, a `GroupAggregate` splits into local and global under mini-batch).

use super::convert::SourceTable;
use super::rel::{quote_ident, AggCall, Ex, Node, Rel};
use serde_json::{json, Value};

/// The pipeline, inputs first (a join's left subtree, then its right), and each operator's
/// id; `tables`: the scenario's sources (when there are several, an operator reading one names
/// it).
pub fn pipeline(rel: &Rel, tables: &[SourceTable]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut number = 0;
    emit(rel, &mut out, &mut number, tables);
    out
}

/// What `rel`'s output is read as: the id of its operator, or a scan's table.
fn emit(rel: &Rel, out: &mut Vec<Value>, number: &mut usize, tables: &[SourceTable]) -> String {
    let several_sources = tables.len() > 1;
    if let Node::Scan(table) = &rel.node {
        // Flink names its runtime operators `Kind[id]`, numbering the plan's nodes from the source.
        *number += 1;
        let key = tables.iter().find(|t| t.name == *table).and_then(|t| t.normalize.as_ref());
        let Some(key) = key else { return table.clone() };
        // `StreamPhysicalTableSourceScanRule` (Flink 2.3.0): the scan of an upsert source, or of a
        // CDC source with a primary key under `table.exec.source.cdc-events-duplicate`, is
        // followed by `Exchange(hash[pk])` and `ChangelogNormalize(key=[pk])`.
        *number += 1;
        let id = format!("ChangelogNormalize[{number}]");
        let mut op = json!({ "operator": "ChangelogNormalize", "id": id, "key": key });
        if !out.is_empty() || several_sources {
            op["input"] = Value::String(table.clone());
        }
        out.push(op);
        return id;
    }
    if let Node::Join { left, right, join_type, left_keys, right_keys, right_first, condition, hints, snapshot } =
        &rel.node
    {
        let l = emit(left, out, number, tables);
        let r = emit(right, out, number, tables);
        *number += 1;
        let on: Vec<Value> = left_keys
            .iter()
            .zip(right_keys)
            .map(|(&a, &b)| json!([left.names[a].clone(), right.names[b].clone()]))
            .collect();
        let kind = if snapshot.is_some() { "LateralSnapshotJoin" } else { "Join" };
        let id = format!("{kind}[{number}]");
        let mut op = json!({ "operator": kind, "id": id, "left": l, "right": r, "join_type": join_type, "on": on });
        if let Some(c) = condition {
            op["where"] = Value::String(c.sql(&super::rel::join_names(&left.names, &right.names)));
        }
        if let Some(args) = snapshot {
            op["on_time"] = Value::String(args.on_time.clone());
            op["load_completed_time"] = json!(args.load_completed_time);
            if let Some(ms) = args.load_completed_idle_timeout {
                op["load_completed_idle_timeout"] = Value::String(format!("{ms} ms"));
            }
            if let Some(ms) = args.state_ttl {
                op["state_ttl"] = Value::String(format!("{ms} ms"));
            }
            out.push(op);
            return id;
        }
        if right_first.iter().any(|&r| r) {
            op["on_right_first"] = json!(right_first);
        }
        if !hints.is_empty() {
            let mut ttl = serde_json::Map::new();
            for (is_left, value) in hints {
                ttl.insert(if *is_left { "left" } else { "right" }.into(), Value::String(value.clone()));
            }
            op["state_ttl"] = Value::Object(ttl);
        }
        out.push(op);
        return id;
    }
    let Some(input) = rel.input() else { return String::new() };
    let read = emit(input, out, number, tables);
    if matches!(rel.node, Node::RowNumber { .. }) {
        return read;
    }
    // The input is the previous operator, or the only source read by the first operator.
    let previous = out.last().and_then(|op| op["id"].as_str()).map(str::to_string);
    let implicit = match &input.node {
        Node::Scan(_) if out.is_empty() => !several_sources,
        _ => previous.as_deref() == Some(read.as_str()),
    };
    *number += 1;
    let number = *number;
    let r = rel;
    let mut op = {
        let inputs = &input.names;
        match &r.node {
            Node::Scan(_) | Node::Join { .. } | Node::RowNumber { .. } => return read,
            Node::Calc { items, condition, .. } => {
                let select: Vec<String> = items
                    .iter()
                    .zip(&r.names)
                    .map(|(e, name)| match e {
                        Ex::Col(i) if inputs[*i] == *name => quote_ident(name),
                        _ => format!("{} AS {}", e.sql(inputs), quote_ident(name)),
                    })
                    .collect();
                let mut op = json!({ "operator": "Calc", "id": format!("Calc[{number}]"), "select": select });
                if let Some(c) = condition {
                    op["where"] = Value::String(c.sql(inputs));
                }
                op
            }
            Node::Aggregate { group, calls, hint_ttl, .. } => {
                let mut op = json!({
                    "operator": "GroupAggregate",
                    "id": format!("GroupAggregate[{number}]"),
                    "group_by": group.iter().map(|&g| inputs[g].clone()).collect::<Vec<_>>(),
                    "aggregates": aggregates(calls, inputs, &r.names[group.len()..]),
                });
                if let Some(ttl) = hint_ttl {
                    op["state_ttl"] = Value::String(ttl.clone());
                }
                op
            }
            Node::Over { partition, order, frame, calls, .. } => json!({
                "operator": "OverAggregate",
                "id": format!("OverAggregate[{number}]"),
                "partition_by": partition.iter().map(|&p| inputs[p].clone()).collect::<Vec<_>>(),
                "order_by": [inputs[*order].clone()],
                "window": frame,
                "aggregates": aggregates(calls, inputs, &r.names[inputs.len()..]),
            }),
            Node::Rank { partition, order, rank_end, output_rank, .. } => {
                let mut op = json!({
                    "operator": "Rank",
                    "id": format!("Rank[{number}]"),
                    "partition_by": partition.iter().map(|&p| inputs[p].clone()).collect::<Vec<_>>(),
                    "order_by": order
                        .iter()
                        .map(|&(o, desc)| format!("{} {}", inputs[o], if desc { "DESC" } else { "ASC" }))
                        .collect::<Vec<_>>(),
                    "rank_end": rank_end,
                });
                if *output_rank {
                    op["rank_column"] = Value::String(r.names[inputs.len()].clone());
                }
                op
            }
        }
    };
    if !implicit {
        op["input"] = Value::String(read);
    }
    let id = op["id"].as_str().unwrap_or_default().to_string();
    out.push(op);
    id
}

/// The `aggregates` array: `{"function", "args", "as"}` per call.
fn aggregates(calls: &[AggCall], inputs: &[String], names: &[String]) -> Vec<Value> {
    calls
        .iter()
        .zip(names)
        .map(|(c, name)| {
            let function = if c.distinct { format!("{}_DISTINCT", c.function) } else { c.function.clone() };
            let args: Vec<String> =
                if c.args.is_empty() { vec!["*".into()] } else { c.args.iter().map(|&a| inputs[a].clone()).collect() };
            let mut call = json!({ "function": function, "args": args, "as": name });
            if let Some(f) = c.filter {
                call["filter"] = Value::String(inputs[f].clone());
            }
            call
        })
        .collect()
}
