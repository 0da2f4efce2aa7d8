//! Bookmarks: the steps of a scenario's straight run where something that matters happened — a
//! timer fired, state expired by TTL, a result row went stale, a key's state was created again
//! after it had been lost (the key counted as new again). The page lists them and jumps to them
//! through its ordinary time travel ([`super::Simulation::seek`] and replay); nothing here runs
//! inside the simulation, it reads the trace a separate run records.
//!
//! **A whole run.** [`BookmarkScan`] goes through the run a step at a time (the page runs it in
//! slices while it is idle), so a run of millions of steps is scanned whole: every bookmarked
//! step is kept per kind in a compressed bitmap (a bit per step at worst), which next and
//! previous search in O(log n); only the first [`MAX_BOOKMARKS`] are described in words. Each
//! step costs what its events cost: expiries are reported by the engine as they happen
//! ([`super::Simulation::log_invisible`]), never found by looking at every key.
//!
//! **Counted as new again.** Flink keeps no marker for it: after the cleanup timer cleared a
//! key's state (`KeyedProcessFunctionWithCleanupState.cleanupState`) or state TTL removed an
//! expired entry (`AbstractTtlDecorator.getWithTtlCheckAndUpdate`, `NeverReturnExpired`), the
//! key's next record finds no state and starts from empty, as the key's very first record did.
//! It is derived here the way [`super::provenance`] tags a restart (`RowProvenance::restarted_after`):
//! the first message the operator emits for the key after the loss is computed from the restarted
//! state. Seed 001's next login would count 1 again; seed 002's user u1 is counted as new twice.

use super::row::Row;
use super::scenario::Scenario;
use super::simulation::{SimOptions, Simulation};
use super::time::{Millis, TimeFormat};
use super::trace::{ClearCause, TraceEvent, TraceLevel};
use roaring::RoaringTreemap;
use rustc_hash::FxHashSet as HashSet;
use std::rc::Rc;

/// How many steps [`scan`] runs at most when asked for a bounded scan (the tests' presets).
pub const MAX_SCAN_STEPS: u64 = 2_000;

/// How many bookmarks are described in words ([`Bookmarks::marks`]); every one is counted and
/// reachable by next and previous.
pub const MAX_BOOKMARKS: usize = 500;

/// What a bookmark marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BookmarkKind {
    /// A timer fired (a cleanup timer: the key's state was cleared).
    TimerFired,
    /// State TTL expired: a read removed the expired entry, background cleanup did, or the
    /// expiry time passed (still stored, invisible to reads).
    StateExpired,
    /// A result row went stale: the last operator lost its key's state without a message.
    RowStale,
    /// A key's state was created again after it had been lost: the key counted as new again.
    NewAgain,
}

impl BookmarkKind {
    /// Every kind, in the order the page lists them.
    pub const ALL: [BookmarkKind; 4] =
        [BookmarkKind::TimerFired, BookmarkKind::StateExpired, BookmarkKind::RowStale, BookmarkKind::NewAgain];

    /// A short label for people.
    pub fn label(self) -> &'static str {
        match self {
            BookmarkKind::TimerFired => "timer fired",
            BookmarkKind::StateExpired => "state expired",
            BookmarkKind::RowStale => "row went stale",
            BookmarkKind::NewAgain => "counted as new again",
        }
    }
    /// A CSS-friendly name.
    pub fn id(self) -> &'static str {
        match self {
            BookmarkKind::TimerFired => "timer-fired",
            BookmarkKind::StateExpired => "state-expired",
            BookmarkKind::RowStale => "row-stale",
            BookmarkKind::NewAgain => "new-again",
        }
    }
    fn index(self) -> usize {
        self as usize
    }
}

/// One bookmark: after `step` steps of the straight run (the permalink's `step=`), `kind`
/// happened at processing time `time_ms`; `what` says where, for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bookmark {
    pub step: u64,
    pub time_ms: Millis,
    pub kind: BookmarkKind,
    pub what: String,
}

/// The bookmarks of a scenario's first [`Bookmarks::scanned`] steps.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bookmarks {
    /// The first [`MAX_BOOKMARKS`] bookmarks, described.
    pub marks: Vec<Bookmark>,
    /// Every bookmarked step, per kind ([`BookmarkKind::index`]).
    steps: [RoaringTreemap; 4],
    /// Every bookmarked step, of any kind.
    any: RoaringTreemap,
    /// How many times each kind happened (timers fired, entries expired, rows gone stale, keys
    /// counted as new again): a step counts once per kind in the bitmaps, each event here.
    events: [u64; 4],
    /// Steps run to find them.
    pub scanned: u64,
    /// The scenario's steps (more than `scanned` while the scan goes on or when it stopped early).
    pub total: u64,
    /// Why the run stopped before its end, if it did (an operator failed, a step is blocked).
    pub stopped: Option<String>,
}

/// Collects one step's events of a kind: how many, and the first one's place.
struct Found {
    kind: BookmarkKind,
    time_ms: Millis,
    first: String,
    count: usize,
}

/// Notes an event of `kind`; `what` names its place when `found` is described (the first
/// [`MAX_BOOKMARKS`]: later ones are counted, never written out).
fn note(found: &mut StepFound, kind: BookmarkKind, time_ms: Millis, what: impl FnOnce() -> String) {
    match found.list.iter_mut().find(|f| f.kind == kind) {
        Some(f) => f.count += 1,
        None => {
            let first = if found.describe { what() } else { String::new() };
            found.list.push(Found { kind, time_ms, first, count: 1 })
        }
    }
}

/// One step's events, by kind.
struct StepFound {
    list: Vec<Found>,
    /// Whether the step's bookmarks are described in words.
    describe: bool,
}

/// A scan of a scenario's straight run in progress: [`BookmarkScan::step`] runs one step and
/// notes its bookmarks. Memory follows the run's live state, plus the keys lost and not seen
/// again (to tell a key counted as new again) and the bitmaps; the trace is drained every step.
pub struct BookmarkScan {
    sim: Simulation,
    time_format: TimeFormat,
    /// The operators' ids, by index.
    ops: Vec<Rc<str>>,
    /// Per operator (by index), the keys whose state it lost and has not created again.
    lost: Vec<HashSet<Row>>,
    /// Stale result rows after the last step.
    stale_before: usize,
    out: Bookmarks,
}

impl BookmarkScan {
    /// A scan of `scenario` from its start.
    pub fn new(scenario: &Scenario) -> Self {
        let options = SimOptions { trace: TraceLevel::Full, keep_actions: None, time_travel: false };
        let mut sim = Simulation::with_options(scenario.clone(), options);
        if scenario.has_state_ttl() {
            sim.log_invisible();
        }
        let ops: Vec<Rc<str>> = scenario.operators.iter().map(|n| Rc::from(n.id.as_str())).collect();
        let lost = vec![HashSet::default(); ops.len()];
        let out = Bookmarks { total: sim.step_count(), ..Bookmarks::default() };
        BookmarkScan { time_format: sim.time_format(), sim, ops, lost, stale_before: 0, out }
    }

    /// Whether the run is over: at its end, or stopped (a failed operator, a blocked step).
    pub fn is_finished(&self) -> bool {
        self.out.stopped.is_some() || self.sim.is_finished()
    }

    /// What was found so far.
    pub fn bookmarks(&self) -> &Bookmarks {
        &self.out
    }

    /// Runs one step and notes its bookmarks; false when the run was already over.
    pub fn step(&mut self) -> bool {
        if self.is_finished() {
            return false;
        }
        if let Some(why) = self.sim.step_blocked() {
            self.out.stopped = Some(why);
            return false;
        }
        let outcome = self.sim.step();
        self.out.scanned += 1;
        let found = self.found_in_last_step();
        self.record(found);
        if let Err(e) = outcome {
            self.out.stopped = Some(e.to_string());
        }
        true
    }

    /// The last step's bookmarks, one per kind, in time order.
    fn found_in_last_step(&mut self) -> Vec<Found> {
        let describe = self.out.marks.len() < MAX_BOOKMARKS;
        let BookmarkScan { sim, time_format: tf, ops, lost, stale_before, .. } = self;
        let last_op = ops.last().cloned();
        let mut found = StepFound { list: Vec::new(), describe };
        // Whether result rows went stale in this step: then the keys of the last operator met in
        // it are kept, for the rows that went stale are theirs.
        let stale = sim.result().stale_len();
        let went_stale = stale > *stale_before;
        let mut touched_last: Vec<Row> = Vec::new();
        // The operator of a trace entry, by index (a pipeline has a few).
        let index_of = |op: &Rc<str>| ops.iter().position(|o| Rc::ptr_eq(o, op) || **o == **op);
        // Entries a read or the background cleanup removed in this step: their expiry is told
        // with the removal, not again as "still stored".
        let mut removed: Vec<(usize, Row)> = Vec::new();
        let place = |op: &str, key: &Option<Row>| match key {
            Some(k) => format!("{op} [{}]", k.key_label()),
            None => op.to_string(),
        };
        let invisible = sim.take_invisible();
        for e in sim.drain_trace() {
            if let (true, Some(k), Some(last)) = (went_stale, &e.key, &last_op) {
                if e.op == *last && touched_last.last() != Some(k) {
                    touched_last.push(k.clone());
                }
            }
            match &e.event {
                TraceEvent::TimerFired { timer_ms } => {
                    note(&mut found, BookmarkKind::TimerFired, e.time_ms, || {
                        format!("{} timer for {}", place(&e.op, &e.key), tf.format(*timer_ms))
                    });
                }
                TraceEvent::StateCleared { cause: ClearCause::CleanupTimer, .. } => {
                    if let (Some(k), Some(i)) = (&e.key, index_of(&e.op)) {
                        lost[i].insert(k.clone());
                    }
                }
                TraceEvent::StateExpired { state, .. } | TraceEvent::StateCleanedUp { state, .. } => {
                    if let (Some(k), Some(i)) = (&e.key, index_of(&e.op)) {
                        lost[i].insert(k.clone());
                        removed.push((i, k.clone()));
                    }
                    note(&mut found, BookmarkKind::StateExpired, e.time_ms, || {
                        format!("{} {state} removed", place(&e.op, &e.key))
                    });
                }
                TraceEvent::Emitted { .. } => {
                    if let (Some(k), Some(i)) = (&e.key, index_of(&e.op)) {
                        if !lost[i].is_empty() && lost[i].remove(k) {
                            note(&mut found, BookmarkKind::NewAgain, e.time_ms, || place(&e.op, &e.key));
                        }
                    }
                }
                _ => {}
            }
        }
        for (i, key, at) in invisible {
            let op = &ops[i];
            if went_stale && i + 1 == ops.len() {
                touched_last.push(key.clone());
            }
            if removed.iter().any(|(o, k)| *o == i && *k == key) {
                continue;
            }
            note(&mut found, BookmarkKind::StateExpired, at, || format!("{op} [{}] (still stored)", key.key_label()));
        }
        let result = sim.result();
        if went_stale {
            // The newest stale row of the keys the last operator met; every row that went stale
            // is one of theirs (a loss happens while the operator runs for the key, or at the
            // key's expiry, both named above), so the whole table is never looked through.
            let newest = touched_last
                .iter()
                .flat_map(|k| result.slots_of_key(k))
                .filter_map(|slot| result.in_slot(slot))
                .filter_map(|r| r.stale_since_ms.map(|t| (t, r)))
                .max_by_key(|(t, _)| *t);
            if let Some((t, r)) = newest {
                found.list.push(Found {
                    kind: BookmarkKind::RowStale,
                    time_ms: t,
                    first: if describe { format!("result row ({})", r.row.join(", ")) } else { String::new() },
                    count: stale - *stale_before,
                });
            }
        }
        *stale_before = stale;
        found.list.sort_by_key(|f| f.time_ms);
        found.list
    }

    fn record(&mut self, found: Vec<Found>) {
        let step = self.out.scanned;
        for f in found {
            self.out.events[f.kind.index()] += f.count as u64;
            self.out.steps[f.kind.index()].insert(step);
            self.out.any.insert(step);
            if self.out.marks.len() < MAX_BOOKMARKS {
                let more = if f.count > 1 { format!(" and {} more", f.count - 1) } else { String::new() };
                self.out.marks.push(Bookmark {
                    step,
                    time_ms: f.time_ms,
                    kind: f.kind,
                    what: format!("{}{more}", f.first),
                });
            }
        }
    }
}

impl From<BookmarkScan> for Bookmarks {
    fn from(scan: BookmarkScan) -> Self {
        scan.out
    }
}

/// Runs `scenario` from its start for at most `max_steps` steps and returns the steps where a
/// timer fired, state expired, a result row went stale or a key counted as new again (one
/// bookmark per step and kind, naming the first place and how many more).
pub fn scan(scenario: &Scenario, max_steps: u64) -> Bookmarks {
    let mut s = BookmarkScan::new(scenario);
    while s.bookmarks().scanned < max_steps && s.step() {}
    s.into()
}

impl Bookmark {
    /// `step 4 · 2019-11-23 16:00 · timer fired: logins_per_user [u1] timer for 2019-11-23 16:00`.
    pub fn describe(&self, tf: TimeFormat) -> String {
        format!("step {} · {} · {}: {}", self.step, tf.format(self.time_ms), self.kind.label(), self.what)
    }
}

impl Bookmarks {
    fn of(&self, kind: Option<BookmarkKind>) -> &RoaringTreemap {
        kind.map_or(&self.any, |k| &self.steps[k.index()])
    }

    /// How many steps have a bookmark of `kind` (of any kind: `None`).
    pub fn count(&self, kind: Option<BookmarkKind>) -> u64 {
        self.of(kind).len()
    }

    /// How many times `kind` happened in the steps scanned (a step may hold several).
    pub fn events(&self, kind: BookmarkKind) -> u64 {
        self.events[kind.index()]
    }

    /// The first step after `at` with a bookmark of `kind` (any: `None`): where next goes.
    pub fn next_after(&self, at: u64, kind: Option<BookmarkKind>) -> Option<u64> {
        let steps = self.of(kind);
        steps.select(steps.rank(at))
    }

    /// The last step before `at` with a bookmark of `kind` (any: `None`): where previous goes.
    pub fn previous_before(&self, at: u64, kind: Option<BookmarkKind>) -> Option<u64> {
        let steps = self.of(kind);
        let below = if at == 0 { 0 } else { steps.rank(at - 1) };
        below.checked_sub(1).and_then(|n| steps.select(n))
    }

    /// The kinds of bookmark at `step`, and which bookmarked step it is (1 for the first).
    pub fn at(&self, step: u64) -> Option<(Vec<BookmarkKind>, u64)> {
        self.any.contains(step).then(|| {
            let kinds = BookmarkKind::ALL.into_iter().filter(|k| self.steps[k.index()].contains(step)).collect();
            (kinds, self.any.rank(step))
        })
    }

    /// Which step of `kind` `step` is (1 for the first), if it has a bookmark of that kind.
    pub fn rank_of(&self, step: u64, kind: BookmarkKind) -> Option<u64> {
        let steps = &self.steps[kind.index()];
        steps.contains(step).then(|| steps.rank(step))
    }

    /// Whether every bookmark found is described in [`Bookmarks::marks`].
    pub fn all_described(&self) -> bool {
        self.marks.len() as u64 == self.steps.iter().map(RoaringTreemap::len).sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::presets::load_preset;

    fn marks(name: &str) -> Vec<(u64, BookmarkKind, String, String)> {
        let scenario = load_preset(name).unwrap();
        let tf = Simulation::new(scenario.clone()).time_format();
        let b = scan(&scenario, MAX_SCAN_STEPS);
        assert_eq!(b.scanned, b.total, "{name}: scanned the whole run");
        assert_eq!(b.stopped, None);
        b.marks.into_iter().map(|m| (m.step, m.kind, tf.format(m.time_ms), m.what)).collect()
    }

    #[test]
    fn seed_001_the_cleanup_timer_fires_at_step_4_and_the_row_goes_stale() {
        let m = marks("seed-001-one-day-two-days");
        assert_eq!(
            m,
            vec![
                (
                    4,
                    BookmarkKind::TimerFired,
                    "2019-11-23 16:00".to_string(),
                    "logins_per_user [u1] timer for 2019-11-23 16:00".to_string()
                ),
                (4, BookmarkKind::RowStale, "2019-11-23 16:00".to_string(), "result row (u1, 3)".to_string()),
            ]
        );
    }

    /// A run of 100 000 steps is scanned whole, far past the bookmarks described in words: the
    /// preset's own account (its "What to watch") of 9 219 cleanup timers fired, each leaving its
    /// user's row stale, and next / previous reach the last of them.
    #[test]
    fn a_whole_run_of_100k_logins_is_counted_and_next_reaches_its_last_bookmark() {
        let scenario = load_preset("what-if-100k-logins").unwrap();
        let b = scan(&scenario, u64::MAX);
        assert_eq!((b.scanned, b.total, b.stopped.as_deref()), (100_000, 100_000, None));
        assert_eq!(b.events(BookmarkKind::TimerFired), 9_219);
        assert_eq!(b.events(BookmarkKind::RowStale), 9_219);
        assert_eq!(b.events(BookmarkKind::StateExpired), 0, "no state TTL");
        // Pinned from this scan (the README quotes them): 10 961 bookmarked steps, 2 122 of them
        // with a user counted as new again.
        assert_eq!((b.count(None), b.count(Some(BookmarkKind::NewAgain))), (10_961, 2_122));
        assert!(b.events(BookmarkKind::NewAgain) > 0, "returning users count from 1 again");
        assert_eq!(b.marks.len(), MAX_BOOKMARKS);
        assert!(!b.all_described());
        let described = b.marks.last().unwrap().step;
        // Next from past the described ones, through to the end, and back.
        let beyond = b.next_after(described, None).expect("more bookmarks than the described ones");
        assert!(beyond > described);
        let (kinds, nth) = b.at(beyond).unwrap();
        assert!(kinds.contains(&BookmarkKind::TimerFired), "{kinds:?}");
        let last = b.previous_before(u64::MAX, None).unwrap();
        assert_eq!(b.next_after(last, None), None);
        let last_new_again = b.previous_before(u64::MAX, Some(BookmarkKind::NewAgain)).unwrap();
        assert_eq!(b.rank_of(last_new_again, BookmarkKind::NewAgain), Some(2_122));
        assert_eq!(
            b.rank_of(last_new_again - 1, BookmarkKind::NewAgain).is_some(),
            b.at(last_new_again - 1).is_some_and(|(k, _)| k.contains(&BookmarkKind::NewAgain))
        );
        assert_eq!(b.at(last).unwrap().1, b.count(None));
        assert_eq!(b.previous_before(beyond, None), Some(described));
        let described_steps = b.marks.iter().map(|m| m.step).collect::<HashSet<_>>().len() as u64;
        assert_eq!(nth, described_steps + 1, "the first bookmark past the described ones");
        // Walking every "counted as new again" step forward gives them all, in order.
        let (mut at, mut walked) = (0, 0);
        while let Some(s) = b.next_after(at, Some(BookmarkKind::NewAgain)) {
            assert!(s > at);
            (at, walked) = (s, walked + 1);
        }
        assert_eq!(walked, b.count(Some(BookmarkKind::NewAgain)));
        // The steps with a timer firing are the steps where its row went stale (legacy COUNT).
        assert_eq!(b.count(Some(BookmarkKind::TimerFired)), b.count(Some(BookmarkKind::RowStale)));
    }

    /// The engine's own account of a step a bookmark names: replaying the run to the step before
    /// a far "counted as new again" bookmark and taking one step shows the key's state created
    /// again from nothing (`(true,user-…,1)`: a user seen before, counted from 1).
    #[test]
    fn a_far_new_again_bookmark_is_a_user_counted_from_one_again() {
        let scenario = load_preset("what-if-100k-logins").unwrap();
        let b = scan(&scenario, u64::MAX);
        let far = b.previous_before(u64::MAX, Some(BookmarkKind::NewAgain)).unwrap();
        assert!(far > b.marks.last().unwrap().step, "past the described bookmarks");
        let mut sim = Simulation::with_options(
            scenario,
            SimOptions { trace: TraceLevel::Full, keep_actions: Some(1), time_travel: false },
        );
        for _ in 1..far {
            sim.step().unwrap();
        }
        sim.drain_trace().for_each(drop);
        sim.step().unwrap();
        let emitted: Vec<String> = sim
            .drain_trace()
            .filter_map(|e| match &e.event {
                TraceEvent::Emitted { message } => Some(message.to_string()),
                _ => None,
            })
            .collect();
        let counted_from_one = emitted.iter().find(|m| m.starts_with("(true,user-") && m.ends_with(",1)"));
        let user = counted_from_one.and_then(|m| m.split(',').nth(1)).expect("a user counted 1");
        // The same user's earlier row is still in the result, stale since its state was cleared.
        assert!(
            sim.result().rows().any(|r| r.stale_since_ms.is_some() && r.row.join(",").starts_with(&format!("{user},"))),
            "{user} was seen before and lost"
        );
    }

    /// What the engine tells as it happens ([`Simulation::take_invisible`]) is what looking at
    /// every key after each step finds ([`Simulation::expired_in_last_action`]), plus the entries
    /// a read or the background cleanup removed in the same step: 3 000 steps of 100 k logins under a 10 min state TTL.
    #[test]
    fn expiries_told_as_they_happen_are_those_found_by_looking_at_every_key() {
        let json = include_str!("../../scenarios/what-if-100k-logins.json")
            .replace(r#""flink": "1.10-legacy""#, r#""flink": "2.3""#)
            .replace(r#""idle_state_retention": {"min": "6 h", "max": "12 h"}"#, r#""state_ttl": "10 min""#);
        let scenario = Scenario::from_json(&json).unwrap();
        let mut sim = Simulation::new(scenario);
        sim.log_invisible();
        let mut told_in_all = 0;
        for _ in 0..3_000 {
            sim.step().unwrap();
            let ids: Vec<String> = sim.scenario().operators.iter().map(|n| n.id.clone()).collect();
            let mut told: Vec<(String, String, Millis)> =
                sim.take_invisible().into_iter().map(|(i, k, at)| (ids[i].clone(), k.key_label(), at)).collect();
            let removed: Vec<(String, String)> = sim
                .drain_trace()
                .filter(|e| matches!(e.event, TraceEvent::StateExpired { .. } | TraceEvent::StateCleanedUp { .. }))
                .map(|e| (e.op.to_string(), e.key.as_ref().unwrap().key_label()))
                .collect();
            told_in_all += told.len();
            told.retain(|(op, k, _)| !removed.contains(&(op.clone(), k.clone())));
            assert_eq!(told, sim.expired_in_last_action());
        }
        assert!(told_in_all > 1_000, "{told_in_all}");
    }

    #[test]
    fn seed_002_u1_expires_and_counts_as_new_again_on_thursday() {
        let m = marks("seed-002-dau-new-users-global-ttl");
        let thursday: Vec<_> = m.iter().filter(|(_, k, _, _)| *k == BookmarkKind::NewAgain).collect();
        assert_eq!(thursday.len(), 1, "{m:#?}");
        let (step, _, at, what) = thursday[0];
        assert_eq!((*step, at.as_str(), what.as_str()), (8, "2019-11-21 10:00", "OverAggregate[3] [u1]"));
        // The same step's read found u1's accState expired and removed it.
        assert!(
            m.iter().any(|(s, k, _, w)| s == step
                && *k == BookmarkKind::StateExpired
                && w.starts_with("OverAggregate[3] [u1]")),
            "{m:#?}"
        );
        // Next and previous by kind, from a step between bookmarks.
        let b = scan(&load_preset("seed-002-dau-new-users-global-ttl").unwrap(), MAX_SCAN_STEPS);
        assert_eq!(b.next_after(0, Some(BookmarkKind::NewAgain)), Some(8));
        assert_eq!(b.next_after(8, Some(BookmarkKind::NewAgain)), None);
        assert_eq!(b.previous_before(15, Some(BookmarkKind::NewAgain)), Some(8));
        assert_eq!(b.previous_before(8, Some(BookmarkKind::NewAgain)), None);
        assert_eq!(b.events(BookmarkKind::NewAgain), 1);
        assert!(b.all_described());
    }
}
