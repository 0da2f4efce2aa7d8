//! `ChangelogNormalize(key=[…])` as Flink 2.3.0 plans and runs it (`StreamPhysicalChangelogNormalize`,
//! `StreamExecChangelogNormalize.translateToPlanInternal`, read from the 2.3.0 bytecode):
//!
//! - state TTL: `StateMetadata.getStateTtlForOneInputOperator` = `table.exec.state.ttl`;
//! - without mini-batch: `KeyedProcessOperator(new ProcTimeDeduplicateKeepLastRowFunction(rowType,
//!   stateRetentionTime, generateUpdateBefore, generateInsert = true, inputIsInsertOnly = false,
//!   equaliser, filterCondition))` ([`ProcTimeDeduplicateKeepLastRowOnChangelog`]); with mini-batch
//!   a `ProcTimeMiniBatchDeduplicateKeepLastRowFunction` (not modelled: refused);
//! - keyed by the primary key (`KeySelectorUtil.getRowDataSelector(uniqueKeys)`), over an
//!   `Exchange(distribution=[hash[key]])` (`StreamPhysicalTableSourceScanRule`: a strict hash on
//!   the primary key);
//! - `generateUpdateBefore = ChangelogPlanUtils.generateUpdateBefore(node)`: whether its consumer
//!   asked for `BEFORE_AND_AFTER` (`FlinkChangelogModeInferenceProgram`);
//! - its input must carry `ONLY_UPDATE_AFTER`: over a changelog with `-U` the planner puts a
//!   `DropUpdateBefore` below the exchange ([`super::drop_update_before_function`]);
//! - plan text `ChangelogNormalize(key=[id])` (`explainTerms`: the key's names joined by `", "`;
//!   a pushed-down filter adds `condition=[…]`, not modelled here).
//!
//! The output columns are the input's; its unique key is the primary key.

use super::ProcTimeDeduplicateKeepLastRowOnChangelog;
use crate::engine::error::{quote, ScenarioError};
use crate::engine::format::parse_part;
use crate::engine::operators::aggregate::group_aggregate::column_index;
use crate::engine::operators::{CompileInput, Distribution, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::options::{FlinkMode, Retention};
use crate::engine::row::{Column, DataType, Row};
use schemars::JsonSchema;
use serde::Deserialize;
use std::rc::Rc;

/// The registration of `ChangelogNormalize` in [`super::super::OPERATOR_KINDS`].
pub const KIND: OperatorKind = OperatorKind::new::<RawChangelogNormalize>("ChangelogNormalize", compile);

/// `ChangelogNormalize` (Flink 2.3): keeps the last row of each primary key and turns an upsert
/// changelog into one with `-U` and full-row `-D`. The output columns are the input's.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "ChangelogNormalize")]
#[serde(
    deny_unknown_fields,
    expecting = "a ChangelogNormalize object {\"operator\", \"id\", \"key\", \"generate_update_before\"}"
)]
struct RawChangelogNormalize {
    /// The operator's kind.
    #[allow(dead_code)]
    operator: String,
    /// The operator's name: traces, the page and `expect` refer to it.
    #[allow(dead_code)]
    id: String,
    /// The source's primary key columns (`key=[…]`): the state is keyed by them.
    key: Vec<String>,
    /// Emit `-U` (the stored row) before `+U`. Default `true`; the planner sets `false` when
    /// nothing downstream needs `UPDATE_BEFORE`.
    #[serde(default = "yes")]
    generate_update_before: bool,
}

fn yes() -> bool {
    true
}

/// A validated `ChangelogNormalize`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangelogNormalizeSpec {
    /// The primary key's columns.
    pub key: Vec<usize>,
    /// The input's (and output's) columns.
    pub columns: Vec<Column>,
    pub generate_update_before: bool,
    /// The input carries `UPDATE_BEFORE`: a `DropUpdateBefore` drops them before the exchange.
    pub drop_update_before: bool,
}

impl ChangelogNormalizeSpec {
    /// `DeduplicateRowEqualiser.equals(pre, row)` as `areRowsWithSameContent` calls it: the row
    /// kinds aligned (an `UPDATE_AFTER` input compared as `INSERT`, the stored row is always
    /// `INSERT`), so the values decide. A processing-time attribute is left out (Flink carries
    /// NULL there, the simulator the time), as the deduplicate family's `equal_values` does.
    pub fn same_content(&self, a: &Row, b: &Row) -> bool {
        a.0.len() == b.0.len()
            && self
                .columns
                .iter()
                .zip(a.0.iter().zip(&b.0))
                .all(|(c, (x, y))| c.data_type == DataType::ProcTime || x == y)
    }

    fn key_names(&self) -> Vec<&str> {
        self.key.iter().map(|&i| self.columns[i].name.as_str()).collect()
    }
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawChangelogNormalize = parse_part(raw, input.path)?;
    let path = input.path;
    if !input.flink.has_2_3_operators() {
        return Err(ScenarioError::new(
            format!("{path}.operator"),
            format!(
                "ChangelogNormalize is modelled as Flink 2.3.0 runs it (ProcTimeDeduplicateKeepLastRowFunction on a \
                 changelog); the {} is not modelled: use \"flink\": \"2.3\"",
                input.flink.label()
            ),
        ));
    }
    if input.mini_batch.is_some() {
        return Err(ScenarioError::new(
            format!("{path}.operator"),
            "with mini-batch on, Flink 2.3 runs ChangelogNormalize as a KeyedMapBundleOperator of \
             ProcTimeMiniBatchDeduplicateKeepLastRowFunction, which is not modelled: turn mini_batch off",
        ));
    }
    if !input.retracts {
        return Err(ScenarioError::new(
            path,
            format!(
                "{} is insert-only: Flink plans a ChangelogNormalize only over an upsert source or a CDC source \
                 with a primary key (DynamicSourceUtils.changelogNormalizeEnabled)",
                input.input_name
            ),
        ));
    }
    if op.key.is_empty() {
        return Err(ScenarioError::new(format!("{path}.key"), "needs the primary key's columns"));
    }
    let mut key = Vec::with_capacity(op.key.len());
    for (j, name) in op.key.iter().enumerate() {
        let field = format!("{path}.key[{j}]");
        let i = column_index(input.columns, name, &field, input.input_name)?;
        if key.contains(&i) {
            return Err(ScenarioError::new(field, format!("duplicate key column {}", quote(name))));
        }
        if input.columns[i].data_type == DataType::ProcTime {
            return Err(ScenarioError::new(
                field,
                format!("{} is the processing-time attribute, not a primary key column", quote(name)),
            ));
        }
        key.push(i);
    }
    Ok(Rc::new(ChangelogNormalizeSpec {
        key,
        columns: input.columns.to_vec(),
        generate_update_before: op.generate_update_before,
        drop_update_before: input.update_before,
    }))
}

impl OperatorSpec for ChangelogNormalizeSpec {
    fn output_columns(&self) -> &[Column] {
        &self.columns
    }
    /// The primary key when it leads the row.
    fn unique_key_len(&self) -> usize {
        if self.key.iter().enumerate().all(|(j, &i)| j == i) {
            self.key.len()
        } else {
            0
        }
    }
    fn state_key_columns(&self) -> Vec<usize> {
        self.key.clone()
    }
    /// `[I,UB,UA,D]`, or `[I,UA,D]` without `generate_update_before`.
    fn output_retracts(&self) -> bool {
        true
    }
    fn generates_update_before(&self) -> bool {
        self.generate_update_before
    }
    /// It asks its input for `ONLY_UPDATE_AFTER` (`FlinkChangelogModeInferenceProgram`:
    /// `visitChildren(normalize, ONLY_UPDATE_AFTER)`).
    fn needs_update_before(&self) -> bool {
        false
    }
    fn input_drops_update_before(&self) -> bool {
        self.drop_update_before
    }
    /// `hash[key]`.
    fn distribution(&self) -> Option<Distribution> {
        Some(Distribution::by(self.key_names().into_iter().map(str::to_string).collect()))
    }
    fn plan(&self) -> String {
        format!("ChangelogNormalize(key=[{}])", self.key_names().join(", "))
    }
    /// `table.exec.state.ttl` (Flink 2.3 only: compile() refuses the others).
    fn build(&self, _flink: FlinkMode, retention: Retention) -> Box<dyn StreamOperator> {
        let ttl = match retention {
            Retention::StateTtl(ms) => ms,
            Retention::IdleState(_) => 0,
        };
        Box::new(ProcTimeDeduplicateKeepLastRowOnChangelog::new(self.clone(), ttl))
    }
}
