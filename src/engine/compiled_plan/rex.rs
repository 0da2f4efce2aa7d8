//! A compiled plan's row types and scalar expressions, read as Flink 1.18+ writes them
//! (`LogicalTypeJsonSerializer`, `RexNodeJsonSerializer` in `flink-table-planner`, package
//! `org.apache.flink.table.planner.plan.nodes.exec.serde`), turned into what the scenario
//! format takes: column names and types, and a `Calc`'s SQL text — written exactly as the SQL
//! planner writes the same expression ([`crate::engine::planner`]'s `Ex::sql`), so that an
//! imported plan and its SQL give the same pipeline.

use crate::engine::error::quote;
use crate::engine::row::DataType;
use serde_json::Value;

/// One field of a row type: its name, its type as written (`VARCHAR(2147483647) NOT NULL`, or
/// the `type` of an object-form type), and whether it is a processing-time attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub type_text: String,
    pub proctime: bool,
}

/// The fields of an `outputType`: the string form ``ROW<`k` VARCHAR(2147483647), `v` INT>`` or
/// the object form `{"type": "ROW", "fields": [{"name", "fieldType"}]}` (which Flink writes
/// when a field's type has more than a string can say, e.g. a `PROCTIME` time attribute).
///
/// # Errors
/// A message saying what is malformed.
pub fn row_fields(v: &Value) -> Result<Vec<Field>, String> {
    match v {
        Value::String(s) => parse_row_text(s),
        Value::Object(o) => {
            if o.get("type").and_then(Value::as_str) != Some("ROW") {
                return Err(format!("expected a ROW type, found {}", short(v)));
            }
            let fields = o.get("fields").and_then(Value::as_array).ok_or("a ROW type without \"fields\"")?;
            fields
                .iter()
                .map(|f| {
                    let name = f.get("name").and_then(Value::as_str).ok_or("a ROW field without \"name\"")?;
                    let t = f.get("fieldType").ok_or("a ROW field without \"fieldType\"")?;
                    Ok(Field { name: name.to_string(), type_text: type_text(t), proctime: is_proctime(t) })
                })
                .collect()
        }
        _ => Err(format!("expected a ROW type, found {}", short(v))),
    }
}

/// A logical type's text: a string type as written, an object type's `type`.
pub fn type_text(t: &Value) -> String {
    match t {
        Value::String(s) => s.clone(),
        Value::Object(o) => o.get("type").and_then(Value::as_str).unwrap_or("?").to_string(),
        other => other.to_string(),
    }
}

/// Whether a type is a processing-time attribute (`"kind": "PROCTIME"`).
fn is_proctime(t: &Value) -> bool {
    t.get("kind").and_then(Value::as_str) == Some("PROCTIME")
}

/// ``ROW<`a` T, `b` T NOT NULL>``: back-quoted names (a doubled back-quote inside is one), each
/// followed by its type up to the next comma outside brackets and quotes.
fn parse_row_text(s: &str) -> Result<Vec<Field>, String> {
    let body = s
        .trim()
        .strip_prefix("ROW<")
        .and_then(|b| b.strip_suffix('>'))
        .ok_or_else(|| format!("expected a type ROW<…>, found {}", quote(s)))?;
    let chars: Vec<char> = body.chars().collect();
    let mut fields = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        while i < chars.len() && chars[i] == ' ' {
            i += 1;
        }
        if chars.get(i) != Some(&'`') {
            return Err(format!("expected a back-quoted field name in {}", quote(s)));
        }
        i += 1;
        let mut name = String::new();
        loop {
            match (chars.get(i), chars.get(i + 1)) {
                (Some('`'), Some('`')) => {
                    name.push('`');
                    i += 2;
                }
                (Some('`'), _) => {
                    i += 1;
                    break;
                }
                (Some(c), _) => {
                    name.push(*c);
                    i += 1;
                }
                (None, _) => return Err(format!("an unterminated field name in {}", quote(s))),
            }
        }
        let (mut depth, mut in_quote, start) = (0i32, false, i);
        while i < chars.len() {
            match chars[i] {
                '\'' => in_quote = !in_quote,
                '(' | '<' if !in_quote => depth += 1,
                ')' | '>' if !in_quote => depth -= 1,
                ',' if !in_quote && depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        let type_text: String = chars[start..i].iter().collect::<String>().trim().to_string();
        fields.push(Field { name, proctime: false, type_text });
        i += 1;
    }
    Ok(fields)
}

/// The engine's type of a column type: `INT`, `BIGINT`, `BOOLEAN`, and `CHAR`/`VARCHAR`/`STRING`
/// as `STRING` (nullability aside: the engine's columns are all nullable).
///
/// # Errors
/// Any other type, named.
pub fn engine_type(type_text: &str) -> Result<DataType, String> {
    let base = type_text.trim().trim_end_matches("NOT NULL").trim();
    let head = base.split('(').next().unwrap_or(base).trim();
    match head {
        "INT" | "INTEGER" => Ok(DataType::Int),
        "BIGINT" => Ok(DataType::BigInt),
        "BOOLEAN" => Ok(DataType::Boolean),
        "VARCHAR" | "CHAR" | "STRING" => Ok(DataType::String),
        _ => Err(format!("type {} is not modelled (the simulator's types: INT, BIGINT, STRING, BOOLEAN)", quote(base))),
    }
}

/// `` `name` `` with back-quotes doubled inside (as the SQL planner quotes).
pub fn ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// What an expression refers to: the input's field names.
pub struct Scope<'a> {
    pub inputs: &'a [Field],
}

/// The SQL text of a `RexNode` over `scope`, as the SQL planner writes the same expression:
/// comparisons, arithmetic (`MOD` as `%`), `AND`/`OR` (Calcite's n-ary calls folded from the left), `NOT`, `IS [NOT] NULL`,
/// `CASE` (an `ELSE NULL`, which Calcite always adds, left out), literals, field references,
/// `PROCTIME()` and `PROCTIME_MATERIALIZE(…)` (the attribute's value).
///
/// # Errors
/// A call or literal the engine's `Calc` does not evaluate, named (`$CAST$1`, a `DECIMAL`
/// literal), or a malformed node.
pub fn sql(rex: &Value, scope: &Scope) -> Result<String, String> {
    let kind = rex
        .get("kind")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("an expression without \"kind\": {}", short(rex)))?;
    match kind {
        "INPUT_REF" => {
            let i = rex.get("inputIndex").and_then(Value::as_u64).ok_or("an INPUT_REF without \"inputIndex\"")?;
            let field = usize::try_from(i).ok().and_then(|i| scope.inputs.get(i)).ok_or_else(|| {
                format!("INPUT_REF ${i} is out of range: the input has {} fields", scope.inputs.len())
            })?;
            Ok(ident(&field.name))
        }
        "LITERAL" => literal(rex),
        "CALL" => call(rex, scope),
        other => Err(format!("an expression of kind {} is not modelled", quote(other))),
    }
}

/// A literal as SQL text: `NULL`, `TRUE`/`FALSE`, a whole number, a quoted string.
pub fn literal(rex: &Value) -> Result<String, String> {
    let t_text = type_text(rex.get("type").unwrap_or(&Value::Null));
    let t = &t_text;
    let value = rex.get("value").unwrap_or(&Value::Null);
    if value.is_null() {
        return Ok("NULL".into());
    }
    match (engine_type(t), value) {
        (Ok(DataType::Boolean), Value::Bool(b)) => Ok(if *b { "TRUE" } else { "FALSE" }.into()),
        (Ok(t @ (DataType::Int | DataType::BigInt)), v) => {
            let n = v.as_i64().or_else(|| v.as_str()?.parse().ok());
            let n = n.ok_or_else(|| format!("a literal {} does not match its type {}", short(v), quote(&t_text)))?;
            // A BIGINT literal the planner folded (`0:BIGINT`) is written as the SQL planner
            // writes it, `CAST(0 AS BIGINT)`; the engine reads a number past INT as BIGINT.
            Ok(match t {
                DataType::BigInt if (0..=i64::from(i32::MAX)).contains(&n) => format!("CAST({n} AS BIGINT)"),
                _ => n.to_string(),
            })
        }
        (Ok(DataType::String), Value::String(s)) => Ok(format!("'{}'", s.replace('\'', "''"))),
        (Err(_), _) => Err(format!("a literal of type {} is not modelled by the engine's Calc", quote(t))),
        _ => Err(format!("a literal {} does not match its type {}", short(value), quote(t))),
    }
}

/// A call's name as the plan writes it: `internalName` (`$=$1`), else `systemName` or
/// `catalogName` (functions registered by the user).
pub fn call_name(rex: &Value) -> String {
    ["internalName", "systemName", "catalogName"]
        .iter()
        .find_map(|k| rex.get(*k).and_then(Value::as_str))
        .unwrap_or("?")
        .to_string()
}

fn call(rex: &Value, scope: &Scope) -> Result<String, String> {
    let name = call_name(rex);
    let empty = Vec::new();
    let operands = rex.get("operands").and_then(Value::as_array).unwrap_or(&empty);
    let arity = |n: usize| -> Result<(), String> {
        if operands.len() == n {
            Ok(())
        } else {
            Err(format!("{} has {} operands, expected {n}", quote(&name), operands.len()))
        }
    };
    let s = |i: usize| sql(&operands[i], scope);
    match name.as_str() {
        "$=$1" | "$<>$1" | "$<$1" | "$<=$1" | "$>$1" | "$>=$1" | "$+$1" | "$-$1" | "$*$1" | "$/$1" | "$%$1" => {
            arity(2)?;
            let op = &name[1..name.len() - 2];
            Ok(format!("({} {op} {})", s(0)?, s(1)?))
        }
        "$MOD$1" => {
            arity(2)?;
            Ok(format!("({} % {})", s(0)?, s(1)?))
        }
        "$AND$1" | "$OR$1" => {
            if operands.len() < 2 {
                return Err(format!("{} has {} operands, expected at least 2", quote(&name), operands.len()));
            }
            let op = &name[1..name.len() - 2];
            let mut text = s(0)?;
            for i in 1..operands.len() {
                text = format!("({text} {op} {})", s(i)?);
            }
            Ok(text)
        }
        "$NOT$1" => {
            arity(1)?;
            Ok(format!("(NOT {})", s(0)?))
        }
        "$IS NULL$1" | "$IS NOT NULL$1" | "$IS TRUE$1" => {
            arity(1)?;
            Ok(format!("({} {})", s(0)?, &name[1..name.len() - 2]))
        }
        "$CASE$1" => {
            if operands.len() < 3 || operands.len().is_multiple_of(2) {
                return Err(format!("'$CASE$1' has {} operands, expected WHEN/THEN pairs and an ELSE", operands.len()));
            }
            let mut text = String::from("CASE");
            for i in (0..operands.len() - 1).step_by(2) {
                text.push_str(&format!(" WHEN {} THEN {}", s(i)?, s(i + 1)?));
            }
            let otherwise = &operands[operands.len() - 1];
            let is_null = otherwise.get("kind").and_then(Value::as_str) == Some("LITERAL")
                && otherwise.get("value").is_none_or(Value::is_null);
            if !is_null {
                text.push_str(&format!(" ELSE {}", s(operands.len() - 1)?));
            }
            text.push_str(" END");
            Ok(text)
        }
        // The engine's Calc evaluates `PROCTIME()` itself, as the SQL planner writes it.
        "$PROCTIME$1" => {
            arity(0)?;
            Ok("PROCTIME()".to_string())
        }
        // Materializing the attribute turns the time attribute into a plain TIMESTAMP_LTZ value:
        // the engine's processing-time column already is that value.
        "$PROCTIME_MATERIALIZE$1" => {
            arity(1)?;
            s(0)
        }
        _ => Err(format!(
            "the function {} is not modelled by the engine's Calc (it evaluates =, <>, <, <=, >, >=, +, -, *, /, \
             %, AND, OR, NOT, IS [NOT] NULL, IS TRUE, CASE, PROCTIME())",
            quote(&name)
        )),
    }
}

/// A JSON value shortened for a message.
pub fn short(v: &Value) -> String {
    quote(&v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_both_row_type_forms() {
        let f = row_fields(&json!("ROW<`k` VARCHAR(2147483647), `a``b` DECIMAL(10, 2) NOT NULL, `c` INT>")).unwrap();
        let names: Vec<&str> = f.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["k", "a`b", "c"]);
        assert_eq!(f[1].type_text, "DECIMAL(10, 2) NOT NULL");
        let o = json!({"type": "ROW", "fields": [{"name": "pt", "fieldType": {"type": "TIMESTAMP_WITH_LOCAL_TIME_ZONE", "kind": "PROCTIME"}}]});
        let f = row_fields(&o).unwrap();
        assert_eq!((f[0].name.as_str(), f[0].proctime), ("pt", true));
        assert!(row_fields(&json!("INT")).unwrap_err().contains("expected a type ROW<…>"));
    }

    #[test]
    fn writes_expressions_as_the_sql_planner_does() {
        let inputs = row_fields(&json!("ROW<`a` INT, `b` VARCHAR(3)>")).unwrap();
        let scope = Scope { inputs: &inputs };
        let r = |i: u64| json!({"kind": "INPUT_REF", "inputIndex": i});
        let lit = |v: Value, t: &str| json!({"kind": "LITERAL", "value": v, "type": t});
        let and = json!({"kind": "CALL", "internalName": "$AND$1", "operands": [
            {"kind": "CALL", "internalName": "$>$1", "operands": [r(0), lit(json!(1), "INT NOT NULL")]},
            {"kind": "CALL", "internalName": "$IS NOT NULL$1", "operands": [r(1)]},
            {"kind": "CALL", "internalName": "$=$1", "operands": [r(1), lit(json!("o'k"), "CHAR(4) NOT NULL")]}]});
        assert_eq!(sql(&and, &scope).unwrap(), "(((`a` > 1) AND (`b` IS NOT NULL)) AND (`b` = 'o''k'))");
        let case = json!({"kind": "CALL", "internalName": "$CASE$1", "operands": [
            {"kind": "CALL", "internalName": "$NOT$1", "operands": [lit(json!(true), "BOOLEAN")]}, r(0), lit(Value::Null, "INT")]});
        assert_eq!(sql(&case, &scope).unwrap(), "CASE WHEN (NOT TRUE) THEN `a` END");
        let pt = json!({"kind": "CALL", "internalName": "$PROCTIME$1", "operands": []});
        // The engine's Calc computes `PROCTIME()` itself, as the SQL planner writes it.
        assert_eq!(sql(&pt, &scope).unwrap(), "PROCTIME()");
        let cast = json!({"kind": "CALL", "internalName": "$CAST$1", "operands": [r(0)]});
        assert!(sql(&cast, &scope).unwrap_err().starts_with("the function '$CAST$1' is not modelled"));
        let dec = lit(json!("1.5"), "DECIMAL(2, 1) NOT NULL");
        assert_eq!(
            sql(&dec, &scope).unwrap_err(),
            "a literal of type 'DECIMAL(2, 1) NOT NULL' is not modelled by the engine's Calc"
        );
        assert_eq!(sql(&r(5), &scope).unwrap_err(), "INPUT_REF $5 is out of range: the input has 2 fields");
    }
}
