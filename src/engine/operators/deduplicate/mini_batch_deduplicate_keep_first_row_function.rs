//! Keep-first deduplication with mini-batch on, run by a `KeyedMapBundleOperator` (what
//! `StreamExecDeduplicate` builds when `table.exec.mini-batch.enabled` is on), over [`MapBundle`]:
//!
//! - Flink 2.3.0: `ProcTimeMiniBatchDeduplicateKeepFirstRowFunction` (`flink-table-runtime/.../
//!   operators/deduplicate/`, with `MiniBatchDeduplicateFunctionBase`, read from the source): the
//!   flag `"deduplicate-state"` has state TTL `StateConfigUtil.createTtlConfig(stateRetentionTime)`.
//! - Flink 1.9.0 – 1.10.0 (Blink): `MiniBatchDeduplicateKeepFirstRowFunction` in
//!   `flink-table-runtime-blink`, built as `new MiniBatchDeduplicateKeepFirstRowFunction(rowSerializer)`
//!   by 1.10's `StreamExecDeduplicate.translateToPlanInternal` (read from the source): no
//!   retention at all, neither state TTL nor cleanup timers (a `MapBundleFunction` has no timer
//!   service). FLINK-16581 ("Minibatch deduplication lack state TTL", apache/flink PR #11482,
//!   merged 2020-03-22, so 1.11) gave it state TTL: before it the flag `"existsState"` of every key
//!   ever seen stays forever (`shared/cases` C13, pre-fix).
//!
//! ```text
//! addInput(value, input): value == null ? copy(input) : value    // the bundle keeps the key's first row
//! finishBundle(buffer):                                          // count trigger or mini-batch watermark
//!   for (key, row) in buffer (HashMap order):
//!     ctx.setCurrentKey(key)
//!     processFirstRowOnProcTime(row, state, out)                 // 1.10: processFirstRow, the same steps
//!       checkInsertOnly(row); if state.value() != null: return
//!       state.update(true); out.collect(row)
//! ```
//!
//! The later rows of a key in the same bundle are dropped as they arrive (the bundle keeps the
//! first); the first one is only checked against the flag when the bundle finishes. In 2.3 the
//! planner no longer labels the output insert-only (`RankUtil.outputInsertOnlyInDeduplicate`:
//! keep-first *and* mini-batch off), though it only ever emits `+I`.

use super::deduplicate::DeduplicateSpec;
use super::deduplicate_keep_first_row_function::check_accumulate;
use super::proc_time_deduplicate_keep_first_row_function::check_insert_only;
use crate::engine::operators::binary_row::binary_row_hash_code;
use crate::engine::operators::map_bundle::{CountBundleTrigger, MapBundle};
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::options::FlinkMode;
use crate::engine::row::{DataType, Message, Row};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{BundleTrigger, TraceEvent};
use crate::engine::view::{StateCell, TtlView};
use std::convert::Infallible;

/// A keep-first mini-batch deduplication in its `KeyedMapBundleOperator`, with its keyed state
/// and bundle.
#[derive(Debug, Clone)]
pub struct MiniBatchDeduplicateKeepFirstRowFunction {
    spec: DeduplicateSpec,
    /// `Blink1_10`: the class before FLINK-16581; otherwise Flink 2.3's.
    flink: FlinkMode,
    key_types: Vec<DataType>,
    backend: KeyedStateBackend,
    /// Whether the key has had its first row.
    state: ValueState<bool>,
    /// Each key's first row of the bundle.
    bundle: MapBundle<Message>,
    trigger: CountBundleTrigger,
}

impl MiniBatchDeduplicateKeepFirstRowFunction {
    /// `state_retention_ms` is `table.exec.state.ttl` (ignored before FLINK-16581, `1.10-blink`),
    /// `size` is `table.exec.mini-batch.size`.
    pub fn new(spec: DeduplicateSpec, state_retention_ms: Millis, size: u64, flink: FlinkMode) -> Self {
        let (name, ttl_ms) = match flink {
            FlinkMode::Blink1_10 => ("existsState", 0),
            _ => ("deduplicate-state", state_retention_ms),
        };
        let config = StateTtlConfig::create_ttl_config(ttl_ms);
        MiniBatchDeduplicateKeepFirstRowFunction {
            key_types: spec.key.iter().map(|&i| spec.columns[i].data_type).collect(),
            spec,
            flink,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            state: ValueState::with_ttl(name, config),
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
        for (key, _, row) in self.bundle.drain() {
            let key_row = self.backend.keys.row(key).clone();
            self.backend.keys.intern(&key_row);
            let outcome = self.finish_key(key, &key_row, row, ctx);
            self.backend.keys.unhold(key);
            outcome?;
        }
        self.backend.keys.finish();
        Ok(())
    }

    /// `finishBundle`'s loop body: `processFirstRowOnProcTime` (1.10: `processFirstRow`).
    fn finish_key(&mut self, key: KeyId, key_row: &Row, row: Message, ctx: &mut Context) -> Result<(), String> {
        let now = ctx.now;
        match self.flink {
            FlinkMode::Blink1_10 => check_accumulate(&row)?,
            _ => check_insert_only(&row)?,
        }
        match self.state.value(&mut self.backend.keys, key, now) {
            TtlRead::Fresh(_) => {
                ctx.record(key_row, || TraceEvent::Dropped {
                    message: row,
                    reason: "duplicate: keep FirstRow (the bundle's first row of the key, but the key's flag is set)",
                });
                return Ok(());
            }
            TtlRead::Absent => {}
            TtlRead::Expired { last_access_ms, expired_at_ms, .. } => {
                ctx.record(key_row, || TraceEvent::StateExpired {
                    state: self.state.name,
                    last_access_ms,
                    expired_at_ms,
                });
                ctx.state_lost(key_row, expired_at_ms);
            }
        }
        self.state.update(&mut self.backend.keys, key, true, now);
        ctx.collect(key_row, row);
        Ok(())
    }
}

impl StreamOperator for MiniBatchDeduplicateKeepFirstRowFunction {
    fn flink_class(&self) -> &'static str {
        match self.flink {
            FlinkMode::Blink1_10 => "MiniBatchDeduplicateKeepFirstRowFunction",
            _ => "ProcTimeMiniBatchDeduplicateKeepFirstRowFunction",
        }
    }

    /// `AbstractMapBundleOperator.processElement`: `addInput` keeps the key's first row of the
    /// bundle, then the count trigger.
    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.key);
        let key = self.backend.keys.intern(&key_row);
        let types = &self.key_types;
        let mut first = false;
        let Ok(()) = self.bundle.add::<Infallible>(
            &mut self.backend.keys,
            key,
            || binary_row_hash_code(&key_row, types),
            || {
                first = true;
                input.clone()
            },
            |_| Ok(()),
        );
        let elements = self.bundle.elements();
        if first {
            ctx.record(&key_row, || TraceEvent::Buffered { message: input.clone(), bundle: "bundle", elements });
        } else {
            ctx.record(&key_row, || TraceEvent::Dropped {
                message: input.clone(),
                reason: "not the key's first row in this bundle: addInput keeps the value it has",
            });
        }
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
        vec![self.state.name, "bundle"]
    }

    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        let flag = self.state.peek(key).map(|stored| {
            let ttl = self.ttl_of(key, now);
            StateCell {
                time_ms: None,
                value: stored.user_value.to_string(),
                entries: 1,
                visible: usize::from(!ttl.is_some_and(|t| t.expired)),
                ttl,
            }
        });
        let bundle = self.bundle.get(key).map(|(row, n)| StateCell {
            time_ms: None,
            value: format!("{row} (first of {n})"),
            entries: 1,
            visible: 1,
            ttl: None,
        });
        vec![flag, bundle]
    }

    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        self.state.ttl_view(key, now)
    }

    fn entries_stored(&self) -> u64 {
        self.state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![(self.state.name, self.state.size(now))]
    }
}
