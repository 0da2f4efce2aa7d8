//! Bookmarks: the steps of a scenario's straight run where something that matters happened — a
//! timer fired, state expired by TTL, a result row went stale, a key's state was created again
//! after it had been lost (the key counted as new again). The page lists them and jumps to them
//! through its ordinary time travel ([`super::Simulation::seek`] and replay); nothing here runs
//! inside the simulation, it reads the trace a separate run records.
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
use rustc_hash::FxHashSet as HashSet;
use std::rc::Rc;

/// How many steps [`scan`] runs at most by default (a generated workload has up to millions).
pub const MAX_SCAN_STEPS: u64 = 2_000;

/// How many bookmarks [`scan`] keeps at most.
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
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bookmarks {
    pub marks: Vec<Bookmark>,
    /// Steps run to find them.
    pub scanned: u64,
    /// The scenario's steps (more than `scanned` when the scan stopped early).
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

fn note(found: &mut Vec<Found>, kind: BookmarkKind, time_ms: Millis, what: impl FnOnce() -> String) {
    match found.iter_mut().find(|f| f.kind == kind) {
        Some(f) => f.count += 1,
        None => found.push(Found { kind, time_ms, first: what(), count: 1 }),
    }
}

/// Runs `scenario` from its start for at most `max_steps` steps and returns the steps where a
/// timer fired, state expired, a result row went stale or a key counted as new again (one
/// bookmark per step and kind, naming the first place and how many more). The trace is drained
/// after every step, so memory stays flat.
pub fn scan(scenario: &Scenario, max_steps: u64) -> Bookmarks {
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(scenario.clone(), options);
    let tf = sim.time_format();
    let ttl = scenario.has_state_ttl();
    let total = sim.step_count();
    let mut out = Bookmarks { total, ..Bookmarks::default() };
    // Keys whose state an operator lost and has not created again: (operator id, key).
    let mut lost: HashSet<(Rc<str>, Row)> = HashSet::default();
    let mut stale_before = 0usize;
    while !sim.is_finished() && out.scanned < max_steps && out.marks.len() < MAX_BOOKMARKS {
        if let Some(why) = sim.step_blocked() {
            out.stopped = Some(why);
            break;
        }
        let outcome = sim.step();
        out.scanned += 1;
        let mut found: Vec<Found> = Vec::new();
        let place = |op: &str, key: &Option<Row>| match key {
            Some(k) => format!("{op} [{}]", k.key_label()),
            None => op.to_string(),
        };
        for e in sim.drain_trace() {
            match &e.event {
                TraceEvent::TimerFired { timer_ms } => {
                    note(&mut found, BookmarkKind::TimerFired, e.time_ms, || {
                        format!("{} timer for {}", place(&e.op, &e.key), tf.format(*timer_ms))
                    });
                }
                TraceEvent::StateCleared { cause: ClearCause::CleanupTimer, .. } => {
                    if let Some(k) = &e.key {
                        lost.insert((e.op.clone(), k.clone()));
                    }
                }
                TraceEvent::StateExpired { state, .. } | TraceEvent::StateCleanedUp { state, .. } => {
                    if let Some(k) = &e.key {
                        lost.insert((e.op.clone(), k.clone()));
                    }
                    note(&mut found, BookmarkKind::StateExpired, e.time_ms, || {
                        format!("{} {state} removed", place(&e.op, &e.key))
                    });
                }
                TraceEvent::Emitted { .. } => {
                    if let Some(k) = &e.key {
                        if lost.remove(&(e.op.clone(), k.clone())) {
                            note(&mut found, BookmarkKind::NewAgain, e.time_ms, || place(&e.op, &e.key));
                        }
                    }
                }
                _ => {}
            }
        }
        if ttl {
            for (op, key, at) in sim.expired_in_last_action() {
                note(&mut found, BookmarkKind::StateExpired, at, || format!("{op} [{key}] (still stored)"));
            }
        }
        let stale: Vec<(Millis, &Row)> =
            sim.result().rows().filter_map(|r| r.stale_since_ms.map(|t| (t, &r.row))).collect();
        if stale.len() > stale_before {
            let newest = stale.iter().max_by_key(|(t, _)| *t).map(|(t, r)| (*t, r.join(", ")));
            if let Some((t, row)) = newest {
                found.push(Found {
                    kind: BookmarkKind::RowStale,
                    time_ms: t,
                    first: format!("result row ({row})"),
                    count: stale.len() - stale_before,
                });
            }
        }
        stale_before = stale.len();
        found.sort_by_key(|f| f.time_ms);
        for f in found {
            let more = if f.count > 1 { format!(" and {} more", f.count - 1) } else { String::new() };
            out.marks.push(Bookmark {
                step: out.scanned,
                time_ms: f.time_ms,
                kind: f.kind,
                what: format!("{}{more}", f.first),
            });
        }
        if let Err(e) = outcome {
            out.stopped = Some(e.to_string());
            break;
        }
    }
    out.marks.truncate(MAX_BOOKMARKS);
    out
}

impl Bookmark {
    /// `step 4 · 2019-11-23 16:00 · timer fired: logins_per_user [u1] timer for 2019-11-23 16:00`.
    pub fn describe(&self, tf: TimeFormat) -> String {
        format!("step {} · {} · {}: {}", self.step, tf.format(self.time_ms), self.kind.label(), self.what)
    }
}

impl Bookmarks {
    /// The first bookmark after step `at` (the next one to jump to).
    pub fn next_after(&self, at: u64) -> Option<&Bookmark> {
        self.marks.iter().find(|m| m.step > at)
    }
    /// The last bookmark before step `at`.
    pub fn previous_before(&self, at: u64) -> Option<&Bookmark> {
        self.marks.iter().rev().find(|m| m.step < at)
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
    }
}
