//! Flink 2.3's `ProcTimeDeduplicateKeepLastRowFunction` (`flink-table-runtime/.../operators/
//! deduplicate/`, with `SyncStateDeduplicateFunctionBase` and
//! `DeduplicateFunctionHelper.processLastRowOnProcTime`, read from the source), as
//! `StreamExecDeduplicate` builds it (`inputInsertOnly = true`): the last row of each key on
//! processing time.
//!
//! ```text
//! checkInsertOnly(currentRow)                   // IllegalArgumentException for any other kind
//! if generateUpdateBefore || generateInsert:
//!     preRow = state.value()                    // "deduplicate-state", the key's last row
//!     state.update(currentRow)                  // every row is written, duplicates too
//!     if preRow == null: currentRow.setRowKind(INSERT); emit currentRow
//!     else if !isStateTtlEnabled && equaliser.equals(preRow, currentRow): return
//!     else:
//!         if generateUpdateBefore: preRow.setRowKind(UPDATE_BEFORE); emit preRow
//!         currentRow.setRowKind(UPDATE_AFTER); emit currentRow
//! else: currentRow.setRowKind(UPDATE_AFTER); emit currentRow      // no state at all
//! ```
//!
//! `isStateTtlEnabled` is `table.exec.state.ttl > 0`: with TTL on, an identical row is emitted as
//! `-U`/`+U` anyway ("to prevent too early state eviction of downstream operators").
//!
//! **The state backend decides which rows are identical.** The generated equaliser compares the
//! `RowKind` as well as the fields, and the row kind is set on the row *after* `state.update`:
//! - on the heap (`hashmap`) the state holds the very `currentRow` object, so the kind set on it
//!   afterwards is what the next `value()` returns: `+I` while the key's first row is stored,
//!   `+U` once any row was emitted as an update. An identical row (`+I` from the input) is dropped
//!   only while the stored row is still the key's first; after an update it comes out as
//!   `-U`/`+U`. A dropped identical row itself is stored as it came, `+I`.
//! - on RocksDB `update()` serializes the row (its kind included, `BinaryRowData`'s header) while
//!   it is still the input's `+I`; the later `setRowKind` changes only the object. Every read
//!   returns a `+I` row, so every identical row is dropped.
//!
//! Real Flink 2.3 agrees (`shared/oracle/dedup_last_proctime_*`, heap backend).

use super::deduplicate::DeduplicateSpec;
use super::proc_time_deduplicate_keep_first_row_function::check_insert_only;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::options::StateBackend;
use crate::engine::row::{Change, Message, Row, RowKind};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::{StateCell, TtlView};

/// The row `"deduplicate-state"` holds, with the `RowKind` a read of it returns.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRow {
    pub row: Row,
    pub kind: RowKind,
}

/// `ProcTimeDeduplicateKeepLastRowFunction` with its keyed state.
#[derive(Debug, Clone)]
pub struct ProcTimeDeduplicateKeepLastRowFunction {
    spec: DeduplicateSpec,
    backend: KeyedStateBackend,
    /// `isStateTtlEnabled`: `stateRetentionTime > 0`.
    is_state_ttl_enabled: bool,
    /// `"deduplicate-state"`: the key's last row.
    state: ValueState<StoredRow>,
}

impl ProcTimeDeduplicateKeepLastRowFunction {
    /// `new ProcTimeDeduplicateKeepLastRowFunction(typeInfo, stateRetentionTime,
    /// generateUpdateBefore, generateInsert, true, equaliser)`; the state's TTL is
    /// `StateConfigUtil.createTtlConfig(stateRetentionTime)`.
    pub fn new(spec: DeduplicateSpec, state_retention_ms: Millis) -> Self {
        let config = StateTtlConfig::create_ttl_config(state_retention_ms);
        ProcTimeDeduplicateKeepLastRowFunction {
            spec,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            is_state_ttl_enabled: state_retention_ms > 0,
            state: ValueState::with_ttl("deduplicate-state", config),
        }
    }

    /// The kind a later read of the row stored now returns, `kind` being the one the function
    /// sets on `currentRow` after `state.update(currentRow)`.
    fn stored_kind(&self, kind: RowKind) -> RowKind {
        match self.spec.state_backend {
            StateBackend::HashMap => kind,
            StateBackend::RocksDb => RowKind::Insert,
        }
    }
}

impl StreamOperator for ProcTimeDeduplicateKeepLastRowFunction {
    fn flink_class(&self) -> &'static str {
        "ProcTimeDeduplicateKeepLastRowFunction"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.key);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        check_insert_only(input)?;
        let emit = |kind: RowKind, row: &Row| Message::new(Change::Kind(kind), row.clone());
        if !self.spec.generate_update_before && !self.spec.generate_insert {
            ctx.collect(&key_row, emit(RowKind::UpdateAfter, &input.row));
            return Ok(());
        }
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
        match pre {
            None => {
                let kind = self.stored_kind(RowKind::Insert);
                self.state.update(&mut self.backend.keys, key, StoredRow { row: input.row.clone(), kind }, now);
                ctx.collect(&key_row, emit(RowKind::Insert, &input.row));
            }
            // `equaliser.equals(preRow, currentRow)`: the kinds (the input is an INSERT) and the values.
            Some(pre)
                if !self.is_state_ttl_enabled
                    && pre.kind == RowKind::Insert
                    && self.spec.equal_values(&pre.row, &input.row) =>
            {
                // The input is stored as it came (INSERT) before the check returns.
                let kind = RowKind::Insert;
                self.state.update(&mut self.backend.keys, key, StoredRow { row: input.row.clone(), kind }, now);
                ctx.record(&key_row, || TraceEvent::Suppressed {
                    reason: "duplicate: keep LastRow, identical to the stored row (RowKind included) and state TTL \
                             is off: no -U/+U",
                    row: pre.row,
                });
            }
            Some(pre) => {
                let kind = self.stored_kind(RowKind::UpdateAfter);
                self.state.update(&mut self.backend.keys, key, StoredRow { row: input.row.clone(), kind }, now);
                if self.spec.generate_update_before {
                    ctx.collect(&key_row, emit(RowKind::UpdateBefore, &pre.row));
                }
                ctx.collect(&key_row, emit(RowKind::UpdateAfter, &input.row));
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

    /// The stored row with the kind a read returns, e.g. `+U[a, 3]`.
    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        vec![self.state.peek(key).map(|stored| {
            let ttl = self.ttl_of(key, now);
            let StoredRow { row, kind } = &stored.user_value;
            StateCell {
                time_ms: None,
                value: format!("{}[{}]", kind.short_string(), row.join(", ")),
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
