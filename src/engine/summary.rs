//! What a run did, in a few lines: the summary the CLI prints after a `metrics` run and the page
//! shows after a what-if run.

use super::metrics::Sample;
use super::scenario::describe_retentions;
use super::time::format_duration;
use super::Simulation;

/// The summary of a run, one line per fact: peak state, timer operations per input, emitted rows
/// and stale result rows, per operator; `secs` is how long the run took (wall-clock time, measured
/// by the caller: the engine reads no clock). What `run --trace metrics --format text` prints and
/// the page's what-if panel shows.
pub fn run_summary(sim: &Simulation, secs: f64) -> Vec<String> {
    let mut out = Vec::new();
    let tf = sim.time_format();
    let sc = sim.scenario();
    let last = Some(sim.sample_now());
    let peaks = sim.peaks();
    let inputs = sim.inputs();
    out.push(format!("scenario {} on {} — {}", sc.name, sc.flink.label(), describe_retentions(sc)));
    out.push(format!(
        "{inputs} inputs from {} to {} ({}), run in {secs:.2} s ({:.2} M inputs/s)",
        tf.format(sc.start_ms),
        tf.format(sim.now()),
        format_duration(sim.now() - sc.start_ms),
        inputs as f64 / secs.max(1e-9) / 1e6
    ));
    for (i, node) in sc.operators.iter().enumerate() {
        let op = |s: &Sample| s.operators.get(i).copied().unwrap_or_default();
        let now = last.as_ref().map(&op).unwrap_or_default();
        let p = peaks.get(i).copied().unwrap_or_default();
        let (peak_keys, peak_keys_at) = (p.keys.value, p.keys.at_ms);
        let (peak_stored, peak_stored_at) = (p.entries_stored.value, p.entries_stored.at_ms);
        let (peak_timers, peak_timers_at) = (p.timers.value, p.timers.at_ms);
        let (peak_list_rows, peak_list_rows_at) = (p.list_rows.value, p.list_rows.at_ms);
        let timer_ops = now.timers_registered + now.timers_deleted;
        let e = now.emitted;
        let emitted = if sc.flink.has_row_kind() {
            format!("+I {}, -U {}, +U {}, -D {}", e.insert, e.update_before, e.update_after, e.delete)
        } else {
            format!("(true,..) {}, (false,..) {}", e.accumulate, e.retract)
        };
        out.push(format!("operator {} — {}", node.id, node.spec.plan()));
        out.push(format!(
            "  keys now {} ({} visible); peak {} at {}",
            now.keys,
            now.keys_visible,
            peak_keys,
            tf.format(peak_keys_at)
        ));
        out.push(format!(
            "  state entries now {} stored ({} expired, not yet removed); peak {} at {}",
            now.entries_stored,
            now.entries_expired,
            peak_stored,
            tf.format(peak_stored_at)
        ));
        if peak_list_rows > 0 {
            out.push(format!(
                "  rows in state lists now {} (every row of every key, each list one entry above); peak {} at {}",
                now.list_rows,
                peak_list_rows,
                tf.format(peak_list_rows_at)
            ));
        }
        out.push(format!(
            "  timers now {}; peak {} at {}; registered {}, deleted {}, fired {} ({:.3} registrations + deletions per input)",
            now.timers,
            peak_timers,
            tf.format(peak_timers_at),
            now.timers_registered,
            now.timers_deleted,
            now.timers_fired,
            timer_ops as f64 / inputs.max(1) as f64
        ));
        out.push(format!("  emitted {emitted}"));
    }
    let result = sim.result();
    out.push(format!(
        "result: {} rows, {} of them stale (their key's state is gone: nothing will ever retract them)",
        result.len(),
        result.stale_len()
    ));
    out
}
