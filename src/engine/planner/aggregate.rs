//! Aggregation in a SELECT (Calcite's `SqlToRelConverter.createAggImpl`, Flink 2.3): a
//! projection of the group keys and the calls' arguments (`$f<i>` for computed ones), the
//! aggregate (calls named by their alias, `EXPR$<ordinal>`, or `$f<i>` inside an expression),
//! then the select list over its output.

use super::convert::{
    aggregate_or_window_call, at, expr, expr_with, function_name, item_expr, item_name, select_items, unsupported,
    FromNames, Item, Scope, AGG_FUNCTIONS,
};
use super::rel::{AggCall, Ex, Node, Rel};
use super::script::err;
use super::SqlError;
use crate::engine::error::{name as escaped, quote};
use sqlparser::ast;

/// An aggregate call over fields of the scope (`COUNT(*)`, `SUM(v)`, `COUNT(DISTINCT v)`).
pub(super) fn agg_call(f: &ast::Function, name: &str, scope: &Scope) -> Result<AggCall, SqlError> {
    let (written, distinct) = agg_args(f, name)?;
    let mut args = Vec::new();
    for e in written {
        match expr(e, scope)? {
            Ex::Col(i) => args.push(i),
            _ => return Err(unsupported(e, "an expression as a window function's argument")),
        }
    }
    if let Some(filter) = &f.filter {
        return Err(unsupported(filter.as_ref(), "a window function's FILTER (WHERE …) clause"));
    }
    Ok(AggCall { function: name.to_string(), distinct, args, filter: None })
}

/// The arguments of an aggregate call (none for `*`) and whether it is `DISTINCT`.
/// `LATEST_BY_TIME(value, time)` is the seed-004 user-defined aggregate (`LatestTimeUdf`), which
/// the engine models.
pub(super) fn agg_args<'f>(f: &'f ast::Function, name: &str) -> Result<(Vec<&'f ast::Expr>, bool), SqlError> {
    if !AGG_FUNCTIONS.contains(&name) {
        return Err(err(
            at(f),
            format!(
                "function {} is not modelled (aggregates: {}; window: ROW_NUMBER)",
                escaped(name),
                AGG_FUNCTIONS.join(", ")
            ),
        ));
    }
    let ast::FunctionArguments::List(list) = &f.args else {
        return Err(err(at(f), format!("{} needs an argument", escaped(name))));
    };
    if let Some(c) = list.clauses.first() {
        return Err(err(at(f), format!("{} inside {}(…) is not modelled", escaped(&c.to_string()), escaped(name))));
    }
    let distinct = matches!(list.duplicate_treatment, Some(ast::DuplicateTreatment::Distinct));
    if distinct && name != "COUNT" {
        return Err(err(at(f), format!("{}(DISTINCT …) is not modelled (COUNT(DISTINCT …) is)", escaped(name))));
    }
    let arity = if name == "LATEST_BY_TIME" { 2 } else { 1 };
    match list.args.as_slice() {
        [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)] if name == "COUNT" && !distinct => {
            Ok((vec![], false))
        }
        args if args.len() == arity => {
            let mut out = Vec::new();
            for a in args {
                match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => out.push(e),
                    _ => return Err(err(at(f), format!("{} takes {arity} argument(s) here", escaped(name)))),
                }
            }
            Ok((out, distinct))
        }
        _ => Err(err(at(f), format!("{} takes {arity} argument(s) here", escaped(name)))),
    }
}

/// A `GROUP BY` query (or a global aggregate): the projection of group keys and call
/// arguments, the aggregate, then the select list over its output.
pub(super) fn aggregate(
    input: Rel,
    s: &ast::Select,
    group_by: &[ast::Expr],
    qualifier: &FromNames,
    hint_ttl: Option<String>,
) -> Result<Rel, SqlError> {
    let scope = Scope::new(&input, qualifier);
    let mut pre: Vec<Ex> = Vec::new();
    let mut pre_names: Vec<String> = Vec::new();
    for g in group_by {
        match expr(g, &scope)? {
            Ex::Col(i) => {
                if !pre.contains(&Ex::Col(i)) {
                    pre.push(Ex::Col(i));
                    pre_names.push(input.names[i].clone());
                }
            }
            _ => return Err(unsupported(g, "GROUP BY an expression")),
        }
    }
    let group_len = pre.len();
    // The calls, in the order the select list has them; their arguments go into the projection.
    let mut calls: Vec<(AggCall, String)> = Vec::new();
    let mut collector = AggCollector { calls: &mut calls, pre: &mut pre, pre_names: &mut pre_names, scope: &scope };
    let items = select_items(s, &input)?;
    let mut converted = Vec::new();
    for (ordinal, item) in items.iter().enumerate() {
        match item {
            Item::Field(i) => {
                return Err(err(
                    at(&s.select_token.0),
                    format!(
                        "Expression {} is not being grouped (SELECT * in a GROUP BY query)",
                        quote(&input.names[*i])
                    ),
                ))
            }
            Item::Written(w) => {
                let e = item_expr(w).ok_or_else(|| unsupported(*w, "this select item"))?;
                let alias = match w {
                    ast::SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.clone()),
                    _ => None,
                };
                let c = collector.convert(e, alias.as_deref(), ordinal, group_len)?;
                converted.push((c, *w, ordinal));
            }
        }
    }
    // Name the projection's computed fields `$f<i>` (Calcite's default field names).
    for (i, (e, name)) in pre.iter().zip(pre_names.iter_mut()).enumerate() {
        if !matches!(e, Ex::Col(_)) {
            *name = format!("$f{i}");
        }
    }
    let pre_rel = Rel { node: Node::Calc { input: Box::new(input), items: pre, condition: None }, names: pre_names };
    let mut agg_names: Vec<String> = pre_rel.names[..group_len].to_vec();
    agg_names.extend(calls.iter().map(|(_, n)| n.clone()));
    let agg = Rel {
        node: Node::Aggregate {
            input: Box::new(pre_rel),
            group: (0..group_len).collect(),
            calls: calls.into_iter().map(|(c, _)| c).collect(),
            hint_ttl,
        },
        names: agg_names,
    };
    let mut items = Vec::new();
    let mut names = Vec::new();
    for (e, w, ordinal) in converted {
        names.push(item_name(w, &e, &agg.names, ordinal));
        items.push(e);
    }
    Ok(Rel { node: Node::Calc { input: Box::new(agg), items, condition: None }, names })
}

/// Converts a select item of an aggregate query: aggregate calls become fields of the
/// aggregate's output; other fields must be group keys.
struct AggCollector<'a, 's> {
    calls: &'a mut Vec<(AggCall, String)>,
    pre: &'a mut Vec<Ex>,
    pre_names: &'a mut Vec<String>,
    scope: &'a Scope<'s>,
}

impl AggCollector<'_, '_> {
    /// Field indexes at and above this stand for the aggregate's calls while an item converts.
    const CALL: usize = usize::MAX / 2;

    /// A select item over the aggregate's output: its calls become the aggregate's fields, any
    /// other field must be a group key (Calcite's `AggConverter`).
    fn convert(
        &mut self,
        e: &ast::Expr,
        alias: Option<&str>,
        ordinal: usize,
        group_len: usize,
    ) -> Result<Ex, SqlError> {
        let scope = self.scope;
        // A call written directly as the item takes its alias (or `EXPR$<ordinal>`), one inside
        // an expression `$f<field>`.
        let top = aggregate_or_window_call(e).is_some();
        let x = expr_with(e, scope, &mut |f| {
            if f.over.is_some() {
                return Some(Err(unsupported(f, "a window function (OVER) in a GROUP BY query")));
            }
            if !AGG_FUNCTIONS.contains(&function_name(f).as_str()) {
                return None;
            }
            let name = match (top, alias) {
                (true, Some(a)) => a.to_string(),
                (true, None) => format!("EXPR${ordinal}"),
                (false, _) => format!("$f{}", group_len + self.calls.len()),
            };
            Some(self.call(f, name).map(|j| Ex::Col(Self::CALL + j)))
        })?;
        let pre = &self.pre[..group_len];
        let mut used = Vec::new();
        x.columns(&mut used);
        if let Some(c) = used.iter().find(|&&c| c < Self::CALL && !pre.contains(&Ex::Col(c))) {
            return Err(err(at(e), format!("Expression {} is not being grouped", quote(&scope.rel.names[*c]))));
        }
        Ok(x.map_columns(&|c| {
            Ex::Col(if c >= Self::CALL {
                group_len + c - Self::CALL
            } else {
                pre.iter().position(|p| *p == Ex::Col(c)).unwrap_or(0)
            })
        }))
    }

    /// Adds an aggregate call named `name`: its arguments and `FILTER` go into the projection
    /// below the aggregate. Returns its index among the calls.
    fn call(&mut self, f: &ast::Function, name: String) -> Result<usize, SqlError> {
        let function = function_name(f);
        let (written, distinct) = agg_args(f, &function)?;
        let mut args = Vec::new();
        for a in written {
            let x = expr(a, self.scope)?;
            args.push(self.projected(x));
        }
        // `FILTER (WHERE c)`: `IS TRUE(c)` in the projection, after the call's arguments
        // (Calcite's `AggConverter`; real Flink 2.3: `agg_filter_clause_nottl`).
        let filter = match &f.filter {
            None => None,
            Some(c) => Some(self.projected(Ex::IsTrue(Box::new(expr(c, self.scope)?)))),
        };
        self.calls.push((AggCall { function, distinct, args, filter }, name));
        Ok(self.calls.len() - 1)
    }

    /// The field of the projection below the aggregate computing `x` (added when new; a plain
    /// field keeps its name, a computed one is named `$f<i>` later).
    fn projected(&mut self, x: Ex) -> usize {
        if let Some(i) = self.pre.iter().position(|p| *p == x) {
            return i;
        }
        self.pre_names.push(match x {
            Ex::Col(i) => self.scope.rel.names[i].clone(),
            _ => String::new(),
        });
        self.pre.push(x);
        self.pre.len() - 1
    }
}
