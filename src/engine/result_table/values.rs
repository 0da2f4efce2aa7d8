//! A retract sink's rows by value, so a retraction finds its row by hash however many rows the
//! table (or the row's key) holds.

use super::Held;
use crate::engine::row::Row;
use crate::engine::sharded_table::ShardedTable;
use crate::engine::shared_vec::SharedVec;
use hashbrown::hash_table::Entry;
use rustc_hash::FxBuildHasher;
use smallvec::SmallVec;
use std::hash::BuildHasher;

/// Marks a word's low half as the number of an [`Equal`] rather than a slot.
const MANY: u32 = 1 << 31;

/// The slots of two or more equal rows: the fresh ones ascending, then the stale ones ascending.
#[derive(Debug, Clone, Default)]
struct Equal {
    slots: SmallVec<[u32; 4]>,
    fresh: u32,
}

/// Where `slot` goes among the ascending `slots`.
fn position(slots: &[u32], slot: u32) -> usize {
    slots.partition_point(|&s| s < slot)
}

impl Equal {
    /// Adds `slot`, fresh or stale, keeping each part ascending.
    fn add(&mut self, slot: u32, stale: bool) {
        let fresh = self.fresh as usize;
        if stale {
            self.slots.insert(fresh + position(&self.slots[fresh..], slot), slot);
        } else {
            self.slots.insert(position(&self.slots[..fresh], slot), slot);
            self.fresh += 1;
        }
    }

    /// Takes the slot a retraction removes: the last fresh one, else the first stale one.
    fn take(&mut self) -> u32 {
        if self.fresh > 0 {
            self.fresh -= 1;
            self.slots.remove(self.fresh as usize)
        } else {
            self.slots.remove(0)
        }
    }
}

/// Each distinct row value held, as one word (8 bytes a value; most values are held once): the
/// high half a hash of the row, the low half its one slot or, with [`MANY`] set, the number of
/// its [`Equal`].
#[derive(Debug, Clone, Default)]
pub(super) struct Values {
    words: ShardedTable<u64>,
    many: Vec<Equal>,
    /// Numbers of unused [`Equal`]s.
    free: Vec<u32>,
}

fn row_hash(row: &Row) -> u32 {
    FxBuildHasher.hash_one(&row.0[..]) as u32
}

/// The table's hash of a word's 32-bit row hash, spread over 64 bits (hashbrown takes the bucket
/// from the low bits and a tag from the top 7).
fn spread(h: u32) -> u64 {
    u64::from(h).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn word(h: u32, low: u32) -> u64 {
    u64::from(h) << 32 | u64::from(low)
}

impl Values {
    /// Whether word `w` stands for `row` (of hash `h`).
    fn is(&self, slots: &SharedVec<Option<Held>>, w: u64, h: u32, row: &Row) -> bool {
        Values::is_in(&self.many, slots, w, h, row)
    }

    /// Notes that `slot` holds `row`, fresh or stale (`slot` is not yet in `slots`).
    pub(super) fn add(&mut self, slots: &SharedVec<Option<Held>>, row: &Row, slot: u32, stale: bool) {
        debug_assert!(slot < MANY);
        let h = row_hash(row);
        let Values { words, many, free } = self;
        let this = &*many;
        let found = words.shard_mut(spread(h)).entry(
            spread(h),
            |&w| Values::is_in(this, slots, w, h, row),
            |&w| spread((w >> 32) as u32),
        );
        let mut o = match found {
            Entry::Vacant(v) => {
                v.insert(word(h, slot));
                return;
            }
            Entry::Occupied(o) => o,
        };
        let low = *o.get() as u32;
        if low & MANY != 0 {
            many[(low & !MANY) as usize].add(slot, stale);
            return;
        }
        // A second equal row: the value gets an Equal.
        let mut e = Equal::default();
        e.add(low, slots[low as usize].as_ref().is_some_and(|x| x.row.stale_since_ms.is_some()));
        e.add(slot, stale);
        let i = match free.pop() {
            Some(i) => {
                many[i as usize] = e;
                i
            }
            None => {
                many.push(e);
                (many.len() - 1) as u32
            }
        };
        *o.get_mut() = word(h, i | MANY);
    }

    /// [`Values::is`] while `self` is borrowed in parts.
    fn is_in(many: &[Equal], slots: &SharedVec<Option<Held>>, w: u64, h: u32, row: &Row) -> bool {
        let low = w as u32;
        let first = if low & MANY == 0 { low } else { many[(low & !MANY) as usize].slots[0] };
        (w >> 32) as u32 == h && slots.get(first as usize).and_then(Option::as_ref).is_some_and(|x| x.row.row == *row)
    }

    /// Takes the slot a retraction of `row` empties: the last fresh equal row, else the first
    /// stale one. `None` when no row equals it.
    pub(super) fn take(&mut self, slots: &SharedVec<Option<Held>>, row: &Row) -> Option<u32> {
        let h = row_hash(row);
        let Values { words, many, free } = self;
        let this = &*many;
        let mut o =
            words.shard_mut(spread(h)).find_entry(spread(h), |&w| Values::is_in(this, slots, w, h, row)).ok()?;
        let low = *o.get() as u32;
        if low & MANY == 0 {
            o.remove();
            return Some(low);
        }
        let i = low & !MANY;
        let e = &mut many[i as usize];
        let slot = e.take();
        if let [last] = e.slots[..] {
            *o.get_mut() = word(h, last);
            *e = Equal::default();
            free.push(i);
        }
        Some(slot)
    }

    /// The rows equal to the one in `slot` all went stale (they share its key).
    pub(super) fn all_stale(&mut self, slots: &SharedVec<Option<Held>>, slot: u32) {
        let Some(row) = slots.get(slot as usize).and_then(Option::as_ref).map(|x| &x.row.row) else { return };
        let h = row_hash(row);
        let Some(&w) = self.words.shard(spread(h)).find(spread(h), |&w| self.is(slots, w, h, row)) else { return };
        let low = w as u32;
        if low & MANY != 0 {
            let e = &mut self.many[(low & !MANY) as usize];
            if e.fresh > 0 {
                e.fresh = 0;
                e.slots.sort_unstable();
            }
        }
    }

    /// How many rows equal `row`, and how many of them sit in slots before `slot`.
    pub(super) fn count_before(&self, slots: &SharedVec<Option<Held>>, row: &Row, slot: u32) -> (usize, usize) {
        let h = row_hash(row);
        let Some(&w) = self.words.shard(spread(h)).find(spread(h), |&w| self.is(slots, w, h, row)) else {
            return (0, 0);
        };
        let low = w as u32;
        if low & MANY == 0 {
            return (1, usize::from(low < slot));
        }
        let equal = &self.many[(low & !MANY) as usize].slots;
        (equal.len(), equal.iter().filter(|&&s| s < slot).count())
    }

    pub(super) fn clear(&mut self) {
        self.words.clear();
        self.many.clear();
        self.free.clear();
    }
}
