//! Read-only views of the engine's state, for the page and the CLI. Everything here is computed
//! by the engine (visibility, cleanup times); the UI only draws it.

use super::row::Row;
use super::state::StateSize;
use super::time::Millis;

/// One operator as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorView {
    pub id: String,
    /// The Flink class it models, e.g. `GroupAggProcessFunction`.
    pub flink_class: &'static str,
    /// Flink's plan text, e.g. `GroupAggregate(groupBy=[devId], select=[...])`.
    pub plan: String,
    /// What the plan text leaves unsaid: a user-defined function printed like a built-in.
    pub plan_notes: Vec<&'static str>,
    /// The names of the operator's keyed states, as Flink names them.
    pub state_names: Vec<&'static str>,
    /// Keys in key order (the first `limit` of them when the view is limited).
    pub keys: Vec<KeyView>,
    /// How many keys hold state or timers.
    pub key_count: usize,
    /// The size of each state now, in `state_names` order.
    pub sizes: Vec<StateSize>,
    /// Rows held inside list-valued entries, all keys together (`SinkUpsertMaterializer`'s
    /// rows; 0 for other operators): [`crate::engine::operators::StreamOperator::list_rows`].
    pub list_rows: u64,
    /// Its own metrics by Flink's names, for an operator that has any beyond the samples'
    /// (`numStateTtlEvictions` of a `LATERAL SNAPSHOT` join).
    pub metrics: Vec<(&'static str, String)>,
}

/// One key of an operator: its state, timers and expiry.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyView {
    /// The grouping key for people ([`Row::key_label`]).
    pub key: String,
    /// The grouping key's values.
    pub row: Row,
    /// What each state holds for the key, in [`OperatorView::state_names`] order.
    pub states: Vec<Option<StateCell>>,
    /// The stored cleanup time `C` (legacy idle state retention), in ms.
    pub cleanup_time_ms: Option<Millis>,
    /// Registered processing-time timers of the key, in ms.
    pub timers_ms: Vec<Millis>,
    /// State TTL of the key's first TTL state entry.
    pub ttl: Option<TtlView>,
}

/// What one state holds for one key.
#[derive(Debug, Clone, PartialEq)]
pub struct StateCell {
    /// The value for people, e.g. `cnt: 3, s: sum=6 count=3`.
    pub value: String,
    /// Entries stored (1 for a value state; entries of a map; elements of a list).
    pub entries: usize,
    /// Of those, entries read would still see.
    pub visible: usize,
    /// TTL of the entry (the newest entry of a map or list), when the state has a TTL.
    pub ttl: Option<TtlView>,
    /// The value is a processing time in ms (a `ValueState<Long>` holding a cleanup time or a
    /// timer's deadline), which views show in the scenario's time units.
    pub time_ms: Option<Millis>,
}

/// State TTL of one stored entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtlView {
    /// Last refreshing access (a write, with `OnCreateAndWrite`), in ms.
    pub last_access_ms: Millis,
    /// `lastAccess + ttl`: from this processing time on the entry is expired.
    pub expires_at_ms: Millis,
    /// Expired but still stored: invisible to reads (`NeverReturnExpired`), removed on the next read.
    pub expired: bool,
}

impl TtlView {
    /// The time-to-live the entry was written with: `expires_at − last_access`
    /// (`StateTtlConfig`'s ttl; for a join, its side's: `StreamingJoinOperator`'s
    /// `leftStateRetentionTime` / `rightStateRetentionTime`, Flink 2.3.0). How the page names a
    /// state's TTL next to its value.
    pub fn ttl_ms(&self) -> Millis {
        self.expires_at_ms.saturating_sub(self.last_access_ms)
    }
}
