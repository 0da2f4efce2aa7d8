//! Per-operator state TTL: an operator's own `"state_ttl"`, which replaces
//! `table.exec.state.ttl` for that operator alone. Flink has two ways to set it, read from the
//! source:
//!
//! - **The `STATE_TTL` query hint** (FLIP-373, Flink 1.19; `StateTtlHint`): `SELECT /*+
//!   STATE_TTL('t' = '1d') */ … FROM t GROUP BY …`, for regular joins and group aggregations
//!   only. On an aggregation the planner keeps the hint's values
//!   (`StateTtlHint.getStateTtlFromHintOnSingleRel`: the first, parsed with
//!   `TimeUtils.parseDuration(...).toMillis()`) and passes them to `StreamExecGroupAggregate` (or,
//!   two-phase, `StreamExecGlobalGroupAggregate`), whose `StateMetadata` then carries that TTL
//!   instead of `table.exec.state.ttl`. `EXPLAIN` prints it after the node's other terms,
//!   `stateTtlHints=[[[STATE_TTL options:[1d]]]]` (`StateTtlHintTest.xml`), the value as written.
//!   Here it is the `"state_ttl"` of a `GroupAggregate`.
//! - **The compiled plan's state metadata** (FLIP-292, Flink 1.18; `StateMetadata`): every
//!   stateful ExecNode that has a `"state": [{"index": 0, "ttl": "1 d", "name": "…"}]` entry
//!   (`groupAggregateState`, `rankState`, `deduplicateState`, …) can be given its own TTL by
//!   editing the JSON of `COMPILE PLAN` and running it with `EXECUTE PLAN`. `EXPLAIN` does not
//!   show it. Here it is the `"state_ttl"` of a `Rank` or `Deduplicate`, which have no hint, and
//!   of a `GroupAggregate` with `"state_ttl_from": "compiled_plan"` (what importing a compiled
//!   plan writes, [`crate::engine::compiled_plan`]).
//!
//! Either way the runtime sees one number: `StateMetadata.getStateTtlForOneInputOperator` returns
//! the node's metadata TTL when there is one, `table.exec.state.ttl` otherwise
//! ([`effective_retention`]); 0 means the operator's state never expires. An OVER aggregation has
//! neither (`StreamExecOverAggregate` keeps no state metadata and reads
//! `config.getStateRetentionTime()`), so its state always lives for `table.exec.state.ttl`.

use super::CompileInput;
use crate::engine::error::ScenarioError;
use crate::engine::format::DurationValue;
use crate::engine::options::{FlinkMode, Retention};
use crate::engine::time::{format_duration, Millis};
use serde::{Deserialize, Deserializer};

/// `"state_ttl"` as written: a duration in Flink's syntax (`"1 d"`, `"1d"`, `"12 h"`) or a
/// number of milliseconds, kept with its text (the plan shows the hint as written).
#[derive(Debug, Clone)]
pub(super) struct RawOperatorTtl {
    text: String,
    ms: Millis,
}

impl schemars::JsonSchema for RawOperatorTtl {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "OperatorTtl".into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = DurationValue::json_schema(generator);
        schema.insert(
            "description".into(),
            "This operator's own state TTL, replacing table.exec.state.ttl for it (0: never expires): the \
             STATE_TTL hint on a GroupAggregate, a compiled plan's TTL on Rank and Deduplicate (Flink 2.3 only)."
                .into(),
        );
        schema
    }
}

impl<'de> Deserialize<'de> for RawOperatorTtl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        let text = match &value {
            // Java's `String.trim()`, as `TimeUtils.parseDuration` reads it.
            serde_json::Value::String(s) => s.trim_matches(|c: char| c <= ' ').to_string(),
            other => other.to_string(),
        };
        let DurationValue(ms) = DurationValue::deserialize(value).map_err(serde::de::Error::custom)?;
        Ok(RawOperatorTtl { text, ms })
    }
}

/// How Flink gives the operator its own TTL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TtlSource {
    /// `/*+ STATE_TTL('input' = '…') */` on a group aggregation (Flink 1.19+).
    Hint,
    /// The `ttl` of the node's state metadata in a compiled plan (Flink 1.18+).
    CompiledPlan,
}

/// An operator's own state TTL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorStateTtl {
    /// In ms; 0 = the operator's state never expires.
    pub ms: Millis,
    /// The duration as written (the hint's option value).
    pub written: String,
    pub source: TtlSource,
}

impl OperatorStateTtl {
    /// The `STATE_TTL` hint of a group aggregation: Flink 1.19+ only.
    ///
    /// # Errors
    /// On a Flink version without the hint, naming the version that brought it.
    pub(super) fn hint(raw: Option<RawOperatorTtl>, input: &CompileInput) -> Result<Option<Self>, ScenarioError> {
        let Some(raw) = raw else { return Ok(None) };
        if !input.flink.has_2_3_operators() {
            let before = if input.flink == FlinkMode::Flink1_12 {
                "of Flink 1.12 – 1.18 only 1.18 can give one operator its own TTL, by editing the JSON of a \
                 compiled plan (FLIP-292), which this version span does not model"
                    .to_string()
            } else {
                format!("the {} has one retention for the whole query", input.flink.label())
            };
            return Err(ScenarioError::new(
                format!("{}.state_ttl", input.path),
                format!(
                    "the STATE_TTL hint (a TTL of its own for a regular join or group aggregation) came with \
                     Flink 1.19 (FLIP-373); {before} (use \"flink\": \"2.3\")"
                ),
            ));
        }
        Ok(Some(OperatorStateTtl { ms: raw.ms, written: raw.text, source: TtlSource::Hint }))
    }

    /// The compiled plan's `ttl` (`Rank`, `Deduplicate`, an imported `GroupAggregate`): Flink 1.18+,
    /// modelled with Flink 2.3 (`operator` names the node for the message).
    ///
    /// # Errors
    /// On another Flink version.
    pub(super) fn compiled_plan(
        raw: Option<RawOperatorTtl>,
        input: &CompileInput,
        operator: &str,
    ) -> Result<Option<Self>, ScenarioError> {
        let Some(raw) = raw else { return Ok(None) };
        if !input.flink.has_2_3_operators() {
            return Err(ScenarioError::new(
                format!("{}.state_ttl", input.path),
                format!(
                    "a {operator} gets a TTL of its own only from the state metadata of a compiled plan \
                     (FLIP-292, Flink 1.18+), modelled with Flink 2.3; the {} has one retention for the whole \
                     query (use \"flink\": \"2.3\")",
                    input.flink.label()
                ),
            ));
        }
        Ok(Some(OperatorStateTtl { ms: raw.ms, written: raw.text, source: TtlSource::CompiledPlan }))
    }

    /// The term `EXPLAIN` adds for a hint, `stateTtlHints=[[[STATE_TTL options:[1d]]]]`
    /// (`RelExplainUtil.hintsToString`); a compiled plan's TTL shows nowhere in `EXPLAIN`.
    pub fn explain(&self) -> Option<String> {
        (self.source == TtlSource::Hint).then(|| format!("stateTtlHints=[[[STATE_TTL options:[{}]]]]", self.written))
    }

    /// For people: `STATE_TTL hint 1 d` / `compiled-plan TTL 0 ms (never expires)`.
    pub fn describe(&self) -> String {
        let how = match self.source {
            TtlSource::Hint => "STATE_TTL hint",
            TtlSource::CompiledPlan => "compiled-plan state TTL",
        };
        let never = if self.ms == 0 { " (never expires)" } else { "" };
        format!("{how} {}{never}", format_duration(self.ms))
    }
}

/// `StateMetadata.getStateTtlForOneInputOperator` (Flink 1.18+): the operator's own TTL when it
/// has one, else the scenario's `table.exec.state.ttl`. The modes with idle state retention have
/// no per-operator TTL (compilation refuses it there), so their retention stays as it is.
pub fn effective_retention(scenario: Retention, own: Option<&OperatorStateTtl>) -> Retention {
    match (scenario, own) {
        (Retention::StateTtl(_), Some(own)) => Retention::StateTtl(own.ms),
        (retention, _) => retention,
    }
}

/// Why an OVER aggregation cannot have a TTL of its own.
pub(super) fn over_refusal() -> &'static str {
    "Flink gives an OVER aggregation no TTL of its own: the STATE_TTL hint applies to regular joins and group \
     aggregations only (FLIP-373), and StreamExecOverAggregate has no state metadata for a compiled plan to \
     edit (FLIP-292); its state lives for table.exec.state.ttl (the scenario's state_ttl)"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(json: &str) -> Result<RawOperatorTtl, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn reads_flink_durations_and_keeps_the_text() {
        let r = raw("\"2d\"").unwrap();
        assert_eq!((r.ms, r.text.as_str()), (172_800_000, "2d"));
        let r = raw("\" 12 h \"").unwrap();
        assert_eq!((r.ms, r.text.as_str()), (43_200_000, "12 h"));
        let r = raw("86400000").unwrap();
        assert_eq!((r.ms, r.text.as_str()), (86_400_000, "86400000"));
        let r = raw("\"0\"").unwrap();
        assert_eq!(r.ms, 0);
        assert_eq!(
            raw("\"-1 d\"").unwrap_err().to_string(),
            "text does not start with a number ('-1 d': a duration is never negative)"
        );
        assert_eq!(raw("\"\"").unwrap_err().to_string(), "argument is an empty- or whitespace-only string");
    }

    #[test]
    fn hint_is_explained_as_flink_prints_it() {
        let t = OperatorStateTtl { ms: 172_800_000, written: "2d".into(), source: TtlSource::Hint };
        assert_eq!(t.explain().as_deref(), Some("stateTtlHints=[[[STATE_TTL options:[2d]]]]"));
        assert_eq!(t.describe(), "STATE_TTL hint 2 d");
        let c = OperatorStateTtl { ms: 0, written: "0 ms".into(), source: TtlSource::CompiledPlan };
        assert_eq!(c.explain(), None);
        assert_eq!(c.describe(), "compiled-plan state TTL 0 ms (never expires)");
    }

    #[test]
    fn the_operators_ttl_replaces_the_scenarios() {
        let own = OperatorStateTtl { ms: 5, written: "5".into(), source: TtlSource::Hint };
        let never = OperatorStateTtl { ms: 0, written: "0".into(), source: TtlSource::Hint };
        assert_eq!(effective_retention(Retention::StateTtl(0), Some(&own)), Retention::StateTtl(5));
        assert_eq!(effective_retention(Retention::StateTtl(9), Some(&never)), Retention::StateTtl(0));
        assert_eq!(effective_retention(Retention::StateTtl(9), None), Retention::StateTtl(9));
    }
}
