//! The result table at the end of the pipeline: the final rows after applying the changelog.
//!
//! Two sinks, as Flink's planner picks them:
//! - **retract** (the last operator emits UPDATE_BEFORE / `(false, prevRow)`): a multiset of rows,
//!   as Flink's SQL client shows a result in table mode (`MaterializedCollectStreamResult`):
//!   an accumulate adds a row, a retraction removes one equal row. An accumulate right after a
//!   retraction takes the retracted row's place, so an update changes a row where it stands.
//! - **upsert** on the last operator's grouping key (it emits no UPDATE_BEFORE): an accumulate
//!   replaces the row with the same key, a DELETE removes it.
//!
//! A row is marked **stale** when the last operator loses the state of its key without a
//! message (cleanup timer or state TTL): nothing will ever retract or update that row.

use super::row::{Message, Row, Value};
use super::time::Millis;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// One row of the result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ResultRow {
    pub row: Row,
    /// Processing time (ms) since which the state that produced this row is gone, if it is.
    pub stale_since_ms: Option<Millis>,
}

type Slots = SmallVec<[u32; 2]>;

/// The rows, in the order they were added.
///
/// Rows sit in numbered slots (a removed row leaves an empty slot; the table is compacted when
/// more than half of the slots are empty), indexed by key, so applying a message costs the same
/// however many rows the table holds.
#[derive(Debug, Clone, Default)]
pub struct ResultTable {
    pub columns: Vec<String>,
    /// How many leading columns are the last operator's unique key.
    key_len: usize,
    /// Upsert on the key (true) or retract (false).
    pub upsert: bool,
    slots: Vec<Option<ResultRow>>,
    /// Rows held, and how many of them are stale.
    live: usize,
    stale: usize,
    /// Fresh (not stale) rows by key: their slots, ascending.
    fresh: FxHashMap<Row, Slots>,
    /// Stale rows by key: their slots, ascending.
    stale_rows: FxHashMap<Row, Slots>,
    /// Where the last retraction removed a row, for the accumulate that may follow it.
    hole: Option<u32>,
}

fn insert_sorted(map: &mut FxHashMap<Row, Slots>, key: &[Value], slot: u32) {
    let slots = match map.get_mut(key) {
        Some(s) => s,
        None => map.entry(key.iter().cloned().collect()).or_default(),
    };
    let i = slots.partition_point(|&s| s < slot);
    slots.insert(i, slot);
}

/// Drops `slot` from the key's list. An emptied list stays (an update removes a key's row and
/// puts the new one right back); compaction drops empty lists.
fn remove_slot(map: &mut FxHashMap<Row, Slots>, key: &[Value], slot: u32) {
    if let Some(slots) = map.get_mut(key) {
        if let Some(i) = slots.iter().position(|s| *s == slot) {
            slots.remove(i);
        }
    }
}

impl ResultTable {
    pub fn new(columns: Vec<String>, key_len: usize, upsert: bool) -> Self {
        ResultTable { columns, key_len, upsert, ..ResultTable::default() }
    }

    fn key_of<'r>(&self, row: &'r Row) -> &'r [Value] {
        &row.0[..self.key_len.min(row.0.len())]
    }

    /// Puts a row into `slot` (a free one, or one past the end).
    fn put(&mut self, slot: u32, row: ResultRow) {
        let i = slot as usize;
        if i == self.slots.len() {
            self.slots.push(None);
        }
        let key = &row.row.0[..self.key_len.min(row.row.0.len())];
        if row.stale_since_ms.is_some() {
            insert_sorted(&mut self.stale_rows, key, slot);
            self.stale += 1;
        } else {
            insert_sorted(&mut self.fresh, key, slot);
        }
        self.slots[i] = Some(row);
        self.live += 1;
    }

    /// Empties `slot`, dropping it from the indexes.
    fn take(&mut self, slot: u32) -> Option<ResultRow> {
        let r = self.slots.get_mut(slot as usize)?.take()?;
        self.live -= 1;
        let key = &r.row.0[..self.key_len.min(r.row.0.len())];
        if r.stale_since_ms.is_some() {
            self.stale -= 1;
            remove_slot(&mut self.stale_rows, key, slot);
        } else {
            remove_slot(&mut self.fresh, key, slot);
        }
        Some(r)
    }

    fn end(&self) -> u32 {
        self.slots.len() as u32
    }

    /// The slot of a row equal to `row` among `slots`: the last or the first one.
    fn find(&self, slots: Option<&Slots>, row: &Row, last: bool) -> Option<u32> {
        let mut equal =
            slots?.iter().copied().filter(|&s| self.slots[s as usize].as_ref().is_some_and(|r| r.row == *row));
        if last {
            equal.next_back()
        } else {
            equal.next()
        }
    }

    /// Applies one message. Returns `false` when a retraction finds no row to remove (nothing changes).
    pub fn apply(&mut self, message: &Message) -> bool {
        let applied = if self.upsert { self.apply_upsert(message) } else { self.apply_retract(message) };
        let keys = self.fresh.len() + self.stale_rows.len();
        if self.hole.is_none()
            && self.slots.len() > 64
            && (self.live * 2 < self.slots.len() || keys > 2 * self.live + 64)
        {
            self.compact();
        }
        applied
    }

    /// Upsert on the key: an accumulate replaces the key's fresh row in place, a retraction removes it.
    fn apply_upsert(&mut self, message: &Message) -> bool {
        let at = self.fresh.get(self.key_of(&message.row)).and_then(|s| s.first().copied());
        let fresh = |row: &Row| ResultRow { row: row.clone(), stale_since_ms: None };
        match (message.change.is_accumulate(), at) {
            (true, Some(slot)) => {
                self.take(slot);
                self.put(slot, fresh(&message.row));
                true
            }
            (true, None) => {
                self.put(self.end(), fresh(&message.row));
                true
            }
            (false, Some(slot)) => {
                self.take(slot);
                true
            }
            (false, None) => false,
        }
    }

    /// A multiset of rows: an accumulate adds a row (where the last retraction removed one, so an
    /// update changes a row where it stands), a retraction removes the last fresh equal row, or
    /// else the first stale one.
    fn apply_retract(&mut self, message: &Message) -> bool {
        if message.change.is_accumulate() {
            let slot = match self.hole.take() {
                Some(h) if self.slots.get(h as usize).is_some_and(Option::is_none) => h,
                _ => self.end(),
            };
            self.put(slot, ResultRow { row: message.row.clone(), stale_since_ms: None });
            return true;
        }
        let key = self.key_of(&message.row);
        let slot = self
            .find(self.fresh.get(key), &message.row, true)
            .or_else(|| self.find(self.stale_rows.get(key), &message.row, false));
        match slot {
            Some(slot) => {
                self.take(slot);
                self.hole = Some(slot);
                true
            }
            None => {
                self.hole = None;
                false
            }
        }
    }

    /// Drops the empty slots, keeping the order of the rows.
    fn compact(&mut self) {
        let rows: Vec<ResultRow> = self.slots.drain(..).flatten().collect();
        self.fresh.clear();
        self.stale_rows.clear();
        self.live = 0;
        self.stale = 0;
        for r in rows {
            self.put(self.end(), r);
        }
    }

    /// Marks the rows of `key` stale since `at_ms`: the last operator lost the key's state.
    pub fn mark_stale(&mut self, key: &Row, at_ms: Millis) {
        let key = &key.0[..self.key_len.min(key.0.len())];
        let Some(slots) = self.fresh.get_mut(key).map(std::mem::take) else { return };
        for slot in slots {
            if let Some(r) = self.slots[slot as usize].as_mut() {
                r.stale_since_ms = Some(at_ms);
                insert_sorted(&mut self.stale_rows, key, slot);
                self.stale += 1;
            }
        }
    }

    /// The current rows, in order.
    pub fn rows(&self) -> impl DoubleEndedIterator<Item = &ResultRow> {
        self.slots.iter().flatten()
    }

    /// How many rows the table holds.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// How many of its rows are stale.
    pub fn stale_len(&self) -> usize {
        self.stale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::{Change, RowKind, Value};

    fn m(change: bool, k: &str, v: i64) -> Message {
        Message::new(Change::Legacy(change), Row::from(vec![Value::str(k), Value::Int(v)]))
    }

    fn rows(t: &ResultTable) -> Vec<String> {
        t.rows()
            .map(|r| format!("{}{}", r.row.join(","), if r.stale_since_ms.is_some() { " stale" } else { "" }))
            .collect()
    }

    #[test]
    fn retract_updates_in_place_and_reports_missing_rows() {
        let mut t = ResultTable::new(vec!["k".into(), "v".into()], 1, false);
        for msg in [m(true, "a", 1), m(true, "b", 1), m(false, "a", 1), m(true, "a", 2)] {
            assert!(t.apply(&msg));
        }
        assert_eq!(rows(&t), ["a,2", "b,1"]);
        assert!(!t.apply(&m(false, "c", 1)));
        assert!(t.apply(&m(false, "b", 1)));
        assert_eq!(rows(&t), ["a,2"]);
    }

    #[test]
    fn upsert_replaces_by_key() {
        let mut t = ResultTable::new(vec!["k".into(), "v".into()], 1, true);
        let kind = |k: RowKind, key: &str, v: i64| {
            Message::new(Change::Kind(k), Row::from(vec![Value::str(key), Value::Int(v)]))
        };
        for msg in
            [kind(RowKind::Insert, "a", 1), kind(RowKind::UpdateAfter, "a", 2), kind(RowKind::UpdateAfter, "a", 3)]
        {
            assert!(t.apply(&msg));
        }
        assert_eq!(rows(&t), ["a,3"]);
        assert!(t.apply(&kind(RowKind::Delete, "a", 3)));
        assert!(rows(&t).is_empty());
    }

    #[test]
    fn stale_rows_stay_and_new_ones_come_beside_them() {
        let mut t = ResultTable::new(vec!["k".into(), "v".into()], 1, false);
        t.apply(&m(true, "a", 1));
        t.mark_stale(&Row::from(vec![Value::str("a")]), 10);
        t.apply(&m(true, "a", 1));
        assert_eq!(rows(&t), ["a,1 stale", "a,1"]);
        t.apply(&m(false, "a", 1));
        assert_eq!(rows(&t), ["a,1 stale"], "a retraction removes the live row, not the stale one");
    }
}
