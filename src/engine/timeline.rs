//! The timeline the page draws: one lane per (operator, key) with the key's accesses, the
//! `[now + min, now + max]` window of its last access, its cleanup timers (live, deleted or
//! fired), when its state was cleared, and its state TTL; the scenario's explicit inputs, done or
//! still to run; and the processing-time domain of the whole run. Derived from the trace the
//! simulation keeps (all of it, or the window of the last actions the page keeps) and the
//! operators' current state of the keys on show; the page only scales it to pixels
//! ([`super::time_axis`]). Its cost follows the kept window, never the length of the run.

use super::row::Row;
use super::scenario::{Retention, Step};
use super::simulation::Simulation;
use super::time::Millis;
use super::trace::{ClearCause, TraceEvent};
use super::view::TtlView;
use rustc_hash::{FxHashMap, FxHashSet};

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
    /// The key's row was deleted (a `-D` with the stored row was emitted).
    RowDeleted { at_ms: Millis },
    /// State TTL expired at `at_ms` (written last at `last_access_ms`) and was removed at
    /// `removed_at_ms`: by a read of the key (`NeverReturnExpired`: the read finds nothing) or,
    /// `by_cleanup`, by the heap backend's incremental cleanup (`TtlIncrementalCleanup`).
    Expired { last_access_ms: Millis, at_ms: Millis, removed_at_ms: Millis, by_cleanup: bool },
}

/// One (operator, key) lane.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    pub op: String,
    /// The key for people ([`Row::key_label`]).
    pub key: String,
    /// The key's values as [`Lane::key`] writes each (joined by `", "`), so a label can keep one
    /// value's text direction out of the next's.
    pub key_values: Vec<String>,
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
    /// The key is the empty key of a global aggregation (no `GROUP BY`): [`Lane::key`] is
    /// `(global)`, and a label need not repeat it after the operator.
    pub global_key: bool,
}

/// One explicit input step of the scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct InputMark {
    /// Its index in the scenario's steps.
    pub step: u64,
    /// The processing time it runs at (ms): its `at`, or the time the steps before it reach.
    pub at_ms: Millis,
    /// Whether the step has `at` (without it, the row arrives at the current time).
    pub has_at: bool,
    /// Whether it has run.
    pub done: bool,
    /// Whether it can still run: it has run, or its time is not before the current time (time
    /// was not advanced past it).
    pub runnable: bool,
    /// The source it comes from: its index in [`Scenario::sources`](super::scenario::Scenario::sources)
    /// (the step's `source`, or the only source).
    pub source: usize,
}

/// The most lanes a timeline holds: those of the keys touched most recently.
pub const MAX_LANES: usize = 200;

/// The lanes of a simulation, in order of first appearance, and the time range to draw (ms).
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub lanes: Vec<Lane>,
    /// Lanes left out (beyond [`MAX_LANES`]), the least recently touched.
    pub hidden_lanes: usize,
    /// Lanes not matching the filter.
    pub filtered_out: usize,
    /// The whole run's processing-time domain: from the start to the last input plus the longest
    /// retention (so the timers it registers fit), the scenario's end and whatever is drawn. It
    /// does not change while stepping through the scenario's inputs, only when time or a mark goes
    /// beyond it (an advance by hand).
    pub from_ms: Millis,
    pub to_ms: Millis,
    pub now_ms: Millis,
    /// The scenario's explicit input steps, in order.
    pub inputs: Vec<InputMark>,
    /// For a generated run, the width (ms) of a view that follows the current time (its kept
    /// window of actions is a sliver of the whole run); `None`: show the whole domain.
    pub follow_ms: Option<Millis>,
}

/// How long past a key's last access its state or timers reach at most, over every operator: the
/// idle state retention's max (cleanup timers), or 1.5 × the state TTL (an OVER window's cleanup
/// timer is at 1.5 × TTL; state TTL expiry itself is at 1 ×).
pub fn retention_horizon(scenario: &super::scenario::Scenario) -> Millis {
    (0..scenario.operators.len().max(1))
        .map(|i| match scenario.operator_retention(i) {
            Retention::IdleState(r) if r.state_cleaning_enabled() => r.max_ms,
            Retention::StateTtl(t) if t > 0 => t.saturating_add(t / 2),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

/// Builds the timeline of `sim` as it stands now.
pub fn timeline(sim: &Simulation) -> Timeline {
    timeline_filtered(sim, "")
}

/// Builds the timeline of `sim` with only the lanes whose operator id or key contains `filter`
/// (ignoring case; every lane when it is empty): the keys matching it get lanes even when others
/// were touched more recently.
pub fn timeline_filtered(sim: &Simulation, filter: &str) -> Timeline {
    let filter = filter.trim().to_lowercase();
    let matches = |op: &str, key: &Row| {
        filter.is_empty() || op.to_lowercase().contains(&filter) || key.key_label().to_lowercase().contains(&filter)
    };
    let last_action = sim.last_action().map(|a| a.index);
    let trace = sim.trace();
    // By (operator, key), borrowed from the trace: the last entry touching it, or the number of
    // filtered-out keys. Hash maps, not ordered ones: the lanes' order is decided below.
    let mut recent: FxHashMap<(&str, &Row), usize> = FxHashMap::default();
    let mut filtered: FxHashSet<(&str, &Row)> = FxHashSet::default();
    for (i, e) in trace.iter().enumerate() {
        if let Some(key) = &e.key {
            if matches(&e.op, key) {
                recent.insert((&*e.op, key), i);
            } else {
                filtered.insert((&*e.op, key));
            }
        }
    }
    let filtered_out = filtered.len();
    let hidden_lanes = recent.len().saturating_sub(MAX_LANES);
    if hidden_lanes > 0 {
        let mut by_recency: Vec<usize> = recent.values().copied().collect();
        by_recency.select_nth_unstable(hidden_lanes);
        let cutoff = by_recency[hidden_lanes];
        recent.retain(|_, last| *last >= cutoff);
    }
    let mut lanes: Vec<Lane> = Vec::new();
    // Lane index by (operator, key), then the keys in lane order, for the current state below.
    let mut index: FxHashMap<(&str, &Row), usize> = FxHashMap::default();
    let mut lane_keys: Vec<(&str, &Row)> = Vec::new();
    for e in trace {
        let Some(key) = &e.key else { continue };
        let id = (&*e.op, key);
        if !recent.contains_key(&id) {
            continue;
        }
        let i = *index.entry(id).or_insert_with(|| {
            lanes.push(Lane {
                op: e.op.to_string(),
                key: key.key_label(),
                key_values: key.0.iter().map(ToString::to_string).collect(),
                accesses: vec![],
                window: None,
                timers: vec![],
                cleared: vec![],
                ttl: None,
                changed_last: false,
                global_key: key.0.is_empty(),
            });
            lane_keys.push(id);
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
                let status = if deleted { TimerStatus::Deleted { at_ms: e.time_ms } } else { TimerStatus::Fired };
                match lane
                    .timers
                    .iter_mut()
                    .rev()
                    .find(|t| t.timestamp_ms == *timer_ms && t.status == TimerStatus::Live)
                {
                    Some(t) => {
                        t.status = status;
                        t.changed_last |= latest;
                    }
                    // Registered before the kept trace began (a long run keeps the last 400
                    // actions'): drawn all the same, where it fired or was deleted (trial 24: a
                    // "cleaned up" label with no ✸ beside it).
                    None => lane.timers.push(TimerMark {
                        timestamp_ms: *timer_ms,
                        registered_at_ms: None,
                        status,
                        changed_last: latest,
                    }),
                }
            }
            TraceEvent::StateCleared { cause: ClearCause::CleanupTimer, .. } => {
                lane.cleared.push(ClearMark::CleanedUp { at_ms: e.time_ms })
            }
            TraceEvent::StateCleared { cause: ClearCause::CountZero, .. } => {
                lane.cleared.push(ClearMark::CountZero { at_ms: e.time_ms })
            }
            TraceEvent::StateCleared { cause: ClearCause::RowDeleted, .. } => {
                lane.cleared.push(ClearMark::RowDeleted { at_ms: e.time_ms })
            }
            TraceEvent::StateExpired { last_access_ms, expired_at_ms, .. }
            | TraceEvent::StateCleanedUp { last_access_ms, expired_at_ms, .. } => {
                lane.cleared.push(ClearMark::Expired {
                    last_access_ms: *last_access_ms,
                    at_ms: *expired_at_ms,
                    removed_at_ms: e.time_ms,
                    by_cleanup: matches!(e.event, TraceEvent::StateCleanedUp { .. }),
                })
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
    for (i, &(op, key)) in lane_keys.iter().enumerate() {
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
    let inputs = input_marks(sim);
    // The domain spans the whole run from the start: every input plus the longest retention, and
    // the scenario's end (a trailing advance extends it at most twofold, so the activity is not
    // squashed to one side); then whatever is drawn, and the current time.
    let scenario = sim.scenario();
    let from_ms = scenario.start_ms.min(sim.now());
    let last_input = match &scenario.workload {
        Some(w) => w.end_ms(),
        None => inputs.iter().map(|m| m.at_ms).max().unwrap_or(scenario.start_ms),
    };
    let horizon = retention_horizon(scenario);
    let base = last_input.saturating_add(horizon).max(from_ms + 1);
    let mut to_ms = base.max(scenario.end_ms().min(base.saturating_add(base - from_ms)));
    to_ms = to_ms.max(sim.now());
    for lane in &lanes {
        to_ms = to_ms.max(lane.window.map_or(0, |w| w.1));
        to_ms = lane.timers.iter().map(|t| t.timestamp_ms).fold(to_ms, Millis::max);
        to_ms = to_ms.max(lane.ttl.map_or(0, |t| t.expires_at_ms));
    }
    let follow_ms = scenario.workload.as_ref().map(|_| {
        let wide = if horizon > 0 { horizon.saturating_add(horizon / 4) } else { (to_ms - from_ms) / 20 };
        wide.clamp(1, to_ms - from_ms)
    });
    // Group lanes by operator (pipeline order), keys in order of first appearance within each.
    lanes.sort_by_key(|lane| op_index(&lane.op));
    Timeline { lanes, hidden_lanes, filtered_out, from_ms, to_ms, now_ms: sim.now(), inputs, follow_ms }
}

/// The scenario's explicit input steps, with the times they run at (a step without `at` runs at
/// the time the steps before it reach) and whether they ran or can still run.
pub fn input_marks(sim: &Simulation) -> Vec<InputMark> {
    let scenario = sim.scenario();
    let mut t = scenario.start_ms;
    let mut out = Vec::new();
    for (i, step) in scenario.steps.iter().enumerate() {
        let i = i as u64;
        t = match step {
            Step::Input { at, .. } => at.unwrap_or(t),
            Step::AdvanceTo(to) => *to,
            Step::AdvanceBy(by) => t.saturating_add(*by),
        };
        if let Step::Input { at, source, .. } = step {
            let done = i < sim.next_step();
            out.push(InputMark {
                step: i,
                at_ms: t,
                has_at: at.is_some(),
                done,
                runnable: done || t >= sim.now(),
                source: *source,
            });
        }
    }
    out
}

impl InputMark {
    /// The row in Flink's print format, as the source sends it: `+I[u1]`, `(true,u1)` (formatted
    /// for the marks drawn only: a scenario may have tens of thousands).
    pub fn row_text(&self, scenario: &super::scenario::Scenario) -> String {
        let Some(Step::Input { kind, row, .. }) = scenario.steps.get(self.step as usize) else {
            return String::new();
        };
        let change = if scenario.flink.has_row_kind() {
            super::row::Change::Kind(*kind)
        } else {
            super::row::Change::Legacy(kind.is_accumulate())
        };
        super::row::Message { change, row: row.clone() }.to_string()
    }
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
        assert_eq!(tl.to_ms, t("2019-11-24T00:00"), "the domain reaches the last timer and the scenario's end");
        assert!(tl.inputs.iter().all(|m| m.done));
        sim.step().unwrap();
        let lane = &timeline(&sim).lanes[0];
        assert_eq!(lane.timers[1].status, TimerStatus::Fired);
        assert_eq!(lane.cleared, vec![ClearMark::CleanedUp { at_ms: t("2019-11-23T16:00") }]);
    }

    #[test]
    fn the_domain_stays_put_while_stepping_and_grows_only_past_it() {
        let mut sim = Simulation::new(load_preset("cleanup-harness-min5-max10").unwrap());
        let first = timeline(&sim);
        while sim.can_step() {
            sim.step().unwrap();
            let tl = timeline(&sim);
            assert_eq!((tl.from_ms, tl.to_ms), (first.from_ms, first.to_ms), "at step {}", sim.next_step());
        }
        sim.advance_by(1_000).unwrap();
        assert_eq!(timeline(&sim).to_ms, sim.now(), "an advance past the domain extends it");
    }

    #[test]
    fn inputs_passed_by_an_advance_can_never_run() {
        let mut sim = Simulation::new(load_preset("seed-001-one-day-two-days").unwrap());
        sim.step().unwrap();
        let marks = timeline(&sim).inputs;
        assert_eq!(marks.len(), 3);
        assert!(marks[0].done && marks[0].runnable && marks[0].has_at);
        assert_eq!(marks[0].row_text(sim.scenario()), "(true,u1)");
        assert!(!marks[1].done && marks[1].runnable);
        sim.advance_by(crate::engine::time::DAY_MS).unwrap();
        let marks = timeline(&sim).inputs;
        assert!(!marks[1].runnable, "its time is before now");
        assert!(!marks[2].done && marks[2].runnable, "11-21 16:00 is still ahead of 11-21 15:00");
    }

    #[test]
    fn a_filter_keeps_the_matching_lanes_and_the_global_key_is_marked() {
        let mut sim = Simulation::new(load_preset("cleanup-harness-min5-max10").unwrap());
        for _ in 0..5 {
            sim.step().unwrap();
        }
        let all = timeline(&sim);
        assert_eq!(all.lanes.iter().map(|l| l.key.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
        let b = timeline_filtered(&sim, " B ");
        assert_eq!(b.lanes.iter().map(|l| l.key.as_str()).collect::<Vec<_>>(), ["b"]);
        assert_eq!(b.filtered_out, 2);
        assert!(!b.lanes[0].global_key);
        let global = Simulation::from_json(
            r#"{"name": "g", "flink": "2.3", "state_ttl": "10 ms",
            "source": {"name": "s", "schema": [["v", "INT"]]},
            "pipeline": [{"operator": "GroupAggregate", "id": "global", "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}]}],
            "steps": [{"at": 0, "row": [1]}]}"#,
        );
        let mut global = global.unwrap();
        global.step().unwrap();
        let lane = &timeline(&global).lanes[0];
        assert!(lane.global_key && lane.key == "(global)" && lane.op == "global");
        assert_eq!(timeline(&global).to_ms, 15, "the domain reaches 1.5 × the state TTL past the last input");
    }

    #[test]
    fn a_generated_run_is_followed_over_a_width_of_its_retention() {
        let sim = Simulation::new(load_preset("what-if-100k-logins").unwrap());
        let tl = timeline(&sim);
        assert_eq!(tl.follow_ms, Some(15 * crate::engine::time::HOUR_MS), "12 h max + a quarter");
        assert!(tl.to_ms - tl.from_ms > 28 * crate::engine::time::HOUR_MS, "the domain is the whole run");
    }
}
