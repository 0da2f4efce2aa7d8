//! The result table at the end of the pipeline: the final rows after applying the changelog,
//! as Flink's SQL client shows a query result in table mode
//! (`MaterializedCollectStreamResult`: accumulate messages add a row, retract messages remove
//! one equal row).

use super::row::{Message, Row};

/// Rows in the order they were added; duplicates are kept (a multiset without a primary key).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultTable {
    pub columns: Vec<String>,
    rows: Vec<Row>,
}

impl ResultTable {
    pub fn new(columns: Vec<String>) -> Self {
        ResultTable { columns, rows: Vec::new() }
    }

    /// Applies one message. Returns `false` when a retraction finds no equal row (nothing changes).
    pub fn apply(&mut self, message: &Message) -> bool {
        if message.change.is_accumulate() {
            self.rows.push(message.row.clone());
            true
        } else if let Some(i) = self.rows.iter().position(|r| *r == message.row) {
            self.rows.remove(i);
            true
        } else {
            false
        }
    }

    /// The current rows.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }
}
