//! The result table at the end of the pipeline: the final rows after applying the changelog.
//!
//! Two sinks, as Flink's planner picks them:
//! - **retract** (the last operator emits UPDATE_BEFORE / `(false, prevRow)`): a multiset of rows,
//!   as Flink's SQL client shows a result in table mode (`MaterializedCollectStreamResult`):
//!   an accumulate adds a row, a retraction removes one equal row. An accumulate right after a
//!   retraction takes the retracted row's place, so an update changes a row where it stands.
//! - **upsert** on the last operator's grouping key (it emits no UPDATE_BEFORE): an accumulate
//!   replaces the row with the same key (stale or not), a DELETE removes it.
//!
//! A row is marked **stale** when the last operator loses the state of its key without a
//! message (cleanup timer or state TTL): in a retract result nothing will ever retract it; in an
//! upsert result it stays until the key's next row overwrites it.

use super::row::{Message, Row, Value};
use super::sharded_table::ShardedTable;
use super::shared_vec::SharedVec;
use super::time::Millis;
use rustc_hash::FxBuildHasher;
use smallvec::SmallVec;
use std::hash::BuildHasher;
use values::Values;

mod difference;
mod values;

pub use difference::Lacked;

/// One row of the result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ResultRow {
    pub row: Row,
    /// Processing time (ms) since which the state that produced this row is gone, if it is.
    pub stale_since_ms: Option<Millis>,
}

type Slots = SmallVec<[u32; 2]>;

/// A row in its slot: its key's group, and where the slot stands in that group's list.
#[derive(Debug, Clone)]
struct Held {
    row: ResultRow,
    group: u32,
    at: u32,
}

/// The rows of one key (the last operator's state key): their slots, in no order (a slot leaves
/// its list by a swap with the list's last one, so removing a row costs the same however many
/// rows the key has — after a join, or a `Calc` after it, the key may be empty: one group).
#[derive(Debug, Clone)]
struct Group {
    key: Row,
    fresh: Slots,
    stale: Slots,
}

/// The rows, in the order they were added.
///
/// Rows sit in numbered slots (a removed row leaves an empty slot; the table is compacted when
/// more than half of the slots are empty), are grouped by key (for marking a key's rows stale,
/// and for an upsert), and in a retract sink indexed by value: applying a message costs the same
/// however many rows the table or the key holds (a retraction looks its row up by hash), and an
/// update (a retraction, then an accumulate of the same key) looks its key up once.
#[derive(Debug, Clone, Default)]
pub struct ResultTable {
    pub columns: Vec<String>,
    /// The columns holding the key of the last operator's state: rows are grouped by it, and a
    /// group is marked stale when the operator loses that key's state.
    key_columns: SmallVec<[usize; 4]>,
    /// Whether `key_columns` are the leading columns (then a key is a slice of the row).
    key_leading: bool,
    /// In an upsert sink, the further columns that tell a group's rows apart (a Top-N's rank).
    upsert_extra: SmallVec<[usize; 2]>,
    /// Upsert on the key (true) or retract (false).
    pub upsert: bool,
    /// Each row with its group.
    slots: SharedVec<Option<Held>>,
    groups: SharedVec<Group>,
    /// Group numbers by the hash of their key.
    index: ShardedTable<u32>,
    /// A retract sink's rows by value.
    values: Values,
    /// Rows held in each block of [`BLOCK`] slots: a row's place in [`ResultTable::rows`]' order
    /// is found without walking every slot before it ([`ResultTable::positions_of_slots`]).
    live_by_block: Vec<u32>,
    /// Rows held, and how many of them are stale.
    live: usize,
    stale: usize,
    /// Where the last retraction removed a row (slot, group), for the accumulate that may follow it.
    hole: Option<(u32, u32)>,
}

/// Slots a block of [`ResultTable`]'s `live_by_block` counts.
const BLOCK: usize = 64;

/// A row's key: a slice of it when the key columns lead, else their values.
enum Key<'r> {
    Slice(&'r [Value]),
    Owned(SmallVec<[Value; 4]>),
}

impl std::ops::Deref for Key<'_> {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        match self {
            Key::Slice(s) => s,
            Key::Owned(v) => v,
        }
    }
}

fn hash_key(key: &[Value]) -> u64 {
    FxBuildHasher.hash_one(key)
}

impl ResultTable {
    /// A table grouping rows by `key_columns`; an upsert sink (`upsert`) keys a row on
    /// `key_columns` and `upsert_extra`.
    pub fn new(columns: Vec<String>, key_columns: &[usize], upsert_extra: &[usize], upsert: bool) -> Self {
        ResultTable {
            columns,
            key_columns: key_columns.iter().copied().collect(),
            key_leading: key_columns.iter().enumerate().all(|(j, &i)| j == i),
            upsert_extra: upsert_extra.iter().copied().collect(),
            upsert,
            ..ResultTable::default()
        }
    }

    fn key_of<'r>(&self, row: &'r Row) -> Key<'r> {
        if self.key_leading {
            Key::Slice(&row.0[..self.key_columns.len().min(row.0.len())])
        } else {
            Key::Owned(self.key_columns.iter().map(|&i| row.0.get(i).copied().unwrap_or_default()).collect())
        }
    }

    /// The group of `key`, if it has one.
    fn find_group(&self, key: &[Value]) -> Option<u32> {
        let groups = &self.groups;
        let hash = hash_key(key);
        self.index.shard(hash).find(hash, |&g| groups[g as usize].key.0[..] == *key).copied()
    }

    /// The group of `key`, made if it has none.
    fn group(&mut self, key: &[Value]) -> u32 {
        if let Some(g) = self.find_group(key) {
            return g;
        }
        let g = self.groups.len() as u32;
        self.groups.push(Group { key: key.iter().cloned().collect(), fresh: Slots::new(), stale: Slots::new() });
        let (hash, groups) = (hash_key(key), &self.groups);
        self.index.shard_mut(hash).insert_unique(hash, g, |&h| hash_key(&groups[h as usize].key.0));
        g
    }

    /// Puts a row of group `g` into `slot` (a free one, or one past the end).
    fn put(&mut self, slot: u32, g: u32, row: ResultRow) {
        let i = slot as usize;
        if i == self.slots.len() {
            self.slots.push(None);
        }
        let stale = row.stale_since_ms.is_some();
        if !self.upsert {
            self.values.add(&self.slots, &row.row, slot, stale);
        }
        let group = &mut self.groups[g as usize];
        let list = if stale {
            self.stale += 1;
            &mut group.stale
        } else {
            &mut group.fresh
        };
        list.push(slot);
        let at = (list.len() - 1) as u32;
        self.slots[i] = Some(Held { row, group: g, at });
        self.live += 1;
        if self.live_by_block.len() <= i / BLOCK {
            self.live_by_block.resize(i / BLOCK + 1, 0);
        }
        self.live_by_block[i / BLOCK] += 1;
    }

    /// Empties `slot`, dropping it from its group (not from the value index: the caller did).
    fn take(&mut self, slot: u32) -> Option<ResultRow> {
        let Held { row, group: g, at } = self.slots.get_mut(slot as usize)?.take()?;
        self.live -= 1;
        self.live_by_block[slot as usize / BLOCK] -= 1;
        let group = &mut self.groups[g as usize];
        let list = if row.stale_since_ms.is_some() {
            self.stale -= 1;
            &mut group.stale
        } else {
            &mut group.fresh
        };
        list.swap_remove(at as usize);
        if let Some(&moved) = list.get(at as usize) {
            if let Some(h) = self.slots[moved as usize].as_mut() {
                h.at = at;
            }
        }
        Some(row)
    }

    fn end(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Applies one message. Returns `false` when a retraction finds no row to remove (nothing changes).
    pub fn apply(&mut self, message: &Message) -> bool {
        let applied = if self.upsert { self.apply_upsert(message) } else { self.apply_retract(message) };
        if self.hole.is_none()
            && self.slots.len() > 64
            && (self.live * 2 < self.slots.len() || self.groups.len() > 2 * self.live + 64)
        {
            self.compact();
        }
        applied
    }

    /// The row of group `g` an upsert of `row` overwrites: its first fresh row with the same
    /// upsert key, else its first stale one. (A group holds one row per upsert key.)
    fn upsert_slot(&self, g: u32, row: &Row) -> Option<u32> {
        let group = &self.groups[g as usize];
        let same = |s: &&u32| {
            self.slots[**s as usize]
                .as_ref()
                .is_some_and(|h| self.upsert_extra.iter().all(|&i| h.row.row.0.get(i) == row.0.get(i)))
        };
        group.fresh.iter().filter(same).min().or_else(|| group.stale.iter().filter(same).min()).copied()
    }

    /// Upsert on the key: an accumulate replaces the key's row in place, a retraction removes it.
    /// A stale row is the key's row too: the sink holds one row per key, so the key's next row
    /// overwrites it (after an upsert, a lost key's row is right again).
    fn apply_upsert(&mut self, message: &Message) -> bool {
        let key = self.key_of(&message.row);
        let fresh = |row: &Row| ResultRow { row: row.clone(), stale_since_ms: None };
        if !message.change.is_accumulate() {
            let at = self.find_group(&key).and_then(|g| self.upsert_slot(g, &message.row));
            return at.and_then(|slot| self.take(slot)).is_some();
        }
        let g = self.group(&key);
        match self.upsert_slot(g, &message.row) {
            Some(slot) => {
                self.take(slot);
                self.put(slot, g, fresh(&message.row));
            }
            None => self.put(self.end(), g, fresh(&message.row)),
        }
        true
    }

    /// A multiset of rows: an accumulate adds a row (where the last retraction removed one, so an
    /// update changes a row where it stands), a retraction removes the last fresh equal row, or
    /// else the first stale one.
    fn apply_retract(&mut self, message: &Message) -> bool {
        if message.change.is_accumulate() {
            let key = self.key_of(&message.row);
            let (slot, g) = match self.hole.take() {
                // The update's second half: the key just looked up, the slot just emptied.
                Some((h, g)) if self.groups[g as usize].key.0[..] == *key => (h, g),
                Some((h, _)) => (h, self.group(&key)),
                None => (self.end(), self.group(&key)),
            };
            let slot = if self.slots.get(slot as usize).is_some_and(Option::is_none) { slot } else { self.end() };
            self.put(slot, g, ResultRow { row: message.row.clone(), stale_since_ms: None });
            return true;
        }
        let taken = self.values.take(&self.slots, &message.row);
        self.hole = None;
        let slot = taken.and_then(|slot| Some((slot, self.slots.get(slot as usize)?.as_ref()?.group)));
        let Some((slot, g)) = slot else { return false };
        self.take(slot);
        self.hole = Some((slot, g));
        true
    }

    /// Drops the empty slots and the groups without rows, keeping the order of the rows.
    fn compact(&mut self) {
        let rows: Vec<ResultRow> = std::mem::take(&mut self.slots).iter().flatten().map(|h| h.row.clone()).collect();
        self.groups.clear();
        self.index.clear();
        self.values.clear();
        self.live_by_block.clear();
        self.live = 0;
        self.stale = 0;
        for r in rows {
            let key: SmallVec<[Value; 4]> = self.key_of(&r.row).iter().copied().collect();
            let g = self.group(&key);
            self.put(self.end(), g, r);
        }
    }

    /// Marks the rows of `key` stale since `at_ms`: the last operator lost the key's state.
    pub fn mark_stale(&mut self, key: &Row, at_ms: Millis) {
        let key = &key.0[..self.key_columns.len().min(key.0.len())];
        let Some(g) = self.find_group(key) else { return };
        let fresh = std::mem::take(&mut self.groups[g as usize].fresh);
        for slot in fresh {
            let Some(h) = self.slots[slot as usize].as_mut() else { continue };
            h.row.stale_since_ms = Some(at_ms);
            let stale = &mut self.groups[g as usize].stale;
            stale.push(slot);
            h.at = (stale.len() - 1) as u32;
            self.stale += 1;
            if !self.upsert {
                // All equal rows are in this group: they all go stale now.
                self.values.all_stale(&self.slots, slot);
            }
        }
    }

    /// The current rows, in order.
    pub fn rows(&self) -> impl DoubleEndedIterator<Item = &ResultRow> {
        self.slots.iter().flatten().map(|h| &h.row)
    }

    /// The slots (a row's place until it is removed) of the rows of the last operator's `key`,
    /// as [`ResultTable::mark_stale`] takes it: found by hash, whatever the table holds.
    pub fn slots_of_key(&self, key: &Row) -> Vec<u32> {
        let key = &key.0[..self.key_columns.len().min(key.0.len())];
        let Some(g) = self.find_group(key) else { return Vec::new() };
        let group = &self.groups[g as usize];
        group.fresh.iter().chain(&group.stale).copied().collect()
    }

    /// The slots of the rows equal to `row` (they share its key's group).
    pub fn slots_of_row(&self, row: &Row) -> Vec<u32> {
        let Some(g) = self.find_group(&self.key_of(row)) else { return Vec::new() };
        let group = &self.groups[g as usize];
        let equal = |&&s: &&u32| self.in_slot(s).is_some_and(|r| r.row == *row);
        group.fresh.iter().chain(&group.stale).filter(equal).copied().collect()
    }

    /// The row in `slot`, if one is there.
    pub fn in_slot(&self, slot: u32) -> Option<&ResultRow> {
        self.slots.get(slot as usize)?.as_ref().map(|h| &h.row)
    }

    /// Where the rows in `slots` (ascending, each holding a row) stand in [`ResultTable::rows`]'
    /// order: the rows held in the blocks before each one's, then in its block before it.
    pub fn positions_of_slots(&self, slots: &[u32]) -> Vec<usize> {
        let mut out = Vec::with_capacity(slots.len());
        let (mut block, mut before) = (0, 0usize);
        for &slot in slots {
            let b = slot as usize / BLOCK;
            while block < b {
                before += self.live_by_block.get(block).copied().unwrap_or(0) as usize;
                block += 1;
            }
            let within = (b * BLOCK..slot as usize).filter(|&i| self.slots.get(i).is_some_and(Option::is_some)).count();
            out.push(before + within);
        }
        out
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
        let mut t = ResultTable::new(vec!["k".into(), "v".into()], &[0], &[], false);
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
        let mut t = ResultTable::new(vec!["k".into(), "v".into()], &[0], &[], true);
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
        let mut t = ResultTable::new(vec!["k".into(), "v".into()], &[0], &[], false);
        t.apply(&m(true, "a", 1));
        t.mark_stale(&Row::from(vec![Value::str("a")]), 10);
        t.apply(&m(true, "a", 1));
        assert_eq!(rows(&t), ["a,1 stale", "a,1"]);
        t.apply(&m(false, "a", 1));
        assert_eq!(rows(&t), ["a,1 stale"], "a retraction removes the live row, not the stale one");
    }

    #[test]
    fn a_retraction_removes_the_last_fresh_equal_row_else_the_first_stale_one() {
        // No key (a join's output read through a Calc): one group, rows found by value.
        let mut t = ResultTable::new(vec!["k".into(), "v".into()], &[], &[], false);
        for msg in [m(true, "a", 1), m(true, "b", 1), m(true, "a", 1)] {
            t.apply(&msg);
        }
        t.mark_stale(&Row::default(), 5);
        for msg in [m(true, "a", 1), m(true, "c", 1), m(true, "a", 1)] {
            t.apply(&msg);
        }
        assert_eq!(rows(&t), ["a,1 stale", "b,1 stale", "a,1 stale", "a,1", "c,1", "a,1"]);
        t.apply(&m(false, "a", 1));
        assert_eq!(rows(&t), ["a,1 stale", "b,1 stale", "a,1 stale", "a,1", "c,1"]);
        t.apply(&m(false, "a", 1));
        assert_eq!(rows(&t), ["a,1 stale", "b,1 stale", "a,1 stale", "c,1"]);
        t.apply(&m(false, "a", 1));
        assert_eq!(rows(&t), ["b,1 stale", "a,1 stale", "c,1"]);
        assert_eq!((t.len(), t.stale_len()), (3, 2));
    }

    /// The indexes checked against the plain rule (proptest runs natively only).
    #[cfg(not(target_arch = "wasm32"))]
    mod plain_rule {
        use super::*;
        use proptest::prelude::*;

        /// The rule the table keeps, without its indexes: rows in slots, searched one by one.
        struct Naive {
            upsert: bool,
            key: Vec<usize>,
            extra: Vec<usize>,
            slots: Vec<Option<ResultRow>>,
            hole: Option<usize>,
        }

        impl Naive {
            fn project(&self, row: &Row, cols: &[usize]) -> Vec<Value> {
                cols.iter().map(|&i| row.0[i]).collect()
            }
            /// The first fresh (else stale) row for which `f` holds, or the last fresh one.
            fn pick(&self, f: impl Fn(&Row) -> bool, last_fresh: bool) -> Option<usize> {
                let at = |stale: bool| {
                    let mut it = (0..self.slots.len()).filter(|&i| {
                        self.slots[i].as_ref().is_some_and(|r| r.stale_since_ms.is_some() == stale && f(&r.row))
                    });
                    if last_fresh && !stale {
                        it.next_back()
                    } else {
                        it.next()
                    }
                };
                at(false).or_else(|| at(true))
            }
            fn apply(&mut self, msg: &Message) -> bool {
                let row = &msg.row;
                if self.upsert {
                    let cols: Vec<usize> = self.key.iter().chain(&self.extra).copied().collect();
                    let same = |r: &Row| self.project(r, &cols) == self.project(row, &cols);
                    let at = self.pick(same, false);
                    if !msg.change.is_accumulate() {
                        return at.is_some_and(|i| self.slots[i].take().is_some());
                    }
                    let new = Some(ResultRow { row: row.clone(), stale_since_ms: None });
                    match at {
                        Some(i) => self.slots[i] = new,
                        None => self.slots.push(new),
                    }
                    return true;
                }
                if msg.change.is_accumulate() {
                    let new = Some(ResultRow { row: row.clone(), stale_since_ms: None });
                    match self.hole.take() {
                        Some(i) => self.slots[i] = new,
                        None => self.slots.push(new),
                    }
                    return true;
                }
                self.hole = self.pick(|r| r == row, true);
                self.hole.is_some_and(|i| self.slots[i].take().is_some())
            }
            fn mark_stale(&mut self, key: &[Value], at: Millis) {
                for i in 0..self.slots.len() {
                    let Some(r) = &self.slots[i] else { continue };
                    if r.stale_since_ms.is_none() && self.project(&r.row, &self.key) == key {
                        self.slots[i].as_mut().unwrap().stale_since_ms = Some(at);
                    }
                }
            }
        }

        proptest! {
            /// The indexes change no outcome: any mix of accumulates, retractions and losses, on every
            /// key shape (leading, not leading, none) and both sinks, leaves the rows the plain rule leaves.
            #[test]
            fn the_indexes_keep_the_plain_rule(
                shape in 0..5usize,
                ops in prop::collection::vec((0..8u8, 0..3u8, 0..3i64), 1..600),
            ) {
                let (key, extra, upsert): (Vec<usize>, Vec<usize>, bool) = match shape {
                    0 => (vec![0], vec![], false),
                    1 => (vec![], vec![], false),
                    2 => (vec![1], vec![], false),
                    3 => (vec![0], vec![], true),
                    _ => (vec![0], vec![1], true),
                };
                let mut t = ResultTable::new(vec!["k".into(), "v".into()], &key, &extra, upsert);
                let mut n = Naive { upsert, key: key.clone(), extra, slots: Vec::new(), hole: None };
                // Rows pile up in the first half and mostly go in the second (the table compacts).
                let half = ops.len() / 2;
                for (step, (op, k, v)) in ops.into_iter().enumerate() {
                    let k = ["a", "b", "c"][k as usize];
                    let msg = m(op < if step < half { 5 } else { 2 }, k, v);
                    if op == 7 {
                        let row = msg.row;
                        let key_row = Row::from(n.project(&row, &key));
                        t.mark_stale(&key_row, step as Millis);
                        n.mark_stale(&key_row.0, step as Millis);
                    } else {
                        prop_assert_eq!(t.apply(&msg), n.apply(&msg), "step {}", step);
                    }
                    let want: Vec<&ResultRow> = n.slots.iter().flatten().collect();
                    let got: Vec<&ResultRow> = t.rows().collect();
                    prop_assert_eq!(&got, &want, "step {}", step);
                    prop_assert_eq!(t.stale_len(), n.slots.iter().flatten().filter(|r| r.stale_since_ms.is_some()).count());
                    // The lookups by row and by key find the rows a scan finds, at their places (every
                    // 16th step, a few rows spread over the table).
                    let spread = want.len() / 5 + 1;
                    for row in want.iter().step_by(spread).map(|r| &r.row).filter(|_| step % 16 == 0) {
                        let mut slots = t.slots_of_row(row);
                        slots.sort_unstable();
                        let places: Vec<usize> = (0..want.len()).filter(|&r| want[r].row == *row).collect();
                        prop_assert_eq!(t.positions_of_slots(&slots), places, "step {}", step);
                        let key_row = Row::from(n.project(row, &key));
                        let mut by_key = t.slots_of_key(&key_row);
                        by_key.sort_unstable();
                        let places: Vec<usize> =
                            (0..want.len()).filter(|&r| n.project(&want[r].row, &key)[..] == key_row.0[..]).collect();
                        prop_assert_eq!(t.positions_of_slots(&by_key), places, "step {}", step);
                    }
                }
            }
        }
    }
}
