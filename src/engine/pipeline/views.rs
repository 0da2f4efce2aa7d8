//! What the pipeline shows of itself: metrics samples, the keys whose state TTL expired, and the
//! views of an operator's keys (the operator cards, the state inspector).

use super::Pipeline;
use crate::engine::metrics::{OperatorSample, Sample};
use crate::engine::operators::StreamOperator;
use crate::engine::row::Row;
use crate::engine::state::{KeyId, StateSize};
use crate::engine::time::Millis;
use crate::engine::view::{KeyView, OperatorView};

impl Pipeline {
    /// Every operator's state, timers and output at `now`, and the result's size.
    pub fn sample(&self, now: Millis, inputs: u64) -> Sample {
        let operators = self
            .nodes
            .iter()
            .map(|n| {
                let sizes = n.op.state_sizes(now);
                let backend = n.op.backend();
                let keys = backend.keys.live() as u64;
                let keys_visible = backend.keys.visible(now) as u64;
                let timers = &backend.timers;
                OperatorSample {
                    keys,
                    keys_visible,
                    entries_stored: sizes.iter().map(|(_, s)| s.stored).sum(),
                    entries_expired: sizes.iter().map(|(_, s)| s.expired).sum(),
                    list_rows: n.op.list_rows(),
                    timers: timers.len() as u64,
                    timers_registered: timers.registered,
                    timers_deleted: timers.deleted,
                    timers_fired: timers.fired,
                    emitted: n.emitted,
                }
            })
            .collect();
        Sample {
            time_ms: now,
            inputs,
            result_rows: self.result.len() as u64,
            stale_rows: self.result.stale_len() as u64,
            operators,
        }
    }

    /// Keys whose state TTL expired in `(from, to]`: (operator id, key, expiry time ms).
    pub fn expired_between(&self, from: Millis, to: Millis) -> Vec<(String, String, Millis)> {
        let mut out = Vec::new();
        for node in &self.nodes {
            let keys = &node.op.backend().keys;
            for k in keys.held() {
                if let Some(ttl) = node.op.ttl_of(k, to) {
                    if ttl.expired && ttl.expires_at_ms > from && ttl.expires_at_ms <= to {
                        out.push((node.id.to_string(), keys.row(k).key_label(), ttl.expires_at_ms));
                    }
                }
            }
        }
        out.sort_by_key(|(_, _, at)| *at);
        out
    }

    /// One key of operator `i` at `now`, if it holds state or timers.
    pub fn key_view(&self, i: usize, row: &Row, now: Millis) -> Option<KeyView> {
        let op = &self.nodes.get(i)?.op;
        let k = op.backend().keys.lookup(row)?;
        Some(Self::key_view_of(op.as_ref(), k, now))
    }

    fn key_view_of(op: &dyn StreamOperator, k: KeyId, now: Millis) -> KeyView {
        let backend = op.backend();
        let row = backend.keys.row(k).clone();
        let states = op.key_state(k, now);
        let ttl = states.iter().flatten().find_map(|c| c.ttl);
        KeyView {
            key: row.key_label(),
            row,
            states,
            cleanup_time_ms: op.cleanup_time(k),
            timers_ms: backend.timers.timers_of(k),
            ttl,
        }
    }

    /// About how many bytes the state takes (keys, state entries — a row in a list-valued entry
    /// counted as one more —, timers, result rows), from the sizes measured for the group
    /// aggregations: what a checkpoint of it costs.
    pub fn approx_bytes(&self) -> usize {
        const PER_KEY: usize = 160;
        const PER_ENTRY: usize = 96;
        const PER_TIMER: usize = 48;
        const PER_RESULT_ROW: usize = 160;
        let ops: usize = self
            .nodes
            .iter()
            .map(|n| {
                let backend = n.op.backend();
                let entries: u64 = n.op.state_sizes(0).iter().map(|(_, s)| s.stored).sum::<u64>() + n.op.list_rows();
                backend.keys.live() * PER_KEY + entries as usize * PER_ENTRY + backend.timers.len() * PER_TIMER
            })
            .sum();
        ops + self.result.len() * PER_RESULT_ROW
    }

    /// What the page shows of operator `i` at `now`: its first `limit` keys in key order.
    pub fn view(&self, i: usize, now: Millis, limit: usize) -> OperatorView {
        self.view_of_keys(i, now, self.nodes[i].op.backend().keys.first_sorted(limit))
    }

    /// Operator `i` now, showing the keys `ids` (held keys of it).
    pub fn view_of_keys(&self, i: usize, now: Millis, ids: Vec<KeyId>) -> OperatorView {
        let node = &self.nodes[i];
        let sizes: Vec<StateSize> = node.op.state_sizes(now).into_iter().map(|(_, s)| s).collect();
        let op = &node.op;
        let backend = op.backend();
        let keys = ids.iter().map(|&k| Self::key_view_of(op.as_ref(), k, now)).collect();
        OperatorView {
            id: node.id.to_string(),
            flink_class: op.flink_class(),
            plan: node.plan.clone(),
            plan_notes: node.plan_notes.clone(),
            state_names: op.state_names(),
            keys,
            key_count: backend.keys.live(),
            sizes,
            list_rows: op.list_rows(),
            metrics: op.flink_metrics(),
        }
    }
}
