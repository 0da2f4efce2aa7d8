//! What `run` prints after the trace (`--trace full --format text`: the result table) or instead
//! of it (`--trace metrics --format text`: a summary of the metrics series).

use super::output::{Out, WriteFailure};
use flink_state_sim::engine::metrics::Sample;
use flink_state_sim::engine::summary::run_summary;
use flink_state_sim::engine::Simulation;

/// The result table, stale rows marked.
pub fn result_table(out: &mut Out, sim: &Simulation) -> Result<(), WriteFailure> {
    let tf = sim.time_format();
    let result = sim.result();
    out.text(&format!("result [{}]:", result.columns.join(", ")))?;
    for r in result.rows() {
        match r.stale_since_ms {
            None => out.text(&format!("  {}", r.row.join(", ")))?,
            Some(t) => out.text(&format!(
                "  {}    (stale since {}: its key's state is gone, it will never be retracted)",
                r.row.join(", "),
                tf.format(t)
            ))?,
        }
    }
    Ok(())
}

/// Peak state, timer operations per input, emitted rows and stale result rows
/// ([`run_summary`]).
pub fn summary(out: &mut Out, sim: &Simulation, secs: f64) -> Result<(), WriteFailure> {
    for line in run_summary(sim, secs) {
        out.text(&line)?;
    }
    Ok(())
}

/// A sample as JSON, its operators keyed by their ids: `{"time_ms", "inputs", "result_rows",
/// "stale_rows", "operators": {"agg": {"keys", ...}}}`.
pub fn sample_by_operator(sample: &Sample, ids: &[&str]) -> serde_json::Value {
    let mut value = serde_json::to_value(sample).unwrap_or_default();
    let operators: serde_json::Map<String, serde_json::Value> = ids
        .iter()
        .zip(&sample.operators)
        .map(|(id, o)| (id.to_string(), serde_json::to_value(o).unwrap_or_default()))
        .collect();
    value["operators"] = serde_json::Value::Object(operators);
    value
}
