//! The `state` metadata of a compiled plan's stateful nodes (FLIP-292, Flink 1.18+), read and
//! validated as Flink 2.3 reads it, and the TTLs it gives the scenario (the
//! [module docs](super) say how the scenario's `state_ttl` is chosen).
//!
//! `StateMetadata` (`flink-table-planner`, `plan/nodes/exec/StateMetadata.java`): each entry is
//! `{"index": i, "ttl": "<duration>", "name": "<state>"}`; its constructor parses `ttl` with
//! `TimeUtils.parseDuration` (after `checkNotNull(stateTtl, "state ttl should not be null")`),
//! then checks `stateIndex >= 0` ("state index should start from 0") and the name ("state name
//! should not be null"). `getStateTtlForOneInputOperator` returns `table.exec.state.ttl` when
//! the list is null or empty ("for backward compatibility"), else validates it against the
//! operator's input count (`validateStateMetadata`, whose two messages are Flink's below) and
//! takes each entry's `ttl.toMillis()`. Every node modelled here has one input.

use super::{Import, Node};
use crate::engine::error::ScenarioError;
use crate::engine::time::{check_duration, parse_duration, Millis};
use serde_json::Value;

/// A node's TTL from its metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTtl {
    pub ms: Millis,
    /// As the plan writes it (`TimeUtils.formatWithHighestUnit`, or as a user edited it).
    pub written: String,
    /// The `STATE_TTL` hint's value, when the node's description shows one.
    pub hint: Option<String>,
}

/// The node's TTL, or `None` when it has no state metadata (it then runs with
/// `table.exec.state.ttl`).
///
/// # Errors
/// Flink's messages for malformed metadata.
pub fn node_ttl(node: &Node) -> Result<Option<NodeTtl>, ScenarioError> {
    let entries = match node.json.get("state") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(a)) if a.is_empty() => return Ok(None),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(node.err("state", "expected an array of state metadata")),
    };
    let mut ttls = Vec::with_capacity(entries.len());
    for (j, e) in entries.iter().enumerate() {
        let path = format!("state[{j}]");
        let text = match e.get("ttl") {
            None | Some(Value::Null) => return Err(node.err(&format!("{path}.ttl"), "state ttl should not be null")),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        let ms = parse_duration(&text).and_then(check_duration).map_err(|m| node.err(&format!("{path}.ttl"), m))?;
        let index = e
            .get("index")
            .and_then(Value::as_i64)
            .ok_or_else(|| node.err(&format!("{path}.index"), "expected a whole number"))?;
        if index < 0 {
            return Err(node.err(&format!("{path}.index"), "state index should start from 0"));
        }
        if e.get("name").is_none_or(Value::is_null) {
            return Err(node.err(&format!("{path}.name"), "state name should not be null"));
        }
        ttls.push((index, ms, text.trim_matches(|c: char| c <= ' ').to_string()));
    }
    // `validateStateMetadata(1, …)`: one entry, index 0.
    if ttls.len() != 1 {
        return Err(node.err(
            "state",
            format!(
                "The compiled plan contains inconsistent state metadata configuration.\nReceived {} state meta for a \
                 OneInputStreamOperator.",
                ttls.len()
            ),
        ));
    }
    let (index, ms, written) = ttls.remove(0);
    if index != 0 {
        return Err(node.err(
            "state",
            "The compiled plan contains inconsistent state metadata configuration.\nThe state index should not contain \
             duplicates and start from 0 (inclusive) and monotonically increase to the input size (exclusive) of the \
             operator.",
        ));
    }
    Ok(Some(NodeTtl { ms, written, hint: hint(node) }))
}

/// The value of a `STATE_TTL` hint as the node's description prints it
/// (`stateTtlHints=[[[STATE_TTL options:[1d]]]]`).
fn hint(node: &Node) -> Option<String> {
    const OPEN: &str = "stateTtlHints=[[[STATE_TTL options:[";
    let d = node.json.get("description")?.as_str()?;
    let start = d.find(OPEN)? + OPEN.len();
    let end = d[start..].find("]]]]")?;
    Some(d[start..start + end].to_string())
}

/// Chooses the scenario's `state_ttl` (returned, in ms): the TTL most nodes without a hint
/// carry, the first of them on a tie, else 0; and gives each operator whose TTL differs from it,
/// or is a hint, its own `state_ttl` (a `GroupAggregate`'s marked `"state_ttl_from":
/// "compiled_plan"` unless it is the hint, which `EXPLAIN` shows).
pub fn apply(im: &mut Import) -> Millis {
    let mut counts: Vec<(Millis, usize)> = Vec::new();
    for (_, t) in im.ttls.iter().filter(|(_, t)| t.hint.is_none()) {
        match counts.iter_mut().find(|(ms, _)| *ms == t.ms) {
            Some(c) => c.1 += 1,
            None => counts.push((t.ms, 1)),
        }
    }
    // The first of the most frequent (`max_by_key` would keep the last).
    let best = counts.iter().map(|c| c.1).max().unwrap_or(0);
    let session = counts.iter().find(|c| c.1 == best).map_or(0, |c| c.0);
    for (i, t) in &im.ttls {
        // A hint as written when the metadata still has its value; else the metadata's TTL.
        let (own, hinted) = match &t.hint {
            Some(h) if parse_duration(h) == Ok(t.ms) => (Some(h.clone()), true),
            Some(_) => (Some(t.written.clone()), false),
            None if t.ms != session => (Some(t.written.clone()), false),
            None => (None, false),
        };
        if let (Some(own), Some(op)) = (own, im.pipeline.get_mut(*i)) {
            op["state_ttl"] = Value::String(own);
            if !hinted && op["operator"] == "GroupAggregate" {
                op["state_ttl_from"] = Value::String("compiled_plan".into());
            }
        }
    }
    session
}
