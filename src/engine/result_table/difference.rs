//! How one result differs from another, as rows: Compare marks the rows found on one side only
//! (a multiset comparison of the rows' values; stale flags are not compared).

use super::ResultTable;
use crate::engine::row::Row;

impl ResultTable {
    /// How many of the rows equal `row`, and how many of those sit in slots before `slot`: by
    /// value in a retract sink, within the row's key in an upsert sink (a key holds a row per
    /// upsert key, a Top-N's N rows at most).
    fn count_before(&self, row: &Row, slot: u32) -> (usize, usize) {
        if !self.upsert {
            return self.values.count_before(&self.slots, row, slot);
        }
        let Some(g) = self.find_group(&self.key_of(row)) else { return (0, 0) };
        let group = &self.groups[g as usize];
        let equal = group.fresh.iter().chain(&group.stale).filter(|&&s| self.in_slot(s).is_some_and(|r| r.row == *row));
        equal.fold((0, 0), |(n, before), &s| (n + 1, before + usize::from(s < slot)))
    }

    /// Whether `other` lacks the row in `slot`: equal rows are matched in order, the first as
    /// many as `other` holds are shared.
    fn lacks(&self, other: &ResultTable, slot: u32, row: &Row) -> bool {
        let (_, before) = self.count_before(row, slot);
        let (theirs, _) = other.count_before(row, u32::MAX);
        before >= theirs
    }

    /// For each of the first `n` rows in [`ResultTable::rows`]' order, whether `other` lacks it
    /// (a multiset comparison of the rows' values; stale flags are not compared).
    pub fn lacked_by(&self, other: &ResultTable, n: usize) -> Vec<bool> {
        let held = self.slots.iter().enumerate().filter_map(|(s, h)| h.as_ref().map(|h| (s as u32, &h.row.row)));
        held.take(n).map(|(slot, row)| self.lacks(other, slot, row)).collect()
    }

    /// Counts on, in `lacked`, the rows in the `max` slots from slot `from` on that `other`
    /// lacks (as [`ResultTable::lacked_by`]), keeping the slots of the first `keep` of them;
    /// returns the slot to go on from, `None` past the last. Two lookups by hash a row, no copy
    /// of either result; in parts, as the Top-N pair has 334 676 rows a side at its end: 68–78
    /// ms natively for the rows of one side, a long task in a page (trial 24: a map of every
    /// row's text was a 270 ms task in each render of Compare).
    pub fn count_lacked_by(
        &self,
        other: &ResultTable,
        from: usize,
        max: usize,
        lacked: &mut Lacked,
        keep: usize,
    ) -> Option<usize> {
        let end = from.saturating_add(max).min(self.slots.len());
        for slot in from..end {
            if let Some(held) = &self.slots[slot] {
                if self.lacks(other, slot as u32, &held.row.row) {
                    lacked.count += 1;
                    if lacked.slots.len() < keep {
                        lacked.slots.push(slot as u32);
                    }
                }
            }
        }
        (end < self.slots.len()).then_some(end)
    }
}

/// The rows of a result another lacks, as [`ResultTable::count_lacked_by`] counts them: how
/// many, and the slots of the first ones ([`ResultTable::in_slot`]), in the result's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lacked {
    pub count: usize,
    pub slots: Vec<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::{Change, Message, RowKind, Value};

    fn row(k: &str, v: i64) -> Row {
        Row::from(vec![Value::str(k), Value::Int(v)])
    }

    fn retract(rows: &[(&str, i64)]) -> ResultTable {
        let mut t = ResultTable::new(vec!["k".into(), "v".into()], &[0], &[], false);
        for &(k, v) in rows {
            assert!(t.apply(&Message::new(Change::Legacy(true), row(k, v))));
        }
        t
    }

    /// Both of what Compare asks, checked against each other: the flags of every row, and the
    /// count in parts of `part` slots with the first lacked rows.
    fn difference(a: &ResultTable, b: &ResultTable, part: usize) -> (usize, Vec<bool>) {
        let flags = a.lacked_by(b, usize::MAX);
        let (mut lacked, mut from) = (Lacked::default(), Some(0));
        while let Some(f) = from {
            from = a.count_lacked_by(b, f, part, &mut lacked, 1);
        }
        assert_eq!(lacked.count, flags.iter().filter(|&&f| f).count());
        assert_eq!(a.lacked_by(b, 2), flags[..2.min(flags.len())]);
        // The first lacked row kept is the first flagged one.
        let first = flags.iter().position(|&f| f);
        let kept =
            lacked.slots.first().map(|&s| a.rows().position(|r| std::ptr::eq(r, a.in_slot(s).unwrap())).unwrap());
        assert_eq!(kept, first);
        (lacked.count, flags)
    }

    #[test]
    fn equal_rows_are_matched_in_order_as_a_multiset() {
        let a = retract(&[("a", 1), ("b", 1), ("a", 1), ("c", 2), ("a", 1)]);
        let b = retract(&[("a", 1), ("c", 2), ("d", 9), ("a", 1)]);
        // a,1 three times here and twice there: the third is here only; b,1 is here only.
        assert_eq!(difference(&a, &b, 2), (2, vec![false, true, false, false, true]));
        assert_eq!(difference(&b, &a, 3), (1, vec![false, false, true, false]));
        assert_eq!(difference(&a, &a, 1).0, 0);
    }

    #[test]
    fn an_upsert_result_is_compared_within_each_key() {
        let mut a = ResultTable::new(vec!["k".into(), "v".into()], &[0], &[], true);
        let mut b = a.clone();
        let insert =
            |t: &mut ResultTable, k: &str, v: i64| t.apply(&Message::new(Change::Kind(RowKind::Insert), row(k, v)));
        insert(&mut a, "x", 1);
        insert(&mut a, "y", 2);
        insert(&mut b, "y", 2);
        insert(&mut b, "x", 3);
        assert_eq!(difference(&a, &b, 1), (1, vec![true, false]));
        // A retract result against an upsert one: rows compared by value either way.
        let r = retract(&[("y", 2), ("x", 1)]);
        assert_eq!(difference(&r, &a, 5), (0, vec![false, false]));
        assert_eq!(difference(&r, &b, 5), (1, vec![false, true]));
    }
}
