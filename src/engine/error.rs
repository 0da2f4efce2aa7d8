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
    let shown = quote(found);
    format!("unknown variant `{}`, expected {expected}", &shown[1..shown.len() - 1])
}

/// Implements `TryFrom<String>` for an enum written as one of a few strings, so that serde
/// (`#[serde(try_from = "String")]`) reads it as a string first: a number or an object where the
/// name belongs gets "invalid type: ..., expected a string" instead of serde_json's bare
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

/// User text as an error message quotes it: in single quotes, on one line, control and other
/// invisible characters escaped (`\n`, `\u{1b}`), and shortened when long, so a message stays
/// one readable line whatever the input holds.
pub fn quote(text: &str) -> String {
    let count = text.chars().count();
    let shown: String = text.chars().take(QUOTE_MAX_CHARS).flat_map(escape).collect();
    if count > QUOTE_MAX_CHARS {
        format!("'{shown}…' ({count} characters)")
    } else {
        format!("'{shown}'")
    }
}

/// `c` as written in a quote: printable characters as they are, others escaped as Rust escapes them.
fn escape(c: char) -> Vec<char> {
    let invisible = matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{feff}');
    if c.is_control() || invisible || (c.is_whitespace() && c != ' ') || c == '\'' {
        c.escape_default().collect()
    } else {
        vec![c]
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn quotes_user_text_on_one_line() {
        assert_eq!(quote("AVG"), "'AVG'");
        assert_eq!(quote("a\nb"), "'a\\nb'");
        assert_eq!(quote("\u{1b}[31mred"), "'\\u{1b}[31mred'");
        let long = "x".repeat(1000);
        assert_eq!(quote(&long), format!("'{}…' (1000 characters)", "x".repeat(60)));
    }
}
