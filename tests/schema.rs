//! The JSON Schema of the scenario format (`flink-state-sim schema`): a valid draft-07
//! schema that every scenario file satisfies, that rejects what the parser rejects for its shape
//! (unknown operators and fields, missing fields, wrong types, bad time and duration syntax), and
//! that never rejects what the parser accepts.
#![cfg(not(target_arch = "wasm32"))]

use flink_state_sim::engine::operators::OPERATOR_KINDS;
use flink_state_sim::engine::scenario::schema::json_schema;
use flink_state_sim::engine::time::{check_duration, check_time, parse_date_time, parse_duration};
use flink_state_sim::engine::Scenario;
use jsonschema::Validator;
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| jsonschema::validator_for(&json_schema()).expect("the schema compiles"))
}

/// A validator for one of the schema's definitions (`Time`, `Duration`).
fn definition_validator(name: &str) -> Validator {
    let mut schema = json_schema();
    let definitions = schema["definitions"].take();
    assert!(definitions.get(name).is_some(), "no definition {name}");
    let schema = json!({
        "$schema": schema["$schema"],
        "$ref": format!("#/definitions/{name}"),
        "definitions": definitions
    });
    jsonschema::validator_for(&schema).unwrap()
}

/// The schema's complaints about `scenario`, one line each.
fn schema_errors(scenario: &Value) -> Vec<String> {
    validator().iter_errors(scenario).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// Every scenario file: the presets (`scenarios/`) and the test scenarios (`tests/scenarios/**`).
fn scenario_files() -> Vec<(PathBuf, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    json_files(&root.join("scenarios"), &mut files);
    json_files(&root.join("tests/scenarios"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            (path, value)
        })
        .collect()
}

/// The smallest scenario: the base of the bad ones below.
fn minimal() -> Value {
    json!({
        "name": "minimal",
        "flink": "2.3",
        "source": { "name": "src", "schema": [["k", "STRING"], ["v", "INT"]] },
        "pipeline": [
            { "operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
              "aggregates": [{ "function": "SUM", "args": ["v"], "as": "s" }] }
        ],
        "steps": [{ "at": 1, "row": ["a", 1] }, { "advance_by": "5 min" }]
    })
}

#[test]
fn the_schema_is_a_valid_draft_07_schema() {
    let schema = json_schema();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(schema["title"], "Scenario");
    jsonschema::meta::validate(&schema).unwrap();
}

#[test]
fn every_scenario_file_validates() {
    let files = scenario_files();
    assert!(files.len() >= 50, "{} files", files.len());
    for (path, scenario) in &files {
        let errors = schema_errors(scenario);
        assert!(errors.is_empty(), "{}:\n{}", path.display(), errors.join("\n"));
    }
}

#[test]
fn the_documented_examples_validate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut examples = 0;
    for doc in ["docs/scenario-format.md", "README.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for block in text.split("```json\n").skip(1) {
            let block = block.split("```").next().unwrap();
            // Whole scenarios only; the other blocks are fragments.
            let Ok(value) = serde_json::from_str::<Value>(block) else { continue };
            if value.get("flink").is_none() {
                continue;
            }
            let errors = schema_errors(&value);
            assert!(errors.is_empty(), "{doc}:\n{block}\n{}", errors.join("\n"));
            examples += 1;
        }
    }
    assert!(examples >= 1);
}

#[test]
fn every_operator_kind_is_a_branch_of_the_pipeline_items() {
    let schema = json_schema();
    let operator = &schema["definitions"]["Operator"];
    let titles: Vec<&str> =
        operator["oneOf"].as_array().unwrap().iter().map(|b| b["title"].as_str().unwrap()).collect();
    let names: Vec<&str> = OPERATOR_KINDS.iter().map(|k| k.name).collect();
    assert_eq!(titles, names);
    for branch in operator["oneOf"].as_array().unwrap() {
        assert_eq!(branch["properties"]["operator"]["const"], branch["title"]);
        let required = branch["required"].as_array().unwrap();
        assert!(required.contains(&json!("operator")) && required.contains(&json!("id")), "{branch}");
    }
}

/// Every object with named fields rejects unknown ones, as the parser does
/// (`deny_unknown_fields`), and describes every field for editors.
#[test]
fn every_object_denies_unknown_fields_and_describes_its_fields() {
    fn walk(schema: &Value, path: &str) {
        match schema {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    // The pipeline item's `properties` only list the operator names; each
                    // `oneOf` branch is a whole operator object.
                    let wrapper = path == "#/definitions/Operator";
                    if map.get("type") == Some(&json!("object")) && !wrapper {
                        assert_eq!(map.get("additionalProperties"), Some(&json!(false)), "{path}");
                    }
                    for (name, field) in properties {
                        // An enum variant `{"zipf": s}` is described as a whole.
                        let variant = properties.len() == 1 && map.contains_key("description");
                        let described = field.get("description").is_some() || field.get("$ref").is_some() || variant;
                        assert!(described || wrapper || !map.contains_key("type"), "{path}.{name} has no description");
                    }
                }
                for (key, value) in map {
                    walk(value, &format!("{path}/{key}"));
                }
            }
            Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| walk(v, &format!("{path}/{i}"))),
            _ => {}
        }
    }
    walk(&json_schema(), "#");
}

/// Bad scenarios: the schema rejects each, and so does the parser.
#[test]
fn bad_scenarios_do_not_validate() {
    type Mutation = fn(&mut Value);
    let cases: &[(&str, Mutation)] = &[
        ("unknown operator", |s| s["pipeline"][0]["operator"] = json!("GroupAgg")),
        ("operator missing its id", |s| {
            s["pipeline"][0].as_object_mut().unwrap().remove("id");
        }),
        ("operator without a kind", |s| {
            s["pipeline"][0].as_object_mut().unwrap().remove("operator");
        }),
        ("wrong type: group_by a string", |s| s["pipeline"][0]["group_by"] = json!("k")),
        ("wrong type: rank_end a string", |s| {
            s["pipeline"][0] = json!({ "operator": "Rank", "id": "r", "order_by": ["v"], "rank_end": "3" })
        }),
        ("another kind's field", |s| s["pipeline"][0]["rank_end"] = json!(3)),
        ("unknown top-level field", |s| s["retention"] = json!("1 d")),
        ("missing source", |s| {
            s.as_object_mut().unwrap().remove("source");
        }),
        ("unknown Flink version", |s| s["flink"] = json!("1.9")),
        ("unknown column type", |s| s["source"]["schema"][1][1] = json!("DOUBLE")),
        ("unknown duration unit", |s| s["state_ttl"] = json!("5 mins")),
        ("two durations in one", |s| s["state_ttl"] = json!("1 h 30 min")),
        ("negative duration", |s| s["state_ttl"] = json!(-1)),
        ("fractional milliseconds", |s| s["steps"][0]["at"] = json!(1.5)),
        ("not a date-time", |s| s["steps"][0]["at"] = json!("20/11/2019")),
        ("unknown row kind", |s| s["steps"][0]["kind"] = json!("+X")),
        ("a step that is two steps", |s| s["steps"][1]["advance_to"] = json!(9)),
        ("an advance with a time", |s| s["steps"][1]["at"] = json!(9)),
        ("an empty step", |s| s["steps"][1] = json!({})),
        ("a float in a row", |s| s["steps"][0]["row"][1] = json!(1.5)),
        ("unknown state backend", |s| s["state_backend"] = json!("forst")),
        ("agg phase strategy", |s| s["agg_phase_strategy"] = json!("THREE_PHASE")),
        ("workload with events and duration", |s| {
            s["workload"] = json!({ "seed": 1, "events": 5, "duration": "1 s", "keys": 2, "key_column": "k",
                                    "columns": { "v": { "uniform": [0, 9] } } })
        }),
        ("unknown column generator", |s| {
            s["workload"] =
                json!({ "seed": 1, "events": 5, "keys": 2, "key_column": "k", "columns": { "v": "random" } })
        }),
        ("unknown message kind", |s| s["expect"] = json!({ "changelog": { "agg": [["+X", ["a", 1]]] } })),
        ("unknown timer event", |s| s["expect"] = json!({ "timers": { "agg": [["set", "a", 1]] } })),
        ("old and new name of one field", |s| {
            s["pipeline"][0]["generate_update_before"] = json!(true);
            s["pipeline"][0]["generate_retraction"] = json!(true);
        }),
    ];
    let base = minimal();
    assert!(schema_errors(&base).is_empty(), "{:?}", schema_errors(&base));
    Scenario::from_json(&base.to_string()).unwrap();
    for (what, mutate) in cases {
        let mut scenario = base.clone();
        mutate(&mut scenario);
        assert!(!validator().is_valid(&scenario), "the schema accepts {what}: {scenario}");
        assert!(Scenario::from_json(&scenario.to_string()).is_err(), "the parser accepts {what}: {scenario}");
    }
}

/// Forms the parser accepts that a strict reading might miss.
#[test]
fn accepted_forms_validate() {
    type Mutation = fn(&mut Value);
    let cases: &[(&str, Mutation)] = &[
        ("$schema", |s| s["$schema"] = json!("./scenario.schema.json")),
        ("legacy name generate_retraction", |s| s["pipeline"][0]["generate_retraction"] = json!(false)),
        ("null for an optional field", |s| s["title"] = json!(null)),
        ("duration in any case, ms without unit", |s| s["state_ttl"] = json!(" 5 MIN ")),
        ("duration as a string of ms", |s| s["state_ttl"] = json!("300")),
        ("duration in µs", |s| s["state_ttl"] = json!("5000 µs")),
        ("date-time with an offset", |s| s["steps"][0]["at"] = json!("2019-11-20T23:00:00+08:00")),
        ("date only", |s| s["steps"][0]["at"] = json!("2019-11-20")),
        ("whole number written with a fraction", |s| s["steps"][0]["at"] = json!(1.0)),
        ("Flink's row kind name", |s| s["steps"][0]["kind"] = json!("INSERT")),
        ("agg phase strategy in lower case", |s| s["agg_phase_strategy"] = json!("one_phase")),
        ("a null cell", |s| s["steps"][0]["row"][1] = json!(null)),
    ];
    for (what, mutate) in cases {
        let mut scenario = minimal();
        mutate(&mut scenario);
        let errors = schema_errors(&scenario);
        assert!(errors.is_empty(), "the schema rejects {what}: {}", errors.join("\n"));
        Scenario::from_json(&scenario.to_string()).unwrap_or_else(|e| panic!("the parser rejects {what}: {e}"));
    }
}

/// Parser messages that mean the scenario's shape is wrong: the schema must reject those too.
/// (serde's "invalid type" and "unknown variant" are said as "expected …, found the string …"
/// and "unknown value `…`", `engine::error::in_plain_words`).
const SHAPE_ERRORS: &[&str] = &[
    "unknown field",
    "missing field",
    "unknown value `",
    ", found the string ",
    ", found the number ",
    ", found an object",
    ", found a list",
    ", found true",
    ", found false",
    ", found null",
    "invalid length",
    "duplicate field",
];

/// The schema and the parser agree on `scenario`: the schema never rejects what the parser
/// accepts, and rejects what the parser rejects for its shape.
fn assert_agree(scenario: &Value, what: &str) {
    let schema_ok = validator().is_valid(scenario);
    match Scenario::from_json(&scenario.to_string()) {
        Ok(_) => assert!(schema_ok, "{what}: the parser accepts it, the schema says {:?}", schema_errors(scenario)),
        Err(e) => {
            let shape = SHAPE_ERRORS.iter().any(|s| e.message.contains(s));
            assert!(!shape || !schema_ok, "{what}: the parser rejects it ({e}), the schema accepts it");
        }
    }
}

/// Each value of `v` (arrays: the first two elements only), with its JSON pointer.
fn nodes(v: &Value, pointer: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                nodes(child, format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate().take(2) {
                nodes(child, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(pointer);
}

/// Every scenario file, changed in one place at a time (a field removed, an unknown field
/// added, a value of another type, null), is judged alike by the schema and the parser.
#[test]
fn schema_and_parser_agree_on_changed_scenario_files() {
    let mut checked = 0;
    for (path, scenario) in scenario_files() {
        let mut pointers = Vec::new();
        nodes(&scenario, String::new(), &mut pointers);
        for pointer in pointers {
            let node = scenario.pointer(&pointer).unwrap();
            let mut variants: Vec<(String, Value)> = Vec::new();
            let replaced = |with: Value| {
                let mut s = scenario.clone();
                *s.pointer_mut(&pointer).unwrap() = with;
                s
            };
            if let Value::Object(map) = node {
                let mut added = map.clone();
                added.insert("zz_unknown".into(), json!(1));
                variants.push(("an unknown field added".into(), replaced(Value::Object(added))));
                for key in map.keys() {
                    let mut removed = map.clone();
                    removed.remove(key);
                    variants.push((format!("{key} removed"), replaced(Value::Object(removed))));
                }
            }
            let other = match node {
                Value::String(_) => json!(7),
                Value::Number(_) => json!("x"),
                Value::Bool(_) => json!("yes"),
                Value::Null => json!(true),
                Value::Array(_) => json!({}),
                // Not an array: serde's derived `Deserialize` also reads a struct from an array
                // of its fields in order, a form the schema does not describe.
                Value::Object(_) => json!("x"),
            };
            variants.push(("another type".into(), replaced(other)));
            if !pointer.is_empty() {
                variants.push(("null".into(), replaced(Value::Null)));
            }
            for (change, changed) in variants {
                assert_agree(&changed, &format!("{} at '{pointer}': {change}", path.display()));
                checked += 1;
            }
        }
    }
    assert!(checked > 5000, "{checked}");
}

fn is_valid_as(definition: &Validator, text: &str) -> bool {
    definition.is_valid(&json!(text))
}

/// Failing cases are printed, not persisted to files (as in `tests/properties.rs`).
fn config() -> ProptestConfig {
    ProptestConfig { failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    /// The `Duration` pattern accepts exactly what `TimeUtils.parseDuration` does (numbers short
    /// enough not to overflow).
    #[test]
    fn the_duration_pattern_is_flinks_syntax(
        text in "[ \t]{0,2}[0-9]{0,6}[ \t]{0,2}(ms|MS|Ms|s|sec|secs|second|SECONDS|min|Min|minute|minutes|h|hour|HOURS|d|day|days|µs|micro|ns|nanos|m|mins|hr|x|)[ \t]{0,2}"
    ) {
        thread_local!(static DURATION: Validator = definition_validator("Duration"));
        let parsed = parse_duration(&text).and_then(check_duration).is_ok();
        prop_assert_eq!(DURATION.with(|d| is_valid_as(d, &text)), parsed, "{:?}", text);
    }

    /// The `Time` pattern accepts every date-time the parser reads.
    #[test]
    fn the_time_pattern_accepts_every_date_time_the_parser_reads(
        lead in "[ ]?",
        year in 1970u32..=9999,
        month in 1u32..=12,
        day in 1u32..=28,
        pad in any::<bool>(),
        sep in "[Tt ]",
        time in proptest::option::of((0u32..24, 0u32..60, proptest::option::of((0u32..60, proptest::option::of("[0-9]{1,9}"))))),
        offset in "(|Z|z|[+-][01][0-9]:[0-5][0-9])",
        trail in "[ ]?",
    ) {
        thread_local!(static TIME: Validator = definition_validator("Time"));
        let two = |n: u32| if pad { format!("{n:02}") } else { n.to_string() };
        let mut text = format!("{lead}{year}-{}-{}", two(month), two(day));
        if let Some((h, m, seconds)) = time {
            text += &format!("{sep}{}:{}", two(h), two(m));
            if let Some((s, fraction)) = seconds {
                text += &format!(":{}", two(s));
                if let Some(f) = fraction {
                    text += &format!(".{f}");
                }
            }
        }
        text += &offset;
        text += &trail;
        if parse_date_time(&text).and_then(check_time).is_ok() {
            prop_assert!(TIME.with(|t| is_valid_as(t, &text)), "{:?}", text);
        }
    }
}

#[test]
fn the_time_pattern_rejects_what_is_no_date_time() {
    let time = definition_validator("Time");
    for text in ["20/11/2019", "2019-11-20T15", "yesterday", "2019-11-20T15:00:00+0800x", ""] {
        assert!(parse_date_time(text).is_err(), "{text}");
        assert!(!is_valid_as(&time, text), "{text}");
    }
}
