//! The `Join` operator of the scenario format: a regular (unbounded) streaming join of two
//! inputs on equal columns, as Flink's `StreamPhysicalJoin` / `StreamExecJoin` plans it (2.3.0,
//! read from the planner's bytecode):
//!
//! - **Input specs** (`JoinUtil.analyzeJoinInput`): an input whose unique key lies within the
//!   join key is `JoinKeyContainsUniqueKey`, one with another unique key `HasUniqueKey`, else
//!   `NoUniqueKey`. Here an input's unique key is its leading
//!   [`CompileInput::unique_key_len`] columns.
//! - **Changelog** (`FlinkChangelogModeInferenceProgram`): an `INNER` join emits what its
//!   inputs do (their union); `LEFT`, `RIGHT` and `FULL` emit every kind, `[I,UB,UA,D]`.
//! - **State TTL**: each side's records live for `table.exec.state.ttl`, or for the side's own
//!   TTL from a `STATE_TTL` hint (`'l' = '5s'`; `StateTtlHint.getStateTtlFromHintOnBiRel`: the
//!   left input's key is side 0, any other side 1; Flink 1.19+), passed to
//!   `StreamingJoinOperator` as `leftStateRetentionTime` / `rightStateRetentionTime`.
//! - **Plan text**: `Join(joinType=[LeftOuterJoin], where=[(k = k0)], select=[k, v, k0, v0],
//!   leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey])`; the right input's names that
//!   clash with the left's get Calcite's suffix (`SqlValidatorUtil.uniquify`: `k0`, `k1`, …).
//!
//! Mini-batch (`MiniBatchStreamingJoinOperator`), the async-state operator and the legacy
//! planner's joins are not modelled: compiling refuses them.

use super::join_record_state_view::InputSideSpec;
use super::streaming_join_operator::StreamingJoinOperator;
use super::streaming_semi_anti_join_operator::StreamingSemiAntiJoinOperator;
use crate::engine::error::{name_list, quote, ScenarioError};
use crate::engine::expr::compile::compile_predicate;
use crate::engine::expr::{CmpOp, Expr};
use crate::engine::format::parse_part;
use crate::engine::operators::state_ttl::{OperatorStateTtl, RawOperatorTtl};
use crate::engine::operators::{CompileInput, Distribution, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::options::{FlinkMode, Retention};
use crate::engine::row::{Column, DataType};
use schemars::JsonSchema;
use serde::Deserialize;
use std::rc::Rc;

pub const KIND: OperatorKind = OperatorKind::two_input::<RawJoin>("Join", compile);

/// A regular join of its `left` and `right` inputs.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a Join object")]
struct RawJoin {
    /// The operator's kind.
    #[allow(dead_code)]
    operator: String,
    /// The operator's name.
    #[allow(dead_code)]
    id: String,
    /// `INNER`, `LEFT`, `RIGHT` or `FULL`; `SEMI` (`WHERE k IN (SELECT …)`, `EXISTS`) or `ANTI`
    /// (`NOT EXISTS`), which emit left rows only.
    join_type: String,
    /// The equality conditions, each `[left column, right column]` (the join key).
    on: Vec<(String, String)>,
    /// Per `on` pair, whether the SQL wrote the right column first (`r.k = l.k`, as a correlated
    /// `EXISTS` often does): the plan prints each equality as written.
    #[serde(default)]
    on_right_first: Vec<bool>,
    /// A further condition over the joined columns (left's, then right's as the output names
    /// them), e.g. `v0 > v`.
    #[serde(default, rename = "where")]
    condition: Option<String>,
    /// Each side's own state TTL, a `STATE_TTL` hint (Flink 1.19+): `{"left": "5s", "right": "1d"}`.
    #[serde(default)]
    state_ttl: Option<RawSideTtl>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "an object {\"left\": duration, \"right\": duration}")]
struct RawSideTtl {
    /// The left input's records' TTL.
    #[serde(default)]
    left: Option<RawOperatorTtl>,
    /// The right input's records' TTL.
    #[serde(default)]
    right: Option<RawOperatorTtl>,
}

/// `FlinkJoinType`: which sides keep their rows when nothing matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinType {
    Inner,
    Left,
    Right,
    Full,
    Semi,
    Anti,
}

impl JoinType {
    pub(super) const ALL: [(&'static str, JoinType); 6] = [
        ("INNER", JoinType::Inner),
        ("LEFT", JoinType::Left),
        ("RIGHT", JoinType::Right),
        ("FULL", JoinType::Full),
        ("SEMI", JoinType::Semi),
        ("ANTI", JoinType::Anti),
    ];

    /// `JoinRelType` as the plan prints it.
    pub fn plan_name(self) -> &'static str {
        match self {
            JoinType::Inner => "InnerJoin",
            JoinType::Left => "LeftOuterJoin",
            JoinType::Right => "RightOuterJoin",
            JoinType::Full => "FullOuterJoin",
            JoinType::Semi => "LeftSemiJoin",
            JoinType::Anti => "LeftAntiJoin",
        }
    }
    pub fn left_is_outer(self) -> bool {
        matches!(self, JoinType::Left | JoinType::Full)
    }
    pub fn right_is_outer(self) -> bool {
        matches!(self, JoinType::Right | JoinType::Full)
    }
}

/// A validated join.
#[derive(Debug, Clone)]
pub struct JoinSpec {
    pub join_type: JoinType,
    pub left_keys: Vec<usize>,
    /// Right input columns (not offset).
    pub right_keys: Vec<usize>,
    /// The non-equi condition over the joined row.
    pub condition: Option<Expr>,
    pub left_spec: InputSideSpec,
    pub right_spec: InputSideSpec,
    pub left_types: Vec<DataType>,
    pub right_types: Vec<DataType>,
    /// Each input's unique key: its leading columns.
    left_unique_key_len: usize,
    right_unique_key_len: usize,
    /// The right input's own column names (its exchange is by them).
    right_names: Vec<String>,
    output_columns: Vec<Column>,
    left_ttl: Option<OperatorStateTtl>,
    right_ttl: Option<OperatorStateTtl>,
    retracts: bool,
    deletes: bool,
    /// The condition as the two plans print it.
    where_rex: String,
    where_infix: String,
}

/// Calcite's `SqlValidatorUtil.uniquify` of the right input's names against the left's.
pub(super) fn joined_columns(left: &[Column], right: &[Column]) -> Vec<Column> {
    let mut out: Vec<Column> = left.to_vec();
    for c in right {
        let mut name = c.name.clone();
        let mut n = 0;
        while out.iter().any(|o| o.name == name) {
            name = format!("{}{n}", c.name);
            n += 1;
        }
        out.push(Column { name, data_type: c.data_type });
    }
    out
}

/// A two-input operator's equality keys and further condition, as `JoinInfo.of` splits a join's
/// condition (Calcite; the regular join's and the `LATERAL SNAPSHOT` join's alike).
pub(super) struct EquiCondition {
    pub left_keys: Vec<usize>,
    pub right_keys: Vec<usize>,
    /// The joined row's columns (the right's names made unique, [`joined_columns`]).
    pub joined: Vec<Column>,
    /// The further (non-equi) condition over the joined row.
    pub condition: Option<Expr>,
}

/// Reads `on` (pairs of a left and a right column) and `condition` (over the joined row) at
/// `path`, against the left input `left` and the right input `right`.
pub(super) fn equi_condition(
    on: &[(String, String)],
    condition: Option<&str>,
    left: &CompileInput,
    right: &CompileInput,
    path: &str,
) -> Result<EquiCondition, ScenarioError> {
    let mut left_keys = Vec::new();
    let mut right_keys = Vec::new();
    for (i, (l, r)) in on.iter().enumerate() {
        left_keys.push(column(left.columns, l, format!("{path}.on[{i}][0]"), left.input_name)?);
        right_keys.push(column(right.columns, r, format!("{path}.on[{i}][1]"), right.input_name)?);
    }
    let joined = joined_columns(left.columns, right.columns);
    let condition = match condition {
        Some(text) => Some(compile_predicate(text, &joined, &format!("{path}.where"), "the joined row")?),
        None => None,
    };
    Ok(EquiCondition { left_keys, right_keys, joined, condition })
}

/// `JoinUtil.analyzeJoinInput`: the input's unique key is its leading `unique_key_len` columns.
fn input_side_spec(unique_key_len: usize, join_keys: &[usize]) -> InputSideSpec {
    if unique_key_len == 0 {
        InputSideSpec::NoUniqueKey
    } else if (0..unique_key_len).all(|c| join_keys.contains(&c)) {
        InputSideSpec::JoinKeyContainsUniqueKey
    } else {
        InputSideSpec::HasUniqueKey((0..unique_key_len).collect())
    }
}

/// The index of column `name` of an input, or an error at `path` listing its columns.
pub(super) fn column(columns: &[Column], name: &str, path: String, input_name: &str) -> Result<usize, ScenarioError> {
    columns.iter().position(|c| c.name == name).ok_or_else(|| {
        ScenarioError::new(
            path,
            format!(
                "no column {} in {input_name} (columns: {})",
                quote(name),
                name_list(columns.iter().map(|c| c.name.as_str()))
            ),
        )
    })
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawJoin = parse_part(raw, input.path)?;
    let path = input.path;
    let Some(right) = input.right else {
        return Err(ScenarioError::new(path, "a Join reads two inputs: name them with left and right"));
    };
    if input.flink.is_legacy_planner() {
        return Err(ScenarioError::new(
            format!("{path}.operator"),
            format!(
                "the {}'s regular join (DataStreamJoin with NonWindowJoin and its cleanup timers) is not \
                 modelled: the simulator runs the Blink planner's StreamingJoinOperator (\"flink\": \"1.10-blink\", \
                 \"1.12\" or \"2.3\")",
                input.flink.label()
            ),
        ));
    }
    if input.mini_batch.is_some() {
        return Err(ScenarioError::new(
            format!("{path}.operator"),
            "under mini-batch Flink runs a join as MiniBatchStreamingJoinOperator, which is not modelled: \
             turn mini-batch off",
        ));
    }
    let join_type =
        JoinType::ALL.iter().find(|(n, _)| n.eq_ignore_ascii_case(op.join_type.trim())).map(|&(_, t)| t).ok_or_else(
            || {
                ScenarioError::new(
                    format!("{path}.join_type"),
                    format!("{} is not a join type: INNER, LEFT, RIGHT, FULL, SEMI or ANTI", quote(&op.join_type)),
                )
            },
        )?;
    if op.on.is_empty() {
        return Err(ScenarioError::new(
            format!("{path}.on"),
            "a regular streaming join needs at least one equality of a left and a right column (the join key)",
        ));
    }
    let EquiCondition { left_keys, right_keys, joined, condition } =
        equi_condition(&op.on, op.condition.as_deref(), &input, right, path)?;
    let width = input.columns.len();
    let (left_ttl, right_ttl) = match op.state_ttl {
        None => (None, None),
        Some(t) => (OperatorStateTtl::hint(t.left, &input)?, OperatorStateTtl::hint(t.right, &input)?),
    };
    if !op.on_right_first.is_empty() && op.on_right_first.len() != op.on.len() {
        return Err(ScenarioError::new(
            format!("{path}.on_right_first"),
            format!("has {} entries for {} `on` pairs: give one per pair", op.on_right_first.len(), op.on.len()),
        ));
    }
    let full = full_condition(&left_keys, &right_keys, &op.on_right_first, width, &joined, condition.as_ref());
    let names: Vec<String> = joined.iter().map(|c| c.name.clone()).collect();
    // `FlinkChangelogModeInferenceProgram` (2.3.0): INNER and SEMI emit what their inputs do,
    // every other type every kind.
    let all_changes = !matches!(join_type, JoinType::Inner | JoinType::Semi);
    let output_columns = match join_type {
        JoinType::Semi | JoinType::Anti => input.columns.to_vec(),
        _ => joined,
    };
    Ok(Rc::new(JoinSpec {
        join_type,
        left_spec: input_side_spec(input.unique_key_len, &left_keys),
        right_spec: input_side_spec(right.unique_key_len, &right_keys),
        left_types: input.columns.iter().map(|c| c.data_type).collect(),
        right_types: right.columns.iter().map(|c| c.data_type).collect(),
        left_unique_key_len: input.unique_key_len,
        right_unique_key_len: right.unique_key_len,
        right_names: right.columns.iter().map(|c| c.name.clone()).collect(),
        left_keys,
        right_keys,
        condition,
        output_columns,
        left_ttl,
        right_ttl,
        retracts: all_changes || input.retracts || right.retracts,
        deletes: all_changes || input.deletes || right.deletes,
        where_rex: full.rex(&names),
        where_infix: full.infix(&names),
    }))
}

/// The join's whole condition over the joined row (`width` left columns, then the right's), as
/// the plan prints it: each `on` equality as written (`on_right_first`), then the further
/// condition, joined by AND (`TRUE` when there is none).
pub(super) fn full_condition(
    left_keys: &[usize],
    right_keys: &[usize],
    on_right_first: &[bool],
    width: usize,
    joined: &[Column],
    extra: Option<&Expr>,
) -> Expr {
    let col = |i: usize| Expr::Column { index: i, data_type: joined[i].data_type };
    let mut cond: Option<Expr> = None;
    for (i, (&l, &r)) in left_keys.iter().zip(right_keys).enumerate() {
        let (a, b) = (col(l), col(width + r));
        let (a, b) = if on_right_first.get(i) == Some(&true) { (b, a) } else { (a, b) };
        let eq = Expr::Compare(CmpOp::Eq, Box::new(a), Box::new(b));
        cond = Some(match cond {
            None => eq,
            Some(c) => Expr::And(Box::new(c), Box::new(eq)),
        });
    }
    if let Some(extra) = extra {
        cond = Some(match cond {
            Some(c) => Expr::And(Box::new(c), Box::new(extra.clone())),
            None => extra.clone(),
        });
    }
    cond.unwrap_or(Expr::Literal { value: crate::engine::row::Value::Bool(true), data_type: None })
}

impl JoinSpec {
    fn plan_with(&self, condition: &str, hints: bool) -> String {
        let select: Vec<&str> = self.output_columns.iter().map(|c| c.name.as_str()).collect();
        let mut text = format!(
            "Join(joinType=[{}], where=[{condition}], select=[{}], leftInputSpec=[{}], rightInputSpec=[{}]",
            self.join_type.plan_name(),
            select.join(", "),
            self.left_spec.plan_name(),
            self.right_spec.plan_name()
        );
        if hints && (self.left_ttl.is_some() || self.right_ttl.is_some()) {
            let mut options = Vec::new();
            if let Some(t) = &self.left_ttl {
                options.push(format!("LEFT={}", t.written));
            }
            if let Some(t) = &self.right_ttl {
                options.push(format!("RIGHT={}", t.written));
            }
            text.push_str(&format!(", stateTtlHints=[[[STATE_TTL options:{{{}}}]]]", options.join(", ")));
        }
        text.push(')');
        text
    }

    /// Each side's retention: its own TTL, else the scenario's (`StateMetadata`).
    pub fn side_ttl_ms(&self, retention: Retention) -> (i64, i64) {
        let scenario = match retention {
            Retention::StateTtl(ms) => ms,
            Retention::IdleState(_) => 0,
        };
        (self.left_ttl.as_ref().map_or(scenario, |t| t.ms), self.right_ttl.as_ref().map_or(scenario, |t| t.ms))
    }
}

impl OperatorSpec for JoinSpec {
    fn output_columns(&self) -> &[Column] {
        &self.output_columns
    }
    fn unique_key_len(&self) -> usize {
        0
    }
    fn state_key_columns(&self) -> Vec<usize> {
        self.left_keys.clone()
    }
    fn output_retracts(&self) -> bool {
        self.retracts
    }
    /// `SatisfyUpdateKindTraitVisitor` on a `StreamPhysicalJoin` (2.3.0): an input may drop its
    /// `UPDATE_BEFORE` only when one of its unique keys holds the whole join key
    /// (`inputUniqueKeyContainsJoinKey`); its `+U` then replaces the record of that key.
    fn needs_update_before_from(&self, port: usize) -> bool {
        let (uk, keys) = if port == 0 {
            (self.left_unique_key_len, &self.left_keys)
        } else {
            (self.right_unique_key_len, &self.right_keys)
        };
        !(uk > 0 && keys.iter().all(|&k| k < uk))
    }
    fn generates_update_before(&self) -> bool {
        self.retracts
    }
    fn output_deletes(&self) -> bool {
        self.deletes
    }
    fn plan(&self) -> String {
        self.plan_with(&self.where_infix, false)
    }
    fn physical_plan(&self) -> String {
        self.plan_with(&self.where_rex, true)
    }
    fn distribution(&self) -> Option<Distribution> {
        let names = self.left_keys.iter().map(|&i| self.output_columns[i].name.clone()).collect();
        Some(Distribution::by(names))
    }
    fn right_distribution(&self) -> Option<Distribution> {
        let names = self.right_keys.iter().map(|&i| self.right_names[i].clone()).collect();
        Some(Distribution::by(names))
    }
    /// `left: STATE_TTL hint 1 d, right: STATE_TTL hint 3650 d` (a side without one keeps
    /// `table.exec.state.ttl`).
    fn describe_own_ttl(&self) -> Option<String> {
        let side = |name: &str, t: &Option<OperatorStateTtl>| t.as_ref().map(|t| format!("{name}: {}", t.describe()));
        let parts: Vec<String> =
            [side("left", &self.left_ttl), side("right", &self.right_ttl)].into_iter().flatten().collect();
        (!parts.is_empty()).then(|| parts.join(", "))
    }
    fn build(&self, flink: FlinkMode, retention: Retention) -> Box<dyn StreamOperator> {
        let spec = Rc::new(self.clone());
        match self.join_type {
            JoinType::Semi | JoinType::Anti => {
                Box::new(StreamingSemiAntiJoinOperator::new(spec, self.join_type == JoinType::Anti, retention))
            }
            _ => Box::new(StreamingJoinOperator::new(spec, flink, retention)),
        }
    }
}
