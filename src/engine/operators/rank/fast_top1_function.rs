//! Flink 2.3's `FastTop1Function` (with `FastTop1Helper`; `flink-table-runtime/.../operators/rank/`,
//! read from the source): the top-1 row of each partition over an append-only input.
//!
//! ```text
//! prevRow = dataState.value()                 // "Top1-Rank-State" (through an LRU cache)
//! if prevRow == null: state = input; emit +I[input]
//! else if compare(sortKey(input), sortKey(prevRow)) < 0:   // strictly better
//!     state = input; emit -U[prevRow] (only if generateUpdateBefore), +U[input]
//! // an equal or worse row changes nothing and emits nothing
//! ```
//!
//! The state is written only when the top row changes, so under state TTL only those writes
//! refresh it (Flink's cache expires after write too). The rank column, when output, is always 1.

use super::rank::RankSpec;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Row, RowKind};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::{StateCell, TtlView};

/// `FastTop1Function` with its keyed state.
#[derive(Debug, Clone)]
pub struct FastTop1Function {
    spec: RankSpec,
    backend: KeyedStateBackend,
    /// `"Top1-Rank-State"`: the partition's current top row.
    data_state: ValueState<Row>,
}

impl FastTop1Function {
    pub fn new(spec: RankSpec, state_ttl_ms: Millis) -> Self {
        let config = StateTtlConfig::create_ttl_config(state_ttl_ms);
        FastTop1Function {
            spec,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            data_state: ValueState::with_ttl("Top1-Rank-State", config),
        }
    }
}

impl StreamOperator for FastTop1Function {
    fn flink_class(&self) -> &'static str {
        "FastTop1Function"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.partition_by);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let prev = match self.data_state.value(&mut self.backend.keys, key, now) {
            TtlRead::Fresh(row) => Some(row),
            TtlRead::Absent => None,
            TtlRead::Expired { last_access_ms, expired_at_ms, returned } => {
                ctx.record(&key_row, || TraceEvent::StateExpired {
                    state: self.data_state.name,
                    last_access_ms,
                    expired_at_ms,
                });
                ctx.state_lost(&key_row, expired_at_ms);
                returned
            }
        };
        let emit = |kind: RowKind, row: &Row| Message::new(Change::Kind(kind), self.spec.output(row, 1));
        match prev {
            None => {
                self.data_state.update(&mut self.backend.keys, key, input.row.clone(), now);
                ctx.collect(&key_row, emit(RowKind::Insert, &input.row));
            }
            Some(prev) if self.spec.sort.key(&input.row) < self.spec.sort.key(&prev) => {
                self.data_state.update(&mut self.backend.keys, key, input.row.clone(), now);
                if self.spec.generate_update_before {
                    ctx.collect(&key_row, emit(RowKind::UpdateBefore, &prev));
                }
                ctx.collect(&key_row, emit(RowKind::UpdateAfter, &input.row));
            }
            Some(prev) => {
                ctx.record(&key_row, || TraceEvent::Suppressed {
                    reason: "the sort key is not better than the top row's",
                    row: prev,
                });
            }
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
        vec![self.data_state.name]
    }

    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        vec![self.data_state.peek(key).map(|stored| {
            let ttl = self.ttl_of(key, now);
            StateCell {
                time_ms: None,
                value: format!("[{}]", stored.user_value.join(", ")),
                entries: 1,
                visible: usize::from(!ttl.is_some_and(|t| t.expired)),
                ttl,
            }
        })]
    }

    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        let config = &self.data_state.config;
        let stored = self.data_state.peek(key)?;
        config.is_enabled().then(|| TtlView {
            last_access_ms: stored.last_access_ms,
            expires_at_ms: config.expiration_timestamp(stored.last_access_ms),
            expired: config.expired(stored.last_access_ms, now),
        })
    }

    fn entries_stored(&self) -> u64 {
        self.data_state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![(self.data_state.name, self.data_state.size(now))]
    }
}
