//! Joins in the FROM clause: `a [INNER|LEFT|RIGHT|FULL] JOIN b ON …` as Calcite's
//! `SqlToRelConverter` makes a `LogicalJoin` of it and `JoinInfo.of` splits its condition (the
//! equalities of a left and a right field are the join key, the rest stays a condition), and
//! the names a join's fields are referred to by (`l.k`, or a name only one input has).

use super::convert::{at, check_ident, expr, relation, unsupported, Catalog, FromNames, Scope};
use super::rel::{Ex, Node, Rel};
use super::script::err;
use super::SqlError;
use crate::engine::error::{name_list, quote};
use sqlparser::ast;

/// `FROM t [AS a]`, `FROM (subquery) [AS a]`, or a join of such: `FROM a [LEFT|RIGHT|FULL]
/// JOIN b ON …` (Calcite's `LogicalJoin`; the `ON` condition's equalities of a left and a right
/// field are the join key, the rest its condition).
pub(super) fn from(s: &ast::Select, catalog: &Catalog) -> Result<(Rel, FromNames), SqlError> {
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
        let (right, right_name) = relation(&join.relation, catalog)?;
        let right_name = name_of(right_name, &join.relation)?;
        let (join_type, constraint) = match &join.join_operator {
            ast::JoinOperator::Join(c) | ast::JoinOperator::Inner(c) => ("INNER", c),
            ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => ("LEFT", c),
            ast::JoinOperator::Right(c) | ast::JoinOperator::RightOuter(c) => ("RIGHT", c),
            ast::JoinOperator::FullOuter(c) => ("FULL", c),
            _ => return Err(unsupported(&join.relation, "this kind of join (a regular JOIN … ON is modelled)")),
        };
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
                condition: None,
                hints: Vec::new(),
            },
            names,
        };
        let from = FromNames { qualifier: None, sides: sides.clone() };
        let condition = expr(on, &Scope::new(&joined, &from))?;
        let (left_keys, right_keys, rest) = split_join_condition(condition, width);
        if left_keys.is_empty() {
            return Err(err(
                at(on),
                "a regular streaming join needs an equality of a left and a right field in ON (the join key):                  without one Flink plans a nested-loop join, which is not modelled",
            ));
        }
        let Rel { node: Node::Join { left, right, join_type, hints, .. }, names } = joined else {
            return Err(err(at(on), "internal: the join was lost"));
        };
        rel = Rel { node: Node::Join { left, right, join_type, left_keys, right_keys, condition: rest, hints }, names };
    }
    Ok((rel, FromNames { qualifier: None, sides }))
}

/// The conjuncts of a join's `ON` that equal a left field (`< width`) and a right one: the join
/// key (`JoinInfo.of`), and the rest.
fn split_join_condition(condition: Ex, width: usize) -> (Vec<usize>, Vec<usize>, Option<Ex>) {
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
    let (mut left, mut right, mut rest) = (Vec::new(), Vec::new(), None);
    for c in all {
        if let Ex::Cmp("=", a, b) = &c {
            match (a.as_ref(), b.as_ref()) {
                (Ex::Col(x), Ex::Col(y)) if *x < width && *y >= width => {
                    left.push(*x);
                    right.push(*y - width);
                    continue;
                }
                (Ex::Col(x), Ex::Col(y)) if *y < width && *x >= width => {
                    left.push(*y);
                    right.push(*x - width);
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
    (left, right, rest)
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
