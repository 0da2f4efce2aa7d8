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
use super::scenario::{Scenario, Source, SourceChangelog};

/// `TableSourceScan(table=[[default_catalog, default_database, tbl1]], fields=[devId, status])`.
pub fn source_plan(scenario: &Scenario) -> String {
    scan_plan(&scenario.source)
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

/// One node of both plans.
struct Node {
    physical: String,
    execution: String,
    mode: ChangelogMode,
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

/// Both plans of `scenario`'s pipeline.
pub fn explain_lines(scenario: &Scenario) -> Explained {
    let mut nodes: Vec<Node> = Vec::new();
    let scan = source_plan(scenario);
    let source_mode = match scenario.source.changelog {
        SourceChangelog::InsertOnly => ChangelogMode::INSERT_ONLY,
        SourceChangelog::All => ChangelogMode { updates: true, update_before: true, deletes: true },
    };
    nodes.push(Node { physical: scan.clone(), execution: scan, mode: source_mode });
    if let Some(mb) = scenario.mini_batch {
        let text = format!("MiniBatchAssigner(interval=[{}ms], mode=[ProcTime])", mb.allow_latency_ms);
        let mode = nodes.last().map_or(source_mode, |n| n.mode);
        nodes.push(Node { physical: text.clone(), execution: text, mode });
    }
    for op in &scenario.operators {
        let spec = op.spec.as_ref();
        let input_mode = nodes.last().map_or(source_mode, |n| n.mode);
        if let Some(distribution) = spec.distribution() {
            let text = match distribution {
                Distribution::Single => "Exchange(distribution=[single])".to_string(),
                Distribution::Hash(keys) => format!("Exchange(distribution=[hash[{}]])", keys.join(", ")),
            };
            nodes.push(Node { physical: text.clone(), execution: text, mode: input_mode });
        }
        let mode = ChangelogMode::of(spec);
        let physical = plan_lines(&spec.physical_plan());
        let execution: Vec<String> = plan_lines(&spec.plan()).iter().map(|l| without_hints(l)).collect();
        let n = physical.len().max(execution.len());
        // A node of several lines (local → exchange → global): the lower ones pass on inserts
        // of accumulators (`[I]`), the top one emits the operator's changelog.
        for i in (0..n).rev() {
            let physical = physical.get(i).cloned().unwrap_or_default();
            let execution = execution.get(i).cloned().unwrap_or_default();
            let node_mode = if i == 0 { mode } else { ChangelogMode::INSERT_ONLY };
            nodes.push(Node { physical, execution, mode: node_mode });
        }
    }
    // A sink materializer's plan is the `Sink` node itself (`upsertMaterialize=[true]`).
    let materialized = scenario.operators.last().is_some_and(|n| n.spec.is_sink());
    if let (Some((table, columns)), false) = (&scenario.sink_table, materialized) {
        // `StreamPhysicalSink`: its changelog mode is `NONE` (it produces nothing);
        // `conflictStrategy` when an `ON CONFLICT` clause was given (`explainTerms`).
        let conflict = scenario.sink_conflict.map(|c| format!(", conflictStrategy=[{}]", c.name())).unwrap_or_default();
        let text = format!(
            "Sink(table=[default_catalog.default_database.{table}], fields=[{}]{conflict})",
            columns.join(", ")
        );
        nodes.push(Node { physical: text.clone(), execution: text, mode: ChangelogMode::INSERT_ONLY });
    }
    nodes.reverse();
    let sink = scenario.sink_table.is_some() || materialized;
    Explained {
        physical: nodes
            .iter()
            .enumerate()
            .map(|(i, n)| match n.physical.strip_suffix(')') {
                Some(head) if sink && i == 0 => format!("{head}, changelogMode=[NONE])"),
                _ => with_mode(&n.physical, n.mode),
            })
            .collect(),
        execution: nodes.iter().map(|n| n.execution.clone()).collect(),
    }
}

/// Flink's `EXPLAIN CHANGELOG_MODE` text of `scenario`'s pipeline: both plans as trees.
pub fn explain(scenario: &Scenario) -> String {
    let lines = explain_lines(scenario);
    let tree = |nodes: &[String]| -> String {
        nodes
            .iter()
            .enumerate()
            .map(
                |(depth, node)| {
                    if depth == 0 {
                        node.clone()
                    } else {
                        format!("{}+- {node}", "   ".repeat(depth - 1))
                    }
                },
            )
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "== Optimized Physical Plan ==\n{}\n\n== Optimized Execution Plan ==\n{}\n",
        tree(&lines.physical),
        tree(&lines.execution)
    )
}
