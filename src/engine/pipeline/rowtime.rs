//! Event-time watermarks through the pipeline: each source with a `WATERMARK FOR` clause has a
//! `WatermarkAssignerOperator` ([`crate::engine::operators::WatermarkAssigner`]) whose watermarks
//! go to the operators reading the source and on downstream, after the element that caused them.
//!
//! An operator that acts on them ([`StreamOperator::handles_rowtime_watermarks`]: the `LATERAL
//! SNAPSHOT` join) gets each one and says what it forwards; every other operator forwards them
//! as `AbstractStreamOperator` does (Flink 2.x, `CombinedWatermarkStatus`): an input's watermark
//! is the largest it has seen, the operator's the minimum over its inputs, forwarded when it
//! grows. None of those operators has event-time timers here, so that is all they do.
//!
//! These are not the mini-batch markers of `ProcTimeMiniBatchAssignerOperator` (`emit_watermark`
//! in the pipeline, [`StreamOperator::process_watermark`]): a scenario has one or the other, and
//! they never meet.
//!
//! Timers at one processing time fire in this order (Flink runs the tasks apart; this is one
//! deterministic choice): the mini-batch assigner's, the watermark assigners' (upstream of every
//! operator, by source), then per operator in plan order its own timer before its keys' timers.

use super::{call, settle_lost, Pipeline, TimerOwner, TraceSink};
use crate::engine::error::{quote, StepError};
use crate::engine::time::Millis;

/// The event-time watermarks of an operator's inputs (`AbstractStreamOperator`'s
/// `combinedWatermark`).
#[derive(Debug, Clone, Copy)]
pub(super) struct RowtimeInputs {
    partial: [Millis; 2],
    inputs: usize,
    combined: Millis,
}

impl RowtimeInputs {
    pub(super) fn new(inputs: usize) -> Self {
        RowtimeInputs { partial: [Millis::MIN; 2], inputs: inputs.clamp(1, 2), combined: Millis::MIN }
    }

    /// `processWatermark(mark, port)`: the watermark forwarded, if the combined one grew.
    fn advance(&mut self, port: usize, watermark: Millis) -> Option<Millis> {
        let slot = &mut self.partial[port.min(1)];
        *slot = (*slot).max(watermark);
        let combined = self.partial[..self.inputs].iter().copied().min().unwrap_or(Millis::MIN);
        (combined > self.combined).then(|| {
            self.combined = combined;
            combined
        })
    }
}

impl Pipeline {
    /// The earliest of `keyed` (the operators' keyed timers), the pending watermark assigners'
    /// timers and the operators' own timers, in the order the module doc gives.
    pub(super) fn with_rowtime_timers(&self, keyed: Option<(Millis, TimerOwner)>) -> Option<(Millis, TimerOwner)> {
        let rank = |owner: TimerOwner| match owner {
            TimerOwner::MiniBatchAssigner => (0, 0, 0),
            TimerOwner::WatermarkAssigner(s) => (1, s, 0),
            TimerOwner::OperatorCallback(i) => (2, i, 0),
            TimerOwner::Operator(i) => (2, i, 1),
        };
        let assigners = self.sources.iter().enumerate().filter_map(|(s, tap)| {
            let (a, _) = tap.assigner.as_ref().filter(|(a, _)| a.pending())?;
            a.next_timer_ms().map(|ts| (ts, TimerOwner::WatermarkAssigner(s)))
        });
        let callbacks = self
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.op.operator_timer().map(|ts| (ts, TimerOwner::OperatorCallback(i))));
        keyed.into_iter().chain(assigners).chain(callbacks).min_by_key(|&(ts, owner)| (ts, rank(owner)))
    }

    /// Applies at once the watermark assigners' timers due at or before `to` that would emit
    /// nothing ([`crate::engine::operators::WatermarkAssigner::skip_to`]).
    pub(super) fn skip_idle_watermark_assigners(&mut self, to: Millis) {
        for tap in &mut self.sources {
            if let Some((a, _)) = &mut tap.assigner {
                a.skip_to(to);
            }
        }
    }

    /// Source `source`'s assigner after an element of row time `rowtime` (`None`: NULL) went to
    /// its readers: the watermark it emits, if any, follows.
    pub(super) fn assign_watermark(
        &mut self,
        source: usize,
        rowtime: Option<Millis>,
        now: Millis,
        action: usize,
        trace: TraceSink,
    ) -> Result<(), StepError> {
        let Some((assigner, _)) = &mut self.sources[source].assigner else { return Ok(()) };
        let watermark = assigner.process_element(rowtime).map_err(|e| {
            StepError(format!("the watermark assigner of source {} failed: {e}", quote(&self.sources[source].name)))
        })?;
        match watermark {
            Some(w) => self.emit_rowtime_watermark(source, w, now, action, trace),
            None => Ok(()),
        }
    }

    /// Fires source `s`'s assigner timer if it is due at `time`. Returns whether it fired.
    ///
    /// # Errors
    /// When an operator fails.
    pub fn fire_watermark_assigner(
        &mut self,
        s: usize,
        time: Millis,
        action: usize,
        trace: TraceSink,
    ) -> Result<bool, StepError> {
        let Some((assigner, _)) = &mut self.sources[s].assigner else { return Ok(false) };
        let Some(ts) = assigner.next_timer_ms().filter(|&ts| ts <= time) else { return Ok(false) };
        if let Some(watermark) = assigner.on_processing_time(ts) {
            self.emit_rowtime_watermark(s, watermark, ts, action, trace)?;
        }
        self.track_peaks(ts);
        Ok(true)
    }

    /// Fires operator `i`'s own timer if it is due at `time`: what it emits flows downstream,
    /// then the watermark it forwards. Returns whether it fired.
    ///
    /// # Errors
    /// When an operator fails.
    pub fn fire_operator_timer(
        &mut self,
        i: usize,
        time: Millis,
        action: usize,
        mut trace: TraceSink,
    ) -> Result<bool, StepError> {
        let Some(ts) = self.nodes[i].op.operator_timer().filter(|&ts| ts <= time) else { return Ok(false) };
        let node = &mut self.nodes[i];
        let mut out = Vec::new();
        let forward = call(
            node,
            &mut self.lost,
            &mut out,
            ts,
            action,
            &mut trace,
            |op, ctx| op.on_operator_timer(ts, ctx),
            || format!("in its timer at {ts}"),
        )?;
        settle_lost(&mut self.lost, &mut self.result, i + 1 == self.nodes.len() && self.stale_on_loss);
        let consumer = self.nodes[i].consumer;
        if !out.is_empty() {
            self.flow(consumer, out, ts, action, trace.as_deref_mut())?;
        }
        if let Some(w) = forward {
            self.flow_rowtime(consumer, w, ts, action, trace)?;
        }
        self.track_peaks(ts);
        Ok(true)
    }

    /// Sends source `source`'s watermark to each operator reading it, and on downstream.
    fn emit_rowtime_watermark(
        &mut self,
        source: usize,
        watermark: Millis,
        now: Millis,
        action: usize,
        mut trace: TraceSink,
    ) -> Result<(), StepError> {
        for k in 0..self.sources[source].readers.len() {
            let reader = self.sources[source].readers[k];
            self.flow_rowtime(Some(reader), watermark, now, action, trace.as_deref_mut())?;
        }
        Ok(())
    }

    /// Runs a watermark into `target` (an operator and its input): an operator that acts on it
    /// emits first (what flows downstream before the watermark it forwards); the others forward
    /// it by [`RowtimeInputs`]. The result table ignores watermarks.
    fn flow_rowtime(
        &mut self,
        mut target: Option<(usize, usize)>,
        mut watermark: Millis,
        now: Millis,
        action: usize,
        mut trace: TraceSink,
    ) -> Result<(), StepError> {
        while let Some((i, port)) = target {
            let node = &mut self.nodes[i];
            let forward = if node.op.handles_rowtime_watermarks() {
                let mut out = self.buffers.pop().unwrap_or_default();
                let forward = call(
                    node,
                    &mut self.lost,
                    &mut out,
                    now,
                    action,
                    &mut trace,
                    |op, ctx| op.process_rowtime_watermark(port, watermark, ctx),
                    || format!("on watermark {watermark}"),
                )?;
                settle_lost(&mut self.lost, &mut self.result, i + 1 == self.nodes.len() && self.stale_on_loss);
                if out.is_empty() {
                    self.buffers.push(out);
                } else {
                    let consumer = self.nodes[i].consumer;
                    self.flow(consumer, out, now, action, trace.as_deref_mut())?;
                }
                forward
            } else {
                node.rowtime.advance(port, watermark)
            };
            match forward {
                Some(w) => {
                    watermark = w;
                    target = self.nodes[i].consumer;
                }
                None => break,
            }
        }
        Ok(())
    }
}
