//! `ProcTimeMiniBatchAssignerOperator`: the operator Flink puts after the source when
//! mini-batch is on (`MiniBatchAssigner(interval=[1000ms], mode=[ProcTime])` in the plan), whose
//! watermarks end each mini-batch: every bundle operator downstream finishes its bundle when a
//! watermark reaches it (`AbstractMapBundleOperator.processWatermark`).
//!
//! Models `flink-table-runtime/.../operators/wmassigners/ProcTimeMiniBatchAssignerOperator.java`
//! (Flink 2.3.0), with `intervalMs` = `table.exec.mini-batch.allow-latency`:
//!
//! ```text
//! open():                 currentWatermark = 0; registerTimer(now + intervalMs)
//! processElement(e):      batch = now - now % intervalMs
//!                         if batch > currentWatermark: currentWatermark = batch; emit Watermark(batch)
//!                         emit e                                  // the watermark goes first
//! onProcessingTime(t):    batch = now - now % intervalMs
//!                         if batch > currentWatermark: currentWatermark = batch; emit Watermark(batch)
//!                         registerTimer(batch + intervalMs)
//! ```
//!
//! So after the first timer (`open + interval`) the timers fire at the multiples of the
//! interval. The operator is not keyed and holds no state the page shows; it lives in the
//! pipeline, which asks it for its next timer and sends its watermarks through every operator.
//! It opens at the scenario's start. A timer firing while no bundle holds anything changes only
//! `currentWatermark` ([`ProcTimeMiniBatchAssigner::skip_to`] applies such firings at once).

use crate::engine::time::Millis;

/// The assigner's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcTimeMiniBatchAssigner {
    interval_ms: Millis,
    current_watermark: Millis,
    /// Its one registered processing-time timer.
    next_timer_ms: Millis,
}

impl ProcTimeMiniBatchAssigner {
    /// `open()` at processing time `now`.
    pub fn open(interval_ms: Millis, now: Millis) -> Self {
        ProcTimeMiniBatchAssigner { interval_ms, current_watermark: 0, next_timer_ms: now.saturating_add(interval_ms) }
    }

    fn batch(&self, now: Millis) -> Millis {
        now - now.rem_euclid(self.interval_ms)
    }

    /// The time its registered timer fires.
    pub fn next_timer_ms(&self) -> Millis {
        self.next_timer_ms
    }

    /// `processElement` at `now`: the watermark to emit ahead of the element, if any.
    pub fn process_element(&mut self, now: Millis) -> Option<Millis> {
        let batch = self.batch(now);
        (batch > self.current_watermark).then(|| {
            self.current_watermark = batch;
            batch
        })
    }

    /// `onProcessingTime` of its timer, fired at `now`: the watermark to emit, if any; the next
    /// timer is registered.
    pub fn on_processing_time(&mut self, now: Millis) -> Option<Millis> {
        let watermark = self.process_element(now);
        self.next_timer_ms = self.batch(now).saturating_add(self.interval_ms);
        watermark
    }

    /// Fires every timer due at or before `to` at once, discarding their watermarks: what they
    /// leave when no bundle holds anything (an empty bundle ignores a watermark).
    pub fn skip_to(&mut self, to: Millis) {
        let first = self.next_timer_ms;
        if first > to {
            return;
        }
        let second = self.batch(first).saturating_add(self.interval_ms);
        let last = if second > to { first } else { self.batch(to) };
        self.on_processing_time(last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timers_fire_at_multiples_of_the_interval_after_the_first() {
        let mut a = ProcTimeMiniBatchAssigner::open(1000, 1);
        assert_eq!(a.next_timer_ms(), 1001);
        assert_eq!(a.process_element(5), None, "batch 0 is not past the initial watermark 0");
        assert_eq!(a.on_processing_time(1001), Some(1000));
        assert_eq!(a.next_timer_ms(), 2000);
        assert_eq!(a.process_element(1500), None);
        assert_eq!(a.on_processing_time(2000), Some(2000));
        assert_eq!(a.next_timer_ms(), 3000);
    }

    #[test]
    fn an_element_in_a_new_interval_emits_the_watermark_first() {
        let mut a = ProcTimeMiniBatchAssigner::open(1000, 500);
        assert_eq!(a.process_element(1200), Some(1000), "the timer at 1500 has not fired yet");
        assert_eq!(a.on_processing_time(1500), None);
        assert_eq!(a.next_timer_ms(), 2000);
    }

    #[test]
    fn skipping_equals_firing_one_by_one() {
        for (open, to) in [(1, 1000), (1, 1001), (1, 5000), (1, 5999), (500, 1499), (500, 1500), (0, 10_000)] {
            let mut skipped = ProcTimeMiniBatchAssigner::open(1000, open);
            let mut fired = skipped;
            skipped.skip_to(to);
            while fired.next_timer_ms() <= to {
                let t = fired.next_timer_ms();
                fired.on_processing_time(t);
            }
            assert_eq!(skipped, fired, "open {open}, to {to}");
        }
    }
}
