//! The operators' state as the page and the CLI show it: per operator, its keys now (a bounded
//! number of them: the cost follows the limit and the kept trace, never the keys held), and one
//! key's view; the result, the metrics and the peaks.

use super::Simulation;
use crate::engine::metrics::Sample;
use crate::engine::result_table::ResultTable;
use crate::engine::row::Row;
use crate::engine::time::Millis;
use crate::engine::view::{KeyView, OperatorView};

impl Simulation {
    /// Each operator's state at the current time.
    pub fn operator_views(&self) -> Vec<OperatorView> {
        self.operator_views_limited(usize::MAX)
    }
    /// Each operator's state at the current time, with at most `limit` keys each, in key order:
    /// all its keys when they fit, else the `limit` keys the kept trace touched last (what the
    /// timeline shows). Either way the cost follows `limit` and the kept trace, never the number of
    /// keys held.
    pub fn operator_views_limited(&self, limit: usize) -> Vec<OperatorView> {
        let pipeline = &self.engine.pipeline;
        (0..pipeline.nodes().len())
            .map(|i| {
                let keys = &pipeline.nodes()[i].op.backend().keys;
                if keys.live() <= limit {
                    return pipeline.view(i, self.engine.now, limit);
                }
                let op = &*pipeline.nodes()[i].id;
                let mut seen = rustc_hash::FxHashSet::default();
                let mut ids: Vec<_> = self
                    .trace
                    .iter()
                    .rev()
                    .filter(|e| *e.op == *op)
                    .filter_map(|e| e.key.as_ref())
                    .filter(|key| seen.insert(*key))
                    .filter_map(|key| keys.lookup(key))
                    .take(limit)
                    .collect();
                ids.sort_by(|a, b| keys.row(*a).cmp(keys.row(*b)));
                pipeline.view_of_keys(i, self.engine.now, ids)
            })
            .collect()
    }

    /// The Flink class of each operator (`GroupAggFunction`), in pipeline order.
    pub fn flink_classes(&self) -> Vec<&'static str> {
        self.engine.pipeline.nodes().iter().map(|n| n.op.flink_class()).collect()
    }
    /// One key of operator `op` (by pipeline index) now, if it holds state or timers.
    pub fn key_view(&self, op: usize, key: &Row) -> Option<KeyView> {
        self.engine.pipeline.key_view(op, key, self.engine.now)
    }

    pub fn result(&self) -> &ResultTable {
        &self.engine.pipeline.result
    }
    /// The earliest registered timer, ms.
    pub fn next_timer_ms(&self) -> Option<Millis> {
        self.engine.pipeline.next_timer().map(|(ts, _)| ts)
    }
    /// The metrics series so far, ending with a sample of the current state.
    pub fn metrics(&self) -> Vec<Sample> {
        let mut samples = self.engine.metrics.samples().to_vec();
        samples.push(self.engine.pipeline.sample(self.engine.now, self.engine.inputs));
        samples
    }
    /// The largest each operator's state has been (keys, entries, timers), tracked after every
    /// record and timer: exact, where the metrics series is sampled.
    pub fn peaks(&self) -> Vec<crate::engine::pipeline::Peaks> {
        self.engine.pipeline.nodes().iter().map(|n| n.peaks).collect()
    }

    /// The current state of every operator and the result (the last point of [`Simulation::metrics`]).
    pub fn sample_now(&self) -> Sample {
        self.engine.pipeline.sample(self.engine.now, self.engine.inputs)
    }
}
