//! Mutations of a scenario: structure-aware (replace, delete or insert JSON nodes with
//! interesting values, rename fields, copy subtrees, nudge numbers) and byte-level (flip,
//! insert, delete, duplicate, truncate, a BOM). A `mild` structural mutation keeps the shape, so
//! the scenario often stays valid and runs.

use flink_state_sim::engine::time::{MAX_RUNTIME_MS, MAX_TIME_MS};
use rand::seq::IndexedRandom;
use rand::{Rng as _, RngExt};
use rand_pcg::Pcg64Mcg as Rng;
use serde_json::Value;

/// Uniform in `0..n` (`n > 0`).
fn below(rng: &mut Rng, n: usize) -> usize {
    rng.random_range(0..n)
}

fn chance(rng: &mut Rng, percent: u32) -> bool {
    rng.random_ratio(percent, 100)
}

fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    items.choose(rng).expect("a non-empty list")
}

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
    "watch",
    "state_backend",
    "mini_batch",
    "enabled",
    "allow_latency",
    "size",
    "agg_phase_strategy",
    "select",
    "where",
    "partition_by",
    "order_by",
    "window",
    "rank_end",
    "rank_column",
    "key",
    "keep",
    "generate_insert",
    "on",
    "slide",
    "expect",
    "result",
    "timers",
    "stale_rows",
    "$schema",
];

/// Strings the format gives meaning to, and awkward ones.
const WORDS: &[&str] = &[
    "1.10-legacy",
    "2.3",
    "1.6-legacy",
    "1.7-legacy",
    "1.10-blink",
    "1.12",
    "GroupAggregate",
    "Calc",
    "Rank",
    "Deduplicate",
    "OverAggregate",
    "CountWindowAggregate",
    "FirstRow",
    "LastRow",
    "pt",
    "pt DESC",
    "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW",
    "RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW",
    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
    "MIN",
    "MAX",
    "COUNT_DISTINCT",
    "rocksdb",
    "ONE_PHASE",
    "TWO_PHASE",
    "k = 'a' AND v IS NOT NULL",
    "CASE WHEN v > 1 THEN k END AS y",
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
    match below(rng, 6) {
        0 | 1 => Value::from(*pick(rng, ints)),
        2 => Value::from(below(rng, 64) as i64 - 8),
        3 => Value::from(rng.next_u64()),
        4 => Value::from(rng.next_u64() as i64),
        _ => serde_json::Number::from_f64(*pick(rng, floats)).map_or(Value::Null, Value::Number),
    }
}

pub fn interesting_string(rng: &mut Rng) -> String {
    match below(rng, 8) {
        0..=2 => pick(rng, WORDS).to_string(),
        3 => pick(rng, FIELDS).to_string(),
        4 => "x".repeat([100, 1000, 70_000][below(rng, 3)]),
        5 => "é😀\u{0}".repeat(below(rng, 500) + 1),
        6 => (0..below(rng, 12)).map(|_| char::from_u32(below(rng, 0x11_0000) as u32).unwrap_or('\u{fffd}')).collect(),
        _ => (0..below(rng, 8)).map(|_| (below(rng, 0x20) as u8) as char).collect(),
    }
}

/// An interesting value: a scalar, or nested junk.
fn interesting_value(rng: &mut Rng, depth: usize) -> Value {
    match below(rng, if depth > 3 { 4 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(chance(rng, 50)),
        2 => interesting_number(rng),
        3 => Value::String(interesting_string(rng)),
        4 => Value::Array((0..below(rng, 4)).map(|_| interesting_value(rng, depth + 1)).collect()),
        5 => Value::Object(
            (0..below(rng, 4))
                .map(|_| {
                    let key = if chance(rng, 70) { pick(rng, FIELDS).to_string() } else { interesting_string(rng) };
                    (key, interesting_value(rng, depth + 1))
                })
                .collect(),
        ),
        6 => {
            // Deep nesting, around serde_json's recursion limit (128).
            let mut v = Value::Null;
            for _ in 0..[10, 127, 129, 300][below(rng, 4)] {
                v = if chance(rng, 50) {
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
    match below(rng, 8) {
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
pub fn mutate_structure(rng: &mut Rng, root: &mut Value, mild: bool) {
    let mut paths = vec![];
    collect_paths(root, &mut vec![], &mut paths);
    let path = paths[below(rng, paths.len())].clone();
    let Some((last, parent_path)) = path.split_last() else {
        if !mild {
            *root = interesting_value(rng, 0);
        }
        return;
    };
    let op = if mild { [2, 2, 2, 8, 7, 9][below(rng, 6)] } else { below(rng, 9) };
    match op {
        // Drop an array element, or insert a copy of it.
        9 => {
            if let (Value::Array(a), Seg::Idx(i)) = (node_mut(root, parent_path), last) {
                if chance(rng, 50) {
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
                Value::String(_) if chance(rng, 70) => Value::String(pick(rng, WORDS).to_string()),
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
            let value = if chance(rng, 50) { node(root, &path).clone() } else { interesting_value(rng, 0) };
            let key = if chance(rng, 80) { pick(rng, FIELDS).to_string() } else { interesting_string(rng) };
            match node_mut(root, parent_path) {
                Value::Object(o) => {
                    o.insert(key, value);
                }
                Value::Array(a) => {
                    let i = below(rng, a.len() + 1);
                    a.insert(i, value);
                }
                _ => {}
            }
        }
        // Rename a field (to another field name: valid names in the wrong place).
        5 => {
            let new_key = if chance(rng, 85) { pick(rng, FIELDS).to_string() } else { interesting_string(rng) };
            if let (Value::Object(o), Seg::Key(k)) = (node_mut(root, parent_path), last) {
                if let Some(v) = o.shift_remove(k) {
                    o.insert(new_key, v);
                }
            }
        }
        // Copy another subtree over this node.
        6 => {
            let other = &paths[below(rng, paths.len())];
            let copy = node(root, other).clone();
            *node_mut(root, &path) = copy;
        }
        // Swap two elements of an array (steps out of order, columns swapped).
        _ => {
            if let (Value::Array(a), Seg::Idx(i)) = (node_mut(root, parent_path), last) {
                let j = below(rng, a.len());
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
pub fn mutate_bytes(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let len = bytes.len();
    let at = if len == 0 { 0 } else { below(rng, len) };
    match below(rng, 9) {
        0 if len > 0 => bytes[at] ^= 1 << below(rng, 8),
        1 => bytes.insert(at, rng.next_u64() as u8),
        2 if len > 0 => {
            bytes.remove(at);
        }
        3 if len > 0 => {
            let end = (at + 1 + below(rng, 16)).min(len);
            bytes.drain(at..end);
        }
        4 if len > 0 => {
            let end = (at + 1 + below(rng, 32)).min(len);
            let chunk: Vec<u8> = bytes[at..end].to_vec();
            let to = below(rng, bytes.len() + 1);
            bytes.splice(to..to, chunk);
        }
        5 => bytes.truncate(at),
        6 => {
            bytes.splice(0..0, "\u{feff}".bytes());
        }
        7 if len > 0 && bytes[at].is_ascii_digit() => bytes[at] = b'0' + below(rng, 10) as u8,
        _ => {
            let token = pick(rng, TOKENS).as_bytes();
            bytes.splice(at..at, token.iter().copied());
        }
    }
}
