//! What `run` prints after the trace (`--trace full --format text`: the result table) or instead
//! of it (`--trace metrics --format text`: a summary of the metrics series).

use super::output::{Out, WriteFailure};
use flink_state_sim::engine::metrics::Sample;
use flink_state_sim::engine::scenario::describe_retentions;
use flink_state_sim::engine::time::format_duration;
use flink_state_sim::engine::Simulation;

/// The result table, stale rows marked.
pub fn result_table(out: &mut Out, sim: &Simulation) -> Result<(), WriteFailure> {
    let tf = sim.time_format();
    let result = sim.result();
    out.line(&format!("result [{}]:", result.columns.join(", ")))?;
    for r in result.rows() {
        match r.stale_since_ms {
            None => out.line(&format!("  {}", r.row.join(", ")))?,
            Some(t) => out.line(&format!(
                "  {}    (stale since {}: its key's state is gone, it will never be retracted)",
                r.row.join(", "),
                tf.format(t)
            ))?,
        }
    }
    Ok(())
}

/// Peak state, timer operations per input, emitted rows and stale result rows.
pub fn summary(out: &mut Out, sim: &Simulation, secs: f64) -> Result<(), WriteFailure> {
    let tf = sim.time_format();
    let sc = sim.scenario();
    let last = Some(sim.sample_now());
    let peaks = sim.peaks();
    let inputs = sim.inputs();
    out.line(&format!("scenario {} on {} — {}", sc.name, sc.flink.label(), describe_retentions(sc)))?;
    out.line(&format!(
        "{inputs} inputs from {} to {} ({}), run in {secs:.2} s ({:.2} M inputs/s)",
        tf.format(sc.start_ms),
        tf.format(sim.now()),
        format_duration(sim.now() - sc.start_ms),
        inputs as f64 / secs.max(1e-9) / 1e6
    ))?;
    for (i, node) in sc.operators.iter().enumerate() {
        let op = |s: &Sample| s.operators.get(i).copied().unwrap_or_default();
        let now = last.as_ref().map(&op).unwrap_or_default();
        let p = peaks.get(i).copied().unwrap_or_default();
        let (peak_keys, peak_keys_at) = (p.keys.value, p.keys.at_ms);
        let (peak_stored, peak_stored_at) = (p.entries_stored.value, p.entries_stored.at_ms);
        let (peak_timers, peak_timers_at) = (p.timers.value, p.timers.at_ms);
        let timer_ops = now.timers_registered + now.timers_deleted;
        let e = now.emitted;
        let emitted = if sc.flink.has_row_kind() {
            format!("+I {}, -U {}, +U {}, -D {}", e.insert, e.update_before, e.update_after, e.delete)
        } else {
            format!("(true,..) {}, (false,..) {}", e.accumulate, e.retract)
        };
        out.line(&format!("operator {} — {}", node.id, node.spec.plan()))?;
        out.line(&format!(
            "  keys now {} ({} visible); peak {} at {}",
            now.keys,
            now.keys_visible,
            peak_keys,
            tf.format(peak_keys_at)
        ))?;
        out.line(&format!(
            "  state entries now {} stored ({} expired, not yet removed); peak {} at {}",
            now.entries_stored,
            now.entries_expired,
            peak_stored,
            tf.format(peak_stored_at)
        ))?;
        out.line(&format!(
            "  timers now {}; peak {} at {}; registered {}, deleted {}, fired {} ({:.3} registrations + deletions per input)",
            now.timers,
            peak_timers,
            tf.format(peak_timers_at),
            now.timers_registered,
            now.timers_deleted,
            now.timers_fired,
            timer_ops as f64 / inputs.max(1) as f64
        ))?;
        out.line(&format!("  emitted {emitted}"))?;
    }
    let result = sim.result();
    out.line(&format!(
        "result: {} rows, {} of them stale (their key's state is gone: nothing will ever retract them)",
        result.len(),
        result.stale_len()
    ))?;
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
