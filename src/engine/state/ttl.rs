//! Keyed state time-to-live: `StateTtlConfig`, the stamped value `TtlValue`, and what a read of
//! TTL state finds. The decorators themselves (`TtlValueState`, `TtlMapState`, `TtlListState`) are
//! [`ValueState`](super::ValueState), [`MapState`](super::MapState) and
//! [`ListState`](super::ListState) built with an enabled config.
//!
//! Follows `flink-core/.../api/common/state/StateTtlConfig.java` (1.10 to 2.x),
//! `flink-runtime/.../runtime/state/ttl/TtlUtils.java`, `AbstractTtlDecorator.java` and
//! `TtlValueState.java`, `TtlMapState.java`, `TtlListState.java` (1.10; unchanged in logic for heap/RocksDB "V1" state in 2.x), and the
//! table runtime's `StateConfigUtil.createTtlConfig` (1.15+, `StateTtlConfigUtil` before).
//!
//! The TTL clock is Flink's `TtlTimeProvider.DEFAULT` (`System.currentTimeMillis`), not the
//! operator's processing-time service. In production the two agree to within milliseconds; the
//! simulator uses its single processing time (ms) for both.
//!
//! Modelled: update type, state visibility, removal of an expired value when it is read, and on
//! the heap backend the background `TtlIncrementalCleanup` ([`super::TtlIncrementalCleanup`],
//! checked entry for entry against Flink 2.3.0). Not modelled yet: the RocksDB compaction filter
//! (expired entries stay stored in the simulation until read) and full-snapshot filtering (off for
//! SQL). They only change when an expired, already invisible value is physically removed, never
//! what the operator sees (except `TtlMapState.isEmpty()`, which does not check TTL).

use crate::engine::time::Millis;

/// `StateTtlConfig.UpdateType`: which accesses refresh the last-access timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateType {
    /// TTL is disabled (`StateTtlConfig.DISABLED`).
    Disabled,
    /// Only creation and writes refresh the timestamp (the default, and the table runtime's choice).
    OnCreateAndWrite,
    /// Reads refresh it too.
    OnReadAndWrite,
}

/// `StateTtlConfig.StateVisibility`: whether an expired value that is still stored is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateVisibility {
    ReturnExpiredIfNotCleanedUp,
    /// The default, and the table runtime's choice.
    NeverReturnExpired,
}

/// `StateTtlConfig` (the parts that change what an operator observes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateTtlConfig {
    /// Time-to-live in ms.
    pub ttl_ms: Millis,
    pub update_type: UpdateType,
    pub state_visibility: StateVisibility,
}

impl Default for StateTtlConfig {
    fn default() -> Self {
        StateTtlConfig::DISABLED
    }
}

impl StateTtlConfig {
    /// `StateTtlConfig.DISABLED`: `newBuilder(Long.MAX_VALUE ms).setUpdateType(Disabled)`.
    pub const DISABLED: StateTtlConfig = StateTtlConfig {
        ttl_ms: Millis::MAX,
        update_type: UpdateType::Disabled,
        state_visibility: StateVisibility::NeverReturnExpired,
    };

    /// `StateTtlConfig.newBuilder(ttl).build()` with the builder defaults (`OnCreateAndWrite`,
    /// `NeverReturnExpired`).
    ///
    /// # Errors
    /// Flink's `checkArgument(ttl > 0, "TTL is expected to be positive.")`.
    pub fn new_builder(ttl_ms: Millis) -> Result<StateTtlConfig, String> {
        if ttl_ms <= 0 {
            return Err("TTL is expected to be positive.".into());
        }
        Ok(StateTtlConfig {
            ttl_ms,
            update_type: UpdateType::OnCreateAndWrite,
            state_visibility: StateVisibility::NeverReturnExpired,
        })
    }

    /// `isEnabled()`: `updateType != Disabled`.
    pub fn is_enabled(&self) -> bool {
        self.update_type != UpdateType::Disabled
    }

    /// The table runtime's TTL config for a retention time (`table.exec.state.ttl`), as
    /// `StateConfigUtil.createTtlConfig(retentionTime)` builds it: `OnCreateAndWrite` and
    /// `NeverReturnExpired` when `retentionTime > 0`, otherwise [`StateTtlConfig::DISABLED`].
    pub fn create_ttl_config(retention_ms: Millis) -> StateTtlConfig {
        StateTtlConfig::new_builder(retention_ms).unwrap_or(StateTtlConfig::DISABLED)
    }

    /// Processing time (ms) at which a value last accessed at `last_access_ms` expires:
    /// `TtlUtils.getExpirationTimestamp`, `ts + ttl` clamped at `Long.MAX_VALUE`.
    pub fn expiration_timestamp(&self, last_access_ms: Millis) -> Millis {
        let ttl_without_overflow =
            if last_access_ms > 0 { self.ttl_ms.min(Millis::MAX - last_access_ms) } else { self.ttl_ms };
        last_access_ms + ttl_without_overflow
    }

    /// `TtlUtils.expired(ts, ttl, now)`: `expirationTimestamp <= now` (inclusive). Never true
    /// when TTL is disabled.
    pub fn expired(&self, last_access_ms: Millis, now: Millis) -> bool {
        self.is_enabled() && self.expiration_timestamp(last_access_ms) <= now
    }
}

/// A stored value with the timestamp of its last refreshing access (`TtlValue<T>`).
#[derive(Debug, Clone, PartialEq)]
pub struct TtlValue<T> {
    pub user_value: T,
    /// Processing time (ms) of the last write (or read, with `OnReadAndWrite`).
    pub last_access_ms: Millis,
}

/// What a read of TTL state found.
#[derive(Debug, Clone, PartialEq)]
pub enum TtlRead<T> {
    /// Nothing stored for the key.
    Absent,
    /// A value that has not expired.
    Fresh(T),
    /// A value that had expired: the read removed it (`original::clear`). `returned` is the
    /// value when the visibility is `ReturnExpiredIfNotCleanedUp`, otherwise `None`.
    Expired { last_access_ms: Millis, expired_at_ms: Millis, returned: Option<T> },
}

/// How a stored entry looks at a given processing time, without touching it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Not expired: reads return it.
    Visible,
    /// Expired but still stored: a `NeverReturnExpired` read returns nothing and removes it.
    ExpiredStillStored,
}

impl StateTtlConfig {
    /// Whether an entry stamped at `last_access_ms` is visible at `now`.
    pub fn visibility(&self, last_access_ms: Millis, now: Millis) -> Visibility {
        if self.expired(last_access_ms, now) {
            Visibility::ExpiredStillStored
        } else {
            Visibility::Visible
        }
    }

    /// The TTL in ms when enabled, else 0 (what the expiry bookkeeping needs).
    pub fn enabled_ttl_ms(&self) -> Millis {
        if self.is_enabled() {
            self.ttl_ms
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_is_inclusive_and_clamped() {
        let c = StateTtlConfig::new_builder(2000).unwrap();
        assert!(!c.expired(1000, 2999));
        assert!(c.expired(1000, 3000));
        assert_eq!(c.expiration_timestamp(Millis::MAX - 5), Millis::MAX);
        assert!(!StateTtlConfig::DISABLED.expired(0, Millis::MAX));
        assert_eq!(StateTtlConfig::new_builder(0), Err("TTL is expected to be positive.".to_string()));
        assert_eq!(StateTtlConfig::create_ttl_config(0), StateTtlConfig::DISABLED);
    }
}
