//! A running scenario: processing time, the pipeline, the trace, and the driving actions.
//!
//! Time only moves forward. Before a row is processed at time `t`, time is advanced to `t`,
//! firing every timer with timestamp `<= t` first (as Flink's harness `setProcessingTime(t)`
//! does; in production a due timer and a record race through the task's mailbox). Timers fire
//! at their own timestamp: that is the processing time their `onTimer` sees.

use super::error::{ScenarioError, StepError};
use super::pipeline::Pipeline;
use super::result_table::ResultTable;
use super::row::{Change, Message};
use super::scenario::{FlinkMode, Scenario, Step};
use super::time::{check_duration, format_duration, Millis, TimeFormat, MAX_RUNTIME_MS};

/// Refuses to advance beyond [`MAX_RUNTIME_MS`].
fn check_runtime(to: Millis) -> Result<(), StepError> {
    if to > MAX_RUNTIME_MS {
        return Err(StepError(format!(
            "processing time {to} ms is beyond {MAX_RUNTIME_MS} ms, the latest this simulator runs to"
        )));
    }
    Ok(())
}
use super::trace::TraceEntry;
use super::view::OperatorView;

/// One driving action that was carried out, and the slice of the trace it produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionRecord {
    /// What was done, e.g. `step 3/5: input +I[u1] at 2019-11-21 16:00`.
    pub label: String,
    /// Index of its first trace entry.
    pub trace_start: usize,
    /// Processing time (ms) before and after.
    pub from_ms: Millis,
    pub to_ms: Millis,
}

/// A scenario being stepped through.
#[derive(Debug, Clone)]
pub struct Simulation {
    scenario: Scenario,
    pipeline: Pipeline,
    now: Millis,
    next_step: usize,
    trace: Vec<TraceEntry>,
    actions: Vec<ActionRecord>,
    failure: Option<String>,
}

impl Simulation {
    /// A simulation at the scenario's start time, before its first step.
    pub fn new(scenario: Scenario) -> Self {
        Simulation {
            pipeline: Pipeline::new(&scenario),
            now: scenario.start_ms,
            scenario,
            next_step: 0,
            trace: Vec::new(),
            actions: Vec::new(),
            failure: None,
        }
    }

    /// Parses, validates and starts a scenario written as JSON.
    ///
    /// # Errors
    /// As [`Scenario::from_json`].
    pub fn from_json(text: &str) -> Result<Self, ScenarioError> {
        Scenario::from_json(text).map(Simulation::new)
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }
    /// Current processing time, ms.
    pub fn now(&self) -> Millis {
        self.now
    }
    pub fn time_format(&self) -> TimeFormat {
        self.scenario.time_format
    }
    /// Index of the next scenario step (equal to the step count when all ran).
    pub fn next_step(&self) -> usize {
        self.next_step
    }
    pub fn step_count(&self) -> usize {
        self.scenario.steps.len()
    }
    /// Whether every scenario step has run.
    pub fn is_finished(&self) -> bool {
        self.next_step >= self.scenario.steps.len()
    }
    /// Whether Step can run: steps remain, the next one is not in the past, nothing failed.
    pub fn can_step(&self) -> bool {
        !self.is_finished() && self.step_blocked().is_none() && self.failure.is_none()
    }

    /// Why the simulation stopped, if an operator failed.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }
    /// Everything that happened so far.
    pub fn trace(&self) -> &[TraceEntry] {
        &self.trace
    }
    /// The actions carried out so far.
    pub fn actions(&self) -> &[ActionRecord] {
        &self.actions
    }
    /// The trace entries of the last action.
    pub fn last_action_entries(&self) -> &[TraceEntry] {
        self.actions.last().map_or(&[], |a| &self.trace[a.trace_start..])
    }
    /// Each operator's state at the current time.
    pub fn operator_views(&self) -> Vec<OperatorView> {
        self.pipeline.operators.iter().map(|op| op.view(self.now)).collect()
    }
    pub fn result(&self) -> &ResultTable {
        &self.pipeline.result
    }
    /// The earliest registered timer, ms.
    pub fn next_timer_ms(&self) -> Option<Millis> {
        self.pipeline.next_timer().map(|(ts, _, _)| ts)
    }

    fn check_running(&self) -> Result<(), StepError> {
        match &self.failure {
            Some(f) => Err(StepError(format!("the simulation stopped: {f}"))),
            None => Ok(()),
        }
    }

    /// Runs `f` as one recorded action; an operator failure stops the simulation.
    fn act(
        &mut self,
        label: String,
        f: impl FnOnce(&mut Self, usize) -> Result<(), StepError>,
    ) -> Result<(), StepError> {
        self.check_running()?;
        let index = self.actions.len();
        let (trace_start, from_ms) = (self.trace.len(), self.now);
        let result = f(self, index);
        if let Err(e) = &result {
            self.failure = Some(e.0.clone());
        }
        self.actions.push(ActionRecord { label, trace_start, from_ms, to_ms: self.now });
        result
    }

    fn advance(&mut self, to: Millis, action: usize) -> Result<(), StepError> {
        self.pipeline.fire_timers_until(to, action, &mut self.trace)?;
        self.now = to;
        Ok(())
    }

    /// Runs the next scenario step.
    ///
    /// # Errors
    /// When all steps ran, when the step's time is before the current processing time (time was
    /// advanced past it by hand), or when an operator fails.
    pub fn step(&mut self) -> Result<(), StepError> {
        self.check_running()?;
        let i = self.next_step;
        let Some(step) = self.scenario.steps.get(i).cloned() else {
            return Err(StepError(format!("all {} steps have run; Reset to start again", self.step_count())));
        };
        let tf = self.time_format();
        let n = self.step_count();
        if let Some(reason) = self.step_blocked() {
            return Err(StepError(reason));
        }
        let target = self.step_target(&step);
        check_runtime(target)?;
        self.next_step += 1;
        let label = match &step {
            Step::Input { kind, row, .. } => {
                let m = self.source_message(*kind, row.clone());
                format!("step {}/{n}: input {m} at {}", i + 1, tf.format(target))
            }
            Step::AdvanceTo(_) | Step::AdvanceBy(_) => {
                format!("step {}/{n}: advance time to {}", i + 1, tf.format(target))
            }
        };
        self.act(label, |sim, action| {
            sim.advance(target, action)?;
            if let Step::Input { kind, row, .. } = step {
                let message = sim.source_message(kind, row);
                sim.pipeline.process_input(message, sim.now, action, &mut sim.trace)?;
            }
            Ok(())
        })
    }

    /// The processing time (ms) a step runs at, from the current time.
    fn step_target(&self, step: &Step) -> Millis {
        match step {
            Step::Input { at, .. } => at.unwrap_or(self.now),
            Step::AdvanceTo(t) => *t,
            Step::AdvanceBy(d) => self.now.saturating_add(*d),
        }
    }

    /// Why the next scenario step cannot run, if it cannot: its time is before the current
    /// processing time (time was advanced past it by hand).
    pub fn step_blocked(&self) -> Option<String> {
        let i = self.next_step;
        let target = self.step_target(self.scenario.steps.get(i)?);
        (target < self.now).then(|| {
            let tf = self.time_format();
            format!(
                "steps[{i}] is at {} but processing time is already {} (it was advanced past it); Reset to replay",
                tf.format(target),
                tf.format(self.now)
            )
        })
    }

    /// State that expired by TTL during the last action and is still stored (nothing happens in
    /// Flink at that moment; the value becomes invisible): (operator id, key, expiry time ms),
    /// in expiry order.
    pub fn expired_in_last_action(&self) -> Vec<(String, String, Millis)> {
        let Some(last) = self.actions.last() else { return vec![] };
        let mut expired: Vec<(String, String, Millis)> = self
            .operator_views()
            .into_iter()
            .flat_map(|op| {
                op.keys.into_iter().filter_map(move |k| {
                    let ttl = k.ttl?;
                    (ttl.expired && ttl.expires_at_ms > last.from_ms && ttl.expires_at_ms <= last.to_ms)
                        .then(|| (op.id.clone(), k.key, ttl.expires_at_ms))
                })
            })
            .collect();
        expired.sort_by_key(|(_, _, at)| *at);
        expired
    }

    /// The source row as the scenario's Flink sees it: a `RowKind` row, or for the legacy
    /// planner a `CRow` (`INSERT`/`UPDATE_AFTER` → `true`, `UPDATE_BEFORE`/`DELETE` → `false`).
    fn source_message(&self, kind: super::row::RowKind, row: super::row::Row) -> Message {
        let change = match self.scenario.flink {
            FlinkMode::Legacy1_10 => Change::Legacy(kind.is_accumulate()),
            FlinkMode::Flink2_3 => Change::Kind(kind),
        };
        Message::new(change, row)
    }

    /// Advances processing time to `to` (ms), firing due timers.
    ///
    /// # Errors
    /// When `to` is before the current time or after [`MAX_TIME_MS`](super::time::MAX_TIME_MS),
    /// or an operator fails.
    pub fn advance_to(&mut self, to: Millis) -> Result<(), StepError> {
        self.check_running()?;
        check_runtime(to)?;
        let tf = self.time_format();
        if to < self.now {
            return Err(StepError(format!(
                "processing time never goes backwards: {} is before now ({})",
                tf.format(to),
                tf.format(self.now)
            )));
        }
        self.act(format!("advance time to {}", tf.format(to)), |sim, action| sim.advance(to, action))
    }

    /// Advances processing time by `by` ms.
    ///
    /// # Errors
    /// When `by` is negative or would pass [`MAX_TIME_MS`](super::time::MAX_TIME_MS), or an
    /// operator fails.
    pub fn advance_by(&mut self, by: Millis) -> Result<(), StepError> {
        if by < 0 {
            return Err(StepError(format!("cannot advance by a negative duration ({by} ms)")));
        }
        let by = check_duration(by).map_err(StepError)?;
        let to = self.now + by;
        check_runtime(to)?;
        self.check_running()?;
        let tf = self.time_format();
        self.act(format!("advance time by {} to {}", format_duration(by), tf.format(to)), |sim, action| {
            sim.advance(to, action)
        })
    }

    /// Advances processing time to the earliest registered timer and fires it (and any other
    /// timer due at that time).
    ///
    /// # Errors
    /// When no timer is registered, or an operator fails.
    pub fn advance_to_next_timer(&mut self) -> Result<(), StepError> {
        let next = self.next_timer_ms().ok_or_else(|| StepError("no timer is registered".into()))?;
        self.advance_to(next.max(self.now))
    }

    /// Runs every remaining scenario step.
    ///
    /// # Errors
    /// The first step error.
    pub fn run_to_end(&mut self) -> Result<(), StepError> {
        while !self.is_finished() {
            self.step()?;
        }
        Ok(())
    }
}
