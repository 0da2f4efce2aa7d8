//! Read-only views of the engine's state, for the page and the CLI. Everything here is computed
//! by the engine (visibility, cleanup times); the UI only draws it.

use super::row::Row;
use super::time::Millis;

/// One operator as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorView {
    pub id: String,
    /// The Flink class it models, e.g. `GroupAggProcessFunction`.
    pub flink_class: &'static str,
    /// Flink's plan text, e.g. `GroupAggregate(groupBy=[devId], select=[...])`.
    pub plan: String,
    /// The names of the operator's keyed states, as Flink names them.
    pub state_names: Vec<&'static str>,
    pub keys: Vec<KeyView>,
}

/// One key of an operator: its state, timers and expiry.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyView {
    /// The grouping key for people ([`Row::key_label`]).
    pub key: String,
    /// The grouping key's values.
    pub row: Row,
    /// `name: accumulator` for each aggregate, or `None` when nothing is stored.
    pub accumulators: Option<String>,
    /// The legacy planner's `GroupAggregateInputCounter`.
    pub input_count: Option<i64>,
    /// The stored cleanup time `C` (legacy idle state retention), in ms.
    pub cleanup_time_ms: Option<Millis>,
    /// Registered processing-time timers of the key, in ms.
    pub timers_ms: Vec<Millis>,
    /// State TTL of the key's accumulator state.
    pub ttl: Option<TtlView>,
}

/// State TTL of one stored value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtlView {
    /// Last refreshing access (a write, with `OnCreateAndWrite`), in ms.
    pub last_access_ms: Millis,
    /// `lastAccess + ttl`: from this processing time on the value is expired.
    pub expires_at_ms: Millis,
    /// Expired but still stored: invisible to reads (`NeverReturnExpired`), removed on the next read.
    pub expired: bool,
}
