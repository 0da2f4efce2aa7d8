//! `LateralSnapshotJoinOperator` (FLIP-579), `flink-table-runtime/.../operators/join/snapshot/`
//! on apache/flink's main branch, read at commit `a97c489f0cd5af7ed18972df31caba994c6dbab6` (the
//! search index's copy; not in any release: 2.3.0's jars have no such class). Input 1 (left) is
//! the probe side, input 2 (right) the build side, both keyed by the equi-join keys.
//!
//! Two operator-wide phases, LOAD then JOIN (never back):
//!
//! ```text
//! processElement1(probe):  applyBufferedChangesUpToCurrentWm()
//!                          if phase == LOAD || probeBufferSeq != null: bufferProbe(probe)  // + an event-time timer
//!                          else joinProbeRow(probe)
//!                          refreshStateTtl()
//! processElement2(build):  armIdleFlipTimerIfNotArmed(); bufferedAt = applyBufferedChangesUpToCurrentWm()
//!                          buildChangeBuffer[build.rowtime].add(build)
//!                          if bufferedAt == null || bufferedAt != currentBuildSideWm: bufferedAtWm = currentBuildSideWm
//!                          refreshStateTtl()
//! processWatermark1(wm):   if JOIN: super.processWatermark1(wm)      // fires due drain timers, forwards wm
//!                          currentProbeSideWm = max(currentProbeSideWm, wm)
//! processWatermark2(wm):   currentBuildSideWm = max(…); never forwarded
//!                          LOAD: if currentBuildSideWm >= loadCompletedTime: flip; else re-arm the idle timer
//! flip:                    phase = JOIN; flipProcTime = now; cancel the idle timer
//!                          if currentProbeSideWm >= 0: super.processWatermark1(currentProbeSideWm)
//! onEventTime(ts < 0):     applyBufferedChangesUpToCurrentWm(); p = probeBuffer[ts]
//!                          if p: joinProbeRow(p); remove; clear probeBufferSeq if it was the last
//! refreshStateTtl():       if min == 0: return
//!                          if ttlExpiry != null && ttlExpiry >= now + min: return       // keep
//!                          if ttlExpiry != null: deleteProcessingTimeTimer(ttlExpiry)
//!                          registerProcessingTimeTimer(now + max); ttlExpiry = now + max    // max = min + min / 2
//! onProcessingTime(t):     if min == 0 || t != ttlExpiry: return                        // stale
//!                          if LOAD: re-arm now + max; elif now < flipProcTime + min: re-arm flipProcTime + max
//!                          elif probeBufferSeq != null: re-arm now + max
//!                          else clearAllPerKeyState(); numStateTtlEvictions++            // emits nothing
//! ```
//!
//! `applyBufferedChangesUpToCurrentWm` applies the buffered build changes whose row time the
//! build watermark reached (ascending row time, arrival order within one), once the watermark
//! passed the buffer's tag (or everything, in JOIN with no build watermark ever seen). An
//! `+I`/`+U` adds one copy of the row to `build-table`, a `-U`/`-D` takes one away (none stored:
//! `numUnmatchedBuildRetractions`). `joinProbeRow` emits `+I[probe, build]` once per stored copy
//! of each matching build row, in the heap's `HashMap` order; no match and LEFT: `+I[probe,
//! nulls]`. A NULL in the probe's key matches nothing (`JoinConditionWithNullFilters`).
//!
//! Modelled on the heap backend: the change buffer's due row times are sorted
//! (`applyDueChangesUnsorted`; RocksDB's key order gives the same). Event-time timers of equal
//! timestamp (one per key: each key's sequence starts at 1) fire in registration order, as the
//! engine's processing-time timers do. Not modelled: restore (the phase in union list state),
//! watermark status (idleness), interruptible timers (a drain here runs whole).

use super::lateral_snapshot_join::LateralSnapshotJoinSpec;
use super::lateral_snapshot_join_state::{fresh, LateralSnapshotState, STATES};
use crate::engine::cleanup_state::CleanupDecision;
use crate::engine::operators::{Context, StreamOperator};
use crate::engine::row::{Change, Message, Row, RowKind, Value};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize};
use crate::engine::time::Millis;
use crate::engine::trace::{ClearCause, TraceEvent, WatermarkInput};
use crate::engine::view::StateCell;
use std::collections::BTreeMap;
use std::rc::Rc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Load,
    Join,
}

/// The operator's metrics (its metric group's counters and gauges).
#[derive(Debug, Clone, Copy, Default)]
struct Metrics {
    num_state_ttl_evictions: u64,
    num_unmatched_probe_records: u64,
    num_unmatched_build_retractions: u64,
    probe_buffered: u64,
    max_join_fan_out: u64,
    total_join_fan_out: u64,
    total_probe_joins: u64,
}

/// `LateralSnapshotJoinOperator` with its keyed state.
#[derive(Debug, Clone)]
pub struct LateralSnapshotJoinOperator {
    spec: Rc<LateralSnapshotJoinSpec>,
    backend: KeyedStateBackend,
    min_state_ttl_ms: Millis,
    max_state_ttl_ms: Millis,
    /// Its keyed states.
    state: LateralSnapshotState,
    /// The event-time timers (probe drains): (timestamp, registration number) → key.
    event_timers: BTreeMap<(Millis, u64), KeyId>,
    next_event_timer: u64,
    phase: Phase,
    flip_proc_time: Option<Millis>,
    current_build_wm: Millis,
    current_probe_wm: Millis,
    /// `super.processWatermark1`'s combined watermark (input 2 pinned idle: the probe side's).
    combined_wm: Millis,
    /// The non-keyed idle-flip timer.
    idle_flip_timer: Option<Millis>,
    metrics: Metrics,
}

impl LateralSnapshotJoinOperator {
    /// `new LateralSnapshotJoinOperator(isLeftOuterJoin, …, buildRowtimeIndex, …,
    /// loadCompletedTime, loadCompletedIdleTimeoutMs, stateTtlMs)` and `open()`.
    pub fn new(spec: Rc<LateralSnapshotJoinSpec>, state_ttl_ms: Millis) -> Self {
        let min = state_ttl_ms.max(0);
        LateralSnapshotJoinOperator {
            state: LateralSnapshotState::new(spec.right_types().to_vec()),
            spec,
            backend: KeyedStateBackend::new(0),
            min_state_ttl_ms: min,
            max_state_ttl_ms: min + min / 2,
            event_timers: BTreeMap::new(),
            next_event_timer: 0,
            phase: Phase::Load,
            flip_proc_time: None,
            current_build_wm: Millis::MIN,
            current_probe_wm: Millis::MIN,
            combined_wm: Millis::MIN,
            idle_flip_timer: None,
            metrics: Metrics::default(),
        }
    }

    fn note(ctx: &mut Context, key_row: &Row, what: impl FnOnce() -> String) {
        if ctx.tracing() {
            let what = what();
            ctx.record(key_row, || TraceEvent::Note { what });
        }
    }

    /// `applyBufferedChangesUpToCurrentWm()`: the watermark the buffer is tagged with after it, or
    /// `None` when nothing stays buffered.
    fn apply_buffered_changes(&mut self, key: KeyId, key_row: &Row, ctx: &mut Context) -> Option<Millis> {
        let now = ctx.now;
        let buffered_at = fresh(self.state.buffered_at_wm.value(&mut self.backend.keys, key, now))?;
        if self.current_build_wm > buffered_at {
            self.apply_buffered_changes_up_to(key, key_row, self.current_build_wm, ctx)
        } else if self.phase == Phase::Join && self.current_build_wm == Millis::MIN {
            self.apply_buffered_changes_up_to(key, key_row, Millis::MAX, ctx)
        } else {
            Some(buffered_at)
        }
    }

    /// `applyBufferedChangesUpTo(upToWm)` on the heap (`applyDueChangesUnsorted`).
    fn apply_buffered_changes_up_to(
        &mut self,
        key: KeyId,
        key_row: &Row,
        up_to: Millis,
        ctx: &mut Context,
    ) -> Option<Millis> {
        let now = ctx.now;
        let keys = &mut self.backend.keys;
        let mut due = Vec::new();
        let mut has_kept = false;
        for (rowtime, _) in self.state.change_buffer.entries(keys, key, now) {
            if rowtime <= up_to {
                due.push(rowtime);
            } else {
                has_kept = true;
            }
        }
        due.sort_unstable();
        let mut applied = 0;
        for rowtime in due {
            let changes =
                fresh(self.state.change_buffer.get(&mut self.backend.keys, key, &rowtime, now)).unwrap_or_default();
            applied += changes.len();
            self.apply_build_changes(key, &changes, now);
            self.state.change_buffer.remove(&mut self.backend.keys, key, &rowtime);
        }
        let shown = if up_to == Millis::MAX { "all (no build watermark seen)".to_string() } else { up_to.to_string() };
        if applied > 0 {
            Self::note(ctx, key_row, || {
                format!("applied {applied} buffered build change(s) with row time <= {shown} to build-table")
            });
        }
        if has_kept {
            self.state.buffered_at_wm.update(&mut self.backend.keys, key, up_to, now);
            return Some(up_to);
        }
        self.state.change_buffer.clear(&mut self.backend.keys, key);
        self.state.buffered_at_wm.clear(&mut self.backend.keys, key);
        None
    }

    /// `applyBuildChanges(changes)`: each change's kind reset to INSERT, one copy added or taken.
    fn apply_build_changes(&mut self, key: KeyId, changes: &[Message], now: Millis) {
        let keys = &mut self.backend.keys;
        for change in changes {
            let accumulate = match change.change {
                Change::Kind(kind) => matches!(kind, RowKind::Insert | RowKind::UpdateAfter),
                Change::Legacy(acc) => acc,
            };
            if accumulate {
                self.state.build_table.add_record(keys, key, &change.row, -1, now);
            } else if self.state.build_table.count_of(keys, key, &change.row, now) <= 0 {
                self.metrics.num_unmatched_build_retractions += 1;
            } else {
                self.state.build_table.retract_record(keys, key, &change.row, now);
            }
        }
    }

    /// `joinProbeRow(probe)`.
    fn join_probe_row(&mut self, key: KeyId, key_row: &Row, probe: &Row, ctx: &mut Context) {
        let now = ctx.now;
        let records = self.state.build_table.records(&mut self.backend.keys, key, now);
        // `JoinConditionWithNullFilters`: a NULL in an `=` key matches nothing.
        let null_key = key_row.0.contains(&Value::Null);
        let mut matched = false;
        let mut fan_out = 0u64;
        for (build, _) in &records {
            if null_key {
                break;
            }
            let joined = probe.concat(build);
            let ok = match &self.spec.condition {
                Some(c) => c.try_eval(&joined.0, now).is_ok_and(|v| v == Value::Bool(true)),
                None => true,
            };
            if ok {
                matched = true;
                fan_out += 1;
                ctx.collect(key_row, Message::new(Change::Kind(RowKind::Insert), joined));
            }
        }
        if !matched && self.spec.left_outer {
            let mut padded = probe.clone();
            padded.0.extend(std::iter::repeat_n(Value::Null, self.spec.right_width));
            ctx.collect(key_row, Message::new(Change::Kind(RowKind::Insert), padded));
            fan_out += 1;
        }
        if !matched && !self.spec.left_outer {
            self.metrics.num_unmatched_probe_records += 1;
            Self::note(ctx, key_row, || "no build row matches: nothing emitted (INNER)".to_string());
        }
        let m = &mut self.metrics;
        m.total_probe_joins += 1;
        m.total_join_fan_out += fan_out;
        m.max_join_fan_out = m.max_join_fan_out.max(fan_out);
    }

    /// `bufferProbe(probe)`: under `(seq + 1) - Long.MAX_VALUE`, with an event-time timer there.
    fn buffer_probe(&mut self, key: KeyId, key_row: &Row, probe: &Row, ctx: &mut Context) {
        let now = ctx.now;
        let keys = &mut self.backend.keys;
        let seq = fresh(self.state.probe_buffer_seq.value(keys, key, now)).unwrap_or(0);
        let ts = (seq + 1) - i64::MAX;
        self.state.probe_buffer.put(keys, key, ts, probe.clone(), now);
        self.state.probe_buffer_seq.update(keys, key, seq + 1, now);
        self.register_event_time_timer(key, ts);
        self.metrics.probe_buffered += 1;
        let phase = if self.phase == Phase::Load { "LOAD phase" } else { "the key's buffer is still draining" };
        Self::note(ctx, key_row, || {
            format!("buffered in probe-buffer as #{} ({phase}): joined when a probe watermark fires its timer", seq + 1)
        });
    }

    fn register_event_time_timer(&mut self, key: KeyId, ts: Millis) {
        if self.event_timers.iter().any(|(&(t, _), &k)| t == ts && k == key) {
            return;
        }
        self.event_timers.insert((ts, self.next_event_timer), key);
        self.next_event_timer += 1;
        self.backend.keys.hold(key);
    }

    /// `refreshStateTtl()`, with the rule's numbers in the trace (the cleanup-timer rule's form).
    fn refresh_state_ttl(&mut self, key: KeyId, key_row: &Row, ctx: &mut Context) {
        let min = self.min_state_ttl_ms;
        if min == 0 {
            return;
        }
        let now = ctx.now;
        let max = self.max_state_ttl_ms;
        let current = fresh(self.state.ttl_expiry.value(&mut self.backend.keys, key, now));
        if let Some(c) = current {
            if c >= now + min {
                ctx.record(key_row, || TraceEvent::Decision(CleanupDecision::Keep { now, min_ms: min, current: c }));
                return;
            }
        }
        let timer = now + max;
        let decision = match current {
            Some(c) => CleanupDecision::Move { now, min_ms: min, max_ms: max, current: c, timer },
            None => CleanupDecision::Register { now, max_ms: max, timer },
        };
        ctx.record(key_row, || TraceEvent::Decision(decision));
        if let Some(c) = current {
            if self.backend.delete_processing_time_timer(key, c) {
                ctx.record(key_row, || TraceEvent::TimerDeleted { timer_ms: c });
            }
        }
        if self.backend.register_processing_time_timer(key, timer) {
            ctx.record(key_row, || TraceEvent::TimerRegistered { timer_ms: timer });
        }
        self.state.ttl_expiry.update(&mut self.backend.keys, key, timer, now);
    }

    /// `super.processWatermark1(wm)`: the combined watermark (the build input is pinned idle, so
    /// the probe side's) advances the event-time timers, then is forwarded. Returns it, if it grew.
    fn advance_probe_watermark(&mut self, watermark: Millis, ctx: &mut Context) -> Result<Option<Millis>, String> {
        if watermark <= self.combined_wm {
            return Ok(None);
        }
        self.combined_wm = watermark;
        while let Some((&(ts, n), &key)) = self.event_timers.first_key_value() {
            if ts > watermark {
                break;
            }
            self.event_timers.remove(&(ts, n));
            let key_row = self.backend.keys.row(key).clone();
            // The timer's key becomes current before the timer lets go of it.
            let key = self.backend.keys.intern(&key_row);
            self.backend.keys.unhold(key);
            self.on_event_time(ts, key, &key_row, ctx)?;
        }
        Ok(Some(watermark))
    }

    /// `onEventTime(timer)`: drains one buffered probe.
    fn on_event_time(&mut self, ts: Millis, key: KeyId, key_row: &Row, ctx: &mut Context) -> Result<(), String> {
        if ts >= 0 {
            return Err(format!("Unexpected event-time timer timestamp {ts}. Terminating the job"));
        }
        let now = ctx.now;
        self.apply_buffered_changes(key, key_row, ctx);
        let Some(probe) = fresh(self.state.probe_buffer.get(&mut self.backend.keys, key, &ts, now)) else {
            return Ok(());
        };
        Self::note(ctx, key_row, || format!("drain: probe-buffer #{} joined", ts + i64::MAX));
        self.join_probe_row(key, key_row, &probe, ctx);
        self.state.probe_buffer.remove(&mut self.backend.keys, key, &ts);
        self.metrics.probe_buffered = self.metrics.probe_buffered.saturating_sub(1);
        if fresh(self.state.probe_buffer_seq.value(&mut self.backend.keys, key, now)) == Some(ts + i64::MAX) {
            self.state.probe_buffer_seq.clear(&mut self.backend.keys, key);
        }
        Ok(())
    }

    /// `transitionToJoinPhase(trigger)`: the watermark forwarded, if any.
    fn transition_to_join_phase(&mut self, trigger: &str, ctx: &mut Context) -> Result<Option<Millis>, String> {
        if self.phase == Phase::Join {
            return Ok(None);
        }
        self.phase = Phase::Join;
        self.flip_proc_time = Some(ctx.now);
        self.idle_flip_timer = None;
        let (build, load) = (self.current_build_wm, self.spec.load_completed_time);
        let probe = self.current_probe_wm;
        if ctx.tracing() {
            let drain = if probe >= 0 {
                format!("the probe watermark {probe} fires the buffered probes' timers")
            } else {
                "no probe watermark yet: the buffered probes wait for the next one".to_string()
            };
            let what = format!(
                "LOAD → JOIN ({trigger}; build watermark {}, loadCompletedTime {load}): {drain}",
                if build == Millis::MIN { "none".to_string() } else { build.to_string() }
            );
            ctx.record_unkeyed(|| TraceEvent::OperatorEvent { what });
        }
        if probe >= 0 {
            return self.advance_probe_watermark(probe, ctx);
        }
        Ok(None)
    }

    fn arm_idle_flip_timer_if_not_armed(&mut self, now: Millis) {
        if self.phase == Phase::Load && self.idle_flip_timer.is_none() {
            self.idle_flip_timer = self.spec.load_completed_idle_timeout.map(|t| now + t);
        }
    }

    fn key_of(&mut self, row: &Row, keys: &[usize]) -> (Row, KeyId) {
        let key_row = row.project(keys);
        let key = self.backend.keys.intern(&key_row);
        (key_row, key)
    }
}

impl StreamOperator for LateralSnapshotJoinOperator {
    fn flink_class(&self) -> &'static str {
        "LateralSnapshotJoinOperator"
    }

    /// `processElement1`: a probe row.
    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let (key_row, key) = self.key_of(&input.row, &self.spec.left_keys.clone());
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        self.apply_buffered_changes(key, &key_row, ctx);
        let draining = fresh(self.state.probe_buffer_seq.value(&mut self.backend.keys, key, ctx.now)).is_some();
        if self.phase == Phase::Load || draining {
            self.buffer_probe(key, &key_row, &input.row, ctx);
        } else {
            self.join_probe_row(key, &key_row, &input.row, ctx);
        }
        self.refresh_state_ttl(key, &key_row, ctx);
        Ok(())
    }

    /// `processElement2`: a build change.
    fn process_element2(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let (key_row, key) = self.key_of(&input.row, &self.spec.right_keys.clone());
        ctx.record(&key_row, || TraceEvent::Received { message: input.clone() });
        let now = ctx.now;
        self.arm_idle_flip_timer_if_not_armed(now);
        let buffered_at = self.apply_buffered_changes(key, &key_row, ctx);
        let rowtime = match input.row.0.get(self.spec.build_rowtime) {
            Some(Value::Int(ms)) => *ms,
            _ => return Err("the build row's row time is NULL".to_string()),
        };
        let keys = &mut self.backend.keys;
        let mut at = fresh(self.state.change_buffer.get(keys, key, &rowtime, now)).unwrap_or_default();
        at.push(input.clone());
        let n = at.len();
        self.state.change_buffer.put(keys, key, rowtime, at, now);
        if buffered_at != Some(self.current_build_wm) {
            self.state.buffered_at_wm.update(keys, key, self.current_build_wm, now);
        }
        Self::note(ctx, &key_row, || {
            format!(
                "buffered in build-change-buffer at row time {rowtime} ({n} there): applied once the build watermark \
                 reaches it"
            )
        });
        self.refresh_state_ttl(key, &key_row, ctx);
        Ok(())
    }

    fn handles_rowtime_watermarks(&self) -> bool {
        true
    }

    /// `processWatermark1` (probe) / `processWatermark2` (build).
    fn process_rowtime_watermark(
        &mut self,
        port: usize,
        watermark: Millis,
        ctx: &mut Context,
    ) -> Result<Option<Millis>, String> {
        if port == 0 {
            if ctx.tracing() {
                let what = match self.phase {
                    Phase::Load => "held back (LOAD phase)".to_string(),
                    Phase::Join => "due drain timers fire, then it is forwarded".to_string(),
                };
                ctx.record_unkeyed(|| TraceEvent::Watermark {
                    watermark_ms: watermark,
                    input: WatermarkInput::Probe,
                    what,
                });
            }
            let forward = if self.phase == Phase::Join { self.advance_probe_watermark(watermark, ctx)? } else { None };
            self.current_probe_wm = self.current_probe_wm.max(watermark);
            return Ok(forward);
        }
        self.current_build_wm = self.current_build_wm.max(watermark);
        let load = self.spec.load_completed_time;
        if ctx.tracing() {
            let what = match self.phase {
                Phase::Join => "build-side changes up to it become visible on the key's next access".to_string(),
                Phase::Load if self.current_build_wm >= load => format!(">= loadCompletedTime {load}: flip to JOIN"),
                Phase::Load => format!("< loadCompletedTime {load}: still LOAD"),
            };
            ctx.record_unkeyed(|| TraceEvent::Watermark {
                watermark_ms: watermark,
                input: WatermarkInput::Build,
                what,
            });
        }
        if self.phase == Phase::Load {
            if self.current_build_wm >= load {
                return self.transition_to_join_phase("BUILD_WATERMARK", ctx);
            }
            if let Some(t) = self.spec.load_completed_idle_timeout {
                self.idle_flip_timer = Some(ctx.now + t);
            }
        }
        Ok(None)
    }

    fn operator_timer(&self) -> Option<Millis> {
        self.idle_flip_timer
    }

    /// The idle-flip timer: `transitionToJoinPhase(IDLE_TIMEOUT)`.
    fn on_operator_timer(&mut self, _timestamp: Millis, ctx: &mut Context) -> Result<Option<Millis>, String> {
        self.idle_flip_timer = None;
        self.transition_to_join_phase("IDLE_TIMEOUT", ctx)
    }

    /// `onProcessingTime`: a key's TTL timer.
    fn on_timer(&mut self, timestamp: Millis, key: KeyId, ctx: &mut Context) -> Result<(), String> {
        let key_row = self.backend.keys.row(key).clone();
        ctx.record(&key_row, || TraceEvent::TimerFired { timer_ms: timestamp });
        let (min, max, now) = (self.min_state_ttl_ms, self.max_state_ttl_ms, ctx.now);
        if min == 0 {
            return Ok(());
        }
        let deadline = fresh(self.state.ttl_expiry.value(&mut self.backend.keys, key, now));
        if deadline != Some(timestamp) {
            ctx.record(&key_row, || TraceEvent::StaleTimerIgnored { timer_ms: timestamp, cleanup_ms: deadline });
            return Ok(());
        }
        let within_grace = self.flip_proc_time.is_some_and(|f| now < f + min);
        let draining = fresh(self.state.probe_buffer_seq.value(&mut self.backend.keys, key, now)).is_some();
        let rearm = match (self.phase, within_grace, draining) {
            (Phase::Load, _, _) => Some((now + max, "LOAD phase")),
            (_, true, _) => Some((self.flip_proc_time.unwrap_or(now) + max, "within the grace window after the flip")),
            (_, _, true) => Some((now + max, "probes still buffered")),
            _ => None,
        };
        if let Some((new, why)) = rearm {
            Self::note(ctx, &key_row, || format!("TTL timer deferred ({why}): re-armed"));
            if self.backend.register_processing_time_timer(key, new) {
                ctx.record(&key_row, || TraceEvent::TimerRegistered { timer_ms: new });
            }
            self.state.ttl_expiry.update(&mut self.backend.keys, key, new, now);
            return Ok(());
        }
        self.state.clear_all_per_key_state(&mut self.backend.keys, key);
        self.metrics.num_state_ttl_evictions += 1;
        ctx.record(&key_row, || TraceEvent::StateCleared {
            states: STATES,
            cause: ClearCause::CleanupTimer,
            reason: "TTL timer fired: clearAllPerKeyState(), numStateTtlEvictions + 1; nothing is emitted",
        });
        Ok(())
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }

    fn state_names(&self) -> Vec<&'static str> {
        STATES.to_vec()
    }

    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>> {
        self.state.cells(key, now)
    }

    /// The key's TTL timer (`ttl-expiry`), shown as its cleanup time.
    fn cleanup_time(&self, key: KeyId) -> Option<Millis> {
        self.state.ttl_expiry.peek(key).map(|v| v.user_value)
    }

    fn ttl_of(&self, _key: KeyId, _now: Millis) -> Option<crate::engine::view::TtlView> {
        None
    }

    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)> {
        self.state.sizes(now)
    }

    fn flink_metrics(&self) -> Vec<(&'static str, String)> {
        let m = &self.metrics;
        let wm = |v: Millis| if v == Millis::MIN { "Long.MIN_VALUE".to_string() } else { v.to_string() };
        let avg = if m.total_probe_joins == 0 { 0.0 } else { m.total_join_fan_out as f64 / m.total_probe_joins as f64 };
        vec![
            ("currentPhase", if self.phase == Phase::Load { "0" } else { "1" }.to_string()),
            ("currentBuildSideWatermark", wm(self.current_build_wm)),
            ("currentProbeSideWatermark", wm(self.current_probe_wm)),
            ("numProbeSideRecordsBuffered", m.probe_buffered.to_string()),
            ("numStateTtlEvictions", m.num_state_ttl_evictions.to_string()),
            ("numUnmatchedProbeRecords", m.num_unmatched_probe_records.to_string()),
            ("numUnmatchedBuildRetractions", m.num_unmatched_build_retractions.to_string()),
            ("maxJoinFanOut", m.max_join_fan_out.to_string()),
            ("avgJoinFanOut", format!("{avg}")),
        ]
    }
}
