//! Checkpoints for time travel: copies of the engine state at a few action positions.
//!
//! A checkpoint is a plain clone of the engine (operators' state, timers, result, time, the
//! workload generator's position); values are 16 bytes with interned strings, so a clone copies
//! the state's structure, never text. The policy keeps their number and their memory bounded
//! whatever the run's length: one is taken every `spacing` actions; when there are more than
//! [`MAX_CHECKPOINTS`], or more than [`MEMORY_BUDGET`] bytes of them, every other one is dropped
//! and the spacing doubles. Seeking to action `n` replays at most `spacing` actions after the
//! nearest checkpoint. Measured (README, "Time travel"): with 32 checkpoints of a 100 k-event run
//! over 63 k keys the page held 670 MB; the budget keeps it under 250 MB and a seek's median
//! under 50 ms.

use std::rc::Rc;

/// The most checkpoints kept.
pub const MAX_CHECKPOINTS: usize = 32;
/// Actions between checkpoints at first.
pub const INITIAL_SPACING: usize = 2048;
/// The most memory all checkpoints together may take (by the engine's own estimate).
pub const MEMORY_BUDGET: usize = 192 << 20;

/// Engine states by the number of actions carried out before them, ascending, the first at 0.
#[derive(Debug, Clone)]
pub struct Checkpoints<E> {
    taken: Vec<(usize, Rc<E>)>,
    spacing: usize,
    enabled: bool,
}

impl<E: Clone> Checkpoints<E> {
    /// Checkpoints starting with `initial` (the state before any action); none when disabled.
    pub fn new(initial: E, enabled: bool) -> Self {
        Checkpoints { taken: vec![(0, Rc::new(initial))], spacing: INITIAL_SPACING, enabled }
    }

    /// Whether a checkpoint is due after `position` actions.
    pub fn due(&self, position: usize) -> bool {
        let last = self.taken.last().map_or(0, |(p, _)| *p);
        self.enabled && position >= last + self.spacing
    }

    /// Takes a checkpoint of `engine` (the state after `position` actions, about `bytes` in
    /// memory) if one is due.
    pub fn maybe_take(&mut self, position: usize, engine: &E, bytes: usize) {
        if !self.due(position) {
            return;
        }
        self.taken.push((position, Rc::new(engine.clone())));
        // Checkpoints this size that fit the budget (at least the first and one more).
        let allowed = (MEMORY_BUDGET / bytes.max(1)).clamp(2, MAX_CHECKPOINTS);
        while self.taken.len() > allowed {
            let mut i = 0;
            self.taken.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.spacing *= 2;
        }
    }

    /// Drops the checkpoints after `position` actions: the history after it changed.
    pub fn forget_after(&mut self, position: usize) {
        self.taken.retain(|(p, _)| *p <= position);
    }

    /// The position of the latest checkpoint at or before `position`.
    pub fn nearest_position(&self, position: usize) -> usize {
        let i = self.taken.partition_point(|(p, _)| *p <= position).saturating_sub(1);
        self.taken[i].0
    }

    /// A copy of the latest checkpoint at or before `position`, with its position.
    pub fn nearest(&self, position: usize) -> (usize, E) {
        let i = self.taken.partition_point(|(p, _)| *p <= position).saturating_sub(1);
        let (p, e) = &self.taken[i];
        (*p, (**e).clone())
    }

    /// How many checkpoints are kept, and the spacing now.
    pub fn stats(&self) -> (usize, usize) {
        (self.taken.len(), self.spacing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_bounded_and_finds_the_nearest() {
        let mut c = Checkpoints::new(0usize, true);
        for pos in 1..=INITIAL_SPACING * 100 {
            c.maybe_take(pos, &pos, 1);
        }
        let (n, spacing) = c.stats();
        assert!(n <= MAX_CHECKPOINTS && spacing > INITIAL_SPACING, "{n} checkpoints every {spacing}");
        let (p, e) = c.nearest(INITIAL_SPACING * 50 + 7);
        assert_eq!(p, e);
        assert!(p <= INITIAL_SPACING * 50 + 7 && INITIAL_SPACING * 50 + 7 - p < spacing);
        c.forget_after(10);
        assert_eq!(c.nearest(usize::MAX).0, 0);
    }

    #[test]
    fn big_states_get_fewer_checkpoints() {
        let mut c = Checkpoints::new(0usize, true);
        for pos in 1..=INITIAL_SPACING * 100 {
            c.maybe_take(pos, &pos, MEMORY_BUDGET / 4);
        }
        assert!(c.stats().0 <= 4, "{:?}", c.stats());
    }
}
