//! Errors: a rejected scenario names the field and the rule; a failed step says why.

use thiserror::Error;

/// A scenario that cannot run. `path` names the field (`steps[3].at`,
/// `pipeline[1].aggregates[0].args`, `idle_state_retention`), `message` the rule, in Flink's own
/// words where Flink has them.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{path}: {message}")]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into() }
    }
}

/// A driving action that could not be carried out: time would go backwards, the scenario has
/// no more steps, or an operator failed where Flink would throw (the simulation then stops, as
/// a Flink job would, and refuses further actions until it is reset).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct StepError(pub String);

/// serde's message for a string that names no variant: ``unknown variant `x`, expected `a` or `b` ``.
pub fn unknown_variant(found: &str, names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let expected = match names.as_slice() {
        [one] => one.clone(),
        [a, b] => format!("{a} or {b}"),
        more => format!("one of {}", more.join(", ")),
    };
    format!("unknown value {}, expected {expected}", quote_in(found, '`'))
}

/// Implements `TryFrom<String>` for an enum written as one of a few strings, so that serde
/// (`#[serde(try_from = "String")]`) reads it as a string first: a number or an object where the
/// name belongs gets "expected a string, found …" instead of serde_json's bare
/// "expected value", and an unknown name serde's own wording. Its JSON Schema
/// (`flink-state-sim schema`) is the same names, as an `enum` of strings.
#[macro_export]
macro_rules! string_enum {
    ($ty:ty, [$(($name:literal, $variant:expr)),+ $(,)?]) => {
        impl TryFrom<String> for $ty {
            type Error = String;
            fn try_from(text: String) -> Result<Self, String> {
                match text.as_str() {
                    $($name => Ok($variant),)+
                    other => Err($crate::engine::error::unknown_variant(other, &[$($name),+])),
                }
            }
        }

        impl ::schemars::JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }
            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                ::schemars::json_schema!({ "type": "string", "enum": [$($name),+] })
            }
        }
    };
}

/// Longest user text an error quotes whole.
const QUOTE_MAX_CHARS: usize = 60;
/// How much of a list of names ([`name_list`]) an error shows, in characters, before `… N more`.
const LIST_MAX_CHARS: usize = 200;

/// User text as an error message quotes it: in single quotes, on one line, control and other
/// invisible characters escaped (`\n`, `\u{1b}`), and shortened when long, so a message stays
/// one readable line whatever the input holds. The one place user text is made safe to echo:
/// [`quote_in`], [`name`], [`name_list`], [`escape_line`] and [`serde_message`] share its
/// escape table ([`needs_escape`]) and its length limit.
pub fn quote(text: &str) -> String {
    quote_in(text, '\'')
}

/// [`quote`] with another delimiter: serde writes a field as `` `name` `` and a string as
/// `"text"`. The delimiter is escaped inside only when it is a quote (`\'`, `\"`), as Rust's
/// `escape_default` does; serde leaves a backtick in a name as it is.
pub fn quote_in(text: &str, delimiter: char) -> String {
    let (shown, count) = shortened(text, Some(delimiter));
    match count {
        Some(count) => format!("{delimiter}{shown}…{delimiter} ({count} characters)"),
        None => format!("{delimiter}{shown}{delimiter}"),
    }
}

/// A name (a column, a field of a path) echoed without quotes: escaped and shortened as
/// [`quote`] does: `v\nFAKE`, `kkk… (1000000 characters)`.
pub fn name(text: &str) -> String {
    match shortened(text, None) {
        (shown, Some(count)) => format!("{shown}… ({count} characters)"),
        (shown, None) => shown,
    }
}

/// A JSON value found where another was expected, for an error: a string as [`quote_in`] with
/// `"`, anything else as its JSON text through [`name`] (escaped and shortened: an array or
/// object may hold any text, of any length).
pub fn json_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => quote_in(s, '"'),
        other => name(&other.to_string()),
    }
}

/// A list of names for an error (`columns: k, v, … 99998 more`): each [`name`], the list cut
/// after about [`LIST_MAX_CHARS`] characters with how many more there are.
pub fn name_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut shown: Vec<String> = Vec::new();
    let mut length = 0;
    let mut more = 0usize;
    for n in names {
        if length >= LIST_MAX_CHARS {
            more += 1;
            continue;
        }
        let n = name(n);
        length += n.chars().count() + 2;
        shown.push(n);
    }
    if more > 0 {
        shown.push(format!("… {more} more"));
    }
    shown.join(", ")
}

/// A line of output (a trace line, a result row) with the characters [`quote`] escapes escaped
/// and nothing cut: an ESC in a value cannot reach the terminal, a newline cannot forge a line.
pub fn escape_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| needs_escape(c, None)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c, None);
    }
    std::borrow::Cow::Owned(out)
}

/// `text` cut at `max_chars` characters with `…` (a line the page shows that holds user values:
/// a 20 000-character key would otherwise fill the page).
pub fn cut(text: &str, max_chars: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => std::borrow::Cow::Owned(format!("{}…", &text[..at])),
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// A scenario's own text shown on the page (its title, description, What to watch): the
/// invisible characters [`quote`] escapes (bidirectional overrides and isolates, zero-width
/// characters, other controls) escaped, so a shared link cannot show a reversed or hidden title;
/// line breaks and tabs kept. Cut at `max_chars` characters with `…`.
pub fn shown_text(text: &str, max_chars: usize) -> std::borrow::Cow<'_, str> {
    let keep = |c: char| c == '\n' || c == '\t' || !needs_escape(c, None);
    let long = text.char_indices().nth(max_chars).is_some();
    if !long && text.chars().all(keep) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().min(max_chars * 4) + 8);
    for c in text.chars().take(max_chars) {
        if keep(c) {
            out.push(c);
        } else {
            out.extend(c.escape_default());
        }
    }
    if long {
        out.push('…');
    }
    std::borrow::Cow::Owned(out)
}

/// `text` escaped, cut at [`QUOTE_MAX_CHARS`]; the count of characters when it was cut.
fn shortened(text: &str, delimiter: Option<char>) -> (String, Option<usize>) {
    let mut shown = String::new();
    for c in text.chars().take(QUOTE_MAX_CHARS) {
        push_escaped(&mut shown, c, delimiter);
    }
    let cut = text.char_indices().nth(QUOTE_MAX_CHARS).is_some();
    (shown, cut.then(|| text.chars().count()))
}

/// Whether an echo writes `c` escaped: control characters, whitespace other than the space,
/// invisible characters (zero-width spaces and joiners, the bidirectional marks, embeddings,
/// overrides and isolates U+202A–202E and U+2066–2069, the byte-order mark, tag characters)
/// that could hide or reorder what a reader sees, and the quote delimiter.
fn needs_escape(c: char, delimiter: Option<char>) -> bool {
    let invisible = matches!(
        c,
        '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e0000}'..='\u{e007f}'
    );
    let quote_delimiter = matches!(delimiter, Some(d @ ('\'' | '"')) if d == c);
    c.is_control() || invisible || (c.is_whitespace() && c != ' ') || quote_delimiter
}

/// Writes `c` as an echo shows it: as it is, or escaped as Rust escapes it (`\n`, `\u{1b}`).
fn push_escaped(out: &mut String, c: char, delimiter: Option<char>) {
    if needs_escape(c, delimiter) {
        out.extend(c.escape_default());
    } else {
        out.push(c);
    }
}

/// A serde_json error's message with the user text it quotes made safe: serde writes an unknown
/// field or variant whole (`` unknown field `…` ``) and a string value in Rust's debug form
/// (`invalid type: string "…"`), however long; here both go through [`quote_in`].
/// [`serde_message`] without serde's `at line L column C`: for a part of the scenario read on its
/// own ([`crate::engine::format::parse_part`]), whose positions count from the part's first
/// character, not the user's text (the path names the field instead).
pub fn serde_message_without_position(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let message = if e.line() > 0 { full.strip_suffix(&position).unwrap_or(&full) } else { &full };
    requote_serde_text(message)
}

/// A message without the `at line L column C` that [`serde_message`] ends with: for a scenario
/// the user never saw as text (a permalink's compressed `s=`, the autosave), where a position in
/// it points at nothing the user can find; the path before the message names the field.
pub fn without_json_position(message: &str) -> &str {
    let Some((head, tail)) = message.rsplit_once(" at line ") else { return message };
    let Some((line, column)) = tail.split_once(" column ") else { return message };
    let digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
    if digits(line) && digits(column) {
        head
    } else {
        message
    }
}

pub fn serde_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let position = if e.line() > 0 { format!(" at line {} column {}", e.line(), e.column()) } else { String::new() };
    let message = full.strip_suffix(&position).unwrap_or(&full);
    let position = if message.len() < full.len() { position.as_str() } else { "" };
    format!("{}{position}", requote_serde_text(message))
}

/// The path of the object an error is in: [`serde_path`], but for an unknown field the object
/// holding it (the message names the field: `steps[0]: unknown field `extra``, not the field
/// twice); `None` for the root.
pub fn serde_error_path(path: &serde_path_to_error::Path, error: &serde_json::Error) -> Option<String> {
    let unknown_field = error.to_string().starts_with("unknown field `");
    let segments: Vec<_> = path.iter().collect();
    let keep = if unknown_field { segments.len().saturating_sub(1) } else { segments.len() };
    segments_text(&segments[..keep])
}

/// The path of a field as serde_path_to_error tracks it (`steps[0].row`), its keys (user text
/// when a key is unknown or names a column) shown as [`name`]s; `None` for the root.
pub fn serde_path(path: &serde_path_to_error::Path) -> Option<String> {
    segments_text(&path.iter().collect::<Vec<_>>())
}

fn segments_text(segments: &[&serde_path_to_error::Segment]) -> Option<String> {
    use serde_path_to_error::Segment;
    let mut text = String::new();
    for segment in segments {
        let part = match segment {
            Segment::Seq { index } => {
                text.push_str(&format!("[{index}]"));
                continue;
            }
            Segment::Map { key } => name(key),
            Segment::Enum { variant } => name(variant),
            Segment::Unknown => "?".to_string(),
        };
        if !text.is_empty() {
            text.push('.');
        }
        text.push_str(&part);
    }
    (!text.is_empty()).then_some(text)
}

/// serde's wordings that embed user text, rewritten through [`quote_in`]; other messages as
/// they are.
fn requote_serde_text(message: &str) -> String {
    in_plain_words(&requote_serde_text_only(message))
}

/// serde's words for JSON, in the words of the page's own messages (trial 23: "unknown variant",
/// "invalid type", "a sequence" read as Rust): `unknown variant `x`` → `unknown value `x``,
/// `invalid type: string "3", expected a whole number` → `expected a whole number, found the
/// string "3"`, a sequence → a list, a map → an object.
fn in_plain_words(message: &str) -> String {
    // serde's words for JSON's: an enum of names (serde's "string or map") takes a name.
    let json_words = |t: &str| {
        t.replace("a sequence", "a list")
            .replace("a map", "an object")
            .replace("struct ", "an object ")
            .replace("a boolean", "true or false")
            .replace("string or map", "a name")
    };
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        return format!("unknown value {rest}");
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        let Some(rest) = message.strip_prefix(prefix) else { continue };
        let Some((found, expected)) = rest.rsplit_once(", expected ") else { continue };
        let found = if let Some(s) = found.strip_prefix("string ") {
            format!("the string {s}")
        } else if let Some(n) = found.strip_prefix("integer ").or_else(|| found.strip_prefix("floating point ")) {
            format!("the number {}", n.trim_matches('`'))
        } else if let Some(b) = found.strip_prefix("boolean ") {
            b.trim_matches('`').to_string()
        } else {
            match found {
                "map" => "an object".into(),
                "sequence" => "a list".into(),
                "unit value" => "null".into(),
                other => other.to_string(),
            }
        };
        return format!("expected {}, found {found}", json_words(expected));
    }
    message.to_string()
}

fn requote_serde_text_only(message: &str) -> String {
    let text = requote_serde_values(message);
    // serde names Rust's integer types (`expected u64`); people read what the number must be.
    for (rust, people) in [
        (", expected u64", ", expected a whole number, 0 or more"),
        (", expected u32", ", expected a whole number, 0 or more"),
        (", expected usize", ", expected a whole number, 0 or more"),
        (", expected i64", ", expected a whole number"),
        (", expected i32", ", expected a whole number"),
    ] {
        if let Some(head) = text.strip_suffix(rust) {
            return format!("{head}{people}");
        }
    }
    text
}

fn requote_serde_values(message: &str) -> String {
    for prefix in ["unknown field ", "unknown variant "] {
        if let Some(rest) = message.strip_prefix(prefix).and_then(|r| r.strip_prefix('`')) {
            if let Some(end) = rest.rfind("`, expected ").or_else(|| rest.rfind("`, there are no ")) {
                return format!("{prefix}{}{}", quote_in(&rest[..end], '`'), &rest[end + 1..]);
            }
        }
    }
    for prefix in ["invalid type: string ", "invalid value: string "] {
        if let Some(rest) = message.strip_prefix(prefix).and_then(|r| r.strip_prefix('"')) {
            if let Some(end) = rest.rfind("\", expected ") {
                return format!("{prefix}{}{}", quote_in(&unescape_debug(&rest[..end]), '"'), &rest[end + 1..]);
            }
        }
    }
    message.to_string()
}

/// The text Rust's `{:?}` of a string escaped (serde's `string "…"`), read back: `\n`, `\t`,
/// `\r`, `\0`, `\\`, `\"`, `\'` and `\u{…}`.
fn unescape_debug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('u') => {
                let rest = chars.as_str();
                let code = rest.strip_prefix('{').and_then(|r| r.split_once('}'));
                match code.and_then(|(hex, _)| u32::from_str_radix(hex, 16).ok()).and_then(char::from_u32) {
                    Some(ch) => {
                        out.push(ch);
                        let skip = code.map_or(0, |(hex, _)| hex.len() + 2);
                        chars = rest[skip..].chars();
                    }
                    None => out.push_str("\\u"),
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_scenario_s_text_is_shown_with_its_invisible_characters_escaped_and_cut() {
        use super::shown_text;
        assert_eq!(shown_text("evil \u{202e} title", 100), "evil \\u{202e} title");
        assert_eq!(shown_text("two\nlines\tand a tab", 100), "two\nlines\tand a tab");
        assert_eq!(shown_text("zero\u{200b}width", 100), "zero\\u{200b}width");
        assert_eq!(shown_text(&"K".repeat(500), 200), format!("{}…", "K".repeat(200)));
        assert!(matches!(shown_text("plain", 10), std::borrow::Cow::Borrowed(_)));
        assert_eq!(super::cut("héllo wörld", 5), "héllo…");
        assert_eq!(super::cut("short", 5), "short");
    }

    #[test]
    fn rusts_integer_types_are_said_as_what_the_number_must_be() {
        let e = serde_json::from_str::<u64>("-1").unwrap_err();
        assert_eq!(
            super::serde_message(&e),
            "expected a whole number, 0 or more, found the number -1 at line 1 column 2"
        );
    }

    #[test]
    fn a_json_position_is_dropped_only_at_the_end() {
        use super::without_json_position as w;
        assert_eq!(w("min: unknown unit at line 1 column 968"), "min: unknown unit");
        assert_eq!(w("at line 3 column x"), "at line 3 column x");
        assert_eq!(w("no position"), "no position");
    }

    use super::*;

    #[test]
    fn quotes_user_text_on_one_line() {
        assert_eq!(quote("AVG"), "'AVG'");
        assert_eq!(quote("a\nb"), "'a\\nb'");
        assert_eq!(quote("\u{1b}[31mred"), "'\\u{1b}[31mred'");
        let long = "x".repeat(1000);
        assert_eq!(quote(&long), format!("'{}…' (1000 characters)", "x".repeat(60)));
    }

    #[test]
    fn escapes_bidi_controls_and_invisible_characters() {
        assert_eq!(quote("k\u{2067}\u{2066} x \u{2069}"), "'k\\u{2067}\\u{2066} x \\u{2069}'");
        assert_eq!(quote("\u{202e}a\u{200b}\u{feff}\u{e0041}"), "'\\u{202e}a\\u{200b}\\u{feff}\\u{e0041}'");
        assert_eq!(quote("it's"), "'it\\'s'");
        assert_eq!(quote("é 名 😀"), "'é 名 😀'", "printable text stays as it is");
    }

    #[test]
    fn quote_in_keeps_serdes_delimiters() {
        assert_eq!(quote_in("a\nb", '`'), "`a\\nb`");
        assert_eq!(quote_in("say \"hi\"", '"'), "\"say \\\"hi\\\"\"");
        assert_eq!(quote_in(&"y".repeat(61), '`'), format!("`{}…` (61 characters)", "y".repeat(60)));
    }

    #[test]
    fn names_and_lists_are_escaped_and_shortened() {
        assert_eq!(name("v\nFAKE\u{1b}[31m"), "v\\nFAKE\\u{1b}[31m");
        assert_eq!(name(&"k".repeat(100)), format!("{}… (100 characters)", "k".repeat(60)));
        assert_eq!(name_list(["k", "v"]), "k, v");
        let many: Vec<String> = (0..100_000).map(|i| format!("c{i}")).collect();
        let list = name_list(many.iter().map(String::as_str));
        assert!(list.starts_with("c0, c1, c2, "), "{list}");
        assert!(list.len() < 300, "{}", list.len());
        let shown = list.matches(", c").count() + 1;
        assert!(list.ends_with(&format!(", … {} more", 100_000 - shown)), "{list}");
    }

    #[test]
    fn escape_line_escapes_without_quoting_or_cutting() {
        assert!(matches!(escape_line("+I[a, 1]"), std::borrow::Cow::Borrowed("+I[a, 1]")));
        assert_eq!(escape_line("+I[\u{1b}[2Jx\nfake, it's]"), "+I[\\u{1b}[2Jx\\nfake, it's]");
        let long = "x".repeat(1000);
        assert_eq!(escape_line(&long), long);
    }

    fn serde_error<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str) -> String {
        serde_message(&serde_json::from_str::<T>(json).unwrap_err())
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Small {
        flag: Option<bool>,
    }

    #[test]
    fn serde_messages_quote_user_text() {
        assert_eq!(
            serde_error::<Small>(r#"{"zz\nFAKE\u001b[2J": 1}"#),
            "unknown field `zz\\nFAKE\\u{1b}[2J`, expected `flag` at line 1 column 20"
        );
        assert_eq!(
            serde_error::<Small>(r#"{"flag": "a\"\u2066\n"}"#),
            "expected true or false, found the string \"a\\\"\\u{2066}\\n\" at line 1 column 22"
        );
        let long = format!(r#"{{"{}": 1}}"#, "k".repeat(1_000_000));
        let message = serde_error::<Small>(&long);
        assert!(message.len() < 200, "{message}");
        assert!(
            message.starts_with(&format!("unknown field `{}…` (1000000 characters), expected `flag`", "k".repeat(60)))
        );
        assert_eq!(
            serde_error::<Small>(r#"{"flag": 1}"#),
            "expected true or false, found the number 1 at line 1 column 10"
        );
    }

    #[test]
    fn reads_rusts_debug_escapes_back() {
        for text in ["a\nb\t\r\0", "\u{1b}[31m \u{2066}", "q\"\\'", "\\u{zz}", "名"] {
            assert_eq!(unescape_debug(format!("{text:?}").trim_matches('"')), text);
        }
    }
}
