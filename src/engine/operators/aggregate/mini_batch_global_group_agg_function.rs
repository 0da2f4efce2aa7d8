//! Flink 2.3's two-phase mini-batch group aggregation: `MiniBatchLocalGroupAggFunction` (in a
//! `MapBundleOperator`, chained before the exchange) → `MiniBatchGlobalGroupAggFunction` (in a
//! `KeyedMapBundleOperator`, after it), what `TwoStageOptimizedAggregateRule` makes of a
//! `GroupAggregate` when mini-batch is on, `table.optimizer.agg-phase-strategy` is not
//! `ONE_PHASE` and every aggregate can merge ([`AggCall::supports_merge`]).
//!
//! Models `MiniBatchLocalGroupAggFunction.java` and `MiniBatchGlobalGroupAggFunction.java`
//! (`flink-table-runtime/.../operators/aggregate/`, Flink 2.3.0):
//!
//! ```text
//! local.addInput(acc, input):   acc = acc ?: createAccumulators(); accumulate or retract input
//! local.finishBundle(buffer):   for (key, acc) in buffer: emit +I(key, acc)        // no state at all
//! global.addInput(acc, input):  acc = acc ?: createAccumulators(); merge(input's accumulator)
//! global.finishBundle(buffer):
//!   for (key, bufferAcc) in buffer (HashMap order):
//!     stateAcc = accState.value()                            // TTL applies
//!     if stateAcc == null: stateAcc = createAccumulators(); firstRow = true   // no retraction guard
//!     prev = getValue(stateAcc); merge(bufferAcc); new = getValue(stateAcc)
//!     if !recordCountIsZero(stateAcc):
//!       accState.update(stateAcc)
//!       if !firstRow: if stateRetentionTime > 0 || prev != new: [-U prev], +U new
//!       else +I new
//!     else: if !firstRow: -D prev; accState.clear()
//! ```
//!
//! The global phase receives accumulators, not rows: a bundle whose rows are only retractions
//! (a negative `COUNT(*)`) after the key's state expired is merged into a fresh accumulator and
//! stored, negative count and all (case C20), where the one-phase functions drop it.
//!
//! **One node, two Flink operators.** The scenario writes one `GroupAggregate`; Flink runs two
//! operators with an exchange between them. Here one node runs both: its input goes into the
//! local bundle; finishing the local bundle hands each key's accumulator, in the local map's
//! order, to the global phase's `addInput` (what the exchange delivers, FIFO at parallelism 1),
//! whose own count trigger may fire on the way; a mini-batch watermark finishes the local bundle
//! and then the global one (the watermark follows the local's output through the exchange).
//! Both phases key by the same grouping columns, so one key row of the page shows the global
//! `accState`, the global `bundle` and the `local bundle`; the node's class and plan name both
//! Flink operators. Keeping one node per scenario operator keeps every per-operator series (the
//! CLI's summary, the metrics, the timeline) aligned with the scenario's pipeline.

use super::mini_batch_group_agg_function::{acc_state_cell, acc_ttl, read_acc, record_count_is_zero};
use super::GroupAggregateSpec;
use crate::engine::aggregate::{accumulate_or_retract, describe_accumulators, Accumulators, AggCall};
use crate::engine::operators::binary_row::binary_row_hash_code;
use crate::engine::operators::map_bundle::{CountBundleTrigger, MapBundle};
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Column, DataType, Message, Row, RowKind};
use crate::engine::state::ttl::StateTtlConfig;
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{BundleTrigger, ClearCause, TraceEvent};
use crate::engine::view::{StateCell, TtlView};

const ACC_STATE: &[&str] = &["accState"];

/// The local and the global phase of one two-phase mini-batch aggregation.
#[derive(Debug, Clone)]
pub struct MiniBatchLocalGlobalGroupAgg {
    spec: GroupAggregateSpec,
    /// The spec's calls, plus a hidden `COUNT(*)` when the input retracts and has none (both
    /// phases run the same list).
    calls: Vec<AggCall>,
    index_of_count_star: Option<usize>,
    key_types: Vec<DataType>,
    /// Names of the accumulators for the page (the aggregates', then the hidden `COUNT(*)`).
    acc_names: Vec<Column>,
    state_retention_ms: Millis,
    /// The global phase's keys and `accState`.
    backend: KeyedStateBackend,
    acc_state: ValueState<Accumulators>,
    /// `MiniBatchLocalGroupAggFunction`'s bundle: each key's accumulators over its input rows.
    local: MapBundle<Accumulators>,
    local_trigger: CountBundleTrigger,
    /// `MiniBatchGlobalGroupAggFunction`'s bundle: each key's merged local accumulators.
    global: MapBundle<Accumulators>,
    global_trigger: CountBundleTrigger,
}

impl MiniBatchLocalGlobalGroupAgg {
    /// `state_ttl_ms` is `table.exec.state.ttl` (0: off), `size` is `table.exec.mini-batch.size`
    /// (each phase has its own `CountBundleTrigger`).
    pub fn new(spec: GroupAggregateSpec, state_ttl_ms: Millis, size: u64) -> Self {
        let (calls, index_of_count_star) = spec.calls_with_count_star();
        let mut acc_names = spec.output_columns[spec.group_by.len()..].to_vec();
        if calls.len() > acc_names.len() {
            acc_names.push(Column { name: "COUNT(*) (hidden)".into(), data_type: DataType::BigInt });
        }
        let config = StateTtlConfig::create_ttl_config(state_ttl_ms);
        MiniBatchLocalGlobalGroupAgg {
            key_types: spec.key_types(),
            spec,
            calls,
            index_of_count_star,
            acc_names,
            state_retention_ms: state_ttl_ms,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            acc_state: ValueState::with_ttl("accState", config),
            local: MapBundle::default(),
            local_trigger: CountBundleTrigger::new(size),
            global: MapBundle::default(),
            global_trigger: CountBundleTrigger::new(size),
        }
    }

    fn create(&self) -> Accumulators {
        self.calls.iter().map(AggCall::create_accumulator).collect()
    }

    /// The local `finishBundle()`: each key's accumulator goes to the global phase.
    fn finish_local(&mut self, trigger: BundleTrigger, ctx: &mut Context) -> Result<(), String> {
        self.local_trigger.reset();
        if self.local.is_empty() {
            return Ok(());
        }
        let (elements, keys) = (self.local.elements(), self.local.keys() as u64);
        ctx.record_unkeyed(|| TraceEvent::BundleFinished { bundle: "local bundle", trigger, elements, keys });
        for (key, _, accs) in self.local.drain() {
            let outcome = self.global_add(key, &accs, ctx);
            self.backend.keys.unhold(key);
            outcome?;
        }
        self.backend.keys.finish();
        Ok(())
    }

    /// The global `processElement` of one local output `(key, acc)`: merge into the bundle, then
    /// the count trigger.
    fn global_add(&mut self, key: KeyId, accs: &Accumulators, ctx: &mut Context) -> Result<(), String> {
        let key_row = self.backend.keys.row(key).clone();
        let (calls, types) = (&self.calls, &self.key_types);
        self.global.add::<String>(
            &mut self.backend.keys,
            key,
            || binary_row_hash_code(&key_row, types),
            || calls.iter().map(AggCall::create_accumulator).collect(),
            |bundle_acc| {
                for ((call, acc), other) in calls.iter().zip(bundle_acc.iter_mut()).zip(accs) {
                    call.merge(acc, other)?;
                }
                Ok(())
            },
        )?;
        let elements = self.global.elements();
        let names = &self.acc_names;
        ctx.record(&key_row, || TraceEvent::PartialMerged {
            accumulators: describe_accumulators(names, accs),
            elements,
        });
        if self.global_trigger.on_element() {
            self.finish_global(BundleTrigger::Count { size: self.global_trigger.max_count }, ctx)?;
        }
        Ok(())
    }

    /// The global `finishBundle()`.
    fn finish_global(&mut self, trigger: BundleTrigger, ctx: &mut Context) -> Result<(), String> {
        self.global_trigger.reset();
        if self.global.is_empty() {
            return Ok(());
        }
        let (elements, keys) = (self.global.elements(), self.global.keys() as u64);
        ctx.record_unkeyed(|| TraceEvent::BundleFinished { bundle: "bundle", trigger, elements, keys });
        for (key, _, bundle_acc) in self.global.drain() {
            let key_row = self.backend.keys.row(key).clone();
            self.backend.keys.intern(&key_row);
            let outcome = self.finish_global_key(key, &key_row, &bundle_acc, ctx);
            self.backend.keys.unhold(key);
            outcome?;
        }
        self.backend.keys.finish();
        Ok(())
    }

    fn finish_global_key(
        &mut self,
        key: KeyId,
        key_row: &Row,
        bundle_acc: &Accumulators,
        ctx: &mut Context,
    ) -> Result<(), String> {
        let now = ctx.now;
        let (mut state_acc, first_row) = match read_acc(&mut self.acc_state, &mut self.backend, key, key_row, ctx) {
            Some(accs) => (accs, false),
            None => (self.create(), true),
        };
        let prev = self.spec.output(key_row, &state_acc);
        for ((call, acc), other) in self.calls.iter().zip(state_acc.iter_mut()).zip(bundle_acc) {
            call.merge(acc, other)?;
        }
        let new = self.spec.output(key_row, &state_acc);
        if !record_count_is_zero(&self.calls, self.index_of_count_star, &state_acc) {
            self.acc_state.update(&mut self.backend.keys, key, state_acc, now);
            if first_row {
                ctx.collect(key_row, Message::new(Change::Kind(RowKind::Insert), new));
            } else if self.state_retention_ms > 0 || prev != new {
                if prev == new {
                    ctx.record(key_row, || super::unchanged_result_reemitted("MiniBatchGlobalGroupAggFunction"));
                }
                if self.spec.generate_update_before {
                    ctx.collect(key_row, Message::new(Change::Kind(RowKind::UpdateBefore), prev));
                }
                ctx.collect(key_row, Message::new(Change::Kind(RowKind::UpdateAfter), new));
            } else {
                ctx.record(key_row, || TraceEvent::Suppressed {
                    reason: "aggregate values unchanged and state TTL is off",
                    row: new,
                });
            }
        } else {
            if !first_row {
                ctx.collect(key_row, Message::new(Change::Kind(RowKind::Delete), prev));
            }
            self.acc_state.clear(&mut self.backend.keys, key);
            ctx.record(key_row, || TraceEvent::StateCleared {
                states: ACC_STATE,
                cause: ClearCause::CountZero,
                reason: "COUNT(*) reached 0 (recordCountIsZero)",
            });
        }
        Ok(())
    }

    fn bundle_cell(&self, bundle: &MapBundle<Accumulators>, key: KeyId) -> Option<StateCell> {
        bundle.get(key).map(|(accs, n)| StateCell {
            time_ms: None,
            value: format!("{} ({n} records)", describe_accumulators(&self.acc_names, accs)),
            entries: n as usize,
            visible: n as usize,
            ttl: None,
        })
    }
}

impl StreamOperator for MiniBatchLocalGlobalGroupAgg {
    fn flink_class(&self) -> &'static str {
        "MiniBatchLocalGroupAggFunction → MiniBatchGlobalGroupAggFunction"
    }

    /// The local `MapBundleOperator.processElement`: fold the row into the key's local
    /// accumulator, then the local count trigger.
    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.group_by);
        let key = self.backend.keys.intern(&key_row);
        let (calls, types) = (&self.calls, &self.key_types);
        self.local.add(
            &mut self.backend.keys,
            key,
            || binary_row_hash_code(&key_row, types),
            || calls.iter().map(AggCall::create_accumulator).collect(),
            |accs| accumulate_or_retract(calls, accs, &input.row, input.change.is_accumulate()),
        )?;
        let elements = self.local.elements();
        ctx.record(&key_row, || TraceEvent::Buffered { message: input.clone(), bundle: "local bundle", elements });
        if self.local_trigger.on_element() {
            self.finish_local(BundleTrigger::Count { size: self.local_trigger.max_count }, ctx)?;
        }
        Ok(())
    }

    /// The watermark finishes the local bundle, follows its output through the exchange, and
    /// finishes the global bundle.
    fn process_watermark(&mut self, watermark: Millis, ctx: &mut Context) -> Result<(), String> {
        let trigger = BundleTrigger::Watermark { watermark_ms: watermark };
        self.finish_local(trigger, ctx)?;
        self.finish_global(trigger, ctx)
    }

    fn bundled(&self) -> u64 {
        self.local.elements() + self.global.elements()
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        vec![self.acc_state.name, "bundle", "local bundle"]
    }

    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        vec![
            acc_state_cell(&self.spec, &self.acc_state, key, now),
            self.bundle_cell(&self.global, key),
            self.bundle_cell(&self.local, key),
        ]
    }

    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        acc_ttl(&self.acc_state, key, now)
    }

    fn entries_stored(&self) -> u64 {
        self.acc_state.stored() + self.bundled()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![
            (self.acc_state.name, self.acc_state.size(now)),
            ("bundle", StateSize { stored: self.global.elements(), expired: 0 }),
            ("local bundle", StateSize { stored: self.local.elements(), expired: 0 }),
        ]
    }
}
