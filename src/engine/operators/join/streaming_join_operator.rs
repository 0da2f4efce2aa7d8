//! Flink 2.3.0's `StreamingJoinOperator` (`flink-table-runtime/.../operators/join/stream/`,
//! with `AbstractStreamingJoinOperator`), read from the 2.3.0 bytecode: a regular join of two
//! inputs keyed by the join key, each side's records in a state view
//! ([`super::join_record_state_view`]: `"left-records"`, `"right-records"`).
//!
//! `processElement1/2(input)` erase the input's `RowKind` before any state write, then:
//!
//! ```text
//! accumulate (+I/+U), input side outer:
//!     no match: emit +I[input+null]; inputState.add(input, 0)
//!     per match o: if other outer { if o.n == 0: emit -D[null+o]; otherState.update(o, o.n + 1) }
//!                  emit +I[input+o]
//!     inputState.add(input, #matches)
//! accumulate, input side inner:
//!     inputState.add(input)
//!     other outer: per match o: if o.n == 0: emit -D[null+o]; otherState.update(o, o.n + 1); emit +I[input+o]
//!     else:        per match o: emit <input's kind>[input+o]         (+I or +U)
//! retract (-U/-D):
//!     inputState.retract(input)
//!     no match: if input outer: emit -D[input+null]
//!     per match o: emit (input outer ? -D : input's kind)[input+o]
//!                  if other outer { if o.n == 1: emit +I[null+o]; otherState.update(o, o.n - 1) }
//! ```
//!
//! 2.3.0 walks the other side lazily (`AbstractStreamingJoinOperator.iterator`), so the outputs
//! of each matched record come together (`-D[in+o1], +I[null+o1], -D[in+o2], …`). Flink 1.10 to
//! 2.0 read the matches first (`AssociatedRecords.of`, 2.0 source) and emitted all of one kind,
//! then the other (`-D[in+o1], -D[in+o2], +I[null+o1], +I[null+o2]`): the `1.10-blink` and `1.12`
//! modes do that (which release between 2.0 and 2.3 changed it is not known here; the `2.3` mode
//! follows 2.3.0). A match's `n` is read when the walk reaches it, after the
//! updates of earlier records, which only touch other entries: walking a list read up front is
//! the same. A retraction of a record the input side does not hold still emits, and can take a
//! count to −1 (after the input side's record expired). A row whose `=` join key holds a NULL
//! matches nothing (`JoinConditionWithNullFilters`) but is stored.
//!
//! An `+U` that replaces a record (an upsert input without `-U`) is counted as a new association
//! on an outer other side, so a later `-D` leaves its null-padded row out: FLINK-40681, not
//! fixed in 2.3.0. The `main` mode follows apache/flink @ `076753358ce080a8fac6e98a2f50d4881ac050f1`,
//! where the accumulate branch first asks `isAdditionalMatch(input)` and raises a count only if it
//! was 0 or the match is additional:
//!
//! ```text
//! isAdditionalMatch = otherIsOuter && (isSuppress
//!                     || (!inputSideSpec.joinKeyContainsUniqueKey() && !inputState.hasRecord(input)))
//! ```
//!
//! (`isSuppress` is the mini-batch join's, not modelled: false here.) `hasRecord`'s body at that
//! commit could not be read: a `HasUniqueKey` view is taken to look the input's unique key up, a
//! `NoUniqueKey` view the whole row, the key each view stores records under.

use super::join::JoinSpec;
use super::join_record_state_view::{InputSideSpec, JoinRecordStateView, JoinState};
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::options::{FlinkMode, Retention};
use crate::engine::row::{Change, Message, Row, RowKind, Value};
use crate::engine::state::ttl::{StateTtlConfig, StateVisibility};
use crate::engine::state::{KeyId, KeyRegistry, KeyedStateBackend, StateSize};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::StateCell;
use std::rc::Rc;

/// A side's view with the keys it writes under.
struct Side<'a> {
    view: &'a mut JoinRecordStateView,
    keys: &'a mut KeyRegistry,
}

impl Side<'_> {
    fn add_record(self, key: KeyId, record: &Row, num: i64, now: Millis) {
        self.view.add_record(self.keys, key, record, num, now);
    }
    fn retract_record(self, key: KeyId, record: &Row, now: Millis) {
        self.view.retract_record(self.keys, key, record, now);
    }
    fn update_num_of_associations(self, key: KeyId, record: &Row, num: i64, now: Millis) {
        self.view.update_num_of_associations(self.keys, key, record, num, now);
    }
    fn has_record(self, key: KeyId, record: &Row, now: Millis) -> bool {
        self.view.has_record(self.keys, key, record, now)
    }
}

/// `StreamingJoinOperator` with its keyed state.
#[derive(Debug, Clone)]
pub struct StreamingJoinOperator {
    spec: Rc<JoinSpec>,
    /// Flink 2.3.0 walks the other side lazily, the outputs of each match together; 1.10 –
    /// 2.0 read every match first (`AssociatedRecords.of`) and emitted each kind in turn.
    lazy: bool,
    /// FLINK-40681's fix (`main`): only an additional match raises an association count.
    counts_only_additional_matches: bool,
    state: JoinState,
}

impl StreamingJoinOperator {
    /// `new StreamingJoinOperator(…, leftIsOuter, rightIsOuter, filterNullKeys,
    /// leftStateRetentionTime, rightStateRetentionTime)` and `open()`. Each side's TTL is
    /// `StateConfigUtil.createTtlConfig(retention)` (Flink 1.12+); Flink 1.10's Blink planner
    /// built it from the idle state retention's `min` (`JoinRecordStateViews.createTtlConfig(
    /// minRetentionTime, stateCleaningEnabled)`, 1.10.0): `ReturnExpiredIfNotCleanedUp`, and
    /// no TTL unless `min > 1` ms; `max` is not used.
    pub fn new(spec: Rc<JoinSpec>, flink: FlinkMode, retention: Retention) -> Self {
        let (left_ms, right_ms, config): (Millis, Millis, fn(Millis) -> StateTtlConfig) = match retention {
            Retention::IdleState(r) => {
                let min = if r.state_cleaning_enabled() { r.min_ms } else { 0 };
                (min, min, |ms| match StateTtlConfig::new_builder(ms) {
                    Ok(c) => StateTtlConfig { state_visibility: StateVisibility::ReturnExpiredIfNotCleanedUp, ..c },
                    Err(_) => StateTtlConfig::DISABLED,
                })
            }
            Retention::StateTtl(_) => {
                let (l, r) = spec.side_ttl_ms(retention);
                (l, r, StateTtlConfig::create_ttl_config)
            }
        };
        let left = JoinRecordStateView::new(
            "left-records",
            spec.left_spec.clone(),
            spec.join_type.left_is_outer(),
            spec.left_types.clone(),
            config(left_ms),
        );
        let right = JoinRecordStateView::new(
            "right-records",
            spec.right_spec.clone(),
            spec.join_type.right_is_outer(),
            spec.right_types.clone(),
            config(right_ms),
        );
        StreamingJoinOperator {
            spec,
            lazy: flink.has_2_3_operators(),
            counts_only_additional_matches: flink.join_counts_only_additional_matches(),
            state: JoinState::new(left, right, left_ms, right_ms),
        }
    }

    /// The joined row `left ++ right`, a missing side all NULL.
    fn joined(&self, left: Option<&Row>, right: Option<&Row>) -> Row {
        let mut out = Row::default();
        match left {
            Some(l) => out.0.extend(l.0.iter().copied()),
            None => out.0.extend(std::iter::repeat_n(Value::Null, self.spec.left_types.len())),
        }
        match right {
            Some(r) => out.0.extend(r.0.iter().copied()),
            None => out.0.extend(std::iter::repeat_n(Value::Null, self.spec.right_types.len())),
        }
        out
    }

    fn process(&mut self, input: &Message, input_is_left: bool, ctx: &mut Context) -> Result<(), String> {
        let keys = if input_is_left { &self.spec.left_keys } else { &self.spec.right_keys };
        let key_row = input.row.project(keys);
        let key = self.state.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        // Blink 1.10's rows reach the simulator as `(true, row)` / `(false, row)`: an accumulate is
        // an insert, a retraction a delete, and the output is written the same way.
        let input_kind = match input.change {
            Change::Kind(kind) => kind,
            Change::Legacy(true) => RowKind::Insert,
            Change::Legacy(false) => RowKind::Delete,
        };
        let legacy = matches!(input.change, Change::Legacy(_));
        let change =
            move |kind: RowKind| if legacy { Change::Legacy(kind.is_accumulate()) } else { Change::Kind(kind) };
        let accumulate = input_kind.is_accumulate();
        let record = &input.row;
        let (input_outer, other_outer) = if input_is_left {
            (self.spec.join_type.left_is_outer(), self.spec.join_type.right_is_outer())
        } else {
            (self.spec.join_type.right_is_outer(), self.spec.join_type.left_is_outer())
        };
        // `JoinConditionWithNullFilters`: a NULL in the join key matches nothing.
        let null_key = key_row.0.contains(&Value::Null);
        let out = |this: &Self, kind: RowKind, other: &Row| {
            let row = if input_is_left {
                this.joined(Some(record), Some(other))
            } else {
                this.joined(Some(other), Some(record))
            };
            Message::new(change(kind), row)
        };
        let padded = |this: &Self, kind: RowKind, row: &Row, is_left: bool| {
            let row = if is_left { this.joined(Some(row), None) } else { this.joined(None, Some(row)) };
            Message::new(change(kind), row)
        };
        // `isAdditionalMatch`, asked before any write (`main` only; 2.3.0 counts every match).
        let input_spec = if input_is_left { &self.spec.left_spec } else { &self.spec.right_spec };
        let additional = !self.counts_only_additional_matches
            || (accumulate
                && other_outer
                && *input_spec != InputSideSpec::JoinKeyContainsUniqueKey
                && !self.side(input_is_left).has_record(key, record, now));
        // The input side's write comes first, except for an accumulating outer input (below).
        if !accumulate {
            self.side(input_is_left).retract_record(key, record, now);
        } else if !input_outer {
            self.side(input_is_left).add_record(key, record, -1, now);
        }
        let matches = if null_key { Vec::new() } else { self.matches(input_is_left, key, record, now) };
        if accumulate {
            if input_outer && matches.is_empty() {
                ctx.collect(&key_row, padded(self, RowKind::Insert, record, input_is_left));
                self.side(input_is_left).add_record(key, record, 0, now);
                return Ok(());
            }
            let kind = if input_outer || other_outer { RowKind::Insert } else { input_kind };
            for (i, (other, _)) in matches.iter().enumerate() {
                if other_outer && (self.lazy || i == 0) {
                    // Before 2.3 every padded row of the other side goes first, then the joins.
                    let batch = if self.lazy { i..i + 1 } else { 0..matches.len() };
                    for (other, n) in &matches[batch] {
                        if *n == 0 {
                            ctx.collect(&key_row, padded(self, RowKind::Delete, other, !input_is_left));
                        }
                        if *n == 0 || additional {
                            self.side(!input_is_left).update_num_of_associations(key, other, n + 1, now);
                        }
                    }
                }
                ctx.collect(&key_row, out(self, kind, other));
            }
            if input_outer {
                let n = matches.len() as i64;
                self.side(input_is_left).add_record(key, record, n, now);
            }
        } else {
            if matches.is_empty() {
                if input_outer {
                    ctx.collect(&key_row, padded(self, RowKind::Delete, record, input_is_left));
                }
                return Ok(());
            }
            let kind = if input_outer { RowKind::Delete } else { input_kind };
            for (i, (other, _)) in matches.iter().enumerate() {
                ctx.collect(&key_row, out(self, kind, other));
                // Before 2.3 every join is retracted first, then the other side's padded rows come.
                let last = i + 1 == matches.len();
                if other_outer && (self.lazy || last) {
                    let batch = if self.lazy { i..i + 1 } else { 0..matches.len() };
                    for (other, n) in &matches[batch] {
                        if *n == 1 {
                            ctx.collect(&key_row, padded(self, RowKind::Insert, other, !input_is_left));
                        }
                        self.side(!input_is_left).update_num_of_associations(key, other, n - 1, now);
                    }
                }
            }
        }
        Ok(())
    }

    /// One side's records, bound to the operator's keys.
    fn side(&mut self, left: bool) -> Side<'_> {
        let JoinState { backend, left: l, right: r } = &mut self.state;
        Side { view: if left { l } else { r }, keys: &mut backend.keys }
    }

    /// The other side's records matching `record` (join key equal by the key; the further
    /// condition checked on the joined row), with their number of associations, in the order
    /// the heap walks them.
    fn matches(&mut self, input_is_left: bool, key: KeyId, record: &Row, now: Millis) -> Vec<(Row, i64)> {
        let StreamingJoinOperator { spec, state: JoinState { backend, left, right }, .. } = self;
        let other = if input_is_left { right } else { left };
        let mut records = other.records(&mut backend.keys, key, now);
        if let Some(condition) = &spec.condition {
            records.retain(|(o, _)| {
                let mut joined: Vec<Value> = Vec::with_capacity(spec.left_types.len() + spec.right_types.len());
                let (l, r) = if input_is_left { (record, o) } else { (o, record) };
                joined.extend(l.0.iter().copied());
                joined.extend(r.0.iter().copied());
                condition.try_eval(&joined, now).is_ok_and(|v| v == Value::Bool(true))
            });
        }
        records
    }
}

impl StreamOperator for StreamingJoinOperator {
    fn flink_class(&self) -> &'static str {
        "StreamingJoinOperator"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        self.process(input, true, ctx)
    }

    fn process_element2(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        self.process(input, false, ctx)
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.state.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.state.backend
    }
    fn state_names(&self) -> Vec<&'static str> {
        self.state.state_names()
    }
    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        self.state.key_state(key, now)
    }
    fn entries_stored(&self) -> u64 {
        self.state.entries_stored()
    }
    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        self.state.state_sizes(now)
    }
}
