//! The pipeline's shape: which source or operator each operator reads, compiled in order.
//!
//! Operators are listed inputs first. Each reads the previous operator's changelog unless it
//! names its `input` (an operator listed before it, or a source), and a two-input operator (a
//! join) names its `left` and `right`. The operators form a tree, as a Flink SQL query without a
//! reused sub-plan does: each operator's output feeds exactly one operator, except the last one,
//! which feeds the result; a source may be read by several operators (one scan each, as the
//! planner scans a table once per reference).

use super::raw::RawOperatorHeader;
use super::{NodeInput, OperatorNode, Source, SourceChangelog};
use crate::engine::error::{name_list, quote, unknown_variant, ScenarioError};
use crate::engine::format::parse_part;
use crate::engine::operators::{monotonicity, CompileInput, OperatorKind, OPERATOR_KINDS};
use crate::engine::options::{AggPhaseStrategy, FlinkMode, MiniBatch, Retention, StateBackend};
use crate::engine::row::Column;
use serde_json::value::RawValue;
use std::collections::HashSet;

/// The planner settings every operator is compiled against.
#[derive(Clone, Copy)]
pub(super) struct Settings {
    pub(super) flink: FlinkMode,
    pub(super) retention: Retention,
    pub(super) state_backend: StateBackend,
    pub(super) mini_batch: Option<MiniBatch>,
    pub(super) agg_phase_strategy: AggPhaseStrategy,
    /// The pipeline was planned from SQL (first pass): see [`CompileInput::planned`].
    pub(super) planned: bool,
}

/// What an operator knows of one of its inputs (owned; [`CompileInput`] borrows it).
struct InputInfo {
    columns: Vec<Column>,
    name: String,
    retracts: bool,
    update_before: bool,
    deletes: bool,
    unique_key_len: usize,
    monotonicity: monotonicity::ModifiedMonotonicity,
    changes_from: String,
    source_proctime: Option<usize>,
    rowtime: Option<usize>,
}

impl InputInfo {
    fn of(input: NodeInput, sources: &[Source], nodes: &[OperatorNode], changes_from: &[String]) -> InputInfo {
        match input {
            NodeInput::Source(s) => {
                let source = &sources[s];
                let changes = source.changelog != SourceChangelog::InsertOnly;
                let columns = source.output_columns();
                InputInfo {
                    monotonicity: monotonicity::of_source(&columns, !changes),
                    columns,
                    name: format!("source {}", quote(&source.name)),
                    retracts: changes,
                    // An upsert source's updates come without UPDATE_BEFORE.
                    update_before: source.changelog == SourceChangelog::All,
                    deletes: changes,
                    // `FlinkRelMdUpsertKeys` of a scan: the table's primary key (Flink 2.3.0 plans a
                    // Debezium source keyed (order_id, li_id) under a join on order_id as
                    // `rightInputSpec=[HasUniqueKey]`). Unique keys are leading columns here.
                    unique_key_len: leading_key_len(&source.primary_key),
                    changes_from: crate::engine::explain::scan_plan(source),
                    source_proctime: source.proctime.as_ref().map(|_| source.columns.len()),
                    rowtime: source.watermark.map(|w| w.column),
                }
            }
            NodeInput::Operator(j) => {
                let spec = &nodes[j].spec;
                InputInfo {
                    columns: spec.output_columns().to_vec(),
                    name: format!("the output of {}", quote(&nodes[j].id)),
                    retracts: spec.output_retracts(),
                    update_before: spec.generates_update_before(),
                    deletes: spec.output_retracts() && spec.output_deletes(),
                    unique_key_len: spec.unique_key_len(),
                    monotonicity: spec.modified_monotonicity(),
                    changes_from: changes_from[j].clone(),
                    source_proctime: None,
                    rowtime: None,
                }
            }
        }
    }

    fn compile_input<'a>(
        &'a self,
        path: &'a str,
        s: Settings,
        right: Option<&'a CompileInput<'a>>,
    ) -> CompileInput<'a> {
        CompileInput {
            path,
            flink: s.flink,
            retention: s.retention,
            state_backend: s.state_backend,
            mini_batch: s.mini_batch,
            agg_phase_strategy: s.agg_phase_strategy,
            columns: &self.columns,
            input_name: &self.name,
            retracts: self.retracts,
            update_before: self.update_before,
            deletes: self.deletes,
            unique_key_len: self.unique_key_len,
            monotonicity: &self.monotonicity,
            changes_from: &self.changes_from,
            planned: s.planned,
            source_proctime: self.source_proctime,
            rowtime: self.rowtime,
            right,
        }
    }
}

/// The length of `key` when it is the row's leading columns in order, else 0 (a key elsewhere in
/// the row is not modelled as a unique key, as [`crate::engine::operators::CompileInput::unique_key_len`] says).
fn leading_key_len(key: &[usize]) -> usize {
    if key.iter().enumerate().all(|(j, &i)| j == i) {
        key.len()
    } else {
        0
    }
}

/// `unknown value `X`, expected `A` or `B``, as the scenario's other enums are refused.
fn unknown_operator(name: &str) -> String {
    let names: Vec<&str> = OPERATOR_KINDS.iter().map(|k| k.name).collect();
    unknown_variant(name, &names)
}

/// The operator's object without the fields this module reads (`input`, `left`, `right`), for
/// its kind's compiler, which rejects fields it does not know.
fn without_inputs(raw: &str, path: &str) -> Result<String, ScenarioError> {
    let mut value: serde_json::Map<String, serde_json::Value> = parse_part(raw, path)?;
    for field in ["input", "left", "right"] {
        value.remove(field);
    }
    serde_json::to_string(&value).map_err(|e| ScenarioError::new(path, e.to_string()))
}

/// Resolves the name an operator gives as an input: an operator listed before it, or a source.
fn resolve(name: &str, field: &str, sources: &[Source], nodes: &[OperatorNode]) -> Result<NodeInput, ScenarioError> {
    if let Some(j) = nodes.iter().position(|n| n.id == name) {
        return Ok(NodeInput::Operator(j));
    }
    if let Some(s) = sources.iter().position(|s| s.name == name) {
        return Ok(NodeInput::Source(s));
    }
    let known = sources.iter().map(|s| s.name.as_str()).chain(nodes.iter().map(|n| n.id.as_str()));
    Err(ScenarioError::new(
        field,
        format!(
            "{} is neither a source nor an operator listed before this one (inputs come first): {}",
            quote(name),
            name_list(known)
        ),
    ))
}

/// The inputs of operator `i` of `kind`, from its header (defaults for a one-input operator).
fn inputs_of(
    header: &RawOperatorHeader,
    kind: &OperatorKind,
    path: &str,
    sources: &[Source],
    nodes: &[OperatorNode],
) -> Result<Vec<NodeInput>, ScenarioError> {
    if kind.inputs == 2 {
        if header.input.is_some() {
            return Err(ScenarioError::new(
                format!("{path}.input"),
                format!("{} reads two inputs: name them with left and right", kind.name),
            ));
        }
        let side = |name: &Option<String>, field: &str| match name {
            Some(n) => resolve(n, &format!("{path}.{field}"), sources, nodes),
            None => Err(ScenarioError::new(
                format!("{path}.{field}"),
                format!("missing: {} reads two inputs, name its {field} input (an operator or a source)", kind.name),
            )),
        };
        return Ok(vec![side(&header.left, "left")?, side(&header.right, "right")?]);
    }
    if header.left.is_some() || header.right.is_some() {
        let field = if header.left.is_some() { "left" } else { "right" };
        return Err(ScenarioError::new(
            format!("{path}.{field}"),
            format!("{} reads one input: name it with input", kind.name),
        ));
    }
    match (&header.input, nodes.last()) {
        (Some(name), _) => Ok(vec![resolve(name, &format!("{path}.input"), sources, nodes)?]),
        (None, Some(_)) => Ok(vec![NodeInput::Operator(nodes.len() - 1)]),
        (None, None) if sources.len() == 1 => Ok(vec![NodeInput::Source(0)]),
        (None, None) => Err(ScenarioError::new(
            format!("{path}.input"),
            format!(
                "missing: the scenario has several sources ({}); name the one this operator reads",
                name_list(sources.iter().map(|s| s.name.as_str()))
            ),
        )),
    }
}

/// Compiles the operators in order, each against its inputs, and checks the shape is a tree.
pub(super) fn compile_pipeline(
    raw: &[Box<RawValue>],
    sources: &[Source],
    settings: Settings,
) -> Result<Vec<OperatorNode>, ScenarioError> {
    if raw.is_empty() {
        return Err(ScenarioError::new("pipeline", "needs at least one operator"));
    }
    let mut nodes: Vec<OperatorNode> = Vec::new();
    // Per operator: the physical plan of the nearest node at or above it that is not a Calc.
    let mut changes_from: Vec<String> = Vec::new();
    // Which operator consumes each operator's output.
    let mut consumer: Vec<Option<String>> = Vec::new();
    let mut ids: HashSet<String> = HashSet::new();
    for (i, op) in raw.iter().enumerate() {
        let path = format!("pipeline[{i}]");
        let header: RawOperatorHeader = parse_part(op.get(), &path)?;
        let id = header.id.clone();
        if id.trim().is_empty() || id == "result" || sources.iter().any(|s| s.name == id) {
            return Err(ScenarioError::new(
                format!("{path}.id"),
                format!(
                    "{} cannot name an operator: ids must be non-empty and differ from the sources and 'result'",
                    quote(&id)
                ),
            ));
        }
        if !ids.insert(id.clone()) {
            return Err(ScenarioError::new(format!("{path}.id"), format!("duplicate operator id {}", quote(&id))));
        }
        let kind = OPERATOR_KINDS
            .iter()
            .find(|k| k.name == header.operator)
            .ok_or_else(|| ScenarioError::new(format!("{path}.operator"), unknown_operator(&header.operator)))?;
        let inputs = inputs_of(&header, kind, &path, sources, &nodes)?;
        for (n, input) in inputs.iter().enumerate() {
            if let NodeInput::Operator(j) = *input {
                if let Some(other) = &consumer[j] {
                    let field = match (kind.inputs, n) {
                        (2, 0) => "left",
                        (2, _) => "right",
                        _ => "input",
                    };
                    return Err(ScenarioError::new(
                        format!("{path}.{field}"),
                        format!(
                            "{} already feeds {}: an operator's output feeds one operator (write the \
                             operator twice to read its changelog twice)",
                            quote(&nodes[j].id),
                            quote(other)
                        ),
                    ));
                }
                consumer[j] = Some(id.clone());
            }
        }
        let infos: Vec<InputInfo> =
            inputs.iter().map(|&input| InputInfo::of(input, sources, &nodes, &changes_from)).collect();
        let text = if header.input.is_some() || header.left.is_some() || header.right.is_some() {
            without_inputs(op.get(), &path)?
        } else {
            op.get().to_string()
        };
        let right = infos.get(1).map(|r| r.compile_input(&path, settings, None));
        let input = infos[0].compile_input(&path, settings, right.as_ref());
        let spec = (kind.compile)(&text, input)?;
        changes_from.push(if header.operator == "Calc" { infos[0].changes_from.clone() } else { spec.physical_plan() });
        nodes.push(OperatorNode { id, spec, inputs });
        consumer.push(None);
    }
    let last = nodes.len() - 1;
    if let Some(i) = consumer[..last].iter().position(Option::is_none) {
        return Err(ScenarioError::new(
            format!("pipeline[{i}]"),
            format!(
                "{} feeds no operator: only the last operator ({}) feeds the result",
                quote(&nodes[i].id),
                quote(&nodes[last].id)
            ),
        ));
    }
    if let Some(i) = nodes[..last].iter().position(|n| n.spec.is_sink()) {
        return Err(ScenarioError::new(
            format!("pipeline[{i}].operator"),
            format!(
                "{} is the sink's own operator (its plan is the Sink node): it can only be the pipeline's last \
                 operator, and it feeds {}",
                quote(&nodes[i].id),
                quote(consumer[i].as_deref().unwrap_or_default())
            ),
        ));
    }
    for (s, source) in sources.iter().enumerate() {
        if !nodes.iter().any(|n| n.inputs.contains(&NodeInput::Source(s))) {
            return Err(ScenarioError::new(
                format!("sources[{s}]"),
                format!("no operator reads {}: name it as an operator's input", quote(&source.name)),
            ));
        }
    }
    check_upsert_reads(&nodes, sources)?;
    check_update_before(&nodes)?;
    Ok(nodes)
}

/// An operator that needs `UPDATE_BEFORE` must not read an upsert source, directly or through
/// projections ([`super::source_changelog::check_direct_read`]).
fn check_upsert_reads(nodes: &[OperatorNode], sources: &[Source]) -> Result<(), ScenarioError> {
    for (i, node) in nodes.iter().enumerate() {
        for (port, &input) in
            node.inputs.iter().enumerate().filter(|(port, _)| node.spec.needs_update_before_from(*port))
        {
            let mut at = input;
            while let NodeInput::Operator(j) = at {
                match nodes[j].inputs.as_slice() {
                    [below] if nodes[j].spec.plan().starts_with("Calc(") => at = *below,
                    _ => break,
                }
            }
            if let NodeInput::Source(s) = at {
                let field = match (node.inputs.len(), port) {
                    (1, _) => "input",
                    (_, 0) => "left",
                    _ => "right",
                };
                super::source_changelog::check_direct_read(&sources[s], &node.id, format!("pipeline[{i}].{field}"))?;
            }
        }
    }
    Ok(())
}

/// An operator that needs `UPDATE_BEFORE` must not read an input that drops them.
fn check_update_before(nodes: &[OperatorNode]) -> Result<(), ScenarioError> {
    let lacks_update_before = |n: &OperatorNode| n.spec.output_retracts() && !n.spec.generates_update_before();
    for node in nodes {
        for (port, input) in node.inputs.iter().enumerate() {
            let NodeInput::Operator(j) = *input else { continue };
            if !node.spec.needs_update_before_from(port) {
                continue;
            }
            if !lacks_update_before(&nodes[j]) {
                continue;
            }
            // Name the operator that dropped them, before any projection passing its output on.
            let mut origin = j;
            while let Some(NodeInput::Operator(k)) = nodes[origin].inputs.first() {
                if nodes[origin].inputs.len() != 1 || !lacks_update_before(&nodes[*k]) {
                    break;
                }
                origin = *k;
            }
            return Err(ScenarioError::new(
                format!("pipeline[{origin}].generate_update_before"),
                format!(
                    "false, but {} consumes this output and needs UPDATE_BEFORE / retraction messages \
                     to retract old rows (Flink's planner only drops them when nothing downstream needs them)",
                    quote(&node.id)
                ),
            ));
        }
    }
    Ok(())
}
