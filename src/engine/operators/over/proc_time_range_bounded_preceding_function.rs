//! Flink 2.3's `ProcTimeRangeBoundedPrecedingFunction`: `agg(x) OVER (PARTITION BY … ORDER BY
//! proctime RANGE BETWEEN INTERVAL 'n' UNIT PRECEDING AND CURRENT ROW)`.
//!
//! Models `flink-table/flink-table-runtime/.../operators/over/ProcTimeRangeBoundedPrecedingFunction.java`
//! (Flink 2.x, read from the source). A plain `KeyedProcessFunction`: the planner passes it no
//! retention, so `table.exec.state.ttl` does not apply; it cleans up with its own timers. States
//! (no TTL): `inputState` (rows by arrival time), `accState`, `cleanupTsState`.
//!
//! ```text
//! processElement: list = inputState.get(now)
//!     if list == null: register timer now + 1; registerCleanupTimer(now)
//!     inputState.put(now, list + [input])                       // nothing is emitted yet
//! registerCleanupTimer(t): min = t + preceding + 1; max = t + (long)(preceding * 1.5) + 1
//!     if cleanupTsState == null || cleanupTsState < min: register timer max; cleanupTsState = max
//!     (the old cleanup timer is not deleted: it may share its time with a data timer)
//! onTimer(ts):
//!     if cleanupTsState != null && cleanupTsState <= ts: clear all three states; return
//!     current = ts - 1; rows = inputState.get(current); if null: return
//!     acc = accState.value() ?: create
//!     retract and remove every buffered time < current - preceding
//!     accumulate every row of `current`; emit each with the same aggregate value
//!     accState.update(acc)
//! ```
//!
//! Rows of the same millisecond are peers: they are emitted together, one millisecond after
//! they arrived, with one value. Flink iterates `inputState`'s keys in hash order; the
//! retractions commute for the functions modelled, so the ordered map here changes nothing.

use super::over_aggregate::OverAggregateSpec;
use super::proc_time_rows_bounded_preceding_function::describe_buffer;
use crate::engine::aggregate::{accumulate_or_retract, describe_accumulators, Accumulators};
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Row, RowKind};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, MapState, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::{StateCell, TtlView};

const CLEARED: &[&str] = &["inputState", "accState", "cleanupTsState"];

/// The processing-time bounded RANGE over function with its keyed state and timers.
#[derive(Debug, Clone)]
pub struct ProcTimeRangeBoundedPrecedingFunction {
    spec: OverAggregateSpec,
    /// `precedingTimeBoundary`, ms.
    preceding_ms: Millis,
    backend: KeyedStateBackend,
    input_state: MapState<Millis, Vec<Row>>,
    acc_state: ValueState<Accumulators>,
    cleanup_ts_state: ValueState<Millis>,
}

impl ProcTimeRangeBoundedPrecedingFunction {
    pub fn new(spec: OverAggregateSpec, preceding_ms: Millis) -> Self {
        ProcTimeRangeBoundedPrecedingFunction {
            spec,
            preceding_ms,
            backend: KeyedStateBackend::new(0),
            input_state: MapState::new("inputState", StateTtlConfig::DISABLED),
            acc_state: ValueState::new("accState"),
            cleanup_ts_state: ValueState::new("cleanupTsState"),
        }
    }

    fn register(&mut self, key: KeyId, key_row: &Row, timer_ms: Millis, ctx: &mut Context) {
        if self.backend.register_processing_time_timer(key, timer_ms) {
            ctx.record(key_row, || TraceEvent::TimerRegistered { timer_ms });
        }
    }

    /// `registerCleanupTimer(ctx, timestamp)`.
    fn register_cleanup_timer(&mut self, key: KeyId, key_row: &Row, timestamp: Millis, ctx: &mut Context) {
        let min_cleanup = timestamp + self.preceding_ms + 1;
        // `(long) (precedingTimeBoundary * 1.5)`: a double, truncated.
        let max_cleanup = timestamp + (self.preceding_ms as f64 * 1.5) as Millis + 1;
        let current = self.cleanup_ts_state.peek(key).map(|c| c.user_value);
        if current.is_none_or(|c| c < min_cleanup) {
            self.register(key, key_row, max_cleanup, ctx);
            self.cleanup_ts_state.update(&mut self.backend.keys, key, max_cleanup, timestamp);
        }
    }
}

impl StreamOperator for ProcTimeRangeBoundedPrecedingFunction {
    fn flink_class(&self) -> &'static str {
        "ProcTimeRangeBoundedPrecedingFunction"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.partition_by);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let mut rows = match self.input_state.get(&mut self.backend.keys, key, &now, now) {
            TtlRead::Fresh(rows) => rows,
            _ => {
                // The first row of this millisecond: it is emitted when the millisecond has passed.
                self.register(key, &key_row, now + 1, ctx);
                self.register_cleanup_timer(key, &key_row, now, ctx);
                Vec::new()
            }
        };
        rows.push(input.row.clone());
        self.input_state.put(&mut self.backend.keys, key, now, rows, now);
        Ok(())
    }

    fn on_timer(&mut self, timestamp: Millis, key: KeyId, ctx: &mut Context) -> Result<(), String> {
        let key_row = self.backend.keys.row(key).clone();
        ctx.record(&key_row, || TraceEvent::TimerFired { timer_ms: timestamp });
        let keys = &mut self.backend.keys;
        if self.cleanup_ts_state.peek(key).is_some_and(|c| c.user_value <= timestamp) {
            self.input_state.clear(keys, key);
            self.acc_state.clear(keys, key);
            self.cleanup_ts_state.clear(keys, key);
            ctx.record(&key_row, || TraceEvent::StateCleared {
                states: CLEARED,
                cause: ClearCause::CleanupTimer,
                reason: "cleanupTsState <= timer: the window's rows and accumulators are cleared; nothing is emitted",
            });
            return Ok(());
        }
        let current = timestamp - 1;
        let TtlRead::Fresh(current_rows) = self.input_state.get(keys, key, &current, timestamp) else {
            return Ok(());
        };
        let mut accs = match self.acc_state.value(keys, key, timestamp) {
            TtlRead::Fresh(a) => a,
            _ => self.spec.calls.iter().map(|c| c.create_accumulator()).collect(),
        };
        let limit = current - self.preceding_ms;
        let mut expired = Vec::new();
        for (ts, rows) in self.input_state.peek(key) {
            if *ts >= limit {
                break;
            }
            for row in &rows.user_value {
                accumulate_or_retract(&self.spec.calls, &mut accs, row, false)?;
            }
            expired.push(*ts);
        }
        for ts in &expired {
            self.input_state.remove(keys, key, ts);
        }
        for row in &current_rows {
            accumulate_or_retract(&self.spec.calls, &mut accs, row, true)?;
        }
        for row in &current_rows {
            let out = self.spec.output(row, &accs);
            ctx.collect(&key_row, Message::new(Change::Kind(RowKind::Insert), out));
        }
        self.acc_state.update(&mut self.backend.keys, key, accs, timestamp);
        Ok(())
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        vec![self.input_state.name, self.acc_state.name, self.cleanup_ts_state.name]
    }

    fn key_state(&self, key: KeyId, _now: Millis) -> Vec<Option<StateCell>> {
        let cell =
            |value: String, entries: usize| StateCell { time_ms: None, value, entries, visible: entries, ttl: None };
        let buffered = self.input_state.peek(key).count();
        vec![
            (buffered > 0).then(|| {
                cell(describe_buffer(self.input_state.peek(key).map(|(ts, v)| (ts, &v.user_value))), buffered)
            }),
            self.acc_state
                .peek(key)
                .map(|a| cell(describe_accumulators(self.spec.aggregate_columns(), &a.user_value), 1)),
            self.cleanup_ts_state.peek(key).map(|c| cell(c.user_value.to_string(), 1)),
        ]
    }

    fn ttl_of(&self, _key: KeyId, _now: Millis) -> Option<TtlView> {
        None
    }

    fn entries_stored(&self) -> u64 {
        self.input_state.stored() + self.acc_state.stored() + self.cleanup_ts_state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![
            (self.input_state.name, self.input_state.size(now)),
            (self.acc_state.name, self.acc_state.size(now)),
            (self.cleanup_ts_state.name, self.cleanup_ts_state.size(now)),
        ]
    }
}
