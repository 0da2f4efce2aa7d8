//! A vector whose clones share structure, for the engine state that time travel copies.
//!
//! A checkpoint ([`super::time_travel`]) is a clone of the engine. With plain `Vec`s a clone
//! copies every element of every per-key vector (at 1 M steps of `what-if-100k-logins` 22 ms, on
//! `seed-000-topn-dedup` 252 ms), and restoring a checkpoint to step back copied it again. A
//! [`SharedVec`] is imbl's RRB vector over `Rc` (`imbl::GenericVector<T, RcK>`): a clone copies
//! one pointer, and a write after a clone copies only the chunks on its path (64 elements each),
//! so a checkpoint costs what changed since the previous one and a restore costs nothing up
//! front. Elements that own heap data (a key's sorted map or list) are kept behind an `Rc` by
//! their state ([`super::state::MapState`], [`super::state::ListState`]) so a chunk's copy
//! copies pointers, not 64 maps.
//!
//! Only the `Vec` methods the engine uses are offered, with `Vec`'s names and meaning. Indexing
//! out of bounds panics like a `Vec`'s; callers check bounds as they did before.

use imbl::shared_ptr::RcK;
use std::ops::{Index, IndexMut};

/// A `Vec`-like vector whose clones share unchanged chunks (see the module's doc).
pub struct SharedVec<T>(imbl::GenericVector<T, RcK>);

impl<T: Clone> Clone for SharedVec<T> {
    fn clone(&self) -> Self {
        SharedVec(self.0.clone())
    }
}

impl<T> Default for SharedVec<T> {
    fn default() -> Self {
        SharedVec(imbl::GenericVector::new())
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for SharedVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: Clone> SharedVec<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<&T> {
        self.0.get(index)
    }

    /// The element at `index` for writing: copies the chunks on its path if a clone shares them.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        self.0.get_mut(index)
    }

    pub fn push(&mut self, value: T) {
        self.0.push_back(value);
    }

    pub fn pop(&mut self) -> Option<T> {
        self.0.pop_back()
    }

    pub fn last(&self) -> Option<&T> {
        self.0.back()
    }

    pub fn truncate(&mut self, len: usize) {
        self.0.truncate(len);
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Grows (with `f`'s values) or shrinks to `len` elements, as `Vec::resize_with`.
    pub fn resize_with(&mut self, len: usize, mut f: impl FnMut() -> T) {
        if len <= self.0.len() {
            self.0.truncate(len);
        } else {
            while self.0.len() < len {
                self.0.push_back(f());
            }
        }
    }

    /// Grows (with copies of `value`) or shrinks to `len` elements, as `Vec::resize`.
    pub fn resize(&mut self, len: usize, value: T) {
        self.resize_with(len, || value.clone());
    }

    /// Removes the element at `index`, putting the last one in its place, as `Vec::swap_remove`.
    pub fn swap_remove(&mut self, index: usize) -> T {
        let last = self.0.len() - 1;
        if index != last {
            self.0.swap(index, last);
        }
        self.0.pop_back().expect("an element at a checked index")
    }

    pub fn iter(&self) -> imbl::vector::Iter<'_, T, RcK> {
        self.0.iter()
    }

    pub fn iter_mut(&mut self) -> imbl::vector::IterMut<'_, T, RcK> {
        self.0.iter_mut()
    }

    /// Keeps the elements `keep` says to keep, in order, as `Vec::retain`.
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.0.retain(keep);
    }
}

impl<T: Clone> Index<usize> for SharedVec<T> {
    type Output = T;
    fn index(&self, index: usize) -> &T {
        &self.0[index]
    }
}

impl<T: Clone> IndexMut<usize> for SharedVec<T> {
    fn index_mut(&mut self, index: usize) -> &mut T {
        &mut self.0[index]
    }
}

impl<'a, T: Clone> IntoIterator for &'a SharedVec<T> {
    type Item = &'a T;
    type IntoIter = imbl::vector::Iter<'a, T, RcK>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T: Clone> FromIterator<T> for SharedVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        SharedVec(iter.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::SharedVec;

    #[test]
    fn a_clone_keeps_its_elements_when_the_original_changes() {
        let mut a: SharedVec<u32> = (0..1000).collect();
        let b = a.clone();
        a[500] = 7;
        a.push(1000);
        assert_eq!(a.swap_remove(0), 0);
        assert_eq!((a[0], a[500], a.len()), (1000, 7, 1000));
        assert_eq!((b[0], b[500], b.len()), (0, 500, 1000));
        a.resize(3, 9);
        a.resize_with(5, || 4);
        assert_eq!(a.iter().copied().collect::<Vec<_>>(), [1000, 1, 2, 4, 4]);
    }
}
