//! Flink's compiled plans in: the JSON that `COMPILE PLAN 'f.json' FOR INSERT INTO … SELECT …`
//! writes (Flink 1.18+, `ExecNodeGraph` with `flinkVersion`, `nodes`, `edges`; the file FLIP-292
//! tells users to edit for per-operator state TTL) → a scenario with the same pipeline.
//!
//! Each `ExecNode` on the chain from the table source to the sink becomes the operator object the
//! SQL planner emits for it (`nodes`, expressions by `rex`): an imported plan and the SQL it
//! was compiled from give the same pipeline, which the engine then compiles and runs as any
//! other. A node the engine does not model is refused by its type (`stream-exec-join_1 (id 7)
//! is not modelled`), an expression by its function.
//!
//! **State TTL.** Every stateful node carries `state` metadata (`StateMetadata`, Flink 1.18+):
//! one entry per input, validated here as Flink validates it, whose `ttl` the operator runs with
//! instead of `table.exec.state.ttl` (`state`). The plan does not record
//! `table.exec.state.ttl` itself, which the session executing the plan supplies and an OVER
//! aggregation (no state metadata) runs with. So the scenario's `state_ttl` is the TTL most
//! stateful nodes carry, leaving out those whose TTL is a `STATE_TTL` hint (their description
//! shows `stateTtlHints=…`: the hint says nothing of the session's TTL); on a tie the node
//! nearest the source decides; with no such node it is Flink's default, 0. Every node whose TTL
//! differs from it, or comes from a hint, gets its own `state_ttl`. For the nodes with metadata
//! this choice changes nothing (each runs its own TTL either way); it is the OVER window's.
//!
//! **Mini-batch.** `table.exec.mini-batch.enabled` shows as a `MiniBatchAssigner` node (its
//! `miniBatchInterval` is `allow-latency`) and in the stateful nodes' `configuration`
//! (`table.exec.mini-batch.size`); a one-phase mini-batch aggregation whose calls could merge
//! means `table.optimizer.agg-phase-strategy` was `ONE_PHASE`, a local/global pair that it was
//! not (written as `TWO_PHASE`). The scenario has one value of each: a plan that mixes them is
//! refused.
//!
//! Input is bounded ([`MAX_PLAN_BYTES`]) and read with `serde_json` (nesting limited to 128
//! levels); every walk is linear in the plan's size; nothing panics.

mod nodes;
pub mod rex;
mod state;

use crate::engine::error::{quote, ScenarioError};
use crate::engine::time::format_duration;
use rex::Field;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The largest plan read, in bytes: the 4 MiB a scenario file may be
/// ([`crate::link::MAX_IMPORT_BYTES`]). A compiled plan of a 10-operator query is about 20 KB.
pub const MAX_PLAN_BYTES: usize = 4 << 20;

/// A node of the plan, as messages name it: `nodes[3].rankRange: stream-exec-rank_1 (id 23): …`.
pub(crate) struct Node<'a> {
    index: usize,
    id: i64,
    kind: &'a str,
    json: &'a Value,
}

impl<'a> Node<'a> {
    fn err(&self, field: &str, message: impl Into<String>) -> ScenarioError {
        let path =
            if field.is_empty() { format!("nodes[{}]", self.index) } else { format!("nodes[{}].{field}", self.index) };
        // Flink's messages may span lines; an error here is one line.
        let message = message.into().replace('\n', " ");
        ScenarioError::new(path, format!("{} (id {}): {message}", self.kind, self.id))
    }
    fn get(&self, field: &str) -> Result<&'a Value, ScenarioError> {
        self.json.get(field).ok_or_else(|| self.err(field, "missing field"))
    }
    fn array(&self, field: &str) -> Result<&'a Vec<Value>, ScenarioError> {
        self.get(field)?.as_array().ok_or_else(|| self.err(field, "expected an array"))
    }
    fn str(&self, field: &str) -> Result<&'a str, ScenarioError> {
        self.get(field)?.as_str().ok_or_else(|| self.err(field, "expected a string"))
    }
    /// The operator's id: its kind and the node's id, as Flink names the runtime operator.
    fn op_id(&self, kind: &str) -> String {
        format!("{kind}[{}]", self.id)
    }
    /// The type without its version suffix (`stream-exec-rank`).
    fn base(&self) -> &'a str {
        self.kind.rsplit_once('_').map_or(self.kind, |(b, _)| b)
    }
}

/// What the walk collects.
pub(crate) struct Import {
    proctime: Option<String>,
    source_columns: Vec<String>,
    pipeline: Vec<Value>,
    /// Per pipeline operator, the node it came from (`stream-exec-rank_1 (id 23)`).
    origins: Vec<String>,
    /// Per pipeline operator with state metadata: its TTL (ms, as written) and its hint.
    ttls: Vec<(usize, state::NodeTtl)>,
    mini_batch_interval: Option<crate::engine::time::Millis>,
    /// `table.exec.mini-batch.enabled` / `.size` as each node's `configuration` has them.
    mini_batch_config: Vec<(String, Option<bool>, Option<i64>)>,
    one_phase_mergeable: Option<String>,
    two_phase: Option<String>,
}

impl Import {
    fn name_proctime(&mut self, name: &str) {
        let mut name = name.to_string();
        while self.source_columns.contains(&name) {
            name.push('_');
        }
        self.proctime = Some(name);
    }
    fn mini_batch_enabled(&self) -> bool {
        self.mini_batch_interval.is_some()
    }
    /// A (global) group aggregation: one-phase or two-phase under mini-batch.
    fn note_aggregate(&mut self, node: &Node, mergeable: bool) {
        let label = format!("{} (id {})", node.kind, node.id);
        match node.base() {
            "stream-exec-global-group-aggregate" => self.two_phase = Some(label),
            _ if mergeable && self.mini_batch_enabled() => self.one_phase_mergeable = Some(label),
            _ => {}
        }
    }
}

/// The node types read, and the operator each becomes.
const MODELLED: &str = "stream-exec-table-source-scan, -exchange, -mini-batch-assigner, -calc, -group-aggregate, \
                        -local-group-aggregate / -global-group-aggregate, -rank, -deduplicate, -over-aggregate, -sink";

/// Imports a compiled plan: the scenario (pretty-printable JSON) with `flink`, the source, the
/// pipeline and the settings the plan shows, and no steps.
///
/// # Errors
/// One [`ScenarioError`] naming the node (`nodes[i]`, its type and id) and the field: not JSON,
/// a missing or malformed field, a node or expression the engine does not model, state metadata
/// Flink would refuse (Flink's message), or what the engine refuses in the pipeline built.
pub fn import(text: &str) -> Result<Value, ScenarioError> {
    if text.len() > MAX_PLAN_BYTES {
        return Err(ScenarioError::new(
            "plan",
            format!(
                "the plan is {} bytes, more than the {} (4 MiB) read",
                crate::engine::digits::grouped(text.len()),
                crate::engine::digits::grouped(MAX_PLAN_BYTES)
            ),
        ));
    }
    let plan: Value = serde_json::from_str(text).map_err(|e| ScenarioError::new("plan", format!("not JSON: {e}")))?;
    let flink = flink_mode(&plan)?;
    let chain = chain(&plan)?;
    let mut im = Import {
        proctime: None,
        source_columns: Vec::new(),
        pipeline: Vec::new(),
        origins: Vec::new(),
        ttls: Vec::new(),
        mini_batch_interval: None,
        mini_batch_config: Vec::new(),
        one_phase_mergeable: None,
        two_phase: None,
    };
    let mut fields: Vec<Field> = Vec::new();
    let mut source = Value::Null;
    let mut sink = None;
    let mut local: Option<(&Node, Vec<Field>)> = None;
    for node in &chain {
        let outputs = rex::row_fields(node.get("outputType")?).map_err(|m| node.err("outputType", m))?;
        note_configuration(&mut im, node);
        let op = match node.base() {
            "stream-exec-table-source-scan" => {
                source = scan(&mut im, node, &outputs)?;
                None
            }
            "stream-exec-exchange" => None,
            "stream-exec-mini-batch-assigner" => {
                mini_batch_assigner(&mut im, node)?;
                None
            }
            "stream-exec-calc" => Some(nodes::calc(&mut im, node, &fields, &outputs)?),
            "stream-exec-group-aggregate" => Some(nodes::group_aggregate(&mut im, node, &fields, &outputs)?),
            "stream-exec-local-group-aggregate" => {
                local = Some((node, fields.clone()));
                None
            }
            "stream-exec-global-group-aggregate" => {
                let Some((l, local_inputs)) = local.take() else {
                    return Err(node.err("", "a GlobalGroupAggregate without its LocalGroupAggregate"));
                };
                if l.json.get("grouping") != node.json.get("grouping") {
                    return Err(node.err("grouping", format!("differs from the grouping of {} (id {})", l.kind, l.id)));
                }
                Some(nodes::group_aggregate(&mut im, node, &local_inputs, &outputs)?)
            }
            "stream-exec-rank" => Some(nodes::rank(node, &fields, &outputs)?),
            "stream-exec-deduplicate" => Some(nodes::deduplicate(&im, node, &fields)?),
            "stream-exec-over-aggregate" => Some(nodes::over_aggregate(node, &fields, &outputs)?),
            "stream-exec-sink" => {
                sink = Some(sink_name(node)?);
                None
            }
            _ => return Err(not_modelled(node)),
        };
        if let Some((l, _)) = &local {
            if !matches!(node.base(), "stream-exec-local-group-aggregate" | "stream-exec-exchange") {
                return Err(l.err("", "a LocalGroupAggregate not followed by its GlobalGroupAggregate"));
            }
        }
        if let Some(op) = op {
            im.pipeline.push(op);
            im.origins.push(format!("{} (id {})", node.kind, node.id));
        }
        if let Some(ttl) = state::node_ttl(node)? {
            if op_index(&im, node).is_none() {
                return Err(node.err("state", "state metadata on a node that keeps no state here"));
            }
            im.ttls.push((im.pipeline.len() - 1, ttl));
        }
        fields = outputs;
    }
    let sink = sink.ok_or_else(|| {
        ScenarioError::new(
            "nodes",
            "the plan ends in no stream-exec-sink (COMPILE PLAN … FOR INSERT INTO … writes one)",
        )
    })?;
    if im.pipeline.is_empty() {
        return Err(ScenarioError::new(
            "nodes",
            "the plan reads the source unchanged: there is no operator to simulate",
        ));
    }
    let mut scenario = Map::new();
    scenario.insert("name".into(), json!("compiled-plan"));
    scenario.insert("title".into(), json!(format!("Compiled plan into {sink}")));
    scenario.insert(
        "description".into(),
        json!(format!(
            "Imported from a Flink {} compiled plan (COMPILE PLAN … FOR INSERT INTO {sink}): {} operators. Add steps \
             or a workload to drive it.",
            plan["flinkVersion"].as_str().unwrap_or("?"),
            im.pipeline.len()
        )),
    );
    scenario.insert("flink".into(), json!(flink));
    let session_ttl = state::apply(&mut im);
    scenario.insert("state_ttl".into(), json!(format_duration(session_ttl)));
    settings(&im, &mut scenario)?;
    if let Some(pt) = &im.proctime {
        source["proctime"] = json!(pt);
    }
    scenario.insert("source".into(), source);
    scenario.insert("pipeline".into(), Value::Array(im.pipeline.clone()));
    let mut scenario = Value::Object(scenario);
    let loaded = check_loads(&im, &scenario)?;
    // `generateUpdateBefore` is false on a node whose output is insert-only (it has no update to
    // precede): the field then says nothing, and is left out as the SQL planner leaves it out.
    for (op, node) in scenario["pipeline"].as_array_mut().into_iter().flatten().zip(&loaded.operators) {
        if op.get("generate_update_before") == Some(&Value::Bool(false)) && !node.spec.output_retracts() {
            op.as_object_mut().map(|o| o.remove("generate_update_before"));
        }
    }
    Ok(scenario)
}

/// `flinkVersion`: 1.19 – 2.3 are the scenario format's `"2.3"`, 1.18 its `"1.12"` (which has
/// no per-operator TTL: the engine refuses one there, saying why).
fn flink_mode(plan: &Value) -> Result<&'static str, ScenarioError> {
    let v = plan.get("flinkVersion").and_then(Value::as_str).ok_or_else(|| {
        ScenarioError::new("flinkVersion", "missing: a compiled plan of Flink 1.18+ names its version")
    })?;
    let (major, minor) =
        v.split_once('.').and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?))).unwrap_or((0, 0));
    match (major, minor) {
        (1, 18) => Ok("1.12"),
        (1, 19..) | (2, 0..=3) => Ok("2.3"),
        _ => Err(ScenarioError::new(
            "flinkVersion",
            format!("{}: plans of Flink 1.18 – 2.3 are read (the format before 1.18 has no state metadata)", quote(v)),
        )),
    }
}

/// The nodes from the table source to the sink, following `edges`: one source, each other node
/// with exactly one input and every node on the one path.
fn chain(plan: &Value) -> Result<Vec<Node<'_>>, ScenarioError> {
    let list = plan
        .get("nodes")
        .and_then(Value::as_array)
        .ok_or_else(|| ScenarioError::new("nodes", "missing or not an array"))?;
    let mut all = Vec::with_capacity(list.len());
    let mut by_id = HashMap::new();
    for (index, json) in list.iter().enumerate() {
        let id = json
            .get("id")
            .and_then(Value::as_i64)
            .ok_or_else(|| ScenarioError::new(format!("nodes[{index}].id"), "missing or not a number"))?;
        let kind = json
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| ScenarioError::new(format!("nodes[{index}].type"), "missing or not a string"))?;
        let node = Node { index, id, kind, json };
        if !KNOWN.contains(&node.base()) {
            return Err(not_modelled(&node));
        }
        if by_id.insert(id, index).is_some() {
            return Err(node.err("id", "another node has this id"));
        }
        all.push(node);
    }
    let edges = plan
        .get("edges")
        .and_then(Value::as_array)
        .ok_or_else(|| ScenarioError::new("edges", "missing or not an array"))?;
    let mut next: HashMap<usize, usize> = HashMap::new();
    let mut has_input = vec![false; all.len()];
    for (j, e) in edges.iter().enumerate() {
        let end = |k: &str| e.get(k).and_then(Value::as_i64).and_then(|id| by_id.get(&id).copied());
        let (Some(s), Some(t)) = (end("source"), end("target")) else {
            return Err(ScenarioError::new(format!("edges[{j}]"), "source and target must be ids of nodes"));
        };
        if has_input[t] {
            return Err(all[t].err("", "has more than one input: only single-input operators are modelled"));
        }
        if next.insert(s, t).is_some() {
            return Err(all[s].err("", "feeds more than one node: the simulator runs one query into one sink"));
        }
        has_input[t] = true;
    }
    let sources: Vec<usize> = (0..all.len()).filter(|&i| !has_input[i]).collect();
    let [first] = sources.as_slice() else {
        return Err(ScenarioError::new(
            "nodes",
            format!("{} nodes have no input: the simulator runs one source", sources.len()),
        ));
    };
    if all[*first].base() != "stream-exec-table-source-scan" {
        return Err(all[*first].err("", "has no input but is no table source scan"));
    }
    let mut order = vec![*first];
    while let Some(&n) = next.get(order.last().unwrap_or(first)) {
        if order.len() > all.len() {
            break;
        }
        order.push(n);
    }
    if order.len() != all.len() {
        return Err(ScenarioError::new("edges", "the nodes do not form one path from the source to the sink"));
    }
    let mut slots: Vec<Option<Node>> = all.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|i| slots[i].take()).collect())
}

/// Node types (without version) read; any other is refused by name.
const KNOWN: &[&str] = &[
    "stream-exec-table-source-scan",
    "stream-exec-exchange",
    "stream-exec-mini-batch-assigner",
    "stream-exec-calc",
    "stream-exec-group-aggregate",
    "stream-exec-local-group-aggregate",
    "stream-exec-global-group-aggregate",
    "stream-exec-rank",
    "stream-exec-deduplicate",
    "stream-exec-over-aggregate",
    "stream-exec-sink",
];

fn not_modelled(node: &Node) -> ScenarioError {
    ScenarioError::new(
        format!("nodes[{}].type", node.index),
        format!("{} (id {}) is not modelled: the simulator reads {MODELLED}", node.kind, node.id),
    )
}

/// The index of the operator `node` became, if it became one.
fn op_index(im: &Import, node: &Node) -> Option<usize> {
    let label = format!("{} (id {})", node.kind, node.id);
    im.origins.last().filter(|o| **o == label).map(|_| im.origins.len() - 1)
}

/// The scan's source: its name (the table's last identifier part, `src` for an inline table) and
/// its columns as the scan emits them (a projection pushed into the source included).
fn scan(im: &mut Import, node: &Node, outputs: &[Field]) -> Result<Value, ScenarioError> {
    let table = node.get("scanTableSource")?.get("table");
    let abilities = node.json.get("scanTableSource").and_then(|s| s.get("abilities")).and_then(Value::as_array);
    for (j, a) in abilities.into_iter().flatten().enumerate() {
        let t = a.get("type").and_then(Value::as_str).unwrap_or("?");
        if t != "ProjectPushDown" {
            return Err(node.err(
                &format!("scanTableSource.abilities[{j}]"),
                format!("the source ability {} is not modelled (the simulated source emits every row)", quote(t)),
            ));
        }
    }
    let identifier = table.and_then(|t| t.get("identifier")).and_then(Value::as_str);
    let name = identifier.and_then(|i| i.rsplit('.').next()).map(|n| n.trim_matches('`').replace("``", "`"));
    let mut schema = Vec::new();
    for (j, f) in outputs.iter().enumerate() {
        let t = rex::engine_type(&f.type_text)
            .map_err(|m| node.err("outputType", format!("column {}: {m}", quote(&f.name))))?;
        if f.proctime {
            return Err(node.err("outputType", format!("column {j} is a time attribute of the source: not modelled")));
        }
        schema.push(json!([f.name, t.name()]));
        im.source_columns.push(f.name.clone());
    }
    Ok(json!({ "name": name.unwrap_or_else(|| "src".into()), "schema": schema }))
}

fn mini_batch_assigner(im: &mut Import, node: &Node) -> Result<(), ScenarioError> {
    let interval = node.get("miniBatchInterval")?;
    let mode = interval.get("mode").and_then(Value::as_str).unwrap_or("?");
    if mode != "ProcTime" {
        return Err(node.err("miniBatchInterval.mode", format!("{} is not modelled (only ProcTime)", quote(mode))));
    }
    let ms = interval.get("interval").and_then(Value::as_i64).filter(|&ms| ms > 0);
    im.mini_batch_interval =
        Some(ms.ok_or_else(|| node.err("miniBatchInterval.interval", "MiniBatch Latency must be greater than 0 ms."))?);
    Ok(())
}

/// The mini-batch options a node's `configuration` holds.
fn note_configuration(im: &mut Import, node: &Node) {
    let c = |k: &str| node.json.get("configuration").and_then(|c| c.get(k)).and_then(Value::as_str);
    let enabled = c("table.exec.mini-batch.enabled").map(|v| v.eq_ignore_ascii_case("true"));
    let size = c("table.exec.mini-batch.size").and_then(|v| v.trim().parse().ok());
    if enabled.is_some() || size.is_some() {
        im.mini_batch_config.push((format!("{} (id {})", node.kind, node.id), enabled, size));
    }
}

/// `mini_batch` and `agg_phase_strategy`, when the plan shows them.
fn settings(im: &Import, scenario: &mut Map<String, Value>) -> Result<(), ScenarioError> {
    for (label, enabled, _) in &im.mini_batch_config {
        if *enabled == Some(!im.mini_batch_enabled()) {
            let state = if im.mini_batch_enabled() {
                "false, though the plan has a MiniBatchAssigner"
            } else {
                "true, but the plan has no MiniBatchAssigner"
            };
            return Err(ScenarioError::new("nodes", format!("{label}: table.exec.mini-batch.enabled is {state}")));
        }
    }
    let Some(interval) = im.mini_batch_interval else { return Ok(()) };
    let mut mini_batch = json!({ "allow_latency": format_duration(interval) });
    let sizes: Vec<&(String, Option<bool>, Option<i64>)> =
        im.mini_batch_config.iter().filter(|c| c.2.is_some()).collect();
    if let Some((label, _, Some(size))) = sizes.first() {
        if let Some((other, _, s)) = sizes.iter().find(|c| c.2 != Some(*size)) {
            return Err(ScenarioError::new(
                "nodes",
                format!(
                    "{label} and {other} have different table.exec.mini-batch.size ({size}, {})",
                    s.unwrap_or_default()
                ),
            ));
        }
        mini_batch["size"] = json!(size);
    }
    scenario.insert("mini_batch".into(), mini_batch);
    match (&im.one_phase_mergeable, &im.two_phase) {
        (Some(one), Some(two)) => {
            return Err(ScenarioError::new(
                "nodes",
                format!(
                    "{one} aggregates in one phase and {two} in two: the scenario has one \
                     table.optimizer.agg-phase-strategy"
                ),
            ))
        }
        (Some(_), None) => scenario.insert("agg_phase_strategy".into(), json!("ONE_PHASE")),
        (None, Some(_)) => scenario.insert("agg_phase_strategy".into(), json!("TWO_PHASE")),
        (None, None) => None,
    };
    Ok(())
}

/// The sink table's name.
fn sink_name(node: &Node) -> Result<String, ScenarioError> {
    for flag in ["requireUpsertMaterialize", "upsertMaterialize"] {
        if node.json.get(flag).and_then(Value::as_bool) == Some(true) {
            return Err(node.err(
                flag,
                "the sink's SinkUpsertMaterializer is not imported from a compiled plan yet (its primary key, upsert \
                 key and state TTL are not read here); write it as the pipeline's last operator, \
                 \"operator\": \"SinkUpsertMaterializer\"",
            ));
        }
    }
    let identifier = node.json.get("dynamicTableSink").and_then(|s| s.get("table")).and_then(|t| t.get("identifier"));
    Ok(identifier.and_then(Value::as_str).unwrap_or("the sink").to_string())
}

/// Loads the scenario built, so that what the engine refuses is reported now, naming the node
/// the operator came from.
fn check_loads(im: &Import, scenario: &Value) -> Result<crate::engine::Scenario, ScenarioError> {
    let e = match crate::engine::Scenario::from_json(&scenario.to_string()) {
        Ok(loaded) => return Ok(loaded),
        Err(e) => e,
    };
    let index =
        e.path.strip_prefix("pipeline[").and_then(|p| p.split(']').next()).and_then(|i| i.parse::<usize>().ok());
    let mut message = String::new();
    if let Some(origin) = index.and_then(|i| im.origins.get(i)) {
        let _ = write!(message, "{origin}: ");
    }
    message.push_str(&e.message);
    Err(ScenarioError::new(format!("imported scenario {}", e.path), message))
}
