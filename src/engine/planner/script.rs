//! A Flink SQL script, split into its statements: `SET 'key' = 'value';`, `CREATE TEMPORARY
//! VIEW name AS query;`, `CREATE TABLE name (...) WITH (...);` (a sink for `INSERT INTO`) and
//! one query, `SELECT …` or `INSERT INTO table SELECT …` — what Flink's SQL client runs
//! (`SqlClient`'s statement splitting at `;`, Flink 2.3).
//!
//! Parsed with `sqlparser`'s generic dialect (back-tick and `"` quoting, `/*+ … */` hints);
//! `SET` is read here, as Flink's `SET 'key' = 'value'` quotes its key.

use super::SqlError;
use crate::engine::error::quote;
use sqlparser::ast::{self, Statement};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer};

/// The most characters a script may have (a query of a few KB is typical; the page re-plans on
/// every key press).
pub const MAX_SQL_CHARS: usize = 64 * 1024;

/// The most tokens a script may have: parsing and planning stay within a few milliseconds.
pub const MAX_SQL_TOKENS: usize = 8_000;

/// The deepest nesting sqlparser may recurse through (as for Calc expressions:
/// [`crate::engine::expr::MAX_EXPRESSION_DEPTH`]).
const MAX_DEPTH: usize = crate::engine::expr::MAX_EXPRESSION_DEPTH;

/// `SET 'key' = 'value'`, where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetOption {
    pub key: String,
    pub value: String,
    pub at: Location,
}

/// A `CREATE TEMPORARY VIEW`.
#[derive(Debug, Clone)]
pub struct View {
    pub name: String,
    pub query: ast::Query,
    pub at: Location,
}

/// A `CREATE TABLE` (a sink `INSERT INTO` writes to).
#[derive(Debug, Clone)]
pub struct SinkTable {
    pub name: String,
    pub columns: Vec<String>,
    pub at: Location,
}

/// The script's statements.
#[derive(Debug, Clone)]
pub struct Script {
    pub options: Vec<SetOption>,
    pub views: Vec<View>,
    pub tables: Vec<SinkTable>,
    /// The query, and the table it is inserted into (`INSERT INTO`), if any.
    pub query: ast::Query,
    pub insert_into: Option<String>,
    pub query_at: Location,
}

fn dialect() -> GenericDialect {
    GenericDialect {}
}

/// An error at `at`.
pub fn err(at: Location, message: impl Into<String>) -> SqlError {
    SqlError { line: at.line, column: at.column, message: message.into() }
}

/// Splits and parses `sql`.
///
/// # Errors
/// A parse error (sqlparser's message, at its line and column), a statement that is not one of
/// the four kinds, or no query / two queries.
pub fn parse(sql: &str) -> Result<Script, SqlError> {
    let start = Location { line: 1, column: 1 };
    if sql.chars().count() > MAX_SQL_CHARS {
        return Err(err(start, format!("the SQL has more than {MAX_SQL_CHARS} characters")));
    }
    let tokens =
        Tokenizer::new(&dialect(), sql).tokenize_with_location().map_err(|e| err(e.location, e.message.clone()))?;
    let significant = tokens.iter().filter(|t| !matches!(t.token, Token::Whitespace(_))).count();
    if significant > MAX_SQL_TOKENS {
        return Err(err(start, format!("the SQL has more than {MAX_SQL_TOKENS} tokens")));
    }
    let mut options = Vec::new();
    let mut views: Vec<View> = Vec::new();
    let mut tables: Vec<SinkTable> = Vec::new();
    let mut query: Option<(ast::Query, Option<String>, Location)> = None;
    for statement in split(tokens) {
        let Some(first) = statement.iter().find(|t| !matches!(t.token, Token::Whitespace(_))) else { continue };
        let at = first.span.start;
        if matches!(&first.token, Token::Word(w) if w.value.eq_ignore_ascii_case("SET")) {
            options.push(parse_set(&statement)?);
            continue;
        }
        if query.is_some() {
            return Err(err(at, "only one query (SELECT or INSERT INTO) is simulated, and it comes last"));
        }
        let dialect = dialect();
        let mut parser = Parser::new(&dialect).with_recursion_limit(MAX_DEPTH).with_tokens_with_locations(statement);
        let parsed = parser.parse_statement().map_err(|e| parse_error(&e, at))?;
        match parsed {
            Statement::CreateView(v) => {
                for part in &v.name.0 {
                    if let ast::ObjectNamePart::Identifier(i) = part {
                        super::convert::check_ident(i)?;
                    }
                }
                let name = object_name(&v.name);
                if views.iter().any(|w| w.name == name) {
                    return Err(err(at, format!("Temporary table {} already exists", quote(&name))));
                }
                views.push(View { name, query: *v.query, at });
            }
            Statement::CreateTable(t) => {
                let columns = t.columns.iter().map(|c| c.name.value.clone()).collect();
                tables.push(SinkTable { name: object_name(&t.name), columns, at });
            }
            Statement::Query(q) => query = Some((*q, None, at)),
            Statement::Insert(insert) => {
                let table = match &insert.table {
                    ast::TableObject::TableName(name) => object_name(name),
                    other => {
                        return Err(err(
                            at,
                            format!("INSERT INTO {} is not modelled: insert into a table", quote(&other.to_string())),
                        ))
                    }
                };
                let Some(source) = insert.source else {
                    return Err(err(at, "INSERT INTO needs a query"));
                };
                if !tables.iter().any(|t| t.name == table) {
                    return Err(err(
                        at,
                        format!(
                            "Object {} not found: declare the sink with CREATE TABLE before INSERT INTO",
                            quote(&table)
                        ),
                    ));
                }
                query = Some((*source, Some(table), at));
            }
            other => {
                let text = other.to_string();
                let kind = crate::engine::error::name(&text.split_whitespace().take(2).collect::<Vec<_>>().join(" "));
                return Err(err(
                    at,
                    format!(
                        "{kind} … is not simulated: a script holds SET, CREATE TEMPORARY VIEW, CREATE TABLE \
                         (a sink) and one query"
                    ),
                ));
            }
        }
    }
    let Some((query, insert_into, query_at)) = query else {
        return Err(err(start, "the SQL has no query: end it with SELECT … or INSERT INTO … SELECT …"));
    };
    Ok(Script { options, views, tables, query, insert_into, query_at })
}

/// The statements of a token stream, split at top-level `;`.
fn split(tokens: Vec<TokenWithSpan>) -> Vec<Vec<TokenWithSpan>> {
    let mut out = vec![Vec::new()];
    for t in tokens {
        if t.token == Token::SemiColon {
            out.push(Vec::new());
        } else if let Some(last) = out.last_mut() {
            last.push(t);
        }
    }
    out.retain(|s| s.iter().any(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF)));
    out
}

/// `SET 'key' = 'value'` (Flink's SQL client syntax).
fn parse_set(tokens: &[TokenWithSpan]) -> Result<SetOption, SqlError> {
    let words: Vec<&TokenWithSpan> =
        tokens.iter().filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::EOF)).collect();
    let at = words[0].span.start;
    match words.as_slice() {
        [_, key, eq, value] if eq.token == Token::Eq => match (&key.token, &value.token) {
            (Token::SingleQuotedString(k), Token::SingleQuotedString(v)) => {
                Ok(SetOption { key: k.clone(), value: v.clone(), at })
            }
            _ => Err(err(at, "SET needs a quoted key and value: SET 'table.exec.state.ttl' = '1 h'")),
        },
        _ => Err(err(at, "SET needs a quoted key and value: SET 'table.exec.state.ttl' = '1 h'")),
    }
}

/// sqlparser's message, at its position (it writes `… at Line: 1, Column: 8`).
fn parse_error(e: &sqlparser::parser::ParserError, fallback: Location) -> SqlError {
    let text = match e {
        sqlparser::parser::ParserError::ParserError(m) | sqlparser::parser::ParserError::TokenizerError(m) => m.clone(),
        sqlparser::parser::ParserError::RecursionLimitExceeded => {
            return err(fallback, format!("the SQL nests deeper than {MAX_DEPTH} levels"))
        }
    };
    if let Some(i) = text.rfind(" at Line: ") {
        let (message, position) = text.split_at(i);
        let mut numbers = position.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty());
        if let (Some(Ok(line)), Some(Ok(column))) = (numbers.next().map(str::parse), numbers.next().map(str::parse)) {
            return SqlError { line, column, message: capped(message) };
        }
    }
    err(fallback, capped(&text))
}

/// sqlparser's message (it holds the tokens it found, user text): escaped, and cut after 300
/// characters.
fn capped(message: &str) -> String {
    let escaped = crate::engine::error::escape_line(message);
    if escaped.chars().count() <= 300 {
        return escaped.into_owned();
    }
    format!("{}… ({} characters)", escaped.chars().take(300).collect::<String>(), escaped.chars().count())
}

/// A table or view name as written, unquoted (`a.b` for a qualified one).
pub fn object_name(name: &ast::ObjectName) -> String {
    name.0
        .iter()
        .map(|part| match part {
            ast::ObjectNamePart::Identifier(i) => i.value.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}
