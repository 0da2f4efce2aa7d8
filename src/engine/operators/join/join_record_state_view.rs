//! One side's records of a regular join: Flink 2.3.0's `JoinRecordStateViews` (an inner side)
//! and `OuterJoinRecordStateViews` (an outer side, each record with its number of associations),
//! `flink-table-runtime/.../operators/join/stream/state/`, read from the 2.3.0 bytecode.
//!
//! The view is chosen by the side's `JoinInputSideSpec` (planner: `JoinUtil.analyzeJoinInput`):
//!
//! | spec | state | add | retract |
//! |---|---|---|---|
//! | `JoinKeyContainsUniqueKey` | `ValueState`: the record (outer: and n) | `update` | `clear()` |
//! | `HasUniqueKey` | `MapState`: unique key → record (outer: and n) | `put(uk, …)` | `remove(uk)` |
//! | `NoUniqueKey` | `MapState`: record → count (outer: and n) | count + 1 | count − 1, or remove; absent: no-op |
//!
//! `updateNumOfAssociations(r, n)` (outer only) writes `n` (a `put`, creating the entry if
//! absent: `(1, n)` for `NoUniqueKey`), which renews the entry's TTL. The TTL is
//! `StateConfigUtil.createTtlConfig(side's retention)`: `OnCreateAndWrite`, `NeverReturnExpired`,
//! per map entry; a read of the other side never renews it.
//!
//! **Iteration order.** On the heap backend a `MapState`'s user map is a `java.util.HashMap`
//! (`HeapMapState`), so the other side's records come in `HashMap` order of their map keys'
//! `BinaryRowData.hashCode()` ([`crate::engine::operators::java_hash_map`]): each stored entry
//! keeps its hash and insertion number, and the view keeps each key's table size (a new map when
//! the key's map was dropped). Not modelled: the TTL background cleanup's rewrite of a user map
//! as a fresh copy (`TtlMapState.getUnexpiredOrNull`), which can shrink the table; RocksDB's
//! byte order (the view keeps the heap's).

use crate::engine::operators::binary_row::binary_row_hash_code;
use crate::engine::operators::java_hash_map::{bucket, capacity_after_put, spread};
use crate::engine::row::{DataType, Row};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyRegistry, MapState, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::view::{StateCell, TtlView};

/// `JoinInputSideSpec`: what is unique in one input, relative to the join key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)]
pub enum InputSideSpec {
    /// A unique key of the input lies within the join key: one record per join key.
    JoinKeyContainsUniqueKey,
    /// The input has a unique key (these input columns) outside the join key.
    HasUniqueKey(Vec<usize>),
    NoUniqueKey,
}

impl InputSideSpec {
    /// `JoinInputSideSpec.toString()`, as the plan prints it.
    pub fn plan_name(&self) -> &'static str {
        match self {
            InputSideSpec::JoinKeyContainsUniqueKey => "JoinKeyContainsUniqueKey",
            InputSideSpec::HasUniqueKey(_) => "HasUniqueKey",
            InputSideSpec::NoUniqueKey => "NoUniqueKey",
        }
    }
}

/// A stored record: how many identical copies (`NoUniqueKey`; else 1), its number of
/// associations (`-1` on an inner side), and where it sits in the Java table.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    pub record: Row,
    pub count: i64,
    pub num: i64,
    seq: u64,
    hash: u32,
}

/// One side's records.
#[derive(Debug, Clone)]
pub struct JoinRecordStateView {
    pub name: &'static str,
    pub spec: InputSideSpec,
    pub outer: bool,
    /// The record's column types (the map key's `BinaryRowData`).
    types: Vec<DataType>,
    value: ValueState<Stored>,
    map: MapState<Row, Stored>,
    /// Per key: the size of its user map's Java table.
    capacity: Vec<usize>,
    next_seq: u64,
}

impl JoinRecordStateView {
    /// `[Outer]JoinRecordStateViews.create(ctx, name, spec, type, retentionTime)`.
    pub fn new(
        name: &'static str,
        spec: InputSideSpec,
        outer: bool,
        types: Vec<DataType>,
        config: StateTtlConfig,
    ) -> Self {
        JoinRecordStateView {
            name,
            spec,
            outer,
            types,
            value: ValueState::with_ttl(name, config),
            map: MapState::new(name, config),
            capacity: Vec::new(),
            next_seq: 0,
        }
    }

    pub fn config(&self) -> &StateTtlConfig {
        &self.value.config
    }

    /// The map key of `record`: its unique key, or the whole record.
    fn map_key(&self, record: &Row) -> Row {
        match &self.spec {
            InputSideSpec::HasUniqueKey(cols) => record.project(cols),
            _ => record.clone(),
        }
    }

    fn map_key_types(&self) -> Vec<DataType> {
        match &self.spec {
            InputSideSpec::HasUniqueKey(cols) => cols.iter().map(|&c| self.types[c]).collect(),
            _ => self.types.clone(),
        }
    }

    /// `put(uk, stored)` of a map view, placing a new map key in the Java table.
    fn put(
        &mut self,
        keys: &mut KeyRegistry,
        key: KeyId,
        uk: Row,
        mut stored: Stored,
        existing: Option<&Stored>,
        now: Millis,
    ) {
        match existing {
            Some(e) => {
                stored.seq = e.seq;
                stored.hash = e.hash;
            }
            None => {
                let hash = spread(binary_row_hash_code(&uk, &self.map_key_types()));
                let i = key.index();
                if self.capacity.len() <= i {
                    self.capacity.resize(i + 1, 0);
                }
                let capacity = if self.map.has_map(key) { self.capacity[i] } else { 0 };
                self.capacity[i] =
                    capacity_after_put(capacity, hash, self.map.peek(key).map(|(_, e)| e.user_value.hash));
                stored.seq = self.next_seq;
                stored.hash = hash;
                self.next_seq += 1;
            }
        }
        self.map.put(keys, key, uk, stored, now);
    }

    fn stored(record: Row, count: i64, num: i64) -> Stored {
        Stored { record, count, num, seq: 0, hash: 0 }
    }

    /// The map entry of `uk`, if visible (an expired one is removed by the read).
    fn get(&mut self, keys: &mut KeyRegistry, key: KeyId, uk: &Row, now: Millis) -> Option<Stored> {
        match self.map.get(keys, key, uk, now) {
            TtlRead::Fresh(s) => Some(s),
            TtlRead::Absent => None,
            TtlRead::Expired { returned, .. } => returned,
        }
    }

    /// `addRecord(record[, numOfAssociations])` (an inner side passes `-1`).
    pub fn add_record(&mut self, keys: &mut KeyRegistry, key: KeyId, record: &Row, num: i64, now: Millis) {
        self.write(keys, key, record, num, 1, now);
    }

    /// `addRecord` and `updateNumOfAssociations`: both write the record with `num`, a value
    /// view creating it if absent; they differ only in a `NoUniqueKey` record's count, which an
    /// add raises by one (`count_step`) and an update keeps.
    fn write(&mut self, keys: &mut KeyRegistry, key: KeyId, record: &Row, num: i64, count_step: i64, now: Millis) {
        match self.spec {
            InputSideSpec::JoinKeyContainsUniqueKey => {
                self.value.update(keys, key, Self::stored(record.clone(), 1, num), now);
            }
            InputSideSpec::HasUniqueKey(_) => {
                let uk = self.map_key(record);
                let existing = self.get(keys, key, &uk, now);
                self.put(keys, key, uk, Self::stored(record.clone(), 1, num), existing.as_ref(), now);
            }
            InputSideSpec::NoUniqueKey => {
                let existing = self.get(keys, key, record, now);
                let count = existing.as_ref().map_or(1, |e| e.count + count_step);
                self.put(keys, key, record.clone(), Self::stored(record.clone(), count, num), existing.as_ref(), now);
            }
        }
    }

    /// `hasRecord(record)` (apache/flink main @ `076753358ce0`, body not read): whether the
    /// view holds a visible record under `record`'s map key, its unique key or the whole row.
    /// A join key containing the unique key is never asked (`isAdditionalMatch` short-cuts it).
    pub fn has_record(&mut self, keys: &mut KeyRegistry, key: KeyId, record: &Row, now: Millis) -> bool {
        match self.spec {
            InputSideSpec::JoinKeyContainsUniqueKey => {
                !matches!(self.value.value(keys, key, now), TtlRead::Absent | TtlRead::Expired { returned: None, .. })
            }
            _ => {
                let uk = self.map_key(record);
                self.get(keys, key, &uk, now).is_some()
            }
        }
    }

    /// `retractRecord(record)`.
    pub fn retract_record(&mut self, keys: &mut KeyRegistry, key: KeyId, record: &Row, now: Millis) {
        match self.spec {
            InputSideSpec::JoinKeyContainsUniqueKey => {
                self.value.clear(keys, key);
            }
            InputSideSpec::HasUniqueKey(_) => {
                let uk = self.map_key(record);
                self.map.remove(keys, key, &uk);
            }
            InputSideSpec::NoUniqueKey => match self.get(keys, key, record, now) {
                None => {}
                Some(e) if e.count > 1 => {
                    let stored = Self::stored(record.clone(), e.count - 1, e.num);
                    self.put(keys, key, record.clone(), stored, Some(&e), now);
                }
                Some(_) => {
                    self.map.remove(keys, key, record);
                }
            },
        }
    }

    /// `updateNumOfAssociations(record, n)` of an outer side (an absent record is created,
    /// count 1).
    pub fn update_num_of_associations(
        &mut self,
        keys: &mut KeyRegistry,
        key: KeyId,
        record: &Row,
        num: i64,
        now: Millis,
    ) {
        self.write(keys, key, record, num, 0, now);
    }

    /// How many copies of `record` a `NoUniqueKey` view stores (`MapState.get(record)`; 0 when
    /// absent).
    pub fn count_of(&mut self, keys: &mut KeyRegistry, key: KeyId, record: &Row, now: Millis) -> i64 {
        self.get(keys, key, record, now).map_or(0, |s| s.count)
    }

    /// `clear()` of the key's records.
    pub fn clear(&mut self, keys: &mut KeyRegistry, key: KeyId) {
        self.value.clear(keys, key);
        self.map.clear(keys, key);
    }

    /// `getRecords()` / `getRecordsAndNumOfAssociations()` at `now`: each visible record with
    /// its number of associations, a `NoUniqueKey` record as many times as it is stored, in the
    /// heap's iteration order.
    pub fn records(&mut self, keys: &mut KeyRegistry, key: KeyId, now: Millis) -> Vec<(Row, i64)> {
        if self.spec == InputSideSpec::JoinKeyContainsUniqueKey {
            return match self.value.value(keys, key, now) {
                TtlRead::Fresh(s) => vec![(s.record, s.num)],
                TtlRead::Absent => Vec::new(),
                TtlRead::Expired { returned, .. } => returned.map(|s| vec![(s.record, s.num)]).unwrap_or_default(),
            };
        }
        let capacity = self.capacity.get(key.index()).copied().unwrap_or(0);
        let mut entries: Vec<Stored> = self.map.entries(keys, key, now).into_iter().map(|(_, s)| s).collect();
        entries.sort_by_key(|s| (bucket(s.hash, capacity), s.seq));
        let mut out = Vec::new();
        for s in entries {
            for _ in 0..s.count.max(0) {
                out.push((s.record.clone(), s.num));
            }
        }
        out
    }

    /// What the page shows of the key's records: `[k1, a1] ×2 (n=1)`, in the heap's order.
    pub fn cell(&self, key: KeyId, now: Millis) -> Option<StateCell> {
        let config = self.config();
        let describe = |s: &Stored| {
            let mut text = format!("[{}]", s.record.join(", "));
            if s.count > 1 {
                text.push_str(&format!(" ×{}", s.count));
            }
            if self.outer {
                text.push_str(&format!(" (n={})", s.num));
            }
            text
        };
        let ttl = |last: Millis| TtlView {
            last_access_ms: last,
            expires_at_ms: config.expiration_timestamp(last),
            expired: config.expired(last, now),
        };
        if self.spec == InputSideSpec::JoinKeyContainsUniqueKey {
            let v = self.value.peek(key)?;
            let ttl = config.is_enabled().then(|| ttl(v.last_access_ms));
            return Some(StateCell {
                value: describe(&v.user_value),
                entries: 1,
                visible: usize::from(!ttl.is_some_and(|t| t.expired)),
                ttl,
                time_ms: None,
            });
        }
        let capacity = self.capacity.get(key.index()).copied().unwrap_or(0);
        let mut entries: Vec<_> = self.map.peek(key).collect();
        if entries.is_empty() {
            return None;
        }
        entries.sort_by_key(|(_, e)| (bucket(e.user_value.hash, capacity), e.user_value.seq));
        let visible = entries.iter().filter(|(_, e)| !config.expired(e.last_access_ms, now)).count();
        let newest = entries.iter().map(|(_, e)| e.last_access_ms).max().unwrap_or(0);
        Some(StateCell {
            value: entries.iter().map(|(_, e)| describe(&e.user_value)).collect::<Vec<_>>().join(", "),
            entries: entries.len(),
            visible,
            ttl: config.is_enabled().then(|| ttl(newest)),
            time_ms: None,
        })
    }

    /// Entries physically stored.
    pub fn entries_stored(&self) -> u64 {
        self.value.stored() + self.map.stored()
    }

    pub fn size(&self, now: Millis) -> StateSize {
        if self.spec == InputSideSpec::JoinKeyContainsUniqueKey {
            self.value.size(now)
        } else {
            self.map.size(now)
        }
    }
}

/// What `AbstractStreamingJoinOperator` holds for both join operators (`StreamingJoinOperator`,
/// `StreamingSemiAntiJoinOperator`): the keyed backend of the join key and the two sides' views.
#[derive(Debug, Clone)]
pub struct JoinState {
    pub backend: crate::engine::state::KeyedStateBackend,
    pub left: JoinRecordStateView,
    pub right: JoinRecordStateView,
}

impl JoinState {
    /// The two sides, with `left_ms` / `right_ms` their TTLs. A key's whole state is invisible
    /// once both sides expired: the keys' own TTL is the longer side's, none when a side never
    /// expires (a simulator view, not a Flink state).
    pub fn new(left: JoinRecordStateView, right: JoinRecordStateView, left_ms: Millis, right_ms: Millis) -> Self {
        let key_ttl = if left_ms > 0 && right_ms > 0 { left_ms.max(right_ms) } else { 0 };
        JoinState { backend: crate::engine::state::KeyedStateBackend::new(key_ttl), left, right }
    }

    pub fn state_names(&self) -> Vec<&'static str> {
        vec![self.left.name, self.right.name]
    }

    pub fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        vec![self.left.cell(key, now), self.right.cell(key, now)]
    }

    pub fn entries_stored(&self) -> u64 {
        self.left.entries_stored() + self.right.entries_stored()
    }

    pub fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![(self.left.name, self.left.size(now)), (self.right.name, self.right.size(now))]
    }
}
