//! The JSON Schema of the scenario format, printed by `flink-state-sim schema` for editors.
//!
//! It is generated from the serde types that read a scenario (`#[derive(JsonSchema)]` next to
//! `#[derive(Deserialize)]`), so it follows the parser: `raw::RawScenario` and its parts, the
//! `pipeline` items as a `oneOf` over [`OPERATOR_KINDS`](crate::engine::operators::OPERATOR_KINDS)
//! (each kind's own fields, told apart by their `"operator"` constant), the
//! [`workload`](crate::engine::workload) and the [`expect`](crate::engine::expect) block. Types
//! read by hand-written `Deserialize` impls (times, durations, row values) describe their accepted
//! forms next to those impls. Doc comments on the raw fields are the descriptions editors show.
//!
//! The schema checks the shape of a scenario (fields, types, names, time and duration syntax);
//! what depends on the rest of the scenario (columns, operator ids, Flink's settings rules) is
//! checked when the scenario is loaded.

use super::raw;
use schemars::generate::SchemaSettings;

/// The scenario format's JSON Schema. Draft-07: the newest draft editors support fully (VS Code's
/// JSON language service supports later drafts only in part).
pub fn json_schema() -> serde_json::Value {
    let generator = SchemaSettings::draft07().for_deserialize().into_generator();
    let mut schema = generator.into_root_schema_for::<raw::RawScenario>().to_value();
    reflow_descriptions(&mut schema);
    // What a reader looks for first, first.
    let mut root = serde_json::Map::new();
    if let serde_json::Value::Object(mut fields) = schema {
        for key in ["$schema", "title", "description"] {
            if let Some(v) = fields.remove(key) {
                root.insert(key.into(), v);
            }
        }
        root.extend(fields);
    }
    serde_json::Value::Object(root)
}

/// Joins the lines of every `description` (doc comments are wrapped at 100 columns; editors wrap
/// text themselves), keeping paragraph breaks and list items.
fn reflow_descriptions(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    serde_json::Value::String(text) if key == "description" => *text = reflow(text),
                    v => reflow_descriptions(v),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(reflow_descriptions),
        _ => {}
    }
}

fn reflow(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if i > 0 {
            let paragraph = line.is_empty() || out.ends_with('\n') || line.starts_with("- ");
            out.push(if paragraph { '\n' } else { ' ' });
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflows_wrapped_doc_comments() {
        assert_eq!(reflow("one\ntwo\n\nthree\n- a\n- b"), "one two\n\nthree\n- a\n- b");
    }
}
