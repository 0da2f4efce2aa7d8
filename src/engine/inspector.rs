//! The state inspector's query: per operator and key, what each keyed state holds, the last
//! access, the cleanup time or TTL expiry, and whether the state is visible, expired but still
//! stored, or gone — with a key filter and a cap, so an operator of many keys stays light on
//! the page. Read from the operators' views ([`super::view`]) and the kept trace; the rules
//! (visibility by `lastAccess + ttl <= now`, `NeverReturnExpired`) are the state layer's.

use super::row::Row;
use super::simulation::Simulation;
use super::time::Millis;
use super::trace::{ClearCause, TraceEvent};
use super::view::StateCell;
use std::collections::HashMap;

/// What became of a key's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStatus {
    /// Stored and visible to reads.
    Visible,
    /// State TTL expired at `since_ms` (`lastAccess + ttl <= now`): still stored, invisible to
    /// every read (`NeverReturnExpired`), removed by the next read of the key.
    ExpiredStored { since_ms: Millis },
    /// No longer stored: removed at `at_ms` for `why`.
    Gone { at_ms: Millis, why: GoneWhy },
}

/// Why a key's state was removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoneWhy {
    /// The cleanup timer fired (idle state retention): no message was emitted.
    CleanupTimer,
    /// The input count reached 0: the operator emitted the deletion itself.
    CountZero,
    /// A count window fired and purged its contents.
    WindowPurged,
    /// The key's row was deleted: cleared after emitting its `-D`.
    RowDeleted,
    /// A read found the TTL expired and removed the entry (no state was written again since).
    TtlRemoved,
    /// The TTL's background cleanup removed the expired entry (no state was written again since).
    TtlCleanedUp,
}

impl GoneWhy {
    pub fn describe(self) -> &'static str {
        match self {
            GoneWhy::CleanupTimer => "cleanup timer fired: cleared without a message",
            GoneWhy::CountZero => "input count reached 0: cleared after emitting the delete",
            GoneWhy::WindowPurged => "window fired and purged",
            GoneWhy::RowDeleted => "the key's row was deleted: cleared after emitting -D with the stored row",
            GoneWhy::TtlRemoved => "state TTL expired; a read removed it",
            GoneWhy::TtlCleanedUp => "state TTL expired; the incremental cleanup removed it",
        }
    }
}

/// One key of one operator.
#[derive(Debug, Clone, PartialEq)]
pub struct InspectedKey {
    pub key: String,
    pub row: Row,
    /// What each state holds, in [`Inspection::state_names`] order (`None`: nothing stored).
    pub states: Vec<Option<StateCell>>,
    /// The last time the operator processed a record of the key (or, with TTL, the last
    /// refreshing write), if known.
    pub last_access_ms: Option<Millis>,
    /// The stored cleanup time `C` (legacy idle state retention).
    pub cleanup_time_ms: Option<Millis>,
    /// Registered timers of the key.
    pub timers_ms: Vec<Millis>,
    /// When the key's state TTL expires (or expired).
    pub ttl_expires_ms: Option<Millis>,
    pub status: KeyStatus,
}

/// What the inspector shows of one operator.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    pub op_id: String,
    pub flink_class: &'static str,
    pub state_names: Vec<&'static str>,
    /// The first `limit` matching keys: stored keys in key order, then gone ones.
    pub keys: Vec<InspectedKey>,
    /// How many keys match the filter (stored and gone), and how many are stored.
    pub matched: usize,
    pub stored: usize,
    /// Rows held in the operator's list-valued entries, all keys together (each key's rows are
    /// its cell's value): `SinkUpsertMaterializer`'s `values`; 0 for other operators.
    pub list_rows: u64,
}

/// Operator `op` of `sim` now: its keys whose label, or the value of one of whose states, contains
/// `filter` (ASCII case ignored: search by key or by value), at most `limit` of them, followed by
/// keys the kept trace shows removed and not stored again (by key only: their values are gone).
pub fn inspect(sim: &Simulation, op: usize, filter: &str, limit: usize) -> Option<Inspection> {
    let view = sim.operator_views().into_iter().nth(op)?;
    let needle = filter.trim().to_ascii_lowercase();
    let matches = |label: &str| needle.is_empty() || label.to_ascii_lowercase().contains(&needle);
    // From the kept trace: each key's last processed record and its last removal.
    let mut last_access: HashMap<Row, Millis> = HashMap::new();
    let mut removed: HashMap<Row, (Millis, GoneWhy)> = HashMap::new();
    for e in sim.trace().iter().filter(|e| *e.op == *view.id) {
        let Some(key) = &e.key else { continue };
        match &e.event {
            TraceEvent::Received { .. } | TraceEvent::Buffered { .. } => {
                last_access.insert(key.clone(), e.time_ms);
                removed.remove(key);
            }
            TraceEvent::StateCleared { cause, .. } => {
                let why = match cause {
                    ClearCause::CleanupTimer => GoneWhy::CleanupTimer,
                    ClearCause::CountZero => GoneWhy::CountZero,
                    ClearCause::WindowPurged => GoneWhy::WindowPurged,
                    ClearCause::RowDeleted => GoneWhy::RowDeleted,
                };
                removed.insert(key.clone(), (e.time_ms, why));
            }
            TraceEvent::StateExpired { .. } => {
                removed.insert(key.clone(), (e.time_ms, GoneWhy::TtlRemoved));
            }
            TraceEvent::StateCleanedUp { .. } => {
                removed.insert(key.clone(), (e.time_ms, GoneWhy::TtlCleanedUp));
            }
            _ => {}
        }
    }
    let stored = view.keys.len();
    let mut keys = Vec::new();
    let mut matched = 0;
    for k in &view.keys {
        if !matches(&k.key) && !k.states.iter().flatten().any(|c| matches(&c.value)) {
            continue;
        }
        matched += 1;
        if keys.len() >= limit {
            continue;
        }
        let status = match k.ttl {
            Some(t) if t.expired => KeyStatus::ExpiredStored { since_ms: t.expires_at_ms },
            _ => KeyStatus::Visible,
        };
        keys.push(InspectedKey {
            key: k.key.clone(),
            row: k.row.clone(),
            states: k.states.clone(),
            last_access_ms: k.ttl.map(|t| t.last_access_ms).or_else(|| last_access.get(&k.row).copied()),
            cleanup_time_ms: k.cleanup_time_ms,
            timers_ms: k.timers_ms.clone(),
            ttl_expires_ms: k.ttl.map(|t| t.expires_at_ms),
            status,
        });
    }
    let held: std::collections::HashSet<&Row> = view.keys.iter().map(|k| &k.row).collect();
    let mut gone: Vec<(Row, Millis, GoneWhy)> =
        removed.into_iter().filter(|(row, _)| !held.contains(row)).map(|(row, (at, why))| (row, at, why)).collect();
    gone.sort_by(|a, b| a.0.cmp(&b.0));
    for (row, at_ms, why) in gone {
        let label = row.key_label();
        if !matches(&label) {
            continue;
        }
        matched += 1;
        if keys.len() >= limit {
            continue;
        }
        keys.push(InspectedKey {
            key: label,
            states: vec![None; view.state_names.len()],
            last_access_ms: last_access.get(&row).copied(),
            row,
            cleanup_time_ms: None,
            timers_ms: Vec::new(),
            ttl_expires_ms: None,
            status: KeyStatus::Gone { at_ms, why },
        });
    }
    Some(Inspection {
        op_id: view.id,
        flink_class: view.flink_class,
        state_names: view.state_names,
        keys,
        matched,
        stored,
        list_rows: view.list_rows,
    })
}
