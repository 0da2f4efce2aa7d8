//! Flink 2.3.0's `ProcTimeDeduplicateKeepLastRowFunction` as `StreamExecChangelogNormalize`
//! builds it (`inputIsInsertOnly = false`, no filter condition): `processElement` calls
//! `DeduplicateFunctionHelper.processLastRowOnChangelog(row, generateUpdateBefore, state, out,
//! isStateTtlEnabled, equaliser)`. Read from the 2.3.0 bytecode (`processElement` 0–95,
//! `processLastRowOnChangelog` 0–162, `areRowsWithSameContent`, `SyncStateDeduplicateFunctionBase.open`):
//!
//! ```text
//! pre = state.value()                                  // "deduplicate-state"; null if absent or expired
//! if row is INSERT or UPDATE_AFTER:
//!     if pre == null: row.kind = INSERT; emit row      // first row of the key → +I
//!     else:
//!         if !isStateTtlEnabled && areRowsWithSameContent(equaliser, pre, row): return   // no output, no write
//!         if generateUpdateBefore: pre.kind = UPDATE_BEFORE; emit pre                      // -U = the STORED row
//!         row.kind = UPDATE_AFTER; emit row
//!     row.kind = INSERT; state.update(row)             // stored as INSERT, on either backend
//! else (UPDATE_BEFORE or DELETE):
//!     if pre != null: pre.kind = DELETE; emit pre; state.clear()                     // -D = the STORED row
//!     // pre == null: nothing emitted (a -D for an absent or expired key is dropped)
//! ```
//!
//! - `isStateTtlEnabled` = `table.exec.state.ttl > 0`: with TTL on, an identical upsert is
//!   emitted as `-U`/`+U` anyway (and refreshes the state's TTL); only with TTL off is it dropped.
//! - `areRowsWithSameContent` compares an `UPDATE_AFTER` input as `INSERT` and the stored row is
//!   always `INSERT`, so the values alone decide (unlike the insert-only path, where the heap
//!   backend's row kind matters).
//! - The state: one `ValueState<RowData>` `"deduplicate-state"` per primary key holding the last
//!   full row, TTL `StateConfigUtil.createTtlConfig(table.exec.state.ttl)` (`OnCreateAndWrite`,
//!   `NeverReturnExpired`): reads do not refresh it, only `update` does.
//! - Over a changelog with `-U`, the planner's `DropUpdateBefore` drops them first (they would
//!   otherwise delete the key here).

use super::changelog_normalize::ChangelogNormalizeSpec;
use super::drop_update_before_function;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Row, RowKind};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent};
use crate::engine::view::{StateCell, TtlView};

/// The states `state.clear()` clears.
const STATES: &[&str] = &["deduplicate-state"];

/// `ProcTimeDeduplicateKeepLastRowFunction` on a changelog, with its keyed state.
#[derive(Debug, Clone)]
pub struct ProcTimeDeduplicateKeepLastRowOnChangelog {
    spec: ChangelogNormalizeSpec,
    backend: KeyedStateBackend,
    /// `isStateTtlEnabled`: `stateRetentionTime > 0`.
    is_state_ttl_enabled: bool,
    /// `"deduplicate-state"`: the key's last full row (stored with `RowKind.INSERT`).
    state: ValueState<Row>,
}

impl ProcTimeDeduplicateKeepLastRowOnChangelog {
    /// `new ProcTimeDeduplicateKeepLastRowFunction(typeInfo, stateRetentionTime,
    /// generateUpdateBefore, true, false, equaliser, null)`.
    pub fn new(spec: ChangelogNormalizeSpec, state_retention_ms: Millis) -> Self {
        let config = StateTtlConfig::create_ttl_config(state_retention_ms);
        ProcTimeDeduplicateKeepLastRowOnChangelog {
            spec,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            is_state_ttl_enabled: state_retention_ms > 0,
            state: ValueState::with_ttl(STATES[0], config),
        }
    }
}

impl StreamOperator for ProcTimeDeduplicateKeepLastRowOnChangelog {
    fn flink_class(&self) -> &'static str {
        "ProcTimeDeduplicateKeepLastRowFunction"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.key);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        if self.spec.drop_update_before && drop_update_before_function::drops(input) {
            ctx.record(&key_row, || TraceEvent::Dropped {
                message: input.clone(),
                reason: "DropUpdateBefore: the planner drops the source's -U before the exchange \
                         (ChangelogNormalize asks its input for ONLY_UPDATE_AFTER)",
            });
            return Ok(());
        }
        let kind = match input.change {
            Change::Kind(kind) => kind,
            Change::Legacy(accumulate) => {
                if accumulate {
                    RowKind::Insert
                } else {
                    RowKind::Delete
                }
            }
        };
        let key = self.backend.keys.intern(&key_row);
        let pre = match self.state.value(&mut self.backend.keys, key, now) {
            TtlRead::Fresh(row) => Some(row),
            TtlRead::Absent => None,
            TtlRead::Expired { last_access_ms, expired_at_ms, returned } => {
                ctx.record(&key_row, || TraceEvent::StateExpired {
                    state: self.state.name,
                    last_access_ms,
                    expired_at_ms,
                });
                ctx.state_lost(&key_row, expired_at_ms);
                returned
            }
        };
        let emit = |kind: RowKind, row: &Row| Message::new(Change::Kind(kind), row.clone());
        match (kind, pre) {
            (RowKind::Insert | RowKind::UpdateAfter, None) => {
                ctx.collect(&key_row, emit(RowKind::Insert, &input.row));
                self.state.update(&mut self.backend.keys, key, input.row.clone(), now);
            }
            (RowKind::Insert | RowKind::UpdateAfter, Some(pre))
                if !self.is_state_ttl_enabled && self.spec.same_content(&pre, &input.row) =>
            {
                ctx.record(&key_row, || TraceEvent::Suppressed {
                    reason: "duplicate: same content as the stored row and state TTL is off \
                             (areRowsWithSameContent): no -U/+U, no state write",
                    row: pre,
                });
            }
            (RowKind::Insert | RowKind::UpdateAfter, Some(pre)) => {
                if self.spec.generate_update_before {
                    ctx.collect(&key_row, emit(RowKind::UpdateBefore, &pre));
                }
                ctx.collect(&key_row, emit(RowKind::UpdateAfter, &input.row));
                self.state.update(&mut self.backend.keys, key, input.row.clone(), now);
            }
            (_, Some(pre)) => {
                ctx.collect(&key_row, emit(RowKind::Delete, &pre));
                self.state.clear(&mut self.backend.keys, key);
                ctx.record(&key_row, || TraceEvent::StateCleared {
                    states: STATES,
                    cause: ClearCause::RowDeleted,
                    reason: "the key's row was deleted: -D with the stored row, state.clear()",
                });
            }
            (_, None) => {
                ctx.record(&key_row, || TraceEvent::Dropped {
                    message: input.clone(),
                    reason: "no stored row for the key (never seen, deleted, or expired): nothing to delete, \
                             nothing emitted",
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
        vec![self.state.name]
    }

    /// The stored row, e.g. `+I[1, a]` (it is always stored as an INSERT).
    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        vec![self.state.peek(key).map(|stored| {
            let ttl = self.ttl_of(key, now);
            StateCell {
                time_ms: None,
                value: format!("+I[{}]", stored.user_value.join(", ")),
                entries: 1,
                visible: usize::from(!ttl.is_some_and(|t| t.expired)),
                ttl,
            }
        })]
    }

    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        let config = &self.state.config;
        let stored = self.state.peek(key)?;
        config.is_enabled().then(|| TtlView {
            last_access_ms: stored.last_access_ms,
            expires_at_ms: config.expiration_timestamp(stored.last_access_ms),
            expired: config.expired(stored.last_access_ms, now),
        })
    }

    fn entries_stored(&self) -> u64 {
        self.state.stored()
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![(self.state.name, self.state.size(now))]
    }
}
