//! Where the real run's output can differ from the simulation's because processing time does not
//! pass: Flink's `VALUES` source emits every row at once (within milliseconds of the job's
//! start), while the scenario gives each row its own processing time.

use crate::engine::operators::state_ttl::OperatorStateTtl;
use crate::engine::options::Retention;
use crate::engine::scenario::{Scenario, Step};
use crate::engine::time::{format_duration, Millis};

/// A TTL shorter than this can run out while Flink runs the job (wall-clock processing time):
/// a local job takes seconds to start and to run.
const WALL_CLOCK_MS: Millis = 10_000;

/// The processing times of the scenario's input rows, in order.
fn row_times(scenario: &Scenario) -> Vec<Millis> {
    let mut now = scenario.start_ms;
    let mut out = Vec::new();
    for step in &scenario.steps {
        match step {
            Step::Input { at, .. } => {
                now = at.unwrap_or(now);
                out.push(now);
            }
            Step::AdvanceTo(t) => now = *t,
            Step::AdvanceBy(d) => now = now.saturating_add(*d),
        }
    }
    out
}

/// The warnings, in the order of the pipeline.
pub fn warnings(scenario: &Scenario) -> Vec<String> {
    let times = row_times(scenario);
    let (Some(&first), Some(&last)) = (times.first(), times.last()) else { return Vec::new() };
    let span = last - first;
    let mut out = Vec::new();
    for (i, node) in scenario.operators.iter().enumerate() {
        if node.spec.plan().contains("RANGE BETWEEN") && !node.spec.plan().contains("UNBOUNDED") && span > 0 {
            out.push(format!(
                "'{}' is a RANGE interval window over processing time: which rows it holds depends on when they \
                 arrive, and on Flink they all arrive at once",
                node.id
            ));
        }
        // A stateless operator (a Calc) has nothing to expire.
        if node.spec.plan().starts_with("Calc(") {
            continue;
        }
        let Retention::StateTtl(ttl) = scenario.operator_retention(i) else { continue };
        if ttl == 0 {
            continue;
        }
        let what = match node.spec.state_ttl() {
            Some(OperatorStateTtl { written, .. }) => format!("its own state TTL of {written}"),
            None => format!("table.exec.state.ttl = {}", format_duration(ttl)),
        };
        if span >= ttl {
            out.push(format!(
                "'{}' keeps state for {what}, and the scenario's rows span {}: in the simulation state can \
                 expire between rows, on Flink every row arrives within milliseconds and none does, so the \
                 outputs can differ",
                node.id,
                format_duration(span)
            ));
        } else if ttl < WALL_CLOCK_MS {
            out.push(format!(
                "'{}' keeps state for {what}: so short a TTL can run out while Flink runs the job, which the \
                 simulation (rows {} apart at most) does not do",
                node.id,
                format_duration(span)
            ));
        }
    }
    if let Some(mb) = scenario.mini_batch {
        let interval = mb.allow_latency_ms.max(1);
        let batch = |t: Millis| t - t.rem_euclid(interval);
        let first_timer = scenario.start_ms.saturating_add(interval);
        if batch(first) != batch(last) || (first < first_timer && first_timer <= last) {
            out.push(format!(
                "mini-batch: the scenario's rows fall into more than one {} interval, so the simulation finishes \
                 several bundles; on Flink they arrive within one interval and form one bundle (up to \
                 table.exec.mini-batch.size rows)",
                format_duration(interval)
            ));
        }
        let last_finished = batch(last).saturating_add(interval).max(first_timer);
        if scenario.end_ms() < last_finished {
            out.push(format!(
                "mini-batch: the simulation stops before its last bundle is finished (at {}), so it does not \
                 show that bundle's output; Flink finishes it at the end of the input. Add a last step \
                 {{\"advance_by\": \"{}\"}}",
                scenario.time_format.format(last_finished),
                format_duration(interval)
            ));
        }
    }
    out
}
