//! The trace: everything the engine did, in order, with the reason. The page, the CLI
//! (`--format text|jsonl`) and the tests all read it.
//!
//! Recording an event copies no text: messages and keys share their values (`Rc`), reasons are
//! static, and explanations are formatted only when read ([`TraceEvent::describe`]). At the
//! [`TraceLevel::Metrics`] level nothing is recorded at all.

use super::cleanup_state::CleanupDecision;
use super::row::{Message, Row};
use super::time::{Millis, TimeFormat};
use serde::Serialize;
use std::rc::Rc;

/// How much the engine records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceLevel {
    /// Every decision, message and timer: what stepping through a scenario shows.
    #[default]
    Full,
    /// No per-event trace: only the metrics series (memory follows keys, not events).
    Metrics,
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceEvent {
    /// A scenario row entered the pipeline (`op` is the source's name).
    Input {
        message: Message,
    },
    /// An operator received a message for the key (`processElement`).
    Received {
        message: Message,
    },
    /// The cleanup-timer rule ran for a record (`CleanupState.registerProcessingCleanupTimer`).
    Decision(CleanupDecision),
    TimerRegistered {
        timer_ms: Millis,
    },
    TimerDeleted {
        timer_ms: Millis,
    },
    TimerFired {
        timer_ms: Millis,
    },
    /// Keyed state was cleared, for `cause`. `states` names the cleared states as Flink names them.
    StateCleared {
        states: &'static [&'static str],
        cause: ClearCause,
        reason: &'static str,
    },
    /// A read found the key's state expired by TTL (`lastAccess + ttl <= now`) and removed it.
    StateExpired {
        state: &'static str,
        last_access_ms: Millis,
        expired_at_ms: Millis,
    },
    /// State TTL's background cleanup (`TtlIncrementalCleanup`, heap backend) removed the key's
    /// expired entry while the operator accessed that state for some key: no read of this key
    /// saw it expired (a later read finds nothing).
    StateCleanedUp {
        state: &'static str,
        last_access_ms: Millis,
        expired_at_ms: Millis,
    },
    /// The operator emitted a changelog message downstream.
    Emitted {
        message: Message,
    },
    /// The operator ignored an input message (e.g. a retraction for a key without state).
    Dropped {
        message: Message,
        reason: &'static str,
    },
    /// The operator computed a result equal to the previous one (`row`) and emitted nothing.
    Suppressed {
        reason: &'static str,
        row: Row,
    },
    /// The result table could not apply a retraction: it holds no such row.
    ResultMissingRow {
        message: Message,
    },
    /// A cleanup timer fired that is not the key's stored cleanup time `cleanup_ms` (Flink ≤ 1.7
    /// left old timers registered): `needToCleanupState(timestamp)` is false, nothing happens.
    StaleTimerIgnored {
        timer_ms: Millis,
        cleanup_ms: Option<Millis>,
    },
    /// Processing `message`, the operator met state that TTL had removed while another of its
    /// states still refers to it; Flink logs `warning` and goes on without it
    /// (`table.exec.state-stale.error-handling` = `CONTINUE_WITHOUT_LOGGING`, the default).
    StateStale {
        message: Message,
        warning: &'static str,
    },
    /// A mini-batch operator buffered the message in its bundle (`MapBundleFunction.addInput`):
    /// no state is read and nothing is emitted until the bundle is finished. `elements`: the
    /// records in the bundle now.
    Buffered {
        message: Message,
        bundle: &'static str,
        elements: u64,
    },
    /// The local phase of a two-phase aggregation handed the key's accumulator (`accumulators`,
    /// for people) to the global phase, which merged it into its bundle (`addInput` → `merge`).
    PartialMerged {
        accumulators: String,
        elements: u64,
    },
    /// A window's trigger returned `FIRE` or `FIRE_AND_PURGE` (`TriggerResult`, Flink's
    /// `WindowOperator`): the window function ran over `elements` rows of the window's contents
    /// (none: the window was empty and nothing was emitted); with `purge` the contents were then
    /// cleared.
    WindowTriggered {
        by: WindowTrigger,
        purge: bool,
        elements: u64,
    },
    /// A mini-batch bundle was finished (`finishBundle`): its keys are handled in the bundle's
    /// `HashMap` order, each folding its buffered input into its state at once.
    BundleFinished {
        bundle: &'static str,
        trigger: BundleTrigger,
        elements: u64,
        keys: u64,
    },
    /// An event-time watermark reached an operator that acts on it (`processWatermark1/2`):
    /// `what` it did, for people.
    Watermark {
        watermark_ms: Millis,
        input: WatermarkInput,
        what: String,
    },
    /// An operator-wide event without a key, `what` for people (a `LATERAL SNAPSHOT` join's
    /// flip from LOAD to JOIN).
    OperatorEvent {
        what: String,
    },
    /// What the operator did with the key's record, for people (a `LATERAL SNAPSHOT` join
    /// buffering a probe or a build change, applying buffered changes).
    Note {
        what: String,
    },
}

/// Which input of an operator an event-time watermark came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatermarkInput {
    /// A `LATERAL SNAPSHOT` join's left input (`processWatermark1`).
    Probe,
    /// Its right input (`processWatermark2`).
    Build,
}

/// What made a window's trigger fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowTrigger {
    /// The element count reached `max_count` (`StateCleaningCountTrigger.onElement`).
    Count { max_count: u64 },
    /// The idle-state-retention cleanup timer fired (`StateCleaningCountTrigger.onProcessingTime`).
    CleanupTimer,
}

/// Why a mini-batch bundle was finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleTrigger {
    /// `CountBundleTrigger`: the bundle reached `table.exec.mini-batch.size` records.
    Count { size: u64 },
    /// A mini-batch watermark arrived (`processWatermark`): `ProcTimeMiniBatchAssignerOperator`
    /// ended the `allow-latency` interval at processing time `watermark_ms`.
    Watermark { watermark_ms: Millis },
}

impl TraceEvent {
    /// The `what` of the JSONL format.
    pub fn what(&self) -> &'static str {
        match self {
            TraceEvent::Input { .. } => "input",
            TraceEvent::Received { .. } => "received",
            TraceEvent::Decision(_) => "decision",
            TraceEvent::TimerRegistered { .. } => "timer_registered",
            TraceEvent::TimerDeleted { .. } => "timer_deleted",
            TraceEvent::TimerFired { .. } => "timer_fired",
            TraceEvent::StateCleared { .. } => "state_cleared",
            TraceEvent::StateExpired { .. } => "state_expired",
            TraceEvent::StateCleanedUp { .. } => "state_cleaned_up",
            TraceEvent::Emitted { .. } => "emitted",
            TraceEvent::Dropped { .. } => "dropped",
            TraceEvent::Suppressed { .. } => "suppressed",
            TraceEvent::ResultMissingRow { .. } => "result_missing_row",
            TraceEvent::StateStale { .. } => "state_stale",
            TraceEvent::StaleTimerIgnored { .. } => "stale_timer_ignored",
            TraceEvent::Buffered { .. } => "buffered",
            TraceEvent::PartialMerged { .. } => "partial_merged",
            TraceEvent::BundleFinished { .. } => "bundle_finished",
            TraceEvent::WindowTriggered { .. } => "window_triggered",
            TraceEvent::Watermark { .. } => "watermark",
            TraceEvent::OperatorEvent { .. } => "operator_event",
            TraceEvent::Note { .. } => "note",
        }
    }

    /// The message the event carries, if any.
    pub fn message(&self) -> Option<&Message> {
        match self {
            TraceEvent::Input { message }
            | TraceEvent::Received { message }
            | TraceEvent::Emitted { message }
            | TraceEvent::Dropped { message, .. }
            | TraceEvent::ResultMissingRow { message }
            | TraceEvent::StateStale { message, .. }
            | TraceEvent::Buffered { message, .. } => Some(message),
            _ => None,
        }
    }

    /// The timer the event is about, if any.
    pub fn timer_ms(&self) -> Option<Millis> {
        match self {
            TraceEvent::TimerRegistered { timer_ms }
            | TraceEvent::TimerDeleted { timer_ms }
            | TraceEvent::TimerFired { timer_ms } => Some(*timer_ms),
            _ => None,
        }
    }

    /// A one-line explanation with the numbers, e.g. the cleanup rule's comparison.
    pub fn describe(&self, tf: TimeFormat) -> String {
        match self {
            TraceEvent::Input { message } => format!("input {message}"),
            TraceEvent::Received { message } => format!("received {message}"),
            TraceEvent::Decision(d) => d.describe(tf),
            TraceEvent::TimerRegistered { timer_ms } => format!("timer registered for {}", tf.format(*timer_ms)),
            TraceEvent::TimerDeleted { timer_ms } => format!("timer deleted for {}", tf.format(*timer_ms)),
            TraceEvent::TimerFired { timer_ms } => format!("timer fired for {}", tf.format(*timer_ms)),
            TraceEvent::StateCleared { states, reason, .. } => {
                format!("state cleared ({}): {reason}", states.join(", "))
            }
            TraceEvent::StateExpired { state, last_access_ms, expired_at_ms } => format!(
                "{state} expired: last access {} + ttl = {} <= now → removed on read, the key starts empty",
                tf.format(*last_access_ms),
                tf.format(*expired_at_ms)
            ),
            TraceEvent::StateCleanedUp { state, last_access_ms, expired_at_ms } => format!(
                "{state} expired: last access {} + ttl = {} <= now → removed by the incremental cleanup \
                 (TtlIncrementalCleanup: up to 5 entries per access to the state, heap backend)",
                tf.format(*last_access_ms),
                tf.format(*expired_at_ms)
            ),
            TraceEvent::Emitted { message } => format!("emitted {message}"),
            TraceEvent::Dropped { message, reason } => format!("dropped {message}: {reason}"),
            TraceEvent::Suppressed { reason, row } => format!("nothing emitted: {reason} [{}]", row.join(", ")),
            TraceEvent::ResultMissingRow { message } => {
                format!("result table holds no row for {message}: the retraction retracts nothing")
            }
            TraceEvent::StaleTimerIgnored { timer_ms, cleanup_ms } => match cleanup_ms {
                Some(c) => format!(
                    "stale cleanup timer {} ignored: needToCleanupState is false (the key's cleanup time is {})",
                    tf.format(*timer_ms),
                    tf.format(*c)
                ),
                None => format!("stale cleanup timer {} ignored: the key has no cleanup time", tf.format(*timer_ms)),
            },
            TraceEvent::StateStale { message, warning } => format!("stale state for {message}, skipped: {warning}"),
            TraceEvent::Buffered { message, bundle, elements } => {
                format!("buffered {message} in the {bundle} ({elements} records buffered): handled when the bundle is finished")
            }
            TraceEvent::PartialMerged { accumulators, elements } => format!(
                "local phase sent its accumulator ({accumulators}); merged into the global bundle ({elements} records buffered)"
            ),
            TraceEvent::BundleFinished { bundle, trigger, elements, keys } => {
                let why = match trigger {
                    BundleTrigger::Count { size } => {
                        format!("the count trigger reached table.exec.mini-batch.size = {size}")
                    }
                    BundleTrigger::Watermark { watermark_ms } => format!(
                        "mini-batch watermark {}: the allow-latency interval ended",
                        tf.format(*watermark_ms)
                    ),
                };
                format!("{bundle} finished ({elements} records, {keys} keys, in HashMap order): {why}")
            }
            TraceEvent::WindowTriggered { by, purge, elements } => {
                let why = match by {
                    WindowTrigger::Count { max_count } => format!("the count reached {max_count}"),
                    WindowTrigger::CleanupTimer => "the cleanup timer fired".to_string(),
                };
                let result = if *purge { "FIRE_AND_PURGE" } else { "FIRE" };
                let ran = match elements {
                    0 => "the window is empty: nothing is emitted".to_string(),
                    1 => "the window function runs over 1 element".to_string(),
                    n => format!("the window function runs over {n} elements"),
                };
                let then = if *purge { ", then the window contents are purged" } else { "" };
                format!("trigger {result} ({why}): {ran}{then}")
            }
            TraceEvent::Watermark { watermark_ms, input, what } => {
                let side = match input {
                    WatermarkInput::Probe => "probe",
                    WatermarkInput::Build => "build",
                };
                format!("{side}-side watermark {}: {what}", tf.format(*watermark_ms))
            }
            TraceEvent::OperatorEvent { what } | TraceEvent::Note { what } => what.clone(),
        }
    }
}

/// Why keyed state was cleared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClearCause {
    /// The idle-state-retention cleanup timer fired: the state is lost without any message
    /// downstream, so rows it produced are never retracted.
    CleanupTimer,
    /// The record count reached 0: the operator emitted the delete / retraction itself.
    CountZero,
    /// The key's row was deleted (`ChangelogNormalize` on a `-D`): the operator emitted the `-D`
    /// with the stored row, then cleared it.
    RowDeleted,
    /// A window fired and was purged (`FIRE_AND_PURGE`): its contents went downstream as the
    /// window's result before they were cleared.
    WindowPurged,
}

/// One trace entry: when (processing time, ms), where (operator id, key) and what.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceEntry {
    /// Index of the driving action (a scenario step or a time advance) that caused it.
    pub action: usize,
    /// Processing time in ms when it happened.
    pub time_ms: Millis,
    /// Operator id, the source's name for inputs, or `result` for the result table.
    pub op: Rc<str>,
    /// The grouping key, for keyed events.
    pub key: Option<Row>,
    pub event: TraceEvent,
}

/// The JSONL form of a trace entry (`flink-state-sim run --format jsonl`).
#[derive(Debug, Serialize)]
pub struct TraceRecord<'a> {
    pub time_ms: Millis,
    pub op: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub what: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timer_ms: Option<Millis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<&'a Row>,
    pub detail: String,
}

impl TraceEntry {
    /// The key as text: its values joined by `", "` (empty for a global aggregation).
    pub fn key_text(&self) -> Option<String> {
        self.key.as_ref().map(|k| k.join(", "))
    }

    /// The key for people ([`Row::key_label`]).
    pub fn key_label(&self) -> Option<String> {
        self.key.as_ref().map(Row::key_label)
    }

    /// The JSONL record of this entry.
    pub fn record(&self, tf: TimeFormat) -> TraceRecord<'_> {
        let message = self.event.message();
        TraceRecord {
            time_ms: self.time_ms,
            op: &self.op,
            key: self.key_text(),
            what: self.event.what(),
            timer_ms: self.event.timer_ms(),
            kind: message.map(|m| m.change.label()),
            row: message.map(|m| &m.row),
            detail: self.event.describe(tf),
        }
    }

    /// One line of the CLI's text format:
    /// `2019-11-20 15:00  agg  key=u1  no cleanup time C yet → register ...`.
    pub fn text_line(&self, tf: TimeFormat) -> String {
        let key = self.key_label().map(|k| format!("  key={k}")).unwrap_or_default();
        format!("{}  {}{}  {}", tf.format(self.time_ms), self.op, key, self.event.describe(tf))
    }
}
