//! Counting expired entries without scanning them.
//!
//! An entry stamped at `last_access` is expired at `now` when `last_access + ttl <= now`
//! (`TtlUtils.expired`). With one TTL per state, that is `last_access <= now - ttl`: the expired
//! entries are a prefix of the entries ordered by their stamp. [`ExpiryIndex`] counts the entries
//! not yet known to be expired by stamp (a hash map, so removing an entry is one lookup) and keeps
//! their distinct stamps in order, moving counts into an `expired` tally as time passes. Writes
//! happen at the current processing time, which never goes back, so a new stamp lands at the
//! back. Amortised cost per write: O(1); per query: O(stamps that expired since the last query). Nothing here is a Flink rule; it lets the engine report Flink's state sizes over
//! time at any scale.

use crate::engine::time::Millis;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::collections::VecDeque;

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
    /// Entries by stamp, for the stamps after `cutoff` (a count may be 0 until its stamp expires).
    counts: FxHashMap<Millis, u32>,
    /// The stamps of `counts`, ascending.
    order: VecDeque<Millis>,
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
            return;
        }
        let order = &mut ix.order;
        *ix.counts.entry(stamp).or_insert_with(|| {
            // Writes happen at the current time, so a new stamp is almost always the latest.
            match order.back() {
                Some(&t) if t > stamp => {
                    let i = order.partition_point(|&t| t < stamp);
                    order.insert(i, stamp);
                }
                _ => order.push_back(stamp),
            }
            0
        }) += 1;
    }

    /// An entry stamped at `stamp` was removed (or re-stamped: remove, then add).
    pub fn remove(&mut self, stamp: Millis) {
        let ix = self.inner.get_mut();
        if stamp <= ix.cutoff {
            ix.expired = ix.expired.saturating_sub(1);
        } else if let Some(n) = ix.counts.get_mut(&stamp) {
            *n = n.saturating_sub(1);
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
            while let Some(&t) = ix.order.front() {
                if t > cutoff {
                    break;
                }
                ix.order.pop_front();
                let n = ix.counts.remove(&t).unwrap_or(0);
                ix.expired += u64::from(n);
            }
            ix.cutoff = cutoff;
        }
        ix.expired
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
}
