//! From the parsed query to the relational tree, as Calcite's `SqlToRelConverter` builds it for
//! Flink 2.3 (`FlinkPlannerImpl.rel`): `FROM` → scan or view, `WHERE` → filter, `GROUP BY` /
//! aggregate calls → a projection of the group keys and call arguments (`$f<i>` for computed
//! ones), the aggregate and a projection of the select list; `agg(x) OVER (…)` → a window over
//! its input (`w<i>$o<j>` for its calls); `ROW_NUMBER() OVER (…)` with a filter on it →
//! a rank (`FlinkLogicalRankRule`, `RankUtil.extractRankRange`).
//!
//! Anything else is refused with the construct named and where it was written.

use super::rel::{AggCall, Ex, Node, Rel};
use super::script::err;
use super::SqlError;
use crate::engine::error::{name as escaped, name_list, quote};
use sqlparser::ast::{self, Spanned};
use sqlparser::tokenizer::Location;
use std::collections::HashMap;

/// The source table of the scenario, as the SQL sees it.
#[derive(Debug, Clone)]
pub struct SourceTable {
    pub name: String,
    pub columns: Vec<String>,
    /// Its processing-time attribute (`pt AS PROCTIME()`), if it has one.
    pub proctime: Option<String>,
}

/// What a query can read: the source and the views created so far.
pub struct Catalog<'a> {
    pub source: &'a SourceTable,
    pub views: HashMap<String, Rel>,
}

/// The aggregate functions the engine models.
const AGG_FUNCTIONS: &[&str] = &["COUNT", "SUM", "MIN", "MAX", "LAST_VALUE", "LATEST_BY_TIME"];

/// A relation in scope with the name it is referred to by.
struct Scope<'r> {
    rel: &'r Rel,
    qualifier: Option<String>,
}

fn at(node: &impl Spanned) -> Location {
    let start = node.span().start;
    if start.line == 0 {
        Location { line: 1, column: 1 }
    } else {
        start
    }
}

fn unsupported(node: &impl Spanned, what: &str) -> SqlError {
    err(at(node), format!("{what} is not modelled by the simulator"))
}

/// Converts a query.
pub fn query(q: &ast::Query, catalog: &Catalog) -> Result<Rel, SqlError> {
    if let Some(with) = &q.with {
        return Err(err(
            at(&with.with_token.0),
            "WITH (common table expressions) is not modelled: use CREATE TEMPORARY VIEW",
        ));
    }
    if let Some(order_by) = &q.order_by {
        return Err(err(
            at(order_by),
            // `StreamExecSort` (Flink 2.3).
            "Sort on a non-time-attribute field is not supported.",
        ));
    }
    if let Some(limit) = &q.limit_clause {
        return Err(unsupported(limit, "LIMIT"));
    }
    match q.body.as_ref() {
        ast::SetExpr::Select(select) => self::select(select, catalog),
        ast::SetExpr::Query(inner) => query(inner, catalog),
        other => Err(unsupported(other, "this query form (UNION, VALUES, …)")),
    }
}

fn select(s: &ast::Select, catalog: &Catalog) -> Result<Rel, SqlError> {
    if let Some(d) = &s.distinct {
        return Err(unsupported(&s.select_token.0, &format!("SELECT {d}")));
    }
    if let Some(h) = &s.having {
        return Err(unsupported(h, "HAVING"));
    }
    if let Some(q) = &s.qualify {
        return Err(unsupported(q, "QUALIFY"));
    }
    let (input, qualifier) = from(s, catalog)?;
    let hint_ttl = state_ttl_hint(s, qualifier.as_deref())?;
    let mut rel = input;
    if let Some(condition) = &s.selection {
        rel = filter(rel, condition, qualifier.as_deref())?;
    }
    let group_by = match &s.group_by {
        ast::GroupByExpr::Expressions(exprs, modifiers) if modifiers.is_empty() => exprs.clone(),
        other => return Err(unsupported(&s.select_token.0, &format!("{other}"))),
    };
    let has_agg = s.projection.iter().any(|item| item_expr(item).is_some_and(contains_agg));
    if !group_by.is_empty() || has_agg {
        return aggregate(rel, s, &group_by, qualifier.as_deref(), hint_ttl);
    }
    if let Some(h) = &hint_ttl {
        return Err(err(
            at(&s.select_token.0),
            format!(
                "the STATE_TTL hint ({}) applies to a join or a group aggregation, and this SELECT has neither",
                quote(h)
            ),
        ));
    }
    project_with_windows(rel, s, qualifier.as_deref())
}

/// `FROM t [AS a]` or `FROM (subquery) [AS a]`: one relation, no join.
fn from(s: &ast::Select, catalog: &Catalog) -> Result<(Rel, Option<String>), SqlError> {
    let [table] = s.from.as_slice() else {
        return Err(match s.from.get(1) {
            Some(second) => unsupported(&second.relation, "a second FROM item (a join)"),
            None => err(at(&s.select_token.0), "SELECT without FROM is not modelled: read the scenario's source"),
        });
    };
    if let Some(join) = table.joins.first() {
        return Err(unsupported(&join.relation, "JOIN"));
    }
    match &table.relation {
        ast::TableFactor::Table { name, alias, args: None, .. } => {
            for part in &name.0 {
                if let ast::ObjectNamePart::Identifier(i) = part {
                    check_ident(i)?;
                }
            }
            if let Some(a) = alias {
                check_ident(&a.name)?;
            }
            let table_name = super::script::object_name(name);
            let rel = if let Some(view) = catalog.views.get(&table_name) {
                view.clone()
            } else if table_name == catalog.source.name {
                source(catalog.source)
            } else {
                let mut known: Vec<&str> = catalog.views.keys().map(String::as_str).collect();
                known.sort_unstable();
                known.insert(0, &catalog.source.name);
                return Err(err(
                    at(name),
                    format!(
                        "Object {} not found (tables and views: {})",
                        quote(&table_name),
                        name_list(known.iter().copied())
                    ),
                ));
            };
            let qualifier = alias.as_ref().map(|a| a.name.value.clone()).unwrap_or(table_name);
            Ok((rel, Some(qualifier)))
        }
        ast::TableFactor::Derived { lateral: false, subquery, alias, .. } => {
            if let Some(a) = alias {
                check_ident(&a.name)?;
            }
            Ok((query(subquery, catalog)?, alias.as_ref().map(|a| a.name.value.clone())))
        }
        other => Err(unsupported(other, "this FROM item")),
    }
}

/// The source as the SQL sees it: its physical columns, and its processing-time attribute
/// computed by a projection above the scan (Flink expands a computed column `pt AS PROCTIME()`
/// into the projection above the `TableSourceScan`).
fn source(table: &SourceTable) -> Rel {
    let scan = Rel { node: Node::Scan, names: table.columns.clone() };
    match &table.proctime {
        None => scan,
        Some(pt) => {
            let mut items: Vec<Ex> = (0..table.columns.len()).map(Ex::Col).collect();
            items.push(Ex::ProcTime);
            let mut names = table.columns.clone();
            names.push(pt.clone());
            Rel { node: Node::Calc { input: Box::new(scan), items, condition: None }, names }
        }
    }
}

/// `/*+ STATE_TTL('input' = 'duration') */` on this SELECT: the TTL for its aggregation's input
/// (`StateTtlHint`, Flink 1.19+: the key is the input's table, view or alias name).
fn state_ttl_hint(s: &ast::Select, qualifier: Option<&str>) -> Result<Option<String>, SqlError> {
    let mut ttl = None;
    for hint in &s.optimizer_hints {
        let text = hint.text.trim();
        let location = at(&s.select_token.0);
        let Some(open) = text.find('(') else {
            return Err(err(
                location,
                format!("hint {}: only STATE_TTL('input' = 'duration') is modelled", quote(text)),
            ));
        };
        let name = text[..open].trim();
        if !name.eq_ignore_ascii_case("STATE_TTL") {
            return Err(err(location, format!("hint {}: only STATE_TTL is modelled", quote(name))));
        }
        let body = text[open + 1..].trim_end().strip_suffix(')').unwrap_or("");
        for pair in body.split(',').filter(|p| !p.trim().is_empty()) {
            let mut kv = pair.splitn(2, '=');
            let key = unquote(kv.next().unwrap_or(""));
            let value = unquote(kv.next().unwrap_or(""));
            if Some(key.as_str()) != qualifier {
                return Err(err(
                    location,
                    format!(
                        "STATE_TTL key {} is not the input of this query ({}): the hint names the table, view or alias it reads",
                        quote(&key),
                        qualifier.map_or("a subquery without an alias".to_string(), escaped)
                    ),
                ));
            }
            ttl = Some(value);
        }
    }
    Ok(ttl)
}

fn unquote(s: &str) -> String {
    let t = s.trim();
    t.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')).unwrap_or(t).to_string()
}

/// `WHERE condition` over `input`: a rank when it filters a `ROW_NUMBER()` (`rn <= N`,
/// `rn < N`, `rn = 1`), else a filter.
fn filter(input: Rel, condition: &ast::Expr, qualifier: Option<&str>) -> Result<Rel, SqlError> {
    let scope = Scope { rel: &input, qualifier: qualifier.map(str::to_string) };
    let cond = expr(condition, &scope)?;
    if let Some(rank) = rank_filter(&input, &cond, condition)? {
        return Ok(rank);
    }
    let n = input.names.len();
    let names = input.names.clone();
    Ok(Rel {
        node: Node::Calc { input: Box::new(input), items: (0..n).map(Ex::Col).collect(), condition: Some(cond) },
        names,
    })
}

/// The field of a `RowNumber` (through projections of plain fields) that `input`'s field `i` is.
fn row_number_field(input: &Rel, i: usize) -> Option<&Rel> {
    match &input.node {
        Node::RowNumber { .. } if i + 1 == input.names.len() => Some(input),
        Node::Calc { input: inner, items, condition: None } => match items.get(i)? {
            Ex::Col(j) => row_number_field(inner, *j),
            _ => None,
        },
        _ => None,
    }
}

/// `FlinkLogicalRankRule`: a filter `rn <= N` / `rn < N` / `rn = N` (N = 1) over a
/// `ROW_NUMBER()` becomes a rank with `rankEnd = N` (`RankUtil.extractRankRange`).
fn rank_filter(input: &Rel, cond: &Ex, written: &ast::Expr) -> Result<Option<Rel>, SqlError> {
    let Ex::Cmp(op, a, b) = cond else { return Ok(None) };
    let (Ex::Col(i), Ex::Lit(n)) = (a.as_ref(), b.as_ref()) else { return Ok(None) };
    let Some(rn) = row_number_field(input, *i) else { return Ok(None) };
    let Node::RowNumber { input: inner, partition, order, .. } = &rn.node else { return Ok(None) };
    let n: u64 =
        n.parse().map_err(|_| err(at(written), format!("the rank filter needs a whole number, found {}", quote(n))))?;
    let end = match *op {
        "<=" => n,
        "<" => n.saturating_sub(1),
        "=" if n == 1 => 1,
        _ => return Err(err(at(written), "a rank filter other than rn <= N, rn < N or rn = 1 is not modelled")),
    };
    if end == 0 {
        return Err(err(at(written), "the rank filter keeps no row (rank end < 1)"));
    }
    // The rank's output is its input's fields then the row number; the projection between the
    // row number and the filter (if any) goes on top, as Calcite keeps it.
    let mut names = inner.names.clone();
    names.push(rn.names.last().cloned().unwrap_or_default());
    // A rank range of one row makes the rank number a constant: Flink's rank does not output it
    // and a projection writes the literal (`RankUtil`/`FlinkLogicalRankRule`, Flink 2.3:
    // `Calc(select=[…, 1:BIGINT AS rn])` over `Rank(… rankEnd=1 …)`).
    let n = inner.names.len();
    let rank = |output_rank: bool| Node::Rank {
        input: inner.clone(),
        partition: partition.clone(),
        order: order.clone(),
        rank_end: end,
        output_rank,
    };
    let rank = if end == 1 {
        let mut items: Vec<Ex> = (0..n).map(Ex::Col).collect();
        items.push(Ex::Lit("CAST(1 AS BIGINT)".into()));
        let below = Rel { node: rank(false), names: inner.names.clone() };
        Rel { node: Node::Calc { input: Box::new(below), items, condition: None }, names }
    } else {
        Rel { node: rank(true), names }
    };
    Ok(Some(replace_row_number(input, rank)))
}

/// `input` with its `RowNumber` node replaced by `rank`.
fn replace_row_number(input: &Rel, rank: Rel) -> Rel {
    match &input.node {
        Node::RowNumber { .. } => rank,
        Node::Calc { input: inner, items, condition } => Rel {
            node: Node::Calc {
                input: Box::new(replace_row_number(inner, rank)),
                items: items.clone(),
                condition: condition.clone(),
            },
            names: input.names.clone(),
        },
        _ => input.clone(),
    }
}

fn item_expr(item: &ast::SelectItem) -> Option<&ast::Expr> {
    match item {
        ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    }
}

/// A function's name for a message, escaped and shortened.
fn name_of(function: &str) -> String {
    escaped(function)
}

fn function_name(f: &ast::Function) -> String {
    super::script::object_name(&f.name).to_ascii_uppercase()
}

/// `e` when it is an aggregate call or a window call (not `PROCTIME()` or another scalar function).
fn aggregate_or_window_call(e: &ast::Expr) -> Option<&ast::Function> {
    match e {
        ast::Expr::Function(f) if f.over.is_some() || AGG_FUNCTIONS.contains(&function_name(f).as_str()) => Some(f),
        _ => None,
    }
}

/// Whether `e` holds an aggregate call outside an `OVER` window.
fn contains_agg(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Function(f) => (f.over.is_none() && AGG_FUNCTIONS.contains(&function_name(f).as_str())) || false,
        ast::Expr::BinaryOp { left, right, .. } => contains_agg(left) || contains_agg(right),
        ast::Expr::UnaryOp { expr, .. }
        | ast::Expr::Nested(expr)
        | ast::Expr::IsNull(expr)
        | ast::Expr::IsNotNull(expr) => contains_agg(expr),
        ast::Expr::Case { conditions, else_result, .. } => {
            conditions.iter().any(|c| contains_agg(&c.condition) || contains_agg(&c.result))
                || else_result.as_deref().is_some_and(contains_agg)
        }
        _ => false,
    }
}

/// A select item's name: its alias, a column's own name, else Calcite's `EXPR$<ordinal>`.
/// Checks a select item's alias.
fn check_alias(item: &ast::SelectItem) -> Result<(), SqlError> {
    match item {
        ast::SelectItem::ExprWithAlias { alias, .. } => check_ident(alias),
        _ => Ok(()),
    }
}

fn item_name(item: &ast::SelectItem, converted: &Ex, input_names: &[String], ordinal: usize) -> String {
    match (item, converted) {
        (ast::SelectItem::ExprWithAlias { alias, .. }, _) => alias.value.clone(),
        (_, Ex::Col(i)) => input_names[*i].clone(),
        _ => format!("EXPR${ordinal}"),
    }
}

/// The select list over `input`, expanding `*`.
fn select_items<'a>(s: &'a ast::Select, input: &Rel) -> Result<Vec<Item<'a>>, SqlError> {
    let mut out = Vec::new();
    for item in &s.projection {
        match item {
            ast::SelectItem::Wildcard(opts) => {
                if opts.opt_exclude.is_some()
                    || opts.opt_except.is_some()
                    || opts.opt_replace.is_some()
                    || opts.opt_rename.is_some()
                {
                    return Err(unsupported(item, "SELECT * with modifiers"));
                }
                out.extend((0..input.names.len()).map(Item::Field));
            }
            ast::SelectItem::QualifiedWildcard(..) => out.extend((0..input.names.len()).map(Item::Field)),
            other => {
                check_alias(other)?;
                out.push(Item::Written(other));
            }
        }
    }
    Ok(out)
}

enum Item<'a> {
    /// A field of the input (from `*`).
    Field(usize),
    Written(&'a ast::SelectItem),
}

/// A SELECT without aggregation: window functions (`OVER`) first, then the select list.
fn project_with_windows(input: Rel, s: &ast::Select, qualifier: Option<&str>) -> Result<Rel, SqlError> {
    let items = select_items(s, &input)?;
    let scope_in = Scope { rel: &input, qualifier: qualifier.map(str::to_string) };
    // Window calls, numbered as Calcite numbers them (`w0$o0`, `w0$o1`, …: one window spec).
    let mut window: Option<(WindowKey, Location)> = None;
    let mut calls: Vec<AggCall> = Vec::new();
    let mut row_number: Option<(Vec<usize>, Vec<(usize, bool)>, Location)> = None;
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
    let scope = Scope { rel: &rel, qualifier: qualifier.map(str::to_string) };
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
fn window_keys(spec: &ast::WindowSpec, scope: &Scope) -> Result<(Vec<usize>, Vec<(usize, bool)>), SqlError> {
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

/// An aggregate call over fields of the scope (`COUNT(*)`, `SUM(v)`, `COUNT(DISTINCT v)`).
fn agg_call(f: &ast::Function, name: &str, scope: &Scope) -> Result<AggCall, SqlError> {
    let (written, distinct) = agg_args(f, name)?;
    let mut args = Vec::new();
    for e in written {
        match expr(e, scope)? {
            Ex::Col(i) => args.push(i),
            _ => return Err(unsupported(e, "an expression as a window function's argument")),
        }
    }
    Ok(AggCall { function: name.to_string(), distinct, args })
}

/// The arguments of an aggregate call (none for `*`) and whether it is `DISTINCT`.
/// `LATEST_BY_TIME(value, time)` is the seed-004 user-defined aggregate (`LatestTimeUdf`), which
/// the engine models.
fn agg_args<'f>(f: &'f ast::Function, name: &str) -> Result<(Vec<&'f ast::Expr>, bool), SqlError> {
    if !AGG_FUNCTIONS.contains(&name) {
        return Err(err(
            at(f),
            format!(
                "function {} is not modelled (aggregates: {}; window: ROW_NUMBER)",
                name_of(name),
                AGG_FUNCTIONS.join(", ")
            ),
        ));
    }
    if let Some(filter) = &f.filter {
        return Err(unsupported(filter.as_ref(), "an aggregate's FILTER (WHERE …) clause"));
    }
    let ast::FunctionArguments::List(list) = &f.args else {
        return Err(err(at(f), format!("{} needs an argument", name_of(name))));
    };
    if let Some(c) = list.clauses.first() {
        return Err(err(at(f), format!("{} inside {}(…) is not modelled", escaped(&c.to_string()), name_of(name))));
    }
    let distinct = matches!(list.duplicate_treatment, Some(ast::DuplicateTreatment::Distinct));
    if distinct && name != "COUNT" {
        return Err(err(at(f), format!("{}(DISTINCT …) is not modelled (COUNT(DISTINCT …) is)", name_of(name))));
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
                    _ => return Err(err(at(f), format!("{} takes {arity} argument(s) here", name_of(name)))),
                }
            }
            Ok((out, distinct))
        }
        _ => Err(err(at(f), format!("{} takes {arity} argument(s) here", name_of(name)))),
    }
}

/// A `GROUP BY` query (or a global aggregate): the projection of group keys and call
/// arguments, the aggregate, then the select list over its output.
fn aggregate(
    input: Rel,
    s: &ast::Select,
    group_by: &[ast::Expr],
    qualifier: Option<&str>,
    hint_ttl: Option<String>,
) -> Result<Rel, SqlError> {
    let scope = Scope { rel: &input, qualifier: qualifier.map(str::to_string) };
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
    fn convert(
        &mut self,
        e: &ast::Expr,
        alias: Option<&str>,
        ordinal: usize,
        group_len: usize,
    ) -> Result<Ex, SqlError> {
        let mut top = Some(alias);
        self.walk(e, &mut top, ordinal, group_len)
    }

    fn walk(
        &mut self,
        e: &ast::Expr,
        top: &mut Option<Option<&str>>,
        ordinal: usize,
        group_len: usize,
    ) -> Result<Ex, SqlError> {
        let alias = top.take();
        if let Some(f) = aggregate_or_window_call(e) {
            if f.over.is_some() {
                return Err(unsupported(f, "a window function (OVER) in a GROUP BY query"));
            }
            let name = function_name(f);
            let (written, distinct) = agg_args(f, &name)?;
            let mut args = Vec::new();
            for a in written {
                let x = expr(a, self.scope)?;
                args.push(match self.pre.iter().position(|p| *p == x) {
                    Some(i) => i,
                    None => {
                        self.pre.push(x.clone());
                        self.pre_names.push(match x {
                            Ex::Col(i) => self.scope.rel.names[i].clone(),
                            _ => String::new(),
                        });
                        self.pre.len() - 1
                    }
                });
            }
            let call = AggCall { function: name, distinct, args };
            // A call written directly as the item takes its alias (or `EXPR$<ordinal>`).
            let name = match alias {
                Some(Some(a)) => a.to_string(),
                Some(None) => format!("EXPR${ordinal}"),
                None => format!("$f{}", group_len + self.calls.len()),
            };
            self.calls.push((call, name));
            return Ok(Ex::Col(group_len + self.calls.len() - 1));
        }
        if !contains_agg(e) {
            // A group key (or a literal, or an expression of them).
            let x = expr(e, self.scope)?;
            let mut used = Vec::new();
            x.columns(&mut used);
            for c in &used {
                if !self.pre[..group_len].contains(&Ex::Col(*c)) {
                    return Err(err(
                        at(e),
                        format!("Expression {} is not being grouped", quote(&self.scope.rel.names[*c])),
                    ));
                }
            }
            let pre = &self.pre[..group_len];
            return Ok(x.map_columns(&|c| Ex::Col(pre.iter().position(|p| *p == Ex::Col(c)).unwrap_or(0))));
        }
        let mut w = |x: &ast::Expr| self.walk(x, &mut None, ordinal, group_len);
        match e {
            ast::Expr::Nested(x) => w(x),
            ast::Expr::BinaryOp { left, op, right } => {
                let (l, r) = (w(left)?, w(right)?);
                binary(op, l, r).ok_or_else(|| unsupported(e, &format!("the operator {op}")))
            }
            ast::Expr::UnaryOp { op: ast::UnaryOperator::Not, expr } => Ok(Ex::Not(Box::new(w(expr)?))),
            ast::Expr::IsNull(x) => Ok(Ex::IsNull { expr: Box::new(w(x)?), negated: false }),
            ast::Expr::IsNotNull(x) => Ok(Ex::IsNull { expr: Box::new(w(x)?), negated: true }),
            ast::Expr::Case { operand: None, conditions, else_result, .. } => {
                let mut whens = Vec::new();
                for c in conditions {
                    whens.push((w(&c.condition)?, w(&c.result)?));
                }
                let otherwise = match else_result {
                    Some(x) => Some(Box::new(w(x)?)),
                    None => None,
                };
                Ok(Ex::Case { whens, otherwise })
            }
            other => Err(unsupported(other, "this expression")),
        }
    }
}

fn binary(op: &ast::BinaryOperator, l: Ex, r: Ex) -> Option<Ex> {
    use ast::BinaryOperator as B;
    let (l, r) = (Box::new(l), Box::new(r));
    Some(match op {
        B::Eq => Ex::Cmp("=", l, r),
        B::NotEq => Ex::Cmp("<>", l, r),
        B::Lt => Ex::Cmp("<", l, r),
        B::LtEq => Ex::Cmp("<=", l, r),
        B::Gt => Ex::Cmp(">", l, r),
        B::GtEq => Ex::Cmp(">=", l, r),
        B::Plus => Ex::Cmp("+", l, r),
        B::Minus => Ex::Cmp("-", l, r),
        B::Multiply => Ex::Cmp("*", l, r),
        B::Divide => Ex::Cmp("/", l, r),
        B::Modulo => Ex::Cmp("%", l, r),
        B::And => Ex::And(l, r),
        B::Or => Ex::Or(l, r),
        _ => return None,
    })
}

/// A scalar expression over the scope's fields.
fn expr(e: &ast::Expr, scope: &Scope) -> Result<Ex, SqlError> {
    let w = |x: &ast::Expr| expr(x, scope);
    match e {
        ast::Expr::Identifier(id) => field(scope, None, id),
        ast::Expr::CompoundIdentifier(parts) => match parts.as_slice() {
            [q, id] => field(scope, Some(q), id),
            _ => Err(unsupported(e, "a name with more than two parts")),
        },
        ast::Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => Ok(Ex::Lit(n.clone())),
            ast::Value::SingleQuotedString(s) => Ok(Ex::Lit(format!("'{}'", s.replace('\'', "''")))),
            ast::Value::Boolean(b) => Ok(Ex::Lit(if *b { "TRUE" } else { "FALSE" }.into())),
            ast::Value::Null => Ok(Ex::Lit("NULL".into())),
            _ => Err(unsupported(e, "this literal")),
        },
        ast::Expr::Nested(x) => w(x),
        ast::Expr::BinaryOp { left, op, right } => {
            let (l, r) = (w(left)?, w(right)?);
            binary(op, l, r).ok_or_else(|| unsupported(e, &format!("the operator {op}")))
        }
        ast::Expr::UnaryOp { op: ast::UnaryOperator::Not, expr: x } => Ok(Ex::Not(Box::new(w(x)?))),
        ast::Expr::UnaryOp { op: ast::UnaryOperator::Minus, expr: x } => match x.as_ref() {
            ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)) => Ok(Ex::Lit(format!("-{}", v.value))),
            _ => Err(unsupported(e, "arithmetic")),
        },
        ast::Expr::IsNull(x) => Ok(Ex::IsNull { expr: Box::new(w(x)?), negated: false }),
        ast::Expr::IsNotNull(x) => Ok(Ex::IsNull { expr: Box::new(w(x)?), negated: true }),
        ast::Expr::Case { operand: None, conditions, else_result, .. } => {
            let mut whens = Vec::new();
            for c in conditions {
                whens.push((w(&c.condition)?, w(&c.result)?));
            }
            let otherwise = match else_result {
                Some(x) => Some(Box::new(w(x)?)),
                None => None,
            };
            Ok(Ex::Case { whens, otherwise })
        }
        ast::Expr::Function(f) if function_name(f) == "PROCTIME" => Ok(Ex::ProcTime),
        ast::Expr::Function(f) if AGG_FUNCTIONS.contains(&function_name(f).as_str()) => Err(unsupported(
            f,
            &format!("{} here (an aggregate outside the select list of a GROUP BY query)", function_name(f)),
        )),
        ast::Expr::Function(f) => Err(err(at(f), format!("function {} is not modelled", function_name(f)))),
        other => Err(unsupported(other, &format!("the expression {}", quote(&other.to_string())))),
    }
}

/// An unquoted identifier that is a reserved word is a parse error in Flink (its message).
pub fn check_ident(id: &ast::Ident) -> Result<(), SqlError> {
    if id.quote_style.is_none() && super::reserved_words::is_reserved(&id.value) {
        return Err(err(
            id.span.start,
            format!(
                "Encountered \"{}\" at line {}, column {}: {} is a reserved word of Flink SQL; quote it as `{}`",
                escaped(&id.value),
                id.span.start.line,
                id.span.start.column,
                escaped(&id.value.to_ascii_uppercase()),
                escaped(&id.value)
            ),
        ));
    }
    Ok(())
}

/// A field by name, case-sensitive as Flink's default (`table.identifier.case-sensitive`
/// is Calcite's `caseSensitive = true`).
fn field(scope: &Scope, qualifier: Option<&ast::Ident>, id: &ast::Ident) -> Result<Ex, SqlError> {
    check_ident(id)?;
    if let Some(q) = qualifier {
        check_ident(q)?;
        if scope.qualifier.as_deref() != Some(q.value.as_str()) {
            return Err(err(q.span.start, format!("Table {} not found", quote(&q.value))));
        }
    }
    match scope.rel.names.iter().position(|n| *n == id.value) {
        Some(i) => Ok(Ex::Col(i)),
        None => Err(err(
            id.span.start,
            format!(
                "Column {} not found in {} (columns: {})",
                quote(&id.value),
                scope.qualifier.as_deref().map_or("the input".to_string(), |q| format!("table {}", quote(q))),
                name_list(scope.rel.names.iter().map(String::as_str))
            ),
        )),
    }
}
