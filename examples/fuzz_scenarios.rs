//! A mutation fuzzer for the scenario format and the engine, run outside CI:
//!
//! ```text
//! cargo run --release --example fuzz_scenarios -- [CASES] [SEED]
//! ```
//!
//! Each case takes a preset or one of the built-in seed scenarios below, applies 1–4 mutations,
//! structure-aware (replace, delete or insert JSON nodes with interesting values, rename fields,
//! copy subtrees, nudge numbers) or byte-level (flip, insert, delete, duplicate, truncate, BOM),
//! parses the text with `Scenario::from_json` and, when it is valid, runs it at the `metrics`
//! trace level for at most 300 steps and a few time advances, then takes `state_dump()`.
//!
//! Panics are caught: every panicking input is reported, the first few are written to
//! `target/fuzz-findings/`, and the exit status is 1 when any was found. Runs are reproducible:
//! the same CASES and SEED give the same inputs (the PRNG is splitmix64, written out below).
//!
//! The release profile has no overflow checks; to also catch arithmetic overflow, run with
//! `CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true` (and, to keep the shared build untouched,
//! `--target-dir target/fuzz-build`).

use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::engine::time::{MAX_RUNTIME_MS, MAX_TIME_MS};
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The most steps a valid scenario runs.
const MAX_STEPS: usize = 300;
/// Panicking inputs written to `target/fuzz-findings/`.
const MAX_SAVED: usize = 10;

/// splitmix64 (Steele, Lea, Flood 2014): a fixed algorithm, so a seed always gives the same run.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Seed scenarios beside the presets: every operator, aggregate, changelog kind, time syntax and
/// workload option the format has.
const SEEDS: &[&str] = &[
    r#"{"name": "fz-legacy-2op", "flink": "1.10-legacy", "time_format": "millis", "start": 0,
        "idle_state_retention": {"min": "5 ms", "max": "10 ms", "test_harness": true},
        "source": {"name": "s", "schema": [["k", "STRING"], ["v", "INT"], ["b", "BOOLEAN"], ["t", "BIGINT"]],
                   "changelog": "all"},
        "pipeline": [
          {"operator": "GroupAggregate", "id": "inner", "group_by": ["k"],
           "aggregates": [{"function": "COUNT", "args": ["*"], "as": "cnt"},
                          {"function": "SUM", "args": ["v"], "as": "s"},
                          {"function": "COUNT", "args": ["b"], "as": "nb"}]},
          {"operator": "GroupAggregate", "id": "outer", "group_by": ["cnt"],
           "aggregates": [{"function": "COUNT", "args": ["*"], "as": "n"},
                          {"function": "SUM", "args": ["s"], "as": "total"}],
           "generate_update_before": false}],
        "steps": [{"at": 1, "row": ["a", 1, true, 1]}, {"at": 2, "row": ["b", 2, null, 2]},
                  {"at": 3, "row": ["a", 1, true, 1], "kind": "-U"},
                  {"at": 3, "row": ["a", 5, false, 3], "kind": "+U"},
                  {"advance_by": "7 ms"}, {"row": ["a", null, null, null]}, {"advance_to": 30},
                  {"at": 31, "row": ["b", 2, null, 2], "kind": "-D"}, {"at": 31, "row": ["c", -7, true, 9]}]}"#,
    r#"{"name": "fz-ttl", "flink": "2.3", "state_ttl": "3 ms",
        "source": {"name": "s", "schema": [["k", "STRING"], ["v", "BIGINT"]]},
        "pipeline": [
          {"operator": "GroupAggregate", "id": "p", "group_by": ["k"],
           "aggregates": [{"function": "LAST_VALUE", "args": ["v"], "as": "lv"},
                          {"function": "LATEST_BY_TIME", "args": ["k", "v"], "as": "lk"},
                          {"function": "COUNT", "args": ["*"], "as": "c"}]},
          {"operator": "GroupAggregate", "id": "g",
           "aggregates": [{"function": "SUM", "args": ["c"], "as": "total"},
                          {"function": "COUNT", "args": ["*"], "as": "n"}]}],
        "steps": [{"at": "1970-01-01T00:00:00.001", "row": ["x", 1]}, {"at": 2, "row": ["y", 2]},
                  {"at": 6, "row": ["x", 3]}, {"advance_by": 10}, {"row": ["y", null]}]}"#,
    r#"{"name": "fz-retract-23", "flink": "2.3", "state_ttl": 0, "time_format": "date-time",
        "source": {"name": "s", "schema": [["k", "BIGINT"], ["v", "INT"]], "changelog": "all"},
        "pipeline": [
          {"operator": "GroupAggregate", "id": "a", "group_by": ["k"],
           "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}], "generate_retraction": true},
          {"operator": "GroupAggregate", "id": "b", "group_by": ["s"],
           "aggregates": [{"function": "COUNT", "args": ["k"], "as": "n"}], "generate_update_before": false}],
        "steps": [{"at": "2019-11-20T15:00", "row": [1, 2147483647]}, {"at": "2019-11-20T15:00", "row": [1, 1]},
                  {"at": "2019-11-20T23:00:00+08:00", "row": [1, 1], "kind": "DELETE"},
                  {"row": [2, -2147483648], "kind": "UPDATE_AFTER"}, {"advance_to": "9999-12-31T23:59:59.999"}]}"#,
    r#"{"name": "fz-workload", "flink": "1.10-legacy",
        "idle_state_retention": {"min": "1 s", "max": "2 s", "test_harness": true},
        "source": {"name": "s", "schema": [["k", "STRING"], ["v", "BIGINT"], ["t", "BIGINT"]]},
        "pipeline": [{"operator": "GroupAggregate", "id": "a", "group_by": ["k"],
                      "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"},
                                     {"function": "SUM", "args": ["v"], "as": "s"}]}],
        "steps": [{"at": 0, "row": ["k0", 1, 0]}],
        "workload": {"seed": 7, "events": 500, "rate": 100, "keys": 50, "key_column": "k", "key_prefix": "u",
                     "distribution": {"zipf": 1.1}, "new_keys": 0.1, "returning": {"share": 0.2, "after": "3 s"},
                     "columns": {"v": {"uniform": [-5, 5]}, "t": "proctime"}}}"#,
    r#"{"name": "fz-workload-23", "flink": "2.3", "state_ttl": "2 s",
        "source": {"name": "s", "schema": [["id", "INT"], ["st", "INT"], ["ts", "BIGINT"], ["on", "BOOLEAN"]]},
        "pipeline": [
          {"operator": "GroupAggregate", "id": "dev", "group_by": ["id"],
           "aggregates": [{"function": "LATEST_BY_TIME", "args": ["st", "ts"], "as": "cur"}]},
          {"operator": "GroupAggregate", "id": "per_st", "group_by": ["cur"],
           "aggregates": [{"function": "COUNT", "args": ["*"], "as": "n"}]}],
        "workload": {"seed": 1, "duration": "10 s", "rate": 50, "start": "1970-01-01T00:00:01", "keys": 20,
                     "key_column": "id", "distribution": "uniform",
                     "columns": {"st": {"one_of": [0, 1, 2, null]}, "ts": "sequence", "on": {"constant": true}}}}"#,
];

/// Field names of the format, for inserted keys and renames.
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

/// Strings the format gives meaning to, and awkward ones.
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
    "cnt",
    "s",
    "result",
    "STRING",
    "INT",
    "BIGINT",
    "BOOLEAN",
    "+I",
    "-U",
    "+U",
    "-D",
    "UPDATE_BEFORE",
    "all",
    "insert-only",
    "date-time",
    "millis",
    "proctime",
    "sequence",
    "uniform",
    "5 ms",
    "1 d",
    "0 ms",
    "1 h 30 min",
    "-1 ms",
    "1.5 s",
    " 5 ms ",
    "5ms",
    "9223372036854775807 ms",
    "106751991167 d",
    "2019-11-20T15:00",
    "2019-11-20T23:00:00+08:00",
    "2019-11-20T15:00:00.250",
    "9999-12-31T23:59:59.999Z",
    "10000-01-01T00:00",
    "1969-12-31T23:59:59.999Z",
    "1970-01-01T00:00:00-14:00",
    "2019-02-29T00:00",
    "",
    " ",
    "\u{feff}",
    "\u{0}",
    "\n",
    "\r\n",
    "\t",
    "\u{1b}[31m",
    "\u{202e}",
    "\u{200b}",
    "é",
    "😀",
    "\u{fffd}",
    "'",
    "\"",
    "\\",
];

fn interesting_number(rng: &mut Rng) -> Value {
    let ints: &[i64] = &[
        0,
        1,
        -1,
        2,
        5,
        10,
        1000,
        i64::MAX,
        i64::MIN,
        i64::MAX / 2,
        i32::MAX as i64,
        i32::MAX as i64 + 1,
        i32::MIN as i64,
        i32::MIN as i64 - 1,
        MAX_TIME_MS,
        MAX_TIME_MS + 1,
        MAX_TIME_MS - 1,
        MAX_TIME_MS / 2,
        MAX_RUNTIME_MS,
        MAX_RUNTIME_MS + 1,
        1 << 53,
        (1 << 53) + 1,
        1_000_000_000,
        1_000_000_001,
        10_000_000,
        10_000_001,
        86_400_000,
    ];
    let floats: &[f64] = &[0.5, -0.5, 1.0, -0.0, 1e300, -1e300, 1e-300, 2.5e15, 9007199254740993.0, 0.1, 100.0, 100.5];
    match rng.below(6) {
        0 | 1 => Value::from(*rng.pick(ints)),
        2 => Value::from(rng.below(64) as i64 - 8),
        3 => Value::from(rng.next_u64()),
        4 => Value::from(rng.next_u64() as i64),
        _ => serde_json::Number::from_f64(*rng.pick(floats)).map_or(Value::Null, Value::Number),
    }
}

fn interesting_string(rng: &mut Rng) -> String {
    match rng.below(8) {
        0..=2 => rng.pick(WORDS).to_string(),
        3 => rng.pick(FIELDS).to_string(),
        4 => "x".repeat([100, 1000, 70_000][rng.below(3)]),
        5 => "é😀\u{0}".repeat(rng.below(500) + 1),
        6 => (0..rng.below(12)).map(|_| char::from_u32(rng.below(0x11_0000) as u32).unwrap_or('\u{fffd}')).collect(),
        _ => (0..rng.below(8)).map(|_| (rng.below(0x20) as u8) as char).collect(),
    }
}

/// An interesting value: a scalar, or nested junk.
fn interesting_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 3 { 4 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => interesting_number(rng),
        3 => Value::String(interesting_string(rng)),
        4 => Value::Array((0..rng.below(4)).map(|_| interesting_value(rng, depth + 1)).collect()),
        5 => Value::Object(
            (0..rng.below(4))
                .map(|_| {
                    let key = if rng.chance(70) { rng.pick(FIELDS).to_string() } else { interesting_string(rng) };
                    (key, interesting_value(rng, depth + 1))
                })
                .collect(),
        ),
        6 => {
            // Deep nesting, around serde_json's recursion limit (128).
            let mut v = Value::Null;
            for _ in 0..[10, 127, 129, 300][rng.below(4)] {
                v = if rng.chance(50) {
                    Value::Array(vec![v])
                } else {
                    Value::Object([("a".to_string(), v)].into_iter().collect())
                };
            }
            v
        }
        _ => Value::Array(vec![Value::String(interesting_string(rng)), interesting_number(rng)]),
    }
}

#[derive(Clone)]
enum Seg {
    Key(String),
    Idx(usize),
}

fn collect_paths(v: &Value, at: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                at.push(Seg::Key(k.clone()));
                collect_paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                at.push(Seg::Idx(i));
                collect_paths(child, at, out);
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

fn node<'v>(v: &'v Value, path: &[Seg]) -> &'v Value {
    path.iter().fold(v, |v, seg| match seg {
        Seg::Key(k) => &v[k.as_str()],
        Seg::Idx(i) => &v[*i],
    })
}

/// A number near `n`: what turns a valid scenario into one at the edge of validity.
fn nudge(rng: &mut Rng, n: &serde_json::Number) -> Value {
    let i = n.as_i64().unwrap_or(1);
    match rng.below(8) {
        0 => Value::from(i.wrapping_add(1)),
        1 => Value::from(i.wrapping_sub(1)),
        2 => Value::from(i.wrapping_mul(2)),
        3 => Value::from(i.wrapping_neg()),
        4 => Value::from(i.wrapping_mul(1_000_000)),
        5 => serde_json::Number::from_f64(i as f64 + 0.5).map_or(Value::Null, Value::Number),
        6 => Value::String(format!("{i} ms")),
        _ => Value::from(0),
    }
}

/// One structure-aware mutation of `root`. A `mild` one keeps the shape (nudges a number, flips
/// a bool, puts another meaningful string, drops, duplicates or swaps array elements), so the
/// scenario often stays valid and runs.
fn mutate_structure(rng: &mut Rng, root: &mut Value, mild: bool) {
    let mut paths = vec![];
    collect_paths(root, &mut vec![], &mut paths);
    let path = paths[rng.below(paths.len())].clone();
    let Some((last, parent_path)) = path.split_last() else {
        if !mild {
            *root = interesting_value(rng, 0);
        }
        return;
    };
    let op = if mild { [2, 2, 2, 8, 7, 9][rng.below(6)] } else { rng.below(9) };
    match op {
        // Drop an array element, or insert a copy of it.
        9 => {
            if let (Value::Array(a), Seg::Idx(i)) = (node_mut(root, parent_path), last) {
                if rng.chance(50) {
                    a.remove(*i);
                } else {
                    let copy = a[*i].clone();
                    a.insert(*i, copy);
                }
            }
        }
        // Replace with an interesting value.
        0 | 1 => *node_mut(root, &path) = interesting_value(rng, 0),
        // Keep the type: nudge a number, flip a bool, another meaningful string.
        2 | 8 => {
            let target = node_mut(root, &path);
            *target = match &*target {
                Value::Number(n) => nudge(rng, n),
                Value::Bool(b) => Value::Bool(!b),
                Value::String(_) if rng.chance(70) => Value::String(rng.pick(WORDS).to_string()),
                Value::String(_) => Value::String(interesting_string(rng)),
                _ => interesting_value(rng, 0),
            };
        }
        // Delete.
        3 => match (node_mut(root, parent_path), last) {
            (Value::Object(o), Seg::Key(k)) => {
                o.shift_remove(k);
            }
            (Value::Array(a), Seg::Idx(i)) => {
                a.remove(*i);
            }
            _ => {}
        },
        // Insert beside: a field (named after a real one, mostly) or an array element.
        4 => {
            let value = if rng.chance(50) { node(root, &path).clone() } else { interesting_value(rng, 0) };
            let key = if rng.chance(80) { rng.pick(FIELDS).to_string() } else { interesting_string(rng) };
            match node_mut(root, parent_path) {
                Value::Object(o) => {
                    o.insert(key, value);
                }
                Value::Array(a) => {
                    let i = rng.below(a.len() + 1);
                    a.insert(i, value);
                }
                _ => {}
            }
        }
        // Rename a field (to another field name: valid names in the wrong place).
        5 => {
            let new_key = if rng.chance(85) { rng.pick(FIELDS).to_string() } else { interesting_string(rng) };
            if let (Value::Object(o), Seg::Key(k)) = (node_mut(root, parent_path), last) {
                if let Some(v) = o.shift_remove(k) {
                    o.insert(new_key, v);
                }
            }
        }
        // Copy another subtree over this node.
        6 => {
            let other = &paths[rng.below(paths.len())];
            let copy = node(root, other).clone();
            *node_mut(root, &path) = copy;
        }
        // Swap two elements of an array (steps out of order, columns swapped).
        _ => {
            if let (Value::Array(a), Seg::Idx(i)) = (node_mut(root, parent_path), last) {
                let j = rng.below(a.len());
                a.swap(*i, j);
            }
        }
    }
}

/// Byte sequences worth inserting.
const TOKENS: &[&str] = &[
    "{", "}", "[", "]", "\"", ",", ":", "\\", "\\u0000", "\\ud800", "\u{feff}", "1e999", "-", "0", ".5", "null",
    "true", "\"\":", "\n", " ", "/*", "\u{0}", "\u{ff}",
];

/// One byte-level mutation of `bytes`.
fn mutate_bytes(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let len = bytes.len();
    let at = if len == 0 { 0 } else { rng.below(len) };
    match rng.below(9) {
        0 if len > 0 => bytes[at] ^= 1 << rng.below(8),
        1 => bytes.insert(at, rng.next_u64() as u8),
        2 if len > 0 => {
            bytes.remove(at);
        }
        3 if len > 0 => {
            let end = (at + 1 + rng.below(16)).min(len);
            bytes.drain(at..end);
        }
        4 if len > 0 => {
            let end = (at + 1 + rng.below(32)).min(len);
            let chunk: Vec<u8> = bytes[at..end].to_vec();
            let to = rng.below(bytes.len() + 1);
            bytes.splice(to..to, chunk);
        }
        5 => bytes.truncate(at),
        6 => {
            bytes.splice(0..0, "\u{feff}".bytes());
        }
        7 if len > 0 && bytes[at].is_ascii_digit() => bytes[at] = b'0' + rng.below(10) as u8,
        _ => {
            let token = rng.pick(TOKENS).as_bytes();
            bytes.splice(at..at, token.iter().copied());
        }
    }
}

/// One case's input text.
fn make_input(rng: &mut Rng, seeds: &[(String, Value)]) -> String {
    let (text, value) = &seeds[rng.below(seeds.len())];
    // 1 to 4 mutations, mostly few: each tends to make the scenario invalid.
    let mutations = [1, 1, 1, 1, 2, 2, 2, 3, 3, 4][rng.below(10)];
    let structural = rng.chance(80);
    let mild = rng.chance(40);
    let mut text = if structural {
        let mut v = value.clone();
        for _ in 0..mutations {
            mutate_structure(rng, &mut v, mild);
        }
        if rng.chance(50) {
            v.to_string()
        } else {
            serde_json::to_string_pretty(&v).unwrap()
        }
    } else {
        text.clone()
    };
    if !structural || (!mild && rng.chance(10)) {
        let mut bytes = text.into_bytes();
        for _ in 0..(if structural { 1 } else { mutations }) {
            mutate_bytes(rng, &mut bytes);
        }
        text = String::from_utf8_lossy(&bytes).into_owned();
    }
    text
}

#[derive(Default)]
struct Outcome {
    valid: bool,
    /// The path of the scenario error, indices dropped and cut after two levels.
    error: Option<String>,
    /// Steps run, and whether the run stopped on an operator failure.
    steps: usize,
    failed: bool,
}

/// `pipeline[1].aggregates[0].args` → `pipeline[].aggregates[]`.
fn path_prefix(path: &str) -> String {
    let mut out = String::new();
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push_str("[]");
            }
            ']' => in_index = false,
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// Parses and, when valid, runs one input.
fn run_case(text: &str, rng_bits: u64) -> Outcome {
    let scenario = match Scenario::from_json(text) {
        Ok(s) => s,
        Err(e) => {
            // An unknown field's path ends with the (random) field name: name the parent instead.
            let path = if e.message.starts_with("unknown field") {
                match e.path.rsplit_once('.') {
                    Some((parent, _)) => format!("{parent}.<unknown field>"),
                    None => "<unknown field>".to_string(),
                }
            } else {
                e.path
            };
            return Outcome { error: Some(path_prefix(&path)), ..Outcome::default() };
        }
    };
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(scenario, options);
    let mut outcome = Outcome { valid: true, ..Outcome::default() };
    while outcome.steps < MAX_STEPS && sim.step().is_ok() {
        outcome.steps += 1;
    }
    let advances = [1, 5, 1000, 86_400_000, MAX_TIME_MS, MAX_RUNTIME_MS];
    let _ = sim.advance_by(advances[(rng_bits % 4) as usize]);
    let _ = sim.advance_to_next_timer();
    let _ = sim.advance_to(sim.now().saturating_add(advances[(rng_bits >> 8) as usize % advances.len()]));
    let _ = sim.advance_to_next_timer();
    let _ = sim.advance_by(advances[(rng_bits >> 16) as usize % advances.len()]);
    outcome.failed = sim.failure().is_some();
    let _ = sim.operator_views_limited(50);
    let _ = sim.state_dump();
    outcome
}

thread_local! {
    /// The message and location of the last panic (the hook records it; nothing is printed).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn main() {
    let mut args = std::env::args().skip(1);
    let cases: u64 = args.next().map_or(1_000_000, |a| a.replace('_', "").parse().expect("CASES: a number"));
    let seed: u64 = args.next().map_or(1, |a| a.parse().expect("SEED: a number"));

    let mut seeds: Vec<(String, Value)> = Vec::new();
    for (name, json) in PRESETS {
        Scenario::from_json(json).unwrap_or_else(|e| panic!("preset {name} is invalid: {e}"));
        seeds.push((json.to_string(), serde_json::from_str(json).unwrap()));
    }
    for json in SEEDS {
        Scenario::from_json(json).unwrap_or_else(|e| panic!("seed scenario is invalid: {e}\n{json}"));
        seeds.push((json.to_string(), serde_json::from_str(json).unwrap()));
    }

    panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
    }));
    let findings = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-findings");

    let mut rng = Rng(seed);
    let started = Instant::now();
    let mut last_report = Instant::now();
    let (mut valid, mut completed, mut failed, mut steps_run) = (0u64, 0u64, 0u64, 0u64);
    let mut errors: HashMap<String, u64> = HashMap::new();
    // Panics by message (which holds the location): count, first case, first input.
    let mut panics: Vec<(String, u64, u64, String)> = Vec::new();
    let mut panic_count = 0u64;
    let mut saved = 0usize;
    let mut slowest = (Duration::ZERO, 0u64, String::new());
    for case in 0..cases {
        let text = make_input(&mut rng, &seeds);
        let bits = rng.next_u64();
        let t0 = Instant::now();
        let result = panic::catch_unwind(AssertUnwindSafe(|| run_case(&text, bits)));
        let took = t0.elapsed();
        if took > slowest.0 {
            slowest = (took, case, text.clone());
        }
        match result {
            Ok(o) => {
                if o.valid {
                    valid += 1;
                    steps_run += o.steps as u64;
                    if o.failed {
                        failed += 1;
                    } else {
                        completed += 1;
                    }
                }
                if let Some(path) = o.error {
                    *errors.entry(path).or_default() += 1;
                }
            }
            Err(_) => {
                panic_count += 1;
                let message = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "(no message)".into());
                eprintln!("PANIC in case {case}: {message}");
                if saved < MAX_SAVED {
                    std::fs::create_dir_all(&findings).expect("create target/fuzz-findings");
                    let file = findings.join(format!("panic-seed{seed}-case{case}.json"));
                    std::fs::write(&file, &text).expect("write a finding");
                    eprintln!("  input written to {}", file.display());
                    saved += 1;
                }
                match panics.iter_mut().find(|p| p.0 == message) {
                    Some(p) => p.1 += 1,
                    None => panics.push((message, 1, case, text.clone())),
                }
            }
        }
        if last_report.elapsed() > Duration::from_secs(30) {
            let secs = started.elapsed().as_secs_f64();
            eprintln!(
                "  … {} cases, {valid} valid, {panic_count} panics, {:.0} cases/s",
                case + 1,
                (case + 1) as f64 / secs
            );
            last_report = Instant::now();
        }
    }
    let secs = started.elapsed().as_secs_f64();

    println!("fuzz_scenarios: seed {seed}");
    println!("cases run:        {cases}");
    println!(
        "valid scenarios:  {valid} ({:.1} %): {completed} ran, {failed} stopped on an operator failure; {steps_run} steps",
        100.0 * valid as f64 / cases.max(1) as f64
    );
    println!("rejected:         {}", cases - valid - panic_count);
    let mut by_path: Vec<(String, u64)> = errors.into_iter().collect();
    by_path.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    println!("errors by path prefix (top 10 of {}):", by_path.len());
    for (path, n) in by_path.iter().take(10) {
        println!("  {n:>9}  {path}");
    }
    println!("panics:           {panic_count} ({} distinct)", panics.len());
    for (message, n, case, text) in &panics {
        println!("  {n} × {message}");
        println!(
            "    first in case {case}, input ({} bytes): {}",
            text.len(),
            text.chars().take(300).collect::<String>()
        );
    }
    println!("slowest case:     {:.1} ms (case {})", slowest.0.as_secs_f64() * 1000.0, slowest.1);
    println!("time:             {secs:.1} s, {:.0} cases/s", cases as f64 / secs);
    if slowest.0 > Duration::from_secs(1) {
        std::fs::create_dir_all(&findings).expect("create target/fuzz-findings");
        let file = findings.join(format!("slowest-seed{seed}-case{}.json", slowest.1));
        std::fs::write(&file, &slowest.2).expect("write the slowest case");
        println!("                  (input written to {})", file.display());
    }
    if panic_count > 0 {
        std::process::exit(1);
    }
}
