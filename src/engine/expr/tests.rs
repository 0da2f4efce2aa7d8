use super::*;
use crate::engine::row::Column;

fn cols() -> Vec<Column> {
    let c = |name: &str, data_type| Column { name: name.into(), data_type };
    vec![c("s", DataType::String), c("i", DataType::Int), c("b", DataType::Boolean), c("l", DataType::BigInt)]
}

fn item(text: &str) -> SelectItem {
    compile_select_item(text, 3, &cols(), "p", "source 'src'").unwrap()
}

fn pred(text: &str) -> Expr {
    compile_predicate(text, &cols(), "p", "source 'src'").unwrap()
}

fn err(text: &str) -> String {
    compile_select_item(text, 0, &cols(), "p", "source 'src'").unwrap_err().to_string()
}

const N: Value = Value::Null;
const T: Value = Value::Bool(true);
const F: Value = Value::Bool(false);

#[test]
fn three_valued_logic() {
    let and = pred("b AND i > 1");
    let or = pred("b OR i > 1");
    let row = |b: Value, i: Value| [Value::str("x"), i, b, Value::Int(0)];
    // (b, i > 1) over TRUE / FALSE / NULL.
    let cases = [
        (T, Value::Int(2), T, T),
        (T, Value::Int(0), F, T),
        (T, N, N, T),
        (F, N, F, N),
        (N, Value::Int(0), F, N),
        (N, Value::Int(2), N, T),
        (N, N, N, N),
        (F, Value::Int(0), F, F),
    ];
    for (b, i, want_and, want_or) in cases {
        assert_eq!(and.eval(&row(b, i)), want_and, "{b} AND {i} > 1");
        assert_eq!(or.eval(&row(b, i)), want_or, "{b} OR {i} > 1");
    }
    assert_eq!(pred("NOT b").eval(&row(N, N)), N);
    assert_eq!(pred("b IS NULL").eval(&row(N, N)), T);
    assert_eq!(pred("i IS NOT NULL").eval(&row(N, N)), F);
    assert_eq!(pred("i = NULL").eval(&row(T, Value::Int(1))), N, "a comparison with NULL is NULL");
}

#[test]
fn comparisons_by_type() {
    let row = [Value::str("b"), Value::Int(3), F, Value::Int(5_000_000_000)];
    assert_eq!(pred("s > 'a'").eval(&row), T);
    assert_eq!(pred("s < 'B'").eval(&row), F, "strings compare by bytes: 'b' > 'B'");
    assert_eq!(pred("i <> 3").eval(&row), F);
    assert_eq!(pred("l >= i").eval(&row), T, "BIGINT and INT compare as numbers");
    assert_eq!(pred("i <= -3").eval(&row), F);
    assert_eq!(pred("b = FALSE").eval(&row), T);
}

#[test]
fn case_without_else_is_null_and_takes_the_common_type() {
    let it = item("CASE WHEN s = 'a' THEN s END AS `$f2`");
    assert_eq!(it.name, "$f2");
    assert_eq!(it.expr.data_type(), Some(DataType::String));
    assert_eq!(it.expr.eval(&[Value::str("a"), N, N, N]), Value::str("a"));
    assert_eq!(it.expr.eval(&[Value::str("b"), N, N, N]), N);
    assert_eq!(it.expr.eval(&[N, N, N, N]), N, "a NULL condition does not match");
    // The literal compared with a STRING column is cast to its type, as real Flink 2.3 prints it
    // (`tests/conformance/recorded/calc_where_logic.json`: `<>(k, _UTF-16LE'b':VARCHAR(…) …)`).
    assert_eq!(
        it.expr.rex(&["s".into()]),
        "CASE(=(s, _UTF-16LE'a':VARCHAR(2147483647) CHARACTER SET \"UTF-16LE\"), s, null:VARCHAR(2147483647) \
         CHARACTER SET \"UTF-16LE\")"
    );
    let wide = item("CASE WHEN b THEN i ELSE l END");
    assert_eq!((wide.name.as_str(), wide.expr.data_type()), ("EXPR$3", Some(DataType::BigInt)));
    let simple = item("CASE i WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END AS n");
    assert_eq!(simple.expr.eval(&[N, Value::Int(2), N, N]), Value::str("two"));
    assert_eq!(simple.expr.eval(&[N, N, N, N]), Value::str("many"));
    assert_eq!(item("i").name, "i");
    assert!(!item("i").aliased && item("i AS j").aliased);
}

#[test]
fn refuses_with_the_construct_named() {
    assert_eq!(err("w"), "p: no column 'w' in source 'src' (columns: s, i, b, l)");
    assert!(
        err("s = 1").starts_with("p: Cannot apply '=' to arguments of type '<STRING> = <INT>'"),
        "{}",
        err("s = 1")
    );
    assert!(err("UPPER(s)").starts_with("p: function 'UPPER'(...) is not supported"));
    assert!(
        err("s || 'x'").starts_with("p: 's || \\'x\\'' is not supported (the operator '||')"),
        "{}",
        err("s || 'x'")
    );
    assert!(
        err("s + 1").starts_with("p: Cannot apply '+' to arguments of type '<STRING> + <INT>'"),
        "{}",
        err("s + 1")
    );
    assert!(err("i IN (1, 2)").starts_with("p: 'i IN (1, 2)' is not supported"));
    assert_eq!(err("CASE WHEN b THEN 1 ELSE 'x' END"), "p: Illegal mixing of types in CASE or COALESCE statement");
    assert_eq!(err("CASE WHEN b THEN NULL END"), "p: ELSE clause or at least one THEN clause must be non-NULL");
    assert!(err("CASE WHEN i THEN 1 END").starts_with("p: Expected a boolean type"));
    assert!(err("i AND b").starts_with("p: Cannot apply 'AND' to arguments of type '<INT> AND <BOOLEAN>'"));
    assert!(err("i i i").starts_with("p: cannot parse 'i i i' as SQL: unexpected 'i' after the expression"));
    assert!(err("NULL").starts_with("p: Illegal use of 'NULL'"));
    assert!(err("1.5").contains("only INT and BIGINT numbers are modelled"));
    let where_int = compile_predicate("i", &cols(), "p.where", "source 'src'").unwrap_err().to_string();
    assert_eq!(where_int, "p.where: WHERE clause must be a condition: 'i' is INT");
}

#[test]
fn arithmetic_follows_java_integer_semantics() {
    let row = [Value::str("x"), Value::Int(7), Value::Bool(true), Value::Int(i64::from(i32::MAX))];
    let eval = |text: &str| item(text).expr.try_eval(&row, 0);
    assert_eq!(eval("i + 1"), Ok(Value::Int(8)));
    assert_eq!(item("i + 1").expr.data_type(), Some(DataType::Int));
    assert_eq!(item("i + l").expr.data_type(), Some(DataType::BigInt), "INT + BIGINT is BIGINT");
    assert_eq!(eval("i * 2 - 20"), Ok(Value::Int(-6)));
    assert_eq!(eval("-7 / 2"), Ok(Value::Int(-3)), "integer division truncates toward zero");
    assert_eq!(eval("-7 % 2"), Ok(Value::Int(-1)), "MOD keeps the dividend's sign");
    // INT wraps around as Java's int: Integer.MAX_VALUE + 1 = Integer.MIN_VALUE.
    assert_eq!(eval("2147483647 + 1"), Ok(Value::Int(i64::from(i32::MIN))));
    // BIGINT does not wrap at 32 bits.
    assert_eq!(eval("l + 1"), Ok(Value::Int(i64::from(i32::MAX) + 1)));
    assert_eq!(eval("i + NULL"), Ok(Value::Null));
    assert_eq!(eval("i / 0"), Err("java.lang.ArithmeticException: / by zero".to_string()));
    assert_eq!(eval("i % 0"), Err("java.lang.ArithmeticException: / by zero".to_string()));
    let names: Vec<String> = cols().iter().map(|c| c.name.clone()).collect();
    assert_eq!(item("i * 2 + l").expr.rex(&names), "+(*(i, 2), l)");
    assert_eq!(item("i * 2 + l").expr.infix(&names), "((i * 2) + l)");
    assert_eq!(item("i % 2").expr.infix(&names), "MOD(i, 2)");
}

#[test]
fn is_true_is_never_null() {
    let it = item("(i > 1) IS TRUE AS f");
    assert_eq!(it.expr.data_type(), Some(DataType::Boolean));
    assert_eq!(it.expr.eval(&[N, Value::Int(2), N, N]), T);
    assert_eq!(it.expr.eval(&[N, Value::Int(0), N, N]), F);
    assert_eq!(it.expr.eval(&[N, N, N, N]), F, "NULL IS TRUE is FALSE");
    let names: Vec<String> = cols().iter().map(|c| c.name.clone()).collect();
    assert_eq!(it.expr.rex(&names), "IS TRUE(>(i, 1))");
    assert_eq!(it.expr.infix(&names), "(i > 1) IS TRUE");
}
