//! The options the operators run with, read by the scenario format and by the operators alike:
//! which Flink ([`FlinkMode`]), how state is retained ([`Retention`]), the keyed-state backend
//! ([`StateBackend`]), mini-batch ([`MiniBatch`]) and the aggregation phases
//! ([`AggPhaseStrategy`]). Their home is here so the scenario format and the operators need not
//! import each other.

mod flink_mode;
pub use flink_mode::FlinkMode;

use crate::engine::error::ScenarioError;
use crate::engine::format::any_ascii_case;
use crate::engine::idle_state_retention::IdleStateRetention;
use crate::engine::time::Millis;
use serde::Deserialize;

/// The keyed-state backend, as Flink's `state.backend.type` names it (Flink 2.x). Only operators
/// whose observable behaviour depends on it read it: on the heap (`hashmap`) a `ValueState` keeps
/// the very object the operator wrote, on RocksDB it keeps the bytes serialized at `update()`
/// (see `ProcTimeDeduplicateKeepLastRowFunction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(try_from = "String")]
pub enum StateBackend {
    /// `hashmap` (`HashMapStateBackend`), Flink's default: objects on the JVM heap.
    #[default]
    HashMap,
    /// `rocksdb` (`EmbeddedRocksDBStateBackend`): serialized bytes.
    RocksDb,
}

impl StateBackend {
    /// The names of the modelled backends.
    const NAMES: [&'static str; 2] = ["hashmap", "rocksdb"];
}

impl TryFrom<String> for StateBackend {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        match text.as_str() {
            "hashmap" => Ok(StateBackend::HashMap),
            "rocksdb" => Ok(StateBackend::RocksDb),
            "forst" => Err("'forst' (ForSt, the disaggregated state backend of Flink 2.x with asynchronous \
                            state V2) is not modelled: use `hashmap` or `rocksdb`"
                .into()),
            other => Err(crate::engine::error::unknown_variant(other, &StateBackend::NAMES)),
        }
    }
}

impl schemars::JsonSchema for StateBackend {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StateBackend".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": StateBackend::NAMES })
    }
}

/// How the scenario's operators retain state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retention {
    /// Legacy idle state retention (`TableConfig.setIdleStateRetentionTime(min, max)`).
    IdleState(IdleStateRetention),
    /// `table.exec.state.ttl` in ms (0 = never expire).
    StateTtl(Millis),
}

/// Mini-batch settings (`table.exec.mini-batch.*`), present when `table.exec.mini-batch.enabled`
/// is `true`; validated as Flink's planner validates them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MiniBatch {
    /// `table.exec.mini-batch.allow-latency` (> 0): the interval of
    /// `ProcTimeMiniBatchAssignerOperator`, whose watermarks finish every bundle.
    pub allow_latency_ms: Millis,
    /// `table.exec.mini-batch.size` (default -1): `CountBundleTrigger`'s `maxCount`. Flink checks
    /// it is > 0 only when it plans an operator that bundles (`AggregateUtil.createMiniBatchTrigger`),
    /// so the operators check it ([`MiniBatch::trigger_size`]).
    pub size: i64,
}

impl MiniBatch {
    /// `AggregateUtil.createMiniBatchTrigger` (Flink 2.3): the count trigger's size.
    ///
    /// # Errors
    /// Flink's `IllegalArgumentException` message (`ConfigOption.toString()` + `" must be > 0."`)
    /// when the size is not positive.
    pub fn trigger_size(&self) -> Result<u64, ScenarioError> {
        u64::try_from(self.size).ok().filter(|&s| s > 0).ok_or_else(|| {
            ScenarioError::new(
                "mini_batch.size",
                "Key: 'table.exec.mini-batch.size' , default: -1 (fallback keys: []) must be > 0.",
            )
        })
    }
}

/// `table.optimizer.agg-phase-strategy` (`AggregatePhaseStrategy`): in streaming mode only
/// `ONE_PHASE` differs, turning the two-phase (local/global) aggregation off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AggPhaseStrategy {
    #[default]
    Auto,
    OnePhase,
    TwoPhase,
}

impl AggPhaseStrategy {
    pub const ALL: [(&'static str, AggPhaseStrategy); 3] = [
        ("AUTO", AggPhaseStrategy::Auto),
        ("ONE_PHASE", AggPhaseStrategy::OnePhase),
        ("TWO_PHASE", AggPhaseStrategy::TwoPhase),
    ];

    /// Flink's name.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(_, s)| *s == self).map_or("AUTO", |(n, _)| n)
    }

    /// Parses Flink's name, ignoring case as Flink's enum options do (`ConfigurationUtils.convertToEnum`).
    pub fn parse(text: &str) -> Option<AggPhaseStrategy> {
        Self::ALL.iter().find(|(n, _)| n.eq_ignore_ascii_case(text)).map(|(_, s)| *s)
    }

    /// The JSON Schema of what [`AggPhaseStrategy::parse`] accepts (or `null`, the default).
    pub(crate) fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<String> = Self::ALL.iter().map(|(n, _)| any_ascii_case(n)).collect();
        schemars::json_schema!({
            "type": ["string", "null"],
            "pattern": format!("^({})$", names.join("|")),
            "examples": Self::ALL.iter().map(|(n, _)| *n).collect::<Vec<_>>()
        })
    }
}
