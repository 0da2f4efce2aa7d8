//! Flink 2.3.0's `StreamingSemiAntiJoinOperator` (`flink-table-runtime/.../operators/join/
//! stream/`), read from the 2.3.0 bytecode: `WHERE k IN (SELECT …)` / `EXISTS` (semi) and
//! `NOT EXISTS` (anti). It emits left rows only. The left side keeps each record with its number
//! of matches (an outer view, `"left-records"`), the right side its records (`"right-records"`),
//! both keyed by the join key ([`super::join_record_state_view`]).
//!
//! ```text
//! processElement1(left row):                       its RowKind kept for the output
//!     matches = right records matching it
//!     semi: emit it if there is a match; anti: emit it if there is none
//!     accumulate: leftState.add(row, #matches)   retract: leftState.retract(row)
//! processElement2(right row):
//!     accumulate: rightState.add(row)
//!         per left match o: if o.n == 0: emit o as (anti ? -D : the input's kind)
//!                           leftState.update(o, o.n + 1)
//!     retract:    rightState.retract(row)
//!         per left match o: if o.n == 1: emit o as (semi ? the input's kind : +I)
//!                           leftState.update(o, o.n - 1)
//! ```
//!
//! As in [`super::streaming_join_operator`], 2.3.0 walks the matches lazily (emit, then update,
//! per match) and earlier versions read them all first (every emit before the updates: the same
//! output, as each match's emit depends only on its own count).

use super::join::JoinSpec;
use super::join_record_state_view::{JoinRecordStateView, JoinState};
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::options::Retention;
use crate::engine::row::{Change, Message, Row, RowKind, Value};
use crate::engine::state::ttl::StateTtlConfig;
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::StateCell;
use std::rc::Rc;

/// `StreamingSemiAntiJoinOperator` with its keyed state.
#[derive(Debug, Clone)]
pub struct StreamingSemiAntiJoinOperator {
    spec: Rc<JoinSpec>,
    anti: bool,
    state: JoinState,
}

impl StreamingSemiAntiJoinOperator {
    /// `new StreamingSemiAntiJoinOperator(isAntiJoin, …, leftStateRetentionTime,
    /// rightStateRetentionTime)` and `open()`: the left side's view is always an outer one.
    pub fn new(spec: Rc<JoinSpec>, anti: bool, retention: Retention) -> Self {
        let (left_ms, right_ms) = spec.side_ttl_ms(retention);
        let left = JoinRecordStateView::new(
            "left-records",
            spec.left_spec.clone(),
            true,
            spec.left_types.clone(),
            StateTtlConfig::create_ttl_config(left_ms),
        );
        let right = JoinRecordStateView::new(
            "right-records",
            spec.right_spec.clone(),
            false,
            spec.right_types.clone(),
            StateTtlConfig::create_ttl_config(right_ms),
        );
        StreamingSemiAntiJoinOperator { spec, anti, state: JoinState::new(left, right, left_ms, right_ms) }
    }

    /// Whether `left` and `right` match: the join key is equal by construction (one key), a NULL
    /// in it matches nothing, and the further condition must hold on the joined row.
    fn condition(&self, left: &Row, right: &Row, now: Millis) -> bool {
        let Some(condition) = &self.spec.condition else { return true };
        let mut joined: Vec<Value> = Vec::with_capacity(left.0.len() + right.0.len());
        joined.extend(left.0.iter().copied());
        joined.extend(right.0.iter().copied());
        condition.try_eval(&joined, now).is_ok_and(|v| v == Value::Bool(true))
    }

    fn kind_of(change: Change) -> RowKind {
        match change {
            Change::Kind(kind) => kind,
            Change::Legacy(true) => RowKind::Insert,
            Change::Legacy(false) => RowKind::Delete,
        }
    }
}

impl StreamOperator for StreamingSemiAntiJoinOperator {
    fn flink_class(&self) -> &'static str {
        "StreamingSemiAntiJoinOperator"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.left_keys);
        let key = self.state.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let record = &input.row;
        let matches = if key_row.0.contains(&Value::Null) {
            0
        } else {
            let others = self.state.right.records(&mut self.state.backend.keys, key, now);
            others.iter().filter(|(o, _)| self.condition(record, o, now)).count()
        };
        if (matches == 0) == self.anti {
            ctx.collect(&key_row, input.clone());
        }
        if Self::kind_of(input.change).is_accumulate() {
            self.state.left.add_record(&mut self.state.backend.keys, key, record, matches as i64, now);
        } else {
            self.state.left.retract_record(&mut self.state.backend.keys, key, record, now);
        }
        Ok(())
    }

    fn process_element2(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.right_keys);
        let key = self.state.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let kind = Self::kind_of(input.change);
        let legacy = matches!(input.change, Change::Legacy(_));
        let change = |kind: RowKind| if legacy { Change::Legacy(kind.is_accumulate()) } else { Change::Kind(kind) };
        let record = &input.row;
        let accumulate = kind.is_accumulate();
        if accumulate {
            self.state.right.add_record(&mut self.state.backend.keys, key, record, -1, now);
        } else {
            self.state.right.retract_record(&mut self.state.backend.keys, key, record, now);
        }
        if key_row.0.contains(&Value::Null) {
            return Ok(());
        }
        let lefts = self.state.left.records(&mut self.state.backend.keys, key, now);
        let matches: Vec<(Row, i64)> = lefts.into_iter().filter(|(o, _)| self.condition(o, record, now)).collect();
        for (o, n) in &matches {
            if accumulate {
                if *n == 0 {
                    let out = if self.anti { RowKind::Delete } else { kind };
                    ctx.collect(&key_row, Message::new(change(out), o.clone()));
                }
                self.state.left.update_num_of_associations(&mut self.state.backend.keys, key, o, n + 1, now);
            } else {
                if *n == 1 {
                    let out = if self.anti { RowKind::Insert } else { kind };
                    ctx.collect(&key_row, Message::new(change(out), o.clone()));
                }
                self.state.left.update_num_of_associations(&mut self.state.backend.keys, key, o, n - 1, now);
            }
        }
        Ok(())
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
