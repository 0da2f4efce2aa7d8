//! Calc's SQL expressions, generated from a small typed grammar (what `src/engine/expr` models:
//! column references, literals, comparisons, `AND`/`OR`/`NOT`, `IS [NOT] NULL`, `CASE`), so most
//! are valid; and, at a small rate, SQL the model refuses (functions, arithmetic, `IN`, type
//! mismatches, broken text) or long flat chains, for the error paths.

use crate::gen_scenario::{Col, Ty};
use rand::seq::IndexedRandom;
use rand::RngExt;
use rand_pcg::Pcg64Mcg as Rng;

/// Deepest nesting the generator builds (the parser's own limit is 50).
const MAX_DEPTH: u32 = 4;

/// A column reference: back-ticked unless a plain identifier.
pub fn ident(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(name));
    if plain {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

/// Words the parser reads as keywords: such column names are quoted.
const KEYWORDS: &[&str] = &[
    "select",
    "from",
    "where",
    "and",
    "or",
    "not",
    "null",
    "true",
    "false",
    "case",
    "when",
    "then",
    "else",
    "end",
    "is",
    "as",
    "in",
    "between",
    "like",
    "cast",
    "interval",
    "user",
    "date",
    "time",
    "timestamp",
    "value",
    "count",
    "sum",
    "min",
    "max",
    "rank",
    "row",
    "rows",
    "range",
    "order",
    "by",
    "group",
    "partition",
    "over",
    "key",
];

fn string_literal(rng: &mut Rng) -> String {
    let s = *["a", "b", "c", "", "it's", "x y", "é", "a\nb", "NULL", "1"].choose(rng).unwrap();
    format!("'{}'", s.replace('\'', "''"))
}

fn literal(rng: &mut Rng, ty: Ty) -> String {
    match ty {
        Ty::Int => return rng.random_range(-3i64..10).to_string(),
        Ty::BigInt => *["5000000000", "-5000000000", "0", "2147483648", "9223372036854775807"].choose(rng).unwrap(),
        Ty::Str => return string_literal(rng),
        Ty::Bool => *["TRUE", "FALSE"].choose(rng).unwrap(),
        Ty::ProcTime => "NULL",
    }
    .to_string()
}

fn columns_of(cols: &[Col], ty: Ty) -> Vec<&Col> {
    cols.iter().filter(|c| c.ty == ty || (ty.numeric() && c.ty.numeric() && c.ty != Ty::ProcTime)).collect()
}

/// An expression of type `ty` over `cols` (numeric types mix, as Calcite's do).
pub fn expr(rng: &mut Rng, cols: &[Col], ty: Ty, depth: u32) -> String {
    let leaf = depth >= MAX_DEPTH || rng.random_bool(0.45);
    if leaf {
        let candidates = columns_of(cols, ty);
        return match candidates.choose(rng) {
            Some(c) if rng.random_bool(0.7) => ident(&c.name),
            _ => literal(rng, ty),
        };
    }
    match (ty, rng.random_range(0..10)) {
        (Ty::Bool, 0..=2) => comparison(rng, cols, depth),
        (Ty::Bool, 3) => format!("NOT {}", paren(rng, cols, Ty::Bool, depth)),
        (Ty::Bool, 4..=5) => {
            let op = if rng.random_bool(0.5) { "AND" } else { "OR" };
            format!("{} {op} {}", paren(rng, cols, Ty::Bool, depth), paren(rng, cols, Ty::Bool, depth))
        }
        (Ty::Bool, 6) => {
            let t = *[Ty::Int, Ty::BigInt, Ty::Str, Ty::Bool].choose(rng).unwrap();
            let not = if rng.random_bool(0.5) { " NOT" } else { "" };
            format!("{} IS{not} NULL", paren(rng, cols, t, depth))
        }
        (_, 7..=9) => case(rng, cols, ty, depth),
        _ => format!("({})", expr(rng, cols, ty, depth + 1)),
    }
}

/// A sub-expression, parenthesized unless a leaf.
fn paren(rng: &mut Rng, cols: &[Col], ty: Ty, depth: u32) -> String {
    let e = expr(rng, cols, ty, depth + 1);
    if e.contains(' ') {
        format!("({e})")
    } else {
        e
    }
}

fn comparison(rng: &mut Rng, cols: &[Col], depth: u32) -> String {
    let t = *[Ty::Int, Ty::BigInt, Ty::Str, Ty::Bool].choose(rng).unwrap();
    let u = if t.numeric() { *[Ty::Int, Ty::BigInt].choose(rng).unwrap() } else { t };
    let op = *["=", "<>", "<", "<=", ">", ">="].choose(rng).unwrap();
    let right = if rng.random_bool(0.05) { "NULL".to_string() } else { paren(rng, cols, u, depth) };
    format!("{} {op} {right}", paren(rng, cols, t, depth))
}

fn case(rng: &mut Rng, cols: &[Col], ty: Ty, depth: u32) -> String {
    let mut s = String::from("CASE");
    let simple = rng.random_bool(0.3);
    let operand_ty = *[Ty::Int, Ty::Str].choose(rng).unwrap();
    if simple {
        s.push(' ');
        s.push_str(&paren(rng, cols, operand_ty, depth));
    }
    for _ in 0..rng.random_range(1..=2) {
        let when = if simple { literal(rng, operand_ty) } else { paren(rng, cols, Ty::Bool, depth) };
        let then = if rng.random_bool(0.1) { "NULL".to_string() } else { paren(rng, cols, ty, depth) };
        s.push_str(&format!(" WHEN {when} THEN {then}"));
    }
    // Every branch NULL is refused: the ELSE is typed whenever a THEN was NULL.
    if rng.random_bool(0.6) || s.ends_with("THEN NULL") {
        s.push_str(&format!(" ELSE {}", paren(rng, cols, ty, depth)));
    }
    s.push_str(" END");
    s
}

/// SQL the model refuses, or text that is not SQL: the error paths of a Calc.
pub fn refused(rng: &mut Rng, cols: &[Col]) -> String {
    let c = cols.choose(rng).map_or("x".to_string(), |c| ident(&c.name));
    match rng.random_range(0..14) {
        0 => format!("UPPER({c})"),
        1 => format!("{c} + 1"),
        2 => format!("{c} IN (1, 2)"),
        3 => format!("{c} BETWEEN 1 AND 2"),
        4 => format!("CAST({c} AS INT)"),
        5 => format!("t.{c}"),
        6 => "no_such_column".to_string(),
        7 => "'a' = 1".to_string(),
        8 => "NULL".to_string(),
        9 => format!("{c} = "),
        10 => format!("'unterminated {c}"),
        11 => format!("{c} = 1 garbage \u{1b}[31m\n\u{2066}x"),
        12 => format!("-{c}"),
        _ => format!("$${c}$$ AND N'x'"),
    }
}

/// A flat chain of `n` terms joined by one operator: what the parser builds without recursion
/// and compile, evaluation and drop then walk (reproducer C1).
pub fn chain(rng: &mut Rng, cols: &[Col], n: usize) -> String {
    let b = columns_of(cols, Ty::Bool).first().map_or("TRUE".to_string(), |c| ident(&c.name));
    let op = *[" AND ", " OR "].choose(rng).unwrap();
    vec![b; n].join(op)
}

/// Breaks valid SQL text a little: a character dropped, doubled or replaced.
pub fn garble(rng: &mut Rng, sql: &str) -> String {
    let mut chars: Vec<char> = sql.chars().collect();
    if chars.is_empty() {
        return "(".into();
    }
    let i = rng.random_range(0..chars.len());
    match rng.random_range(0..4) {
        0 => {
            chars.remove(i);
        }
        1 => chars.insert(i, chars[i]),
        2 => chars[i] = *['(', ')', '\'', '`', '"', ',', ';', '*', '\0', 'é'].choose(rng).unwrap(),
        _ => chars.truncate(i),
    }
    chars.into_iter().collect()
}
