//! `WatermarkAssignerOperator`: the operator Flink's planner puts after the scan of a table with
//! a `WATERMARK FOR ts AS ts - INTERVAL …` clause (`WatermarkAssigner(rowtime=[ts], …)` in the
//! plan) when the connector does not generate the watermark itself (no watermark push-down: a
//! Kafka source generates it in the source, which is not modelled).
//!
//! Models `flink-table-runtime/.../operators/wmassigners/WatermarkAssignerOperator.java` as
//! Flink 2.3.0 runs it (read from the 2.3.0 bytecode: `open`, `processElement`,
//! `advanceWatermark`, `onProcessingTime`; the same as the 2.0 source), with
//! `watermarkInterval` = `pipeline.auto-watermark-interval` and no idle timeout
//! (`table.exec.source.idle-timeout` = 0, the default):
//!
//! ```text
//! open():               currentWatermark = 0; lastWatermark = 0   // a field never set: Java's 0
//!                       lastWatermarkPeriodicEmitTime = now
//!                       if watermarkInterval > 0: registerTimer(now + watermarkInterval)
//! processElement(e):    if e.rowtime == null: throw "RowTime field should not be null, …"
//!                       currentWatermark = max(currentWatermark, e.rowtime - delay)
//!                       emit e                                   // the element goes first
//!                       if currentWatermark - lastWatermark > watermarkInterval: advanceWatermark()
//! advanceWatermark():   if currentWatermark > lastWatermark:
//!                           lastWatermark = currentWatermark; emit Watermark(currentWatermark)
//! onProcessingTime(t):  if watermarkInterval > 0 && lastWatermarkPeriodicEmitTime + watermarkInterval <= now:
//!                           lastWatermarkPeriodicEmitTime = now; advanceWatermark()
//!                       registerTimer(now + watermarkInterval)
//! ```
//!
//! So no watermark at or below 0 is ever emitted, and with the timers firing at their own
//! timestamps (the scenario's clock) they fire at `open + k × interval`. The assigner opens at
//! the scenario's start. A timer firing while `currentWatermark <= lastWatermark` changes
//! nothing but the next timer ([`WatermarkAssigner::skip_to`] applies such firings at once).

use crate::engine::time::Millis;

/// `RowTime field should not be null, please convert it to a non-null long value.`
/// (`WatermarkAssignerOperator.processElement`).
pub const NULL_ROWTIME: &str = "RowTime field should not be null, please convert it to a non-null long value.";

/// One source's watermark assigner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatermarkAssigner {
    delay_ms: Millis,
    interval_ms: Millis,
    current_watermark: Millis,
    last_watermark: Millis,
    last_periodic_emit_ms: Millis,
    /// Its registered processing-time timer (none when the interval is 0).
    next_timer_ms: Option<Millis>,
}

impl WatermarkAssigner {
    /// `open()` at processing time `now`.
    pub fn open(delay_ms: Millis, interval_ms: Millis, now: Millis) -> Self {
        WatermarkAssigner {
            delay_ms,
            interval_ms,
            current_watermark: 0,
            last_watermark: 0,
            last_periodic_emit_ms: now,
            next_timer_ms: (interval_ms > 0).then(|| now.saturating_add(interval_ms)),
        }
    }

    /// `processElement` of a row whose row time is `rowtime` (`None`: NULL): the watermark to
    /// emit after the element, if any.
    ///
    /// # Errors
    /// Flink's [`NULL_ROWTIME`] for a NULL row time.
    pub fn process_element(&mut self, rowtime: Option<Millis>) -> Result<Option<Millis>, &'static str> {
        let rowtime = rowtime.ok_or(NULL_ROWTIME)?;
        self.current_watermark = self.current_watermark.max(rowtime.saturating_sub(self.delay_ms));
        Ok(if self.current_watermark - self.last_watermark > self.interval_ms { self.advance() } else { None })
    }

    fn advance(&mut self) -> Option<Millis> {
        (self.current_watermark > self.last_watermark).then(|| {
            self.last_watermark = self.current_watermark;
            self.current_watermark
        })
    }

    /// Whether its next timer would emit a watermark.
    pub fn pending(&self) -> bool {
        self.current_watermark > self.last_watermark
    }

    /// The time its registered timer fires, if it has one.
    pub fn next_timer_ms(&self) -> Option<Millis> {
        self.next_timer_ms
    }

    /// `onProcessingTime` of its timer, fired at `now`: the watermark to emit, if any; the next
    /// timer is registered.
    pub fn on_processing_time(&mut self, now: Millis) -> Option<Millis> {
        let mut out = None;
        if self.interval_ms > 0 && self.last_periodic_emit_ms + self.interval_ms <= now {
            self.last_periodic_emit_ms = now;
            out = self.advance();
        }
        self.next_timer_ms = Some(now.saturating_add(self.interval_ms));
        out
    }

    /// Fires every timer due at or before `to` at once while nothing is pending: each only moves
    /// `lastWatermarkPeriodicEmitTime` and the next timer on by one interval.
    pub fn skip_to(&mut self, to: Millis) {
        let Some(first) = self.next_timer_ms else { return };
        if first > to || self.pending() {
            return;
        }
        let last = first + (to - first) / self.interval_ms * self.interval_ms;
        self.on_processing_time(last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emits_on_an_element_only_past_the_interval_else_on_the_timer() {
        let mut a = WatermarkAssigner::open(5_000, 200, 0);
        // 1000 - 5000 < 0: the watermark stays at 0, nothing to emit.
        assert_eq!(a.process_element(Some(1_000)), Ok(None));
        // 10 000 - 5000 = 5000 > 0 + 200: emitted with the element.
        assert_eq!(a.process_element(Some(10_000)), Ok(Some(5_000)));
        // 5100 - 5000 = 100, not > 200: held for the timer.
        assert_eq!(a.process_element(Some(10_100)), Ok(None));
        assert!(a.pending());
        assert_eq!(a.next_timer_ms(), Some(200));
        assert_eq!(a.on_processing_time(200), Some(5_100));
        assert_eq!(a.next_timer_ms(), Some(400));
        assert_eq!(a.process_element(None), Err(NULL_ROWTIME));
    }

    #[test]
    fn skipping_idle_timers_keeps_the_grid() {
        let mut a = WatermarkAssigner::open(0, 200, 1_000);
        a.skip_to(2_150);
        assert_eq!(a.next_timer_ms(), Some(2_200));
        assert_eq!(a.process_element(Some(2_300)), Ok(Some(2_300)));
        assert_eq!(a.process_element(Some(2_350)), Ok(None));
        a.skip_to(5_000);
        assert_eq!(a.next_timer_ms(), Some(2_200), "a pending watermark is not skipped");
        assert_eq!(a.on_processing_time(2_200), Some(2_350));
    }
}
