//! The one-phase mini-batch group aggregation: `MiniBatchGroupAggFunction` run by a
//! `KeyedMapBundleOperator` (what `StreamExecGroupAggregate` builds when
//! `table.exec.mini-batch.enabled` is on and the aggregation is not split in two phases).
//!
//! Models `flink-table-runtime/.../operators/aggregate/MiniBatchGroupAggFunction.java` (Flink
//! 2.3.0, with the FLINK-35661 fix) over [`MapBundle`]:
//!
//! ```text
//! addInput(rows, input): rows.add(copy(input))              // the bundle: each key's input rows
//! finishBundle(buffer):                                      // on the count trigger or a watermark
//!   for (key, rows) in buffer (HashMap order):
//!     acc = accState.value()                                 // TTL: expired reads as null (FLINK-17096: TTL applies)
//!     if acc == null:
//!       drop the leading retractions of rows                 // UPDATE_BEFORE / DELETE first for an empty key
//!       if rows is empty: continue                           // FLINK-35661: `return` dropped every later key
//!       acc = createAccumulators(); firstRow = true
//!     prev = getValue(acc); accumulate / retract every row; new = getValue(acc)
//!     if !recordCountIsZero(acc):
//!       accState.update(acc)                                 // one write per key per bundle
//!       if !firstRow:
//!         if stateRetentionTime > 0 || prev != new:          // FLINK-33936: unchanged results re-emitted with TTL
//!           [-U prev if generateUpdateBefore], +U new
//!       else +I new
//!     else: if !firstRow: -D prev; accState.clear()
//! ```
//!
//! Earlier versions differ in three places, each a [`FlinkMode`] method: before FLINK-17096
//! (`1.10-blink`) `accState` has no TTL and the retention is ignored; before FLINK-33936
//! (`1.10-blink`, `1.12`) an unchanged result emits nothing, TTL or not; before FLINK-35661
//! (`1.10-blink`, `1.12`) a retraction-only key ends the loop with `return`, so the bundle's later
//! keys are dropped (the bundle is cleared all the same).
//!
//! So a key emits at most one update per bundle, whatever number of rows it buffered: the
//! intermediate results of a bundle are never seen downstream. The bundle is heap memory, not
//! keyed state: it never expires and a failure loses it (Flink finishes it before every
//! checkpoint barrier). The page shows it as the key's `bundle` column.

use super::GroupAggregateSpec;
use crate::engine::aggregate::{describe_accumulators, Accumulators, AggCall};
use crate::engine::operators::binary_row::binary_row_hash_code;
use crate::engine::operators::map_bundle::{CountBundleTrigger, MapBundle};
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::options::FlinkMode;
use crate::engine::row::{Change, DataType, Message, Row, RowKind, Value};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{BundleTrigger, ClearCause, TraceEvent};
use crate::engine::view::{StateCell, TtlView};

const ACC_STATE: &[&str] = &["accState"];
/// How many buffered rows a `bundle` cell lists.
const SHOWN_ROWS: usize = 4;

/// `MiniBatchGroupAggFunction` in its `KeyedMapBundleOperator`, with its keyed state and bundle.
#[derive(Debug, Clone)]
pub struct MiniBatchGroupAggFunction {
    spec: GroupAggregateSpec,
    /// The spec's calls, plus a hidden `COUNT(*)` when the input retracts and has none.
    calls: Vec<AggCall>,
    index_of_count_star: Option<usize>,
    key_types: Vec<DataType>,
    /// `table.exec.state.ttl` in ms (`stateRetentionTime`).
    state_retention_ms: Millis,
    /// The Flink version's behaviour (FLINK-33936, FLINK-35661).
    flink: FlinkMode,
    backend: KeyedStateBackend,
    acc_state: ValueState<Accumulators>,
    /// Each key's buffered input rows.
    bundle: MapBundle<Vec<Message>>,
    trigger: CountBundleTrigger,
}

impl MiniBatchGroupAggFunction {
    /// `state_ttl_ms` is `table.exec.state.ttl` (0: off), `size` is `table.exec.mini-batch.size`;
    /// `flink` decides the fixes it has (before FLINK-17096 the TTL is not applied).
    pub fn new(spec: GroupAggregateSpec, state_ttl_ms: Millis, size: u64, flink: FlinkMode) -> Self {
        let (calls, index_of_count_star) = spec.calls_with_count_star();
        let state_ttl_ms = if flink.mini_batch_state_expires() { state_ttl_ms } else { 0 };
        let config = StateTtlConfig::create_ttl_config(state_ttl_ms);
        MiniBatchGroupAggFunction {
            key_types: spec.key_types(),
            spec,
            calls,
            index_of_count_star,
            state_retention_ms: state_ttl_ms,
            flink,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            acc_state: ValueState::with_ttl("accState", config),
            bundle: MapBundle::default(),
            trigger: CountBundleTrigger::new(size),
        }
    }

    /// `AbstractMapBundleOperator.finishBundle()`.
    fn finish_bundle(&mut self, trigger: BundleTrigger, ctx: &mut Context) -> Result<(), String> {
        self.trigger.reset();
        if self.bundle.is_empty() {
            return Ok(());
        }
        let (elements, keys) = (self.bundle.elements(), self.bundle.keys() as u64);
        ctx.record_unkeyed(|| TraceEvent::BundleFinished { bundle: "bundle", trigger, elements, keys });
        let mut returned = false;
        for (key, _, rows) in self.bundle.drain() {
            let key_row = self.backend.keys.row(key).clone();
            if returned {
                // Before FLINK-35661 `finishBundle` returned: the rest of the bundle is dropped.
                for m in rows {
                    ctx.record(&key_row, || TraceEvent::Dropped {
                        message: m,
                        reason: "finishBundle returned at an earlier key whose rows were all retractions for \
                                 absent state (before FLINK-35661): this key's rows are lost",
                    });
                }
                self.backend.keys.unhold(key);
                continue;
            }
            self.backend.keys.intern(&key_row);
            let outcome = self.finish_key(key, &key_row, rows, ctx);
            self.backend.keys.unhold(key);
            returned = outcome?;
        }
        self.backend.keys.finish();
        Ok(())
    }

    /// `finishBundle`'s loop body for one key; `Ok(true)` when it `return`s from the whole loop.
    fn finish_key(&mut self, key: KeyId, key_row: &Row, rows: Vec<Message>, ctx: &mut Context) -> Result<bool, String> {
        let now = ctx.now;
        let stored = read_acc(&mut self.acc_state, &mut self.backend, key, key_row, ctx);
        let (mut accs, first_row, rows) = match stored {
            Some(accs) => (accs, false, &rows[..]),
            None => {
                let start = rows.iter().position(|m| m.change.is_accumulate()).unwrap_or(rows.len());
                for m in &rows[..start] {
                    ctx.record(key_row, || TraceEvent::Dropped {
                        message: m.clone(),
                        reason: "a leading retraction for a key without state is dropped (it may have expired)",
                    });
                }
                if start == rows.len() {
                    // FLINK-35661: skip this key only (`continue`); before, `return`.
                    return Ok(!self.flink.mini_batch_skips_retraction_only_key());
                }
                (self.calls.iter().map(AggCall::create_accumulator).collect(), true, &rows[start..])
            }
        };
        let prev = self.spec.output(key_row, &accs);
        for input in rows {
            crate::engine::aggregate::accumulate_or_retract(
                &self.calls,
                &mut accs,
                &input.row,
                input.change.is_accumulate(),
            )?;
        }
        let new = self.spec.output(key_row, &accs);
        if !record_count_is_zero(&self.calls, self.index_of_count_star, &accs) {
            self.acc_state.update(&mut self.backend.keys, key, accs, now);
            if first_row {
                ctx.collect(key_row, Message::new(Change::of(RowKind::Insert, self.flink.has_row_kind()), new));
            } else if (self.state_retention_ms > 0 && self.flink.mini_batch_reemits_unchanged_with_ttl()) || prev != new
            {
                if prev == new {
                    ctx.record(key_row, || super::unchanged_result_reemitted("MiniBatchGroupAggFunction"));
                }
                if self.spec.generate_update_before {
                    ctx.collect(
                        key_row,
                        Message::new(Change::of(RowKind::UpdateBefore, self.flink.has_row_kind()), prev),
                    );
                }
                ctx.collect(key_row, Message::new(Change::of(RowKind::UpdateAfter, self.flink.has_row_kind()), new));
            } else {
                let reason = if self.state_retention_ms > 0 {
                    "aggregate values unchanged: nothing emitted, though state TTL is on (before FLINK-33936)"
                } else {
                    "aggregate values unchanged and state TTL is off"
                };
                ctx.record(key_row, || TraceEvent::Suppressed { reason, row: new });
            }
        } else {
            if !first_row {
                ctx.collect(key_row, Message::new(Change::of(RowKind::Delete, self.flink.has_row_kind()), prev));
            }
            self.acc_state.clear(&mut self.backend.keys, key);
            ctx.record(key_row, || TraceEvent::StateCleared {
                states: ACC_STATE,
                cause: ClearCause::CountZero,
                reason: "COUNT(*) reached 0 (recordCountIsZero)",
            });
        }
        Ok(false)
    }
}

/// `accState.value()` of `key`: `None` when absent or expired (the expiry traced and the key's
/// results marked lost).
pub(super) fn read_acc(
    acc_state: &mut ValueState<Accumulators>,
    backend: &mut KeyedStateBackend,
    key: KeyId,
    key_row: &Row,
    ctx: &mut Context,
) -> Option<Accumulators> {
    match acc_state.value(&mut backend.keys, key, ctx.now) {
        TtlRead::Absent => None,
        TtlRead::Fresh(accs) => Some(accs),
        TtlRead::Expired { last_access_ms, expired_at_ms, returned } => {
            ctx.record(key_row, || TraceEvent::StateExpired { state: acc_state.name, last_access_ms, expired_at_ms });
            ctx.state_lost(key_row, expired_at_ms);
            returned
        }
    }
}

/// `RecordCounter.recordCountIsZero(acc)`.
pub(super) fn record_count_is_zero(calls: &[AggCall], index_of_count_star: Option<usize>, accs: &Accumulators) -> bool {
    index_of_count_star.is_some_and(|i| calls[i].get_value(&accs[i]) == Value::Int(0))
}

/// The page's `accState` cell of a key.
pub(super) fn acc_state_cell(
    spec: &GroupAggregateSpec,
    acc_state: &ValueState<Accumulators>,
    key: KeyId,
    now: Millis,
) -> Option<StateCell> {
    let names = &spec.output_columns[spec.group_by.len()..];
    let stored = acc_state.peek(key)?;
    let mut value = describe_accumulators(names, &stored.user_value);
    if let Some(hidden) = stored.user_value.get(spec.calls.len()) {
        value.push_str(&format!(", COUNT(*) (hidden): {}", hidden.describe()));
    }
    let ttl = acc_ttl(acc_state, key, now);
    let visible = usize::from(!ttl.is_some_and(|t| t.expired));
    Some(StateCell { time_ms: None, value, entries: 1, visible, ttl })
}

/// The TTL of a key's `accState` entry.
pub(super) fn acc_ttl(acc_state: &ValueState<Accumulators>, key: KeyId, now: Millis) -> Option<TtlView> {
    acc_state.ttl_view(key, now)
}

impl StreamOperator for MiniBatchGroupAggFunction {
    fn flink_class(&self) -> &'static str {
        "MiniBatchGroupAggFunction"
    }

    /// `AbstractMapBundleOperator.processElement`: buffer, then the count trigger.
    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.group_by);
        let key = self.backend.keys.intern(&key_row);
        let types = &self.key_types;
        self.bundle.add::<String>(
            &mut self.backend.keys,
            key,
            || binary_row_hash_code(&key_row, types),
            Vec::new,
            |rows| {
                rows.push(input.clone());
                Ok(())
            },
        )?;
        let elements = self.bundle.elements();
        ctx.record(&key_row, || TraceEvent::Buffered { message: input.clone(), bundle: "bundle", elements });
        if self.trigger.on_element() {
            self.finish_bundle(BundleTrigger::Count { size: self.trigger.max_count }, ctx)?;
        }
        Ok(())
    }

    fn process_watermark(&mut self, watermark: Millis, ctx: &mut Context) -> Result<(), String> {
        self.finish_bundle(BundleTrigger::Watermark { watermark_ms: watermark }, ctx)
    }

    fn bundled(&self) -> u64 {
        self.bundle.elements()
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        vec![self.acc_state.name, "bundle"]
    }

    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        let bundle = self.bundle.get(key).map(|(rows, n)| {
            let mut value: Vec<String> = rows.iter().take(SHOWN_ROWS).map(ToString::to_string).collect();
            if rows.len() > SHOWN_ROWS {
                value.push(format!("… {} more", rows.len() - SHOWN_ROWS));
            }
            StateCell { time_ms: None, value: value.join(", "), entries: n as usize, visible: n as usize, ttl: None }
        });
        vec![acc_state_cell(&self.spec, &self.acc_state, key, now), bundle]
    }

    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        acc_ttl(&self.acc_state, key, now)
    }

    fn entries_stored(&self) -> u64 {
        self.acc_state.stored() + self.bundle.elements()
    }

    /// `accState`, and the bundle's records (heap, never expired).
    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![
            (self.acc_state.name, self.acc_state.size(now)),
            ("bundle", StateSize { stored: self.bundle.elements(), expired: 0 }),
        ]
    }
}
