//! Flink 2.3's `AppendOnlyTopNFunction` (with `AppendOnlyTopNHelper` and `TopNBuffer`;
//! `flink-table-runtime/.../operators/rank/`, read from the source): the top-N rows of each
//! partition over an append-only input.
//!
//! The partition's rows sit in a buffer ordered by sort key (`TopNBuffer`: sort key → the rows
//! with that key, in arrival order), kept in the map state `"data-state-with-append"`:
//!
//! ```text
//! if sortKey < worst key in the buffer, or the buffer holds fewer than N rows:
//!     buffer[sortKey].append(input)
//!     with a rank column:        walk the buffer in order; from the input's position on, every
//!                                row moves down one rank: -U[row, r] (if generateUpdateBefore),
//!                                +U[previous row, r]; a row landing inside N is +I[row, r];
//!                                entries the walk did not reach are removed
//!     without a rank column:     if the buffer now holds more than N rows, remove the last row
//!                                (-D[it], unless it is the input itself) and emit +I[input]
//! // a row that cannot enter the top N is dropped and emits nothing
//! ```
//!
//! Ties keep arrival order (a new row goes after the rows with an equal key). Rows the walk passed
//! beyond rank N stay in the buffer until a later walk's remainder removes them, as in Flink.

use super::rank::{RankSpec, SortKey};
use super::top_n_buffer;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Row, RowKind};
use crate::engine::state::ttl::StateTtlConfig;
use crate::engine::state::{KeyId, KeyedStateBackend, MapState, StateSize};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::{StateCell, TtlView};

/// `AppendOnlyTopNFunction` with its keyed state.
#[derive(Debug, Clone)]
pub struct AppendOnlyTopNFunction {
    spec: RankSpec,
    backend: KeyedStateBackend,
    /// `"data-state-with-append"`: sort key → the rows with that key.
    data_state: MapState<SortKey, Vec<Row>>,
}

impl AppendOnlyTopNFunction {
    pub fn new(spec: RankSpec, state_ttl_ms: Millis) -> Self {
        let config = StateTtlConfig::create_ttl_config(state_ttl_ms);
        AppendOnlyTopNFunction {
            spec,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            data_state: MapState::new("data-state-with-append", config),
        }
    }

    fn message(&self, kind: RowKind, row: &Row, rank: u64) -> Message {
        Message::new(Change::Kind(kind), self.spec.output(row, rank))
    }

    /// `processElementWithRowNumber`.
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
        let mut current_rank = 0u64;
        let mut finds_sort_key = false;
        let mut current_row: Option<Row> = None;
        let mut next = 0;
        while next < buffer.len() && current_rank <= rank_end {
            let (k, records) = &buffer[next];
            next += 1;
            if !finds_sort_key && k == sort_key {
                current_rank += records.len() as u64;
                current_row = Some(input.clone());
                finds_sort_key = true;
            } else if finds_sort_key {
                for prev in records {
                    if current_rank > rank_end {
                        break;
                    }
                    if self.spec.generate_update_before {
                        ctx.collect(key_row, self.message(RowKind::UpdateBefore, prev, current_rank));
                    }
                    if let Some(row) = &current_row {
                        ctx.collect(key_row, self.message(RowKind::UpdateAfter, row, current_rank));
                    }
                    current_row = Some(prev.clone());
                    current_rank += 1;
                }
            } else {
                current_rank += records.len() as u64;
            }
        }
        if current_rank <= rank_end {
            if let Some(row) = &current_row {
                ctx.collect(key_row, self.message(RowKind::Insert, row, current_rank));
            }
        }
        top_n_buffer::remove_unreached(&mut self.data_state, &mut self.backend.keys, key, buffer, next);
    }

    /// `processElementWithoutRowNumber`.
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
            Some(last) => ctx.collect(key_row, self.message(RowKind::Delete, &last, 0)),
        }
        ctx.collect(key_row, self.message(RowKind::Insert, input, 0));
    }
}

impl StreamOperator for AppendOnlyTopNFunction {
    fn flink_class(&self) -> &'static str {
        "AppendOnlyTopNFunction"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.partition_by);
        let key = self.backend.keys.intern(&key_row);
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
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

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        vec![self.data_state.name]
    }

    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        let config = self.data_state.config;
        let entries: Vec<String> = self
            .data_state
            .peek(key)
            .map(|(k, v)| {
                let rows: Vec<String> = v.user_value.iter().map(|r| format!("[{}]", r.join(", "))).collect();
                format!("{k} → {}", rows.join(" "))
            })
            .collect();
        if entries.is_empty() {
            return vec![None];
        }
        let stored = self.data_state.peek(key).count();
        let visible = self.data_state.peek(key).filter(|(_, v)| !config.expired(v.last_access_ms, now)).count();
        vec![Some(StateCell {
            time_ms: None,
            value: entries.join("; "),
            entries: stored,
            visible,
            ttl: self.ttl_of(key, now),
        })]
    }

    /// The TTL of the newest entry: the partition's state is visible until it expires.
    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        let config = &self.data_state.config;
        let newest = self.data_state.peek(key).map(|(_, v)| v.last_access_ms).max()?;
        config.is_enabled().then(|| TtlView {
            last_access_ms: newest,
            expires_at_ms: config.expiration_timestamp(newest),
            expired: config.expired(newest, now),
        })
    }

    fn entries_stored(&self) -> u64 {
        self.data_state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![(self.data_state.name, self.data_state.size(now))]
    }
}
