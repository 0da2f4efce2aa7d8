//! Counting expired entries without scanning them.
//!
//! An entry stamped at `last_access` is expired at `now` when `last_access + ttl <= now`
//! (`TtlUtils.expired`). With one TTL per state, that is `last_access <= now - ttl`: the expired
//! entries are a prefix of the entries ordered by their stamp. [`ExpiryIndex`] counts the entries
//! not yet known to be expired by stamp, in stamp order, and moves counts into an `expired`
//! tally as time passes. A stamp whose last entry is removed (re-stamped by a later write, or
//! deleted) leaves the index at once, so its size follows the distinct stamps of live entries —
//! at most the entries stored — never the number of writes. Cost per write: O(log stamps);
//! per query: O(stamps that expired since the last query). Nothing here is a Flink rule; it lets
//! the engine report Flink's state sizes over time at any scale.

use crate::engine::time::Millis;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Counts of entries by TTL stamp, for one TTL (`ttl_ms > 0`).
///
/// Asking how many entries are expired settles buckets into the tally, which changes no count
/// anyone can observe; the buckets sit in a `RefCell` so that the question can be asked of a
/// shared reference (views and samples).
#[derive(Debug, Clone)]
pub struct ExpiryIndex {
    ttl_ms: Millis,
    inner: RefCell<Buckets>,
}

#[derive(Debug, Clone, Default)]
struct Buckets {
    /// Live entries by stamp, for the stamps after `cutoff` (every count > 0).
    counts: BTreeMap<Millis, u32>,
    /// Entries stamped at or before `cutoff`: expired.
    expired: u64,
    /// The latest `now - ttl` asked about.
    cutoff: Millis,
}

impl ExpiryIndex {
    pub fn new(ttl_ms: Millis) -> Self {
        ExpiryIndex { ttl_ms, inner: RefCell::new(Buckets { cutoff: Millis::MIN, ..Buckets::default() }) }
    }

    /// An entry stamped at `stamp` was stored.
    pub fn add(&mut self, stamp: Millis) {
        let ix = self.inner.get_mut();
        if stamp <= ix.cutoff {
            ix.expired += 1;
        } else {
            *ix.counts.entry(stamp).or_insert(0) += 1;
        }
    }

    /// An entry stamped at `stamp` was removed (or re-stamped: remove, then add).
    pub fn remove(&mut self, stamp: Millis) {
        let ix = self.inner.get_mut();
        if stamp <= ix.cutoff {
            ix.expired = ix.expired.saturating_sub(1);
        } else if let std::collections::btree_map::Entry::Occupied(mut e) = ix.counts.entry(stamp) {
            if *e.get() <= 1 {
                e.remove();
            } else {
                *e.get_mut() -= 1;
            }
        }
    }

    /// How many entries are expired at `now` (`stamp + ttl <= now`, the sum clamped as
    /// `TtlUtils.getExpirationTimestamp` clamps it).
    /// Asking about an earlier time than before (never done: processing time only moves forward,
    /// and a restored checkpoint restores the index too) counts from the later time.
    pub fn expired_at(&self, now: Millis) -> u64 {
        let mut ix = self.inner.borrow_mut();
        let cutoff = now.saturating_sub(self.ttl_ms);
        if cutoff > ix.cutoff {
            while let Some(e) = ix.counts.first_entry() {
                if *e.key() > cutoff {
                    break;
                }
                let n = e.remove();
                ix.expired += u64::from(n);
            }
            ix.cutoff = cutoff;
        }
        ix.expired
    }

    /// Distinct stamps of entries not yet known to be expired (what the index stores).
    pub fn stamps(&self) -> usize {
        self.inner.borrow().counts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_expired_entries_as_time_passes() {
        let mut ix = ExpiryIndex::new(10);
        ix.add(0);
        ix.add(0);
        ix.add(5);
        assert_eq!(ix.expired_at(9), 0);
        assert_eq!(ix.expired_at(10), 2, "0 + 10 <= 10: inclusive");
        ix.remove(0);
        assert_eq!(ix.expired_at(10), 1);
        ix.remove(5);
        ix.add(12);
        assert_eq!(ix.expired_at(21), 1);
        assert_eq!(ix.expired_at(22), 2);
    }

    #[test]
    fn out_of_order_stamps_still_count() {
        let mut ix = ExpiryIndex::new(10);
        ix.add(7);
        ix.add(3);
        ix.add(7);
        assert_eq!(ix.expired_at(13), 1);
        ix.remove(7);
        assert_eq!(ix.expired_at(17), 2);
    }

    /// One entry re-stamped at every write keeps one stamp, however many writes.
    #[test]
    fn a_restamped_entry_keeps_one_stamp() {
        let mut ix = ExpiryIndex::new(86_400_000);
        ix.add(0);
        for t in 1..100_000 {
            ix.remove(t - 1);
            ix.add(t);
        }
        assert_eq!(ix.stamps(), 1);
        assert_eq!(ix.expired_at(100_000), 0);
        assert_eq!(ix.expired_at(99_999 + 86_400_000), 1);
    }
}
