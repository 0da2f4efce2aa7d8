//! `[LEFT] JOIN LATERAL SNAPSHOT(input => TABLE build, on_time => DESCRIPTOR(ts), …) AS s ON …`
//! (FLIP-579, apache/flink main, unreleased 2.4): the call's arguments, as the planner reads
//! them, into a join whose right input is the snapshot's `input` ([`super::join`]), planned into
//! the scenario format's `LateralSnapshotJoin`
//! ([`crate::engine::operators::join::lateral_snapshot_join`], whose doc says what of Flink's
//! planner was read and at which commit).
//!
//! The syntax follows Flink's docs (`docs/content/docs/sql/reference/queries/joins.md`, "LATERAL
//! SNAPSHOT Join", @ apache/flink `07b4ff26`):
//!
//! ```sql
//! [LEFT] JOIN LATERAL SNAPSHOT(
//!     input                        => TABLE build_table,
//!     [ on_time                    => DESCRIPTOR(<rowtime_column>), ]   -- required for streaming
//!     [ load_completed_time        => <timestamp_ltz>, ]
//!     [ load_completed_idle_timeout => <interval>, ]
//!     [ state_ttl                  => <interval> ]) AS s
//! ```
//!
//! What the simulator needs beyond Flink, said in its messages:
//! - `load_completed_time` must be given: Flink's default, the wall-clock time at compile
//!   (`loadCompletedCondition=[compile_time]`), has no counterpart in a deterministic run. It is
//!   written `TO_TIMESTAMP_LTZ(<epoch>, 3)` (ms) or `TO_TIMESTAMP_LTZ(<epoch>, 0)` (s), Flink's
//!   function, since the simulator's row times are `BIGINT` epoch milliseconds (no
//!   `TIMESTAMP_LTZ` literal is read);
//! - the intervals are day-time literals of one unit, `INTERVAL '10' SECOND` (`DAY`, `HOUR`,
//!   `MINUTE`, `SECOND`; a fraction of a second to the millisecond);
//! - `on_time`'s column must be the build source's watermarked column (checked when the
//!   operator is compiled, where the source's watermark is known).

use super::convert::{at, check_ident, named_relation, unsupported, Catalog};
use super::rel::Rel;
use super::script::err;
use super::SqlError;
use crate::engine::error::quote;
use crate::engine::time::Millis;
use sqlparser::ast;
use sqlparser::tokenizer::Location;

/// The arguments of a `LATERAL SNAPSHOT` call other than `input`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotArgs {
    /// `on_time => DESCRIPTOR(column)`: the build input's row-time column.
    pub on_time: String,
    /// `load_completed_time`, in epoch milliseconds.
    pub load_completed_time: Millis,
    /// `load_completed_idle_timeout`, in milliseconds.
    pub load_completed_idle_timeout: Option<Millis>,
    /// `state_ttl`, in milliseconds.
    pub state_ttl: Option<Millis>,
}

/// The argument names, in the docs' order.
const ARGUMENTS: [&str; 5] = ["input", "on_time", "load_completed_time", "load_completed_idle_timeout", "state_ttl"];

/// A join's right item when it is `LATERAL SNAPSHOT(…) [AS alias]`: the snapshot's input, the name
/// it is referred to by (the alias, else the input's name), and the other arguments; `None` for
/// any other item.
///
/// # Errors
/// An argument missing, unknown, repeated or not of its form.
pub(super) fn snapshot_relation(
    factor: &ast::TableFactor,
    catalog: &Catalog,
) -> Result<Option<(Rel, String, SnapshotArgs)>, SqlError> {
    let ast::TableFactor::Function { lateral: true, name, args, alias, .. } = factor else { return Ok(None) };
    if !super::script::object_name(name).eq_ignore_ascii_case("SNAPSHOT") {
        return Ok(None);
    }
    let call_at = at(name);
    let mut given: [Option<&ast::Expr>; 5] = [None; 5];
    for arg in args {
        let ast::FunctionArg::Named { name, arg: ast::FunctionArgExpr::Expr(value), operator } = arg else {
            return Err(err(
                call_at,
                "LATERAL SNAPSHOT's arguments are named: input => TABLE …, on_time => DESCRIPTOR(…), \
                 load_completed_time => …, load_completed_idle_timeout => …, state_ttl => …",
            ));
        };
        if !matches!(operator, ast::FunctionArgOperator::RightArrow) {
            return Err(err(name.span.start, format!("write {} => …: a named argument takes =>", name.value)));
        }
        let Some(i) = ARGUMENTS.iter().position(|a| a.eq_ignore_ascii_case(&name.value)) else {
            return Err(err(
                name.span.start,
                format!(
                    "LATERAL SNAPSHOT has no argument {} (arguments: {})",
                    quote(&name.value),
                    ARGUMENTS.join(", ")
                ),
            ));
        };
        if given[i].replace(value).is_some() {
            return Err(err(name.span.start, format!("the argument {} is given twice", ARGUMENTS[i])));
        }
    }
    let [input, on_time, load_completed_time, idle_timeout, state_ttl] = given;
    let input = input.ok_or_else(|| err(call_at, "LATERAL SNAPSHOT needs its input: input => TABLE build_table"))?;
    let (rel, input_name) = table_argument(input, catalog)?;
    let on_time = on_time.ok_or_else(|| {
        err(
            call_at,
            "LATERAL SNAPSHOT needs on_time => DESCRIPTOR(<row-time column>) in streaming mode: the build \
             input's event-time attribute, whose watermark ends the LOAD phase",
        )
    })?;
    let on_time = descriptor(on_time, &rel)?;
    // The build input's event-time attribute: its source's watermark column (the engine tracks
    // it from a source read directly; a view is checked when the operator is compiled).
    if let Some(source) = catalog.sources.iter().find(|t| t.name == input_name && !catalog.views.contains_key(&t.name))
    {
        match &source.watermark {
            Some(attribute) if *attribute == on_time.0 => {}
            Some(attribute) => {
                return Err(err(
                    on_time.1,
                    format!(
                        "{} is not an event-time attribute of {}: its watermark is on {} (on_time => DESCRIPTOR({}))",
                        quote(&on_time.0),
                        quote(&input_name),
                        quote(attribute),
                        attribute
                    ),
                ))
            }
            None => {
                return Err(err(
                    call_at,
                    format!(
                        "the build input of a LATERAL SNAPSHOT join needs an event-time attribute with a watermark: \
                         {} has none (give the source a \"watermark\")",
                        quote(&input_name)
                    ),
                ))
            }
        }
    }
    let on_time = on_time.0;
    let load_completed_time = load_completed_time.ok_or_else(|| {
        err(
            call_at,
            "give load_completed_time => TO_TIMESTAMP_LTZ(<epoch ms>, 3): Flink's default, the wall-clock time \
             at compile (loadCompletedCondition=[compile_time]), has no counterpart in a simulation",
        )
    })?;
    let args = SnapshotArgs {
        on_time,
        load_completed_time: timestamp_ltz(load_completed_time, "load_completed_time")?,
        load_completed_idle_timeout: idle_timeout.map(|e| interval(e, "load_completed_idle_timeout")).transpose()?,
        state_ttl: state_ttl.map(|e| interval(e, "state_ttl")).transpose()?,
    };
    let name = match alias {
        Some(a) => {
            check_ident(&a.name)?;
            a.name.value.clone()
        }
        None => input_name,
    };
    Ok(Some((rel, name, args)))
}

/// `TABLE name` (the planner's script reader took `TABLE` out and noted where `name` was).
fn table_argument(e: &ast::Expr, catalog: &Catalog) -> Result<(Rel, String), SqlError> {
    let (ident, location) = match e {
        ast::Expr::Identifier(i) => (i, i.span.start),
        other => return Err(err(at(other), "input => TABLE <table or view name>: the snapshot's input is a table")),
    };
    if !catalog.table_arguments.contains(&location) {
        return Err(err(
            location,
            format!("write input => TABLE {}: the snapshot's input is a table argument", ident.value),
        ));
    }
    check_ident(ident)?;
    Ok((named_relation(&ident.value, location, catalog)?, ident.value.clone()))
}

/// `DESCRIPTOR(column)`, a column of `rel`, and where it was written.
fn descriptor(e: &ast::Expr, rel: &Rel) -> Result<(String, Location), SqlError> {
    let column = match e {
        ast::Expr::Function(f) if super::convert::function_name(f) == "DESCRIPTOR" => match &f.args {
            ast::FunctionArguments::List(list) => match list.args.as_slice() {
                [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Identifier(i)))] => Some(i),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let Some(column) = column else {
        return Err(err(at(e), "on_time => DESCRIPTOR(<row-time column>): one column of the snapshot's input"));
    };
    if !rel.names.contains(&column.value) {
        return Err(err(
            column.span.start,
            format!(
                "Column {} not found in the snapshot's input (columns: {})",
                quote(&column.value),
                crate::engine::error::name_list(rel.names.iter().map(String::as_str))
            ),
        ));
    }
    Ok((column.value.clone(), column.span.start))
}

/// `TO_TIMESTAMP_LTZ(<integer>[, 3])` (epoch ms) or `TO_TIMESTAMP_LTZ(<integer>, 0)` (epoch s), in
/// ms: Flink's `TO_TIMESTAMP_LTZ(numeric, precision)` reads precision 0 or 3, 3 by default (Flink
/// 2.3 docs, built-in functions).
fn timestamp_ltz(e: &ast::Expr, what: &str) -> Result<Millis, SqlError> {
    let form = || {
        err(
            at(e),
            format!("{what} => TO_TIMESTAMP_LTZ(<epoch>, 3): the build watermark (epoch ms) that ends the LOAD phase"),
        )
    };
    let ast::Expr::Function(f) = e else { return Err(form()) };
    if super::convert::function_name(f) != "TO_TIMESTAMP_LTZ" {
        return Err(form());
    }
    let ast::FunctionArguments::List(list) = &f.args else { return Err(form()) };
    let number = |a: &ast::FunctionArg| match a {
        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v))) => match &v.value {
            ast::Value::Number(n, _) => n.parse::<i64>().ok(),
            _ => None,
        },
        _ => None,
    };
    let (value, precision) = match list.args.as_slice() {
        [v] => (number(v), Some(3)),
        [v, p] => (number(v), number(p)),
        _ => (None, None),
    };
    let (Some(value), Some(precision)) = (value, precision) else { return Err(form()) };
    let ms = match precision {
        3 => Some(value),
        0 => value.checked_mul(1000),
        _ => return Err(err(at(e), format!("TO_TIMESTAMP_LTZ's precision is 0 or 3, not {precision} (the {what})"))),
    };
    match ms {
        Some(ms) if ms >= 0 => Ok(ms),
        _ => Err(err(at(e), format!("{what} must be a non-negative epoch time"))),
    }
}

/// A day-time interval literal of one unit, in milliseconds: `INTERVAL '10' SECOND`.
fn interval(e: &ast::Expr, what: &str) -> Result<Millis, SqlError> {
    let form = || {
        err(at(e), format!("{what} => INTERVAL '<n>' SECOND (or MINUTE, HOUR, DAY): a day-time interval of one unit"))
    };
    let ast::Expr::Interval(i) = e else { return Err(form()) };
    if i.last_field.is_some() || i.leading_precision.is_some() || i.fractional_seconds_precision.is_some() {
        return Err(form());
    }
    let unit_ms: i64 = match i.leading_field {
        Some(ast::DateTimeField::Day) => 86_400_000,
        Some(ast::DateTimeField::Hour) => 3_600_000,
        Some(ast::DateTimeField::Minute) => 60_000,
        Some(ast::DateTimeField::Second) => 1_000,
        _ => return Err(form()),
    };
    let text = match i.value.as_ref() {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) => s.trim().to_string(),
            _ => return Err(form()),
        },
        _ => return Err(form()),
    };
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let fraction_ms = match (unit_ms, fraction.len()) {
        (_, 0) => Some(0),
        (1_000, 1..=3) if fraction.bytes().all(|b| b.is_ascii_digit()) => {
            fraction.parse::<i64>().ok().map(|f| f * 10_i64.pow(3 - fraction.len() as u32))
        }
        _ => None,
    };
    let ms = whole
        .parse::<u32>()
        .ok()
        .zip(fraction_ms)
        .and_then(|(w, f)| i64::from(w).checked_mul(unit_ms).and_then(|w| w.checked_add(f)));
    ms.ok_or_else(|| {
        err(
            at(e),
            format!(
                "{what}: {} is not an interval of whole units (a second's fraction to the millisecond)",
                quote(&text)
            ),
        )
    })
}

/// `SNAPSHOT(…)` anywhere but a join's right side (Flink's `ForbidSnapshotOutsideLateralRule`
/// refuses it outside `LATERAL`; its message was not read, so this one is the simulator's).
pub(super) fn misplaced(factor: &ast::TableFactor) -> Option<SqlError> {
    match factor {
        ast::TableFactor::Function { name, .. }
            if super::script::object_name(name).eq_ignore_ascii_case("SNAPSHOT") =>
        {
            Some(unsupported(
                factor,
                "SNAPSHOT(…) here: it is the right side of a join, [LEFT] JOIN LATERAL SNAPSHOT(input => TABLE …) ON …",
            ))
        }
        _ => None,
    }
}
