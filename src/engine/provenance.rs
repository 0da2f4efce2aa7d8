//! Provenance: which input caused which message, state change and result row, and where state
//! was lost without a message. A query over the trace the simulation keeps (all of it, or the
//! window of the last actions the page keeps; [`Simulation::trace_window`] replays any other
//! window): nothing here changes how the pipeline runs, it only reads what it recorded.
//!
//! How messages are matched. Between two operators Flink's exchange is FIFO per channel, and
//! the pipeline runs each operator over the whole batch a record caused before the next one
//! (`pipeline.rs`), so the `n`-th `Received` of an operator is the `n`-th message sent to it —
//! a source row it reads, or a message its input operator emitted (a join: from either input,
//! in the order they were sent): one FIFO per operator pairs them exactly. Every entry of a
//! step after its `Input` entry is that input's doing (the pipeline handles one record per
//! step); timers fired while time advanced to it come before it and are no input's doing.
//!
//! Lineage. Each keyed state holds the set of inputs whose messages were folded into it since
//! it was last created; a message an operator emits carries the lineage of the state that
//! produced it (an unkeyed `Calc` passes its input's on). It is what an accumulator, a Top-N
//! partition or an OVER window *may* depend on: an over-approximation, never an omission. A
//! join holds each input's records in a state of its own (`left-records`, `right-records`,
//! `StreamingJoinOperator`, Flink 2.3.0), each expiring by its own TTL (the `STATE_TTL` hint): its
//! lineage is kept per input, so one side's loss leaves what the other side holds.
//!
//! Losses. State can vanish without a message (`KeyedProcessFunctionWithCleanupState`: the
//! cleanup timer clears it; `TtlValueState`/`TtlMapState` with `NeverReturnExpired`: an expired
//! entry is invisible, removed on the next read). Flink emits nothing then, so downstream rows
//! stay; what the lost state had sent can never be retracted. A loss in the last operator makes
//! its result rows stale (`ResultTable`'s `stale_since_ms`); a loss upstream, in an operator whose
//! output retracts (an aggregation, a Top-N), puts at risk every row whose lineage shares an
//! input with the lost state. An insert-only operator would never have retracted what it sent:
//! its loss changes what it emits afterwards (seed 002's returning user counted as new), not the
//! rows already downstream. The simulator only explains this: it
//! changes no row, as Flink changes none.

mod loss;
mod rows;

pub use loss::{Loss, LossRule};
pub use rows::RowsProvenance;

use super::row::{Message, Row};
use super::scenario::NodeInput;
use super::simulation::Simulation;
use super::time::Millis;
use super::trace::{ClearCause, TraceEntry, TraceEvent};
use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeSet, VecDeque};
use std::rc::Rc;

/// Inputs, by their number in [`Provenance::inputs`].
pub type Lineage = Rc<BTreeSet<u32>>;

/// One input row of the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRef {
    /// Its `Input` entry in the trace.
    pub entry: usize,
    pub action: usize,
    pub time_ms: Millis,
    pub message: Message,
    /// The source it came from (its index in [`Scenario::sources`](super::scenario::Scenario::sources)).
    pub source: usize,
}

/// Where one current result row comes from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RowProvenance {
    /// The last operator's `Emitted` entry that put the row there (none when it is older than
    /// the trace).
    pub produced_by: Option<usize>,
    /// The inputs it may depend on.
    pub inputs: Lineage,
    /// The loss in the last operator that made it stale (a [`Provenance::losses`] index).
    pub stale: Option<usize>,
    /// Losses upstream of the last operator, in operators whose output retracts, whose state the
    /// row depends on: what they sent can never be retracted, so the row may be wrong and will
    /// not be corrected.
    pub at_risk: Vec<usize>,
    /// Losses after which a state the row was computed from restarted empty, in any operator:
    /// the row counts from scratch what that state had counted before (seed 002: a user whose
    /// first-login state expired counts as new again; seed 001: a count restarts at 1).
    pub restarted_after: Vec<usize>,
}

/// The provenance of everything in a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    pub inputs: Vec<InputRef>,
    /// Per trace entry: the input whose processing it belongs to.
    pub caused_by: Vec<Option<u32>>,
    /// Per trace entry: what it derives from directly — a `Received` from the upstream
    /// `Emitted` (or `Input`) it got, anything else from the call it happened in (the
    /// `Received`, `TimerFired` or `BundleFinished` that started it).
    pub parent: Vec<Option<usize>>,
    /// Per trace entry: the lineage of the message it carries (`Input`, `Received`, `Emitted`).
    pub lineage: Vec<Option<Lineage>>,
    pub losses: Vec<Loss>,
    /// One per current result row, in [`ResultTable::rows`](super::result_table::ResultTable::rows) order.
    pub rows: RowsProvenance,
    /// Whether the trace starts at the first action (else inputs before it are unknown).
    pub complete: bool,
}

/// The call an operator is in: what started it and the lineage of its input.
struct Call {
    start: usize,
    /// The input it came in on (a join's left 0, right 1).
    port: usize,
    key: Option<Row>,
    lineage: Lineage,
    /// The input's lineage is still to be folded into the key's state.
    pending: bool,
    timer_ms: Option<Millis>,
    /// The losses the input's message was computed after (see [`RowProvenance::restarted_after`]).
    tags: Lineage,
}

fn union(a: &Lineage, b: &Lineage) -> Lineage {
    if b.is_subset(a) {
        a.clone()
    } else if a.is_subset(b) {
        b.clone()
    } else {
        Rc::new(a.union(b).copied().collect())
    }
}

struct Builder<'a> {
    trace: &'a [TraceEntry],
    ops: HashMap<&'a str, usize>,
    /// The sources by name.
    sources: HashMap<&'a str, usize>,
    /// Per source, the operators reading it and on which input (a source row enters each).
    readers: Vec<Vec<(usize, usize)>>,
    /// Per operator, the operator its output feeds and on which input (`ops.len()`: the result).
    consumer: Vec<(usize, usize)>,
    /// Per operator `i` (`ops.len()` is the result): entries sent to it and not yet received,
    /// with the input they arrive on, from all its inputs (a join's two). One FIFO per operator
    /// pairs them: the pipeline runs one record's whole batch through an operator before
    /// anything else reaches it.
    channels: Vec<VecDeque<(usize, usize)>>,
    calls: Vec<Option<Call>>,
    /// Per operator's input (its slot, [`Builder::slot`]), by key (looked up without cloning
    /// the key): what the key's state holds from that input. A join keeps each side's records
    /// in a state of its own, so one side's loss leaves the other's lineage.
    state: Vec<HashMap<Row, Lineage>>,
    /// Per operator, its first slot in `state` and how many inputs it has.
    slots: Vec<(usize, usize)>,
    /// Per operator, its states' names (a join's: one per input, in input order).
    state_names: Vec<Vec<&'static str>>,
    /// Per operator and key: the losses (by creation number) after which its state restarted
    /// empty, and those its inputs were computed after.
    restarts: Vec<HashMap<Row, Lineage>>,
    /// The empty lineage, shared (one allocation, not one per use).
    empty: Lineage,
    /// Per trace entry: the same for the message it carries.
    tags: Vec<Option<Lineage>>,
    out: Provenance,
}

impl Builder<'_> {
    /// Operator `op`'s input `port` in [`Builder::state`].
    fn slot(&self, op: usize, port: usize) -> usize {
        let (first, n) = self.slots[op];
        first + port.min(n.saturating_sub(1))
    }

    fn flush(&mut self, op: usize) {
        let slot = self.calls[op].as_ref().map(|c| self.slot(op, c.port));
        if let (Some(call), Some(slot)) = (self.calls[op].as_mut(), slot) {
            if call.pending {
                call.pending = false;
                if let Some(key) = &call.key {
                    let held = self.state[slot].entry(key.clone()).or_insert_with(|| self.empty.clone());
                    *held = union(held, &call.lineage);
                    if !call.tags.is_empty() {
                        let restarts = self.restarts[op].entry(key.clone()).or_insert_with(|| self.empty.clone());
                        *restarts = union(restarts, &call.tags);
                    }
                }
            }
        }
    }

    /// What the key's state holds, from all the operator's inputs.
    fn held(&self, op: usize, key: &Option<Row>) -> Lineage {
        let Some(k) = key else { return self.empty.clone() };
        let (first, n) = self.slots[op];
        (first..first + n).filter_map(|slot| self.state[slot].get(k)).fold(self.empty.clone(), |all, l| union(&all, l))
    }

    /// The key's state was lost: all of it, or with `state` one input's (a join's side: its
    /// states are named in input order, `left-records` then `right-records`).
    fn lose(&mut self, op: usize, e: usize, at_ms: Millis, rule: LossRule, state: Option<&str>) {
        let entry = &self.trace[e];
        let key = entry.key.clone().unwrap_or_default();
        let (first, n) = self.slots[op];
        let side =
            state.and_then(|s| self.state_names[op].iter().position(|name| *name == s)).filter(|&p| p < n && n > 1);
        let lost = match side {
            Some(p) => first + p..first + p + 1,
            None => first..first + n,
        };
        let mut inputs = self.empty.clone();
        for slot in lost {
            if let Some(l) = self.state[slot].remove(&key) {
                inputs = union(&inputs, &l);
            }
        }
        // From here the key's state starts empty: what it computes next is "after the loss".
        self.restarts[op].insert(key.clone(), Rc::new(BTreeSet::from([self.out.losses.len() as u32])));
        let state = side.and_then(|p| self.state_names[op].get(p)).map(|s| s.to_string());
        self.out.losses.push(Loss { op, op_id: entry.op.to_string(), key, state, at_ms, rule, inputs, entry: Some(e) });
    }

    fn start_call(&mut self, op: usize, e: usize, port: usize, lineage: Lineage, pending: bool, tags: Lineage) {
        self.flush(op);
        let entry = &self.trace[e];
        let timer_ms = match entry.event {
            TraceEvent::TimerFired { timer_ms } => Some(timer_ms),
            _ => None,
        };
        self.calls[op] = Some(Call { start: e, port, key: entry.key.clone(), lineage, pending, timer_ms, tags });
    }

    fn entry(&mut self, e: usize) {
        let entry = &self.trace[e];
        if let (Some(&source), TraceEvent::Input { message }) = (self.sources.get(&*entry.op), &entry.event) {
            let n = self.out.inputs.len() as u32;
            self.out.inputs.push(InputRef {
                entry: e,
                action: entry.action,
                time_ms: entry.time_ms,
                message: message.clone(),
                source,
            });
            self.out.lineage[e] = Some(Rc::new(BTreeSet::from([n])));
            for &(r, port) in &self.readers[source] {
                self.channels[r].push_back((e, port));
            }
            return;
        }
        let Some(&op) = self.ops.get(&*entry.op) else { return };
        let parent = self.calls[op].as_ref().map(|c| c.start);
        match &entry.event {
            TraceEvent::Received { .. } | TraceEvent::Buffered { .. } => {
                let (from, port) = self.channels[op].pop_front().map_or((None, 0), |(f, p)| (Some(f), p));
                let lineage = from.and_then(|f| self.out.lineage[f].clone()).unwrap_or_else(|| self.empty.clone());
                let tags = from.and_then(|f| self.tags[f].clone()).unwrap_or_else(|| self.empty.clone());
                self.out.parent[e] = from;
                self.out.lineage[e] = Some(lineage.clone());
                self.tags[e] = Some(tags.clone());
                self.start_call(op, e, port, lineage, true, tags);
            }
            TraceEvent::TimerFired { .. } => {
                self.start_call(op, e, 0, self.empty.clone(), false, self.empty.clone());
            }
            TraceEvent::BundleFinished { .. } | TraceEvent::Watermark { .. } | TraceEvent::OperatorEvent { .. } => {
                self.start_call(op, e, 0, self.empty.clone(), false, self.empty.clone());
                if let Some(c) = self.calls[op].as_mut() {
                    c.key = None;
                }
            }
            TraceEvent::Dropped { .. } => {
                if let Some(c) = self.calls[op].as_mut() {
                    c.pending = false;
                }
                self.out.parent[e] = parent;
            }
            TraceEvent::StateExpired { state, last_access_ms, expired_at_ms }
            | TraceEvent::StateCleanedUp { state, last_access_ms, expired_at_ms } => {
                let rule =
                    LossRule::TtlExpiredRemoved { last_access_ms: *last_access_ms, removed_at_ms: entry.time_ms };
                self.lose(op, e, *expired_at_ms, rule, Some(state));
                self.out.parent[e] = parent;
            }
            TraceEvent::StateCleared { cause: ClearCause::CleanupTimer, .. } => {
                let timer_ms = self.calls[op].as_ref().and_then(|c| c.timer_ms).unwrap_or(entry.time_ms);
                self.lose(op, e, entry.time_ms, LossRule::CleanupTimer { timer_ms }, None);
                self.out.parent[e] = parent;
            }
            TraceEvent::StateCleared { .. } => {
                self.flush(op);
                if let Some(key) = &entry.key {
                    let (first, n) = self.slots[op];
                    for slot in first..first + n {
                        self.state[slot].remove(key);
                    }
                    self.restarts[op].remove(key);
                }
                self.out.parent[e] = parent;
            }
            TraceEvent::Emitted { .. } => {
                self.flush(op);
                let call_lineage = self.calls[op].as_ref().map_or_else(|| self.empty.clone(), |c| c.lineage.clone());
                let lineage = union(&self.held(op, &entry.key), &call_lineage);
                self.out.lineage[e] = Some(lineage);
                let call_tags = self.calls[op].as_ref().map_or_else(|| self.empty.clone(), |c| c.tags.clone());
                let restarts = entry
                    .key
                    .as_ref()
                    .and_then(|k| self.restarts[op].get(k).cloned())
                    .unwrap_or_else(|| self.empty.clone());
                self.tags[e] = Some(union(&restarts, &call_tags));
                self.out.parent[e] = parent;
                let (to, port) = self.consumer[op];
                self.channels[to].push_back((e, port));
            }
            _ => self.out.parent[e] = parent,
        }
    }
}

impl Provenance {
    /// The provenance of `sim`'s kept trace, its losses (with the expired entries still stored
    /// now) and its current result rows.
    pub fn of(sim: &Simulation) -> Provenance {
        let complete = match sim.options().keep_actions {
            Some(keep) => sim.action_count() <= keep,
            None => true,
        } && sim.options().trace == super::TraceLevel::Full;
        Provenance::build(sim, sim.trace(), complete)
    }

    /// The provenance of `trace` (a trace of `sim`, from its first action when `complete`).
    pub fn build(sim: &Simulation, trace: &[TraceEntry], complete: bool) -> Provenance {
        let scenario = sim.scenario();
        let n_ops = scenario.operators.len();
        // The tree: which operators read each source, which operator each one feeds.
        let mut readers = vec![Vec::new(); scenario.sources.len()];
        let mut consumer = vec![(n_ops, 0); n_ops];
        let mut slots = Vec::with_capacity(n_ops);
        for (i, node) in scenario.operators.iter().enumerate() {
            for (port, input) in node.inputs.iter().enumerate() {
                match *input {
                    NodeInput::Source(s) => readers[s].push((i, port)),
                    NodeInput::Operator(j) => consumer[j] = (i, port),
                }
            }
            let first = slots.last().map_or(0, |&(f, n): &(usize, usize)| f + n);
            slots.push((first, node.inputs.len().max(1)));
        }
        let n_slots = slots.last().map_or(0, |&(f, n)| f + n);
        let state_names: Vec<Vec<&'static str>> =
            sim.operator_views_limited(0).into_iter().map(|v| v.state_names).collect();
        let mut b = Builder {
            trace,
            ops: scenario.operators.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect(),
            sources: scenario.sources.iter().enumerate().map(|(i, s)| (s.name.as_str(), i)).collect(),
            readers,
            consumer,
            channels: vec![VecDeque::new(); n_ops + 1],
            calls: (0..n_ops).map(|_| None).collect(),
            state: vec![HashMap::default(); n_slots],
            slots,
            state_names,
            restarts: vec![HashMap::default(); n_ops],
            empty: Lineage::default(),
            tags: vec![None; trace.len()],
            out: Provenance {
                inputs: Vec::new(),
                caused_by: vec![None; trace.len()],
                parent: vec![None; trace.len()],
                lineage: vec![None; trace.len()],
                losses: Vec::new(),
                rows: RowsProvenance::default(),
                complete,
            },
        };
        let mut current: Option<(usize, u32)> = None;
        for (e, entry) in trace.iter().enumerate() {
            let action = entry.action;
            if current.is_some_and(|(a, _)| a != action) {
                current = None;
            }
            if matches!(entry.event, TraceEvent::Input { .. }) && b.sources.contains_key(&*entry.op) {
                current = Some((action, b.out.inputs.len() as u32));
            }
            b.out.caused_by[e] = current.map(|(_, n)| n);
            b.entry(e);
        }
        for op in 0..n_ops {
            b.flush(op);
        }
        // Expired entries still stored now: lost since their expiry, no read has seen it yet. Only
        // the keys the trace shows are looked at (the others share no input with anything in it):
        // the cost follows the kept trace, not the number of keys.
        let mut held: Vec<(usize, usize, &Row, &Lineage)> = Vec::new();
        for (op, &(first, n)) in b.slots.iter().enumerate() {
            for port in 0..n {
                held.extend(b.state[first + port].iter().map(|(k, l)| (op, port, k, l)));
            }
        }
        held.sort_by(|a, b| (a.0, a.2, a.1).cmp(&(b.0, b.2, b.1)));
        // A join's sides may each have a TTL of their own (the STATE_TTL hint), not the
        // operator's: its keys are looked at whatever the scenario's retention.
        let ttl_ops: Vec<bool> = (0..n_ops)
            .map(|i| {
                b.slots[i].1 > 1
                    || matches!(scenario.operator_retention(i), super::scenario::Retention::StateTtl(t) if t > 0)
            })
            .collect();
        for (op, port, row, inputs) in held {
            if !ttl_ops[op] {
                continue;
            }
            let Some(view) = sim.key_view(op, row) else { continue };
            // One input's state (a join's side) expires on its own; otherwise the key's.
            let ttl = if b.slots[op].1 > 1 { view.states.get(port).and_then(|c| c.as_ref()?.ttl) } else { view.ttl };
            let Some(ttl) = ttl.filter(|t| t.expired) else { continue };
            let state = (b.slots[op].1 > 1).then(|| b.state_names[op].get(port).map(|s| s.to_string())).flatten();
            b.out.losses.push(Loss {
                op,
                op_id: scenario.operators[op].id.clone(),
                key: row.clone(),
                state,
                at_ms: ttl.expires_at_ms,
                rule: LossRule::TtlExpiredStored { last_access_ms: ttl.last_access_ms },
                inputs: inputs.clone(),
                entry: None,
            });
        }
        // Losses in time order; the tags name them by creation number.
        let mut order: Vec<usize> = (0..b.out.losses.len()).collect();
        order.sort_by_key(|&l| (b.out.losses[l].at_ms, l));
        let mut renumber = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            renumber[old] = new as u32;
        }
        let mut slots: Vec<Option<Loss>> = b.out.losses.drain(..).map(Some).collect();
        b.out.losses = order.iter().filter_map(|&l| slots[l].take()).collect();
        let emitted: Vec<usize> =
            if n_ops == 0 { Vec::new() } else { b.channels[n_ops].iter().map(|&(e, _)| e).collect() };
        let key_columns = scenario.operators.last().map(|n| n.spec.state_key_columns()).unwrap_or_default();
        let tags = b.tags;
        let mut out = b.out;
        out.rows = rows::rows(sim, trace, &emitted, &key_columns, &out, n_ops);
        for row in out.rows.known_mut() {
            if let Some(after) = row.produced_by.and_then(|e| tags[e].as_ref()).filter(|t| !t.is_empty()) {
                let mut after: Vec<usize> = after.iter().map(|&l| renumber[l as usize] as usize).collect();
                after.sort_unstable();
                row.restarted_after = after;
            }
        }
        out
    }

    /// The loss behind stale result row `r` when the kept trace does not show it (it is older):
    /// the last operator's key, if its expired entry is still stored. `None` when the row is not
    /// stale, its loss is in [`Provenance::losses`], or the state is gone without a trace.
    pub fn older_loss_of_row(&self, sim: &Simulation, r: usize) -> Option<Loss> {
        let row = sim.result().rows().nth(r)?;
        row.stale_since_ms?;
        if self.rows.get(r)?.stale.is_some() {
            return None;
        }
        let last = sim.scenario().operators.len().checked_sub(1)?;
        let node = &sim.scenario().operators[last];
        let key = row.row.project(&node.spec.state_key_columns());
        let ttl = sim.key_view(last, &key)?.ttl.filter(|t| t.expired)?;
        Some(Loss {
            op: last,
            op_id: node.id.clone(),
            key,
            state: None,
            at_ms: ttl.expires_at_ms,
            rule: LossRule::TtlExpiredStored { last_access_ms: ttl.last_access_ms },
            inputs: Lineage::default(),
            entry: None,
        })
    }

    /// The trace entries input `n` caused (every operator's, in order).
    pub fn entries_of_input(&self, n: u32) -> Vec<usize> {
        (0..self.caused_by.len()).filter(|&e| self.caused_by[e] == Some(n)).collect()
    }

    /// The current result rows (indices) that may depend on input `n`.
    pub fn rows_of_input(&self, n: u32) -> Vec<usize> {
        self.rows.known().filter(|(_, p)| p.inputs.contains(&n)).map(|(r, _)| r).collect()
    }

    /// The entries a message derives from, from `e` back to the input (or the timer) that
    /// started it: each `Emitted`, the `Received` it answered, the upstream `Emitted`, …
    pub fn chain(&self, e: usize) -> Vec<usize> {
        let mut out = vec![e];
        let mut at = e;
        while let Some(p) = self.parent.get(at).copied().flatten() {
            if out.len() > self.parent.len() {
                break;
            }
            out.push(p);
            at = p;
        }
        out
    }
}
