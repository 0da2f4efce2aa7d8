//! A tree of operators, each consuming its input's changelog (a join two of them), ending in a
//! result table. A source row goes to every operator that reads its source, in plan order.
//!
//! Between two group aggregations Flink shuffles by the next operator's key (a network
//! exchange, FIFO per channel), so with parallelism 1 the next operator sees the previous one's
//! messages in emission order. The simulator runs each operator over the whole batch a record
//! caused before moving to the operator it feeds, which gives the same per-operator order and a
//! readable trace. All of it happens at the same processing time.

use super::error::{quote, StepError};
use super::operators::{EmitCounts, ProcTimeMiniBatchAssigner, StreamOperator};
use super::result_table::ResultTable;
use super::row::{Change, Message, Row, RowKind, Value};
use super::scenario::{NodeInput, Scenario, StateBackend};
use super::time::Millis;
use super::trace::{TraceEntry, TraceEvent};
use std::rc::Rc;

mod call;
mod rowtime;
mod views;
use call::call;
use rowtime::RowtimeInputs;

/// The most messages one input record (or one timer) may cause between operators. A pipeline
/// whose updates multiply at every operator (each emits `-U` and `+U` for each message it
/// receives) would otherwise run for ever; Flink would process them all, this simulator refuses.
pub const MAX_MESSAGES_PER_RECORD: usize = 1_000_000;

/// One operator of the pipeline.
#[derive(Debug, Clone)]
pub struct Node {
    pub id: Rc<str>,
    /// Flink's plan text.
    pub plan: String,
    /// What the plan text leaves unsaid ([`crate::engine::operators::OperatorSpec::plan_notes`]).
    pub plan_notes: Vec<&'static str>,
    pub op: Box<dyn StreamOperator>,
    /// Whether its output carries retractions ([`OperatorSpec::output_retracts`]).
    pub retracts: bool,
    /// What it emitted so far.
    pub emitted: EmitCounts,
    /// The largest its state has been.
    pub peaks: Peaks,
    /// The operator its output feeds and on which input (0, or 1 for a join's right input);
    /// `None` for the last operator, which feeds the result.
    pub consumer: Option<(usize, usize)>,
    /// The event-time watermarks of its inputs, for an operator that leaves them to the pipeline.
    rowtime: RowtimeInputs,
}

/// The largest value a gauge reached, and when it first did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Peak {
    pub value: u64,
    pub at_ms: Millis,
}

impl Peak {
    fn see(&mut self, value: u64, at_ms: Millis) {
        if value > self.value {
            *self = Peak { value, at_ms };
        }
    }
}

/// The peaks of one operator's state, tracked after every record and every timer (exact, not
/// sampled).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Peaks {
    pub keys: Peak,
    pub entries_stored: Peak,
    pub timers: Peak,
    /// Rows held in list-valued entries ([`super::metrics::OperatorSample::list_rows`]).
    pub list_rows: Peak,
}

/// The operators and the result table of a scenario.
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// Per source: its name, whether it has a processing-time attribute to append to each row,
    /// and the operators reading it (operator, input).
    sources: Vec<SourceTap>,
    nodes: Vec<Node>,
    pub result: ResultTable,
    /// A loss of the last operator's state marks result rows stale ([`loss_makes_rows_stale`]).
    stale_on_loss: bool,
    /// Keys whose state an operator lost silently during the current call.
    lost: Vec<(Row, Millis)>,
    /// Message buffers reused from record to record (one per operator, plus the input's).
    buffers: Vec<Vec<Message>>,
    /// `ProcTimeMiniBatchAssignerOperator` after the source, when mini-batch is on.
    assigner: Option<ProcTimeMiniBatchAssigner>,
    /// Messages that reached the result table so far ([`Pipeline::effects`]).
    delivered: u64,
    /// When asked for ([`Pipeline::log_invisible`]): (operator, key, expiry) of every held key
    /// whose state became invisible by TTL since [`Pipeline::take_invisible`] last ran.
    invisible_log: Option<Vec<(usize, Row, Millis)>>,
}

/// A source as the pipeline feeds it.
#[derive(Debug, Clone)]
struct SourceTap {
    name: Rc<str>,
    proctime: bool,
    readers: Vec<(usize, usize)>,
    /// Its `WatermarkAssignerOperator` and the row-time column, when it declares a watermark.
    assigner: Option<(super::operators::WatermarkAssigner, usize)>,
}

/// Whose timer is due next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerOwner {
    /// A keyed timer of operator `i`.
    Operator(usize),
    /// The mini-batch assigner's interval timer.
    MiniBatchAssigner,
    /// The periodic timer of source `s`'s `WatermarkAssignerOperator`.
    WatermarkAssigner(usize),
    /// Operator `i`'s own timer, not a key's ([`StreamOperator::operator_timer`]).
    OperatorCallback(usize),
}

/// Whether losing the state of `last` (the pipeline's last operator) without a message makes the
/// result rows of its key stale: only when its output retracts (its node's changelog mode is not
/// insert-only), so it would still have updated or retracted them. An insert-only operator — a
/// keep-first deduplicate, an OVER window, a window aggregate — never touches a row once emitted:
/// losing its state changes what it emits next (a duplicate, a count from 1), not a row already in
/// the result. The one place that decides which losses mark rows stale.
fn loss_makes_rows_stale(last: &Node) -> bool {
    last.retracts
}

/// The keys an operator call lost without a message: when the operator is the last one and its
/// output retracts ([`loss_makes_rows_stale`]), the result rows of those keys go stale; upstream
/// losses leave no mark on the rows (the retraction flow explains them).
fn settle_lost(lost: &mut Vec<(Row, Millis)>, result: &mut ResultTable, last_operator: bool) {
    if last_operator {
        for (key, at) in lost.drain(..) {
            result.mark_stale(&key, at);
        }
    } else {
        lost.clear();
    }
}

/// Where trace events go: `None` at the `metrics` trace level.
pub type TraceSink<'a> = Option<&'a mut Vec<TraceEntry>>;

impl Pipeline {
    pub fn new(scenario: &Scenario) -> Self {
        let mut nodes: Vec<Node> = scenario
            .operators
            .iter()
            .enumerate()
            .map(|(i, n)| Node {
                id: Rc::from(n.id.as_str()),
                plan: n.spec.plan(),
                plan_notes: n.spec.plan_notes(),
                op: n.spec.build(scenario.flink, scenario.operator_retention(i)),
                retracts: n.spec.output_retracts(),
                emitted: EmitCounts::default(),
                peaks: Peaks::default(),
                consumer: None,
                rowtime: RowtimeInputs::new(n.inputs.len()),
            })
            .collect();
        let mut sources: Vec<SourceTap> = scenario
            .sources
            .iter()
            .map(|s| SourceTap {
                name: Rc::from(s.name.as_str()),
                proctime: s.proctime.is_some(),
                readers: Vec::new(),
                assigner: s.watermark.map(|w| {
                    (super::operators::WatermarkAssigner::open(w.delay_ms, w.interval_ms, scenario.start_ms), w.column)
                }),
            })
            .collect();
        for (i, n) in scenario.operators.iter().enumerate() {
            for (port, input) in n.inputs.iter().enumerate() {
                match *input {
                    NodeInput::Source(s) => sources[s].readers.push((i, port)),
                    NodeInput::Operator(j) => nodes[j].consumer = Some((i, port)),
                }
            }
        }
        let last = scenario.operators.last().map(|n| &n.spec);
        let columns: Vec<String> =
            last.map(|s| s.output_columns().iter().map(|c| c.name.clone()).collect()).unwrap_or_default();
        // The result is the sink's: a SQL query's columns under the query's names (the plan may
        // have dropped a projection that only renamed them).
        let columns = match &scenario.output_names {
            Some(names) if names.len() == columns.len() => names.clone(),
            _ => columns,
        };
        let key_columns = last.map(|s| s.state_key_columns()).unwrap_or_default();
        let upsert_extra = last.map(|s| s.upsert_key_extra()).unwrap_or_default();
        // Updates without UPDATE_BEFORE are applied by key (upsert); an insert-only output (a
        // join of insert-only inputs) is appended whatever its operator says of UPDATE_BEFORE.
        let upsert = last.is_some_and(|s| s.output_retracts() && !s.generates_update_before());
        if scenario.state_backend == StateBackend::HashMap {
            for (node, spec) in nodes.iter_mut().zip(&scenario.operators) {
                node.op.backend_mut().keys.use_heap_backend(spec.spec.key_types());
            }
        }
        if let Some(last) = nodes.last_mut() {
            last.op.backend_mut().keys.track_invisible();
        }
        Pipeline {
            sources,
            stale_on_loss: nodes.last().is_some_and(loss_makes_rows_stale),
            delivered: 0,
            nodes,
            result: ResultTable::new(columns, &key_columns, &upsert_extra, upsert),
            lost: Vec::new(),
            invisible_log: None,
            buffers: Vec::new(),
            assigner: scenario
                .mini_batch
                .map(|m| ProcTimeMiniBatchAssigner::open(m.allow_latency_ms, scenario.start_ms)),
        }
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// What [`super::quiet::changed_something`] compares before and after an action, at `now`:
    /// the state writes of every operator and the messages delivered to the result so far, the
    /// entries expired but stored and the stale result rows now.
    pub fn effects(&self, now: Millis) -> super::quiet::Effects {
        let state_writes = self.nodes.iter().map(|n| n.op.backend().keys.writes()).sum();
        let expired_entries = self.nodes.iter().flat_map(|n| n.op.state_sizes(now)).map(|(_, s)| s.expired).sum();
        super::quiet::Effects {
            state_writes,
            delivered: self.delivered,
            expired_entries,
            stale_rows: self.result.stale_len() as u64,
        }
    }

    /// Feeds one message of source `source` at processing time `now` (ms) through every
    /// operator reading it, in plan order, and on downstream.
    ///
    /// # Errors
    /// When an operator fails, or the record causes more than [`MAX_MESSAGES_PER_RECORD`] messages.
    pub fn process_input(
        &mut self,
        source: usize,
        message: Message,
        now: Millis,
        action: usize,
        mut trace: TraceSink,
    ) -> Result<(), StepError> {
        let tap = &self.sources[source];
        let (proctime, readers) = (tap.proctime, tap.readers.len());
        if let Some(t) = trace.as_deref_mut() {
            t.push(TraceEntry {
                action,
                time_ms: now,
                op: tap.name.clone(),
                key: None,
                event: TraceEvent::Input { message: message.clone() },
            });
        }
        let mut message = message;
        if proctime {
            // `PROCTIME()`: the time the row is processed at.
            message.row.0.push(Value::Ts(now));
        }
        if let Some(watermark) = self.assigner.as_mut().and_then(|a| a.process_element(now)) {
            // The assigner emits the watermark ahead of the element.
            if let Err(e) = self.emit_watermark(watermark, now, action, trace.as_deref_mut()) {
                self.track_peaks(now);
                return Err(e);
            }
        }
        let rowtime = self.sources[source].assigner.map(|(_, column)| match message.row.0.get(column) {
            Some(Value::Int(ms)) => Some(*ms),
            _ => None,
        });
        let mut outcome = Ok(());
        for k in 0..readers {
            let reader = self.sources[source].readers[k];
            let mut input = self.buffers.pop().unwrap_or_default();
            input.push(if k + 1 < readers {
                message.clone()
            } else {
                std::mem::replace(&mut message, Message::new(Change::Kind(RowKind::Insert), Row::default()))
            });
            outcome = self.flow(Some(reader), input, now, action, trace.as_deref_mut());
            if outcome.is_err() {
                break;
            }
        }
        if let (Ok(()), Some(rowtime)) = (&outcome, rowtime) {
            outcome = self.assign_watermark(source, rowtime, now, action, trace);
        }
        self.track_peaks(now);
        outcome
    }

    /// Sends a mini-batch watermark through the operators in order: each handles it
    /// (`processWatermark`: a bundle operator finishes its bundle) and what that emits flows
    /// downstream before the watermark reaches the next operator, as the watermark follows the
    /// records in each channel.
    fn emit_watermark(
        &mut self,
        watermark: Millis,
        now: Millis,
        action: usize,
        mut trace: TraceSink,
    ) -> Result<(), StepError> {
        for i in 0..self.nodes.len() {
            let node = &mut self.nodes[i];
            let mut out = self.buffers.pop().unwrap_or_default();
            call(
                node,
                &mut self.lost,
                &mut out,
                now,
                action,
                &mut trace,
                |op, ctx| op.process_watermark(watermark, ctx),
                || "finishing its mini-batch".to_string(),
            )?;
            settle_lost(&mut self.lost, &mut self.result, i + 1 == self.nodes.len() && self.stale_on_loss);
            if out.is_empty() {
                self.buffers.push(out);
            } else {
                let consumer = self.nodes[i].consumer;
                self.flow(consumer, out, now, action, trace.as_deref_mut())?;
            }
        }
        Ok(())
    }

    /// Marks stale the result rows of every key whose state in the last operator became invisible
    /// by state TTL at or before `now`, since its expiry time. This is the one place that decides
    /// when a TTL loss makes a row stale: from the expiry on (`NeverReturnExpired`: a read finds
    /// nothing from then, so nothing will retract the row), not when a later read happens to
    /// remove the entry. Called before anything happens at a later time (a timer, a record, a
    /// metrics sample).
    pub fn settle_expiry(&mut self, now: Millis) {
        let Pipeline { nodes, result, invisible_log, .. } = self;
        let n = nodes.len();
        if let Some(log) = invisible_log {
            for (i, node) in nodes.iter_mut().enumerate().take(n.saturating_sub(1)) {
                node.op.backend_mut().keys.drain_invisible(now, |key, at| log.push((i, key.clone(), at)));
            }
        }
        if let Some(last) = nodes.last_mut() {
            let stale = loss_makes_rows_stale(last);
            last.op.backend_mut().keys.drain_invisible(now, |key, at| {
                if stale {
                    result.mark_stale(key, at);
                }
                if let Some(log) = invisible_log.as_mut() {
                    log.push((n - 1, key.clone(), at));
                }
            });
        }
    }

    /// From now on, names the keys whose state becomes invisible by TTL in every operator, not
    /// only the last ([`Pipeline::take_invisible`]): for a run that reports them as they happen
    /// ([`super::bookmarks`]), at the cost of a queue per operator that follows its keys.
    pub fn log_invisible(&mut self) {
        for node in &mut self.nodes {
            node.op.backend_mut().keys.track_invisible();
        }
        self.invisible_log.get_or_insert_with(Vec::new);
    }

    /// (operator, key, expiry) of the keys whose state became invisible by TTL since the last
    /// call, in the order time reached them, once per write; only after [`Pipeline::log_invisible`].
    pub fn take_invisible(&mut self) -> Vec<(usize, Row, Millis)> {
        self.invisible_log.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Whether any operator holds records in a mini-batch bundle.
    fn bundles_hold_records(&self) -> bool {
        self.nodes.iter().any(|n| n.op.bundled() > 0)
    }

    /// Notes each operator's state size now against its peaks.
    fn track_peaks(&mut self, now: Millis) {
        for n in &mut self.nodes {
            let backend = n.op.backend();
            n.peaks.keys.see(backend.keys.live() as u64, now);
            n.peaks.timers.see(backend.timers.len() as u64, now);
            n.peaks.entries_stored.see(n.op.entries_stored(), now);
            n.peaks.list_rows.see(n.op.list_rows(), now);
        }
    }

    /// Runs `messages` into `target` (an operator and its input; `None`: the result table), and
    /// what each operator emits on to the operator it feeds, down to the result table.
    fn flow(
        &mut self,
        mut target: Option<(usize, usize)>,
        mut messages: Vec<Message>,
        now: Millis,
        action: usize,
        mut trace: TraceSink,
    ) -> Result<(), StepError> {
        let last = self.nodes.len().saturating_sub(1);
        let mut total = messages.len();
        while let Some((i, port)) = target {
            let node = &mut self.nodes[i];
            let mut out = self.buffers.pop().unwrap_or_default();
            for m in &messages {
                call(
                    node,
                    &mut self.lost,
                    &mut out,
                    now,
                    action,
                    &mut trace,
                    |op, ctx| if port == 0 { op.process_element(m, ctx) } else { op.process_element2(m, ctx) },
                    || format!("on {}", m.echo()),
                )?;
            }
            total += out.len();
            if total > MAX_MESSAGES_PER_RECORD {
                return Err(StepError(format!(
                    "one record caused more than {MAX_MESSAGES_PER_RECORD} messages between operators (at \
                     operator {}): each operator multiplies the updates it receives; the simulator stops here",
                    quote(&node.id)
                )));
            }
            target = node.consumer;
            // Rows whose state the last operator lost go stale before this batch's new rows arrive.
            settle_lost(&mut self.lost, &mut self.result, i == last && self.stale_on_loss);
            messages.clear();
            self.buffers.push(std::mem::replace(&mut messages, out));
        }
        for m in messages.drain(..) {
            self.delivered += 1;
            if !self.result.apply(&m) {
                if let Some(t) = trace.as_deref_mut() {
                    t.push(TraceEntry {
                        action,
                        time_ms: now,
                        op: Rc::from("result"),
                        key: None,
                        event: TraceEvent::ResultMissingRow { message: m },
                    });
                }
            }
        }
        self.buffers.push(messages);
        Ok(())
    }

    /// The earliest registered timer: (timestamp ms, whose). Ties go to the mini-batch assigner
    /// (it is upstream of every operator), then to the lower operator index, then to the earlier
    /// registration. The assigner's timer counts only while a bundle holds records: firing it
    /// otherwise changes nothing anyone sees ([`Pipeline::skip_idle_mini_batches`]).
    pub fn next_timer(&self) -> Option<(Millis, TimerOwner)> {
        let keyed = self
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.op.backend().timers.peek().map(|(ts, seq, _)| (ts, i, seq)))
            .min()
            .map(|(ts, i, _)| (ts, TimerOwner::Operator(i)));
        let keyed = self.with_rowtime_timers(keyed);
        let assigner = match &self.assigner {
            Some(a) if self.bundles_hold_records() => Some((a.next_timer_ms(), TimerOwner::MiniBatchAssigner)),
            _ => None,
        };
        match (assigner, keyed) {
            (Some(a), Some(k)) => Some(if a.0 <= k.0 { a } else { k }),
            (a, k) => a.or(k),
        }
    }

    /// Applies at once the mini-batch assigner's timers due at or before `to`, when no bundle
    /// holds records (their watermarks would finish empty bundles: nothing happens but the
    /// assigner's `currentWatermark` moving on). Keeps a long advance with a short interval cheap.
    pub fn skip_idle_mini_batches(&mut self, to: Millis) {
        self.skip_idle_watermark_assigners(to);
        if self.assigner.is_some() && !self.bundles_hold_records() {
            if let Some(a) = &mut self.assigner {
                a.skip_to(to);
            }
        }
    }

    /// Fires the mini-batch assigner's timer if it is due at `time`: its watermark goes through
    /// the operators. Returns whether it fired.
    ///
    /// # Errors
    /// When an operator fails.
    pub fn fire_mini_batch(&mut self, time: Millis, action: usize, trace: TraceSink) -> Result<bool, StepError> {
        let Some(a) = &mut self.assigner else { return Ok(false) };
        let ts = a.next_timer_ms();
        if ts > time {
            return Ok(false);
        }
        if let Some(watermark) = a.on_processing_time(ts) {
            self.emit_watermark(watermark, ts, action, trace)?;
        }
        self.track_peaks(ts);
        Ok(true)
    }

    /// Fires the head timer of operator `i` if it is due at `time`; what its callback emits flows
    /// downstream. Returns whether a timer fired.
    ///
    /// # Errors
    /// When an operator fails.
    pub fn fire_next(
        &mut self,
        i: usize,
        time: Millis,
        action: usize,
        mut trace: TraceSink,
    ) -> Result<bool, StepError> {
        let node = &mut self.nodes[i];
        let Some((ts, key)) = node.op.backend_mut().poll_due(time) else { return Ok(false) };
        let mut out = Vec::new();
        call(
            node,
            &mut self.lost,
            &mut out,
            ts,
            action,
            &mut trace,
            |op, ctx| op.on_timer(ts, key, ctx),
            || format!("in onTimer({ts})"),
        )?;
        settle_lost(&mut self.lost, &mut self.result, i + 1 == self.nodes.len() && self.stale_on_loss);
        if !out.is_empty() {
            let consumer = self.nodes[i].consumer;
            self.flow(consumer, out, ts, action, trace)?;
        }
        self.track_peaks(ts);
        Ok(true)
    }
}
