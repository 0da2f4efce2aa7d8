//! The metrics time series: state size, timers and output of every operator, sampled at regular
//! processing-time intervals, a few hundred points per run whatever its length.
//!
//! A sample "at `t`" is the state after everything at processing time `<= t` happened. Samples are
//! taken on a grid (`start + k × interval`); when the series reaches [`MAX_POINTS`] samples, every
//! other one is dropped and the interval doubles, so a run of any length ends with between
//! [`MAX_POINTS`]/2 and [`MAX_POINTS`] points. Counters (timer operations, emitted rows) are
//! totals since the start, so dropping a sample loses no event.

use super::operators::EmitCounts;
use super::time::Millis;
use serde::Serialize;

/// The most samples a series keeps.
pub const MAX_POINTS: usize = 512;
/// Samples a run of known length aims at.
const TARGET_POINTS: Millis = 256;

/// One operator at one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct OperatorSample {
    /// Keys holding state or a timer.
    pub keys: u64,
    /// Keys with state a read would still see (with state TTL: not expired).
    pub keys_visible: u64,
    /// State entries physically stored, over all the operator's states.
    pub entries_stored: u64,
    /// Of those, entries whose TTL expired that are still stored.
    pub entries_expired: u64,
    /// Rows held inside list-valued entries, over all keys (each list is one entry above):
    /// `SinkUpsertMaterializer`'s rows of every primary key, expired lists included. 0 for an
    /// operator without such a state ([`super::operators::StreamOperator::list_rows`]).
    pub list_rows: u64,
    /// Registered timers.
    pub timers: u64,
    /// Timers registered, deleted and fired since the start.
    pub timers_registered: u64,
    pub timers_deleted: u64,
    pub timers_fired: u64,
    /// Messages emitted since the start, by kind.
    pub emitted: EmitCounts,
}

/// The whole pipeline at one processing time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sample {
    pub time_ms: Millis,
    /// Input records processed since the start.
    pub inputs: u64,
    /// Rows in the result table, and how many of them are stale.
    pub result_rows: u64,
    pub stale_rows: u64,
    /// One entry per operator, in pipeline order.
    pub operators: Vec<OperatorSample>,
}

/// The smallest round interval (1, 2 or 5 × a power of ten ms; 1 s … 30 s; 1 min … 30 min;
/// 1 h … 12 h; whole days) at least `ms`: sample times read well.
fn round_interval(ms: Millis) -> Millis {
    const ROUND: &[Millis] = &[
        1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
        600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
    ];
    ROUND.iter().copied().find(|&r| r >= ms).unwrap_or_else(|| (ms / 86_400_000 + 1).saturating_mul(86_400_000))
}

/// The series being recorded.
#[derive(Debug, Clone)]
pub struct MetricsSeries {
    origin: Millis,
    interval_ms: Millis,
    /// The next grid time to sample.
    next_at: Millis,
    samples: Vec<Sample>,
}

impl MetricsSeries {
    /// A series for a run from `start` expected to last about `span_ms` (any guess works; the
    /// interval adapts).
    pub fn new(start: Millis, span_ms: Millis) -> Self {
        let interval_ms = round_interval(span_ms / TARGET_POINTS);
        MetricsSeries { origin: start, interval_ms, next_at: start, samples: Vec::new() }
    }

    /// The grid times not sampled yet that are before `t`: what must be sampled before anything
    /// happens at `t`. `sample` takes the state at a grid time.
    pub fn sample_before(&mut self, t: Millis, mut sample: impl FnMut(Millis) -> Sample) {
        while self.next_at < t {
            if self.samples.len() >= MAX_POINTS {
                self.coarsen();
                continue;
            }
            self.samples.push(sample(self.next_at));
            self.next_at = self.next_at.saturating_add(self.interval_ms);
        }
    }

    /// Whether a grid time lies before `t` (so [`MetricsSeries::sample_before`] has work to do).
    pub fn due_before(&self, t: Millis) -> bool {
        self.next_at < t
    }

    /// Doubles the interval, keeping the samples on the coarser grid.
    fn coarsen(&mut self) {
        let doubled = self.interval_ms.saturating_mul(2);
        let origin = self.origin;
        self.samples.retain(|s| (s.time_ms - origin) % doubled == 0);
        self.interval_ms = doubled;
        let k = (self.next_at - origin + doubled - 1) / doubled;
        self.next_at = origin.saturating_add(k.saturating_mul(doubled));
    }

    /// The samples so far.
    pub fn samples(&self) -> &[Sample] {
        &self.samples
    }

    /// The sampling interval now, ms.
    pub fn interval_ms(&self) -> Millis {
        self.interval_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: Millis) -> Sample {
        Sample { time_ms: t, inputs: t as u64, result_rows: 0, stale_rows: 0, operators: vec![] }
    }

    #[test]
    fn samples_on_the_grid_before_each_time() {
        let mut m = MetricsSeries::new(0, 256 * 10);
        m.sample_before(25, at);
        assert_eq!(m.samples().iter().map(|s| s.time_ms).collect::<Vec<_>>(), [0, 10, 20]);
        m.sample_before(30, at);
        assert_eq!(m.samples().len(), 3, "30 itself is sampled only once time moves past it");
    }

    #[test]
    fn any_run_length_stays_within_the_point_budget() {
        let mut m = MetricsSeries::new(0, 1);
        m.sample_before(1_000_000, at);
        let n = m.samples().len();
        assert!((MAX_POINTS / 2..=MAX_POINTS).contains(&n), "{n} points");
        let times: Vec<Millis> = m.samples().iter().map(|s| s.time_ms).collect();
        assert!(times.windows(2).all(|w| w[1] - w[0] == m.interval_ms()), "evenly spaced");
        assert_eq!(times[0], 0);
    }
}
