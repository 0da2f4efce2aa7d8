//! A Flink SQL script, split into its statements: `SET 'key' = 'value';`, `CREATE TEMPORARY
//! VIEW name AS query;`, `CREATE TABLE name (...) WITH (...);` (a sink for `INSERT INTO`) and
//! one query, `SELECT …` or `INSERT INTO table SELECT …` — what Flink's SQL client runs
//! (`SqlClient`'s statement splitting at `;`, Flink 2.3).
//!
//! Parsed with `sqlparser`'s generic dialect (back-tick and `"` quoting, `/*+ … */` hints);
//! `SET` is read here, as Flink's `SET 'key' = 'value'` quotes its key.

use super::SqlError;
use crate::engine::error::quote;
use crate::engine::operators::ConflictBehavior;
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
    /// `PRIMARY KEY (…) NOT ENFORCED`: its columns, in the key's order (empty: none).
    pub primary_key: Vec<String>,
    pub at: Location,
}

/// `ON CONFLICT DO DEDUPLICATE | NOTHING | ERROR` after an `INSERT INTO`'s query (Flink 2.3's
/// `RichSqlInsert`: `ON CONFLICT DO` and one of the three words, ending the statement).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnConflict {
    pub behavior: ConflictBehavior,
    /// Where `ON` was written.
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
    /// The `INSERT INTO`'s `ON CONFLICT` clause, if any.
    pub on_conflict: Option<OnConflict>,
    pub query_at: Location,
    /// Where the name of each table argument (`input => TABLE name`, a `LATERAL SNAPSHOT`
    /// call's) was written.
    pub table_arguments: Vec<Location>,
    /// Flink 2.3.0's parse error for the script's first `LATERAL SNAPSHOT`, if it has one: what a
    /// mode without that join reports.
    pub lateral_snapshot_refusal: Option<SqlError>,
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
    let mut on_conflict = None;
    let mut table_arguments = Vec::new();
    let mut lateral_snapshot_refusal = None;
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
        let (statement, arguments, refusal) = read_lateral_snapshot(statement);
        table_arguments.extend(arguments);
        lateral_snapshot_refusal = lateral_snapshot_refusal.or(refusal);
        let (statement, conflict) = split_on_conflict(statement)?;
        on_conflict = conflict;
        let dialect = dialect();
        let mut parser = Parser::new(&dialect).with_recursion_limit(MAX_DEPTH).with_tokens_with_locations(statement);
        let parsed = parser.parse_statement().map_err(|e| parse_error(&e, at))?;
        // One statement between two `;`: a token after it is Flink's parse error (sqlparser stops
        // where its statement ends and leaves the rest unread).
        let rest = parser.peek_token();
        if rest.token != Token::EOF {
            return Err(encountered(&rest, "\";\" or the end of the statement"));
        }
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
                let primary_key = primary_key(&t, at)?;
                tables.push(SinkTable { name: object_name(&t.name), columns, primary_key, at });
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
                if let Some(on) = &insert.on {
                    return Err(err(
                        at,
                        format!(
                            "{} is not Flink SQL: Flink 2.3 writes ON CONFLICT DO DEDUPLICATE, DO NOTHING or DO ERROR",
                            quote(&on.to_string())
                        ),
                    ));
                }
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
    if let (Some(c), None) = (on_conflict, &insert_into) {
        return Err(err(c.at, "ON CONFLICT belongs to an INSERT INTO … SELECT … statement"));
    }
    Ok(Script {
        options,
        views,
        tables,
        query,
        insert_into,
        on_conflict,
        query_at,
        table_arguments,
        lateral_snapshot_refusal,
    })
}

/// A token that is the keyword `word` (unquoted, any case).
fn is_keyword(t: &TokenWithSpan, word: &str) -> bool {
    matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// Flink's parse error for an unexpected token (`ParseException`: `Encountered "X" at line L,
/// column C.`), with what could come there.
fn encountered(t: &TokenWithSpan, expecting: &str) -> SqlError {
    let at = t.span.start;
    let found = match &t.token {
        Token::EOF => "<EOF>".to_string(),
        other => crate::engine::error::escape_line(&other.to_string()).into_owned(),
    };
    err(at, format!("Encountered \"{found}\" at line {}, column {}. Was expecting {expecting}", at.line, at.column))
}

/// `JOIN LATERAL SNAPSHOT(input => TABLE b, …)` (FLIP-579, apache/flink main, unreleased 2.4):
/// the statement's tokens with the `TABLE` keyword of each table argument (`=> TABLE b` inside the
/// call) taken out, which sqlparser 0.64 cannot read ("Expected: ), found: b", every dialect);
/// it then reads the call as a lateral table function with named arguments. Returns where each
/// table argument's name was written (the planner requires `input => TABLE name`), and Flink
/// 2.3.0's parse error for the syntax, which a mode without the join reports
/// (`crate::engine::scenario::sql`). That error was measured with `explain_sql` on the 2.3.0
/// PyPI build: `[INNER|LEFT [OUTER]] JOIN LATERAL SNAPSHOT` → `Encountered "SNAPSHOT"` at
/// `SNAPSHOT`; a bare `JOIN LATERAL SNAPSHOT` → `Incorrect syntax near the keyword 'JOIN'` at
/// `JOIN` (RIGHT, FULL and CROSS were not measured: they get the first form).
fn read_lateral_snapshot(statement: Vec<TokenWithSpan>) -> (Vec<TokenWithSpan>, Vec<Location>, Option<SqlError>) {
    let significant: Vec<usize> =
        (0..statement.len()).filter(|&i| !matches!(statement[i].token, Token::Whitespace(_) | Token::EOF)).collect();
    let mut refusal = None;
    let mut table_keywords = Vec::new();
    let mut table_arguments = Vec::new();
    for (n, pair) in significant.windows(2).enumerate() {
        let (lateral, snapshot) = (&statement[pair[0]], &statement[pair[1]]);
        if !(is_keyword(lateral, "LATERAL") && is_keyword(snapshot, "SNAPSHOT")) {
            continue;
        }
        if refusal.is_none() {
            let join = n.checked_sub(1).map(|j| &statement[significant[j]]).filter(|t| is_keyword(t, "JOIN"));
            let typed = n.checked_sub(2).is_some_and(|j| {
                ["INNER", "LEFT", "OUTER", "RIGHT", "FULL", "CROSS"]
                    .iter()
                    .any(|w| is_keyword(&statement[significant[j]], w))
            });
            let (at, flink) = match join {
                Some(join) if !typed => (join.span.start, "Incorrect syntax near the keyword 'JOIN'".to_string()),
                _ => (snapshot.span.start, "Encountered \"SNAPSHOT\"".to_string()),
            };
            refusal = Some(err(
                at,
                format!(
                    "SQL parse failed. {flink} at line {}, column {}. (Flink 2.3.0's words: LATERAL SNAPSHOT, \
                     FLIP-579, is only on apache/flink's main branch: run the scenario with \"flink\": \"main\")",
                    at.line, at.column
                ),
            ));
        }
        // The call's arguments: `=> TABLE name` at the call's own depth.
        let mut depth = 0usize;
        let rest = &significant[n + 2..];
        for (k, &i) in rest.iter().enumerate() {
            match statement[i].token {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                Token::RArrow if depth == 1 => {
                    let next = rest.get(k + 1).map(|&j| (j, &statement[j]));
                    let name = rest.get(k + 2).map(|&j| &statement[j]);
                    if let (Some((table, t)), Some(name)) = (next, name) {
                        if is_keyword(t, "TABLE") && matches!(name.token, Token::Word(_)) {
                            table_keywords.push(table);
                            table_arguments.push(name.span.start);
                        }
                    }
                }
                _ => {}
            }
            if depth == 0 && k == 0 {
                break; // no `(` right after SNAPSHOT: sqlparser reports it
            }
        }
    }
    let statement =
        statement.into_iter().enumerate().filter(|(i, _)| !table_keywords.contains(i)).map(|(_, t)| t).collect();
    (statement, table_arguments, refusal)
}

/// An `INSERT` statement's tokens without its trailing `ON CONFLICT DO <behavior>` (which
/// sqlparser does not read as Flink writes it), and that clause. Flink 2.3's grammar
/// (`FlinkSqlParserImpl.RichSqlInsert`, 2.3.0 bytecode): after the query, optionally `ON`
/// `CONFLICT` `DO` and one of `ERROR`, `NOTHING`, `DEDUPLICATE`; nothing may follow. `ON
/// CONFLICT` is looked for outside parentheses only (a join's `ON` is followed by a condition).
fn split_on_conflict(statement: Vec<TokenWithSpan>) -> Result<(Vec<TokenWithSpan>, Option<OnConflict>), SqlError> {
    let significant: Vec<usize> =
        (0..statement.len()).filter(|&i| !matches!(statement[i].token, Token::Whitespace(_) | Token::EOF)).collect();
    if !significant.first().is_some_and(|&i| is_keyword(&statement[i], "INSERT")) {
        return Ok((statement, None));
    }
    let mut depth = 0usize;
    let mut found = None;
    for (n, &i) in significant.iter().enumerate() {
        match statement[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ => {}
        }
        let next_is_conflict = significant.get(n + 1).is_some_and(|&j| is_keyword(&statement[j], "CONFLICT"));
        if depth == 0 && is_keyword(&statement[i], "ON") && next_is_conflict {
            found = Some(n);
            break;
        }
    }
    let Some(n) = found else { return Ok((statement, None)) };
    let at = statement[significant[n]].span.start;
    let end = statement.last().map(|t| t.span.end).unwrap_or(at);
    let eof = TokenWithSpan::at(Token::EOF, end, end);
    let token = |k: usize| significant.get(k).map_or(&eof, |&i| &statement[i]);
    if !is_keyword(token(n + 2), "DO") {
        return Err(encountered(token(n + 2), "\"DO\""));
    }
    let word = token(n + 3);
    let behavior = match &word.token {
        Token::Word(w) if w.quote_style.is_none() => ConflictBehavior::parse(&w.value),
        _ => None,
    };
    let Some(behavior) = behavior else {
        return Err(encountered(word, "one of \"DEDUPLICATE\", \"ERROR\", \"NOTHING\""));
    };
    if significant.len() > n + 4 {
        return Err(encountered(token(n + 4), "<EOF> or \";\" (ON CONFLICT DO … ends the INSERT)"));
    }
    let mut kept = statement;
    kept.truncate(significant[n]);
    Ok((kept, Some(OnConflict { behavior, at })))
}

/// The `PRIMARY KEY` of a `CREATE TABLE`, as a table constraint `PRIMARY KEY (a, b) NOT
/// ENFORCED` or on a column `a STRING PRIMARY KEY NOT ENFORCED`, checked as Flink 2.3 checks it
/// (`SqlConstraintValidator`, `SchemaBuilderUtil`; messages from the 2.3.0 bytecode).
fn primary_key(t: &ast::CreateTable, at: Location) -> Result<Vec<String>, SqlError> {
    const ENFORCED: &str = "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. ENFORCED/NOT ENFORCED \
                            controls if the constraint checks are performed on the incoming/outgoing data. Flink does \
                            not own the data therefore the only supported mode is the NOT ENFORCED mode";
    let mut keys: Vec<(Vec<(String, Location)>, bool)> = Vec::new();
    for c in &t.columns {
        for option in &c.options {
            if let ast::ColumnOption::PrimaryKey(pk) = &option.option {
                let not_enforced = pk.characteristics.as_ref().is_some_and(|ch| ch.enforced == Some(false));
                keys.push((vec![(c.name.value.clone(), c.name.span.start)], not_enforced));
            }
        }
    }
    for constraint in &t.constraints {
        match constraint {
            ast::TableConstraint::PrimaryKey(pk) => {
                let not_enforced = pk.characteristics.as_ref().is_some_and(|ch| ch.enforced == Some(false));
                let columns = pk
                    .columns
                    .iter()
                    .map(|c| match &c.column.expr {
                        ast::Expr::Identifier(i) => Ok((i.value.clone(), i.span.start)),
                        other => Err(err(at, format!("PRIMARY KEY ({other}): a primary key lists column names"))),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                keys.push((columns, not_enforced));
            }
            ast::TableConstraint::Unique(_) => return Err(err(at, "UNIQUE constraint is not supported yet")),
            other => {
                return Err(err(at, format!("{} is not simulated: a sink table declares a PRIMARY KEY only", other)))
            }
        }
    }
    match keys.as_slice() {
        [] => Ok(Vec::new()),
        [_, _, ..] => Err(err(at, "Duplicate primary key definition")),
        [(_, false)] => Err(err(at, ENFORCED)),
        [(columns, true)] => {
            for (name, where_) in columns {
                if !t.columns.iter().any(|c| c.name.value == *name) {
                    return Err(err(
                        *where_,
                        format!(
                            "Primary key column {} is not defined in the schema at line {}, column {}",
                            quote(name),
                            where_.line,
                            where_.column
                        ),
                    ));
                }
            }
            Ok(columns.iter().map(|(n, _)| n.clone()).collect())
        }
    }
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
            // "Expected: X, found: Y" in the form of Flink's own parse error (`encountered`),
            // as the SQL client prints it (trial 25: sqlparser's wording was shown as is).
            let message = match message.strip_prefix("Expected: ").and_then(|m| m.rsplit_once(", found: ")) {
                Some((expected, found)) => format!(
                    "SQL parse failed. Encountered \"{found}\" at line {line}, column {column}. Was expecting {expected}"
                ),
                None => message.to_string(),
            };
            return SqlError { line, column, message: capped(&message) };
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
