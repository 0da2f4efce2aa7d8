//! From the parsed query to the relational tree, as Calcite's `SqlToRelConverter` builds it for
//! Flink 2.3 (`FlinkPlannerImpl.rel`): `FROM` → scan or view, `WHERE` → filter, `GROUP BY` /
//! aggregate calls → a projection of the group keys and call arguments (`$f<i>` for computed
//! ones), the aggregate and a projection of the select list; `agg(x) OVER (…)` → a window over
//! its input (`w<i>$o<j>` for its calls); `ROW_NUMBER() OVER (…)` with a filter on it →
//! a rank (`FlinkLogicalRankRule`, `RankUtil.extractRankRange`).
//!
//! Anything else is refused with the construct named and where it was written.

use super::rel::{Ex, Node, Rel};
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
    /// The primary key of the `ChangelogNormalize` Flink puts over its scan, when it puts one
    /// ([`crate::engine::scenario::Source::planned_normalize`]).
    pub normalize: Option<Vec<String>>,
    /// The column its `WATERMARK FOR` is on (its event-time attribute), if it has one.
    pub watermark: Option<String>,
}

/// What a query can read: the sources and the views created so far.
pub struct Catalog<'a> {
    pub sources: &'a [SourceTable],
    pub views: HashMap<String, Rel>,
    /// Where the script wrote a table argument's name (`input => TABLE name`).
    pub table_arguments: &'a [Location],
}

/// The aggregate functions the engine models.
pub(super) const AGG_FUNCTIONS: &[&str] = &["COUNT", "SUM", "MIN", "MAX", "LAST_VALUE", "LATEST_BY_TIME"];

/// A relation in scope with the name it is referred to by.
pub(super) struct Scope<'r> {
    pub(super) rel: &'r Rel,
    pub(super) qualifier: Option<String>,
    /// A join's inputs: each one's name and the range of its fields in `rel`.
    pub(super) sides: Vec<(String, usize, usize)>,
    /// A join's fields as each input names them (`rel`'s names are made unique).
    pub(super) input_names: Vec<String>,
}

/// The names a FROM clause gives what it reads: one relation's (its table, view or alias), or
/// a join's inputs', each with the range of its fields.
#[derive(Debug, Clone, Default)]
pub(super) struct FromNames {
    pub(super) qualifier: Option<String>,
    pub(super) sides: Vec<(String, usize, usize)>,
}

impl FromNames {
    pub(super) fn one(qualifier: Option<String>) -> FromNames {
        FromNames { qualifier, sides: Vec::new() }
    }
}

impl<'r> Scope<'r> {
    pub(super) fn new(rel: &'r Rel, from: &FromNames) -> Scope<'r> {
        let input_names = if from.sides.is_empty() { Vec::new() } else { super::join::join_input_names(rel) };
        Scope { rel, qualifier: from.qualifier.clone(), sides: from.sides.clone(), input_names }
    }
}

pub(super) fn at(node: &impl Spanned) -> Location {
    let start = node.span().start;
    if start.line == 0 {
        Location { line: 1, column: 1 }
    } else {
        start
    }
}

pub(super) fn unsupported(node: &impl Spanned, what: &str) -> SqlError {
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
    let (input, qualifier) = super::join::from(s, catalog)?;
    let mut hint_ttl = state_ttl_hint(s, &qualifier)?;
    let mut rel = input;
    // On a join the hint gives each side its TTL (`StateTtlHint.getStateTtlFromHintOnBiRel`).
    if let Node::Join { hints, snapshot, .. } = &mut rel.node {
        if let (Some(_), Some(pairs)) = (snapshot, &hint_ttl) {
            let written: Vec<String> = pairs.iter().map(|(k, v)| format!("'{k}' = '{v}'")).collect();
            return Err(err(
                at(&s.select_token.0),
                format!(
                    "STATE_TTL({}) on a LATERAL SNAPSHOT join: its state TTL is its own argument, \
                     state_ttl => INTERVAL '…' SECOND",
                    escaped(&written.join(", "))
                ),
            ));
        }
        for (key, value) in hint_ttl.take().unwrap_or_default() {
            let is_left = qualifier.sides.first().is_some_and(|(n, _, _)| *n == key);
            hints.retain(|(l, _)| *l != is_left);
            hints.push((is_left, value));
        }
        hints.sort_by_key(|(l, _)| !*l);
    }
    let hint_ttl = hint_ttl.and_then(|pairs| pairs.into_iter().last().map(|(_, v)| v));
    if let Some(condition) = &s.selection {
        rel = super::join::where_clause(rel, condition, &qualifier, catalog)?;
    }
    let group_by = match &s.group_by {
        ast::GroupByExpr::Expressions(exprs, modifiers) if modifiers.is_empty() => exprs.clone(),
        other => return Err(unsupported(&s.select_token.0, &format!("{other}"))),
    };
    let has_agg = s.projection.iter().any(|item| item_expr(item).is_some_and(contains_agg));
    if !group_by.is_empty() || has_agg {
        return super::aggregate::aggregate(rel, s, &group_by, &qualifier, hint_ttl);
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
    super::window::project_with_windows(rel, s, &qualifier)
}

/// One FROM item: a table or view by name, or a subquery; and the name it is referred to by.
pub(super) fn relation(factor: &ast::TableFactor, catalog: &Catalog) -> Result<(Rel, Option<String>), SqlError> {
    match factor {
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
            let rel = named_relation(&table_name, at(name), catalog)?;
            let qualifier = alias.as_ref().map(|a| a.name.value.clone()).unwrap_or(table_name);
            Ok((rel, Some(qualifier)))
        }
        ast::TableFactor::Derived { lateral: false, subquery, alias, .. } => {
            if let Some(a) = alias {
                check_ident(&a.name)?;
            }
            Ok((query(subquery, catalog)?, alias.as_ref().map(|a| a.name.value.clone())))
        }
        other => Err(super::lateral_snapshot::misplaced(other).unwrap_or_else(|| unsupported(other, "this FROM item"))),
    }
}

/// The table or view `table_name` (written at `location`).
pub(super) fn named_relation(table_name: &str, location: Location, catalog: &Catalog) -> Result<Rel, SqlError> {
    if let Some(view) = catalog.views.get(table_name) {
        return Ok(view.clone());
    }
    if let Some(table) = catalog.sources.iter().find(|t| t.name == table_name) {
        return Ok(source(table));
    }
    let mut known: Vec<&str> = catalog.views.keys().map(String::as_str).collect();
    known.sort_unstable();
    for (i, t) in catalog.sources.iter().enumerate() {
        known.insert(i, &t.name);
    }
    Err(err(
        location,
        format!("Object {} not found (tables and views: {})", quote(table_name), name_list(known.iter().copied())),
    ))
}

/// The source as the SQL sees it: its physical columns, and its processing-time attribute
/// computed by a projection above the scan (Flink expands a computed column `pt AS PROCTIME()`
/// into the projection above the `TableSourceScan`).
fn source(table: &SourceTable) -> Rel {
    let scan = Rel { node: Node::Scan(table.name.clone()), names: table.columns.clone() };
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
fn state_ttl_hint(s: &ast::Select, from: &FromNames) -> Result<Option<Vec<(String, String)>>, SqlError> {
    let mut ttl: Option<Vec<(String, String)>> = None;
    let names: Vec<&str> = match &from.qualifier {
        Some(q) => vec![q.as_str()],
        None => from.sides.iter().map(|(n, _, _)| n.as_str()).collect(),
    };
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
            if !names.contains(&key.as_str()) {
                return Err(err(
                    location,
                    format!(
                        "STATE_TTL key {} is not the input of this query ({}): the hint names the table, view or alias it reads",
                        quote(&key),
                        if names.is_empty() { "a subquery without an alias".to_string() } else { escaped(&names.join(", ")) }
                    ),
                ));
            }
            ttl.get_or_insert_with(Vec::new).push((key, value));
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
pub(super) fn filter(input: Rel, condition: &ast::Expr, qualifier: &FromNames) -> Result<Rel, SqlError> {
    let scope = Scope::new(&input, qualifier);
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

pub(super) fn item_expr(item: &ast::SelectItem) -> Option<&ast::Expr> {
    match item {
        ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    }
}

pub(super) fn function_name(f: &ast::Function) -> String {
    super::script::object_name(&f.name).to_ascii_uppercase()
}

/// `e` when it is an aggregate call or a window call (not `PROCTIME()` or another scalar function).
pub(super) fn aggregate_or_window_call(e: &ast::Expr) -> Option<&ast::Function> {
    match e {
        ast::Expr::Function(f) if f.over.is_some() || AGG_FUNCTIONS.contains(&function_name(f).as_str()) => Some(f),
        _ => None,
    }
}

/// Whether `e` holds an aggregate call outside an `OVER` window.
pub(super) fn contains_agg(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Function(f) => f.over.is_none() && AGG_FUNCTIONS.contains(&function_name(f).as_str()),
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
pub(super) fn check_alias(item: &ast::SelectItem) -> Result<(), SqlError> {
    match item {
        ast::SelectItem::ExprWithAlias { alias, .. } => check_ident(alias),
        _ => Ok(()),
    }
}

pub(super) fn item_name(item: &ast::SelectItem, converted: &Ex, input_names: &[String], ordinal: usize) -> String {
    match (item, converted) {
        (ast::SelectItem::ExprWithAlias { alias, .. }, _) => alias.value.clone(),
        // `SqlValidatorUtil.getAlias`: an identifier's last part (`r.k` is `k`, even where the
        // join's row names that field `k0`).
        (ast::SelectItem::UnnamedExpr(ast::Expr::CompoundIdentifier(parts)), Ex::Col(_)) if !parts.is_empty() => {
            parts[parts.len() - 1].value.clone()
        }
        (_, Ex::Col(i)) => input_names[*i].clone(),
        _ => format!("EXPR${ordinal}"),
    }
}

/// The select list over `input`, expanding `*`.
pub(super) fn select_items<'a>(s: &'a ast::Select, input: &Rel) -> Result<Vec<Item<'a>>, SqlError> {
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

pub(super) enum Item<'a> {
    /// A field of the input (from `*`).
    Field(usize),
    Written(&'a ast::SelectItem),
}

pub(super) fn binary(op: &ast::BinaryOperator, l: Ex, r: Ex) -> Option<Ex> {
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
pub(super) fn expr(e: &ast::Expr, scope: &Scope) -> Result<Ex, SqlError> {
    expr_with(e, scope, &mut |_| None)
}

/// [`expr`], where `call` may convert a function call itself (`Some`): an aggregate call in the
/// select list of a GROUP BY query.
pub(super) fn expr_with(
    e: &ast::Expr,
    scope: &Scope,
    call: &mut dyn FnMut(&ast::Function) -> Option<Result<Ex, SqlError>>,
) -> Result<Ex, SqlError> {
    if let ast::Expr::Function(f) = e {
        if let Some(converted) = call(f) {
            return converted;
        }
    }
    let mut w = |x: &ast::Expr| expr_with(x, scope, &mut *call);
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
    if !scope.sides.is_empty() {
        return super::join::join_field(scope, qualifier, id);
    }
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
