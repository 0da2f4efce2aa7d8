//! The heap backend's state TTL background cleanup against real Flink 2.3.0.
//!
//! Replays every scenario of `tests/oracle/ttl_incremental_cleanup/` (recorded with Flink 2.3.0's
//! own `HeapKeyedStateBackend`, `TtlValueState`/`TtlMapState`/`TtlListState` and
//! `TtlIncrementalCleanup`; its README says how) on the engine's states and asserts the same
//! output line for line: every read, every `hash` (key group and bucket hash of a key) and every
//! `count` of the entries physically stored. Three scenarios are plain loops whose ops files are
//! not committed; they are written here as `gen.py` writes them (the line numbers in the
//! expected output check that). Native only: it reads the recordings from disk.
#![cfg(not(target_arch = "wasm32"))]

use flink_state_sim::engine::operators::binary_row::binary_row_hash_code;
use flink_state_sim::engine::row::{DataType, Row, Value};
use flink_state_sim::engine::state::ttl::{StateTtlConfig, TtlRead};
use flink_state_sim::engine::state::{KeyId, KeyRegistry, ListState, MapState, ValueState};
use std::fmt::Write as _;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/oracle/ttl_incremental_cleanup");

struct Replay {
    keys: KeyRegistry,
    types: Vec<DataType>,
    v: ValueState<i64>,
    m: MapState<i64, i64>,
    l: ListState<i64>,
    key: Option<(KeyId, Row)>,
    now: i64,
    print: bool,
    out: String,
}

fn num(s: &str, line: usize) -> i64 {
    s.parse().unwrap_or_else(|_| panic!("line {line}: not a number: {s}"))
}

fn read(r: TtlRead<i64>) -> String {
    match r {
        TtlRead::Fresh(v) => v.to_string(),
        _ => "null".into(),
    }
}

fn join(values: impl IntoIterator<Item = String>) -> String {
    values.into_iter().collect::<Vec<_>>().join(",")
}

/// Runs an ops file; returns its output in the oracle's format.
fn replay(ops: &str) -> String {
    let first_key = ops.lines().find_map(|l| l.strip_prefix("key ")).expect("a key op");
    let types = vec![if first_key.starts_with("string ") { DataType::String } else { DataType::BigInt }];
    let mut r: Option<Replay> = None;
    for (n, line) in ops.lines().enumerate() {
        let n = n + 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (op, arg) = line.split_once(' ').unwrap_or((line, ""));
        if op == "ttl" {
            let ttl = num(arg, n);
            let cfg = StateTtlConfig::create_ttl_config(ttl);
            let mut keys = KeyRegistry::new(ttl);
            keys.use_heap_backend(types.clone());
            r = Some(Replay {
                keys,
                types: types.clone(),
                v: ValueState::with_ttl("v", cfg),
                m: MapState::new("m", cfg),
                l: ListState::new("l", cfg),
                key: None,
                now: 0,
                print: true,
                out: String::new(),
            });
            continue;
        }
        let r = r.as_mut().expect("ttl first");
        let now = r.now;
        if op == "time" {
            r.now = num(arg, n);
            r.keys.set_ttl_time(r.now);
            continue;
        }
        if op == "print" {
            r.print = arg == "on";
            continue;
        }
        if op == "key" {
            let (ty, text) = arg.split_once(' ').unwrap();
            let row = Row::from(vec![if ty == "string" { Value::str(text) } else { Value::Int(num(text, n)) }]);
            r.keys.finish();
            let id = r.keys.intern(&row);
            r.key = Some((id, row));
            continue;
        }
        let (k, row) = r.key.clone().expect("a key");
        let keys = &mut r.keys;
        let args: Vec<i64> = arg.split_whitespace().map(|a| num(a, n)).collect();
        let printed = match op {
            "v.value" => Some(format!("v.value={}", read(r.v.value(keys, k, now)))),
            "v.update" => {
                r.v.update(keys, k, args[0], now);
                None
            }
            "v.clear" => {
                r.v.clear(keys, k);
                None
            }
            "m.get" => Some(format!("m.get={}", read(r.m.get(keys, k, &args[0], now)))),
            "m.contains" => {
                Some(format!("m.contains={}", matches!(r.m.get(keys, k, &args[0], now), TtlRead::Fresh(_))))
            }
            "m.put" => {
                r.m.put(keys, k, args[0], args[1], now);
                None
            }
            "m.remove" => {
                r.m.remove(keys, k, &args[0]);
                None
            }
            "m.entries" => Some(format!(
                "m.entries={}",
                join(r.m.entries(keys, k, now).into_iter().map(|(a, b)| format!("{a}:{b}")))
            )),
            "m.isEmpty" => Some(format!("m.isEmpty={}", r.m.is_empty(keys, k, now))),
            "m.clear" => {
                r.m.clear(keys, k);
                None
            }
            "l.get" => Some(format!("l.get={}", join(r.l.get(keys, k, now).into_iter().map(|v| v.to_string())))),
            "l.add" => {
                r.l.add(keys, k, args[0], now);
                None
            }
            "l.update" => {
                r.l.update(keys, k, args, now);
                None
            }
            "l.clear" => {
                r.l.clear(keys, k);
                None
            }
            "count" => {
                let _ = writeln!(
                    r.out,
                    "{n} v={} m={}/{} l={}/{}",
                    r.v.stored(),
                    r.m.keys_stored(),
                    r.m.stored(),
                    r.l.keys_stored(),
                    r.l.stored()
                );
                None
            }
            "hash" => {
                let (kg, h) = keys.heap_slot(k).expect("on the heap backend");
                let code = binary_row_hash_code(&row, &r.types);
                let _ = writeln!(r.out, "{n} kg={kg} h={h} code={code}");
                None
            }
            _ => panic!("line {n}: unknown op {line}"),
        };
        if let Some(p) = printed {
            if r.print {
                let _ = writeln!(r.out, "{n} {p}");
            }
        }
    }
    r.map(|r| r.out).unwrap_or_default()
}

/// `gen.py`'s `Ops`: two comment lines, `time` only when the clock changes.
struct Ops {
    lines: Vec<String>,
    time: Option<i64>,
}

impl Ops {
    fn new() -> Self {
        Ops { lines: vec!["# title".into(), "# generated".into()], time: None }
    }
    fn op(&mut self, s: impl Into<String>) {
        self.lines.push(s.into());
    }
    fn time(&mut self, t: i64) {
        if self.time != Some(t) {
            self.op(format!("time {t}"));
            self.time = Some(t);
        }
    }
    fn text(&self) -> String {
        self.lines.join("\n") + "\n"
    }
}

fn gen_h_value_new_keys() -> String {
    let mut o = Ops::new();
    o.op("ttl 1000");
    o.op("print off");
    for i in 0..20_000 {
        o.time(i * 1000 / 10_000);
        o.op(format!("key string user-{i}"));
        if i < 20 {
            o.op("hash");
        }
        o.op("v.value");
        o.op("v.update 1");
        if (i + 1) % 250 == 0 {
            o.op("count");
        }
    }
    o.text()
}

fn gen_rehash_sweep() -> String {
    let mut o = Ops::new();
    o.op("ttl 10");
    o.op("print off");
    o.time(0);
    for i in 0..30_000 {
        o.op(format!("key bigint {i}"));
        if i < 10 {
            o.op("hash");
        }
        o.op("v.update 1");
    }
    o.op("count");
    o.time(100);
    o.op("key bigint 1000000");
    o.op("hash");
    for _ in 0..3000 {
        o.op("key bigint 1000000");
        o.op("v.value");
        o.op("count");
    }
    o.text()
}

fn gen_rehash_midway() -> String {
    let mut o = Ops::new();
    o.op("ttl 10");
    o.op("print off");
    o.time(0);
    for i in 0..12_000 {
        o.op(format!("key bigint {i}"));
        o.op("v.update 1");
    }
    o.op("count");
    o.time(100);
    for i in 0..2000 {
        o.op(format!("key bigint {}", 12_000 + i));
        o.op("v.update 1");
        o.op("count");
    }
    for _ in 0..2000 {
        o.op("key bigint 1000000");
        o.op("v.value");
        o.op("count");
    }
    o.text()
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{name}.expected")).unwrap()
}

fn ops(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{name}.ops")).unwrap()
}

/// Compares line by line, reporting the first difference with its context.
fn assert_same(name: &str, got: &str, want: &str) {
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "{name}: output line {} differs from Flink 2.3.0's", i + 1);
    }
    assert_eq!(got.lines().count(), want.lines().count(), "{name}: output lines");
}

macro_rules! oracle {
    ($name:ident, $ops:expr) => {
        #[test]
        fn $name() {
            let name = stringify!($name);
            assert_same(name, &replay(&$ops), &expected(name));
        }
    };
}

oracle!(h_value_new_keys, gen_h_value_new_keys());
oracle!(rehash_sweep, gen_rehash_sweep());
oracle!(rehash_midway, gen_rehash_midway());
oracle!(value_reused_keys, ops("value_reused_keys"));
oracle!(map_state, ops("map_state"));
oracle!(list_state, ops("list_state"));
oracle!(mixed_states, ops("mixed_states"));
oracle!(map_empty_stays, ops("map_empty_stays"));
