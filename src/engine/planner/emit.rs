//! From the optimized tree to the scenario format's pipeline: one JSON operator object per
//! node, the same objects a user writes by hand, so a SQL scenario and a JSON one go through the
//! same validation and build the same Flink classes (the engine's operators decide what the
//! planner's physical rules decide from there: `Rank` becomes a `Deduplicate` on a
//! processing-time order, a `GroupAggregate` splits into local and global under mini-batch).

use super::rel::{quote_ident, AggCall, Ex, Node, Rel};
use serde_json::{json, Value};

/// The pipeline, source side first, and each operator's id.
pub fn pipeline(rel: &Rel) -> Vec<Value> {
    let mut chain: Vec<&Rel> = Vec::new();
    let mut at = Some(rel);
    while let Some(r) = at {
        chain.push(r);
        at = r.input();
    }
    chain.reverse();
    let mut out = Vec::new();
    for r in chain {
        let Some(input) = r.input() else { continue };
        let inputs = &input.names;
        // Flink names its runtime operators `Kind[id]`, numbering the plan's nodes from the source.
        let number = out.len() + 2;
        let op = match &r.node {
            Node::Scan => continue,
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
            Node::RowNumber { .. } => continue,
        };
        out.push(op);
    }
    out
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
