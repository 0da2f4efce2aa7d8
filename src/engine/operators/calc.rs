//! `Calc`: a projection, `SELECT <columns> FROM <input>` — stateless, each message passes with its
//! kind and the chosen columns (Flink's `StreamExecCalc`, generated code; 1.x–2.x). It keeps no
//! state and registers no timers.

use super::group_aggregate::column_index;
use super::{monotonicity, CompileInput, Context, OperatorKind, OperatorSpec, StreamOperator};
use crate::engine::error::{quote, ScenarioError};
use crate::engine::row::{Column, Message};
use crate::engine::scenario::{parse_part, FlinkMode, Retention};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::StateCell;
use serde::Deserialize;
use std::collections::HashSet;
use std::rc::Rc;

/// The registration of `Calc` in [`super::OPERATOR_KINDS`].
pub const KIND: OperatorKind = OperatorKind { name: "Calc", compile };

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a Calc object {\"operator\", \"id\", \"select\"}")]
struct RawCalc {
    #[allow(dead_code)]
    operator: String,
    #[allow(dead_code)]
    id: String,
    /// Input columns, each `name` or `name AS alias`.
    select: Vec<String>,
}

/// A validated projection.
#[derive(Debug, Clone, PartialEq)]
pub struct CalcSpec {
    select: Vec<usize>,
    output_columns: Vec<Column>,
    /// The input column names, and which are renamed (for the plan text).
    input_names: Vec<String>,
    renames: Vec<bool>,
    monotonicity: monotonicity::ModifiedMonotonicity,
    input_retracts: bool,
    generate_update_before: bool,
    unique_key_len: usize,
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawCalc = parse_part(raw, input.path)?;
    if op.select.is_empty() {
        return Err(ScenarioError::new(format!("{}.select", input.path), "a Calc selects at least one column"));
    }
    let mut seen = HashSet::new();
    let mut select = Vec::new();
    let mut output_columns = Vec::new();
    for (j, item) in op.select.iter().enumerate() {
        let path = format!("{}.select[{j}]", input.path);
        let (name, alias) = split_alias(item);
        let i = column_index(input.columns, name, &path, input.input_name)?;
        let mut column = input.columns[i].clone();
        if let Some(alias) = alias {
            column.name = alias.to_string();
        }
        if !seen.insert(column.name.clone()) {
            return Err(ScenarioError::new(path, format!("{} is selected twice", quote(&column.name))));
        }
        select.push(i);
        output_columns.push(column);
    }
    Ok(Rc::new(CalcSpec {
        // A projection keeps the input's leading key columns when it keeps them first.
        unique_key_len: select.iter().enumerate().take_while(|(j, &i)| *j == i).count().min(input.unique_key_len),
        renames: op.select.iter().map(|item| split_alias(item).1.is_some()).collect(),
        input_names: select.iter().map(|&i| input.columns[i].name.clone()).collect(),
        output_columns,
        monotonicity: monotonicity::of_projection(input.monotonicity, &select),
        select,
        input_retracts: input.retracts,
        generate_update_before: input.update_before,
    }))
}

/// `"status AS st"` → `("status", Some("st"))` (`AS` in any case); `"status"` → `("status", None)`.
fn split_alias(item: &str) -> (&str, Option<&str>) {
    let words: Vec<&str> = item.split_whitespace().collect();
    match words.as_slice() {
        [name, as_, alias] if as_.eq_ignore_ascii_case("as") => (name, Some(alias)),
        _ => (item.trim(), None),
    }
}

impl OperatorSpec for CalcSpec {
    fn output_columns(&self) -> &[Column] {
        &self.output_columns
    }
    fn unique_key_len(&self) -> usize {
        self.unique_key_len
    }
    fn output_retracts(&self) -> bool {
        self.input_retracts
    }
    fn generates_update_before(&self) -> bool {
        self.generate_update_before
    }
    fn needs_update_before(&self) -> bool {
        false
    }
    fn modified_monotonicity(&self) -> monotonicity::ModifiedMonotonicity {
        self.monotonicity.clone()
    }
    fn plan(&self) -> String {
        let items: Vec<String> = (self.input_names.iter().zip(&self.output_columns).zip(&self.renames))
            .map(|((from, to), &renamed)| if renamed { format!("{from} AS {}", to.name) } else { from.clone() })
            .collect();
        format!("Calc(select=[{}])", items.join(", "))
    }
    fn build(&self, _flink: FlinkMode, _retention: Retention) -> Box<dyn StreamOperator> {
        Box::new(Calc { select: self.select.clone(), backend: KeyedStateBackend::default() })
    }
}

/// The running projection.
#[derive(Debug, Clone)]
pub struct Calc {
    select: Vec<usize>,
    /// Always empty: a Calc keeps no keyed state.
    backend: KeyedStateBackend,
}

impl StreamOperator for Calc {
    fn flink_class(&self) -> &'static str {
        "StreamExecCalc"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let out = Message::new(input.change, input.row.project(&self.select));
        ctx.record_unkeyed(|| TraceEvent::Received { message: input.clone() });
        ctx.collect_unkeyed(out);
        Ok(())
    }

    fn backend(&self) -> &KeyedStateBackend {
        &self.backend
    }
    fn backend_mut(&mut self) -> &mut KeyedStateBackend {
        &mut self.backend
    }
    fn state_names(&self) -> Vec<&'static str> {
        vec![]
    }
    fn key_state(&self, _key: KeyId, _now: Millis) -> Vec<Option<StateCell>> {
        vec![]
    }
    fn state_sizes(&self, _now: Millis) -> Vec<(&'static str, StateSize)> {
        vec![]
    }
}
