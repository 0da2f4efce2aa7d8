//! The Blink planner's `AppendOnlyTopNFunction` of Flink 1.9.0 – 1.10.0
//! (`flink-table/flink-table-runtime-blink/.../operators/rank/AppendOnlyTopNFunction.java`, 1.10.0,
//! read from the source), a `KeyedProcessFunctionWithCleanupState`: the top-N rows of each
//! partition over an append-only input, top-1 included (Flink 1.10 has no `FastTop1Function`).
//! Seed 000 uses it for de-duplication by Top-N.
//!
//! ```text
//! processElement:
//!     registerProcessingCleanupTimer(ctx, currentProcessingTime)    // every element, kept or not
//!     buffer = the partition's TopNBuffer (sort key → rows), restored from "data-state-with-append"
//!     if checkSortKeyInBufferRange(sortKey, buffer):               // better than the worst, or not full
//!         buffer.put(sortKey, input); dataState.put(sortKey, buffer.get(sortKey))
//!         with a rank column:  walk the buffer; at the input's key emit (true, input, rank);
//!                              every later row moves down: (false, row, r) (with generateRetraction),
//!                              (true, row, r + 1); entries past N are removed
//!         without:             if the buffer holds more than N rows, remove the last one and emit
//!                              (false, it), unless it is the input; then (true, input)
//! onTimer: if stateCleaningEnabled: drop the partition's cached buffer; cleanupState(dataState)
//! ```
//!
//! No timestamp check in `onTimer`: old timers are deleted (FLINK-10543). Cleanup emits nothing,
//! so the partition's rows stay in the result and a later row of the partition starts a new top N.

use super::rank::{RankSpec, SortKey};
use super::top_n_buffer;
use crate::engine::cleanup_state::CleanupState;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Row};
use crate::engine::state::ttl::StateTtlConfig;
use crate::engine::state::{KeyId, KeyedStateBackend, MapState, StateSize};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::StateCell;

/// Blink 1.10's `AppendOnlyTopNFunction` with its keyed state and cleanup timers.
#[derive(Debug, Clone)]
pub struct BlinkAppendOnlyTopNFunction {
    spec: RankSpec,
    backend: KeyedStateBackend,
    /// `"data-state-with-append"`: sort key → the rows with that key, in arrival order.
    data_state: MapState<SortKey, Vec<Row>>,
    /// `"RankFunctionCleanupTime"` and the cleanup-timer rule.
    cleanup: CleanupState,
}

const CLEARED_BY_TIMER: &[&str] = &["data-state-with-append", "RankFunctionCleanupTime"];

impl BlinkAppendOnlyTopNFunction {
    pub fn new(spec: RankSpec, retention: IdleStateRetention) -> Self {
        BlinkAppendOnlyTopNFunction {
            spec,
            backend: KeyedStateBackend::new(0),
            data_state: MapState::new("data-state-with-append", StateTtlConfig::DISABLED),
            cleanup: CleanupState::new(retention).named("RankFunctionCleanupTime"),
        }
    }

    /// `collect(out, row, rank)` / `retract(out, row, rank)`: within the rank range only; a
    /// retraction only with `generateRetraction`.
    fn emit(&self, ctx: &mut Context, key_row: &Row, accumulate: bool, row: &Row, rank: u64) {
        if rank < 1 || rank > self.spec.rank_end || (!accumulate && !self.spec.generate_update_before) {
            return;
        }
        ctx.collect(key_row, Message::new(Change::Legacy(accumulate), self.spec.output(row, rank)));
    }

    /// `processElementWithRowNumber(sortKey, input, out)`.
    fn with_row_number(
        &mut self,
        key: KeyId,
        key_row: &Row,
        buffer: &[(SortKey, Vec<Row>)],
        sort_key: &SortKey,
        input: &Row,
        ctx: &mut Context,
    ) {
        let rank_end = self.spec.rank_end;
        let mut cur_rank = 0u64;
        let mut finds_sort_key = false;
        let mut next = 0;
        while next < buffer.len() && cur_rank <= rank_end {
            let (k, records) = &buffer[next];
            next += 1;
            if !finds_sort_key && k == sort_key {
                cur_rank += records.len() as u64;
                self.emit(ctx, key_row, true, input, cur_rank);
                finds_sort_key = true;
            } else if finds_sort_key {
                for prev in records {
                    if cur_rank > rank_end {
                        break;
                    }
                    cur_rank += 1;
                    self.emit(ctx, key_row, false, prev, cur_rank - 1);
                    self.emit(ctx, key_row, true, prev, cur_rank);
                }
            } else {
                cur_rank += records.len() as u64;
            }
        }
        top_n_buffer::remove_unreached(&mut self.data_state, &mut self.backend.keys, key, buffer, next);
    }

    /// `processElementWithoutRowNumber(input, out)`.
    fn without_row_number(
        &mut self,
        key: KeyId,
        key_row: &Row,
        buffer: &[(SortKey, Vec<Row>)],
        input: &Row,
        ctx: &mut Context,
    ) {
        let now = ctx.now;
        match top_n_buffer::remove_last_beyond_n(
            &self.spec,
            &mut self.data_state,
            &mut self.backend.keys,
            key,
            buffer,
            now,
        ) {
            None => {}
            Some(last) if last == *input => return,
            // `delete(out, lastElement)`: a retract message, whatever generateRetraction says.
            Some(last) => ctx.collect(key_row, Message::new(Change::Legacy(false), last)),
        }
        ctx.collect(key_row, Message::new(Change::Legacy(true), input.clone()));
    }
}

impl StreamOperator for BlinkAppendOnlyTopNFunction {
    fn flink_class(&self) -> &'static str {
        "AppendOnlyTopNFunction"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.partition_by);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let decision = self.cleanup.process_cleanup_timer(&mut self.backend, key, now);
        ctx.record_cleanup(&key_row, decision);
        let Some((buffer, sort_key)) = top_n_buffer::add_in_range(
            &self.spec,
            &mut self.data_state,
            &mut self.backend.keys,
            key,
            &key_row,
            &input.row,
            ctx,
        ) else {
            return Ok(());
        };
        if self.spec.output_rank_number {
            self.with_row_number(key, &key_row, &buffer, &sort_key, &input.row, ctx);
        } else {
            self.without_row_number(key, &key_row, &buffer, &input.row, ctx);
        }
        Ok(())
    }

    fn on_timer(&mut self, timestamp: Millis, key: KeyId, ctx: &mut Context) -> Result<(), String> {
        let key_row = self.backend.keys.row(key).clone();
        ctx.record(&key_row, || TraceEvent::TimerFired { timer_ms: timestamp });
        if self.cleanup.state_cleaning_enabled() {
            self.data_state.clear(&mut self.backend.keys, key);
            self.cleanup.clear(&mut self.backend, key);
            ctx.record(&key_row, || TraceEvent::StateCleared {
                states: CLEARED_BY_TIMER,
                cause: ClearCause::CleanupTimer,
                reason:
                    "cleanup timer fired: the cached buffer is dropped, cleanupState(dataState); nothing is emitted",
            });
            ctx.state_lost(&key_row, timestamp);
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
        vec![self.data_state.name, self.cleanup.cleanup_time_state.name]
    }

    fn key_state(&self, key: KeyId, _now: Millis) -> Vec<Option<StateCell>> {
        let entries: Vec<String> = self
            .data_state
            .peek(key)
            .map(|(k, v)| {
                let rows: Vec<String> = v.user_value.iter().map(|r| format!("[{}]", r.join(", "))).collect();
                format!("{k} → {}", rows.join(" "))
            })
            .collect();
        let count = entries.len();
        let data = (!entries.is_empty()).then(|| StateCell {
            time_ms: None,
            value: entries.join("; "),
            entries: count,
            visible: count,
            ttl: None,
        });
        let cleanup = self.cleanup.state_cell(key);
        vec![data, cleanup]
    }

    fn ttl_of(&self, _key: KeyId, _now: Millis) -> Option<crate::engine::view::TtlView> {
        None
    }

    fn cleanup_time(&self, key: KeyId) -> Option<Millis> {
        self.cleanup.cleanup_time(key)
    }

    fn entries_stored(&self) -> u64 {
        self.data_state.stored() + self.cleanup.cleanup_time_state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![
            (self.data_state.name, self.data_state.size(now)),
            (self.cleanup.cleanup_time_state.name, self.cleanup.cleanup_time_state.size(now)),
        ]
    }
}
