//! The guided first visit: a few short steps through seed 001 (the page's default preset) that
//! teach the cleanup-timer rule with the run's own numbers. Every number comes from the trace of
//! a run of the scenario — the rule's decisions ([`CleanupDecision`], which follows Flink's
//! `CleanupState.registerProcessingCleanupTimer`), the timer that fired and the stale result row —
//! never from the page: the page only shows the steps, points at the part each names and goes to
//! the step each is about (through its ordinary time travel).

use super::cleanup_state::CleanupDecision;
use super::presets::{load_preset, DEFAULT_PRESET};
use super::scenario::Scenario;
use super::simulation::Simulation;
use super::time::format_duration;
use super::trace::{ClearCause, TraceEvent};

/// The part of the page a tour step points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TourPart {
    /// The Step button (and the other controls).
    Step,
    /// The timeline, with the cleanup timers on each key's lane and the rule beside its legend.
    Timeline,
    /// "What just happened": the last action and the rule's decisions with their numbers.
    Happened,
    /// The result table.
    Result,
    /// The bookmarks list.
    Bookmarks,
}

/// One step of the tour: the part it points at, what it says, and the position (steps of the
/// straight run) it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TourStep {
    pub part: TourPart,
    pub title: String,
    pub text: String,
    pub at_step: u64,
}

/// The tour of the default preset (seed 001).
///
/// # Errors
/// When the preset does not load or its run shows no register, keep, move and firing of a
/// cleanup timer for one key (the tour would have nothing to say).
pub fn first_visit() -> Result<Vec<TourStep>, String> {
    let scenario = load_preset(DEFAULT_PRESET).map_err(|e| e.to_string())?;
    tour(&scenario)
}

/// What one key's run showed, each with the step (1-based) it happened in.
#[derive(Default)]
struct Seen {
    register: Option<(u64, CleanupDecision)>,
    keep: Option<(u64, CleanupDecision)>,
    moved: Option<(u64, CleanupDecision)>,
    fired: Option<(u64, i64)>,
}

/// The tour of a scenario whose run registers, keeps, moves and fires one key's cleanup timer
/// (seed 001).
///
/// # Errors
/// As [`first_visit`].
pub fn tour(scenario: &Scenario) -> Result<Vec<TourStep>, String> {
    let mut sim = Simulation::new(scenario.clone());
    sim.run_to_end().map_err(|e| e.to_string())?;
    let tf = sim.time_format();
    let mut seen = Seen::default();
    let mut key = None;
    let mut cleared = false;
    for e in sim.trace() {
        let step = e.action as u64 + 1;
        match &e.event {
            TraceEvent::Decision(d) => {
                let slot = match d {
                    CleanupDecision::Register { .. } => &mut seen.register,
                    CleanupDecision::Keep { .. } => &mut seen.keep,
                    CleanupDecision::Move { .. } | CleanupDecision::Reregister { .. } => &mut seen.moved,
                    CleanupDecision::Disabled { .. } => continue,
                };
                if key.is_none() {
                    key = e.key.clone();
                }
                if slot.is_none() && e.key == key {
                    *slot = Some((step, *d));
                }
            }
            TraceEvent::TimerFired { timer_ms } if e.key == key && seen.fired.is_none() => {
                seen.fired = Some((step, *timer_ms));
            }
            TraceEvent::StateCleared { cause: ClearCause::CleanupTimer, .. } if e.key == key => cleared = true,
            _ => {}
        }
    }
    let key = key.map(|k| k.key_label()).ok_or("the run makes no cleanup-timer decision")?;
    let missing = |what: &str| format!("the run shows no {what} of {key}'s cleanup timer");
    let (s1, register) = seen.register.ok_or_else(|| missing("registration"))?;
    let (s2, keep) = seen.keep.ok_or_else(|| missing("keep"))?;
    let (s3, moved) = seen.moved.ok_or_else(|| missing("move"))?;
    let (s4, fired_at) = seen.fired.filter(|_| cleared).ok_or_else(|| missing("firing that clears the state"))?;
    let (
        CleanupDecision::Register { now: n1, max_ms, timer: t1 },
        CleanupDecision::Keep { now: n2, min_ms, current: c2 },
    ) = (register, keep)
    else {
        return Err(missing("registration"));
    };
    let (n3, c3, t3, deleted) = match moved {
        CleanupDecision::Move { now, current, timer, .. } => (now, current, timer, true),
        CleanupDecision::Reregister { now, current, timer, .. } => (now, current, timer, false),
        _ => return Err(missing("move")),
    };
    let (min, max) = (format_duration(min_ms), format_duration(max_ms));
    let f = |t| tf.format(t);
    let stale = sim.result().rows().find(|r| r.stale_since_ms.is_some()).map(|r| r.row.join(", "));
    let row = stale.map_or_else(|| "its result row".to_string(), |r| format!("the result row ({r})"));
    let old = if deleted {
        "the timer at the old C is deleted (✕)"
    } else {
        "the timer at the old C stays registered and is ignored when it fires"
    };
    Ok(vec![
        TourStep {
            part: TourPart::Step,
            title: format!("{}: one key, min = {min}, max = {max}", scenario.title),
            text: format!(
                "Step (or →) runs the next input; ← steps back. This tour moves the page to each moment it \
                 explains: {key}'s logins and the cleanup timer that idle state retention (min = {min}, \
                 max = {max}) keeps for {key}. Esc closes it; the Tour button opens it again."
            ),
            at_step: 0,
        },
        TourStep {
            part: TourPart::Timeline,
            title: format!("A login registers a timer at now + {max}"),
            text: format!(
                "{}: {key} has no cleanup time C yet, so a timer is registered at now + max = {} (▼ on {key}'s \
                 lane). That time becomes C. The rule is stated beside the timeline's legend.",
                f(n1),
                f(t1)
            ),
            at_step: s1,
        },
        TourStep {
            part: TourPart::Happened,
            title: format!("Within {min} of C: nothing moves"),
            text: format!(
                "{}: now + min = {} is not after C = {}, so C is kept: no timer is registered. \"What just \
                 happened\" lists each decision with its numbers.",
                f(n2),
                f(n2 + min_ms),
                f(c2)
            ),
            at_step: s2,
        },
        TourStep {
            part: TourPart::Happened,
            title: format!("A login within {min} of C moves it"),
            text: format!(
                "{}: now + min = {} is after C = {}, so a timer is registered at now + max = {} and becomes C; \
                 {old}.",
                f(n3),
                f(n3 + min_ms),
                f(c3),
                f(t3)
            ),
            at_step: s3,
        },
        TourStep {
            part: TourPart::Result,
            title: "The timer fires: the state is gone, the row stays".to_string(),
            text: format!(
                "{}: the timer fires and {key}'s state is cleared; nothing is emitted, so {row} is stale: \
                 nothing will ever retract it. {key}'s next login finds no state and counts as new again, \
                 from 1.",
                f(fired_at)
            ),
            at_step: s4,
        },
        TourStep {
            part: TourPart::Bookmarks,
            title: "Bookmarks: jump to what matters".to_string(),
            text: format!(
                "Every scenario's timers fired, expired state, stale rows and keys counted as new again are \
                 listed here; [ and ] jump to the previous and next. Here: step {s4}."
            ),
            at_step: s4,
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_001_s_tour_says_the_run_s_numbers() {
        let steps = first_visit().unwrap();
        assert_eq!(steps.len(), 6);
        let at: Vec<u64> = steps.iter().map(|s| s.at_step).collect();
        assert_eq!(at, vec![0, 1, 2, 3, 4, 4]);
        assert!(steps[1].text.starts_with("2019-11-20 15:00: u1 has no cleanup time C yet"), "{}", steps[1].text);
        assert!(steps[1].text.contains("now + max = 2019-11-22 15:00"), "{}", steps[1].text);
        assert!(
            steps[2].text.contains("now + min = 2019-11-21 16:00 is not after C = 2019-11-22 15:00"),
            "{}",
            steps[2].text
        );
        assert!(
            steps[3].text.contains("now + min = 2019-11-22 16:00 is after C = 2019-11-22 15:00"),
            "{}",
            steps[3].text
        );
        assert!(steps[3].text.contains("now + max = 2019-11-23 16:00"), "{}", steps[3].text);
        assert!(steps[3].text.contains("deleted"), "Flink 1.8+ deletes the old timer: {}", steps[3].text);
        assert!(steps[4].text.starts_with("2019-11-23 16:00: the timer fires"), "{}", steps[4].text);
        assert!(steps[4].text.contains("the result row (u1, 3) is stale"), "{}", steps[4].text);
        assert!(steps[0].title.contains("min = 1 d, max = 2 d"), "{}", steps[0].title);
    }

    #[test]
    fn a_scenario_without_cleanup_timers_has_no_tour() {
        let scenario = load_preset("seed-002-dau-new-users-global-ttl").unwrap();
        assert_eq!(tour(&scenario).unwrap_err(), "the run makes no cleanup-timer decision");
    }
}
