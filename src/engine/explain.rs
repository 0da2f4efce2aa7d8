//! The names Flink's `EXPLAIN` gives the two ends of a pipeline, for the flow diagram (the
//! operators' own plan texts are [`OperatorSpec::plan`](super::operators::OperatorSpec::plan)):
//! the source scan and the sink. Written as the Blink planner's `TableSourceScan(table=[[…]],
//! fields=[…])` and `Sink(table=[…], fields=[…])` (`StreamPhysicalTableSourceScan`,
//! `StreamPhysicalSink`), with the catalog and database left out.

use super::scenario::Scenario;

/// `TableSourceScan(table=[[tbl1]], fields=[devId, status, times])`.
pub fn source_plan(scenario: &Scenario) -> String {
    let fields: Vec<&str> = scenario.source.columns.iter().map(|c| c.name.as_str()).collect();
    format!("TableSourceScan(table=[[{}]], fields=[{}])", scenario.source.name, fields.join(", "))
}

/// `Sink(table=[result], fields=[st, cnt])`: the result table, fed by the last operator.
pub fn sink_plan(scenario: &Scenario) -> String {
    let fields: Vec<String> = scenario
        .operators
        .last()
        .map(|n| n.spec.output_columns().iter().map(|c| c.name.clone()).collect())
        .unwrap_or_default();
    format!("Sink(table=[result], fields=[{}])", fields.join(", "))
}
