//! Quiet actions: a step (or an advance of time) that changed nothing — an input a filter
//! dropped, a duplicate a deduplication ignores without touching its state, an advance with no
//! timer due. The page can hide them ("hide steps that changed nothing"): Step and Back then go
//! to the next / previous action that changed something. Whether an action changed something is
//! decided here, by [`changed_something`], and nowhere else; the simulation records the answer
//! for every action it carries out ([`crate::engine::Simulation::is_quiet`]).
//!
//! No Flink rule is decided here: this reads what the engine recorded while running the
//! operators' own rules (their trace entries, the state writes they made, the messages that
//! reached the result table).

use super::trace::{TraceEntry, TraceEvent};

/// What the pipeline counts, read before and after an action ([`crate::engine::pipeline::Pipeline::effects`]):
/// an action's effects besides its trace entries are the differences.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effects {
    /// Keyed-state writes so far: `update`, `put`, `add`, a `clear` or `remove` that found
    /// something, a TTL re-stamp ([`crate::engine::state::KeyRegistry::wrote`]). An identical value
    /// written counts: Flink writes it too, and with a TTL it moves the entry's expiry. So a group
    /// aggregation whose result did not change is not quiet: `GroupAggFunction.processElement`
    /// (Flink 2.3.0) calls `accState.update(accumulators)` before it compares the results.
    pub state_writes: u64,
    /// Changelog messages that reached the result table (the sink) so far.
    pub delivered: u64,
    /// State entries expired by their TTL but still stored, now: time passing makes entries
    /// expire (invisible to reads, drawn grey) without any trace entry.
    pub expired_entries: u64,
    /// Result rows marked stale, now (the state behind them expired or was cleared).
    pub stale_rows: u64,
}

/// Whether an action changed something: it wrote or cleared keyed state, registered, deleted or
/// fired a timer, found state expired (on read or by the background cleanup) or let it expire
/// (time passed a TTL), made a result row stale, buffered or flushed a mini-batch bundle, fired
/// a window, moved an operator's watermark, or delivered a message to the result. `entries` are
/// the action's trace entries (the full trace level: at the metrics level there are none, and
/// only the effects count); `before` and `after` the pipeline's [`Effects`] around it.
///
/// Not a change by itself: the input entering, an operator receiving a message, the cleanup
/// rule deciding to keep the cleanup time, a message emitted to a downstream operator (what that
/// operator then does counts), a message dropped, a result suppressed, a stale timer ignored, a
/// stale-state warning, a retraction that found no result row, and time passing when no state
/// expires and no timer is due.
pub fn changed_something(entries: &[TraceEntry], before: Effects, after: Effects) -> bool {
    before != after || entries.iter().any(|e| is_change(&e.event))
}

/// Whether a trace event is a change by itself (see [`changed_something`]). Every event is named,
/// so that a new kind of event is decided here when it is added.
fn is_change(event: &TraceEvent) -> bool {
    match event {
        TraceEvent::TimerRegistered { .. }
        | TraceEvent::TimerDeleted { .. }
        | TraceEvent::TimerFired { .. }
        | TraceEvent::StateCleared { .. }
        | TraceEvent::StateExpired { .. }
        | TraceEvent::StateCleanedUp { .. }
        | TraceEvent::Buffered { .. }
        | TraceEvent::PartialMerged { .. }
        | TraceEvent::BundleFinished { .. }
        | TraceEvent::WindowTriggered { .. }
        | TraceEvent::Watermark { .. }
        | TraceEvent::OperatorEvent { .. }
        | TraceEvent::Note { .. } => true,
        TraceEvent::Input { .. }
        | TraceEvent::Received { .. }
        | TraceEvent::Decision(_)
        | TraceEvent::Emitted { .. }
        | TraceEvent::Dropped { .. }
        | TraceEvent::Suppressed { .. }
        | TraceEvent::ResultMissingRow { .. }
        | TraceEvent::StaleTimerIgnored { .. }
        | TraceEvent::StateStale { .. } => false,
    }
}

/// Per action: whether it was recorded, and whether it was quiet (two bits each).
#[derive(Debug, Clone, Default)]
pub struct QuietLog {
    known: Vec<u64>,
    quiet: Vec<u64>,
    len: usize,
}

impl QuietLog {
    /// Records action `index` (again, when it is redone after a seek back: the same answer).
    pub fn set(&mut self, index: usize, quiet: bool) {
        let (word, bit) = (index / 64, 1u64 << (index % 64));
        if word >= self.known.len() {
            self.known.resize(word + 1, 0);
            self.quiet.resize(word + 1, 0);
        }
        self.known[word] |= bit;
        if quiet {
            self.quiet[word] |= bit;
        } else {
            self.quiet[word] &= !bit;
        }
        self.len = self.len.max(index + 1);
    }

    /// Forgets the actions from `len` on (they were not recorded, or another path was taken).
    /// Actions before `len` that were never recorded stay unknown.
    pub fn truncate(&mut self, len: usize) {
        let words = len.div_ceil(64);
        if self.known.len() < words {
            return; // nothing recorded from `len` on
        }
        self.known.truncate(words);
        self.quiet.truncate(words);
        if !len.is_multiple_of(64) {
            if let (Some(k), Some(q)) = (self.known.last_mut(), self.quiet.last_mut()) {
                let keep = (1u64 << (len % 64)) - 1;
                *k &= keep;
                *q &= keep;
            }
        }
        self.len = len.min(self.len);
    }

    /// Whether action `index` was quiet; `None` when it was not recorded.
    pub fn get(&self, index: usize) -> Option<bool> {
        let (word, bit) = (index / 64, 1u64 << (index % 64));
        let known = self.known.get(word).is_some_and(|k| k & bit != 0);
        known.then(|| self.quiet[word] & bit != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_keeps_two_bits_per_action_and_is_cut_on_another_path() {
        let mut log = QuietLog::default();
        for i in 0..200 {
            log.set(i, i % 3 != 0);
        }
        assert_eq!(log.get(0), Some(false));
        assert_eq!(log.get(1), Some(true));
        assert_eq!(log.get(199), Some(true));
        assert_eq!(log.get(200), None);
        // Redone: the same answer, nothing else changes.
        log.set(70, false);
        assert_eq!((log.get(70), log.get(71), log.get(199)), (Some(false), Some(true), Some(true)));
        // Another path from action 70: what came after is forgotten.
        log.truncate(70);
        log.set(70, true);
        assert_eq!((log.get(69), log.get(70), log.get(71)), (Some(false), Some(true), None));
        log.truncate(5);
        assert_eq!((log.get(3), log.get(4), log.get(5)), (Some(false), Some(true), None));
        // A gap (actions run while nothing was recorded) stays unknown.
        log.set(10, false);
        assert_eq!((log.get(4), log.get(7), log.get(10)), (Some(true), None, Some(false)));
    }
}
