//! `Calc`: `SELECT <expressions> FROM <input> [WHERE <condition>]` — stateless: each message
//! that passes the condition goes on with its kind and the computed columns (Flink's
//! `StreamExecCalc`, generated code; 1.x–2.x). It keeps no state and registers no timers.
//!
//! The condition filters each message on its own, whatever its kind: a `-U` and its `+U` may
//! part ways (Flink's generated `processElement` tests `if (condition) out.collect(..)` per
//! row and keeps the row kind). A row passes only when the condition is TRUE (FALSE and NULL
//! drop it). Expressions are [`crate::engine::expr`]'s.

use crate::engine::error::{quote, ScenarioError};
use crate::engine::expr::{compile_predicate, compile_select_item, Expr};
use crate::engine::format::parse_part;
use crate::engine::operators::{
    monotonicity, CompileInput, Context, OperatorKind, OperatorSpec, ScanPushdown, StreamOperator,
};
use crate::engine::options::{FlinkMode, Retention};
use crate::engine::row::{Column, DataType, Message, Row, Value};
use crate::engine::state::{KeyId, KeyedStateBackend, StateSize};
use crate::engine::time::Millis;
use crate::engine::trace::TraceEvent;
use crate::engine::view::StateCell;
use schemars::JsonSchema;
use serde::Deserialize;
use smallvec::SmallVec;
use std::collections::HashSet;
use std::rc::Rc;

/// The registration of `Calc` in [`super::super::OPERATOR_KINDS`].
pub const KIND: OperatorKind = OperatorKind::new::<RawCalc>("Calc", compile);

/// `SELECT <select> FROM <input> [WHERE <where>]`, stateless: each message is projected and
/// filtered on its own, its kind unchanged.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, expecting = "a Calc object {\"operator\", \"id\", \"select\", \"where\"}")]
#[schemars(rename = "Calc")]
struct RawCalc {
    /// The operator's kind.
    #[allow(dead_code)]
    operator: String,
    /// The operator's name: traces, the page and `expect` refer to it.
    #[allow(dead_code)]
    id: String,
    /// The output columns, each a SQL expression with an optional `AS name` (`"user_id AS uid"`,
    /// `"CASE WHEN a = b THEN x END AS y"`).
    select: Vec<String>,
    /// A BOOLEAN SQL condition: a row passes when it is TRUE.
    #[serde(default, rename = "where")]
    condition: Option<String>,
}

/// A validated Calc.
#[derive(Debug, Clone, PartialEq)]
pub struct CalcSpec {
    select: Rc<[Expr]>,
    condition: Option<Rc<Expr>>,
    output_columns: Vec<Column>,
    /// The execution plan's `select=[...]` items and `where=[...]` (infix expressions).
    plan_items: Vec<String>,
    plan_where: Option<String>,
    /// The physical plan's (Calcite's prefix form).
    physical_items: Vec<String>,
    physical_where: Option<String>,
    monotonicity: monotonicity::ModifiedMonotonicity,
    input_retracts: bool,
    input_deletes: bool,
    generate_update_before: bool,
    unique_key_len: usize,
}

fn compile(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError> {
    let op: RawCalc = parse_part(raw, input.path)?;
    if op.select.is_empty() {
        return Err(ScenarioError::new(format!("{}.select", input.path), "a Calc selects at least one column"));
    }
    let names: Vec<String> = input.columns.iter().map(|c| c.name.clone()).collect();
    let mut seen = HashSet::new();
    // In expressions, the source's processing-time attribute is `PROCTIME()`: the scan does
    // not produce it, this Calc computes it.
    let mut expr_names = names.clone();
    if let Some(pt) = input.source_proctime.and_then(|i| expr_names.get_mut(i)) {
        *pt = "PROCTIME()".into();
    }
    let (mut select, mut output_columns) = (Vec::new(), Vec::new());
    let (mut plan_items, mut physical_items) = (Vec::new(), Vec::new());
    for (j, text) in op.select.iter().enumerate() {
        let path = format!("{}.select[{j}]", input.path);
        let item = compile_select_item(text, j, input.columns, &path, input.input_name)?;
        if !seen.insert(item.name.clone()) {
            return Err(ScenarioError::new(path, format!("{} is selected twice", quote(&item.name))));
        }
        let data_type = item.expr.data_type().unwrap_or(DataType::String);
        let plain = matches!(item.expr.as_column(), Some(i) if Some(i) != input.source_proctime
            && (!item.aliased || names[i] == item.name));
        if plain {
            plan_items.push(item.name.clone());
            physical_items.push(item.name.clone());
        } else {
            plan_items.push(format!("{} AS {}", item.expr.infix(&expr_names), item.name));
            physical_items.push(format!("{} AS {}", item.expr.rex(&expr_names), item.name));
        }
        output_columns.push(Column { name: item.name, data_type });
        select.push(item.expr);
    }
    let condition = match &op.condition {
        None => None,
        Some(text) => {
            let path = format!("{}.where", input.path);
            Some(compile_predicate(text, input.columns, &path, input.input_name)?)
        }
    };
    // A projection keeps the input's leading key columns when it keeps them first.
    // `FlinkRelMdModifiedMonotonicity.getRelModifiedMonotonicity(Calc)`: the projection only
    // (the condition does not change it); a column keeps its input's, any other expression is
    // NOT_MONOTONIC.
    let columns: Vec<Option<usize>> = select.iter().map(|e| e.as_column()).collect();
    let monotonicity = monotonicity::of_projection(input.monotonicity, &columns);
    let kept_prefix = select.iter().enumerate().take_while(|(j, e)| e.as_column() == Some(*j)).count();
    Ok(Rc::new(CalcSpec {
        unique_key_len: kept_prefix.min(input.unique_key_len),
        plan_where: condition.as_ref().map(|c| c.infix(&expr_names)),
        physical_where: condition.as_ref().map(|c| c.rex(&expr_names)),
        physical_items,
        condition: condition.map(Rc::new),
        select: select.into(),
        output_columns,
        monotonicity,
        plan_items,
        input_retracts: input.retracts,
        input_deletes: input.deletes,
        generate_update_before: input.update_before,
    }))
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
    /// A Calc passes its input's changelog mode on.
    fn output_deletes(&self) -> bool {
        self.input_deletes
    }
    fn needs_update_before(&self) -> bool {
        false
    }
    fn modified_monotonicity(&self) -> monotonicity::ModifiedMonotonicity {
        self.monotonicity.clone()
    }
    /// `Calc(select=[k, status AS st, CASE((t_date = t_debut), user_id, null:VARCHAR(2147483647))
    /// AS $f2], where=[(v > 1)])`: the execution plan's infix expressions.
    fn plan(&self) -> String {
        calc_plan(&self.plan_items, self.plan_where.as_deref())
    }
    /// `Calc(select=[…, CASE(=(t_date, t_debut), user_id, null:VARCHAR(2147483647) CHARACTER SET
    /// "UTF-16LE") AS $f2], where=[>(v, 1)])`: Calcite's prefix form (approximate: no implicit casts).
    fn physical_plan(&self) -> String {
        calc_plan(&self.physical_items, self.physical_where.as_deref())
    }
    /// Into a scan that takes push-down: the input fields its expressions read, and its
    /// condition.
    fn scan_pushdown(&self) -> ScanPushdown {
        fn read(e: &Expr, out: &mut Vec<usize>) {
            match e {
                Expr::Column { index, .. } => out.push(*index),
                Expr::Literal { .. } | Expr::ProcTime => {}
                Expr::Compare(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) | Expr::Arith { a, b, .. } => {
                    read(a, out);
                    read(b, out);
                }
                Expr::Not(a) | Expr::IsTrue(a) | Expr::IsNull { arg: a, .. } => read(a, out),
                Expr::Case { whens, otherwise, .. } => {
                    for (c, r) in whens {
                        read(c, out);
                        read(r, out);
                    }
                    read(otherwise, out);
                }
            }
        }
        let mut columns = Vec::new();
        for e in self.select.iter().chain(self.condition.as_deref()) {
            read(e, &mut columns);
        }
        columns.sort_unstable();
        columns.dedup();
        ScanPushdown { columns: Some(columns), filter: self.physical_where.clone() }
    }
    fn build(&self, _flink: FlinkMode, _retention: Retention) -> Box<dyn StreamOperator> {
        Box::new(Calc {
            select: self.select.clone(),
            condition: self.condition.clone(),
            backend: KeyedStateBackend::default(),
        })
    }
}

fn calc_plan(items: &[String], condition: Option<&str>) -> String {
    match condition {
        None => format!("Calc(select=[{}])", items.join(", ")),
        Some(w) => format!("Calc(select=[{}], where=[{w}])", items.join(", ")),
    }
}

/// The running Calc.
#[derive(Debug, Clone)]
pub struct Calc {
    select: Rc<[Expr]>,
    condition: Option<Rc<Expr>>,
    /// Always empty: a Calc keeps no keyed state.
    backend: KeyedStateBackend,
}

impl StreamOperator for Calc {
    fn flink_class(&self) -> &'static str {
        "StreamExecCalc"
    }

    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        ctx.record_unkeyed(|| TraceEvent::Received { message: input.clone() });
        let values = &input.row.0[..];
        if let Some(condition) = &self.condition {
            if condition.try_eval(values, ctx.now)? != Value::Bool(true) {
                ctx.record_unkeyed(|| TraceEvent::Dropped {
                    message: input.clone(),
                    reason: "the WHERE condition is not TRUE (FALSE or NULL): the row is filtered out",
                });
                return Ok(());
            }
        }
        let mut out = SmallVec::with_capacity(self.select.len());
        for e in self.select.iter() {
            out.push(e.try_eval(values, ctx.now)?);
        }
        ctx.collect_unkeyed(Message::new(input.change, Row(out)));
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
