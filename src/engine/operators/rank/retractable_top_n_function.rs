//! Flink 2.3's `RetractableTopNFunction` (`flink-table-runtime/.../operators/rank/`, read from
//! the source): the top-N rows of each partition over an input with retractions
//! (`RetractStrategy`).
//!
//! Two keyed states, both behind the state TTL of `table.exec.state.ttl`:
//! - `"sorted-map"` (`ValueState<SortedMap<sortKey, count>>`): how many rows each sort key holds,
//!   written back after **every** record of the partition, so its TTL is refreshed each time;
//! - `"data-state"` (`MapState<sortKey, List<row>>`): the rows of each sort key, per-entry TTL,
//!   written only when that sort key gains or loses a row.
//!
//! So under TTL a sort key's rows can expire while the sorted map still counts them. Walking the
//! sorted map, Flink then finds no rows for a key: it removes the key from the sorted map and
//! skips it (`processStateStaled`), and a retraction of a row it no longer knows is skipped
//! (`stateStaledErrorHandle`; FLINK-28019, case C14). Both follow
//! `table.exec.state-stale.error-handling`'s default (`CONTINUE_WITHOUT_LOGGING`, formerly the
//! `lenient = true` flag): the record is dropped and the job goes on, leaving rows downstream that
//! are never retracted.
//!
//! ```text
//! accumulate (+I/+U):  sortedMap[sortKey] += 1; emit; dataState[sortKey].append(row)
//!   with a rank column:    walk the sorted map; from the input's position on every row moves
//!                          down a rank: -U[row, r] +U[previous, r]; +I[last, r] if r <= N
//!   without:               +I[input] if it lands within N; -D[the row pushed to rank N+1]
//! retract (-U/-D):     emit; sortedMap[sortKey] -= 1; remove the first equal row of its key
//!   with a rank column:    every row after it moves up a rank: -U[row, r] +U[next, r];
//!                          -D[last, r] when fewer than N rows remain
//!   without:               -D[row] if it was within N; +I[the row that moves up to rank N]
//! ```

use super::rank::{RankSpec, SortKey};
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Row, RowKind};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, MapState, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::{StateCell, TtlView};
use std::collections::BTreeMap;

// Sorted-map entries walked on this thread, for the test that the walk stops at `rank_end`.
thread_local! {
    static ENTRIES_WALKED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

fn count_walked() {
    ENTRIES_WALKED.with(|n| n.set(n.get() + 1));
}

/// How many sorted-map entries `RetractableTopNFunction` has walked on this thread: with each
/// record's walk ending at `rank_end`, as Flink's, it grows linearly with the records of a
/// partition, whatever the partition's size (`tests/repro_more_expr.rs`, H4).
#[doc(hidden)]
pub fn sorted_map_entries_walked() -> u64 {
    ENTRIES_WALKED.with(std::cell::Cell::get)
}

/// What Flink logs (and the simulator traces) when a record meets state that TTL removed.
const STATE_CLEARED_WARN_MSG: &str =
    "The state is cleared because of state ttl. This will result in incorrect result. \
     You can increase the state ttl to avoid this.";

/// `RetractableTopNFunction` with its keyed state.
#[derive(Debug, Clone)]
pub struct RetractableTopNFunction {
    spec: RankSpec,
    backend: KeyedStateBackend,
    /// `"sorted-map"`: sort key → how many rows hold it.
    tree_map: ValueState<BTreeMap<SortKey, i64>>,
    /// `"data-state"`: sort key → its rows, in arrival order.
    data_state: MapState<SortKey, Vec<Row>>,
}

/// The record being processed and where its output goes.
struct Walk<'a, 'c, 'o> {
    input: &'a Message,
    key: KeyId,
    key_row: &'a Row,
    ctx: &'c mut Context<'o>,
    /// Sort keys the walk found without rows (`processStateStaled`), removed after it.
    stale: Vec<SortKey>,
}

impl RetractableTopNFunction {
    pub fn new(spec: RankSpec, state_ttl_ms: Millis) -> Self {
        let config = StateTtlConfig::create_ttl_config(state_ttl_ms);
        RetractableTopNFunction {
            spec,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            tree_map: ValueState::with_ttl("sorted-map", config),
            data_state: MapState::new("data-state", config),
        }
    }

    fn rank_end(&self) -> u64 {
        self.spec.rank_end
    }

    /// `collectInsert/Delete/UpdateAfter/UpdateBefore(out, row, rank)`: only within the rank
    /// range; `-U` only with `generateUpdateBefore`.
    fn collect_ranked(&self, w: &mut Walk, kind: RowKind, row: &Row, rank: u64) {
        if rank < 1 || rank > self.rank_end() {
            return;
        }
        if kind == RowKind::UpdateBefore && !self.spec.generate_update_before {
            return;
        }
        w.ctx.collect(w.key_row, Message::new(Change::Kind(kind), self.spec.output(row, rank)));
    }

    /// `collectInsert/Delete(out, row)`: no rank, no range check.
    fn collect_plain(&self, w: &mut Walk, kind: RowKind, row: &Row) {
        w.ctx.collect(w.key_row, Message::new(Change::Kind(kind), row.clone()));
    }

    /// `dataState.get(sortKey)`, tracing a TTL expiry.
    fn rows_of(&mut self, w: &mut Walk, sort_key: &SortKey) -> Option<Vec<Row>> {
        match self.data_state.get(&mut self.backend.keys, w.key, sort_key, w.ctx.now) {
            TtlRead::Fresh(rows) => Some(rows),
            TtlRead::Absent => None,
            TtlRead::Expired { last_access_ms, expired_at_ms, returned } => {
                w.ctx.record(w.key_row, || TraceEvent::StateExpired {
                    state: self.data_state.name,
                    last_access_ms,
                    expired_at_ms,
                });
                w.ctx.state_lost(w.key_row, expired_at_ms);
                returned
            }
        }
    }

    /// `processStateStaled`: the sorted map counts rows the data state no longer has.
    fn state_staled(&self, w: &mut Walk, sort_key: &SortKey) {
        w.stale.push(sort_key.clone());
        self.state_staled_error_handle(w);
    }

    /// `stateStaledErrorHandle`, lenient: skip and go on.
    fn state_staled_error_handle(&self, w: &mut Walk) {
        let message = w.input.clone();
        w.ctx.record(w.key_row, || TraceEvent::StateStale { message, warning: STATE_CLEARED_WARN_MSG });
    }

    /// Writes a sort key's rows back, or removes the key when none are left.
    fn store_rows(&mut self, w: &Walk, sort_key: &SortKey, rows: Vec<Row>) {
        if rows.is_empty() {
            self.data_state.remove(&mut self.backend.keys, w.key, sort_key);
        } else {
            self.data_state.put(&mut self.backend.keys, w.key, sort_key.clone(), rows, w.ctx.now);
        }
    }

    /// `emitRecordsWithRowNumber`.
    fn emit_with_row_number(&mut self, w: &mut Walk, map: &BTreeMap<SortKey, i64>, sort_key: &SortKey, input: &Row) {
        let mut current_rank = 0u64;
        let mut current_row: Option<Row> = None;
        let mut finds = false;
        for (k, count) in map {
            count_walked();
            if current_rank > self.rank_end() {
                break;
            }
            if !finds && k == sort_key {
                current_rank += *count as u64;
                current_row = Some(input.clone());
                finds = true;
            } else if finds {
                match self.rows_of(w, k) {
                    None => self.state_staled(w, k),
                    Some(rows) => {
                        for prev in rows {
                            if current_rank > self.rank_end() {
                                break;
                            }
                            self.collect_ranked(w, RowKind::UpdateBefore, &prev, current_rank);
                            if let Some(row) = &current_row {
                                self.collect_ranked(w, RowKind::UpdateAfter, row, current_rank);
                            }
                            current_row = Some(prev);
                            current_rank += 1;
                        }
                    }
                }
            } else {
                current_rank += *count as u64;
            }
        }
        if current_rank <= self.rank_end() {
            if let Some(row) = &current_row {
                self.collect_ranked(w, RowKind::Insert, row, current_rank);
            }
        }
    }

    /// `emitRecordsWithoutRowNumber`.
    ///
    /// # Errors
    /// Java's `IndexOutOfBoundsException` when a sort key counts more rows than it holds.
    fn emit_without_row_number(
        &mut self,
        w: &mut Walk,
        map: &BTreeMap<SortKey, i64>,
        sort_key: &SortKey,
        input: &Row,
    ) -> Result<(), String> {
        let mut cur_rank = 0u64;
        let mut finds = false;
        let mut to_collect = false;
        let mut to_delete: Option<Row> = None;
        for (k, count) in map {
            count_walked();
            if cur_rank > self.rank_end() {
                break;
            }
            if !finds && k == sort_key {
                cur_rank += *count as u64;
                to_collect = (1..=self.rank_end()).contains(&cur_rank);
                finds = true;
            } else if finds {
                match self.rows_of(w, k) {
                    None => self.state_staled(w, k),
                    Some(rows) => {
                        let rank_of_last = cur_rank + *count as u64;
                        if rank_of_last <= self.rank_end() {
                            cur_rank = rank_of_last;
                        } else {
                            let index = (self.rank_end() - cur_rank) as usize;
                            to_delete =
                                Some(rows.get(index).cloned().ok_or_else(|| index_out_of_bounds(index, rows.len()))?);
                            break;
                        }
                    }
                }
            } else {
                cur_rank += *count as u64;
            }
        }
        if let Some(row) = &to_delete {
            self.collect_plain(w, RowKind::Delete, row);
        }
        if to_collect {
            self.collect_plain(w, RowKind::Insert, input);
        }
        Ok(())
    }

    /// `retractRecordWithRowNumber`; returns whether the row was found and removed from the data
    /// state.
    fn retract_with_row_number(
        &mut self,
        w: &mut Walk,
        map: &BTreeMap<SortKey, i64>,
        sort_key: &SortKey,
        input: &Row,
    ) -> bool {
        let mut current_rank = 0u64;
        let mut prev_row: Option<Row> = None;
        let mut finds = false;
        for (k, count) in map {
            count_walked();
            if current_rank > self.rank_end() {
                break;
            }
            if !finds && k == sort_key {
                match self.rows_of(w, k) {
                    None => self.state_staled(w, k),
                    Some(mut rows) => {
                        let mut j = 0;
                        while j < rows.len() && current_rank <= self.rank_end() {
                            if !finds && rows[j] == *input {
                                prev_row = Some(rows.remove(j));
                                finds = true;
                            } else {
                                if finds {
                                    if let Some(prev) = &prev_row {
                                        self.collect_ranked(w, RowKind::UpdateBefore, prev, current_rank);
                                    }
                                    self.collect_ranked(w, RowKind::UpdateAfter, &rows[j], current_rank);
                                    prev_row = Some(rows[j].clone());
                                }
                                j += 1;
                            }
                            current_rank += 1;
                        }
                        self.store_rows(w, k, rows);
                    }
                }
            } else if finds {
                match self.rows_of(w, k) {
                    None => self.state_staled(w, k),
                    Some(rows) => {
                        for current in rows {
                            if current_rank > self.rank_end() {
                                break;
                            }
                            if let Some(prev) = &prev_row {
                                self.collect_ranked(w, RowKind::UpdateBefore, prev, current_rank);
                            }
                            self.collect_ranked(w, RowKind::UpdateAfter, &current, current_rank);
                            prev_row = Some(current);
                            current_rank += 1;
                        }
                    }
                }
            } else {
                current_rank += *count as u64;
            }
        }
        if current_rank <= self.rank_end() {
            match &prev_row {
                None => self.state_staled_error_handle(w),
                Some(prev) => self.collect_ranked(w, RowKind::Delete, prev, current_rank),
            }
        }
        finds
    }

    /// `retractRecordWithoutRowNumber`; returns whether the row was found and removed.
    ///
    /// # Errors
    /// Java's `IndexOutOfBoundsException` when a sort key counts more rows than it holds.
    fn retract_without_row_number(
        &mut self,
        w: &mut Walk,
        map: &BTreeMap<SortKey, i64>,
        sort_key: &SortKey,
        input: &Row,
    ) -> Result<bool, String> {
        let rank_end = self.rank_end();
        // `nextRank` is a Java long and drops by one below the rows it passes.
        let mut next_rank: i64 = 1;
        let mut finds = false;
        for (k, count) in map {
            count_walked();
            if next_rank > rank_end as i64 {
                break;
            }
            if !finds && k == sort_key {
                match self.rows_of(w, k) {
                    None => self.state_staled(w, k),
                    Some(mut rows) => {
                        let mut j = 0;
                        while j < rows.len() && next_rank <= rank_end as i64 {
                            if !finds && rows[j] == *input {
                                let prev = rows.remove(j);
                                self.collect_ranked(w, RowKind::Delete, &prev, next_rank as u64);
                                next_rank -= 1;
                                finds = true;
                            } else {
                                if finds && next_rank == rank_end as i64 {
                                    let row = rows[j].clone();
                                    self.collect_ranked(w, RowKind::Insert, &row, next_rank as u64);
                                }
                                j += 1;
                            }
                            next_rank += 1;
                        }
                        self.store_rows(w, k, rows);
                    }
                }
            } else if finds {
                let rank_of_last = next_rank + count - 1;
                if rank_of_last < rank_end as i64 {
                    next_rank = rank_of_last + 1;
                } else {
                    let index = (rank_end as i64 - next_rank) as usize;
                    match self.rows_of(w, k) {
                        None => self.state_staled(w, k),
                        Some(rows) => {
                            let to_add =
                                rows.get(index).cloned().ok_or_else(|| index_out_of_bounds(index, rows.len()))?;
                            self.collect_plain(w, RowKind::Insert, &to_add);
                            break;
                        }
                    }
                }
            } else {
                next_rank += count;
            }
        }
        Ok(finds)
    }
}

fn index_out_of_bounds(index: usize, len: usize) -> String {
    format!("java.lang.IndexOutOfBoundsException: Index {index} out of bounds for length {len}")
}

impl StreamOperator for RetractableTopNFunction {
    fn flink_class(&self) -> &'static str {
        "RetractableTopNFunction"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.partition_by);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let mut sorted_map = match self.tree_map.take_value(&mut self.backend.keys, key, now) {
            TtlRead::Fresh(map) => map,
            TtlRead::Absent => BTreeMap::new(),
            TtlRead::Expired { last_access_ms, expired_at_ms, returned } => {
                ctx.record(&key_row, || TraceEvent::StateExpired {
                    state: self.tree_map.name,
                    last_access_ms,
                    expired_at_ms,
                });
                ctx.state_lost(&key_row, expired_at_ms);
                returned.unwrap_or_default()
            }
        };
        let sort_key = self.spec.sort.key(&input.row);
        let row = &input.row;
        let mut w = Walk { input, key, key_row: &key_row, ctx, stale: Vec::new() };
        if input.change.is_accumulate() {
            *sorted_map.entry(sort_key.clone()).or_insert(0) += 1;
            if self.spec.output_rank_number {
                self.emit_with_row_number(&mut w, &sorted_map, &sort_key, row);
            } else if let Err(e) = self.emit_without_row_number(&mut w, &sorted_map, &sort_key, row) {
                // Failed before the write-back: the state keeps the map as it was.
                match sorted_map.get_mut(&sort_key) {
                    Some(count) if *count > 1 => *count -= 1,
                    _ => {
                        sorted_map.remove(&sort_key);
                    }
                }
                self.tree_map.put_back(key, sorted_map);
                return Err(e);
            }
            for k in &w.stale {
                sorted_map.remove(k);
            }
            let mut rows = self.rows_of(&mut w, &sort_key).unwrap_or_default();
            rows.push(row.clone());
            self.data_state.put(&mut self.backend.keys, key, sort_key, rows, now);
        } else {
            let state_removed = if self.spec.output_rank_number {
                self.retract_with_row_number(&mut w, &sorted_map, &sort_key, row)
            } else {
                match self.retract_without_row_number(&mut w, &sorted_map, &sort_key, row) {
                    Ok(removed) => removed,
                    Err(e) => {
                        self.tree_map.put_back(key, sorted_map);
                        return Err(e);
                    }
                }
            };
            for k in &w.stale {
                sorted_map.remove(k);
            }
            match sorted_map.get_mut(&sort_key) {
                Some(count) if *count <= 1 => {
                    sorted_map.remove(&sort_key);
                }
                Some(count) => *count -= 1,
                None => self.state_staled_error_handle(&mut w),
            }
            if !state_removed {
                if let Some(mut rows) = self.rows_of(&mut w, &sort_key) {
                    if let Some(at) = rows.iter().position(|r| r == row) {
                        rows.remove(at);
                    }
                    self.store_rows(&w, &sort_key, rows);
                }
            }
        }
        self.tree_map.update(&mut self.backend.keys, key, sorted_map, now);
        Ok(())
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        vec![self.tree_map.name, self.data_state.name]
    }

    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        let tree = self.tree_map.peek(key).map(|stored| {
            let config = &self.tree_map.config;
            let ttl = config.is_enabled().then(|| TtlView {
                last_access_ms: stored.last_access_ms,
                expires_at_ms: config.expiration_timestamp(stored.last_access_ms),
                expired: config.expired(stored.last_access_ms, now),
            });
            let counts: Vec<String> = stored.user_value.iter().map(|(k, c)| format!("{k} → {c}")).collect();
            StateCell {
                time_ms: None,
                value: counts.join("; "),
                entries: 1,
                visible: usize::from(!ttl.is_some_and(|t| t.expired)),
                ttl,
            }
        });
        let config = self.data_state.config;
        let entries: Vec<String> = self
            .data_state
            .peek(key)
            .map(|(k, v)| {
                let rows: Vec<String> = v.user_value.iter().map(|r| format!("[{}]", r.join(", "))).collect();
                format!("{k} → {}", rows.join(" "))
            })
            .collect();
        let data = (!entries.is_empty()).then(|| {
            let newest = self.data_state.peek(key).map(|(_, v)| v.last_access_ms).max().unwrap_or_default();
            StateCell {
                time_ms: None,
                value: entries.join("; "),
                entries: self.data_state.peek(key).count(),
                visible: self.data_state.peek(key).filter(|(_, v)| !config.expired(v.last_access_ms, now)).count(),
                ttl: config.is_enabled().then(|| TtlView {
                    last_access_ms: newest,
                    expires_at_ms: config.expiration_timestamp(newest),
                    expired: config.expired(newest, now),
                }),
            }
        });
        vec![tree, data]
    }

    /// The sorted map's TTL: it is written on every record of the partition, so it expires last.
    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        self.key_state(key, now).into_iter().flatten().find_map(|c| c.ttl)
    }

    fn entries_stored(&self) -> u64 {
        self.tree_map.stored() + self.data_state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![(self.tree_map.name, self.tree_map.size(now)), (self.data_state.name, self.data_state.size(now))]
    }
}
