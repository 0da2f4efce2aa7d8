//! The result table at the end of the pipeline: the final rows after applying the changelog,
//! as Flink's SQL client shows a query result in table mode
//! (`MaterializedCollectStreamResult`: accumulate messages add a row, retract messages remove
//! one equal row). An accumulate right after a retraction takes the retracted row's place, so an
//! update (`-U`/`+U`, `(false,..)`/`(true,..)`) changes a row where it stands.

use super::row::{Message, Row};

/// Rows in the order they were added; duplicates are kept (a multiset without a primary key).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultTable {
    pub columns: Vec<String>,
    rows: Vec<Row>,
    /// Where the last retraction removed a row, for the accumulate that may follow it.
    hole: Option<usize>,
}

impl ResultTable {
    pub fn new(columns: Vec<String>) -> Self {
        ResultTable { columns, rows: Vec::new(), hole: None }
    }

    /// Applies one message. Returns `false` when a retraction finds no equal row (nothing changes).
    pub fn apply(&mut self, message: &Message) -> bool {
        if message.change.is_accumulate() {
            let at = self.hole.take().unwrap_or(self.rows.len()).min(self.rows.len());
            self.rows.insert(at, message.row.clone());
            true
        } else if let Some(i) = self.rows.iter().position(|r| *r == message.row) {
            self.rows.remove(i);
            self.hole = Some(i);
            true
        } else {
            self.hole = None;
            false
        }
    }

    /// The current rows.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::{Change, Value};

    fn m(change: bool, k: &str, v: i64) -> Message {
        Message::new(Change::Legacy(change), Row(vec![Value::Str(k.into()), Value::Int(v)]))
    }

    #[test]
    fn updates_in_place_and_reports_missing_rows() {
        let mut t = ResultTable::new(vec!["k".into(), "v".into()]);
        for msg in [m(true, "a", 1), m(true, "b", 1), m(false, "a", 1), m(true, "a", 2)] {
            assert!(t.apply(&msg));
        }
        assert_eq!(t.rows(), [m(true, "a", 2).row, m(true, "b", 1).row]);
        assert!(!t.apply(&m(false, "c", 1)));
        assert!(t.apply(&m(false, "b", 1)));
        assert_eq!(t.rows(), [m(true, "a", 2).row]);
    }
}
