//! The metrics series as CSV (`run --format csv`): one row per sample, one group of columns per
//! operator (`<op>.keys`, `<op>.entries_stored`, …). The csv crate quotes a field holding a
//! comma, a quote or a line break; an operator id's control and invisible characters are
//! written escaped ([`escape_line`]), so the header cannot drive a terminal it is printed on.

use super::output::{Out, WriteFailure};
use flink_state_sim::engine::error::escape_line;
use flink_state_sim::engine::Simulation;

fn csv_error(e: csv::Error) -> WriteFailure {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => WriteFailure::from(io),
        other => WriteFailure::Other(std::io::Error::other(format!("{other:?}"))),
    }
}

pub fn write_series(out: &mut Out, sim: &Simulation) -> Result<(), WriteFailure> {
    let legacy = !sim.scenario().flink.has_row_kind();
    let kinds: &[&str] = if legacy { &["(true)", "(false)"] } else { &["+I", "-U", "+U", "-D"] };
    let mut w = csv::Writer::from_writer(out.writer());
    let mut header: Vec<String> = ["time_ms", "inputs", "result_rows", "stale_rows"].map(String::from).to_vec();
    for node in &sim.scenario().operators {
        let id = escape_line(&node.id);
        for col in [
            "keys",
            "keys_visible",
            "entries_stored",
            "entries_expired",
            "list_rows",
            "timers",
            "timers_registered",
            "timers_deleted",
            "timers_fired",
        ] {
            header.push(format!("{id}.{col}"));
        }
        for k in kinds {
            header.push(format!("{id}.emitted{k}"));
        }
    }
    w.write_record(&header).map_err(csv_error)?;
    for s in sim.metrics() {
        let mut row: Vec<String> =
            vec![s.time_ms.to_string(), s.inputs.to_string(), s.result_rows.to_string(), s.stale_rows.to_string()];
        for o in &s.operators {
            let e = o.emitted;
            let emitted = if legacy {
                vec![e.accumulate, e.retract]
            } else {
                vec![e.insert, e.update_before, e.update_after, e.delete]
            };
            row.extend(
                [
                    o.keys,
                    o.keys_visible,
                    o.entries_stored,
                    o.entries_expired,
                    o.list_rows,
                    o.timers,
                    o.timers_registered,
                    o.timers_deleted,
                    o.timers_fired,
                ]
                .into_iter()
                .chain(emitted)
                .map(|v| v.to_string()),
            );
        }
        w.write_record(&row).map_err(csv_error)?;
    }
    w.flush().map_err(WriteFailure::from)?;
    Ok(())
}
