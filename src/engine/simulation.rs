//! A running scenario: processing time, the pipeline, the trace, and the driving actions.
//!
//! Time only moves forward. Before a row is processed at time `t`, time is advanced to `t`,
//! firing every timer with timestamp `<= t` first (as Flink's harness `setProcessingTime(t)`
//! does; in production a due timer and a record race through the task's mailbox). Timers fire
//! at their own timestamp: that is the processing time their `onTimer` sees.
//!
//! Time travel is replay: the simulation records the actions carried out (its inputs, never its
//! state) and keeps a few checkpoints of its engine state; [`Simulation::seek`] restores the
//! nearest checkpoint and replays the actions after it, which gives exactly the state and trace
//! of a straight run (see [`time_travel`](super::time_travel) for the checkpoint policy).

use super::error::StepError;
use super::metrics::MetricsSeries;
use super::pipeline::{Pipeline, TimerOwner, TraceSink};
use super::row::{Change, Message, Row, RowKind};
use super::scenario::{Scenario, Step};
use super::time::{check_duration, Millis, TimeFormat, MAX_RUNTIME_MS};
use super::time_travel::Checkpoints;
use super::trace::{TraceEntry, TraceLevel};
use super::workload::WorkloadCursor;
use super::ScenarioError;
use std::rc::Rc;

mod describe;
mod history;
mod quiet_steps;
mod seek;
mod views;

pub use quiet_steps::{PastQuiet, QuietStop};

/// Refuses to advance beyond [`MAX_RUNTIME_MS`].
fn check_runtime(to: Millis) -> Result<(), StepError> {
    if to > MAX_RUNTIME_MS {
        return Err(StepError(format!(
            "processing time {to} ms is beyond {MAX_RUNTIME_MS} ms, the latest this simulator runs to"
        )));
    }
    Ok(())
}

/// One driving action: what a user (or a replay) does to the simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Run the next scenario step.
    Step,
    /// Advance processing time to this time (ms).
    AdvanceTo(Millis),
    /// Advance processing time by this duration (ms).
    AdvanceBy(Millis),
    /// Advance processing time to the earliest registered timer.
    NextTimer,
}

/// The last action carried out.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionRecord {
    pub action: Action,
    /// Its index among all actions carried out (0 for the first).
    pub index: usize,
    /// For a step: the step's index and the input message it fed, if it was an input.
    pub step: Option<(u64, Option<Message>)>,
    /// Processing time (ms) before and after.
    pub from_ms: Millis,
    pub to_ms: Millis,
}

/// How much a simulation records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimOptions {
    pub trace: TraceLevel,
    /// At the `full` level, keep the trace of only the last `n` actions (the page keeps a
    /// window); `None` keeps all of it.
    pub keep_actions: Option<usize>,
    /// Record the actions and checkpoints [`Simulation::seek`] needs. Off for one-way runs.
    pub time_travel: bool,
}

impl Default for SimOptions {
    /// Everything: the full trace, kept whole, and time travel.
    fn default() -> Self {
        SimOptions { trace: TraceLevel::Full, keep_actions: None, time_travel: true }
    }
}

/// The engine state: everything a checkpoint holds.
#[derive(Debug, Clone)]
pub(super) struct Engine {
    pipeline: Pipeline,
    now: Millis,
    /// Index of the next scenario step.
    next_step: u64,
    /// Input records processed.
    inputs: u64,
    /// Where the workload generator stands (`None` when the scenario has no workload).
    cursor: Option<WorkloadCursor>,
    metrics: MetricsSeries,
    failure: Option<String>,
    /// Actions carried out.
    pub(super) actions: usize,
    last: Option<ActionRecord>,
}

impl Engine {
    fn new(scenario: &Scenario) -> Self {
        Engine {
            pipeline: Pipeline::new(scenario),
            now: scenario.start_ms,
            next_step: 0,
            inputs: 0,
            cursor: scenario.workload.as_ref().map(WorkloadCursor::new),
            metrics: MetricsSeries::new(scenario.start_ms, scenario.end_ms() - scenario.start_ms),
            failure: None,
            actions: 0,
            last: None,
        }
    }

    /// Advances to `to`, firing due timers in order and sampling the metrics on the way.
    fn advance(&mut self, to: Millis, action: usize, mut trace: TraceSink) -> Result<(), StepError> {
        loop {
            let next = self.pipeline.next_timer().filter(|(ts, _)| *ts <= to);
            // Mini-batch intervals ending while every bundle is empty, up to the next due timer.
            self.pipeline.skip_idle_mini_batches(next.map_or(to, |(ts, _)| ts));
            let Some((ts, owner)) = next else { break };
            self.sample_before(ts);
            self.pipeline.settle_expiry(ts);
            match owner {
                TimerOwner::Operator(i) => self.pipeline.fire_next(i, to, action, trace.as_deref_mut())?,
                TimerOwner::MiniBatchAssigner => self.pipeline.fire_mini_batch(to, action, trace.as_deref_mut())?,
                TimerOwner::WatermarkAssigner(s) => {
                    self.pipeline.fire_watermark_assigner(s, to, action, trace.as_deref_mut())?
                }
                TimerOwner::OperatorCallback(i) => {
                    self.pipeline.fire_operator_timer(i, to, action, trace.as_deref_mut())?
                }
            };
        }
        self.sample_before(to);
        self.pipeline.settle_expiry(to);
        self.now = to;
        Ok(())
    }

    /// Samples the metrics at the grid times before `t`, each after the expiries due by then.
    fn sample_before(&mut self, t: Millis) {
        if self.metrics.due_before(t) {
            let (pipeline, inputs) = (&mut self.pipeline, self.inputs);
            self.metrics.sample_before(t, |at| {
                pipeline.settle_expiry(at);
                pipeline.sample(at, inputs)
            });
        }
    }
}

/// A scenario being stepped through.
#[derive(Debug, Clone)]
pub struct Simulation {
    scenario: Rc<Scenario>,
    engine: Engine,
    options: SimOptions,
    /// The retained trace (all of it, or the last `keep_actions` actions' entries).
    trace: Vec<TraceEntry>,
    /// The actions carried out, in order, when time travel is on (they may run ahead of the
    /// engine after a seek back: stepping forward then redoes them).
    history: history::History,
    checkpoints: Checkpoints<Engine>,
    /// The first action whose trace entries [`Simulation::trace`] holds in full.
    trace_from: usize,
    /// How many actions the last [`Simulation::seek`] replayed.
    replayed: usize,
    /// Which recorded actions were quiet ([`super::quiet`]), when time travel is on and the
    /// trace is full.
    quiet: super::quiet::QuietLog,
    /// The state the last seek replaced, until [`Simulation::release_retired`] (or the next
    /// seek): freeing what only it held (the chunks written since its checkpoint) took 2–4 ms of
    /// a step back at a million actions, which a page can spend after it has shown the new position.
    retired: super::drop_later::DropLater<Engine>,
}

impl Simulation {
    /// A simulation at the scenario's start time, before its first step, recording everything.
    pub fn new(scenario: Scenario) -> Self {
        Simulation::with_options(scenario, SimOptions::default())
    }

    /// A simulation recording what `options` say.
    pub fn with_options(scenario: Scenario, options: SimOptions) -> Self {
        let engine = Engine::new(&scenario);
        let checkpoints = Checkpoints::new(engine.clone(), options.time_travel);
        Simulation {
            scenario: Rc::new(scenario),
            engine,
            options,
            trace: Vec::new(),
            history: history::History::default(),
            checkpoints,
            trace_from: 0,
            replayed: 0,
            quiet: super::quiet::QuietLog::default(),
            retired: super::drop_later::DropLater::default(),
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
    pub fn options(&self) -> SimOptions {
        self.options
    }
    /// Current processing time, ms.
    pub fn now(&self) -> Millis {
        self.engine.now
    }
    pub fn time_format(&self) -> TimeFormat {
        self.scenario.time_format
    }
    /// Index of the next scenario step (equal to the step count when all ran).
    pub fn next_step(&self) -> u64 {
        self.engine.next_step
    }
    /// Steps of the scenario: the explicit ones and the workload's events.
    pub fn step_count(&self) -> u64 {
        self.scenario.step_count()
    }
    /// Input records processed so far.
    pub fn inputs(&self) -> u64 {
        self.engine.inputs
    }
    /// Whether every scenario step has run.
    pub fn is_finished(&self) -> bool {
        self.engine.next_step >= self.step_count()
    }
    /// Whether Step can run: steps remain, the next one is not in the past, nothing failed.
    pub fn can_step(&self) -> bool {
        !self.is_finished() && self.step_blocked().is_none() && self.engine.failure.is_none()
    }
    /// Why the simulation stopped, if an operator failed.
    pub fn failure(&self) -> Option<&str> {
        self.engine.failure.as_deref()
    }
    /// The retained trace: everything so far, or the entries of the last `keep_actions` actions
    /// when a window is kept (the same after a seek as after a straight run).
    pub fn trace(&self) -> &[TraceEntry] {
        let oldest = match self.options.keep_actions {
            Some(keep) => self.engine.actions.saturating_sub(keep).max(self.trace_from),
            None => self.trace_from,
        };
        let start = self.trace.partition_point(|e| e.action < oldest);
        &self.trace[start..]
    }
    /// How many actions were carried out.
    pub fn action_count(&self) -> usize {
        self.engine.actions
    }
    /// The actions recorded for time travel (possibly ahead of [`Simulation::action_count`]
    /// after a seek back).
    pub fn history(&self) -> &[Action] {
        &self.history
    }
    /// How many of the recorded actions are Steps (each ran one scenario step).
    pub fn steps_recorded(&self) -> u64 {
        self.history.steps()
    }
    /// The runs of equal actions among the first `n` recorded ones: `[Step, Step, NextTimer]` →
    /// `[(Step, 2), (NextTimer, 1)]` (what a link encodes).
    pub fn history_runs(&self, n: usize) -> Vec<(Action, u64)> {
        self.history.runs_to(n)
    }
    /// The last action carried out.
    pub fn last_action(&self) -> Option<&ActionRecord> {
        self.engine.last.as_ref()
    }
    /// The trace entries of the last action.
    pub fn last_action_entries(&self) -> &[TraceEntry] {
        let Some(last) = &self.engine.last else { return &[] };
        let start = self.trace.partition_point(|e| e.action < last.index);
        &self.trace[start..]
    }
    fn check_running(&self) -> Result<(), StepError> {
        match &self.engine.failure {
            Some(f) => Err(StepError(format!("the simulation stopped: {f}"))),
            None => Ok(()),
        }
    }

    /// The processing time the next scenario step runs at, if any is left.
    pub fn next_step_ms(&self) -> Option<Millis> {
        self.step_target(self.engine.next_step)
    }

    /// The processing time step `i` runs at, from the current time.
    fn step_target(&self, i: u64) -> Option<Millis> {
        let explicit = self.scenario.steps.len() as u64;
        if i < explicit {
            return Some(match &self.scenario.steps[i as usize] {
                Step::Input { at, .. } => at.unwrap_or(self.engine.now),
                Step::AdvanceTo(t) => *t,
                Step::AdvanceBy(d) => self.engine.now.saturating_add(*d),
            });
        }
        let w = self.scenario.workload.as_ref()?;
        self.engine.cursor.as_ref()?.peek_time(w)
    }

    /// Why the next scenario step cannot run, if it cannot: its time is before the current
    /// processing time (time was advanced past it by hand).
    pub fn step_blocked(&self) -> Option<String> {
        let i = self.engine.next_step;
        let target = self.step_target(i)?;
        (target < self.engine.now).then(|| {
            let tf = self.time_format();
            format!(
                "{} is at {} but processing time is already {} (it was advanced past it); step back or reset to run it",
                self.step_name(i),
                tf.format(target),
                tf.format(self.engine.now)
            )
        })
    }

    /// `steps[3]`, or `workload event 17` for a generated one.
    pub fn step_name(&self, i: u64) -> String {
        let explicit = self.scenario.steps.len() as u64;
        if i < explicit {
            format!("steps[{i}]")
        } else {
            format!("workload event {}", i - explicit)
        }
    }

    /// Checks that `action` can run now, returning the time it advances to.
    fn check(&self, action: Action) -> Result<Millis, StepError> {
        self.check_running()?;
        let tf = self.time_format();
        let now = self.engine.now;
        let to = match action {
            Action::Step => {
                let i = self.engine.next_step;
                let Some(target) = self.step_target(i) else {
                    return Err(StepError(format!("all {} steps have run; Reset to start again", self.step_count())));
                };
                if let Some(reason) = self.step_blocked() {
                    return Err(StepError(reason));
                }
                target
            }
            Action::AdvanceTo(to) => {
                check_runtime(to)?;
                if to < now {
                    return Err(StepError(format!(
                        "processing time never goes backwards: {} is before now ({})",
                        tf.format(to),
                        tf.format(now)
                    )));
                }
                to
            }
            Action::AdvanceBy(by) => {
                if by < 0 {
                    return Err(StepError(format!("cannot advance by a negative duration ({by} ms)")));
                }
                let by = check_duration(by).map_err(StepError)?;
                now + by
            }
            Action::NextTimer => {
                self.next_timer_ms().ok_or_else(|| StepError("no timer is registered".into()))?.max(now)
            }
        };
        check_runtime(to)?;
        Ok(to)
    }

    /// The source row as the scenario's Flink sees it: a `RowKind` row, or for the legacy
    /// planner a `CRow` (`INSERT`/`UPDATE_AFTER` → `true`, `UPDATE_BEFORE`/`DELETE` → `false`).
    fn source_message(&self, kind: RowKind, row: Row) -> Message {
        let change =
            if self.scenario.flink.has_row_kind() { Change::Kind(kind) } else { Change::Legacy(kind.is_accumulate()) };
        Message::new(change, row)
    }

    /// Carries out `action`: checks it, runs it on the engine, records it.
    ///
    /// # Errors
    /// When the action cannot run now (nothing changes), or an operator fails (the simulation
    /// then stops, as a Flink job would, and refuses further actions until it is reset).
    pub fn act(&mut self, action: Action) -> Result<(), StepError> {
        let to = self.check(action)?;
        let index = self.engine.actions;
        let from_ms = self.engine.now;
        let step = match action {
            Action::Step => Some(self.take_step()),
            _ => None,
        };
        let step_index = step.as_ref().map(|(i, _)| *i);
        let input_source = step.as_ref().and_then(|(_, m)| m.as_ref()).map_or(0, |(s, _)| *s);
        let step = step.map(|(i, m)| (i, m.map(|(_, m)| m)));
        // Whether the action is quiet is recorded with time travel and the full trace (the page).
        let track_quiet = self.options.time_travel && self.options.trace == TraceLevel::Full;
        let effects_before = track_quiet.then(|| self.engine.pipeline.effects(self.engine.now));
        let trace_len = self.trace.len();
        let mut sink: TraceSink = if self.options.trace == TraceLevel::Full { Some(&mut self.trace) } else { None };
        let engine = &mut self.engine;
        let mut outcome = engine.advance(to, index, sink.as_deref_mut());
        if let (Ok(()), Some((_, Some(m)))) = (&outcome, &step) {
            engine.inputs += 1;
            outcome = engine.pipeline.process_input(input_source, m.clone(), to, index, sink);
        }
        if let (Err(e), Some(i)) = (&mut outcome, step_index) {
            e.0 = format!("{}: {}", self.step_name(i), e.0);
        }
        if let Err(e) = &outcome {
            self.engine.failure = Some(e.0.clone());
        }
        self.engine.actions += 1;
        self.engine.last = Some(ActionRecord { action, index, step, from_ms, to_ms: self.engine.now });
        if self.options.time_travel {
            if self.history.get(index) != Some(&action) {
                self.history.truncate(index);
                self.history.push(action);
                self.checkpoints.forget_after(index);
                self.quiet.truncate(index);
            }
            if let (Some(before), true) = (effects_before, outcome.is_ok()) {
                let after = self.engine.pipeline.effects(self.engine.now);
                let changed = super::quiet::changed_something(&self.trace[trace_len..], before, after);
                self.quiet.set(index, !changed);
            }
            if self.checkpoints.due(index + 1) {
                let bytes = self.engine.pipeline.approx_bytes();
                self.checkpoints.maybe_take(index + 1, &self.engine, bytes);
            }
        }
        self.trim_trace();
        outcome
    }

    /// Consumes the next scenario step: its index and the input it feeds (its source and
    /// message), if it is an input.
    fn take_step(&mut self) -> (u64, Option<(usize, Message)>) {
        let i = self.engine.next_step;
        self.engine.next_step += 1;
        let explicit = self.scenario.steps.len() as u64;
        let input = if i < explicit {
            match &self.scenario.steps[i as usize] {
                Step::Input { kind, row, source, .. } => Some((*source, self.source_message(*kind, row.clone()))),
                _ => None,
            }
        } else {
            let w = self.scenario.workload.as_ref();
            let event = w.zip(self.engine.cursor.as_mut()).and_then(|(w, c)| c.next_event(w));
            event.map(|(_, source, row)| (source, self.source_message(RowKind::Insert, row)))
        };
        (i, input)
    }

    /// Drops trace entries of actions older than twice the kept window ([`Simulation::trace`]
    /// shows the window): the entries of the window's `keep` actions before it stay, so that a
    /// step back finds its position's window in them and replays without tracing
    /// (`seek_traced`). Amortized: the vector is cut when half of it is older.
    fn trim_trace(&mut self) {
        let Some(keep) = self.options.keep_actions else { return };
        let oldest = self.engine.actions.saturating_sub(keep.saturating_mul(2));
        let cut = self.trace.partition_point(|e| e.action < oldest);
        if cut > 0 && cut * 2 >= self.trace.len() {
            self.trace.drain(..cut);
            self.trace_from = self.trace_from.max(oldest);
        }
    }

    /// Forgets the recorded actions after the current position, and their checkpoints: what an
    /// action that takes another path does by itself, done on request ("fork from here").
    pub fn discard_future(&mut self) {
        self.history.truncate(self.engine.actions);
        self.checkpoints.forget_after(self.engine.actions);
    }

    /// The trace of actions `from..to` (of the recorded history), produced by replay on a copy:
    /// the page never has to keep a long run's trace.
    ///
    /// # Errors
    /// As [`Simulation::seek`].
    pub fn trace_window(&self, from: usize, to: usize) -> Result<Vec<TraceEntry>, StepError> {
        let mut copy = self.clone();
        copy.options.keep_actions = Some(to.saturating_sub(from));
        copy.options.trace = TraceLevel::Full;
        copy.seek(to)?;
        Ok(copy.trace.into_iter().filter(|e| e.action >= from && e.action < to).collect())
    }

    /// Runs the next scenario step.
    ///
    /// # Errors
    /// When all steps ran, when the step's time is before the current processing time (time was
    /// advanced past it by hand), or when an operator fails (the error names the step).
    pub fn step(&mut self) -> Result<(), StepError> {
        self.act(Action::Step)
    }

    /// Advances processing time to `to` (ms), firing due timers.
    ///
    /// # Errors
    /// When `to` is before the current time or after [`MAX_RUNTIME_MS`], or an operator fails.
    pub fn advance_to(&mut self, to: Millis) -> Result<(), StepError> {
        self.act(Action::AdvanceTo(to))
    }

    /// Advances processing time by `by` ms.
    ///
    /// # Errors
    /// When `by` is negative or would pass [`MAX_RUNTIME_MS`], or an operator fails.
    pub fn advance_by(&mut self, by: Millis) -> Result<(), StepError> {
        self.act(Action::AdvanceBy(by))
    }

    /// Advances processing time to the earliest registered timer and fires it (and any other
    /// timer due at that time).
    ///
    /// # Errors
    /// When no timer is registered, or an operator fails.
    pub fn advance_to_next_timer(&mut self) -> Result<(), StepError> {
        self.act(Action::NextTimer)
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

    /// Drains the retained trace, keeping its buffer for the next entries: what a streaming
    /// consumer (the CLI) calls after every step to keep memory flat.
    pub fn drain_trace(&mut self) -> std::vec::Drain<'_, TraceEntry> {
        self.trace_from = self.engine.actions;
        self.trace.drain(..)
    }
}
