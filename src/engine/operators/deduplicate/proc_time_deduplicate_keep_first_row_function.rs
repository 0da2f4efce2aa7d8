//! Flink 2.3's `ProcTimeDeduplicateKeepFirstRowFunction` (`flink-table-runtime/.../operators/
//! deduplicate/`, with `SyncStateDeduplicateFunctionBase` and
//! `DeduplicateFunctionHelper.processFirstRowOnProcTime`, read from the source): the first row of
//! each key on processing time.
//!
//! ```text
//! checkInsertOnly(input)                       // IllegalArgumentException for any other kind
//! if state.value() != null: return             // "deduplicate-state", a Boolean flag
//! state.update(true)
//! out.collect(input)                           // +I
//! ```
//!
//! A dropped duplicate only reads the flag, and a read does not refresh state TTL
//! (`OnCreateAndWrite`): the flag expires `table.exec.state.ttl` after the key's first row however
//! many duplicates follow, and the next row of the key is then emitted again, as if the key were
//! new (`shared/cases` C13). The state backend changes nothing here.

use super::deduplicate::DeduplicateSpec;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, RowKind};
use crate::engine::state::ttl::{StateTtlConfig, TtlRead};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize, ValueState};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::{StateCell, TtlView};

/// `ProcTimeDeduplicateKeepFirstRowFunction` with its keyed state.
#[derive(Debug, Clone)]
pub struct ProcTimeDeduplicateKeepFirstRowFunction {
    spec: DeduplicateSpec,
    backend: KeyedStateBackend,
    /// `"deduplicate-state"`: whether the key has had its first row.
    state: ValueState<bool>,
}

impl ProcTimeDeduplicateKeepFirstRowFunction {
    /// `new ProcTimeDeduplicateKeepFirstRowFunction(stateRetentionTime)`; the state's TTL is
    /// `StateConfigUtil.createTtlConfig(stateRetentionTime)`.
    pub fn new(spec: DeduplicateSpec, state_retention_ms: Millis) -> Self {
        let config = StateTtlConfig::create_ttl_config(state_retention_ms);
        ProcTimeDeduplicateKeepFirstRowFunction {
            spec,
            backend: KeyedStateBackend::new(config.enabled_ttl_ms()),
            state: ValueState::with_ttl("deduplicate-state", config),
        }
    }
}

/// `DeduplicateFunctionHelper.checkInsertOnly`: `Preconditions.checkArgument(currentRow.getRowKind()
/// == RowKind.INSERT)`. The planner only builds a Deduplicate over an input it labels insert-only;
/// a `+U` arriving anyway (an input mislabelled insert-only, FLINK-39966) fails the job.
pub(super) fn check_insert_only(input: &Message) -> Result<(), String> {
    match input.change {
        Change::Kind(RowKind::Insert) => Ok(()),
        _ => Err(format!(
            "java.lang.IllegalArgumentException in DeduplicateFunctionHelper.checkInsertOnly: {input} is not an \
             INSERT (the planner built this Deduplicate for an insert-only input)"
        )),
    }
}

impl StreamOperator for ProcTimeDeduplicateKeepFirstRowFunction {
    fn flink_class(&self) -> &'static str {
        "ProcTimeDeduplicateKeepFirstRowFunction"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let key_row = input.row.project(&self.spec.key);
        let key = self.backend.keys.intern(&key_row);
        let now = ctx.now;
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        check_insert_only(input)?;
        match self.state.value(&mut self.backend.keys, key, now) {
            TtlRead::Fresh(_) => {
                ctx.record(&key_row, || TraceEvent::Dropped {
                    message: input.clone(),
                    reason: "duplicate: keep FirstRow (the key's flag is set; reading it does not refresh its TTL)",
                });
                return Ok(());
            }
            TtlRead::Absent => {}
            TtlRead::Expired { last_access_ms, expired_at_ms, .. } => {
                ctx.record(&key_row, || TraceEvent::StateExpired {
                    state: self.state.name,
                    last_access_ms,
                    expired_at_ms,
                });
                ctx.state_lost(&key_row, expired_at_ms);
            }
        }
        self.state.update(&mut self.backend.keys, key, true, now);
        ctx.collect(&key_row, input.clone());
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

    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        vec![self.state.peek(key).map(|stored| {
            let ttl = self.ttl_of(key, now);
            StateCell {
                time_ms: None,
                value: stored.user_value.to_string(),
                entries: 1,
                visible: usize::from(!ttl.is_some_and(|t| t.expired)),
                ttl,
            }
        })]
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
