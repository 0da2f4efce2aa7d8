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
