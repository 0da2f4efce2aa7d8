//! Flink 2.3's `UpdatableTopNFunction` (with `UpdatableTopNHelper`, `TopNBuffer` and
//! `AbstractTopNFunction`; `flink-table-runtime/.../operators/rank/`, read from the source): the
//! top-N rows of each partition over an update stream planned with `UpdateFastStrategy` — the
//! input's unique key (the strategy's `primaryKeys`, here the *row key*) holds the partition key,
//! its sort columns only move towards the top, and its upstream sends no `UPDATE_BEFORE` (the
//! strategy requires `ONLY_UPDATE_AFTER`, `FlinkChangelogModeInferenceProgram`).
//!
//! State: `"data-state-with-update"` (`MapState<rowKey, (row, innerRank)>`, per-entry TTL), only
//! the rows in the top N; `innerRank` is the row's place among the rows of its sort key. The
//! function works on a heap mirror per partition, `kvRowKeyMap`: the `TopNBuffer` (sort key → row
//! keys in arrival order) and `rowKeyMap` (row key → row, innerRank, dirty). The mirror is loaded
//! from the state on the partition's first record and kept in a cache that expires **after
//! write** (`expireAfterWrite(ttl)`): it is written once, when loaded, so it is dropped `ttl`
//! after it was loaded whatever happened since, and reloaded from the state then — without the
//! entries TTL removed meanwhile. Flink writes the dirty rows back at each checkpoint (and on a
//! size eviction); the simulator writes them back after every record, as a checkpoint after each
//! record would. The LRU bound (`table.exec.rank.topn-cache-size / N` partitions) is not
//! modelled: a partition stays cached until it expires.
//!
//! ```text
//! row key known (in rowKeyMap):                   // an update of a row in the buffer
//!   without a rank column: move it to its new sort key; -U[old row] (if generateUpdateBefore),
//!                          +U[input]
//!   with a rank column:    same sort key: -U[old, r] +U[input, r];
//!                          better sort key: from the input's new rank down to its old rank, each
//!                          row moves down one: -U[row, r] +U[previous, r] (the old row's -U
//!                          first when the input's rank comes), the old rank closes the walk;
//!                          worse sort key (the monotonicity broken, e.g. the upstream's state
//!                          expired; Flink logs and goes on): -U[old, oldRank], the rows between
//!                          move up, +U[input, newRank]
//! row key unknown, sort key within the buffer's range (checkSortKeyInBufferRange):
//!   without a rank column: put it; past N rows: removeLast → -D[last]; +I[input]
//!   with a rank column:    as AppendOnlyTopNFunction: the rows below move down a rank, +I at
//!                          the end within N; sort keys the walk did not reach are removed
//! otherwise: nothing
//! ```

use super::rank::{RankSpec, SortKey};
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Row, RowKind};
use crate::engine::state::ttl::StateTtlConfig;
use crate::engine::state::{KeyId, KeyedStateBackend, MapState, StateSize};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::{StateCell, TtlView};
use rustc_hash::FxHashMap as HashMap;

/// `RankRow`: a row of the buffer, its place among its sort key's rows, and whether the state
/// has not seen it yet.
#[derive(Debug, Clone)]
struct RankRow {
    row: Row,
    inner_rank: u32,
    dirty: bool,
}

/// A partition's heap mirror (`Tuple2<TopNBuffer, Map<RowData, RankRow>>`) and when it was put
/// into the cache.
#[derive(Debug, Clone, Default)]
struct Partition {
    /// `TopNBuffer`: sort key → row keys (a `LinkedHashSet`), best key first.
    buffer: Vec<(SortKey, Vec<Row>)>,
    row_key_map: HashMap<Row, RankRow>,
    loaded_at: Millis,
}

impl Partition {
    /// `TopNBuffer.put`: appends the row key to its sort key's rows; returns their number.
    fn put(&mut self, sort_key: &SortKey, row_key: Row) -> u32 {
        let at = self.buffer.partition_point(|(k, _)| k < sort_key);
        match self.buffer.get_mut(at) {
            Some((k, rows)) if k == sort_key => {
                rows.push(row_key);
                rows.len() as u32
            }
            _ => {
                self.buffer.insert(at, (sort_key.clone(), vec![row_key]));
                1
            }
        }
    }

    /// `TopNBuffer.remove(sortKey, rowKey)`.
    fn remove(&mut self, sort_key: &SortKey, row_key: &Row) {
        if let Some(at) = self.buffer.iter().position(|(k, _)| k == sort_key) {
            self.buffer[at].1.retain(|r| r != row_key);
            if self.buffer[at].1.is_empty() {
                self.buffer.remove(at);
            }
        }
    }

    /// `TopNBuffer.getCurrentTopNum`.
    fn top_num(&self) -> u64 {
        self.buffer.iter().map(|(_, r)| r.len() as u64).sum()
    }

    /// `TopNBuffer.checkSortKeyInBufferRange`.
    fn in_range(&self, sort_key: &SortKey, top_n: u64) -> bool {
        match self.buffer.last() {
            None => true,
            Some((worst, _)) => sort_key < worst || self.top_num() < top_n,
        }
    }

    /// `updateInnerRank(oldSortKey)`: renumbers the rows left under the old sort key.
    fn update_inner_rank(&mut self, sort_key: &SortKey) {
        let Some((_, rows)) = self.buffer.iter().find(|(k, _)| k == sort_key) else { return };
        for (i, rk) in rows.iter().enumerate() {
            if let Some(r) = self.row_key_map.get_mut(rk) {
                if r.inner_rank != i as u32 + 1 {
                    r.inner_rank = i as u32 + 1;
                    r.dirty = true;
                }
            }
        }
    }

    /// `rowNumber(sortKey, rowKey, buffer)`: the row's rank and inner rank.
    fn row_number(&self, sort_key: &SortKey, row_key: &Row) -> Result<(u64, u32), String> {
        let mut rank = 1u64;
        for (k, rows) in &self.buffer {
            if k == sort_key {
                if let Some(i) = rows.iter().position(|r| r == row_key) {
                    return Ok((rank + i as u64, i as u32 + 1));
                }
                rank += rows.len() as u64;
            } else {
                rank += rows.len() as u64;
            }
        }
        Err("Failed to find the sortKey, rowkey in the buffer. This should never happen".into())
    }
}

/// `UpdatableTopNFunction` with its keyed state and heap cache.
#[derive(Debug, Clone)]
pub struct UpdatableTopNFunction {
    spec: RankSpec,
    /// The row key's columns (`UpdateFastStrategy.primaryKeys`).
    row_key: Vec<usize>,
    backend: KeyedStateBackend,
    /// `"data-state-with-update"`: row key → (row, innerRank).
    data_state: MapState<Row, (Row, u32)>,
    /// `kvRowKeyMap`, by partition key.
    cache: HashMap<Row, Partition>,
    ttl_ms: Millis,
}

/// One record's output.
struct Out<'a, 'c, 'o> {
    key_row: &'a Row,
    ctx: &'c mut Context<'o>,
}

impl UpdatableTopNFunction {
    pub fn new(spec: RankSpec, row_key: Vec<usize>, state_ttl_ms: Millis) -> Self {
        let config = StateTtlConfig::create_ttl_config(state_ttl_ms);
        UpdatableTopNFunction {
            spec,
            row_key,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            data_state: MapState::new("data-state-with-update", config),
            cache: HashMap::default(),
            ttl_ms: config.enabled_ttl_ms(),
        }
    }

    /// `collectX(out, row, rank)`: only within the rank range; `-U` only with
    /// `generateUpdateBefore`.
    fn ranked(&self, o: &mut Out, kind: RowKind, row: &Row, rank: u64) {
        if rank < 1 || rank > self.spec.rank_end {
            return;
        }
        if kind == RowKind::UpdateBefore && !self.spec.generate_update_before {
            return;
        }
        o.ctx.collect(o.key_row, Message::new(Change::Kind(kind), self.spec.output(row, rank)));
    }

    /// `collectX(out, row)`: no rank; `-U` only with `generateUpdateBefore`.
    fn plain(&self, o: &mut Out, kind: RowKind, row: &Row) {
        if kind == RowKind::UpdateBefore && !self.spec.generate_update_before {
            return;
        }
        o.ctx.collect(o.key_row, Message::new(Change::Kind(kind), row.clone()));
    }

    /// `initHeapStates`: the cached mirror, or (absent, or `ttl` after it was loaded) the mirror
    /// rebuilt from the state, whose expired entries are dropped on the way.
    fn init_heap_states(&mut self, key: KeyId, o: &mut Out) -> Partition {
        let now = o.ctx.now;
        if let Some(p) = self.cache.remove(o.key_row) {
            if self.ttl_ms == 0 || p.loaded_at + self.ttl_ms > now {
                return p;
            }
        }
        let config = self.data_state.config;
        let expired: Vec<Millis> = self
            .data_state
            .peek(key)
            .filter(|(_, v)| config.expired(v.last_access_ms, now))
            .map(|(_, v)| v.last_access_ms)
            .collect();
        for last_access_ms in expired {
            let expired_at_ms = config.expiration_timestamp(last_access_ms);
            o.ctx.record(o.key_row, || TraceEvent::StateExpired {
                state: self.data_state.name,
                last_access_ms,
                expired_at_ms,
            });
            o.ctx.state_lost(o.key_row, expired_at_ms);
        }
        let mut p = Partition { loaded_at: now, ..Partition::default() };
        let mut entries = self.data_state.entries(&mut self.backend.keys, key, now);
        // Each sort key's rows in inner-rank order (`tempSortedMap`); the buffer orders the keys.
        entries
            .sort_by(|(_, (a, ra)), (_, (b, rb))| self.spec.sort.key(a).cmp(&self.spec.sort.key(b)).then(ra.cmp(rb)));
        for (row_key, (row, inner_rank)) in entries {
            let sort_key = self.spec.sort.key(&row);
            p.put(&sort_key, row_key.clone());
            p.row_key_map.insert(row_key, RankRow { row, inner_rank, dirty: false });
        }
        p
    }

    /// `flushBufferToState`: the dirty rows written back (here after every record).
    fn flush(&mut self, key: KeyId, p: &mut Partition, now: Millis) {
        let mut dirty: Vec<(&Row, &mut RankRow)> = p.row_key_map.iter_mut().filter(|(_, r)| r.dirty).collect();
        dirty.sort_by(|a, b| a.0.cmp(b.0));
        for (row_key, r) in dirty {
            r.dirty = false;
            self.data_state.put(&mut self.backend.keys, key, row_key.clone(), (r.row.clone(), r.inner_rank), now);
        }
    }

    /// `processElementWithoutRowNumber`.
    fn without_row_number(&mut self, key: KeyId, p: &mut Partition, input: &Row, o: &mut Out) {
        let sort_key = self.spec.sort.key(input);
        let row_key = input.project(&self.row_key);
        if let Some(old) = p.row_key_map.get(&row_key).cloned() {
            let old_sort_key = self.spec.sort.key(&old.row);
            if old_sort_key != sort_key {
                p.remove(&old_sort_key, &row_key);
                let size = p.put(&sort_key, row_key.clone());
                p.row_key_map.insert(row_key, RankRow { row: input.clone(), inner_rank: size, dirty: true });
                p.update_inner_rank(&old_sort_key);
            } else {
                p.row_key_map.insert(row_key, RankRow { row: input.clone(), inner_rank: old.inner_rank, dirty: true });
            }
            self.plain(o, RowKind::UpdateBefore, &old.row);
            self.plain(o, RowKind::UpdateAfter, input);
        } else if p.in_range(&sort_key, self.spec.rank_end) {
            let size = p.put(&sort_key, row_key.clone());
            p.row_key_map.insert(row_key, RankRow { row: input.clone(), inner_rank: size, dirty: true });
            if p.top_num() > self.spec.rank_end {
                // `removeLast`.
                let last = p.buffer.last_mut().and_then(|(_, rows)| rows.pop());
                if p.buffer.last().is_some_and(|(_, rows)| rows.is_empty()) {
                    p.buffer.pop();
                }
                if let Some(last_key) = last {
                    self.data_state.remove(&mut self.backend.keys, key, &last_key);
                    if let Some(last_row) = p.row_key_map.remove(&last_key) {
                        self.plain(o, RowKind::Delete, &last_row.row);
                    }
                }
            }
            self.plain(o, RowKind::Insert, input);
        } else {
            o.ctx.record(o.key_row, || TraceEvent::Suppressed {
                reason: "the row cannot enter the top N (its sort key is not better than the last row's)",
                row: input.clone(),
            });
        }
    }

    /// `processElementWithRowNumber`.
    fn with_row_number(&mut self, key: KeyId, p: &mut Partition, input: &Row, o: &mut Out) -> Result<(), String> {
        let sort_key = self.spec.sort.key(input);
        let row_key = input.project(&self.row_key);
        if let Some(old) = p.row_key_map.get(&row_key).cloned() {
            let old_sort_key = self.spec.sort.key(&old.row);
            match sort_key.cmp(&old_sort_key) {
                std::cmp::Ordering::Equal => {
                    let (rank, inner_rank) = p.row_number(&sort_key, &row_key)?;
                    p.row_key_map.insert(row_key, RankRow { row: input.clone(), inner_rank, dirty: true });
                    self.ranked(o, RowKind::UpdateBefore, &old.row, rank);
                    self.ranked(o, RowKind::UpdateAfter, input, rank);
                }
                order => {
                    let (old_rank, _) = p.row_number(&old_sort_key, &row_key)?;
                    p.remove(&old_sort_key, &row_key);
                    let size = p.put(&sort_key, row_key.clone());
                    p.row_key_map
                        .insert(row_key.clone(), RankRow { row: input.clone(), inner_rank: size, dirty: true });
                    p.update_inner_rank(&old_sort_key);
                    if order == std::cmp::Ordering::Less {
                        self.emit_records_with_row_number(
                            key,
                            p,
                            &sort_key,
                            input,
                            Some((&old_sort_key, &old.row, old_rank)),
                            o,
                        );
                    } else {
                        // The monotonicity is broken (Flink logs "The input retract record ... is
                        // lower than old sort key" and, as the stale-state handling's default
                        // does, goes on).
                        o.ctx.record(o.key_row, || TraceEvent::Suppressed {
                            reason: "the sort key moved away from the top, which breaks the monotonicity the \
                                     planner relied on (logged by Flink; the rows in between are re-ranked)",
                            row: old.row.clone(),
                        });
                        let (new_rank, _) = p.row_number(&sort_key, &row_key)?;
                        self.emit_records_with_row_number_ignore_state_error(p, input, new_rank, &old.row, old_rank, o);
                    }
                }
            }
        } else if p.in_range(&sort_key, self.spec.rank_end) {
            let size = p.put(&sort_key, row_key.clone());
            p.row_key_map.insert(row_key, RankRow { row: input.clone(), inner_rank: size, dirty: true });
            self.emit_records_with_row_number(key, p, &sort_key, input, None, o);
        } else {
            o.ctx.record(o.key_row, || TraceEvent::Suppressed {
                reason: "the row cannot enter the top N (its sort key is not better than the last row's)",
                row: input.clone(),
            });
        }
        Ok(())
    }

    /// `emitRecordsWithRowNumberIgnoreStateError`.
    fn emit_records_with_row_number_ignore_state_error(
        &self,
        p: &Partition,
        new_row: &Row,
        new_rank: u64,
        old_row: &Row,
        old_rank: u64,
        o: &mut Out,
    ) {
        self.ranked(o, RowKind::UpdateBefore, old_row, old_rank);
        let mut current_rank = 0u64;
        'affected: for (_, rows) in &p.buffer {
            for rk in rows {
                current_rank += 1;
                let current = &p.row_key_map[rk].row;
                if current_rank == new_rank {
                    break 'affected;
                }
                if old_rank <= current_rank {
                    self.ranked(o, RowKind::UpdateBefore, current, current_rank + 1);
                    self.ranked(o, RowKind::UpdateAfter, current, current_rank);
                }
            }
        }
        self.ranked(o, RowKind::UpdateAfter, new_row, new_rank);
    }

    /// `emitRecordsWithRowNumber(sortKey, inputRow, out, oldSortKey, oldRow, oldRank)`.
    fn emit_records_with_row_number(
        &mut self,
        key: KeyId,
        p: &mut Partition,
        sort_key: &SortKey,
        input: &Row,
        old: Option<(&SortKey, &Row, u64)>,
        o: &mut Out,
    ) {
        let rank_end = self.spec.rank_end;
        let mut current_rank = 0u64;
        // `currentRow`: the input (`None`) or a buffer row.
        let mut current_row: Option<Row> = None;
        let mut current_is_input = false;
        let mut finds_sort_key = false;
        let mut old_row_retracted = false;
        let mut next = 0;
        while next < p.buffer.len() && current_rank <= rank_end {
            let (cur_sort_key, rows) = &p.buffer[next];
            next += 1;
            if !finds_sort_key && cur_sort_key == sort_key {
                current_rank += rows.len() as u64;
                current_is_input = true;
                finds_sort_key = true;
            } else if finds_sort_key {
                let limit = match old {
                    None => None,
                    Some((old_sort_key, _, old_rank)) if cur_sort_key <= old_sort_key => Some(old_rank),
                    Some(_) => break,
                };
                for rk in rows {
                    let go_on = match limit {
                        None => current_rank <= rank_end,
                        Some(old_rank) => current_rank < old_rank,
                    };
                    if !go_on {
                        break;
                    }
                    let prev = p.row_key_map[rk].row.clone();
                    self.ranked(o, RowKind::UpdateBefore, &prev, current_rank);
                    if let Some((_, old_row, old_rank)) = old {
                        if current_is_input && !old_row_retracted {
                            // In a same unique key, the old row is retracted first.
                            self.ranked(o, RowKind::UpdateBefore, old_row, old_rank);
                            old_row_retracted = true;
                        }
                    }
                    let cur = if current_is_input { input } else { current_row.as_ref().unwrap_or(input) };
                    self.ranked(o, RowKind::UpdateAfter, cur, current_rank);
                    current_row = Some(prev);
                    current_is_input = false;
                    current_rank += 1;
                }
            } else {
                current_rank += rows.len() as u64;
            }
        }
        let cur = if current_is_input { input.clone() } else { current_row.unwrap_or_else(|| input.clone()) };
        if current_rank <= rank_end {
            match old {
                None => self.ranked(o, RowKind::Insert, &cur, current_rank),
                Some((_, old_row, old_rank)) => {
                    if !old_row_retracted {
                        self.ranked(o, RowKind::UpdateBefore, old_row, old_rank);
                    }
                    self.ranked(o, RowKind::UpdateAfter, &cur, current_rank);
                }
            }
            return;
        }
        // The sort keys the walk did not reach leave the buffer and the state.
        for (_, rows) in p.buffer.drain(next..) {
            for rk in rows {
                p.row_key_map.remove(&rk);
                self.data_state.remove(&mut self.backend.keys, key, &rk);
            }
        }
    }
}

impl StreamOperator for UpdatableTopNFunction {
    fn flink_class(&self) -> &'static str {
        "UpdatableTopNFunction"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.partition_by);
        let key = self.backend.keys.intern(&key_row);
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let now = ctx.now;
        let mut o = Out { key_row: &key_row, ctx };
        let mut p = self.init_heap_states(key, &mut o);
        let result = if self.spec.output_rank_number {
            self.with_row_number(key, &mut p, &input.row, &mut o)
        } else {
            self.without_row_number(key, &mut p, &input.row, &mut o);
            Ok(())
        };
        self.flush(key, &mut p, now);
        self.cache.insert(key_row.clone(), p);
        result
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
            .map(|(k, v)| format!("[{}] → [{}] #{}", k.join(", "), v.user_value.0.join(", "), v.user_value.1))
            .collect();
        if entries.is_empty() {
            return vec![None];
        }
        let stored = entries.len();
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
