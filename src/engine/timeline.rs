//! The timeline the page draws: one lane per (operator, key) with the key's accesses, the
//! `[now + min, now + max]` window of its last access, its cleanup timers (live, deleted or
//! fired), when its state was cleared, and its state TTL. Derived from the trace the simulation
//! keeps (all of it, or the window of the last actions the page keeps) and the operators'
//! current state of the keys on show; the page only scales it to pixels. Its cost follows the
//! kept window, never the length of the run.

use super::row::Row;
use super::scenario::{Retention, Step};
use super::simulation::Simulation;
use super::time::Millis;
use super::trace::{ClearCause, TraceEvent};
use super::view::TtlView;
use std::collections::BTreeMap;
use std::rc::Rc;

/// What became of a timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerStatus {
    /// Registered and waiting.
    Live,
    /// Deleted at this processing time (ms) by the cleanup rule.
    Deleted { at_ms: Millis },
    /// Fired (at its own timestamp).
    Fired,
}

/// One timer on a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimerMark {
    /// The timer's timestamp, ms.
    pub timestamp_ms: Millis,
    /// When it was registered, ms (`None` for a live timer registered before the kept trace).
    pub registered_at_ms: Option<Millis>,
    pub status: TimerStatus,
    /// Registered, deleted or fired by the last action.
    pub changed_last: bool,
}

/// Why a key's state went away, as the timeline marks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClearMark {
    /// The cleanup timer fired and cleared the state silently.
    CleanedUp { at_ms: Millis },
    /// The record count reached 0 (a delete was emitted).
    CountZero { at_ms: Millis },
    /// State TTL expired at `at_ms` (found by a later read, which removed it).
    Expired { at_ms: Millis },
}

/// One (operator, key) lane.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    pub op: String,
    /// The key for people ([`Row::key_label`]).
    pub key: String,
    /// Processing times (ms) at which the operator processed a record of the key.
    pub accesses: Vec<Millis>,
    /// `[last access + min, last access + max]` (legacy idle state retention, cleaning enabled).
    pub window: Option<(Millis, Millis)>,
    pub timers: Vec<TimerMark>,
    /// When and why the key's state went away.
    pub cleared: Vec<ClearMark>,
    /// The key's state TTL now, if it has TTL state stored.
    pub ttl: Option<TtlView>,
    /// Whether the last action touched this lane.
    pub changed_last: bool,
}

/// The most lanes a timeline holds: those of the keys touched most recently.
pub const MAX_LANES: usize = 40;

/// The lanes of a simulation, in order of first appearance, and the time range to draw (ms).
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub lanes: Vec<Lane>,
    /// Lanes left out (beyond [`MAX_LANES`]), the least recently touched.
    pub hidden_lanes: usize,
    pub from_ms: Millis,
    pub to_ms: Millis,
    pub now_ms: Millis,
    /// Processing times (ms) of the scenario's input steps that have not run yet.
    pub upcoming_inputs_ms: Vec<Millis>,
}

/// Builds the timeline of `sim` as it stands now.
pub fn timeline(sim: &Simulation) -> Timeline {
    let last_action = sim.last_action().map(|a| a.index);
    let mut lanes: Vec<Lane> = Vec::new();
    let mut index: BTreeMap<(Rc<str>, Row), usize> = BTreeMap::new();
    // Only the most recently touched keys get a lane.
    let mut recent: BTreeMap<(Rc<str>, Row), usize> = BTreeMap::new();
    for (i, e) in sim.trace().iter().enumerate() {
        if let Some(key) = &e.key {
            recent.insert((e.op.clone(), key.clone()), i);
        }
    }
    let hidden_lanes = recent.len().saturating_sub(MAX_LANES);
    if hidden_lanes > 0 {
        let mut by_recency: Vec<usize> = recent.values().copied().collect();
        by_recency.sort_unstable();
        let cutoff = by_recency[hidden_lanes];
        recent.retain(|_, last| *last >= cutoff);
    }
    let mut from_ms = sim.scenario().start_ms.min(sim.now());
    if sim.scenario().workload.is_some() {
        // A generated run is shown over the window the page keeps, not from its start.
        from_ms = sim.trace().first().map_or(sim.now(), |e| e.time_ms);
    }
    for e in sim.trace() {
        let Some(key) = &e.key else { continue };
        if hidden_lanes > 0 && !recent.contains_key(&(e.op.clone(), key.clone())) {
            continue;
        }
        let i = *index.entry((e.op.clone(), key.clone())).or_insert_with(|| {
            lanes.push(Lane {
                op: e.op.to_string(),
                key: key.key_label(),
                accesses: vec![],
                window: None,
                timers: vec![],
                cleared: vec![],
                ttl: None,
                changed_last: false,
            });
            lanes.len() - 1
        });
        let lane = &mut lanes[i];
        let latest = Some(e.action) == last_action;
        lane.changed_last |= latest;
        match &e.event {
            TraceEvent::Received { .. } | TraceEvent::Buffered { .. } => lane.accesses.push(e.time_ms),
            TraceEvent::TimerRegistered { timer_ms } => lane.timers.push(TimerMark {
                timestamp_ms: *timer_ms,
                registered_at_ms: Some(e.time_ms),
                status: TimerStatus::Live,
                changed_last: latest,
            }),
            TraceEvent::TimerDeleted { timer_ms } | TraceEvent::TimerFired { timer_ms } => {
                let deleted = matches!(e.event, TraceEvent::TimerDeleted { .. });
                if let Some(t) =
                    lane.timers.iter_mut().rev().find(|t| t.timestamp_ms == *timer_ms && t.status == TimerStatus::Live)
                {
                    t.status = if deleted { TimerStatus::Deleted { at_ms: e.time_ms } } else { TimerStatus::Fired };
                    t.changed_last |= latest;
                }
            }
            TraceEvent::StateCleared { cause: ClearCause::CleanupTimer, .. } => {
                lane.cleared.push(ClearMark::CleanedUp { at_ms: e.time_ms })
            }
            TraceEvent::StateCleared { cause: ClearCause::CountZero, .. } => {
                lane.cleared.push(ClearMark::CountZero { at_ms: e.time_ms })
            }
            TraceEvent::StateExpired { expired_at_ms, .. } => {
                lane.cleared.push(ClearMark::Expired { at_ms: *expired_at_ms })
            }
            _ => {}
        }
    }
    if let Retention::IdleState(r) = sim.scenario().retention {
        if r.state_cleaning_enabled() {
            for lane in &mut lanes {
                lane.window = lane.accesses.last().map(|&t| (t + r.min_ms, t + r.max_ms));
            }
        }
    }
    let op_index = |op: &str| sim.scenario().operators.iter().position(|o| o.id == op).unwrap_or(usize::MAX);
    for ((op, key), &i) in &index {
        let Some(view) = sim.key_view(op_index(op), key) else { continue };
        let lane = &mut lanes[i];
        lane.ttl = view.ttl;
        // Live timers registered before the kept trace began are drawn too.
        for t in view.timers_ms {
            if !lane.timers.iter().any(|m| m.timestamp_ms == t && m.status == TimerStatus::Live) {
                lane.timers.push(TimerMark {
                    timestamp_ms: t,
                    registered_at_ms: None,
                    status: TimerStatus::Live,
                    changed_last: false,
                });
            }
        }
    }
    // The axis spans every input of the scenario from the start (so it does not rescale while
    // stepping through them), and every timer, window and expiry; not the scenario's trailing
    // advances, which would squash the activity to one side.
    let mut to_ms = sim.now();
    let mut t = sim.scenario().start_ms;
    let mut upcoming_inputs_ms = Vec::new();
    for (i, step) in sim.scenario().steps.iter().enumerate() {
        let i = i as u64;
        t = match step {
            Step::Input { at, .. } => at.unwrap_or(t),
            Step::AdvanceTo(to) => *to,
            Step::AdvanceBy(by) => t.saturating_add(*by),
        };
        if matches!(step, Step::Input { .. }) {
            if i >= sim.next_step() {
                upcoming_inputs_ms.push(t);
            }
            to_ms = to_ms.max(t);
        }
    }
    for lane in &lanes {
        to_ms = to_ms.max(lane.window.map_or(0, |w| w.1));
        to_ms = lane.timers.iter().map(|t| t.timestamp_ms).fold(to_ms, Millis::max);
        to_ms = to_ms.max(lane.ttl.map_or(0, |t| t.expires_at_ms));
    }
    if to_ms <= from_ms {
        to_ms = from_ms + 1;
    }
    // Group lanes by operator (pipeline order), keys in order of first appearance within each.
    lanes.sort_by_key(|lane| op_index(&lane.op));
    Timeline { lanes, hidden_lanes, from_ms, to_ms, now_ms: sim.now(), upcoming_inputs_ms }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::presets::load_preset;

    #[test]
    fn seed_001_lane_shows_the_moved_timer_and_window() {
        let mut sim = Simulation::new(load_preset("seed-001-one-day-two-days").unwrap());
        for _ in 0..3 {
            sim.step().unwrap();
        }
        let tl = timeline(&sim);
        assert_eq!(tl.lanes.len(), 1);
        let lane = &tl.lanes[0];
        let t = |s: &str| crate::engine::time::parse_date_time(s).unwrap();
        assert_eq!(lane.accesses, vec![t("2019-11-20T15:00"), t("2019-11-20T16:00"), t("2019-11-21T16:00")]);
        assert_eq!(lane.window, Some((t("2019-11-22T16:00"), t("2019-11-23T16:00"))));
        assert_eq!(lane.timers.len(), 2);
        assert_eq!(lane.timers[0].status, TimerStatus::Deleted { at_ms: t("2019-11-21T16:00") });
        assert!(lane.timers[0].changed_last && lane.timers[1].changed_last);
        assert_eq!(lane.timers[1].status, TimerStatus::Live);
        assert_eq!(tl.to_ms, t("2019-11-23T16:00"), "the axis reaches the last timer");
        assert!(tl.upcoming_inputs_ms.is_empty());
        sim.step().unwrap();
        let lane = &timeline(&sim).lanes[0];
        assert_eq!(lane.timers[1].status, TimerStatus::Fired);
        assert_eq!(lane.cleared, vec![ClearMark::CleanedUp { at_ms: t("2019-11-23T16:00") }]);
    }
}
