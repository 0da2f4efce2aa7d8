//! Flink 2.3's `ProcTimeUnboundedPrecedingFunction`: `agg(x) OVER (PARTITION BY … ORDER BY
//! proctime ROWS|RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)`.
//!
//! Models `flink-table/flink-table-runtime/.../operators/over/ProcTimeUnboundedPrecedingFunction.java`
//! (Flink 2.x, read from the source). Since FLINK-29349 (1.17) it is a plain
//! `KeyedProcessFunction` whose only state, `accState`, has **state TTL**
//! (`StateConfigUtil.createTtlConfig(table.exec.state.ttl)`, `OnCreateAndWrite`,
//! `NeverReturnExpired`); it registers no timers:
//!
//! ```text
//! acc = accState.value() ?: createAccumulators()    // expired: removed, reads as null
//! accumulate(input); accState.update(acc)          // every row refreshes the TTL
//! emit +I[input, getValue()]
//! ```
//!
//! A key idle for longer than the TTL starts again from empty accumulators: `MIN(t_date)` then
//! forgets the user's first day (the seed-002 dilemma). `ROWS` and `RANGE` run the same code:
//! rows arriving in the same millisecond are not peers here. The legacy planner's
//! `ProcTimeUnboundedOver` (cleanup timers) is built by [`ProcTimeUnboundedPrecedingFunction::legacy`].

use super::over_aggregate::OverAggregateSpec;
use crate::engine::aggregate::{accumulate_or_retract, describe_accumulators, Accumulators};
use crate::engine::cleanup_state::CleanupState;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, RowKind};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::{StateCell, TtlView};

/// The processing-time unbounded over function with its keyed state.
#[derive(Debug, Clone)]
pub struct ProcTimeUnboundedPrecedingFunction {
    spec: OverAggregateSpec,
    pub(super) class: &'static str,
    backend: KeyedStateBackend,
    /// `"accState"` (Flink 2.3, with TTL) or `"overState"` (legacy, without).
    acc_state: ValueState<Accumulators>,
    /// The legacy planner's cleanup timers (`None` on Flink 2.3).
    pub(super) cleanup: Option<CleanupState>,
}

impl ProcTimeUnboundedPrecedingFunction {
    /// Flink 2.3, `state_ttl_ms` being `table.exec.state.ttl` (0 disables TTL).
    pub fn new(spec: OverAggregateSpec, state_ttl_ms: Millis) -> Self {
        let config = StateTtlConfig::create_ttl_config(state_ttl_ms);
        ProcTimeUnboundedPrecedingFunction {
            spec,
            class: "ProcTimeUnboundedPrecedingFunction",
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            acc_state: ValueState::with_ttl("accState", config),
            cleanup: None,
        }
    }

    pub(super) fn with_cleanup(
        spec: OverAggregateSpec,
        class: &'static str,
        state: &'static str,
        cleanup: CleanupState,
    ) -> Self {
        ProcTimeUnboundedPrecedingFunction {
            spec,
            class,
            backend: KeyedStateBackend::new(0),
            acc_state: ValueState::new(state),
            cleanup: Some(cleanup),
        }
    }
}

impl StreamOperator for ProcTimeUnboundedPrecedingFunction {
    fn flink_class(&self) -> &'static str {
        self.class
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.partition_by);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        if let Some(cleanup) = &mut self.cleanup {
            let decision = cleanup.process_cleanup_timer(&mut self.backend, key, now);
            ctx.record_cleanup(&key_row, decision);
        }
        let stored = match self.acc_state.value(&mut self.backend.keys, key, now) {
            TtlRead::Absent => None,
            TtlRead::Fresh(accs) => Some(accs),
            TtlRead::Expired { last_access_ms, expired_at_ms, returned } => {
                ctx.record(&key_row, || TraceEvent::StateExpired {
                    state: self.acc_state.name,
                    last_access_ms,
                    expired_at_ms,
                });
                returned
            }
        };
        let mut accs = stored.unwrap_or_else(|| self.spec.calls.iter().map(|c| c.create_accumulator()).collect());
        accumulate_or_retract(&self.spec.calls, &mut accs, &input.row, true)?;
        let out = self.spec.output(&input.row, &accs);
        self.acc_state.update(&mut self.backend.keys, key, accs, now);
        let change = if self.cleanup.is_some() { Change::Legacy(true) } else { Change::Kind(RowKind::Insert) };
        ctx.collect(&key_row, Message::new(change, out));
        Ok(())
    }

    /// The legacy planner's cleanup timer: `if (stateCleaningEnabled) cleanupState(state)`.
    fn on_timer(&mut self, timestamp: Millis, key: KeyId, ctx: &mut Context) -> Result<(), String> {
        let key_row = self.backend.keys.row(key).clone();
        ctx.record(&key_row, || TraceEvent::TimerFired { timer_ms: timestamp });
        let Some(cleanup) = &mut self.cleanup else { return Ok(()) };
        if cleanup.state_cleaning_enabled() {
            self.acc_state.clear(&mut self.backend.keys, key);
            cleanup.clear(&mut self.backend, key);
            ctx.record(&key_row, || TraceEvent::StateCleared {
                states: &["overState", "ProcTimeUnboundedPartitionedOverCleanupTime"],
                cause: ClearCause::CleanupTimer,
                reason: "cleanup timer fired: the accumulators are cleared; nothing is emitted",
            });
        }
        Ok(())
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        let mut names = vec![self.acc_state.name];
        names.extend(self.cleanup.as_ref().map(|c| c.cleanup_time_state.name));
        names
    }

    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        let names = self.spec.aggregate_columns();
        let acc = self.acc_state.peek(key).map(|stored| {
            let ttl = self.ttl_of(key, now);
            let visible = usize::from(!ttl.is_some_and(|t| t.expired));
            StateCell {
                time_ms: None,
                value: describe_accumulators(names, &stored.user_value),
                entries: 1,
                visible,
                ttl,
            }
        });
        let mut cells = vec![acc];
        if let Some(cleanup) = &self.cleanup {
            cells.push(cleanup.state_cell(key));
        }
        cells
    }

    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        let config = &self.acc_state.config;
        let stored = self.acc_state.peek(key)?;
        config.is_enabled().then(|| TtlView {
            last_access_ms: stored.last_access_ms,
            expires_at_ms: config.expiration_timestamp(stored.last_access_ms),
            expired: config.expired(stored.last_access_ms, now),
        })
    }

    fn cleanup_time(&self, key: KeyId) -> Option<Millis> {
        self.cleanup.as_ref().and_then(|c| c.cleanup_time(key))
    }

    fn entries_stored(&self) -> u64 {
        self.acc_state.stored() + self.cleanup.as_ref().map_or(0, |c| c.cleanup_time_state.stored())
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        let mut sizes = vec![(self.acc_state.name, self.acc_state.size(now))];
        if let Some(c) = &self.cleanup {
            sizes.push((c.cleanup_time_state.name, c.cleanup_time_state.size(now)));
        }
        sizes
    }
}
