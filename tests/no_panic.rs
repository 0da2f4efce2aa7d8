#![cfg(not(target_arch = "wasm32"))]
//! No input, however malformed, makes the engine panic (a panic kills the wasm app): random JSON
//! values, presets and generated scenarios mutated structurally, random and mutated bytes, each
//! parsed and, when valid, run and read as the page and the CLI read it. A few thousand cases
//! here; `examples/fuzz_scenarios.rs` runs millions outside CI.

mod props;

use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::engine::scenario::describe_retention;
use flink_state_sim::engine::time::{MAX_RUNTIME_MS, MAX_TIME_MS};
use flink_state_sim::engine::{Scenario, Simulation};
use props::{config, spec};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Field names of the scenario format (all levels), for random objects and key swaps.
const FIELDS: &[&str] = &[
    "name",
    "title",
    "description",
    "flink",
    "time_format",
    "start",
    "idle_state_retention",
    "state_ttl",
    "source",
    "pipeline",
    "steps",
    "workload",
    "min",
    "max",
    "test_harness",
    "schema",
    "changelog",
    "operator",
    "id",
    "group_by",
    "aggregates",
    "generate_update_before",
    "generate_retraction",
    "function",
    "args",
    "as",
    "at",
    "row",
    "kind",
    "advance_to",
    "advance_by",
    "seed",
    "events",
    "duration",
    "rate",
    "keys",
    "key_column",
    "key_prefix",
    "distribution",
    "new_keys",
    "returning",
    "share",
    "after",
    "columns",
    "proctime",
    "sequence",
    "constant",
    "uniform",
    "one_of",
    "zipf",
];

/// Values the format gives meaning to, and a few awkward ones.
const WORDS: &[&str] = &[
    "1.10-legacy",
    "2.3",
    "GroupAggregate",
    "COUNT",
    "SUM",
    "LAST_VALUE",
    "LATEST_BY_TIME",
    "count",
    "*",
    "k",
    "v",
    "key",
    "cnt",
    "src",
    "agg",
    "result",
    "STRING",
    "INT",
    "BIGINT",
    "BOOLEAN",
    "+I",
    "-U",
    "+U",
    "-D",
    "INSERT",
    "DELETE",
    "all",
    "insert-only",
    "date-time",
    "millis",
    "5 ms",
    "10 s",
    "1 min",
    "24 h",
    "1 d",
    "0 ms",
    "-1 ms",
    "1.5 s",
    "9999999999999999 d",
    "2019-11-20T15:00",
    "2019-11-20T23:00:00+08:00",
    "9999-12-31T23:59:59.999Z",
    "10000-01-01T00:00",
    "1970-01-01T00:00",
    "1969-12-31T23:59:59.999Z",
    "",
    " ",
    "\u{feff}",
    "\n",
    "\u{0}",
    "\u{202e}",
    "é",
    "😀",
    "uniform",
    "zipf",
    "proctime",
    "sequence",
];

fn big_numbers() -> Vec<i64> {
    vec![
        MAX_TIME_MS,
        MAX_TIME_MS + 1,
        MAX_TIME_MS / 2,
        MAX_RUNTIME_MS,
        i64::MAX,
        i64::MIN,
        -1,
        i32::MAX as i64,
        i32::MAX as i64 + 1,
        i32::MIN as i64,
        1 << 53,
        (1 << 53) + 1,
        1_000_000_000,
        10_000_000,
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (-3i64..60).prop_map(Value::from),
        2 => prop::sample::select(big_numbers()).prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        1 => prop::sample::select(vec![0.5, -0.5, 1.0, -0.0, 1e300, -1e300, 2.5e15, 9007199254740993.0, 1e-300])
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(WORDS).prop_map(|s| s.to_string()),
        2 => prop::sample::select(FIELDS).prop_map(|s| s.to_string()),
        2 => prop::collection::vec(any::<char>(), 0..8).prop_map(String::from_iter),
        1 => (0usize..5000).prop_map(|n| "x".repeat(n)),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        3 => number(),
        3 => text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let key = prop_oneof![3 => prop::sample::select(FIELDS).prop_map(|s| s.to_string()), 1 => text()];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..6).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// One step into a JSON value.
#[derive(Debug, Clone)]
enum Seg {
    Key(String),
    Idx(usize),
}

/// The paths of every node of `v` (the root is the empty path), depth first.
fn paths(v: &Value, at: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                at.push(Seg::Key(k.clone()));
                paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                at.push(Seg::Idx(i));
                paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn node_mut<'v>(v: &'v mut Value, path: &[Seg]) -> &'v mut Value {
    path.iter().fold(v, |v, seg| match seg {
        Seg::Key(k) => &mut v[k.as_str()],
        Seg::Idx(i) => &mut v[*i],
    })
}

/// One structure-aware mutation: what to do at the node `at` picks.
#[derive(Debug, Clone)]
struct Mutation {
    at: prop::sample::Index,
    how: u8,
    value: Value,
    key: String,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (any::<prop::sample::Index>(), 0u8..8, json_value(), text()).prop_map(|(at, how, value, key)| Mutation {
        at,
        how,
        value,
        key,
    })
}

/// 1 to 4 mutations, mostly one: each tends to make a valid scenario invalid.
fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop_oneof![
        3 => prop::collection::vec(mutation(), 1..2),
        1 => prop::collection::vec(mutation(), 2..5),
    ]
}

/// A number near `n` (at the edge of validity, more often than a random one).
fn nudge(n: &serde_json::Number, how: usize) -> Value {
    let i = n.as_i64().unwrap_or(1);
    match how % 6 {
        0 => Value::from(i.wrapping_add(1)),
        1 => Value::from(i.wrapping_sub(1)),
        2 => Value::from(i.wrapping_neg()),
        3 => Value::from(i.wrapping_mul(1_000_000_000)),
        4 => json!(i as f64 + 0.5),
        _ => Value::from(0),
    }
}

/// What `m` does to the node it picks: replace it with `m.value` (`how` 0, 1); delete it (2);
/// insert `m.value` beside it (3); rename its field to another field name (4); keep its type but
/// change it (5, 6: a number nudged, a bool flipped, a string from [`WORDS`]); drop or duplicate
/// an array element (7). The last three mostly leave a valid scenario valid.
fn apply_mutation(root: &mut Value, m: &Mutation) {
    let mut all = vec![];
    paths(root, &mut vec![], &mut all);
    let path = &all[m.at.index(all.len())];
    let Some((last, parent)) = path.split_last() else {
        *root = m.value.clone();
        return;
    };
    let pick = m.key.len() + m.value.to_string().len();
    if matches!(m.how, 5 | 6) {
        let node = node_mut(root, path);
        *node = match &*node {
            Value::Number(n) => nudge(n, pick),
            Value::Bool(b) => Value::Bool(!b),
            Value::String(_) => Value::String(WORDS[pick % WORDS.len()].to_string()),
            _ => m.value.clone(),
        };
        return;
    }
    let parent = node_mut(root, parent);
    match (m.how, parent, last) {
        (2, Value::Object(o), Seg::Key(k)) => {
            o.shift_remove(k);
        }
        (2, Value::Array(a), Seg::Idx(i)) => {
            a.remove(*i);
        }
        (3, Value::Object(o), _) => {
            o.insert(m.key.clone(), m.value.clone());
        }
        (3, Value::Array(a), Seg::Idx(i)) => a.insert(*i, m.value.clone()),
        (4, Value::Object(o), Seg::Key(k)) => {
            if let Some(v) = o.shift_remove(k) {
                o.insert(FIELDS[pick % FIELDS.len()].to_string(), v);
            }
        }
        (7, Value::Array(a), Seg::Idx(i)) => {
            if pick.is_multiple_of(2) {
                a.remove(*i);
            } else {
                let copy = a[*i].clone();
                a.insert(*i, copy);
            }
        }
        (_, parent, Seg::Key(k)) => parent[k.as_str()] = m.value.clone(),
        (_, parent, Seg::Idx(i)) => parent[*i] = m.value.clone(),
    }
}

/// Parses `json` and, when it is a valid scenario, runs it and reads everything the page and the
/// CLI read. Any panic fails the test.
fn exercise(json: &str) {
    let Ok(scenario) = Scenario::from_json(json) else { return };
    let _ = describe_retention(&scenario.retention);
    let mut sim = Simulation::new(scenario);
    for _ in 0..200 {
        if sim.step().is_err() {
            break;
        }
    }
    let _ = sim.advance_by(7);
    let _ = sim.advance_to_next_timer();
    let _ = sim.advance_to(sim.now().saturating_add(1000));
    let _ = sim.advance_to_next_timer();
    let tf = sim.time_format();
    for e in sim.trace() {
        let _ = e.text_line(tf);
        let _ = serde_json::to_string(&e.record(tf)).unwrap();
    }
    if let Some(last) = sim.last_action() {
        let _ = sim.describe_action(last);
    }
    let _ = sim.expired_in_last_action();
    let _ = sim.operator_views();
    let _ = sim.metrics();
    let _ = sim.state_dump();
    let _ = sim.result().rows().count();
    let _ = sim.seek(sim.history().len() / 2);
    let _ = sim.state_dump();
}

fn preset_value(i: prop::sample::Index) -> Value {
    serde_json::from_str(PRESETS[i.index(PRESETS.len())].1).unwrap()
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn random_json_values_never_panic(v in json_value()) {
        exercise(&v.to_string());
    }

    #[test]
    fn mutated_presets_never_panic(
        preset in any::<prop::sample::Index>(),
        mutations in mutations(),
    ) {
        let mut v = preset_value(preset);
        for m in &mutations {
            apply_mutation(&mut v, m);
        }
        exercise(&v.to_string());
        exercise(&serde_json::to_string_pretty(&v).unwrap());
    }

    #[test]
    fn mutated_generated_scenarios_never_panic(
        spec in spec(),
        mutations in mutations(),
    ) {
        let mut v = spec.to_value();
        for m in &mutations {
            apply_mutation(&mut v, m);
        }
        exercise(&v.to_string());
    }
}

proptest! {
    #![proptest_config(config(384))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        exercise(&String::from_utf8_lossy(&bytes));
        let mut with_brace = b"{".to_vec();
        with_brace.extend_from_slice(&bytes);
        exercise(&String::from_utf8_lossy(&with_brace));
    }

    #[test]
    fn byte_mutated_presets_never_panic(
        preset in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..6),
    ) {
        let mut bytes = PRESETS[preset.index(PRESETS.len())].1.as_bytes().to_vec();
        for (at, how, byte) in &edits {
            let i = at.index(bytes.len().max(1)).min(bytes.len());
            match how {
                0 if i < bytes.len() => bytes[i] ^= 1 << (byte % 8),
                1 => bytes.insert(i, *byte),
                2 if i < bytes.len() => {
                    bytes.remove(i);
                }
                _ => bytes.truncate(i),
            }
        }
        exercise(&String::from_utf8_lossy(&bytes));
    }
}

// ---------------------------------------------------------------------------------------------
// Engine bugs the properties found, kept as minimal regression tests.
// ---------------------------------------------------------------------------------------------
