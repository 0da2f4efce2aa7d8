//! `COUNT(DISTINCT x)`: the distinct values of a key, as Flink's planner generates them
//! (`DistinctAggCodeGen`, Flink 1.10–2.x, read from the source).
//!
//! The distinct values sit in a `MapView<value, v>` beside the inner aggregate (`COUNT(x)`, which
//! ignores NULL, so a NULL value is tracked but never counted):
//! - append-only input (`LongValueWithoutRetractionGenerator`): `v` is a bit set; the inner
//!   aggregate accumulates the first time a value is seen, never again;
//! - retracting input (`LongValueWithRetractionGenerator`, one distinct aggregate): `v` counts the
//!   value's rows; the inner aggregate accumulates when the count becomes 1 and retracts when it
//!   returns to 0; an entry whose count is 0 is removed, a negative count is stored.
//!
//! The map is held inside the accumulator (Flink's `MapView` entries expire one by one under state
//! TTL: not modelled yet).

use crate::engine::row::Value;
use std::collections::BTreeMap;

/// The accumulator: each distinct value's count (or `1` for "seen", append-only), and the inner
/// `COUNT(x)`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Distinct {
    pub values: BTreeMap<Value, i64>,
    pub count: i64,
}

impl Distinct {
    /// Append-only: the first sight of a value accumulates the inner count.
    pub fn accumulate_append(&mut self, v: Value) {
        if let std::collections::btree_map::Entry::Vacant(e) = self.values.entry(v) {
            e.insert(1);
            if v != Value::Null {
                self.count += 1;
            }
        }
    }

    /// Retracting input: count the value's rows.
    pub fn accumulate(&mut self, v: Value) {
        let c = self.values.get(&v).copied().unwrap_or(0) + 1;
        if c == 1 && v != Value::Null {
            self.count += 1;
        }
        self.store(v, c);
    }

    pub fn retract(&mut self, v: Value) {
        let c = self.values.get(&v).copied().unwrap_or(0) - 1;
        if c == 0 && v != Value::Null {
            self.count -= 1;
        }
        self.store(v, c);
    }

    /// `merge` of `DistinctAggCodeGen` with an append-only input (`LongValueWithoutRetractionGenerator`):
    /// a value seen by `other` but not here accumulates the inner `COUNT(x)`; the bits are OR-ed.
    pub fn merge_append(&mut self, other: &Distinct) {
        for v in other.values.keys() {
            self.accumulate_append(*v);
        }
    }

    /// `merge` of `DistinctAggCodeGen` with a retracting input (`LongValueWithRetractionGenerator`):
    /// counts add up; the inner `COUNT(x)` retracts when a positive count drops to 0 or below and
    /// accumulates when a count at or below 0 becomes positive; a 0 count removes the entry.
    pub fn merge(&mut self, other: &Distinct) {
        for (&v, &other_count) in &other.values {
            let this_count = self.values.get(&v).copied().unwrap_or(0);
            let merged = this_count + other_count;
            if v != Value::Null {
                if merged <= 0 && this_count > 0 {
                    self.count -= 1;
                } else if merged > 0 && this_count <= 0 {
                    self.count += 1;
                }
            }
            self.store(v, merged);
        }
    }

    fn store(&mut self, v: Value, c: i64) {
        if c == 0 {
            self.values.remove(&v);
        } else {
            self.values.insert(v, c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_distinct_non_null_values_and_follows_retractions() {
        let mut d = Distinct::default();
        for v in [Value::Int(5), Value::Int(5), Value::Null, Value::Int(7)] {
            d.accumulate(v);
        }
        assert_eq!(d.count, 2);
        d.retract(Value::Int(5));
        assert_eq!(d.count, 2, "5 still has a row");
        d.retract(Value::Int(5));
        assert_eq!(d.count, 1);
        let mut a = Distinct::default();
        for v in [Value::Int(3), Value::Int(3), Value::Null] {
            a.accumulate_append(v);
        }
        assert_eq!(a.count, 1);
    }
}
