//! Joins in the FROM clause: `a [INNER|LEFT|RIGHT|FULL] JOIN b ON …` as Calcite's
//! `SqlToRelConverter` makes a `LogicalJoin` of it and `JoinInfo.of` splits its condition (the
//! equalities of a left and a right field are the join key, the rest stays a condition), and
//! the names a join's fields are referred to by (`l.k`, or a name only one input has).

use super::convert::{at, check_ident, expr, relation, unsupported, Catalog, FromNames, Scope};
use super::lateral_snapshot::snapshot_relation;
use super::rel::{Ex, Node, Rel};
use super::script::err;
use super::SqlError;
use crate::engine::error::{name_list, quote};
use sqlparser::ast;

/// `FROM t [AS a]`, `FROM (subquery) [AS a]`, or a join of such: `FROM a [LEFT|RIGHT|FULL]
/// JOIN b ON …` (Calcite's `LogicalJoin`; the `ON` condition's equalities of a left and a right
/// field are the join key, the rest its condition).
pub(super) fn from(s: &ast::Select, catalog: &Catalog) -> Result<(Rel, FromNames), SqlError> {
    from_clause(s, catalog)
}

/// [`from`] of any SELECT (a subquery's too).
fn from_clause(s: &ast::Select, catalog: &Catalog) -> Result<(Rel, FromNames), SqlError> {
    let [table] = s.from.as_slice() else {
        return Err(match s.from.get(1) {
            Some(second) => unsupported(&second.relation, "a second FROM item (a comma join; write JOIN … ON)"),
            None => err(at(&s.select_token.0), "SELECT without FROM is not modelled: read the scenario's source"),
        });
    };
    let (mut rel, name) = relation(&table.relation, catalog)?;
    if table.joins.is_empty() {
        return Ok((rel, FromNames::one(name)));
    }
    let name_of = |n: Option<String>, node: &ast::TableFactor| {
        n.ok_or_else(|| unsupported(node, "a join input without a name (give the subquery an alias)"))
    };
    let mut sides = vec![(name_of(name, &table.relation)?, 0, rel.names.len())];
    for join in &table.joins {
        let (right, right_name, snapshot) = match snapshot_relation(&join.relation, catalog)? {
            Some((right, name, args)) => (right, name, Some(Box::new(args))),
            None => {
                let (right, name) = relation(&join.relation, catalog)?;
                (right, name_of(name, &join.relation)?, None)
            }
        };
        let (join_type, constraint) = match &join.join_operator {
            ast::JoinOperator::Join(c) | ast::JoinOperator::Inner(c) => ("INNER", c),
            ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => ("LEFT", c),
            ast::JoinOperator::Right(c) | ast::JoinOperator::RightOuter(c) => ("RIGHT", c),
            ast::JoinOperator::FullOuter(c) => ("FULL", c),
            _ => return Err(unsupported(&join.relation, "this kind of join (a regular JOIN … ON is modelled)")),
        };
        if snapshot.is_some() && !matches!(join_type, "INNER" | "LEFT") {
            // `StreamPhysicalLateralSnapshotJoinRule` (apache/flink main, FLIP-579).
            return Err(err(
                at(&join.relation),
                format!(
                    "LATERAL SNAPSHOT join only supports INNER JOIN and LEFT OUTER JOIN, but was {join_type} JOIN."
                ),
            ));
        }
        let ast::JoinConstraint::On(on) = constraint else {
            return Err(unsupported(&join.relation, "a join without ON (USING, NATURAL, a cross join)"));
        };
        if sides.iter().any(|(n, _, _)| *n == right_name) {
            return Err(err(
                at(&join.relation),
                format!("Duplicate relation name {} in FROM clause", quote(&right_name)),
            ));
        }
        let width = rel.names.len();
        sides.push((right_name, width, right.names.len()));
        let names = super::rel::join_names(&rel.names, &right.names);
        let joined = Rel {
            node: Node::Join {
                left: Box::new(rel),
                right: Box::new(right),
                join_type,
                left_keys: Vec::new(),
                right_keys: Vec::new(),
                right_first: Vec::new(),
                condition: None,
                hints: Vec::new(),
                snapshot: None,
            },
            names,
        };
        let from = FromNames { qualifier: None, sides: sides.clone() };
        let condition = expr(on, &Scope::new(&joined, &from))?;
        let (left_keys, right_keys, right_first, rest) = split_join_condition(condition, width);
        if left_keys.is_empty() && snapshot.is_some() {
            return Err(err(at(on), "LATERAL SNAPSHOT join requires at least one equality predicate."));
        }
        if left_keys.is_empty() {
            return Err(err(
                at(on),
                "a regular streaming join needs an equality of a left and a right field in ON (the join key): \
                 without one Flink plans a nested-loop join, which is not modelled",
            ));
        }
        let Rel { node: Node::Join { left, right, join_type, hints, .. }, names } = joined else {
            return Err(err(at(on), "internal: the join was lost"));
        };
        rel = Rel {
            node: Node::Join {
                left,
                right,
                join_type,
                left_keys,
                right_keys,
                right_first,
                condition: rest,
                hints,
                snapshot,
            },
            names,
        };
    }
    Ok((rel, FromNames { qualifier: None, sides }))
}

/// The conjuncts of a join's `ON` that equal a left field (`< width`) and a right one: the join
/// key (`JoinInfo.of`), and the rest.
#[allow(clippy::type_complexity)]
fn split_join_condition(condition: Ex, width: usize) -> (Vec<usize>, Vec<usize>, Vec<bool>, Option<Ex>) {
    fn conjuncts(e: Ex, out: &mut Vec<Ex>) {
        match e {
            Ex::And(a, b) => {
                conjuncts(*a, out);
                conjuncts(*b, out);
            }
            e => out.push(e),
        }
    }
    let mut all = Vec::new();
    conjuncts(condition, &mut all);
    let (mut left, mut right, mut right_first, mut rest) = (Vec::new(), Vec::new(), Vec::new(), None);
    for c in all {
        if let Ex::Cmp("=", a, b) = &c {
            match (a.as_ref(), b.as_ref()) {
                (Ex::Col(x), Ex::Col(y)) if *x < width && *y >= width => {
                    left.push(*x);
                    right.push(*y - width);
                    right_first.push(false);
                    continue;
                }
                (Ex::Col(x), Ex::Col(y)) if *y < width && *x >= width => {
                    left.push(*y);
                    right.push(*x - width);
                    right_first.push(true);
                    continue;
                }
                _ => {}
            }
        }
        rest = Some(match rest {
            None => c,
            Some(r) => Ex::And(Box::new(r), Box::new(c)),
        });
    }
    (left, right, right_first, rest)
}

/// The fields of a join tree's inputs as each input names them, left to right.
pub(super) fn join_input_names(rel: &Rel) -> Vec<String> {
    match &rel.node {
        Node::Join { left, right, .. } => {
            let mut names = join_input_names(left);
            names.extend(right.names.iter().cloned());
            names
        }
        _ => rel.names.clone(),
    }
}

/// A field of a join's inputs: `side.name`, or a name only one input has.
pub(super) fn join_field(scope: &Scope, qualifier: Option<&ast::Ident>, id: &ast::Ident) -> Result<Ex, SqlError> {
    let sides: Vec<&(String, usize, usize)> = match qualifier {
        Some(q) => {
            check_ident(q)?;
            let side = scope.sides.iter().find(|(n, _, _)| *n == q.value);
            vec![side.ok_or_else(|| err(q.span.start, format!("Table {} not found", quote(&q.value))))?]
        }
        None => scope.sides.iter().collect(),
    };
    let found: Vec<usize> = sides
        .iter()
        .filter_map(|(_, start, len)| {
            scope.input_names[*start..*start + *len].iter().position(|n| *n == id.value).map(|i| start + i)
        })
        .collect();
    match found.as_slice() {
        [i] => Ok(Ex::Col(*i)),
        [] => Err(err(
            id.span.start,
            format!(
                "Column {} not found in any table (inputs: {})",
                quote(&id.value),
                name_list(scope.sides.iter().map(|(n, _, _)| n.as_str()))
            ),
        )),
        _ => Err(err(id.span.start, format!("Column {} is ambiguous", quote(&id.value)))),
    }
}

/// The conjuncts of `e`'s `AND`s.
fn conjuncts<'a>(e: &'a ast::Expr, out: &mut Vec<&'a ast::Expr>) {
    match e {
        ast::Expr::BinaryOp { left, op: ast::BinaryOperator::And, right } => {
            conjuncts(left, out);
            conjuncts(right, out);
        }
        ast::Expr::Nested(inner) if matches!(**inner, ast::Expr::BinaryOp { op: ast::BinaryOperator::And, .. }) => {
            conjuncts(inner, out)
        }
        e => out.push(e),
    }
}

/// `WHERE condition` over `rel`: its subquery conjuncts (`k IN (SELECT …)`, `[NOT] EXISTS (…)`)
/// become semi and anti joins of `rel` (Calcite's `SubQueryRemoveRule` and decorrelation, as
/// Flink plans them: `Join(joinType=[LeftSemiJoin], …)`), the other conjuncts a filter below
/// them (where Flink's filter push-down puts it). Without a subquery: [`super::convert::filter`].
pub(super) fn where_clause(
    rel: Rel,
    condition: &ast::Expr,
    from: &FromNames,
    catalog: &Catalog,
) -> Result<Rel, SqlError> {
    let mut all = Vec::new();
    conjuncts(condition, &mut all);
    let is_subquery = |e: &&ast::Expr| {
        matches!(e, ast::Expr::In { target: ast::InTarget::Subquery(_), .. } | ast::Expr::Exists { .. })
    };
    let (subqueries, plain): (Vec<&ast::Expr>, Vec<&ast::Expr>) = all.into_iter().partition(is_subquery);
    if subqueries.is_empty() {
        return super::convert::filter(rel, condition, from);
    }
    let mut rel = rel;
    if let Some(first) = plain.first() {
        let rest = plain[1..].iter().fold((*first).clone(), |acc, e| ast::Expr::BinaryOp {
            left: Box::new(acc),
            op: ast::BinaryOperator::And,
            right: Box::new((*e).clone()),
        });
        rel = super::convert::filter(rel, &rest, from)?;
    }
    for sub in subqueries {
        rel = semi_join(rel, sub, from, catalog)?;
    }
    Ok(rel)
}

/// One subquery conjunct as a semi or anti join of `rel`.
fn semi_join(rel: Rel, sub: &ast::Expr, from: &FromNames, catalog: &Catalog) -> Result<Rel, SqlError> {
    let width = rel.names.len();
    let names = rel.names.clone();
    #[allow(clippy::type_complexity)]
    let semi =
        |left: Rel, right: Rel, join_type: &'static str, keys: (Vec<usize>, Vec<usize>, Vec<bool>), condition| Rel {
            node: Node::Join {
                left: Box::new(left),
                right: Box::new(right),
                join_type,
                left_keys: keys.0,
                right_keys: keys.1,
                right_first: keys.2,
                condition,
                hints: Vec::new(),
                snapshot: None,
            },
            names: names.clone(),
        };
    match sub {
        ast::Expr::In { expr: outer, target: ast::InTarget::Subquery(subquery), negated, .. } => {
            if *negated {
                return Err(unsupported(
                    sub,
                    "NOT IN (SELECT …) (Flink plans it as a null-aware anti join); NOT EXISTS (SELECT … WHERE …) \
                     is modelled, and differs only where NULLs are involved",
                ));
            }
            let Ex::Col(key) = expr(outer, &Scope::new(&rel, from))? else {
                return Err(unsupported(outer.as_ref(), "IN over an expression (a column is modelled)"));
            };
            let right = super::convert::query(subquery, catalog)?;
            if right.names.len() != 1 {
                return Err(err(
                    at(sub),
                    format!("the IN subquery selects {} columns: it must select one", right.names.len()),
                ));
            }
            Ok(semi(rel, right, "SEMI", (vec![key], vec![0], vec![false]), None))
        }
        ast::Expr::Exists { subquery, negated } => {
            let ast::SetExpr::Select(select) = subquery.body.as_ref() else {
                return Err(unsupported(sub, "this EXISTS subquery (one SELECT … FROM … WHERE … is modelled)"));
            };
            if !matches!(&select.group_by, ast::GroupByExpr::Expressions(g, _) if g.is_empty())
                || select.having.is_some()
            {
                return Err(unsupported(sub, "an EXISTS subquery with GROUP BY or HAVING"));
            }
            let (inner, inner_from) = from_clause(select, catalog)?;
            // The outer fields, then the subquery's: how the correlated WHERE sees them.
            let mut sides: Vec<(String, usize, usize)> = match (&from.qualifier, from.sides.is_empty()) {
                (_, false) => from.sides.clone(),
                (q, true) => vec![(q.clone().unwrap_or_default(), 0, width)],
            };
            match (&inner_from.qualifier, inner_from.sides.is_empty()) {
                (_, false) => sides.extend(inner_from.sides.iter().map(|(n, s, l)| (n.clone(), s + width, *l))),
                (q, true) => sides.push((q.clone().unwrap_or_default(), width, inner.names.len())),
            }
            let combined = Rel {
                node: Node::Join {
                    left: Box::new(rel.clone()),
                    right: Box::new(inner.clone()),
                    join_type: "SEMI",
                    left_keys: Vec::new(),
                    right_keys: Vec::new(),
                    right_first: Vec::new(),
                    condition: None,
                    hints: Vec::new(),
                    snapshot: None,
                },
                names: super::rel::join_names(&rel.names, &inner.names),
            };
            let Some(correlated) = &select.selection else {
                return Err(unsupported(sub, "an EXISTS subquery without a WHERE that relates it to the outer row"));
            };
            let scope = Scope::new(&combined, &FromNames { qualifier: None, sides });
            let mut all = Vec::new();
            conjuncts(correlated, &mut all);
            let (mut inner_only, mut others) = (None, None);
            for c in all {
                let e = expr(c, &scope)?;
                let mut cols = Vec::new();
                e.columns(&mut cols);
                let and = |acc: Option<Ex>, e: Ex| Some(acc.map_or(e.clone(), |a| Ex::And(Box::new(a), Box::new(e))));
                if !cols.is_empty() && cols.iter().all(|&c| c >= width) {
                    inner_only = and(inner_only, e.map_columns(&|c| Ex::Col(c - width)));
                } else {
                    others = and(others, e);
                }
            }
            let (left_keys, right_keys, right_first, rest) = match others {
                Some(o) => split_join_condition(o, width),
                None => (Vec::new(), Vec::new(), Vec::new(), None),
            };
            if left_keys.is_empty() {
                return Err(err(
                    at(correlated),
                    "the EXISTS subquery needs an equality of an outer and an inner field (its join key): \
                     without one Flink plans a nested-loop join, which is not modelled",
                ));
            }
            let right = match inner_only {
                None => inner,
                Some(c) => {
                    let n = inner.names.len();
                    let names = inner.names.clone();
                    Rel {
                        node: Node::Calc {
                            input: Box::new(inner),
                            items: (0..n).map(Ex::Col).collect(),
                            condition: Some(c),
                        },
                        names,
                    }
                }
            };
            let join_type = if *negated { "ANTI" } else { "SEMI" };
            Ok(semi(rel, right, join_type, (left_keys, right_keys, right_first), rest))
        }
        other => Err(unsupported(other, "this subquery")),
    }
}
