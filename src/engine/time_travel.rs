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
//!
//! A state that large makes the spacing long at depth: at 1 M actions of `what-if-100k-logins`
//! 4 checkpoints were kept, 262 144 actions apart, and a Back replayed up to that many (620 ms
//! median natively). So a step back (and a far scrub, `Simulation::go_toward`) also lays a
//! **ladder**: the first Back that replays far
//! takes, on its way, up to [`LADDER_MAX`] checkpoints [`LADDER_SPACING`] actions apart just
//! behind its target (as many as fit [`MEMORY_BUDGET`] at what a rung holds alone,
//! [`RUNG_OWN_BYTES`], at least one); the
//! next Backs restore the nearest rung and replay at most `LADDER_SPACING` actions plus the
//! trace window, until they pass below where the ladder's replay started: that Back replays
//! from the checkpoint before (up to the spacing) and lays the next ladder. So of `b`
//! consecutive Backs at most `1 + b / LADDER_SPACING` replay more, whatever the depth
//! (`tests/time_travel_depth.rs`). The ladder holds copies of the live state only (its memory follows the state,
//! never the run's length), and is forgotten where the history changes.
//!
//! Between two rungs a Back still replayed up to [`LADDER_SPACING`] actions (974 on average in
//! the 100 Backs after the first at 1 M logins). So a Back also lays **fine rungs**
//! ([`Checkpoints::lay_fine_rungs`]): `target − 2^k` for [`FINE_RUNG_MIN`] ≤ 2^k <
//! [`LADDER_SPACING`], those after the rung it replays from. The Backs after it restore the
//! nearest and replay a few actions (as a binary counter: of consecutive Backs half replay under
//! [`FINE_RUNG_MIN`], a quarter under twice that, …; p90 7 actions, 0.12 rungs laid a Back), and
//! lay fine rungs below their own target in turn. Fine rungs above a Back's target are dropped
//! (a Back goes down), at most [`FINE_MAX`] are kept, and all lie within [`LADDER_SPACING`] of
//! the live state, so together they hold alone at most what that many actions rewrite.

use std::rc::Rc;

/// The most checkpoints kept.
pub const MAX_CHECKPOINTS: usize = 32;
/// Actions between checkpoints at first.
pub const INITIAL_SPACING: usize = 2048;
/// The most memory all checkpoints together may take (by the engine's own estimate).
pub const MEMORY_BUDGET: usize = 192 << 20;

/// Actions between two rungs of a step back's ladder.
pub const LADDER_SPACING: usize = 1024;
/// The most rungs a ladder has.
pub const LADDER_MAX: usize = 4;
/// The nearest a fine rung is laid below a Back's target, in actions.
pub const FINE_RUNG_MIN: usize = 8;
/// The most fine rungs kept.
pub const FINE_MAX: usize = 12;
/// What a rung is charged against [`MEMORY_BUDGET`]: the most it holds alone. A rung shares its
/// structure with the live state and the other rungs, and holds alone only what was rewritten
/// since it (`shared_vec`, `sharded_table`). Measured (`examples/checkpoint_delta`, 2026-12-03):
/// clones 1 024 actions apart hold 9 MB each alone at 1 M logins and on `seed-000-topn-dedup`;
/// 4 096 apart 12.9 MB and 14.6 MB; 12 288 apart 26.8 MB on Top-N. The top rung diverges from
/// the live state as the run goes on, so the ladder is dropped once the run is
/// [`LADDER_ZONE`] actions past it. Charged at the whole state's size (as a checkpoint is),
/// `seed-000-topn-dedup`'s ~100 MB state allowed one rung: the third move back of a drag after
/// a far scrub found none and replayed 131 k actions (6–7.7 s in the page, trial 23).
pub const RUNG_OWN_BYTES: usize = 32 << 20;
/// How far past its top rung the run may go before the ladder is dropped ([`RUNG_OWN_BYTES`]).
pub const LADDER_ZONE: usize = 2 * LADDER_MAX * LADDER_SPACING;

/// How many rungs fit the budget, each charged the least of the state's size and
/// [`RUNG_OWN_BYTES`]: at least one, at most [`LADDER_MAX`].
fn rungs_allowed(bytes: usize) -> usize {
    (MEMORY_BUDGET / bytes.clamp(1, RUNG_OWN_BYTES)).clamp(1, LADDER_MAX)
}

/// The checkpoint spacing past which a scrub (`Simulation::go_toward`) lays a step back's ladder
/// behind its target, whether it replays from a checkpoint or forward from where the page stands.
/// A rung costs what the replay after it writes (each chunk it touches is copied once). Measured
/// with `browser_drive_perf` (2026-12-03, a machine 2.1× slower than this project's): laid on
/// every scrub at 100 k logins, where the checkpoints are 4 096 actions apart, the page's scrub
/// p90 went from 21 to 44 ms; laid only after replays of more than 8 192 actions, the moves back
/// after a shorter scrub on the Top-N preset (checkpoints 262 144 apart, 13 µs an action)
/// replayed up to that far (p90 154 ms), and laid only by a scrub that restores a checkpoint, the
/// moves back after a scrub forward from where the page stood did (p90 150 ms). Where the
/// checkpoints are this far apart, a move back without a rung may replay that far.
pub const SCRUB_LADDER_AFTER: usize = 8 * LADDER_SPACING;

/// Whether `position` is more than `zone` actions past the top of `rungs` (ascending): their
/// rungs would come to hold much of the state alone.
fn far_past<E>(rungs: &[(usize, Rc<E>)], position: usize, zone: usize) -> bool {
    rungs.last().is_some_and(|(top, _)| position > top + zone)
}

/// Engine states by the number of actions carried out before them, ascending, the first at 0.
#[derive(Debug, Clone)]
pub struct Checkpoints<E> {
    taken: Vec<(usize, Rc<E>)>,
    /// The ladder's rungs, ascending.
    ladder: Vec<(usize, Rc<E>)>,
    /// Rungs to take on the way forward ([`Checkpoints::lay_ladder`]), ascending.
    planned: Vec<usize>,
    /// The fine rungs a Back laid just below its target ([`Checkpoints::lay_fine_rungs`]),
    /// ascending, and those still to take on its replay.
    fine: Vec<(usize, Rc<E>)>,
    fine_planned: Vec<usize>,
    spacing: usize,
    enabled: bool,
    /// The checkpoints the last thinning dropped and the rungs a new ladder replaced, freed by
    /// [`Checkpoints::release_retired`] (or the next thinning): freeing a checkpoint's own chunks took 30–70 ms at 262 144 actions.
    retired: crate::engine::drop_later::DropLater<Rc<E>>,
}

impl<E: Clone> Checkpoints<E> {
    /// Checkpoints starting with `initial` (the state before any action); none when disabled.
    pub fn new(initial: E, enabled: bool) -> Self {
        Checkpoints {
            taken: vec![(0, Rc::new(initial))],
            ladder: Vec::new(),
            planned: Vec::new(),
            fine: Vec::new(),
            fine_planned: Vec::new(),
            spacing: INITIAL_SPACING,
            enabled,
            retired: crate::engine::drop_later::DropLater::default(),
        }
    }

    /// Whether a checkpoint or a planned rung is due after `position` actions (or the ladder is
    /// to be dropped there, [`LADDER_ZONE`]).
    pub fn due(&self, position: usize) -> bool {
        self.periodic_due(position)
            || (self.enabled && self.planned.binary_search(&position).is_ok())
            || (self.enabled && self.fine_planned.binary_search(&position).is_ok())
            || far_past(&self.ladder, position, LADDER_ZONE)
            || far_past(&self.fine, position, LADDER_SPACING)
    }

    fn periodic_due(&self, position: usize) -> bool {
        let last = self.taken.last().map_or(0, |(p, _)| *p);
        self.enabled && position >= last + self.spacing
    }

    /// Takes a checkpoint of `engine` (the state after `position` actions, about `bytes` in
    /// memory) if one is due, or the planned rung at `position`.
    pub fn maybe_take(&mut self, position: usize, engine: &E, bytes: usize) {
        self.take_planned(position, engine, bytes);
        // Far past the ladder, its rungs would come to hold much of the state alone.
        let mut far = Vec::new();
        if far_past(&self.ladder, position, LADDER_ZONE) {
            far.append(&mut self.ladder);
        }
        if far_past(&self.fine, position, LADDER_SPACING) {
            far.append(&mut self.fine);
        }
        far.into_iter().for_each(|(_, rung)| self.retire(rung));
        if !self.periodic_due(position) {
            return;
        }
        self.taken.push((position, Rc::new(engine.clone())));
        // Checkpoints this size that fit the budget (at least the first and one more).
        let allowed = (MEMORY_BUDGET / bytes.max(1)).clamp(2, MAX_CHECKPOINTS);
        let mut thinned = Vec::new();
        while self.taken.len() > allowed {
            let (kept, dropped): (Vec<_>, Vec<_>) =
                std::mem::take(&mut self.taken).into_iter().enumerate().partition(|(i, _)| i % 2 == 0);
            self.taken = kept.into_iter().map(|(_, c)| c).collect();
            thinned.extend(dropped.into_iter().map(|(_, (_, e))| e));
            self.spacing *= 2;
        }
        if !thinned.is_empty() {
            self.retired.replace(thinned);
        }
    }

    /// A rung a new ladder replaced: freed as a thinned checkpoint is, by
    /// [`Checkpoints::release_retired`], not inside the replay that replaced it (on
    /// `seed-000-topn-dedup` a state's own chunks take tens of ms to free).
    fn retire(&mut self, rung: Rc<E>) {
        self.retired.add(rung, MAX_CHECKPOINTS + LADDER_MAX + FINE_MAX);
    }

    /// Frees one of the checkpoints the last thinning dropped.
    pub fn release_retired(&mut self) {
        self.retired.release_one();
    }

    /// Whether a thinning left checkpoints to free.
    pub fn has_retired(&self) -> bool {
        !self.retired.is_empty()
    }

    /// Drops the checkpoints after `position` actions: the history after it changed.
    pub fn forget_after(&mut self, position: usize) {
        self.taken.retain(|(p, _)| *p <= position);
        self.ladder.retain(|(p, _)| *p <= position);
        self.fine.retain(|(p, _)| *p <= position);
        // The planned rungs stay: a run being recorded forgets the future at every action.
    }

    /// Lays the ladder a replay or run from `from` to a state needing actions from `target` on
    /// should take ([`Checkpoints::ladder_for`]): its rungs are taken as the replay (or the run,
    /// [`Checkpoints::maybe_take`]) passes them ([`Checkpoints::take_planned`]), so a Back at
    /// the target restores a rung instead of replaying from a checkpoint far behind. Laid by a
    /// step back, a far scrub, "▶| to end" and going to a far link's position
    /// (`simulation/seek.rs`). A replay in parts (a far scrub) asks again at each part, from
    /// further on: a plan whose rungs are all planned already keeps the plan, and the rungs the
    /// earlier parts took. The ladder it replaces is kept until the first new rung is taken.
    pub fn lay_ladder(&mut self, from: usize, target: usize, bytes: usize) {
        let rungs = self.ladder_for(from, target, bytes);
        if rungs.is_empty() || rungs.iter().all(|p| self.planned.binary_search(p).is_ok()) {
            return;
        }
        self.planned = rungs;
        self.planned.sort_unstable();
    }

    /// Lays the fine rungs of a Back to `target` that replays from `from`: `target − 2^k` for
    /// [`FINE_RUNG_MIN`] ≤ 2^k < [`LADDER_SPACING`], after `from` (taken as the replay passes
    /// them, [`Checkpoints::take_planned`]). The fine rungs above `target` are dropped: the Backs
    /// after this one go below it.
    pub fn lay_fine_rungs(&mut self, from: usize, target: usize) {
        if !self.enabled {
            return;
        }
        let above = self.fine.partition_point(|(p, _)| *p <= target);
        let dropped: Vec<_> = self.fine.drain(above..).collect();
        dropped.into_iter().for_each(|(_, rung)| self.retire(rung));
        self.fine_planned = std::iter::successors(Some(FINE_RUNG_MIN), |d| Some(d * 2))
            .take_while(|d| *d < LADDER_SPACING)
            .filter_map(|d| target.checked_sub(d))
            .filter(|p| *p > from)
            .collect();
        self.fine_planned.sort_unstable();
    }

    /// Takes `engine` (the state after `position` actions, about `bytes` in memory) as a rung
    /// if one is planned there, within the budget at that size: the lowest rungs go first. A
    /// fine rung planned there is taken too ([`Checkpoints::lay_fine_rungs`]), the lowest
    /// dropped past [`FINE_MAX`].
    pub fn take_planned(&mut self, position: usize, engine: &E, bytes: usize) {
        if self.enabled && self.fine_planned.binary_search(&position).is_ok() {
            let i = self.fine.partition_point(|(p, _)| *p < position);
            if self.fine.get(i).is_none_or(|(p, _)| *p != position) {
                self.fine.insert(i, (position, Rc::new(engine.clone())));
            }
            while self.fine.len() > FINE_MAX {
                let (_, rung) = self.fine.remove(0);
                self.retire(rung);
            }
        }
        if self.enabled && self.planned.binary_search(&position).is_ok() {
            let allowed = rungs_allowed(bytes);
            let planned = std::mem::take(&mut self.planned);
            self.take_rung(position, engine, &planned);
            while self.ladder.len() > allowed {
                let (_, rung) = self.ladder.remove(0);
                self.retire(rung);
            }
            self.planned = planned;
        }
    }

    /// The latest checkpoint, rung or fine rung at or before `position`.
    fn nearest_entry(&self, position: usize) -> &(usize, Rc<E>) {
        let i = self.taken.partition_point(|(p, _)| *p <= position).saturating_sub(1);
        let latest = |list: &'_ [(usize, Rc<E>)]| list.partition_point(|(p, _)| *p <= position).checked_sub(1);
        let mut best = &self.taken[i];
        for list in [&self.ladder, &self.fine] {
            if let Some(entry) = latest(list).map(|j| &list[j]).filter(|e| e.0 > best.0) {
                best = entry;
            }
        }
        best
    }

    /// The position of the latest checkpoint at or before `position`.
    pub fn nearest_position(&self, position: usize) -> usize {
        self.nearest_entry(position).0
    }

    /// A copy of the latest checkpoint at or before `position`, with its position.
    pub fn nearest(&self, position: usize) -> (usize, E) {
        let (p, e) = self.nearest_entry(position);
        (*p, (**e).clone())
    }

    /// The rungs a step back to a state needing actions from `target` on should take while it
    /// replays from `from`: `target − k × LADDER_SPACING` for k = 1, 2, … after `from`, as many as
    /// fit the budget ([`rungs_allowed`]: at least one, at most [`LADDER_MAX`]). None when the
    /// replay starts less than `LADDER_SPACING` before `target` (from a rung, say).
    pub fn ladder_for(&self, from: usize, target: usize, bytes: usize) -> Vec<usize> {
        if !self.enabled {
            return Vec::new();
        }
        let rungs = rungs_allowed(bytes);
        (1..=rungs).map(|k| target.saturating_sub(k * LADDER_SPACING)).filter(|p| *p > from).collect()
    }

    /// Replaces the ladder's rungs outside `rungs` (a new ladder) and adds `engine` at `position`.
    pub fn take_rung(&mut self, position: usize, engine: &E, rungs: &[usize]) {
        let (kept, replaced): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.ladder).into_iter().partition(|(p, _)| rungs.contains(p));
        self.ladder = kept;
        replaced.into_iter().for_each(|(_, rung)| self.retire(rung));
        let i = self.ladder.partition_point(|(p, _)| *p < position);
        if self.ladder.get(i).is_none_or(|(p, _)| *p != position) {
            self.ladder.insert(i, (position, Rc::new(engine.clone())));
        }
    }

    /// The positions of the ladder's rungs.
    pub fn rungs(&self) -> Vec<usize> {
        self.ladder.iter().map(|(p, _)| *p).collect()
    }

    /// The positions of the fine rungs.
    pub fn fine_rungs(&self) -> Vec<usize> {
        self.fine.iter().map(|(p, _)| *p).collect()
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

    #[test]
    fn a_ladder_sits_behind_its_target_and_is_the_nearest_there() {
        let mut c = Checkpoints::new(0usize, true);
        for pos in 1..=INITIAL_SPACING * 100 {
            c.maybe_take(pos, &pos, MEMORY_BUDGET / 3);
        }
        let target = INITIAL_SPACING * 100 - 500;
        let from = c.nearest_position(target);
        // A state a third of the budget still gets every rung: a rung is charged what it holds
        // alone (RUNG_OWN_BYTES), not the state's size (trial 23: one rung on Top-N).
        let rungs = c.ladder_for(from, target, MEMORY_BUDGET / 3);
        let k = |k: usize| target - k * LADDER_SPACING;
        assert_eq!(rungs, vec![k(1), k(2), k(3), k(4)]);
        let rungs = rungs[..3].to_vec();
        for &r in &rungs {
            c.take_rung(r, &r, &rungs);
        }
        assert_eq!(c.rungs(), vec![k(3), k(2), k(1)]);
        assert_eq!(c.nearest(target - 1), (target - LADDER_SPACING, target - LADDER_SPACING));
        assert_eq!(c.nearest_position(target - 2 * LADDER_SPACING - 1), target - 3 * LADDER_SPACING);
        // From a rung, the replay is short: no new ladder.
        assert!(c.ladder_for(target - LADDER_SPACING, target - 1, 1).is_empty());
        // A new ladder replaces the old one: the rungs it replaced are freed later, one per
        // `release_retired`, not in the replay that replaced them. Forgetting the future drops
        // rungs too.
        let thinned_before = c.has_retired();
        while c.has_retired() {
            c.release_retired();
        }
        c.take_rung(7, &7, &[7]);
        assert_eq!(c.rungs(), vec![7]);
        assert!(c.has_retired(), "the 3 replaced rungs wait (thinned before: {thinned_before})");
        for _ in 0..3 {
            assert!(c.has_retired());
            c.release_retired();
        }
        assert!(!c.has_retired());
        c.forget_after(6);
        assert!(c.rungs().is_empty());
        // A run going on far past the ladder drops it (its rungs would come to hold much alone).
        c.take_rung(7, &7, &[7]);
        c.maybe_take(7 + LADDER_ZONE, &0, 1);
        assert_eq!(c.rungs(), vec![7], "within the zone");
        c.maybe_take(8 + LADDER_ZONE, &0, 1);
        assert!(c.rungs().is_empty() && c.has_retired(), "past it: dropped, freed later");
    }
}
