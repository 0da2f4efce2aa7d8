//! `MIN` and `MAX`, over an append-only input and with retraction.
//!
//! - Append-only input: `MinAggFunction` / `MaxAggFunction` (declarative, Flink 1.x–2.x): the
//!   extreme of the non-NULL values, NULL until one arrives.
//! - Retracting input: `MinWithRetractAggFunction` / `MaxWithRetractAggFunction`
//!   (`flink-table-runtime/.../functions/aggregate/`, Flink 2.x, read from the source): the
//!   accumulator is `{min|max, mapSize, map: MapView<value, count>}`. Accumulate: when
//!   `mapSize == 0` or the value beats the extreme, it becomes the extreme; its count goes up by
//!   one (an entry whose count returns to 0 is removed; `mapSize` grows when a count becomes 1).
//!   Retract: its count goes down by one; at 0 the entry goes, `mapSize` shrinks, the extreme
//!   becomes NULL when `mapSize` is 0, or is searched again over **all** the map's keys when the
//!   retracted value was the extreme (`updateMin`/`updateMax`, which also sees keys whose count
//!   went negative); a count that is not 0 is stored, negative ones included (a retraction of a
//!   value never accumulated). The value is the extreme when `mapSize > 0`, else NULL.
//!
//! The map is held inside the accumulator; Flink keeps it in a `MapView` backed by `MapState`,
//! whose entries expire one by one under state TTL (not modelled yet: here they expire with the
//! accumulator).

use crate::engine::row::Value;
use std::collections::BTreeMap;

/// Which extreme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extreme {
    Min,
    Max,
}

impl Extreme {
    /// Whether `candidate` beats `current` (`compareTo` > 0 for MIN, < 0 for MAX).
    fn beats(self, candidate: &Value, current: &Value) -> bool {
        match self {
            Extreme::Min => candidate < current,
            Extreme::Max => candidate > current,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Extreme::Min => "MIN",
            Extreme::Max => "MAX",
        }
    }
}

/// `MinAggFunction` / `MaxAggFunction` accumulate: NULLs are ignored.
pub fn accumulate_append(which: Extreme, extreme: &mut Value, v: Value) {
    if v != Value::Null && (*extreme == Value::Null || which.beats(&v, extreme)) {
        *extreme = v;
    }
}

/// The accumulator of `MinWithRetractAggFunction` / `MaxWithRetractAggFunction`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WithRetract {
    pub extreme: Value,
    pub map_size: i64,
    pub map: BTreeMap<Value, i64>,
}

impl WithRetract {
    pub fn accumulate(&mut self, which: Extreme, v: Value) {
        if v == Value::Null {
            return;
        }
        if self.map_size == 0 || which.beats(&v, &self.extreme) {
            self.extreme = v;
        }
        let count = self.map.get(&v).copied().unwrap_or(0) + 1;
        if count == 0 {
            self.map.remove(&v);
        } else {
            self.map.insert(v, count);
        }
        if count == 1 {
            self.map_size += 1;
        }
    }

    pub fn retract(&mut self, which: Extreme, v: Value) {
        if v == Value::Null {
            return;
        }
        let count = self.map.get(&v).copied().unwrap_or(0) - 1;
        if count == 0 {
            self.map.remove(&v);
            self.map_size -= 1;
            if self.map_size == 0 {
                self.extreme = Value::Null;
                return;
            }
            if v == self.extreme {
                self.update_extreme(which);
            }
        } else {
            self.map.insert(v, count);
        }
    }

    /// `updateMin` / `updateMax`: the extreme of every key in the map.
    fn update_extreme(&mut self, which: Extreme) {
        let mut found = None;
        for key in self.map.keys() {
            if found.is_none_or(|f| which.beats(key, f)) {
                found = Some(key);
            }
        }
        match found {
            Some(k) => self.extreme = *k,
            None => {
                self.map_size = 0;
                self.extreme = Value::Null;
            }
        }
    }

    /// `merge(acc, its)` with one other accumulator (`MaxWithRetractAggFunction.merge`, Flink
    /// 2.3; `MinWithRetractAggFunction` mirrors it): the other's extreme wins when this map is
    /// empty or it beats this one; counts add up key by key, an entry leaving the positive side
    /// shrinks `mapSize` (and forces a new search when it was the extreme), one reaching it grows
    /// `mapSize`.
    pub fn merge(&mut self, which: Extreme, other: &WithRetract) {
        let mut need_update = false;
        if self.map_size == 0
            || (other.map_size > 0 && other.extreme != Value::Null && which.beats(&other.extreme, &self.extreme))
        {
            self.extreme = other.extreme;
        }
        for (key, &other_count) in &other.map {
            let this_count = self.map.get(key).copied().unwrap_or(0);
            let merged = other_count + this_count;
            if merged == 0 {
                self.map.remove(key);
            } else {
                self.map.insert(*key, merged);
            }
            if merged <= 0 && this_count > 0 {
                self.map_size -= 1;
                need_update |= *key == self.extreme;
            } else if merged > 0 && this_count <= 0 {
                self.map_size += 1;
            }
        }
        if need_update {
            self.update_extreme(which);
        }
    }

    /// `getValue(acc)`.
    pub fn value(&self) -> Value {
        if self.map_size > 0 {
            self.extreme
        } else {
            Value::Null
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_falls_back_to_the_previous_extreme() {
        let mut acc = WithRetract::default();
        for v in [5, 9, 5] {
            acc.accumulate(Extreme::Max, Value::Int(v));
        }
        assert_eq!(acc.value(), Value::Int(9));
        acc.retract(Extreme::Max, Value::Int(9));
        assert_eq!(acc.value(), Value::Int(5), "9 gone: the map still holds 5 twice");
        acc.retract(Extreme::Max, Value::Int(5));
        acc.retract(Extreme::Max, Value::Int(5));
        assert_eq!((acc.value(), acc.map_size), (Value::Null, 0));
    }

    #[test]
    fn a_retraction_never_accumulated_leaves_a_negative_count() {
        let mut acc = WithRetract::default();
        acc.retract(Extreme::Min, Value::Int(3));
        assert_eq!((acc.map.get(&Value::Int(3)), acc.map_size, acc.value()), (Some(&-1), 0, Value::Null));
        acc.accumulate(Extreme::Min, Value::Int(3));
        assert!(acc.map.is_empty(), "the count returns to 0 and the entry goes");
        assert_eq!(acc.value(), Value::Null, "mapSize stayed 0: the count never became 1");
    }
}
