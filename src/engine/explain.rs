//! The plan as Flink 2.3's `EXPLAIN CHANGELOG_MODE` prints it (`StreamPlanner.explain`):
//! the `== Optimized Physical Plan ==` with each node's `changelogMode=[I,UB,UA,D]`, and the
//! `== Optimized Execution Plan ==` (the `ExecNode`s: a processing-time top-1 is a `Rank` in the
//! first and a `Deduplicate` in the second). Nodes, from the source:
//!
//! - `TableSourceScan(table=[[default_catalog, default_database, src]], fields=[…])`
//!   (`StreamPhysicalTableSourceScan`; the processing-time attribute is not a field of the scan:
//!   a `Calc` computes `PROCTIME()`);
//! - `MiniBatchAssigner(interval=[1000ms], mode=[ProcTime])` under mini-batch
//!   (`StreamPhysicalMiniBatchAssigner`, placed after the source by `MiniBatchIntervalInferRule`);
//! - per operator, `Exchange(distribution=[hash[k]])` (or `single`) where it needs its input
//!   partitioned by key (`FlinkExpandConversionRule`), then the operator's own node(s)
//!   ([`OperatorSpec::physical_plan`], [`OperatorSpec::plan`]).
//!
//! Each node's changelog mode is what `FlinkChangelogModeInferenceProgram` gives it: `I`, then
//! `UB` and `UA` when it emits updates (`UB` only when it emits `UPDATE_BEFORE`), `D` when it
//! emits deletions; an `Exchange` or a `Calc` keeps its input's.

use super::operators::{Distribution, OperatorSpec};
use super::scenario::{NodeInput, Scenario, Source, SourceChangelog, SourceConnector};

/// `TableSourceScan(table=[[default_catalog, default_database, tbl1]], fields=[devId, status])`.
pub fn source_plan(scenario: &Scenario) -> String {
    scan_plan(scenario.source())
}

/// The scan of `source`, as [`source_plan`].
pub fn scan_plan(source: &Source) -> String {
    let fields: Vec<&str> = source.columns.iter().map(|c| c.name.as_str()).collect();
    format!(
        "TableSourceScan(table=[[default_catalog, default_database, {}]], fields=[{}])",
        source.name,
        fields.join(", ")
    )
}

/// The scan of a source whose connector takes push-down: `TableSourceScan(table=[[…, src,
/// filter=[…], project=[side, k], metadata=[]]], fields=[side, k])`, the `project` only when
/// some fields are left out (`TableSourceTable`'s digest, Flink 2.3).
fn pushed_scan_plan(source: &Source, pushed: &super::operators::ScanPushdown) -> String {
    let names: Vec<&str> = source.columns.iter().map(|c| c.name.as_str()).collect();
    let fields: Vec<&str> = match &pushed.columns {
        Some(cols) => cols.iter().filter_map(|&c| names.get(c).copied()).collect(),
        None => names.clone(),
    };
    let mut table = format!("default_catalog, default_database, {}", source.name);
    if let Some(f) = &pushed.filter {
        table.push_str(&format!(", filter=[{f}]"));
    }
    if fields.len() < names.len() {
        table.push_str(&format!(", project=[{}], metadata=[]", fields.join(", ")));
    }
    format!("TableSourceScan(table=[[{table}]], fields=[{}])", fields.join(", "))
}

/// `Sink(table=[result], fields=[st, cnt])`: the result table, fed by the last operator.
pub fn sink_plan(scenario: &Scenario) -> String {
    let fields: Vec<String> = match &scenario.output_names {
        Some(names) => names.clone(),
        None => scenario
            .operators
            .last()
            .map(|n| n.spec.output_columns().iter().map(|c| c.name.clone()).collect())
            .unwrap_or_default(),
    };
    format!("Sink(table=[result], fields=[{}])", fields.join(", "))
}

/// A node's changelog mode: `[I]`, `[I,UB,UA]`, `[I,UB,UA,D]`, `[I,UA]`, …
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangelogMode {
    pub updates: bool,
    pub update_before: bool,
    pub deletes: bool,
}

impl ChangelogMode {
    pub const INSERT_ONLY: ChangelogMode = ChangelogMode { updates: false, update_before: false, deletes: false };

    /// An operator's output mode.
    pub fn of(spec: &dyn OperatorSpec) -> ChangelogMode {
        let updates = spec.output_retracts();
        ChangelogMode {
            updates,
            update_before: updates && spec.generates_update_before(),
            deletes: updates && spec.output_deletes(),
        }
    }
}

impl std::fmt::Display for ChangelogMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut kinds = vec!["I"];
        if self.update_before {
            kinds.push("UB");
        }
        if self.updates {
            kinds.push("UA");
        }
        if self.deletes {
            kinds.push("D");
        }
        write!(f, "[{}]", kinds.join(","))
    }
}

/// The two plans, output side first, one node per line without the tree's indentation (the
/// form `shared/oracle`'s `plan_changelog` and `plan_ops` hold).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explained {
    /// `== Optimized Physical Plan ==`, each node with its `changelogMode=[…]`.
    pub physical: Vec<String>,
    /// `== Optimized Execution Plan ==`.
    pub execution: Vec<String>,
}

/// One node of both plans, with its inputs.
struct Node {
    physical: String,
    execution: String,
    mode: ChangelogMode,
    inputs: Vec<Node>,
}

fn with_mode(text: &str, mode: ChangelogMode) -> String {
    // Flink writes the changelog mode before a node's hints (`RelExplainUtil`, Flink 2.3:
    // `…, changelogMode=[I,UB,UA], stateTtlHints=[[[STATE_TTL options:[3 d]]]])`).
    if let Some(at) = text.find(", stateTtlHints=") {
        return format!("{}, changelogMode={mode}{}", &text[..at], &text[at..]);
    }
    match text.strip_suffix(')') {
        Some(head) if head.ends_with('(') => format!("{head}changelogMode={mode})"),
        Some(head) => format!("{head}, changelogMode={mode})"),
        None => format!("{text}, changelogMode={mode}"),
    }
}

/// An `ExecNode`'s description has no hints: Flink 2.3 prints `stateTtlHints` in the physical
/// plan only (`preset_seed-002-dau-new-users-per-operator-ttl`: the execution plan and the
/// compiled plan's description show none).
fn without_hints(text: &str) -> String {
    match text.find(", stateTtlHints=") {
        Some(at) => format!("{})", &text[..at]),
        None => text.to_string(),
    }
}

/// The nodes of a plan text of several lines (a two-phase aggregation prints its global node,
/// the exchange and its local node), output side first.
fn plan_lines(text: &str) -> Vec<String> {
    text.lines().map(|l| l.trim_start_matches([' ', '+', '-', ':']).to_string()).collect()
}

/// The plan of what feeds `input`: a source's scan (and the mini-batch assigner), or an
/// operator's subtree.
fn input_node(scenario: &Scenario, input: NodeInput, reader: &dyn OperatorSpec) -> Node {
    match input {
        NodeInput::Source(s) => {
            let source = &scenario.sources[s];
            let scan = match source.connector {
                SourceConnector::Values => scan_plan(source),
                SourceConnector::Filesystem => pushed_scan_plan(source, &reader.scan_pushdown()),
            };
            let mode = match source.changelog {
                SourceChangelog::InsertOnly => ChangelogMode::INSERT_ONLY,
                SourceChangelog::All => ChangelogMode { updates: true, update_before: true, deletes: true },
                // `ChangelogMode.upsert()`: `[I,UA,D]`.
                SourceChangelog::Upsert => ChangelogMode { updates: true, update_before: false, deletes: true },
            };
            let mut node = Node { physical: scan.clone(), execution: scan, mode, inputs: Vec::new() };
            if let Some(w) = &source.watermark {
                let (physical, execution) = watermark_assigner_plan(source, w);
                node = Node { physical, execution, mode, inputs: vec![node] };
            }
            match scenario.mini_batch {
                Some(mb) => {
                    let text = format!("MiniBatchAssigner(interval=[{}ms], mode=[ProcTime])", mb.allow_latency_ms);
                    Node { physical: text.clone(), execution: text, mode, inputs: vec![node] }
                }
                None => node,
            }
        }
        NodeInput::Operator(i) => operator_node(scenario, i),
    }
}

/// `WatermarkAssigner(rowtime=[ts], watermark=[-(ts, 5000:INTERVAL SECOND)])` (physical) and
/// `WatermarkAssigner(rowtime=[ts], watermark=[(ts - 5000:INTERVAL SECOND)])` (execution): the
/// shape `StreamPhysicalWatermarkAssigner.explainTerms` gives, written from Flink's plans as they
/// are usually printed, not checked against a recording here; the interval's unit is SECOND when
/// the delay is whole seconds (the scenario keeps milliseconds, not the unit the DDL wrote).
fn watermark_assigner_plan(source: &Source, w: &super::scenario::SourceWatermark) -> (String, String) {
    let ts = &source.columns[w.column].name;
    let (physical, execution) = if w.delay_ms == 0 {
        (ts.clone(), ts.clone())
    } else {
        let unit = if w.delay_ms % 1000 == 0 { "SECOND" } else { "SECOND(3)" };
        let interval = format!("{}:INTERVAL {unit}", w.delay_ms);
        (format!("-({ts}, {interval})"), format!("({ts} - {interval})"))
    };
    let text = |wm: String| format!("WatermarkAssigner(rowtime=[{ts}], watermark=[{wm}])");
    (text(physical), text(execution))
}

/// `Exchange(distribution=[hash[k]])` over `node`, when the operator needs one.
fn exchange(distribution: Option<Distribution>, node: Node) -> Node {
    let Some(distribution) = distribution else { return node };
    let text = match distribution {
        Distribution::Single => "Exchange(distribution=[single])".to_string(),
        Distribution::Hash(keys) => format!("Exchange(distribution=[hash[{}]])", keys.join(", ")),
    };
    let mode = node.mode;
    Node { physical: text.clone(), execution: text, mode, inputs: vec![node] }
}

/// `DropUpdateBefore` over `node` (`StreamPhysicalDropUpdateBefore`, Flink 2.3.0: no fields in
/// either plan, `DropUpdateBefore(changelogMode=[I,UA,D])` in the physical one).
fn drop_update_before(node: Node) -> Node {
    let mode = ChangelogMode { update_before: false, ..node.mode };
    let text = "DropUpdateBefore".to_string();
    Node { physical: format!("{text}()"), execution: text, mode, inputs: vec![node] }
}

/// Operator `i`'s node(s) over its inputs.
fn operator_node(scenario: &Scenario, i: usize) -> Node {
    let op = &scenario.operators[i];
    let spec = op.spec.as_ref();
    let mut inputs: Vec<Node> = Vec::new();
    for (port, &input) in op.inputs.iter().enumerate() {
        let distribution = if port == 0 { spec.distribution() } else { spec.right_distribution() };
        let mut node = input_node(scenario, input, spec);
        if port == 0 && spec.input_drops_update_before() {
            node = drop_update_before(node);
        }
        inputs.push(exchange(distribution, node));
    }
    let mode = ChangelogMode::of(spec);
    let physical = plan_lines(&spec.physical_plan());
    let execution: Vec<String> = plan_lines(&spec.plan()).iter().map(|l| without_hints(l)).collect();
    let n = physical.len().max(execution.len());
    // A node of several lines (local → exchange → global): the lower ones pass on inserts of
    // accumulators (`[I]`), the top one emits the operator's changelog.
    for k in (0..n).rev() {
        let physical = physical.get(k).cloned().unwrap_or_default();
        let execution = execution.get(k).cloned().unwrap_or_default();
        let node_mode = if k == 0 { mode } else { ChangelogMode::INSERT_ONLY };
        inputs = vec![Node { physical, execution, mode: node_mode, inputs }];
    }
    inputs.pop().unwrap_or(Node { physical: String::new(), execution: String::new(), mode, inputs: Vec::new() })
}

/// Whether the last operator is the sink's own ([`OperatorSpec::is_sink`]): its plan is the
/// `Sink` node (`upsertMaterialize=[true]`).
fn materialized(scenario: &Scenario) -> bool {
    scenario.operators.last().is_some_and(|n| n.spec.is_sink())
}

/// The whole plan: the sink (for `INSERT INTO`) over the last operator.
fn plan_tree(scenario: &Scenario) -> Option<Node> {
    let last = scenario.operators.len().checked_sub(1)?;
    let root = operator_node(scenario, last);
    Some(match (&scenario.sink_table, materialized(scenario)) {
        // `StreamPhysicalSink`: its changelog mode is `NONE` (it produces nothing);
        // `conflictStrategy` when an `ON CONFLICT` clause was given (`explainTerms`).
        (Some((table, columns)), false) => {
            let conflict =
                scenario.sink_conflict.map(|c| format!(", conflictStrategy=[{}]", c.name())).unwrap_or_default();
            let text = format!(
                "Sink(table=[default_catalog.default_database.{table}], fields=[{}]{conflict})",
                columns.join(", ")
            );
            Node { physical: text.clone(), execution: text, mode: ChangelogMode::INSERT_ONLY, inputs: vec![root] }
        }
        _ => root,
    })
}

/// The two plans' lines, Calcite's tree drawn: `+- ` before a node's last input, `:- ` before
/// the others, and `:  ` / `   ` continuing each branch.
fn draw(node: &Node, sink: bool, physical: bool, prefix: &str, first: &str, out: &mut Vec<(String, String)>) {
    let text = if physical {
        match node.physical.strip_suffix(')') {
            Some(head) if sink => format!("{head}, changelogMode=[NONE])"),
            _ => with_mode(&node.physical, node.mode),
        }
    } else {
        node.execution.clone()
    };
    out.push((format!("{prefix}{first}"), text));
    let n = node.inputs.len();
    for (k, input) in node.inputs.iter().enumerate() {
        let last = k + 1 == n;
        let child_prefix = format!(
            "{prefix}{}",
            if first.is_empty() {
                ""
            } else if first == ":- " {
                ":  "
            } else {
                "   "
            }
        );
        draw(input, false, physical, &child_prefix, if last { "+- " } else { ":- " }, out);
    }
}

/// Both plans of `scenario`'s pipeline, one node per line, output side first, without the
/// tree's drawing (the form `shared/oracle`'s `plan_changelog` and `plan_ops` hold).
pub fn explain_lines(scenario: &Scenario) -> Explained {
    let tree = |physical: bool| -> Vec<(String, String)> {
        let mut out = Vec::new();
        if let Some(root) = plan_tree(scenario) {
            draw(&root, scenario.sink_table.is_some() || materialized(scenario), physical, "", "", &mut out);
        }
        out
    };
    Explained {
        physical: tree(true).into_iter().map(|(_, t)| t).collect(),
        execution: tree(false).into_iter().map(|(_, t)| t).collect(),
    }
}

/// Flink's `EXPLAIN CHANGELOG_MODE` text of `scenario`'s pipeline: both plans as trees.
pub fn explain(scenario: &Scenario) -> String {
    let tree = |physical: bool| -> String {
        let mut out = Vec::new();
        if let Some(root) = plan_tree(scenario) {
            draw(&root, scenario.sink_table.is_some() || materialized(scenario), physical, "", "", &mut out);
        }
        out.into_iter().map(|(prefix, text)| format!("{prefix}{text}")).collect::<Vec<_>>().join("\n")
    };
    format!("== Optimized Physical Plan ==\n{}\n\n== Optimized Execution Plan ==\n{}\n", tree(true), tree(false))
}

/// What the plan's text leaves unsaid ([`crate::engine::operators::OperatorSpec::plan_notes`]),
/// each once: printed under the plan, never inside Flink's text.
pub fn plan_notes(scenario: &Scenario) -> Vec<&'static str> {
    let mut notes: Vec<&'static str> = Vec::new();
    for op in &scenario.operators {
        for note in op.spec.plan_notes() {
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    notes
}
