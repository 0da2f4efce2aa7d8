//! Keyed state time-to-live: `StateTtlConfig` and the TTL decorator of a `ValueState`.
//!
//! Follows `flink-core/.../api/common/state/StateTtlConfig.java` (1.10 to 2.x),
//! `flink-runtime/.../runtime/state/ttl/TtlUtils.java`, `AbstractTtlDecorator.java` and
//! `TtlValueState.java` (1.10; unchanged in logic for heap/RocksDB "V1" state in 2.x), and the
//! table runtime's `StateConfigUtil.createTtlConfig` (1.15+, `StateTtlConfigUtil` before).
//!
//! The TTL clock is Flink's `TtlTimeProvider.DEFAULT` (`System.currentTimeMillis`), not the
//! operator's processing-time service. In production the two agree to within milliseconds; the
//! simulator uses its single processing time (ms) for both.
//!
//! Modelled: update type, state visibility, and removal of an expired value when it is read.
//! Not modelled yet: the background cleanup strategies (incremental cleanup on the heap backend,
//! the RocksDB compaction filter, full-snapshot filtering). They only change when an expired,
//! already invisible value is physically removed, never what the operator sees.

use super::keyed_state::ValueState;
use super::time::Millis;

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

/// How a stored value looks at a given processing time, without touching it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    /// Not expired: reads return it.
    Visible,
    /// Expired but still stored: a `NeverReturnExpired` read returns nothing and removes it.
    ExpiredStillStored,
}

/// A keyed `ValueState` behind the TTL decorator (`TtlValueState`). With a disabled config it
/// behaves as a plain `ValueState`.
#[derive(Debug, Clone)]
pub struct TtlValueState<K: Ord, T> {
    pub config: StateTtlConfig,
    original: ValueState<K, TtlValue<T>>,
}

impl<K: Ord + Clone, T: Clone> TtlValueState<K, T> {
    pub fn new(name: &'static str, config: StateTtlConfig) -> Self {
        TtlValueState { config, original: ValueState::new(name) }
    }

    /// The state descriptor's name.
    pub fn name(&self) -> &'static str {
        self.original.name
    }

    /// `value()` at processing time `now` (`AbstractTtlDecorator.getWithTtlCheckAndUpdate`):
    /// an expired value is cleared and returned only with `ReturnExpiredIfNotCleanedUp`; a fresh
    /// one is re-stamped with `now` when the update type is `OnReadAndWrite`.
    pub fn value(&mut self, key: &K, now: Millis) -> TtlRead<T> {
        let Some(stored) = self.original.value(key).cloned() else {
            return TtlRead::Absent;
        };
        if self.config.expired(stored.last_access_ms, now) {
            self.original.clear(key);
            let returned = (self.config.state_visibility == StateVisibility::ReturnExpiredIfNotCleanedUp)
                .then_some(stored.user_value);
            return TtlRead::Expired {
                last_access_ms: stored.last_access_ms,
                expired_at_ms: self.config.expiration_timestamp(stored.last_access_ms),
                returned,
            };
        }
        if self.config.update_type == UpdateType::OnReadAndWrite {
            self.original.update(key, TtlValue { user_value: stored.user_value.clone(), last_access_ms: now });
        }
        TtlRead::Fresh(stored.user_value)
    }

    /// `update(value)` at `now`: stores the value stamped with `now`. Every write refreshes the
    /// TTL, even when the value is unchanged.
    pub fn update(&mut self, key: &K, value: T, now: Millis) {
        self.original.update(key, TtlValue { user_value: value, last_access_ms: now });
    }

    /// `clear()`; returns whether something was stored.
    pub fn clear(&mut self, key: &K) -> bool {
        self.original.clear(key)
    }

    /// What is stored for `key` (expired or not), without the side effects of a read.
    pub fn peek(&self, key: &K) -> Option<&TtlValue<T>> {
        self.original.value(key)
    }

    /// Whether a stored value is visible at `now`.
    pub fn visibility(&self, stored: &TtlValue<T>, now: Millis) -> Visibility {
        if self.config.expired(stored.last_access_ms, now) {
            Visibility::ExpiredStillStored
        } else {
            Visibility::Visible
        }
    }

    /// Every stored (key, value), expired or not, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &TtlValue<T>)> {
        self.original.iter()
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

    #[test]
    fn writes_refresh_reads_do_not_with_on_create_and_write() {
        let mut s = TtlValueState::new("acc", StateTtlConfig::create_ttl_config(10));
        s.update(&"k", 1, 0);
        assert_eq!(s.value(&"k", 9), TtlRead::Fresh(1));
        assert_eq!(s.visibility(s.peek(&"k").unwrap(), 10), Visibility::ExpiredStillStored);
        assert_eq!(s.value(&"k", 10), TtlRead::Expired { last_access_ms: 0, expired_at_ms: 10, returned: None });
        assert!(s.peek(&"k").is_none(), "an expired value is removed when read");
        s.update(&"k", 2, 20);
        s.update(&"k", 2, 25);
        assert_eq!(s.value(&"k", 34), TtlRead::Fresh(2));
    }

    #[test]
    fn on_read_and_write_and_return_expired() {
        let mut cfg = StateTtlConfig::new_builder(10).unwrap();
        cfg.update_type = UpdateType::OnReadAndWrite;
        cfg.state_visibility = StateVisibility::ReturnExpiredIfNotCleanedUp;
        let mut s = TtlValueState::new("v", cfg);
        s.update(&"k", 7, 0);
        assert_eq!(s.value(&"k", 8), TtlRead::Fresh(7));
        assert_eq!(s.peek(&"k").unwrap().last_access_ms, 8);
        assert_eq!(s.value(&"k", 18), TtlRead::Expired { last_access_ms: 8, expired_at_ms: 18, returned: Some(7) });
    }
}
