//! A vector whose clones share structure, for the engine state that time travel copies.
//!
//! A checkpoint ([`super::time_travel`]) is a clone of the engine. With plain `Vec`s a clone
//! copies every element of every per-key vector (at 1 M steps of `what-if-100k-logins` 22 ms, on
//! `seed-000-topn-dedup` 252 ms), and restoring a checkpoint to step back copied it again. A
//! [`SharedVec`] keeps its elements in chunks of [`CHUNK`] behind `Rc`s: a clone copies one
//! pointer per chunk, and a write after a clone copies only the chunk it writes to
//! (`Rc::make_mut`), so a checkpoint costs what changed since the previous one and a restore
//! costs nothing up front. Elements that own heap data (a key's sorted map or list) are kept
//! behind an `Rc` by their state ([`super::state::MapState`], [`super::state::ListState`]) so a
//! chunk's copy copies pointers, not 64 maps.
//!
//! Why not a persistent vector from a crate: `imbl`'s RRB vector gives the same sharing, but
//! every read walks its tree; under every keyed state and the result table it made the engine
//! 2.3× slower (benchmark (a): 0.65 → 0.28 M events/s, measured 2026-12-03). Reads here are two
//! indexed loads, writes one reference-count check, which is all the engine needs: it never
//! inserts in the middle or concatenates.
//!
//! Only the `Vec` methods the engine uses are offered, with `Vec`'s names and meaning. Indexing
//! out of bounds panics like a `Vec`'s; callers check bounds as they did before.

use arrayvec::ArrayVec;
use std::ops::{Index, IndexMut};
use std::rc::Rc;

/// Elements per chunk: what a write after a clone copies.
pub const CHUNK: usize = 1 << SHIFT;
const SHIFT: usize = 6;
const MASK: usize = CHUNK - 1;

/// A chunk: its elements inline behind the `Rc` (one load from the chunk list to an element).
type Chunk<T> = ArrayVec<T, CHUNK>;

/// A `Vec`-like vector whose clones share unchanged chunks (see the module's doc).
///
/// Every chunk holds [`CHUNK`] elements but the last, which holds 1 to [`CHUNK`].
pub struct SharedVec<T: 'static> {
    chunks: Vec<Rc<Chunk<T>>>,
    len: usize,
}

/// Iterates a [`SharedVec`]'s elements in order.
pub type Iter<'a, T> = std::iter::FlatMap<
    std::slice::Iter<'a, Rc<Chunk<T>>>,
    std::slice::Iter<'a, T>,
    fn(&'a Rc<Chunk<T>>) -> std::slice::Iter<'a, T>,
>;

impl<T: 'static> Clone for SharedVec<T> {
    fn clone(&self) -> Self {
        SharedVec { chunks: self.chunks.clone(), len: self.len }
    }
}

/// Dropped by [`super::drop_later::drop_in_parts`], the chunks it alone holds are buried for
/// [`super::drop_later::sweep`] to free later, a few per call.
impl<T: 'static> Drop for SharedVec<T> {
    fn drop(&mut self) {
        if super::drop_later::burying() {
            self.chunks.drain(..).for_each(super::drop_later::bury);
        }
    }
}

impl<T: 'static> Default for SharedVec<T> {
    fn default() -> Self {
        SharedVec { chunks: Vec::new(), len: 0 }
    }
}

impl<T: std::fmt::Debug + 'static> std::fmt::Debug for SharedVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.chunks.iter().flat_map(|c| c.iter())).finish()
    }
}

impl<T: Clone + 'static> SharedVec<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, index: usize) -> Option<&T> {
        if index < self.len {
            Some(&self.chunks[index >> SHIFT][index & MASK])
        } else {
            None
        }
    }

    /// The element at `index` for writing: copies its chunk if a clone shares it.
    #[inline]
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        if index < self.len {
            Some(&mut Rc::make_mut(&mut self.chunks[index >> SHIFT])[index & MASK])
        } else {
            None
        }
    }

    pub fn push(&mut self, value: T) {
        if self.len & MASK == 0 {
            self.chunks.push(Rc::new(ArrayVec::new()));
        }
        let last = self.chunks.last_mut().expect("a chunk with room");
        Rc::make_mut(last).push(value);
        self.len += 1;
    }

    pub fn pop(&mut self) -> Option<T> {
        let last = self.chunks.last_mut()?;
        let value = if last.len() == 1 {
            let chunk = self.chunks.pop().expect("the last chunk");
            Rc::try_unwrap(chunk).map_or_else(|shared| shared[0].clone(), |mut own| own.pop().expect("one element"))
        } else {
            Rc::make_mut(last).pop().expect("a non-empty chunk")
        };
        self.len -= 1;
        Some(value)
    }

    pub fn last(&self) -> Option<&T> {
        self.chunks.last().and_then(|c| c.last())
    }

    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        self.chunks.truncate(len.div_ceil(CHUNK));
        if len & MASK != 0 {
            let last = self.chunks.last_mut().expect("a partly kept chunk");
            Rc::make_mut(last).truncate(len & MASK);
        }
        self.len = len;
    }

    pub fn clear(&mut self) {
        self.chunks.clear();
        self.len = 0;
    }

    /// Grows (with `f`'s values) or shrinks to `len` elements, as `Vec::resize_with`.
    pub fn resize_with(&mut self, len: usize, mut f: impl FnMut() -> T) {
        self.truncate(len);
        while self.len < len {
            self.push(f());
        }
    }

    /// Grows (with copies of `value`) or shrinks to `len` elements, as `Vec::resize`.
    pub fn resize(&mut self, len: usize, value: T) {
        self.resize_with(len, || value.clone());
    }

    /// Removes the element at `index`, putting the last one in its place, as `Vec::swap_remove`.
    pub fn swap_remove(&mut self, index: usize) -> T {
        assert!(index < self.len, "swap_remove index {index} out of bounds (len {})", self.len);
        let last = self.pop().expect("an element at a checked index");
        if index == self.len {
            last
        } else {
            std::mem::replace(&mut self[index], last)
        }
    }

    pub fn iter(&self) -> Iter<'_, T> {
        self.chunks.iter().flat_map((|c| c.iter()) as fn(&Rc<Chunk<T>>) -> std::slice::Iter<'_, T>)
    }

    /// The elements for writing, copying every chunk a clone shares.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.chunks.iter_mut().flat_map(|c| Rc::make_mut(c).iter_mut())
    }

    /// Keeps the elements `keep` says to keep, in order, as `Vec::retain`.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let Some(first) = self.iter().position(|v| !keep(v)) else { return };
        let old = std::mem::take(self);
        for (i, v) in old.iter().enumerate() {
            if i < first || (i > first && keep(v)) {
                self.push(v.clone());
            }
        }
    }
}

impl<T: Clone + 'static> Index<usize> for SharedVec<T> {
    type Output = T;
    #[inline]
    fn index(&self, index: usize) -> &T {
        match self.get(index) {
            Some(v) => v,
            None => panic!("index out of bounds: the len is {} but the index is {index}", self.len),
        }
    }
}

impl<T: Clone + 'static> IndexMut<usize> for SharedVec<T> {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut T {
        let len = self.len;
        match self.get_mut(index) {
            Some(v) => v,
            None => panic!("index out of bounds: the len is {len} but the index is {index}"),
        }
    }
}

impl<'a, T: Clone + 'static> IntoIterator for &'a SharedVec<T> {
    type Item = &'a T;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Clone + 'static> FromIterator<T> for SharedVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut v = SharedVec::new();
        for x in iter {
            v.push(x);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::{SharedVec, CHUNK};
    use proptest::prelude::*;

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

    #[test]
    fn a_write_after_a_clone_copies_one_chunk() {
        let mut a: SharedVec<u32> = (0..10 * CHUNK as u32).collect();
        let b = a.clone();
        a[3 * CHUNK + 1] = 0;
        let shared = a.chunks.iter().zip(&b.chunks).filter(|(x, y)| std::rc::Rc::ptr_eq(x, y)).count();
        assert_eq!(shared, 9);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Push(u16),
        Pop,
        Set(usize, u16),
        SwapRemove(usize),
        Truncate(usize),
        Resize(usize, u16),
        RetainOdd,
        Bump,
        Clone,
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => any::<u16>().prop_map(Op::Push),
            2 => Just(Op::Pop),
            4 => (any::<usize>(), any::<u16>()).prop_map(|(i, v)| Op::Set(i, v)),
            2 => any::<usize>().prop_map(Op::SwapRemove),
            1 => (0..400usize).prop_map(Op::Truncate),
            1 => (0..400usize, any::<u16>()).prop_map(|(n, v)| Op::Resize(n, v)),
            1 => Just(Op::RetainOdd),
            1 => Just(Op::Bump),
            2 => Just(Op::Clone),
            1 => Just(Op::Clear),
        ]
    }

    proptest! {
        #![proptest_config({
            let mut c = ProptestConfig::with_cases(256);
            c.rng_seed = proptest::test_runner::RngSeed::Fixed(0x5eed_5eed);
            c.failure_persistence = None;
            c
        })]

        /// Every operation does what `Vec`'s does, and a clone taken at any point keeps the
        /// elements it had whatever the original does after it (and the other way round).
        #[test]
        fn behaves_as_a_vec_and_clones_stay_apart(ops in proptest::collection::vec(op(), 0..300)) {
            let mut v: SharedVec<u16> = SharedVec::new();
            let mut model: Vec<u16> = Vec::new();
            let mut clones: Vec<(SharedVec<u16>, Vec<u16>)> = Vec::new();
            for o in ops {
                match o {
                    Op::Push(x) => { v.push(x); model.push(x); }
                    Op::Pop => prop_assert_eq!(v.pop(), model.pop()),
                    Op::Set(i, x) => if !model.is_empty() { let i = i % model.len(); v[i] = x; model[i] = x; },
                    Op::SwapRemove(i) => if !model.is_empty() {
                        let i = i % model.len();
                        prop_assert_eq!(v.swap_remove(i), model.swap_remove(i));
                    },
                    Op::Truncate(n) => { v.truncate(n); model.truncate(n); }
                    Op::Resize(n, x) => { v.resize(n, x); model.resize(n, x); }
                    Op::RetainOdd => { v.retain(|x| x % 2 == 1); model.retain(|x| x % 2 == 1); }
                    Op::Bump => {
                        v.iter_mut().for_each(|x| *x = x.wrapping_add(1));
                        model.iter_mut().for_each(|x| *x = x.wrapping_add(1));
                    }
                    Op::Clone => clones.push((v.clone(), model.clone())),
                    Op::Clear => { v.clear(); model.clear(); }
                }
                prop_assert_eq!(v.len(), model.len());
                prop_assert_eq!(v.last(), model.last());
                prop_assert_eq!(v.get(model.len()), None);
            }
            prop_assert_eq!(v.iter().copied().collect::<Vec<_>>(), model);
            for (c, m) in &clones {
                prop_assert_eq!(c.iter().copied().collect::<Vec<_>>(), m.clone());
                prop_assert!((0..m.len()).all(|i| c[i] == m[i]));
            }
        }
    }
}
