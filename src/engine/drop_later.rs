//! Values whose drop is left for later: freeing a large engine state (a checkpoint thinned away,
//! the state a seek replaced) takes tens of ms at a million actions, which a page would rather
//! spend in a task of its own than inside the step that made it garbage.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

thread_local! {
    /// Whether a drop under way buries the parts it owns alone ([`drop_in_parts`]).
    static BURYING: Cell<bool> = const { Cell::new(false) };
    /// The parts buried, for [`sweep`] to drop.
    static GRAVEYARD: RefCell<Vec<Rc<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// The parts [`sweep`] drops in one call: chunks of 64 keyed-state entries
/// ([`super::shared_vec::SharedVec`]) or 1/256 of a hash index ([`super::sharded_table`]). On
/// `seed-000-topn-dedup` at 400 k actions a whole engine state is about 40 000 of them, and
/// freeing it at once took 38 ms natively, 45–73 ms in the page.
pub const SWEEP_PARTS: usize = 256;

/// Drops `value`, burying the chunks and shards it alone owns instead of freeing them: the drop
/// itself only moves pointers; [`sweep`] frees the parts later, a few at a time. What the value
/// shares with another (a checkpoint's chunks the live state still holds) is released as usual.
pub fn drop_in_parts<T>(value: T) {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            BURYING.with(|b| b.set(false));
        }
    }
    let _reset = Reset;
    BURYING.with(|b| b.set(true));
    drop(value);
}

/// Whether [`drop_in_parts`] runs: a container's drop then [`bury`]s its parts.
pub(crate) fn burying() -> bool {
    BURYING.with(Cell::get)
}

/// Takes `part` for [`sweep`] when nothing else holds it; else drops it (a reference released).
pub(crate) fn bury<P: 'static>(part: Rc<P>) {
    if Rc::strong_count(&part) == 1 {
        GRAVEYARD.with(|g| g.borrow_mut().push(part));
    }
}

/// Frees up to [`SWEEP_PARTS`] buried parts; true while more remain.
pub fn sweep() -> bool {
    for _ in 0..SWEEP_PARTS {
        // Popped first, then dropped: a part's own drop may bury nothing (not burying now) and
        // must not find the graveyard borrowed.
        let part = GRAVEYARD.with(|g| g.borrow_mut().pop());
        if part.is_none() {
            return false;
        }
    }
    has_buried()
}

/// Whether [`sweep`] has parts to free.
pub fn has_buried() -> bool {
    GRAVEYARD.with(|g| !g.borrow().is_empty())
}

/// Values to drop later ([`DropLater::release_one`]); a copy holds none.
#[derive(Debug)]
pub struct DropLater<T>(Vec<T>);

impl<T> Default for DropLater<T> {
    fn default() -> Self {
        DropLater(Vec::new())
    }
}

impl<T> Clone for DropLater<T> {
    fn clone(&self) -> Self {
        DropLater::default()
    }
}

impl<T> DropLater<T> {
    /// Keeps `values` for later, dropping first what was kept before: at most one batch is held.
    pub fn replace(&mut self, values: impl IntoIterator<Item = T>) {
        // At once, as before: only a caller of `release_one` sweeps what is buried.
        self.0.clear();
        self.0.extend(values);
    }

    /// Keeps `value` for later beside what is kept; beyond `most` values, the oldest is dropped
    /// at once (what is kept stays bounded when no one releases it: a native run).
    pub fn add(&mut self, value: T, most: usize) {
        self.0.push(value);
        if self.0.len() > most.max(1) {
            drop(self.0.remove(0));
        }
    }

    /// Drops one of the values kept (the last kept) in parts ([`drop_in_parts`]): its parts
    /// are left for [`sweep`]; true while more values remain.
    pub fn release_one(&mut self) -> bool {
        drop_in_parts(self.0.pop());
        !self.0.is_empty()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn a_value_dropped_in_parts_buries_what_it_alone_holds_and_sweeps_free_it_a_few_at_a_time() {
        use crate::engine::shared_vec::{SharedVec, CHUNK};
        let element = Rc::new(7);
        let n = CHUNK * (SWEEP_PARTS + 3);
        let original: SharedVec<Rc<i32>> = std::iter::repeat_n(element.clone(), n).collect();
        let mut copy = original.clone();
        // The copy's first chunk becomes its own: 63 more references to `element`.
        copy[0] = Rc::new(8);
        assert_eq!(Rc::strong_count(&element), 1 + n + 63);
        assert!(!has_buried());
        drop_in_parts(original);
        assert_eq!(Rc::strong_count(&element), 1 + n + 63, "buried, or shared with the copy: nothing freed yet");
        assert!(has_buried(), "the original's own first chunk is buried");
        assert!(!sweep(), "one part, one sweep");
        assert_eq!(Rc::strong_count(&element), n, "the copy's n - 1, and this one");
        drop_in_parts(copy);
        assert_eq!(Rc::strong_count(&element), n, "buried, not yet freed");
        assert!(sweep(), "more than one sweep's parts");
        assert!(Rc::strong_count(&element) < n && Rc::strong_count(&element) > 1);
        while sweep() {}
        assert_eq!(Rc::strong_count(&element), 1, "all freed");
        // Not dropped in parts: freed at once, nothing buried.
        let plain: SharedVec<Rc<i32>> = std::iter::repeat_n(element.clone(), n).collect();
        drop(plain);
        assert!(!has_buried() && Rc::strong_count(&element) == 1);
    }

    #[test]
    fn holds_one_batch_frees_one_at_a_time_and_a_copy_holds_none() {
        let (a, b, c) = (Rc::new(1), Rc::new(2), Rc::new(3));
        let mut later = DropLater::default();
        later.replace([a.clone(), b.clone()]);
        assert_eq!((Rc::strong_count(&a), Rc::strong_count(&b)), (2, 2));
        assert!(later.clone().is_empty(), "a copy holds none");
        assert!(later.release_one(), "one left");
        assert_eq!((Rc::strong_count(&a), Rc::strong_count(&b)), (2, 1));
        later.replace([c.clone()]);
        assert_eq!((Rc::strong_count(&a), Rc::strong_count(&c)), (1, 2), "the batch before is dropped");
        assert!(!later.release_one());
        assert!(later.is_empty() && Rc::strong_count(&c) == 1);
    }
}
