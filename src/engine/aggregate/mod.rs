//! Aggregate functions: how each one accumulates and retracts a row.
//!
//! Each function cites the Flink class it models. Accumulators are plain values; the operator
//! keeps one list of accumulators per key (its `GroupAggregateState` / `accState`).
//! `MIN`/`MAX` live in [`min_max`], `COUNT(DISTINCT)` in [`distinct`].

pub mod distinct;
pub mod min_max;

use super::row::{Column, Row, Value};
use distinct::Distinct;
use min_max::{Extreme, WithRetract};
use smallvec::{smallvec, SmallVec};

/// The accumulators of one key, one per aggregate call (inline for up to two calls).
pub type Accumulators = SmallVec<[Accumulator; 2]>;

/// `name: accumulator` for each aggregate, for the page: `cnt: 3, s: sum=6 count=3`.
pub fn describe_accumulators(names: &[Column], accs: &[Accumulator]) -> String {
    names.iter().zip(accs).map(|(n, a)| format!("{}: {}", n.name, a.describe())).collect::<Vec<_>>().join(", ")
}

/// An aggregate call with its argument columns resolved to input indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AggCall {
    /// `COUNT(*)` — `Count1AggFunction` (Flink 2.x), legacy `CountAggFunction` on `*`:
    /// `+1` on accumulate, `-1` on retract; NULLs count.
    CountStar,
    /// `COUNT(x)` — `CountAggFunction`: like `COUNT(*)` but a NULL operand changes nothing.
    Count(usize),
    /// `SUM(x)` — `SumWithRetractAggFunction`: accumulator (`sum`, `count`); NULL operands are
    /// ignored; the value is NULL when `count == 0`. The sum has the operand's type and wraps
    /// around as Java's `int` (`INT`) or `long` (`BIGINT`) arithmetic does. With `zero`, `$SUM0(x)`
    /// — `Sum0AggFunction` (`IntSum0AggFunction`, …): the same sum, 0 instead of NULL when nothing
    /// was summed. Calcite writes `SUM(x) OVER w` as `CASE(COUNT(x) OVER w > 0, $SUM0(x) OVER w,
    /// NULL)` (`RexBuilder.makeOver` with `nullWhenCountZero`), so windows run `$SUM0`.
    Sum { arg: usize, int32: bool, zero: bool },
    /// `LAST_VALUE(x)` — `LastValueAggFunction` (Flink 2.x): the last non-NULL value. Without
    /// retraction (Flink picks `LastValueWithRetractAggFunction` for retracting input; not modelled yet).
    LastValue(usize),
    /// The seed-004 user-defined aggregate `latestTimeUdf(status, times)` (`LatestTimeUdf extends
    /// AggregateFunction<Integer, TimeAndStatus>`): keeps the value whose time is the largest;
    /// `if (time > acc.times) { acc.status = status; acc.times = time }`, with `acc.times` starting
    /// at 0 (Java's default for a `long` field). It defines no `retract`.
    LatestByTime { value: usize, time: usize },
    /// `MIN(x)` / `MAX(x)` — `MinAggFunction`/`MaxAggFunction` over an append-only input,
    /// `MinWithRetractAggFunction`/`MaxWithRetractAggFunction` over a retracting one ([`min_max`]).
    Extreme { which: Extreme, arg: usize, retract: bool },
    /// `COUNT(DISTINCT x)` — a distinct `MapView` around `COUNT(x)` ([`distinct`]).
    CountDistinct { arg: usize, retract: bool },
}

/// One aggregate's accumulator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accumulator {
    Count(i64),
    Sum {
        sum: Option<i64>,
        count: i64,
    },
    LastValue(Value),
    LatestByTime {
        value: Value,
        time: i64,
    },
    /// The extreme so far (NULL before any value).
    Extreme(Value),
    ExtremeWithRetract(Box<WithRetract>),
    Distinct(Box<Distinct>),
}

impl AggCall {
    /// What its plan text leaves unsaid: `LATEST_BY_TIME` prints like a built-in, but is seed
    /// 004's user-defined aggregate. Flink prints a user-defined function's call by the name it
    /// was registered under (`tests/conformance` registers the UDAF as `LATEST_BY_TIME`, and
    /// real Flink 2.3 prints `LATEST_BY_TIME(status, times)`).
    pub fn plan_note(&self) -> Option<&'static str> {
        match self {
            AggCall::LatestByTime { .. } => Some(
                "LATEST_BY_TIME is not a Flink built-in: it is seed 004's user-defined aggregate function \
                 LatestTimeUdf (the seed registers it as latestTimeUdf; Flink prints a user-defined function \
                 by the name it is registered under). Register it in Flink to run this plan.",
            ),
            _ => None,
        }
    }

    /// Flink's name for the call, with argument names: `COUNT(*)`, `SUM(v)`, `LATEST_BY_TIME(status, times)`.
    pub fn display(&self, input_names: &[String]) -> String {
        let n = |i: usize| input_names.get(i).cloned().unwrap_or_else(|| format!("${i}"));
        match self {
            AggCall::CountStar => "COUNT(*)".into(),
            AggCall::Count(i) => format!("COUNT({})", n(*i)),
            AggCall::Sum { arg, zero, .. } => format!("{}({})", if *zero { "$SUM0" } else { "SUM" }, n(*arg)),
            AggCall::LastValue(i) => format!("LAST_VALUE({})", n(*i)),
            AggCall::LatestByTime { value, time } => {
                format!("LATEST_BY_TIME({}, {})", n(*value), n(*time))
            }
            AggCall::Extreme { which, arg, retract } => {
                format!("{}{}({})", which.name(), if *retract { "_RETRACT" } else { "" }, n(*arg))
            }
            AggCall::CountDistinct { arg, retract } => {
                format!("COUNT{}(DISTINCT {})", if *retract { "_RETRACT" } else { "" }, n(*arg))
            }
        }
    }

    /// The input columns it reads (`AggregateCall.getArgList`).
    pub fn args(&self) -> SmallVec<[usize; 2]> {
        match *self {
            AggCall::CountStar => SmallVec::new(),
            AggCall::Count(i) | AggCall::LastValue(i) => smallvec![i],
            AggCall::Sum { arg, .. } | AggCall::Extreme { arg, .. } | AggCall::CountDistinct { arg, .. } => {
                smallvec![arg]
            }
            AggCall::LatestByTime { value, time } => smallvec![value, time],
        }
    }

    /// Whether the function has a `retract` method (so it may consume a retracting input).
    pub fn supports_retraction(&self) -> bool {
        matches!(self, AggCall::CountStar | AggCall::Count(_) | AggCall::Sum { .. })
            || matches!(self, AggCall::Extreme { retract: true, .. } | AggCall::CountDistinct { retract: true, .. })
    }

    /// Whether the function can merge accumulators (`AggregateUtil.doAllSupportPartialMerge`,
    /// Flink 2.3): declarative functions always can (`COUNT`, `SUM`, append-only `MIN`/`MAX`,
    /// and `COUNT(DISTINCT)`, whose distinct map `DistinctAggCodeGen` merges), imperative ones when
    /// they define `merge` (`MinWithRetractAggFunction`/`MaxWithRetractAggFunction` do;
    /// `LastValueAggFunction`, `LastValueWithRetractAggFunction` and the seed's `LatestTimeUdf`
    /// do not).
    pub fn supports_merge(&self) -> bool {
        !matches!(self, AggCall::LastValue(_) | AggCall::LatestByTime { .. })
    }

    /// The names of the accumulator fields a local aggregation emits for this call, numbered
    /// from `*next` (`AggregateUtil`'s buffer names: a declarative function's
    /// `aggBufferAttributes`, an imperative one's lower-cased name): `count1$0`,
    /// `(sum$1, count$2)`.
    pub fn buffer_names(&self, retract: bool, next: &mut usize) -> String {
        let mut name = |n: &str| {
            let s = format!("{n}${}", *next);
            *next += 1;
            s
        };
        match self {
            AggCall::CountStar => name("count1"),
            AggCall::Count(_) | AggCall::CountDistinct { .. } => name("count"),
            AggCall::Sum { .. } if retract => {
                let (s, c) = (name("sum"), name("count"));
                format!("({s}, {c})")
            }
            AggCall::Sum { .. } => name("sum"),
            AggCall::Extreme { which, .. } => name(&which.name().to_lowercase()),
            AggCall::LastValue(_) => name("last_value"),
            AggCall::LatestByTime { .. } => name("latest_by_time"),
        }
    }

    /// `merge(acc, other)`: folds another accumulator of this call in, as the global phase of a
    /// two-phase aggregation does with the local phase's (each function's `merge`, Flink 2.3).
    ///
    /// # Errors
    /// For a function without `merge` (the planner never splits such an aggregation).
    pub fn merge(&self, acc: &mut Accumulator, other: &Accumulator) -> Result<(), String> {
        match (self, acc, other) {
            (AggCall::CountStar | AggCall::Count(_), Accumulator::Count(c), Accumulator::Count(o)) => *c += o,
            // `SumWithRetractAggFunction.mergeExpressions`: sum = other NULL ? sum : sum NULL ?
            // other : sum + other; count = count + other.count.
            (AggCall::Sum { int32, .. }, Accumulator::Sum { sum, count }, Accumulator::Sum { sum: o, count: oc }) => {
                if let Some(o) = o {
                    let next = sum.map_or(*o, |s| s.wrapping_add(*o));
                    *sum = Some(if *int32 { i64::from(next as i32) } else { next });
                }
                *count += oc;
            }
            (AggCall::Extreme { which, .. }, Accumulator::Extreme(e), Accumulator::Extreme(o)) => {
                min_max::accumulate_append(*which, e, *o);
            }
            (
                AggCall::Extreme { which, .. },
                Accumulator::ExtremeWithRetract(a),
                Accumulator::ExtremeWithRetract(o),
            ) => {
                a.merge(*which, o);
            }
            (AggCall::CountDistinct { retract, .. }, Accumulator::Distinct(a), Accumulator::Distinct(o)) => {
                if *retract {
                    a.merge(o);
                } else {
                    a.merge_append(o);
                }
            }
            (call, acc, _) => return Err(format!("{call:?} cannot merge accumulator {acc:?}")),
        }
        Ok(())
    }

    /// `createAccumulator()`.
    pub fn create_accumulator(&self) -> Accumulator {
        match self {
            AggCall::CountStar | AggCall::Count(_) => Accumulator::Count(0),
            AggCall::Sum { .. } => Accumulator::Sum { sum: None, count: 0 },
            AggCall::LastValue(_) => Accumulator::LastValue(Value::Null),
            AggCall::LatestByTime { .. } => Accumulator::LatestByTime { value: Value::Null, time: 0 },
            AggCall::Extreme { retract: false, .. } => Accumulator::Extreme(Value::Null),
            AggCall::Extreme { retract: true, .. } => Accumulator::ExtremeWithRetract(Box::default()),
            AggCall::CountDistinct { .. } => Accumulator::Distinct(Box::default()),
        }
    }

    /// `accumulate(acc, input)`.
    ///
    /// # Errors
    /// A message when Flink would throw (a NULL time for `LATEST_BY_TIME`, whose Java UDAF
    /// unboxes it), or when a value has the wrong type for the function.
    pub fn accumulate(&self, acc: &mut Accumulator, input: &Row) -> Result<(), String> {
        self.apply(acc, input, 1)
    }

    /// `retract(acc, input)`.
    ///
    /// # Errors
    /// As [`AggCall::accumulate`], and for functions without `retract` (the pipeline rejects
    /// such a plan before it runs, as Flink's planner does).
    pub fn retract(&self, acc: &mut Accumulator, input: &Row) -> Result<(), String> {
        // `MinAggFunction`/`MaxAggFunction` declare an empty retract (see `apply`).
        if !self.supports_retraction() && !matches!(self, AggCall::Extreme { .. }) {
            return Err(format!("{self:?} has no retract method"));
        }
        self.apply(acc, input, -1)
    }

    fn apply(&self, acc: &mut Accumulator, input: &Row, sign: i64) -> Result<(), String> {
        let at = |i: usize| input.0.get(i).cloned().unwrap_or(Value::Null);
        match (self, acc) {
            (AggCall::CountStar, Accumulator::Count(c)) => *c += sign,
            (AggCall::Count(i), Accumulator::Count(c)) => {
                if at(*i) != Value::Null {
                    *c += sign;
                }
            }
            (AggCall::Sum { arg, int32, .. }, Accumulator::Sum { sum, count }) => match at(*arg) {
                Value::Null => {}
                Value::Int(v) => {
                    let next = sum.unwrap_or(0).wrapping_add(sign.wrapping_mul(v));
                    *sum = Some(if *int32 { i64::from(next as i32) } else { next });
                    *count += sign;
                }
                other => {
                    return Err(format!(
                        "SUM expects a number, found {}",
                        crate::engine::error::quote(&other.to_string())
                    ))
                }
            },
            (AggCall::LastValue(i), Accumulator::LastValue(last)) => {
                let v = at(*i);
                if v != Value::Null {
                    *last = v;
                }
            }
            (AggCall::LatestByTime { value, time }, Accumulator::LatestByTime { value: acc_value, time: acc_time }) => {
                match at(*time) {
                    Value::Int(t) => {
                        if t > *acc_time {
                            *acc_value = at(*value);
                            *acc_time = t;
                        }
                    }
                    Value::Null => {
                        return Err("LATEST_BY_TIME: the time argument is NULL (the seed's Java UDAF \
                                    would throw a NullPointerException unboxing it)"
                            .into())
                    }
                    other => {
                        return Err(format!(
                            "LATEST_BY_TIME expects a BIGINT time, found {}",
                            crate::engine::error::quote(&other.to_string())
                        ))
                    }
                }
            }
            (AggCall::Extreme { which, arg, .. }, Accumulator::Extreme(extreme)) => {
                // `MinAggFunction`/`MaxAggFunction.retractExpressions()` is empty (Flink 2.3): a
                // retraction the planner found harmless (`deriveAggCallNeedRetractions`) changes
                // nothing.
                if sign > 0 {
                    min_max::accumulate_append(*which, extreme, at(*arg));
                }
            }
            (AggCall::Extreme { which, arg, .. }, Accumulator::ExtremeWithRetract(acc)) => {
                if sign > 0 {
                    acc.accumulate(*which, at(*arg));
                } else {
                    acc.retract(*which, at(*arg));
                }
            }
            (AggCall::CountDistinct { arg, retract }, Accumulator::Distinct(acc)) => match (retract, sign > 0) {
                (false, _) => acc.accumulate_append(at(*arg)),
                (true, true) => acc.accumulate(at(*arg)),
                (true, false) => acc.retract(at(*arg)),
            },
            (call, acc) => return Err(format!("accumulator {acc:?} does not belong to {call:?}")),
        }
        Ok(())
    }

    /// `getValue(acc)`.
    pub fn get_value(&self, acc: &Accumulator) -> Value {
        match acc {
            Accumulator::Count(c) => Value::Int(*c),
            Accumulator::Sum { sum, .. } if matches!(self, AggCall::Sum { zero: true, .. }) => {
                Value::Int(sum.unwrap_or(0))
            }
            Accumulator::Sum { sum, count } => match (count, sum) {
                (0, _) | (_, None) => Value::Null,
                (_, Some(s)) => Value::Int(*s),
            },
            Accumulator::LastValue(v) => *v,
            Accumulator::LatestByTime { value, .. } => *value,
            Accumulator::Extreme(v) => *v,
            Accumulator::ExtremeWithRetract(acc) => acc.value(),
            Accumulator::Distinct(acc) => Value::Int(acc.count),
        }
    }
}

/// [`accumulate_or_retract`] where call `i` takes only rows whose `filters[i]` column is TRUE
/// (`AggsHandlerCodeGenerator`: `if (filterArg) { accumulate }`, Flink 2.3); a call without a
/// filter entry takes every row.
///
/// # Errors
/// The first function's error.
pub fn accumulate_or_retract_filtered(
    calls: &[AggCall],
    filters: &[Option<usize>],
    accs: &mut [Accumulator],
    input: &Row,
    accumulate: bool,
) -> Result<(), String> {
    for (i, (call, acc)) in calls.iter().zip(accs.iter_mut()).enumerate() {
        if let Some(Some(f)) = filters.get(i) {
            if input.0.get(*f) != Some(&Value::Bool(true)) {
                continue;
            }
        }
        if accumulate {
            call.accumulate(acc, input)?;
        } else {
            call.retract(acc, input)?;
        }
    }
    Ok(())
}

/// Runs `accumulate` (or, when `accumulate` is false, `retract`) of every call on its own
/// accumulator, as a generated `AggsHandleFunction` does.
///
/// # Errors
/// The first function's error.
pub fn accumulate_or_retract(
    calls: &[AggCall],
    accs: &mut [Accumulator],
    input: &Row,
    accumulate: bool,
) -> Result<(), String> {
    accumulate_or_retract_filtered(calls, &[], accs, input, accumulate)
}

impl Accumulator {
    /// Short text for the page: `3`, `sum=6 count=3`, `1 @ 2019-11-21 14:44:32` (a
    /// `LATEST_BY_TIME` accumulator: its value and its `times` field, see [`epoch_time_text`]).
    pub fn describe(&self) -> String {
        match self {
            Accumulator::Count(c) => c.to_string(),
            Accumulator::Sum { sum, count } => {
                format!("sum={} count={count}", sum.map_or("null".to_string(), |s| s.to_string()))
            }
            Accumulator::LastValue(v) => v.to_string(),
            Accumulator::LatestByTime { value, time } => format!("{value} @ {}", epoch_time_text(*time)),
            Accumulator::Extreme(v) => v.to_string(),
            Accumulator::ExtremeWithRetract(acc) => {
                format!("{} (mapSize={}, map={})", acc.value(), acc.map_size, describe_map(&acc.map))
            }
            Accumulator::Distinct(acc) => format!("{} (distinct={})", acc.count, describe_map(&acc.values)),
        }
    }
}

/// A `LATEST_BY_TIME` accumulator's `times` (a `long` of the seed's Java UDAF, compared as a
/// number): epoch milliseconds written as a UTC date-time, `2019-11-21 14:44:32`, when it reads as
/// one (from 1973-03-03, 10^11 ms, on); a smaller number (its initial 0, a plain counter) as it is.
pub fn epoch_time_text(time: i64) -> String {
    if time >= 100_000_000_000 {
        crate::engine::time::TimeFormat::DateTime.format(time)
    } else {
        time.to_string()
    }
}

/// `{5: 2, 9: 1}`.
fn describe_map(map: &std::collections::BTreeMap<Value, i64>) -> String {
    let entries: Vec<String> = map.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{{}}}", entries.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(v: &[Value]) -> Row {
        Row::from(v.to_vec())
    }

    #[test]
    fn sum_with_retract_goes_null_at_zero_count() {
        let call = AggCall::Sum { arg: 0, int32: false, zero: false };
        let mut acc = call.create_accumulator();
        call.accumulate(&mut acc, &r(&[Value::Int(2)])).unwrap();
        call.accumulate(&mut acc, &r(&[Value::Null])).unwrap();
        assert_eq!(call.get_value(&acc), Value::Int(2));
        call.retract(&mut acc, &r(&[Value::Int(2)])).unwrap();
        assert_eq!(call.get_value(&acc), Value::Null);
        call.retract(&mut acc, &r(&[Value::Int(3)])).unwrap();
        assert_eq!(acc, Accumulator::Sum { sum: Some(-3), count: -1 });
        assert_eq!(call.get_value(&acc), Value::Int(-3));
    }

    #[test]
    fn sum_of_int_wraps_like_java_int() {
        let call = AggCall::Sum { arg: 0, int32: true, zero: false };
        let mut acc = call.create_accumulator();
        call.accumulate(&mut acc, &r(&[Value::Int(2_147_483_647)])).unwrap();
        call.accumulate(&mut acc, &r(&[Value::Int(1)])).unwrap();
        assert_eq!(call.get_value(&acc), Value::Int(-2_147_483_648));
        let long = AggCall::Sum { arg: 0, int32: false, zero: false };
        let mut acc = long.create_accumulator();
        long.accumulate(&mut acc, &r(&[Value::Int(i64::MAX)])).unwrap();
        long.accumulate(&mut acc, &r(&[Value::Int(1)])).unwrap();
        assert_eq!(long.get_value(&acc), Value::Int(i64::MIN));
    }

    #[test]
    fn count_star_counts_nulls_count_x_does_not() {
        let (star, cx) = (AggCall::CountStar, AggCall::Count(0));
        let (mut a, mut b) = (star.create_accumulator(), cx.create_accumulator());
        for row in [r(&[Value::Null]), r(&[Value::Int(1)])] {
            star.accumulate(&mut a, &row).unwrap();
            cx.accumulate(&mut b, &row).unwrap();
        }
        assert_eq!((star.get_value(&a), cx.get_value(&b)), (Value::Int(2), Value::Int(1)));
    }

    #[test]
    fn latest_by_time_is_described_with_a_date_time() {
        let acc = Accumulator::LatestByTime { value: Value::Int(1), time: 1_574_347_472_000 };
        assert_eq!(acc.describe(), "1 @ 2019-11-21 14:44:32");
        assert_eq!(Accumulator::LatestByTime { value: Value::Null, time: 0 }.describe(), "null @ 0");
        assert_eq!(epoch_time_text(5), "5");
    }

    #[test]
    fn latest_by_time_keeps_the_largest_time() {
        let call = AggCall::LatestByTime { value: 0, time: 1 };
        let mut acc = call.create_accumulator();
        call.accumulate(&mut acc, &r(&[Value::Int(1), Value::Int(1_574_347_472_000)])).unwrap();
        call.accumulate(&mut acc, &r(&[Value::Int(0), Value::Int(1_574_347_474_000)])).unwrap();
        call.accumulate(&mut acc, &r(&[Value::Int(5), Value::Int(1_574_347_473_000)])).unwrap();
        assert_eq!(call.get_value(&acc), Value::Int(0));
        assert!(call.retract(&mut acc, &r(&[Value::Int(0), Value::Int(1)])).is_err());
        assert!(call.accumulate(&mut acc, &r(&[Value::Int(0), Value::Null])).is_err());
    }
}
