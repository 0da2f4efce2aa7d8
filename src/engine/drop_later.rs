//! Values whose drop is left for later: freeing a large engine state (a checkpoint thinned away,
//! the state a seek replaced) takes tens of ms at a million actions, which a page would rather
//! spend in a task of its own than inside the step that made it garbage.

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
        self.0.clear();
        self.0.extend(values);
    }

    /// Drops one of the values kept (the last kept); true while more remain.
    pub fn release_one(&mut self) -> bool {
        drop(self.0.pop());
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
