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

use super::row::{Message, Row};
use super::time::Millis;

/// One row of the result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ResultRow {
    pub row: Row,
    /// Processing time (ms) since which the state that produced this row is gone, if it is.
    pub stale_since_ms: Option<Millis>,
}

/// The rows, in the order they were added.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultTable {
    pub columns: Vec<String>,
    /// How many leading columns are the last operator's grouping key.
    key_len: usize,
    /// Upsert on the key (true) or retract (false).
    pub upsert: bool,
    rows: Vec<ResultRow>,
    /// Where the last retraction removed a row, for the accumulate that may follow it.
    hole: Option<usize>,
}

impl ResultTable {
    pub fn new(columns: Vec<String>, key_len: usize, upsert: bool) -> Self {
        ResultTable { columns, key_len, upsert, rows: Vec::new(), hole: None }
    }

    fn key_of<'a>(&self, row: &'a Row) -> &'a [crate::engine::row::Value] {
        &row.0[..self.key_len.min(row.0.len())]
    }

    /// Applies one message. Returns `false` when a retraction finds no row to remove (nothing changes).
    pub fn apply(&mut self, message: &Message) -> bool {
        let fresh = |row: &Row| ResultRow { row: row.clone(), stale_since_ms: None };
        if self.upsert {
            let key = self.key_of(&message.row).to_vec();
            let at = self.rows.iter().position(|r| r.stale_since_ms.is_none() && self.key_of(&r.row) == key);
            return match (message.change.is_accumulate(), at) {
                (true, Some(i)) => {
                    self.rows[i] = fresh(&message.row);
                    true
                }
                (true, None) => {
                    self.rows.push(fresh(&message.row));
                    true
                }
                (false, Some(i)) => {
                    self.rows.remove(i);
                    true
                }
                (false, None) => false,
            };
        }
        if message.change.is_accumulate() {
            let at = self.hole.take().unwrap_or(self.rows.len()).min(self.rows.len());
            self.rows.insert(at, fresh(&message.row));
            true
        } else if let Some(i) = self
            .rows
            .iter()
            .rposition(|r| r.row == message.row && r.stale_since_ms.is_none())
            .or_else(|| self.rows.iter().position(|r| r.row == message.row))
        {
            self.rows.remove(i);
            self.hole = Some(i);
            true
        } else {
            self.hole = None;
            false
        }
    }

    /// Marks the rows of `key` stale since `at_ms`: the last operator lost the key's state.
    pub fn mark_stale(&mut self, key: &Row, at_ms: Millis) {
        let key_len = self.key_len;
        for r in &mut self.rows {
            if r.stale_since_ms.is_none() && r.row.0.get(..key_len) == Some(&key.0[..]) {
                r.stale_since_ms = Some(at_ms);
            }
        }
    }

    /// The current rows.
    pub fn rows(&self) -> &[ResultRow] {
        &self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::{Change, RowKind, Value};

    fn m(change: bool, k: &str, v: i64) -> Message {
        Message::new(Change::Legacy(change), Row(vec![Value::Str(k.into()), Value::Int(v)]))
    }

    fn rows(t: &ResultTable) -> Vec<String> {
        t.rows()
            .iter()
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
            Message::new(Change::Kind(k), Row(vec![Value::Str(key.into()), Value::Int(v)]))
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
        t.mark_stale(&Row(vec![Value::Str("a".into())]), 10);
        t.apply(&m(true, "a", 1));
        assert_eq!(rows(&t), ["a,1 stale", "a,1"]);
        t.apply(&m(false, "a", 1));
        assert_eq!(rows(&t), ["a,1 stale"], "a retraction removes the live row, not the stale one");
    }
}
