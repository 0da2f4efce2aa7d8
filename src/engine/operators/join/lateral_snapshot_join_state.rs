//! The keyed states of `LateralSnapshotJoinOperator` (apache/flink main @ `a97c489f0cd5`, its
//! `open()`): every one without state TTL (the operator evicts a key with its own timers), and
//! what the page shows of them.

use super::join_record_state_view::{InputSideSpec, JoinRecordStateView};
use crate::engine::row::{DataType, Message, Row};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyRegistry, MapState, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::view::StateCell;

/// The keyed states, as Flink names them (the page's columns).
pub const STATES: &[&str] =
    &["build-table", "build-change-buffer", "buffered-at-wm", "probe-buffer", "probe-buffer-seq", "ttl-expiry"];

/// A read's value (none of these states expires).
pub fn fresh<T>(read: TtlRead<T>) -> Option<T> {
    match read {
        TtlRead::Fresh(v) => Some(v),
        TtlRead::Absent => None,
        TtlRead::Expired { returned, .. } => returned,
    }
}

/// The operator's keyed states.
#[derive(Debug, Clone)]
pub struct LateralSnapshotState {
    /// `build-table` (`MapState<RowData, Long>`): build row → copies, a `NoUniqueKey` record
    /// view (the heap's `HashMap` order).
    pub build_table: JoinRecordStateView,
    /// `build-change-buffer` (`MapState<Long, List<RowData>>`): build row time → the changes of
    /// that row time, in arrival order.
    pub change_buffer: MapState<Millis, Vec<Message>>,
    /// `buffered-at-wm`: the build watermark the buffer is tagged with.
    pub buffered_at_wm: ValueState<Millis>,
    /// `probe-buffer` (`MapState<Long, RowData>`): synthetic timestamp `(seq + 1) -
    /// Long.MAX_VALUE` → probe row.
    pub probe_buffer: MapState<Millis, Row>,
    /// `probe-buffer-seq`: the key's next sequence number; absent iff its buffer is empty.
    pub probe_buffer_seq: ValueState<i64>,
    /// `ttl-expiry`: the key's registered TTL timer.
    pub ttl_expiry: ValueState<Millis>,
}

impl LateralSnapshotState {
    pub fn new(right_types: Vec<DataType>) -> Self {
        let disabled = StateTtlConfig::DISABLED;
        LateralSnapshotState {
            build_table: JoinRecordStateView::new(STATES[0], InputSideSpec::NoUniqueKey, false, right_types, disabled),
            change_buffer: MapState::new(STATES[1], disabled),
            buffered_at_wm: ValueState::new(STATES[2]),
            probe_buffer: MapState::new(STATES[3], disabled),
            probe_buffer_seq: ValueState::new(STATES[4]),
            ttl_expiry: ValueState::new(STATES[5]),
        }
    }

    /// `clearAllPerKeyState()`.
    pub fn clear_all_per_key_state(&mut self, keys: &mut KeyRegistry, key: KeyId) {
        self.build_table.clear(keys, key);
        self.change_buffer.clear(keys, key);
        self.buffered_at_wm.clear(keys, key);
        self.probe_buffer.clear(keys, key);
        self.probe_buffer_seq.clear(keys, key);
        self.ttl_expiry.clear(keys, key);
    }

    /// What each state holds for `key`, in [`STATES`] order: the build rows with their copies,
    /// the buffered changes by row time, the probes by sequence number, the numbers.
    pub fn cells(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        let cell = |value: String, entries: usize| {
            Some(StateCell { time_ms: None, value, entries, visible: entries, ttl: None })
        };
        let mut buckets: Vec<_> = self.change_buffer.peek(key).map(|(t, v)| (*t, &v.user_value)).collect();
        buckets.sort_by_key(|(t, _)| *t);
        let changes: Vec<String> = buckets
            .iter()
            .map(|(t, changes)| {
                let c: Vec<String> = changes.iter().map(|m| m.to_string()).collect();
                format!("{t}: {}", c.join(", "))
            })
            .collect();
        let mut probes: Vec<_> = self.probe_buffer.peek(key).map(|(t, v)| (*t, &v.user_value)).collect();
        probes.sort_by_key(|(t, _)| *t);
        let probe_text: Vec<String> =
            probes.iter().map(|(t, r)| format!("#{}: [{}]", t + i64::MAX, r.join(", "))).collect();
        let wm = |v: Millis| if v == Millis::MIN { "Long.MIN_VALUE".to_string() } else { v.to_string() };
        vec![
            self.build_table.cell(key, now),
            (!buckets.is_empty()).then(|| changes.join("; ")).and_then(|t| cell(t, buckets.len())),
            self.buffered_at_wm.peek(key).and_then(|v| cell(wm(v.user_value), 1)),
            (!probes.is_empty()).then(|| probe_text.join(", ")).and_then(|t| cell(t, probes.len())),
            self.probe_buffer_seq.peek(key).and_then(|v| cell(v.user_value.to_string(), 1)),
            self.ttl_expiry.peek(key).map(|v| StateCell {
                time_ms: Some(v.user_value),
                value: v.user_value.to_string(),
                entries: 1,
                visible: 1,
                ttl: None,
            }),
        ]
    }

    pub fn sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![
            (STATES[0], self.build_table.size(now)),
            (STATES[1], self.change_buffer.size(now)),
            (STATES[2], self.buffered_at_wm.size(now)),
            (STATES[3], self.probe_buffer.size(now)),
            (STATES[4], self.probe_buffer_seq.size(now)),
            (STATES[5], self.ttl_expiry.size(now)),
        ]
    }
}
