//! `OVER` windows in a SELECT (Calcite's `SqlToRelConverter.convertOver`, Flink 2.3): the
//! window calls of one window spec (`w0$o0`, …; `SUM` as `CASE(COUNT > 0, $SUM0, NULL)`), or a
//! `ROW_NUMBER()` that a filter may turn into a rank ([`super::convert`]), then the select list.

use super::aggregate::agg_call;
use super::convert::{
    at, expr, function_name, item_expr, item_name, select_items, unsupported, FromNames, Item, Scope,
};
use super::rel::{AggCall, Ex, Node, Rel};
use super::script::err;
use super::SqlError;
use crate::engine::error::quote;
use sqlparser::ast;
use sqlparser::tokenizer::Location;

/// `ORDER BY` fields, each with whether it is descending.
type SortKeys = Vec<(usize, bool)>;

/// A SELECT without aggregation: window functions (`OVER`) first, then the select list.
pub(super) fn project_with_windows(input: Rel, s: &ast::Select, qualifier: &FromNames) -> Result<Rel, SqlError> {
    let items = select_items(s, &input)?;
    let scope_in = Scope::new(&input, qualifier);
    // Window calls, numbered as Calcite numbers them (`w0$o0`, `w0$o1`, …: one window spec).
    let mut window: Option<(WindowKey, Location)> = None;
    let mut calls: Vec<AggCall> = Vec::new();
    let mut row_number: Option<(Vec<usize>, SortKeys, Location)> = None;
    let mut placeholders: Vec<Option<WindowRef>> = Vec::new();
    for item in &items {
        let Item::Written(w) = item else {
            placeholders.push(None);
            continue;
        };
        let e = item_expr(w).ok_or_else(|| unsupported(*w, "this select item"))?;
        match e {
            ast::Expr::Function(f) if f.over.is_some() => {
                let spec = match &f.over {
                    Some(ast::WindowType::WindowSpec(spec)) => spec,
                    Some(ast::WindowType::NamedWindow(name)) => named_window(s, name)?,
                    None => unreachable_window(f)?,
                };
                let name = function_name(f);
                let (partition, order) = window_keys(spec, &scope_in)?;
                // `StreamExecRank` (Flink 2.3) runs ROW_NUMBER only: a Top-N by RANK() or
                // DENSE_RANK() is refused with these messages.
                if name == "RANK" || name == "DENSE_RANK" {
                    return Err(err(at(f), format!("{name}() on streaming table is not supported currently")));
                }
                if name == "ROW_NUMBER" {
                    if row_number.is_some() || window.is_some() {
                        return Err(unsupported(f, "ROW_NUMBER() beside another window function in one SELECT"));
                    }
                    if order.is_empty() {
                        return Err(err(at(f), "ROW_NUMBER() needs ORDER BY in its OVER clause"));
                    }
                    row_number = Some((partition, order, at(f)));
                    placeholders.push(Some(WindowRef::Call(0)));
                    continue;
                }
                if row_number.is_some() {
                    return Err(unsupported(f, "a window function beside ROW_NUMBER() in one SELECT"));
                }
                let frame = frame_text(spec, f)?;
                let [(order_field, false)] = order.as_slice() else {
                    return Err(err(
                        at(f),
                        "OVER windows' ordering in stream mode must be defined on a time attribute (one ascending field)",
                    ));
                };
                let key = WindowKey { partition, order: *order_field, frame };
                match &window {
                    Some((k, _)) if *k != key => return Err(unsupported(f, "a second OVER window in one SELECT")),
                    _ => window = Some((key, at(f))),
                }
                let call = agg_call(f, &name, &scope_in)?;
                let mut index_of = |c: AggCall| match calls.iter().position(|x| *x == c) {
                    Some(i) => i,
                    None => {
                        calls.push(c);
                        calls.len() - 1
                    }
                };
                if call.function == "SUM" {
                    // `SUM(x) OVER w` is `CASE(COUNT(x) OVER w > 0, $SUM0(x) OVER w, NULL)`
                    // (Calcite's `RexBuilder.makeOver` with `nullWhenCountZero`).
                    let count = index_of(AggCall { function: "COUNT".into(), ..call.clone() });
                    // (`args` and `distinct` as the SUM's.)
                    let sum = index_of(AggCall { function: "$SUM0".into(), ..call });
                    placeholders.push(Some(WindowRef::SumCase { count, sum }));
                } else {
                    placeholders.push(Some(WindowRef::Call(index_of(call))));
                }
            }
            _ => placeholders.push(None),
        }
    }
    let n = input.names.len();
    let mut rel = input;
    if let Some((partition, order, location)) = row_number {
        let mut names = rel.names.clone();
        names.push("w0$o0".into());
        rel = Rel { node: Node::RowNumber { input: Box::new(rel), partition, order, at: location }, names };
    } else if let Some((key, _)) = window {
        let mut names = rel.names.clone();
        names.extend((0..calls.len()).map(|j| format!("w0$o{j}")));
        // `ProjectToWindowRule` / `CalcRelSplitter` (Calcite, Flink 2.3): when the windowed
        // SELECT has as many fields as its input, the split projections name their computed fields
        // `$<index>` (real Flink 2.3: `over_range_1h_nottl`, `oracle_dau_over_1preceding_*`,
        // `over_unbounded_into_agg_*` print `PROCTIME() AS $2` and `w0$o0 AS $2`); with more fields
        // they keep their names (`over_rows_2preceding_*`: `PROCTIME() AS pt`, `w0$o0 AS mn`).
        let dollar_names = items.len() == n;
        rel = Rel {
            node: Node::Over {
                input: Box::new(rel),
                partition: key.partition,
                order: key.order,
                frame: key.frame,
                calls,
                dollar_names,
            },
            names,
        };
    }
    // The select list over the input (and the window's fields after it).
    let scope = Scope::new(&rel, qualifier);
    let mut exprs = Vec::new();
    let mut names = Vec::new();
    for (ordinal, (item, placeholder)) in items.iter().zip(&placeholders).enumerate() {
        let (e, name) = match (item, placeholder) {
            (Item::Field(i), _) => (Ex::Col(*i), rel.names[*i].clone()),
            (Item::Written(w), Some(reference)) => {
                let name = match w {
                    ast::SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                    _ => format!("EXPR${ordinal}"),
                };
                let e = match *reference {
                    WindowRef::Call(j) => Ex::Col(n + j),
                    WindowRef::SumCase { count, sum } => Ex::Case {
                        whens: vec![(
                            Ex::Cmp(">", Box::new(Ex::Col(n + count)), Box::new(Ex::Lit("CAST(0 AS BIGINT)".into()))),
                            Ex::Col(n + sum),
                        )],
                        otherwise: Some(Box::new(Ex::Lit("NULL".into()))),
                    },
                };
                (e, name)
            }
            (Item::Written(w), None) => {
                let e = expr(item_expr(w).ok_or_else(|| unsupported(*w, "this select item"))?, &scope)?;
                let name = item_name(w, &e, &rel.names, ordinal);
                (e, name)
            }
        };
        exprs.push(e);
        names.push(name);
    }
    Ok(Rel { node: Node::Calc { input: Box::new(rel), items: exprs, condition: None }, names })
}

/// `OVER w` with `WINDOW w AS (…)` in the same SELECT.
fn named_window<'s>(s: &'s ast::Select, name: &ast::Ident) -> Result<&'s ast::WindowSpec, SqlError> {
    let mut current = name;
    for _ in 0..=s.named_window.len() {
        match s.named_window.iter().find(|d| d.0.value == current.value).map(|d| &d.1) {
            Some(ast::NamedWindowExpr::WindowSpec(spec)) => return Ok(spec),
            Some(ast::NamedWindowExpr::NamedWindow(next)) => current = next,
            None => break,
        }
    }
    Err(err(name.span.start, format!("Window {} not found", quote(&name.value))))
}

fn unreachable_window(f: &ast::Function) -> Result<&ast::WindowSpec, SqlError> {
    Err(err(at(f), "a window function needs an OVER clause"))
}

/// What a select item of a windowed SELECT reads: a window call, or the `CASE` of a `SUM`.
#[derive(Clone, Copy)]
enum WindowRef {
    Call(usize),
    SumCase { count: usize, sum: usize },
}

#[derive(PartialEq)]
struct WindowKey {
    partition: Vec<usize>,
    order: usize,
    frame: String,
}

/// `PARTITION BY` fields and `ORDER BY` (field, descending) of a window.
fn window_keys(spec: &ast::WindowSpec, scope: &Scope) -> Result<(Vec<usize>, SortKeys), SqlError> {
    let mut partition = Vec::new();
    for p in &spec.partition_by {
        match expr(p, scope)? {
            Ex::Col(i) => partition.push(i),
            _ => return Err(unsupported(p, "PARTITION BY an expression")),
        }
    }
    let mut order = Vec::new();
    for o in &spec.order_by {
        match expr(&o.expr, scope)? {
            Ex::Col(i) => order.push((i, matches!(o.options.sort, Some(ast::OrderBySort::Desc)))),
            _ => return Err(unsupported(&o.expr, "ORDER BY an expression")),
        }
        if o.options.nulls_first.is_some() {
            return Err(unsupported(&o.expr, "NULLS FIRST / NULLS LAST"));
        }
    }
    Ok((partition, order))
}

/// The frame as the engine's `OverAggregate` reads it; without one, `RANGE BETWEEN UNBOUNDED
/// PRECEDING AND CURRENT ROW` (SQL's default for an ordered window).
fn frame_text(spec: &ast::WindowSpec, f: &ast::Function) -> Result<String, SqlError> {
    match &spec.window_frame {
        None => Ok("RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW".into()),
        Some(frame) => {
            let end = frame.end_bound.as_ref().map_or("CURRENT ROW".to_string(), ToString::to_string);
            if end != "CURRENT ROW" {
                // `StreamExecOverAggregate` (Flink 2.3) translates only `… AND CURRENT ROW` frames.
                return Err(err(at(f), "OVER RANGE FOLLOWING windows are not supported yet."));
            }
            Ok(format!("{} BETWEEN {} AND CURRENT ROW", frame.units, frame.start_bound))
        }
    }
}
