//! Scalar SQL expressions of a `Calc` (`SELECT` items and `WHERE`), compiled once into a small
//! tree with resolved column indexes and result types, then evaluated per row without
//! allocating.
//!
//! What is modelled is what Flink's generated Calc code does for these operators (Calcite's
//! `SqlStdOperatorTable` semantics, Flink 1.x–2.x): SQL three-valued logic and NULL propagation.
//! - `=`, `<>`, `<`, `<=`, `>`, `>=`: NULL when either side is NULL; strings compare by their
//!   UTF-8 bytes (`BinaryStringData.compareTo`), `FALSE < TRUE`, `INT` and `BIGINT` compare as
//!   numbers.
//! - `AND`: FALSE if either side is FALSE, else NULL if either is NULL, else TRUE; `OR` likewise
//!   with TRUE; `NOT NULL` is NULL.
//! - `IS [NOT] NULL` is never NULL.
//! - `CASE WHEN c THEN r … [ELSE e] END`: the first `c` that is TRUE (a NULL condition does not
//!   match); without `ELSE`, NULL. The result type is the common type of the branches (`INT`
//!   and `BIGINT` give `BIGINT`).
//!
//! Parsing is [`compile`]'s (with the `sqlparser` crate); this module holds the tree, its types,
//! its evaluation and its plan text.

pub mod compile;

pub use compile::{compile_predicate, compile_select_item, SelectItem, MAX_EXPRESSION_DEPTH, MAX_EXPRESSION_TOKENS};

use super::row::{DataType, Value};
use super::time::Millis;
use std::cmp::Ordering;
use std::fmt::Write;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl CmpOp {
    /// The SQL spelling, as Flink's plan prints the operator (`=`, `<>`, ...).
    pub fn sql(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::NotEq => "<>",
            CmpOp::Lt => "<",
            CmpOp::LtEq => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtEq => ">=",
        }
    }

    fn test(self, o: Ordering) -> bool {
        match self {
            CmpOp::Eq => o == Ordering::Equal,
            CmpOp::NotEq => o != Ordering::Equal,
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::LtEq => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::GtEq => o != Ordering::Less,
        }
    }
}

/// An arithmetic operator, with Java's integer semantics as Flink's generated code has them
/// (`ScalarOperatorGens.generateBinaryArithmeticOperator`, Flink 2.3): `INT` wraps around as
/// `int`, `BIGINT` as `long`; `/` truncates toward zero; `%` is `MOD`, with the dividend's sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Plus,
    Minus,
    Times,
    Divide,
    Mod,
}

impl ArithOp {
    /// Calcite's operator name in a plan: `+`, `-`, `*`, `/`, `MOD`.
    pub fn rex(self) -> &'static str {
        match self {
            ArithOp::Plus => "+",
            ArithOp::Minus => "-",
            ArithOp::Times => "*",
            ArithOp::Divide => "/",
            ArithOp::Mod => "MOD",
        }
    }

    fn apply(self, x: i64, y: i64, int32: bool) -> Result<i64, String> {
        let value = match self {
            ArithOp::Plus => x.wrapping_add(y),
            ArithOp::Minus => x.wrapping_sub(y),
            ArithOp::Times => x.wrapping_mul(y),
            ArithOp::Divide | ArithOp::Mod if y == 0 => return Err("java.lang.ArithmeticException: / by zero".into()),
            ArithOp::Divide => x.wrapping_div(y),
            ArithOp::Mod => x.wrapping_rem(y),
        };
        Ok(if int32 { i64::from(value as i32) } else { value })
    }
}

/// A compiled expression. Every node knows its type; `None` is the type of a bare `NULL`
/// literal before a context gives it one.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Column {
        index: usize,
        data_type: DataType,
    },
    Literal {
        value: Value,
        data_type: Option<DataType>,
    },
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    /// `PROCTIME()`: the processing time the row is processed at (a processing-time attribute).
    ProcTime,
    /// `a + b`, `a - b`, `a * b`, `a / b`, `a % b` over INT / BIGINT (`data_type`: INT when
    /// both are INT, else BIGINT).
    Arith {
        op: ArithOp,
        a: Box<Expr>,
        b: Box<Expr>,
        data_type: DataType,
    },
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    /// `x IS TRUE`: never NULL (Calcite wraps an aggregate's `FILTER` condition in it).
    IsTrue(Box<Expr>),
    IsNull {
        arg: Box<Expr>,
        negated: bool,
    },
    /// `whens` in order; `otherwise` is a typed NULL literal when the SQL has no `ELSE`.
    Case {
        whens: Vec<(Expr, Expr)>,
        otherwise: Box<Expr>,
        data_type: DataType,
    },
}

impl Expr {
    /// The result type (`None` for a bare `NULL` literal).
    pub fn data_type(&self) -> Option<DataType> {
        match self {
            Expr::Column { data_type, .. } | Expr::Case { data_type, .. } | Expr::Arith { data_type, .. } => {
                Some(*data_type)
            }
            Expr::Literal { data_type, .. } => *data_type,
            Expr::ProcTime => Some(DataType::ProcTime),
            Expr::Compare(..) | Expr::And(..) | Expr::Or(..) | Expr::Not(_) | Expr::IsNull { .. } | Expr::IsTrue(_) => {
                Some(DataType::Boolean)
            }
        }
    }

    /// The input column this expression is, if it is a bare column reference.
    pub fn as_column(&self) -> Option<usize> {
        match self {
            Expr::Column { index, .. } => Some(*index),
            _ => None,
        }
    }

    /// The value for one input row (its values in column order), in tests: an expression
    /// that fails (a division by zero) panics there.
    #[cfg(test)]
    pub fn eval(&self, row: &[Value]) -> Value {
        self.try_eval(row, 0).expect("the expression evaluates")
    }

    /// The value for one input row (its values in column order).
    ///
    /// # Errors
    /// What Flink's generated code throws: `ArithmeticException: / by zero` for an integer
    /// division or `MOD` by zero (the job fails).
    pub fn try_eval(&self, row: &[Value], now: Millis) -> Result<Value, String> {
        Ok(match self {
            Expr::Column { index, .. } => row.get(*index).copied().unwrap_or(Value::Null),
            Expr::Literal { value, .. } => *value,
            Expr::ProcTime => Value::Ts(now),
            Expr::Compare(op, a, b) => match (a.try_eval(row, now)?, b.try_eval(row, now)?) {
                (Value::Null, _) | (_, Value::Null) => Value::Null,
                (x, y) => Value::Bool(op.test(x.cmp(&y))),
            },
            Expr::Arith { op, a, b, data_type } => match (a.try_eval(row, now)?, b.try_eval(row, now)?) {
                (Value::Int(x), Value::Int(y)) => Value::Int(op.apply(x, y, *data_type == DataType::Int)?),
                _ => Value::Null,
            },
            Expr::And(a, b) => {
                let x = a.try_eval(row, now)?;
                if x == Value::Bool(false) {
                    return Ok(x);
                }
                match (x, b.try_eval(row, now)?) {
                    (_, Value::Bool(false)) => Value::Bool(false),
                    (Value::Bool(true), Value::Bool(true)) => Value::Bool(true),
                    _ => Value::Null,
                }
            }
            Expr::Or(a, b) => {
                let x = a.try_eval(row, now)?;
                if x == Value::Bool(true) {
                    return Ok(x);
                }
                match (x, b.try_eval(row, now)?) {
                    (_, Value::Bool(true)) => Value::Bool(true),
                    (Value::Bool(false), Value::Bool(false)) => Value::Bool(false),
                    _ => Value::Null,
                }
            }
            Expr::Not(a) => match a.try_eval(row, now)? {
                Value::Bool(b) => Value::Bool(!b),
                _ => Value::Null,
            },
            Expr::IsNull { arg, negated } => Value::Bool((arg.try_eval(row, now)? == Value::Null) != *negated),
            Expr::IsTrue(arg) => Value::Bool(arg.try_eval(row, now)? == Value::Bool(true)),
            Expr::Case { whens, otherwise, .. } => {
                for (condition, result) in whens {
                    if condition.try_eval(row, now)? == Value::Bool(true) {
                        return result.try_eval(row, now);
                    }
                }
                otherwise.try_eval(row, now)?
            }
        })
    }

    /// The expression as Flink's plan prints a `RexNode` (`CASE(=(t_date, w0$o0), user_id,
    /// null:VARCHAR(2147483647) CHARACTER SET "UTF-16LE")`), with input columns by name.
    /// Approximate: Flink also prints implicit casts and names computed columns `$fN`.
    pub fn rex(&self, names: &[String]) -> String {
        let mut out = String::new();
        self.write_rex(names, &mut out);
        out
    }

    fn write_rex(&self, names: &[String], out: &mut String) {
        let call = |out: &mut String, name: &str, args: &[&Expr]| {
            out.push_str(name);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                a.write_rex(names, out);
            }
            out.push(')');
        };
        match self {
            Expr::Column { index, .. } => match names.get(*index) {
                Some(n) => out.push_str(n),
                None => {
                    let _ = write!(out, "${index}");
                }
            },
            Expr::Literal { value, data_type } => write_literal(*value, *data_type, out),
            Expr::ProcTime => out.push_str("PROCTIME()"),
            // A string literal compared with a STRING expression is cast to its type.
            Expr::Compare(op, a, b) if a.is_string_literal() != b.is_string_literal() => {
                out.push_str(op.sql());
                out.push('(');
                for (i, x) in [a, b].into_iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    match x.as_ref() {
                        Expr::Literal { value: Value::Str(s), .. } => {
                            let _ = write!(out, "_UTF-16LE'{}':{}", s.text().replace('\'', "''"), varchar(MAX_VARCHAR));
                        }
                        other => other.write_rex(names, out),
                    }
                }
                out.push(')');
            }
            Expr::Compare(op, a, b) => call(out, op.sql(), &[a, b]),
            Expr::Arith { op, a, b, .. } => call(out, op.rex(), &[a, b]),
            // Calcite's AND and OR are n-ary: nested ones print flat.
            Expr::And(..) => call(out, "AND", &self.operands_of(true)),
            Expr::Or(..) => call(out, "OR", &self.operands_of(false)),
            Expr::Not(a) => call(out, "NOT", &[a]),
            Expr::IsNull { arg, negated } => call(out, if *negated { "IS NOT NULL" } else { "IS NULL" }, &[arg]),
            Expr::IsTrue(arg) => call(out, "IS TRUE", &[arg]),
            Expr::Case { whens, otherwise, data_type } => {
                // String results take the CASE's type: `VARCHAR(n)` of the longest literal when
                // every result is a literal (Flink unifies ragged CHARs to VARCHAR), else
                // `VARCHAR(2147483647)` (`SqlToRelConverter`'s casts, printed on each literal).
                let width = (*data_type == DataType::String).then(|| self.case_string_width());
                let result = |out: &mut String, r: &Expr| match (r, width) {
                    (Expr::Literal { value: Value::Str(s), .. }, Some(w)) => {
                        let _ = write!(out, "_UTF-16LE'{}':{}", s.text().replace('\'', "''"), varchar(w));
                    }
                    (Expr::Literal { value: Value::Null, .. }, Some(w)) => {
                        let _ = write!(out, "null:{}", varchar(w));
                    }
                    _ => r.write_rex(names, out),
                };
                out.push_str("CASE(");
                for (c, r) in whens {
                    c.write_rex(names, out);
                    out.push_str(", ");
                    result(out, r);
                    out.push_str(", ");
                }
                result(out, otherwise);
                out.push(')');
            }
        }
    }
}

impl Expr {
    /// The expression as Flink 2.3's optimized execution plan prints it (`ExpressionFormat.Infix`
    /// of `FlinkRexUtil.getExpressionString`): `(side = 'L')`, `CASE((t_date = w0$o0), user_id,
    /// null:VARCHAR(2147483647))` — binary operators in parentheses, other calls in prefix form,
    /// strings without their character set.
    pub fn infix(&self, names: &[String]) -> String {
        let mut out = String::new();
        self.write_infix(names, &mut out);
        out
    }

    fn write_infix(&self, names: &[String], out: &mut String) {
        let binary = |out: &mut String, op: &str, a: &Expr, b: &Expr| {
            out.push('(');
            a.write_infix(names, out);
            let _ = write!(out, " {op} ");
            b.write_infix(names, out);
            out.push(')');
        };
        match self {
            Expr::Column { .. } | Expr::ProcTime => self.write_rex(names, out),
            Expr::Literal { value: Value::Str(s), .. } => {
                let _ = write!(out, "'{}'", s.text().replace('\'', "''"));
            }
            Expr::Literal { value: Value::Null, data_type: Some(DataType::String) } => {
                out.push_str("null:VARCHAR(2147483647)")
            }
            Expr::Literal { value: Value::Int(i), .. } => {
                let _ = write!(out, "{i}");
            }
            Expr::Literal { .. } => self.write_rex(names, out),
            Expr::Compare(op, a, b) => binary(out, op.sql(), a, b),
            Expr::Arith { op: ArithOp::Mod, a, b, .. } => {
                out.push_str("MOD(");
                a.write_infix(names, out);
                out.push_str(", ");
                b.write_infix(names, out);
                out.push(')');
            }
            Expr::Arith { op, a, b, .. } => binary(out, op.rex(), a, b),
            Expr::And(..) | Expr::Or(..) => {
                let and = matches!(self, Expr::And(..));
                out.push('(');
                for (i, x) in self.operands_of(and).into_iter().enumerate() {
                    if i > 0 {
                        out.push_str(if and { " AND " } else { " OR " });
                    }
                    x.write_infix(names, out);
                }
                out.push(')');
            }
            Expr::Not(a) => {
                out.push_str("NOT(");
                a.write_infix(names, out);
                out.push(')');
            }
            Expr::IsTrue(arg) => {
                arg.write_infix(names, out);
                out.push_str(" IS TRUE");
            }
            Expr::IsNull { arg, negated } => {
                arg.write_infix(names, out);
                out.push_str(if *negated { " IS NOT NULL" } else { " IS NULL" });
            }
            Expr::Case { whens, otherwise, data_type } => {
                let width = (*data_type == DataType::String).then(|| self.case_string_width());
                let result = |out: &mut String, r: &Expr| match (r, width) {
                    (Expr::Literal { value: Value::Null, .. }, Some(w)) => {
                        let _ = write!(out, "null:VARCHAR({w})");
                    }
                    _ => r.write_infix(names, out),
                };
                out.push_str("CASE(");
                for (c, r) in whens {
                    c.write_infix(names, out);
                    out.push_str(", ");
                    result(out, r);
                    out.push_str(", ");
                }
                result(out, otherwise);
                out.push(')');
            }
        }
    }
}

/// `VARCHAR(n)`'s largest `n`: Flink's `STRING`.
const MAX_VARCHAR: usize = 2_147_483_647;

/// `VARCHAR(n) CHARACTER SET "UTF-16LE"`.
fn varchar(n: usize) -> String {
    format!("VARCHAR({n}) CHARACTER SET \"UTF-16LE\"")
}

impl Expr {
    /// The operands of a chain of `AND`s (`and`) or `OR`s, flattened.
    fn operands_of(&self, and: bool) -> Vec<&Expr> {
        match (self, and) {
            (Expr::And(a, b), true) | (Expr::Or(a, b), false) => {
                let mut out = a.operands_of(and);
                out.extend(b.operands_of(and));
                out
            }
            _ => vec![self],
        }
    }

    fn is_string_literal(&self) -> bool {
        matches!(self, Expr::Literal { value: Value::Str(_), .. })
    }

    /// The width of a STRING `CASE`'s type: the longest literal result when every result is a
    /// literal, else `VARCHAR`'s largest.
    fn case_string_width(&self) -> usize {
        let Expr::Case { whens, otherwise, .. } = self else { return MAX_VARCHAR };
        let mut width = 0;
        for r in whens.iter().map(|(_, r)| r).chain(std::iter::once(otherwise.as_ref())) {
            match r {
                Expr::Literal { value: Value::Str(s), .. } => width = width.max(s.text().chars().count()),
                Expr::Literal { value: Value::Null, .. } => {}
                _ => return MAX_VARCHAR,
            }
        }
        width
    }
}

/// Calcite's type name of a `DataType`, as a typed literal prints it.
fn calcite_type(t: DataType) -> &'static str {
    match t {
        DataType::Int => "INTEGER",
        DataType::BigInt => "BIGINT",
        DataType::String => "VARCHAR(2147483647) CHARACTER SET \"UTF-16LE\"",
        DataType::Boolean => "BOOLEAN",
        DataType::ProcTime => "TIMESTAMP_LTZ(3) *PROCTIME*",
    }
}

fn write_literal(value: Value, data_type: Option<DataType>, out: &mut String) {
    match (value, data_type) {
        (Value::Null, Some(t)) => {
            let _ = write!(out, "null:{}", calcite_type(t));
        }
        (Value::Null, None) => out.push_str("null"),
        (Value::Int(i), Some(DataType::BigInt)) => {
            let _ = write!(out, "{i}:BIGINT");
        }
        (Value::Str(s), _) => {
            let _ = write!(out, "_UTF-16LE'{}'", s.text().replace('\'', "''"));
        }
        (v, _) => {
            let _ = write!(out, "{v}");
        }
    }
}

#[cfg(test)]
mod tests;
