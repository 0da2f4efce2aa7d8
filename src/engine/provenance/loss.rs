//! A loss: where, when and by which rule an operator lost a key's state without a message.

use super::Lineage;
use crate::engine::row::Row;
use crate::engine::time::{Millis, TimeFormat};

/// The rule by which state was lost without a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossRule {
    /// The idle-state-retention cleanup timer fired and cleared the key's state
    /// (`KeyedProcessFunctionWithCleanupState.cleanupState`, `GroupAggProcessFunction.onTimer`).
    CleanupTimer { timer_ms: Millis },
    /// State TTL expired (`lastAccess + ttl <= now`) and a later read removed the entry
    /// (`AbstractTtlDecorator.getWithTtlCheckAndUpdate`, `NeverReturnExpired`).
    TtlExpiredRemoved { last_access_ms: Millis, removed_at_ms: Millis },
    /// State TTL expired and the entry is still stored, invisible to every read
    /// (`NeverReturnExpired`; background cleanup is not modelled).
    TtlExpiredStored { last_access_ms: Millis },
}

/// Where and how an operator lost a key's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Loss {
    /// The operator's index in the pipeline, and its id.
    pub op: usize,
    pub op_id: String,
    pub key: Row,
    /// Which of the operator's states lost it, when only one of several did (a join's
    /// `left-records` or `right-records`).
    pub state: Option<String>,
    /// From this processing time on the state is gone (invisible).
    pub at_ms: Millis,
    pub rule: LossRule,
    /// The inputs the lost state held.
    pub inputs: Lineage,
    /// The trace entry that shows it (none for an expiry no read has found yet).
    pub entry: Option<usize>,
}

impl Loss {
    /// Where, when and by which rule, for people:
    /// `inner lost key dev1 at 2019-11-22 15:00: its cleanup timer for 2019-11-22 15:00 fired and cleared it; nothing was emitted`.
    pub fn describe(&self, tf: TimeFormat) -> String {
        let why = match self.rule {
            LossRule::CleanupTimer { timer_ms } => {
                format!("its cleanup timer for {} fired and cleared it", tf.format(timer_ms))
            }
            LossRule::TtlExpiredRemoved { last_access_ms, removed_at_ms } => format!(
                "state TTL expired (last access {} + ttl <= now); a read at {} removed it",
                tf.format(last_access_ms),
                tf.format(removed_at_ms)
            ),
            LossRule::TtlExpiredStored { last_access_ms } => format!(
                "state TTL expired (last access {} + ttl <= now); still stored, invisible to reads (NeverReturnExpired)",
                tf.format(last_access_ms)
            ),
        };
        let state = self.state.as_ref().map_or(String::new(), |s| format!(" ({s})"));
        format!(
            "{} lost key {}{state} at {}: {why}; nothing was emitted",
            self.op_id,
            self.key.key_label(),
            tf.format(self.at_ms)
        )
    }
}
