//! The `LateralSnapshotJoin` operator of the scenario format: Flink's `LATERAL SNAPSHOT` join
//! (FLIP-579, apache/flink main, unreleased 2.4), `StreamPhysicalLateralSnapshotJoin` /
//! `StreamExecLateralSnapshotJoin`, run by [`super::lateral_snapshot_join_operator`].
//!
//! ```sql
//! FROM probe [LEFT] JOIN LATERAL SNAPSHOT(input => TABLE build, on_time => DESCRIPTOR(ts),
//!     load_completed_time => …, load_completed_idle_timeout => …, state_ttl => …) AS s ON probe.k = s.k
//! ```
//!
//! is written `{"operator": "LateralSnapshotJoin", "left": "probe", "right": "build",
//! "join_type": "LEFT", "on": [["k", "k"]], "load_completed_time": 1000, "state_ttl": "10 s"}`.
//! The planner's rules (read in apache/flink's planner sources and tests as stored in the search
//! index; which commit of main they are is not verifiable here):
//!
//! - the probe (left) input must be append-only, INNER and LEFT are the only join types, and at
//!   least one equality of a left and a right column is needed (the three messages below are
//!   Flink's; of the first only the part the planner test asserts is verified, `: … produces them`
//!   is the simulator's);
//! - the build (right) input needs a watermarked event-time attribute (`on_time`), any changelog;
//!   here it must be a source with a `watermark` read directly (a row-time attribute is not
//!   tracked through other operators);
//! - `state_ttl` defaults to `table.exec.state.ttl` (`StreamExecLateralSnapshotJoin`:
//!   `stateTtlMs != null ? stateTtlMs : config.getStateRetentionTime()`);
//! - `load_completed_time` defaults in Flink to the wall-clock time at compile
//!   (`loadCompletedCondition=[compile_time]`), which a simulation has no counterpart for: the
//!   scenario must give it;
//! - the output is append-only, keyed like the inputs by the equi-join keys.
//!
//! **Plan text** (`explainTerms`: `CommonPhysicalJoin`'s terms, then the operator's):
//! `LateralSnapshotJoin(joinType=[InnerJoin], where=[=(pk, bk)], select=[…],
//! loadCompletedCondition=[user_time], loadCompletedTime=[<ms>], loadCompletedIdleTimeout=[<n>
//! ms], stateTtl=[<n> ms])`, the last two only when given (`stateTtl` the operator's own value,
//! not the `table.exec.state.ttl` fallback). Unverified: no stored plan shows the whole line; the
//! `user_time` value comes from the earlier `load_completed_condition` argument; the execution
//! plan is assumed to print the same terms with the condition in infix form.

use super::join::{equi_condition, full_condition, EquiCondition, JoinType};
use super::lateral_snapshot_join_operator::LateralSnapshotJoinOperator;
use crate::engine::error::{quote, ScenarioError};
use crate::engine::expr::Expr;
use crate::engine::format::{parse_part, DurationValue, TimeValue};
use crate::engine::operators::{CompileInput, Distribution, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::options::{FlinkMode, Retention};
use crate::engine::row::{Column, DataType};
use crate::engine::time::{format_duration, Millis};
use schemars::JsonSchema;
use serde::Deserialize;
use std::rc::Rc;

pub const KIND: OperatorKind = OperatorKind::two_input::<RawLateralSnapshotJoin>("LateralSnapshotJoin", compile);

/// A `LATERAL SNAPSHOT` join of its `left` (probe) input against the snapshot of its `right`
/// (build) input (Flink main, unreleased 2.4: `"flink": "main"`).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a LateralSnapshotJoin object")]
struct RawLateralSnapshotJoin {
    /// The operator's kind.
    #[allow(dead_code)]
    operator: String,
    /// The operator's name.
    #[allow(dead_code)]
    id: String,
    /// `INNER` or `LEFT`.
    join_type: String,
    /// The equality conditions, each `[left column, right column]` (the join key).
    on: Vec<(String, String)>,
    /// A further condition over the joined columns (left's, then right's as the output names them).
    #[serde(default, rename = "where")]
    condition: Option<String>,
    /// `on_time`: the build input's row-time column, `DESCRIPTOR(column)` in SQL; when given, it
    /// must be the column the build source's watermark is on.
    #[serde(default)]
    on_time: Option<String>,
    /// `load_completed_time`: the build-side watermark at which the LOAD phase ends (ms or a
    /// date-time, on the row-time column's clock).
    load_completed_time: TimeValue,
    /// `load_completed_idle_timeout`: LOAD also ends after this much processing time without a
    /// build-side watermark advance (counted from the first build-side record or watermark).
    #[serde(default)]
    load_completed_idle_timeout: Option<DurationValue>,
    /// `state_ttl`: a key's state is evicted between 1× and 1.5× this after its last record (JOIN
    /// phase); default `table.exec.state.ttl`.
    #[serde(default)]
    state_ttl: Option<DurationValue>,
}

/// A validated `LATERAL SNAPSHOT` join.
#[derive(Debug, Clone)]
pub struct LateralSnapshotJoinSpec {
    pub left_outer: bool,
    pub left_keys: Vec<usize>,
    pub right_keys: Vec<usize>,
    /// The further (non-equi) condition over the joined row.
    pub condition: Option<Expr>,
    pub right_width: usize,
    /// The build row's row-time column (`buildRowtimeIndex`).
    pub build_rowtime: usize,
    pub load_completed_time: Millis,
    pub load_completed_idle_timeout: Option<Millis>,
    /// The operator's own `state_ttl`, if given.
    pub state_ttl: Option<Millis>,
    right_types: Vec<DataType>,
    right_names: Vec<String>,
    output_columns: Vec<Column>,
    where_rex: String,
    where_infix: String,
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawLateralSnapshotJoin = parse_part(raw, input.path)?;
    let path = input.path;
    let Some(right) = input.right else {
        return Err(ScenarioError::new(path, "a LateralSnapshotJoin reads two inputs: name them with left and right"));
    };
    if !input.flink.has_lateral_snapshot_join() {
        return Err(ScenarioError::new(
            format!("{path}.operator"),
            format!(
                "the LATERAL SNAPSHOT join (FLIP-579, LateralSnapshotJoinOperator) is only on apache/flink's main \
                 branch (unreleased 2.4): {} has none; run the scenario with \"flink\": \"main\"",
                input.flink.label()
            ),
        ));
    }
    let join_type = JoinType::ALL
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(op.join_type.trim()))
        .map(|&(_, t)| t)
        .ok_or_else(|| {
            ScenarioError::new(format!("{path}.join_type"), format!("{} is not INNER or LEFT", quote(&op.join_type)))
        })?;
    let left_outer = match join_type {
        JoinType::Inner => false,
        JoinType::Left => true,
        other => {
            let written = match other {
                JoinType::Right => "RIGHT",
                JoinType::Full => "FULL",
                JoinType::Semi => "SEMI",
                _ => "ANTI",
            };
            return Err(ScenarioError::new(
                format!("{path}.join_type"),
                format!("LATERAL SNAPSHOT join only supports INNER JOIN and LEFT OUTER JOIN, but was {written} JOIN."),
            ));
        }
    };
    if op.on.is_empty() {
        return Err(ScenarioError::new(
            format!("{path}.on"),
            "LATERAL SNAPSHOT join requires at least one equality predicate.",
        ));
    }
    if input.retracts {
        return Err(ScenarioError::new(
            format!("{path}.left"),
            format!(
                "The probe (left) input of LATERAL SNAPSHOT join doesn't support consuming update and delete changes: \
                 {} produces them",
                input.changes_from
            ),
        ));
    }
    let Some(build_rowtime) = right.rowtime else {
        return Err(ScenarioError::new(
            format!("{path}.right"),
            format!(
                "the build (right) input of a LATERAL SNAPSHOT join needs an event-time attribute with a watermark \
                 (on_time => DESCRIPTOR(…)): {} has none (declare a \"watermark\" on the source and read it directly)",
                right.input_name
            ),
        ));
    };
    if let Some(on_time) = &op.on_time {
        let attribute = &right.columns[build_rowtime].name;
        if on_time != attribute {
            return Err(ScenarioError::new(
                format!("{path}.on_time"),
                format!(
                    "{} is not an event-time attribute of {}: its watermark is on {} (on_time => DESCRIPTOR({}))",
                    quote(on_time),
                    right.input_name,
                    quote(attribute),
                    attribute
                ),
            ));
        }
    }
    let EquiCondition { left_keys, right_keys, joined, condition } =
        equi_condition(&op.on, op.condition.as_deref(), &input, right, path)?;
    if op.load_completed_time.ms < 0 {
        return Err(ScenarioError::new(
            format!("{path}.load_completed_time"),
            "loadCompletedTime must be non-negative",
        ));
    }
    let width = input.columns.len();
    let full = full_condition(&left_keys, &right_keys, &[], width, &joined, condition.as_ref());
    let names: Vec<String> = joined.iter().map(|c| c.name.clone()).collect();
    Ok(Rc::new(LateralSnapshotJoinSpec {
        left_outer,
        left_keys,
        right_keys,
        condition,
        right_width: right.columns.len(),
        build_rowtime,
        load_completed_time: op.load_completed_time.ms,
        load_completed_idle_timeout: op.load_completed_idle_timeout.map(|d| d.0),
        state_ttl: op.state_ttl.map(|d| d.0),
        right_types: right.columns.iter().map(|c| c.data_type).collect(),
        right_names: right.columns.iter().map(|c| c.name.clone()).collect(),
        output_columns: joined,
        where_rex: full.rex(&names),
        where_infix: full.infix(&names),
    }))
}

impl LateralSnapshotJoinSpec {
    fn plan_with(&self, condition: &str) -> String {
        let select: Vec<&str> = self.output_columns.iter().map(|c| c.name.as_str()).collect();
        let mut text = format!(
            "LateralSnapshotJoin(joinType=[{}], where=[{condition}], select=[{}], loadCompletedCondition=[user_time], \
             loadCompletedTime=[{}]",
            if self.left_outer { JoinType::Left.plan_name() } else { JoinType::Inner.plan_name() },
            select.join(", "),
            self.load_completed_time
        );
        if let Some(ms) = self.load_completed_idle_timeout {
            text.push_str(&format!(", loadCompletedIdleTimeout=[{ms} ms]"));
        }
        if let Some(ms) = self.state_ttl {
            text.push_str(&format!(", stateTtl=[{ms} ms]"));
        }
        text.push(')');
        text
    }

    /// The right input's column types (the build rows).
    pub fn right_types(&self) -> &[DataType] {
        &self.right_types
    }

    /// The state TTL the operator runs with: its own, else `table.exec.state.ttl`.
    pub fn effective_state_ttl(&self, retention: Retention) -> Millis {
        self.state_ttl.unwrap_or(match retention {
            Retention::StateTtl(ms) => ms,
            Retention::IdleState(_) => 0,
        })
    }
}

impl OperatorSpec for LateralSnapshotJoinSpec {
    fn output_columns(&self) -> &[Column] {
        &self.output_columns
    }
    fn unique_key_len(&self) -> usize {
        0
    }
    fn state_key_columns(&self) -> Vec<usize> {
        self.left_keys.clone()
    }
    /// Append-only: build-side changes never emit, a probe row emits its joins once.
    fn output_retracts(&self) -> bool {
        false
    }
    /// An append stream, as the other insert-only operators say (an OVER window, a keep-first
    /// deduplicate): the result keeps every row instead of upserting by key.
    fn generates_update_before(&self) -> bool {
        true
    }
    fn plan(&self) -> String {
        self.plan_with(&self.where_infix)
    }
    fn physical_plan(&self) -> String {
        self.plan_with(&self.where_rex)
    }
    fn distribution(&self) -> Option<Distribution> {
        let names = self.left_keys.iter().map(|&i| self.output_columns[i].name.clone()).collect();
        Some(Distribution::by(names))
    }
    fn right_distribution(&self) -> Option<Distribution> {
        let names = self.right_keys.iter().map(|&i| self.right_names[i].clone()).collect();
        Some(Distribution::by(names))
    }
    /// `state_ttl 10 s (TTL timers: evicted 1×–1.5× after the key's last record)`.
    fn describe_own_ttl(&self) -> Option<String> {
        self.state_ttl.map(|ms| {
            format!("state_ttl {} (TTL timers: evicted 1×–1.5× after the key's last record)", format_duration(ms))
        })
    }
    fn build(&self, _flink: FlinkMode, retention: Retention) -> Box<dyn StreamOperator> {
        Box::new(LateralSnapshotJoinOperator::new(Rc::new(self.clone()), self.effective_state_ttl(retention)))
    }
}
