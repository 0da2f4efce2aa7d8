//! From SQL text to an [`Expr`]: parsed with `sqlparser` (its generic dialect: Flink's
//! back-tick quoting and `"`-quoted identifiers both work), then resolved against the input's
//! columns and type-checked the way Calcite's validator checks them, with its messages where it
//! has one. Anything else (function calls, arithmetic, `IN`, `BETWEEN`, `CAST`, ...) is refused
//! by name.

use super::{CmpOp, Expr};
use crate::engine::error::{quote, ScenarioError};
use crate::engine::row::{Column, DataType, Value};
use sqlparser::ast::{self, BinaryOperator, UnaryOperator};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

/// What this model evaluates, for error messages.
const SUPPORTED: &str = "column references, INT/BIGINT/STRING/BOOLEAN/NULL literals, =, <>, <, <=, >, >=, \
                         AND, OR, NOT, IS [NOT] NULL and CASE WHEN ... THEN ... [ELSE ...] END";

/// One compiled `SELECT` item.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectItem {
    pub expr: Expr,
    /// The output column's name: the alias, the column's own name, or Calcite's `EXPR$n`.
    pub name: String,
    /// Whether the SQL named it with `AS`.
    pub aliased: bool,
}

/// What an expression is compiled against.
struct Scope<'a> {
    columns: &'a [Column],
    path: &'a str,
    input_name: &'a str,
}

impl Scope<'_> {
    fn err(&self, message: impl Into<String>) -> ScenarioError {
        ScenarioError::new(self.path, message)
    }

    fn column(&self, name: &str) -> Result<Expr, ScenarioError> {
        match self.columns.iter().position(|c| c.name == name) {
            Some(index) => Ok(Expr::Column { index, data_type: self.columns[index].data_type }),
            None => {
                let names: Vec<&str> = self.columns.iter().take(20).map(|c| c.name.as_str()).collect();
                let more = if self.columns.len() > 20 {
                    format!(", … {} more", self.columns.len() - 20)
                } else {
                    String::new()
                };
                Err(self.err(format!(
                    "no column {} in {} (columns: {}{more})",
                    quote(name),
                    self.input_name,
                    names.join(", ")
                )))
            }
        }
    }
}

/// Compiles `select[ordinal]`: `expression [AS name]`.
///
/// # Errors
/// A parse error, an unknown column, a type error or unsupported SQL, at `path`.
pub fn compile_select_item(
    text: &str,
    ordinal: usize,
    columns: &[Column],
    path: &str,
    input_name: &str,
) -> Result<SelectItem, ScenarioError> {
    let scope = Scope { columns, path, input_name };
    let mut parser = parser(text, &scope)?;
    let item = parser.parse_select_item().map_err(|e| parse_error(text, &e, &scope))?;
    at_end(&parser, text, &scope)?;
    let (sql, alias) = match item {
        ast::SelectItem::UnnamedExpr(e) => (e, None),
        ast::SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value)),
        _ => return Err(scope.err(format!("{} is not one expression [AS name]", quote(text)))),
    };
    let expr = compile_expr(&sql, &scope)?;
    if expr.data_type().is_none() {
        return Err(scope.err("Illegal use of 'NULL' (a bare NULL has no type)"));
    }
    let aliased = alias.is_some();
    let name = match (alias, &expr) {
        (Some(a), _) => a,
        (None, Expr::Column { index, .. }) => columns[*index].name.clone(),
        // Calcite's derived alias for an unnamed expression (`SqlValidatorUtil.getAlias`).
        (None, _) => format!("EXPR${ordinal}"),
    };
    if name.trim().is_empty() {
        return Err(scope.err("an output column needs a non-empty name"));
    }
    Ok(SelectItem { expr, name, aliased })
}

/// Compiles a `WHERE` condition: a BOOLEAN expression.
///
/// # Errors
/// As [`compile_select_item`], and when the expression is not BOOLEAN.
pub fn compile_predicate(text: &str, columns: &[Column], path: &str, input_name: &str) -> Result<Expr, ScenarioError> {
    let scope = Scope { columns, path, input_name };
    let mut parser = parser(text, &scope)?;
    let sql = parser.parse_expr().map_err(|e| parse_error(text, &e, &scope))?;
    at_end(&parser, text, &scope)?;
    let expr = compile_expr(&sql, &scope)?;
    match expr.data_type() {
        Some(DataType::Boolean) => Ok(expr),
        Some(t) => Err(scope.err(format!("WHERE clause must be a condition: {} is {}", quote(text), t.name()))),
        None => Err(scope.err("Illegal use of 'NULL' (a bare NULL has no type)")),
    }
}

fn parser<'a>(text: &str, scope: &Scope) -> Result<Parser<'a>, ScenarioError> {
    static DIALECT: GenericDialect = GenericDialect {};
    Parser::new(&DIALECT).try_with_sql(text).map_err(|e| parse_error(text, &e, scope))
}

fn parse_error(text: &str, e: &sqlparser::parser::ParserError, scope: &Scope) -> ScenarioError {
    scope.err(format!("cannot parse {} as SQL: {e}", quote(text)))
}

fn at_end(parser: &Parser, text: &str, scope: &Scope) -> Result<(), ScenarioError> {
    let next = parser.peek_token();
    if next.token == Token::EOF {
        Ok(())
    } else {
        Err(scope.err(format!("cannot parse {} as SQL: unexpected {} after the expression", quote(text), next.token)))
    }
}

/// The numeric family, for comparisons: `INT` and `BIGINT` compare with each other.
fn family(t: DataType) -> u8 {
    match t {
        DataType::Int | DataType::BigInt => 0,
        DataType::String => 1,
        DataType::Boolean => 2,
        DataType::ProcTime => 3,
    }
}

/// `<STRING> = <INT>`, Calcite's operand list of a failed operator.
fn signature(op: &str, a: Option<DataType>, b: Option<DataType>) -> String {
    let n = |t: Option<DataType>| t.map_or("NULL", |t| t.name());
    format!("'<{}> {op} <{}>'", n(a), n(b))
}

fn compile_expr(sql: &ast::Expr, scope: &Scope) -> Result<Expr, ScenarioError> {
    match sql {
        ast::Expr::Identifier(ident) => scope.column(&ident.value),
        ast::Expr::Value(v) => literal(&v.value, false, scope),
        ast::Expr::Nested(inner) => compile_expr(inner, scope),
        ast::Expr::UnaryOp { op: UnaryOperator::Minus, expr } => match expr.as_ref() {
            ast::Expr::Value(v) => literal(&v.value, true, scope),
            _ => Err(unsupported(sql, "arithmetic (unary minus)", scope)),
        },
        ast::Expr::UnaryOp { op: UnaryOperator::Not, expr } => {
            let a = compile_expr(expr, scope)?;
            boolean_operand(&a, "NOT", scope)?;
            Ok(Expr::Not(Box::new(a)))
        }
        ast::Expr::BinaryOp { left, op, right } => {
            let cmp = match op {
                BinaryOperator::Eq => Some(CmpOp::Eq),
                BinaryOperator::NotEq => Some(CmpOp::NotEq),
                BinaryOperator::Lt => Some(CmpOp::Lt),
                BinaryOperator::LtEq => Some(CmpOp::LtEq),
                BinaryOperator::Gt => Some(CmpOp::Gt),
                BinaryOperator::GtEq => Some(CmpOp::GtEq),
                _ => None,
            };
            let logical = matches!(op, BinaryOperator::And | BinaryOperator::Or);
            if cmp.is_none() && !logical {
                return Err(unsupported(sql, &format!("the operator {op}"), scope));
            }
            let (a, b) = (compile_expr(left, scope)?, compile_expr(right, scope)?);
            match cmp {
                Some(c) => compare(c, a, b, scope),
                None => {
                    let name = if *op == BinaryOperator::And { "AND" } else { "OR" };
                    for x in [&a, &b] {
                        if !matches!(x.data_type(), None | Some(DataType::Boolean)) {
                            let sig = signature(name, a.data_type(), b.data_type());
                            return Err(scope.err(format!("Cannot apply '{name}' to arguments of type {sig}")));
                        }
                    }
                    let (a, b) = (typed(a, DataType::Boolean), typed(b, DataType::Boolean));
                    Ok(if name == "AND" {
                        Expr::And(Box::new(a), Box::new(b))
                    } else {
                        Expr::Or(Box::new(a), Box::new(b))
                    })
                }
            }
        }
        ast::Expr::IsNull(e) | ast::Expr::IsNotNull(e) => {
            let arg = compile_expr(e, scope)?;
            Ok(Expr::IsNull { arg: Box::new(arg), negated: matches!(sql, ast::Expr::IsNotNull(_)) })
        }
        ast::Expr::Case { operand, conditions, else_result, .. } => {
            case(operand.as_deref(), conditions, else_result.as_deref(), scope)
        }
        ast::Expr::Function(f) => Err(scope.err(format!(
            "function {}(...) is not supported: a Calc here evaluates {SUPPORTED}",
            f.name.to_string().to_uppercase()
        ))),
        ast::Expr::CompoundIdentifier(_) => Err(unsupported(sql, "a qualified column name", scope)),
        _ => Err(unsupported(sql, "this construct", scope)),
    }
}

fn unsupported(sql: &ast::Expr, what: &str, scope: &Scope) -> ScenarioError {
    scope.err(format!("{} is not supported ({what}): a Calc here evaluates {SUPPORTED}", quote(&sql.to_string())))
}

fn literal(v: &ast::Value, negative: bool, scope: &Scope) -> Result<Expr, ScenarioError> {
    let lit = |value: Value, t: Option<DataType>| Ok(Expr::Literal { value, data_type: t });
    match v {
        ast::Value::Number(text, _) => {
            let signed = if negative { format!("-{text}") } else { text.clone() };
            match signed.parse::<i64>() {
                Ok(i) if i32::try_from(i).is_ok() => lit(Value::Int(i), Some(DataType::Int)),
                Ok(i) => lit(Value::Int(i), Some(DataType::BigInt)),
                Err(_) if text.bytes().all(|b| b.is_ascii_digit()) => {
                    Err(scope.err(format!("Numeric literal '{signed}' out of range")))
                }
                Err(_) => Err(scope
                    .err(format!("the literal {signed} is not supported: only INT and BIGINT numbers are modelled"))),
            }
        }
        _ if negative => Err(scope.err(format!("cannot negate {v}"))),
        ast::Value::SingleQuotedString(s) => lit(Value::str(s), Some(DataType::String)),
        ast::Value::Boolean(b) => lit(Value::Bool(*b), Some(DataType::Boolean)),
        ast::Value::Null => lit(Value::Null, None),
        other => Err(scope.err(format!("the literal {other} is not supported: {SUPPORTED}"))),
    }
}

/// A bare `NULL` takes the type its context gives it.
fn typed(e: Expr, t: DataType) -> Expr {
    match e {
        Expr::Literal { value, data_type: None } => Expr::Literal { value, data_type: Some(t) },
        other => other,
    }
}

fn boolean_operand(a: &Expr, op: &str, scope: &Scope) -> Result<(), ScenarioError> {
    match a.data_type() {
        None | Some(DataType::Boolean) => Ok(()),
        Some(t) => Err(scope.err(format!("Cannot apply '{op}' to arguments of type '{op} <{}>'", t.name()))),
    }
}

fn compare(op: CmpOp, a: Expr, b: Expr, scope: &Scope) -> Result<Expr, ScenarioError> {
    let (ta, tb) = (a.data_type(), b.data_type());
    if ta == Some(DataType::ProcTime) || tb == Some(DataType::ProcTime) {
        return Err(scope.err(format!(
            "Cannot apply '{}' to arguments of type {}: comparing the processing-time attribute is not modelled",
            op.sql(),
            signature(op.sql(), ta, tb)
        )));
    }
    if let (Some(x), Some(y)) = (ta, tb) {
        if family(x) != family(y) {
            return Err(scope.err(format!(
                "Cannot apply '{}' to arguments of type {} (Flink's validator requires comparable types)",
                op.sql(),
                signature(op.sql(), ta, tb)
            )));
        }
    }
    let (a, b) = match (ta, tb) {
        (None, Some(t)) => (typed(a, t), b),
        (Some(t), None) => (a, typed(b, t)),
        _ => (a, b),
    };
    Ok(Expr::Compare(op, Box::new(a), Box::new(b)))
}

/// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`; a simple `CASE x WHEN v` compares `x = v`.
fn case(
    operand: Option<&ast::Expr>,
    conditions: &[ast::CaseWhen],
    else_result: Option<&ast::Expr>,
    scope: &Scope,
) -> Result<Expr, ScenarioError> {
    let operand = operand.map(|o| compile_expr(o, scope)).transpose()?;
    let mut whens = Vec::with_capacity(conditions.len());
    for w in conditions {
        let c = compile_expr(&w.condition, scope)?;
        let c = match &operand {
            Some(o) => compare(CmpOp::Eq, o.clone(), c, scope)?,
            None => {
                if !matches!(c.data_type(), None | Some(DataType::Boolean)) {
                    return Err(scope.err(format!(
                        "Expected a boolean type: the WHEN condition {} is {}",
                        quote(&w.condition.to_string()),
                        c.data_type().map_or("NULL", |t| t.name())
                    )));
                }
                typed(c, DataType::Boolean)
            }
        };
        whens.push((c, compile_expr(&w.result, scope)?));
    }
    let otherwise = else_result.map(|e| compile_expr(e, scope)).transpose()?;
    // The result type: the common type of every branch (`leastRestrictive`).
    let mut result_type: Option<DataType> = None;
    for t in whens.iter().map(|(_, r)| r).chain(otherwise.as_ref()).filter_map(Expr::data_type) {
        result_type = Some(match result_type {
            None => t,
            Some(r) if r == t => r,
            Some(r) if family(r) == 0 && family(t) == 0 => DataType::BigInt,
            Some(_) => return Err(scope.err("Illegal mixing of types in CASE or COALESCE statement")),
        });
    }
    let Some(data_type) = result_type else {
        return Err(scope.err("ELSE clause or at least one THEN clause must be non-NULL"));
    };
    let whens = whens.into_iter().map(|(c, r)| (c, typed(r, data_type))).collect();
    let otherwise = typed(otherwise.unwrap_or(Expr::Literal { value: Value::Null, data_type: None }), data_type);
    Ok(Expr::Case { whens, otherwise: Box::new(otherwise), data_type })
}
