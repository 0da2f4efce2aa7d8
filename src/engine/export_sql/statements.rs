//! A `"sql"` scenario's own statements, re-targeted: its `SET`s are dropped (the export writes
//! the scenario's options itself, from the validated settings), its `CREATE TEMPORARY VIEW`s are
//! kept as written (hints and comments included), its `CREATE TABLE` sink is dropped, and its
//! query (`SELECT …`, or the query of `INSERT INTO t …`) feeds the `print` sink.
//!
//! Statements are split at `;` outside string literals, quoted identifiers and comments, as
//! Flink's SQL client splits a file.

use super::{Feeding, Refused};
use crate::engine::planner::script;

/// The views of `sql`, the names now taken, and the query the `INSERT` reads.
pub fn body(sql: &str, mut taken: Vec<String>) -> Result<(Vec<String>, Vec<String>, Feeding), Refused> {
    let parsed = script::parse(sql).map_err(|e| Refused(format!("sql: {e}")))?;
    let target = parsed.insert_into.as_ref().and_then(|t| parsed.tables.iter().find(|s| s.name == *t));
    if parsed.on_conflict.is_some() || target.is_some_and(|t| !t.primary_key.is_empty()) {
        return Err(Refused(
            "sql: the sink has a PRIMARY KEY (or the INSERT an ON CONFLICT clause): the export writes into a print \
             sink of its own, without a key, where Flink would plan another sink (upsert materialization); not \
             exported"
                .into(),
        ));
    }
    taken.extend(parsed.views.iter().map(|v| v.name.clone()));
    taken.extend(parsed.tables.iter().map(|t| t.name.clone()));
    let mut views = Vec::new();
    let mut query = None;
    for statement in split(sql) {
        let words = leading_words(&statement, 3);
        let first = words.first().map(String::as_str).unwrap_or_default();
        match first {
            "SET" => {}
            "CREATE" if words.get(1).map(String::as_str) == Some("TABLE") => {}
            "CREATE" => views.push(terminated(statement.trim())),
            "INSERT" => query = Some(insert_query(&statement)?),
            _ => query = Some(statement.trim().to_string()),
        }
    }
    let query = query.ok_or_else(|| Refused("sql: the SQL has no query".into()))?;
    Ok((views, taken, Feeding::Query(query)))
}

/// `text;`, the `;` on a line of its own when the last line ends in a `--` comment.
fn terminated(text: &str) -> String {
    match text.lines().last() {
        Some(last) if last.contains("--") => format!("{text}\n;"),
        _ => format!("{text};"),
    }
}

/// The first `n` words of a statement, upper-cased, after whitespace and comments.
fn leading_words(statement: &str, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = statement;
    while out.len() < n {
        rest = skip_blank(rest);
        let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if word.is_empty() {
            break;
        }
        rest = &rest[word.len()..];
        out.push(word.to_ascii_uppercase());
    }
    out
}

/// `text` after leading whitespace and comments.
fn skip_blank(mut text: &str) -> &str {
    loop {
        let t = text.trim_start();
        if let Some(r) = t.strip_prefix("--") {
            text = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = t.strip_prefix("/*") {
            text = r.split_once("*/").map_or("", |(_, after)| after);
        } else {
            return t;
        }
    }
}

/// The query of `INSERT INTO t SELECT …` (`INSERT INTO t (a, b) …` is refused: the export's sink
/// takes the query's columns in order).
fn insert_query(statement: &str) -> Result<String, Refused> {
    let mut rest = skip_blank(statement);
    for _ in 0..2 {
        // INSERT, INTO
        let word_len = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').count();
        rest = skip_blank(&rest[word_len..]);
    }
    // The table name: a word, or a back-ticked or double-quoted identifier, possibly qualified.
    loop {
        let len = match rest.chars().next() {
            Some(q @ ('`' | '"')) => rest[1..].find(q).map_or(rest.len(), |i| i + 2),
            _ => rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').count(),
        };
        rest = &rest[len..];
        match rest.strip_prefix('.') {
            Some(r) => rest = r,
            None => break,
        }
    }
    let query = skip_blank(rest);
    let words = leading_words(query.trim_start_matches('('), 1);
    if query.starts_with('(') && !matches!(words.first().map(String::as_str), Some("SELECT" | "WITH" | "VALUES")) {
        return Err(Refused(
            "sql: INSERT INTO with a column list is not exported: the print sink takes the query's columns in order"
                .into(),
        ));
    }
    Ok(query.trim_end().to_string())
}

/// The statements of `sql`, split at `;` outside literals, quoted identifiers and comments.
pub fn split(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '`' | '"' => {
                current.push(c);
                // A doubled quote inside is the quote itself: the loop closes and reopens.
                for d in chars.by_ref() {
                    current.push(d);
                    if d == c {
                        break;
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                current.push(c);
                for d in chars.by_ref() {
                    current.push(d);
                    if d == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                current.push(c);
                current.extend(chars.next());
                let mut prev = ' ';
                for d in chars.by_ref() {
                    current.push(d);
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
            }
            ';' => out.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    out.push(current);
    out.retain(|s| !skip_blank(s).is_empty());
    out
}
