//! Flink 2.3's `ProcTimeRowsBoundedPrecedingFunction`: `agg(x) OVER (PARTITION BY … ORDER BY
//! proctime ROWS BETWEEN n PRECEDING AND CURRENT ROW)`.
//!
//! Models `flink-table/flink-table-runtime/.../operators/over/ProcTimeRowsBoundedPrecedingFunction.java`
//! (Flink 2.x, read from the source; the same logic since 1.9's Blink runtime). A
//! `KeyedProcessFunctionWithCleanupState`: **cleanup timers, not state TTL** — the planner passes
//! `minRetentionTime = table.exec.state.ttl` and `maxRetentionTime = 1.5 × ttl`
//! (`TableConfigUtils.getMaxIdleStateRetentionTime`), so cleaning is on when the TTL is > 1 ms.
//! States (none with TTL): `inputState` (`MapState<Long, List<RowData>>`, the rows by the
//! processing time they arrived at), `accState`, `processedCountState` (rows in the window, up
//! to `precedingOffset = n + 1`), `smallestTSState` (the oldest buffered time), and the cleanup
//! time `ProcTimeBoundedRowsOverCleanupTime`.
//!
//! ```text
//! registerProcessingCleanupTimer(ctx, now)
//! acc = accState.value() ?: createAccumulators()
//! smallestTs = smallestTsState.value() ?: (now, stored)
//! counter = counterState.value() ?: 0
//! if counter == precedingOffset:                 // the window is full: the oldest row leaves
//!     list = inputState.get(smallestTs)
//!     if list != null: retract(list[0]); list.remove(0)
//!     else: LOG.warn("The state is cleared because of state ttl ...")   // nothing retracted
//!     if list non-empty: inputState.put(smallestTs, list)
//!     else: inputState.remove(smallestTs); smallestTsState.update(min key of inputState, or Long.MAX_VALUE)
//! else: counterState.update(counter + 1)
//! inputState.put(now, inputState.get(now) + [input])
//! accumulate(input); accState.update(acc); emit +I[input, getValue()]
//! onTimer: if stateCleaningEnabled: cleanupState(inputState, accState, counterState, smallestTsState)
//! ```
//!
//! Cleanup is silent and, unlike TTL, clears all four states at once: the next row of the key
//! starts a new window (its aggregate sees only itself). The legacy planner's twin,
//! `ProcTimeBoundedRowsOver`, is built by [`ProcTimeRowsBoundedPrecedingFunction::legacy`].

use super::over_aggregate::OverAggregateSpec;
use crate::engine::aggregate::{accumulate_or_retract, describe_accumulators, Accumulators};
use crate::engine::cleanup_state::CleanupState;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Row, RowKind};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, MapState, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::{StateCell, TtlView};

/// Which of the two classes runs: their names and the few places they differ.
#[derive(Debug, Clone, Copy)]
pub(super) struct Flavor {
    pub(super) class: &'static str,
    pub(super) input_state: &'static str,
    pub(super) acc_state: &'static str,
    pub(super) cleared: &'static [&'static str],
    /// The legacy planner: `CRow` output, Scala's unboxing of a missing `Long` state to `0`
    /// (`smallestTs == 0L` means "none"), and no null check on the list to retract from.
    pub(super) legacy: bool,
}

const FLINK_2_3: Flavor = Flavor {
    class: "ProcTimeRowsBoundedPrecedingFunction",
    input_state: "inputState",
    acc_state: "accState",
    cleared: &[
        "inputState",
        "accState",
        "processedCountState",
        "smallestTSState",
        "ProcTimeBoundedRowsOverCleanupTime",
    ],
    legacy: false,
};

/// The processing-time bounded ROWS over function with its keyed state and timers.
#[derive(Debug, Clone)]
pub struct ProcTimeRowsBoundedPrecedingFunction {
    spec: OverAggregateSpec,
    flavor: Flavor,
    preceding_offset: u64,
    backend: KeyedStateBackend,
    input_state: MapState<Millis, Vec<Row>>,
    acc_state: ValueState<Accumulators>,
    counter_state: ValueState<u64>,
    smallest_ts_state: ValueState<Millis>,
    cleanup: CleanupState,
}

impl ProcTimeRowsBoundedPrecedingFunction {
    /// Flink 2.3, `state_ttl_ms` being `table.exec.state.ttl` (0: never cleaned).
    pub fn new(spec: OverAggregateSpec, state_ttl_ms: Millis) -> Self {
        // StreamExecOverAggregate: (config.getStateRetentionTime(), getMaxIdleStateRetentionTime(config)).
        let retention = IdleStateRetention { min_ms: state_ttl_ms, max_ms: state_ttl_ms * 3 / 2, test_harness: true };
        Self::with_flavor(spec, retention, FLINK_2_3)
    }

    pub(super) fn with_flavor(spec: OverAggregateSpec, retention: IdleStateRetention, flavor: Flavor) -> Self {
        let mut cleanup = CleanupState::new(retention);
        cleanup.cleanup_time_state = ValueState::new("ProcTimeBoundedRowsOverCleanupTime");
        ProcTimeRowsBoundedPrecedingFunction {
            preceding_offset: spec.preceding_offset(),
            spec,
            flavor,
            backend: KeyedStateBackend::new(0),
            input_state: MapState::new(flavor.input_state, StateTtlConfig::DISABLED),
            acc_state: ValueState::new(flavor.acc_state),
            counter_state: ValueState::new("processedCountState"),
            smallest_ts_state: ValueState::new("smallestTSState"),
            cleanup,
        }
    }

    /// `inputState.get(ts)` (no TTL: present or absent).
    fn rows_at(&mut self, key: KeyId, ts: Millis, now: Millis) -> Option<Vec<Row>> {
        match self.input_state.get(&mut self.backend.keys, key, &ts, now) {
            TtlRead::Fresh(rows) => Some(rows),
            _ => None,
        }
    }
}

/// `{1: [a, 1], 2: [b, 2] [c, 3]}`: buffered rows by arrival time.
pub(super) fn describe_buffer<'a>(entries: impl Iterator<Item = (&'a Millis, &'a Vec<Row>)>) -> String {
    let parts: Vec<String> = entries
        .map(|(ts, rows)| {
            let rows: Vec<String> = rows.iter().map(|r| format!("[{}]", r.join(", "))).collect();
            format!("{ts}: {}", rows.join(" "))
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

impl StreamOperator for ProcTimeRowsBoundedPrecedingFunction {
    fn flink_class(&self) -> &'static str {
        self.flavor.class
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.partition_by);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let decision = self.cleanup.process_cleanup_timer(&mut self.backend, key, now);
        ctx.record_cleanup(&key_row, decision);
        let keys = &mut self.backend.keys;
        let mut accs = match self.acc_state.value(keys, key, now) {
            TtlRead::Fresh(a) => a,
            _ => self.spec.calls.iter().map(|c| c.create_accumulator()).collect(),
        };
        let stored_smallest = match self.smallest_ts_state.value(keys, key, now) {
            TtlRead::Fresh(0) if self.flavor.legacy => None,
            TtlRead::Fresh(ts) => Some(ts),
            _ => None,
        };
        let smallest_ts = stored_smallest.unwrap_or_else(|| {
            self.smallest_ts_state.update(keys, key, now, now);
            now
        });
        let counter = match self.counter_state.value(keys, key, now) {
            TtlRead::Fresh(c) => c,
            _ => 0,
        };
        if counter == self.preceding_offset {
            // The window is full: the oldest row leaves it.
            let retract_list = self.rows_at(key, smallest_ts, now);
            let keys = &mut self.backend.keys;
            let remaining = match retract_list {
                Some(mut list) if !list.is_empty() => {
                    let retract_row = list.remove(0);
                    accumulate_or_retract(&self.spec.calls, &mut accs, &retract_row, false)?;
                    list
                }
                _ if self.flavor.legacy => {
                    return Err(format!(
                        "NullPointerException: no buffered row at smallestTs = {smallest_ts} to retract \
                         (ProcTimeBoundedRowsOver does not check)"
                    ))
                }
                // LOG.warn("The state is cleared because of state ttl. This will result in
                // incorrect result. ..."): nothing is retracted.
                _ => Vec::new(),
            };
            if !remaining.is_empty() {
                self.input_state.put(keys, key, smallest_ts, remaining, now);
            } else {
                self.input_state.remove(keys, key, &smallest_ts);
                // The smallest key left (Flink scans all keys; the map is ordered here).
                let new_smallest = self.input_state.peek(key).next().map_or(Millis::MAX, |(ts, _)| *ts);
                self.smallest_ts_state.update(keys, key, new_smallest, now);
            }
        } else {
            self.counter_state.update(keys, key, counter + 1, now);
        }
        let mut rows = self.rows_at(key, now, now).unwrap_or_default();
        rows.push(input.row.clone());
        self.input_state.put(&mut self.backend.keys, key, now, rows, now);
        accumulate_or_retract(&self.spec.calls, &mut accs, &input.row, true)?;
        let out = self.spec.output(&input.row, &accs);
        self.acc_state.update(&mut self.backend.keys, key, accs, now);
        let change = if self.flavor.legacy { Change::Legacy(true) } else { Change::Kind(RowKind::Insert) };
        ctx.collect(&key_row, Message::new(change, out));
        Ok(())
    }

    /// `onTimer`: a cleanup timer (the only timers this function registers).
    fn on_timer(&mut self, timestamp: Millis, key: KeyId, ctx: &mut Context) -> Result<(), String> {
        let key_row = self.backend.keys.row(key).clone();
        ctx.record(&key_row, || TraceEvent::TimerFired { timer_ms: timestamp });
        if self.cleanup.state_cleaning_enabled() {
            let keys = &mut self.backend.keys;
            self.input_state.clear(keys, key);
            self.acc_state.clear(keys, key);
            self.counter_state.clear(keys, key);
            self.smallest_ts_state.clear(keys, key);
            self.cleanup.clear(&mut self.backend, key);
            ctx.record(&key_row, || TraceEvent::StateCleared {
                states: self.flavor.cleared,
                cause: ClearCause::CleanupTimer,
                reason: "cleanup timer fired: the window's rows and accumulators are cleared; nothing is emitted",
            });
        }
        Ok(())
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        vec![
            self.input_state.name,
            self.acc_state.name,
            self.counter_state.name,
            self.smallest_ts_state.name,
            self.cleanup.cleanup_time_state.name,
        ]
    }

    fn key_state(&self, key: KeyId, _now: Millis) -> Vec<Option<StateCell>> {
        let cell =
            |value: String, entries: usize| StateCell { time_ms: None, value, entries, visible: entries, ttl: None };
        let buffered = self.input_state.peek(key).count();
        let names = self.spec.aggregate_columns();
        vec![
            (buffered > 0).then(|| {
                cell(describe_buffer(self.input_state.peek(key).map(|(ts, v)| (ts, &v.user_value))), buffered)
            }),
            self.acc_state.peek(key).map(|a| cell(describe_accumulators(names, &a.user_value), 1)),
            self.counter_state.peek(key).map(|c| cell(c.user_value.to_string(), 1)),
            self.smallest_ts_state.peek(key).map(|c| cell(c.user_value.to_string(), 1)),
            self.cleanup.state_cell(key),
        ]
    }

    fn ttl_of(&self, _key: KeyId, _now: Millis) -> Option<TtlView> {
        None
    }

    fn cleanup_time(&self, key: KeyId) -> Option<Millis> {
        self.cleanup.cleanup_time(key)
    }

    fn entries_stored(&self) -> u64 {
        self.input_state.stored()
            + self.acc_state.stored()
            + self.counter_state.stored()
            + self.smallest_ts_state.stored()
            + self.cleanup.cleanup_time_state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![
            (self.input_state.name, self.input_state.size(now)),
            (self.acc_state.name, self.acc_state.size(now)),
            (self.counter_state.name, self.counter_state.size(now)),
            (self.smallest_ts_state.name, self.smallest_ts_state.size(now)),
            (self.cleanup.cleanup_time_state.name, self.cleanup.cleanup_time_state.size(now)),
        ]
    }
}
