//! Scenarios generated to be valid: a Flink mode, a schema, then a pipeline whose every operator
//! reads columns its input has (and fits what the mode and the input's changelog allow), the
//! retention settings of the mode, mini-batch, per-operator TTLs, then steps whose rows fit the
//! schema and a workload. The rules followed are docs/scenario-format.md's; where the generator
//! and the engine disagree, the case is simply rejected (and counted), never assumed valid.

use crate::gen_sql;
use rand::seq::IndexedRandom;
use rand::RngExt;
use rand_pcg::Pcg64Mcg as Rng;
use serde_json::{json, Map, Value};

/// A column's type as the generator tracks it (`ProcTime`: the source's time attribute).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    Int,
    BigInt,
    Str,
    Bool,
    ProcTime,
}

impl Ty {
    pub fn numeric(self) -> bool {
        matches!(self, Ty::Int | Ty::BigInt)
    }
    fn sql(self) -> &'static str {
        match self {
            Ty::Int => "INT",
            Ty::BigInt => "BIGINT",
            Ty::Str => "STRING",
            Ty::Bool => "BOOLEAN",
            Ty::ProcTime => "BIGINT",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Col {
    pub name: String,
    pub ty: Ty,
}

/// The Flink modes of the format (`FlinkMode::ALL`'s ids).
pub const MODES: [&str; 6] = ["1.6-legacy", "1.7-legacy", "1.10-legacy", "1.10-blink", "1.12", "2.3"];

fn legacy(mode: &str) -> bool {
    mode.ends_with("-legacy")
}

const NAMES: &[&str] = &["k", "v", "id", "user_id", "st", "ts", "b", "name", "score", "g", "$f2", "t date", "x"];

/// The input of the next operator: its columns and whether it carries retractions.
struct Stage {
    cols: Vec<Col>,
    retracts: bool,
}

fn pick_cols(rng: &mut Rng, cols: &[Col], max: usize, keep: impl Fn(&Col) -> bool) -> Vec<String> {
    let mut names: Vec<String> = cols.iter().filter(|c| keep(c)).map(|c| c.name.clone()).collect();
    let n = rng.random_range(0..=max.min(names.len()));
    let mut out = Vec::new();
    for _ in 0..n {
        let i = rng.random_range(0..names.len());
        out.push(names.swap_remove(i));
    }
    out
}

fn duration(rng: &mut Rng, ms: i64) -> Value {
    if rng.random_bool(0.5) {
        return json!(ms);
    }
    if ms % 86_400_000 == 0 && ms > 0 {
        json!(format!("{} d", ms / 86_400_000))
    } else if ms % 1000 == 0 && ms > 0 {
        json!(format!("{} s", ms / 1000))
    } else {
        json!(format!("{ms} ms"))
    }
}

/// Aggregate calls over `cols`; `retracting`: only functions that retract.
fn aggregates(rng: &mut Rng, cols: &[Col], retracting: bool, taken: &mut Vec<String>) -> (Vec<Value>, Vec<Col>) {
    let data: Vec<&Col> = cols.iter().filter(|c| c.ty != Ty::ProcTime).collect();
    let (mut calls, mut out) = (Vec::new(), Vec::new());
    for i in 0..rng.random_range(1..=3) {
        let alias = format!("a{i}_{}", rng.random_range(0..100));
        if taken.contains(&alias) {
            continue;
        }
        let mut funcs = vec!["COUNT", "SUM", "MIN", "MAX", "COUNT_DISTINCT"];
        if !retracting {
            funcs.extend(["LAST_VALUE", "LATEST_BY_TIME"]);
        }
        let f = *funcs.choose(rng).unwrap();
        let numeric: Vec<&&Col> = data.iter().filter(|c| c.ty.numeric()).collect();
        let (args, ty) = match f {
            "COUNT" => match data.choose(rng) {
                Some(c) if rng.random_bool(0.4) => (vec![c.name.clone()], Ty::BigInt),
                _ => (vec!["*".to_string()], Ty::BigInt),
            },
            "SUM" => match numeric.choose(rng) {
                Some(c) => (vec![c.name.clone()], c.ty),
                None => (vec!["*".to_string()], Ty::BigInt),
            },
            "COUNT_DISTINCT" => match data.choose(rng) {
                Some(c) => (vec![c.name.clone()], Ty::BigInt),
                None => continue,
            },
            "LATEST_BY_TIME" => match (data.choose(rng), numeric.choose(rng)) {
                (Some(v), Some(t)) => (vec![v.name.clone(), t.name.clone()], v.ty),
                _ => continue,
            },
            _ => match data.choose(rng) {
                Some(c) => (vec![c.name.clone()], c.ty),
                None => continue,
            },
        };
        let f = if f == "SUM" && args[0] == "*" { "COUNT" } else { f };
        let written = if rng.random_bool(0.1) { f.to_lowercase() } else { f.to_string() };
        calls.push(json!({"function": written, "args": args, "as": alias}));
        taken.push(alias.clone());
        out.push(Col { name: alias, ty });
    }
    if calls.is_empty() {
        let alias = format!("cnt{}", taken.len());
        calls.push(json!({"function": "COUNT", "args": ["*"], "as": alias}));
        out.push(Col { name: alias, ty: Ty::BigInt });
    }
    (calls, out)
}

/// One operator reading `input`; returns its JSON and the next stage.
fn operator(rng: &mut Rng, mode: &str, mini_batch: bool, id: &str, input: &Stage, last: bool) -> (Value, Stage) {
    let time_attr = input.cols.iter().find(|c| c.ty == Ty::ProcTime).map(|c| c.name.clone());
    let mut kinds = vec!["GroupAggregate", "GroupAggregate", "Calc", "Calc"];
    // OVER windows are modelled for these modes only (the others are refused with the reason).
    if !input.retracts && time_attr.is_some() && ["1.10-legacy", "1.12", "2.3"].contains(&mode) {
        kinds.push("OverAggregate");
    }
    if !input.retracts && time_attr.is_some() && legacy(mode) {
        kinds.push("CountWindowAggregate");
    }
    if mode == "2.3" || (mode == "1.10-blink" && !input.retracts) {
        kinds.extend(["Rank", "Rank"]);
    }
    if !input.retracts && (mode == "2.3" || mode == "1.10-blink") {
        kinds.push("Deduplicate");
    }
    let kind = *kinds.choose(rng).unwrap();
    let mut op = Map::new();
    op.insert("operator".into(), json!(kind));
    op.insert("id".into(), json!(id));
    let gub = last && rng.random_bool(0.25);
    let own_ttl = mode == "2.3" && rng.random_bool(0.2);
    let stage = match kind {
        "GroupAggregate" => {
            let group_by = pick_cols(rng, &input.cols, 2, |c| c.ty != Ty::ProcTime);
            let mut taken = group_by.clone();
            let (calls, agg_cols) = aggregates(rng, &input.cols, input.retracts, &mut taken);
            op.insert("group_by".into(), json!(group_by));
            op.insert("aggregates".into(), Value::Array(calls));
            if gub {
                op.insert("generate_update_before".into(), json!(false));
            }
            let mut cols: Vec<Col> =
                group_by.iter().map(|g| input.cols.iter().find(|c| &c.name == g).unwrap().clone()).collect();
            cols.extend(agg_cols);
            Stage { cols, retracts: true }
        }
        "Calc" => {
            let data: Vec<Col> = input.cols.iter().filter(|c| c.ty != Ty::ProcTime).cloned().collect();
            let mut select = Vec::new();
            let mut cols: Vec<Col> = Vec::new();
            for i in 0..rng.random_range(1..=4) {
                let taken = |cols: &Vec<Col>, n: &str| cols.iter().any(|c| c.name == n);
                let roll = rng.random_range(0..10);
                if roll < 4 {
                    // A column as it is (the time attribute passes through).
                    let c = input.cols.choose(rng).unwrap();
                    if !taken(&cols, &c.name) {
                        select.push(json!(gen_sql::ident(&c.name)));
                        cols.push(c.clone());
                    }
                    continue;
                }
                let ty = *[Ty::Int, Ty::BigInt, Ty::Str, Ty::Bool].choose(rng).unwrap();
                let mut e = gen_sql::expr(rng, &data, ty, 0);
                // The error paths: SQL the model refuses, or valid SQL broken a little.
                match rng.random_range(0..200) {
                    0..=1 => e = gen_sql::refused(rng, &input.cols),
                    2 => e = gen_sql::garble(rng, &e),
                    _ => {}
                }
                // Without `AS`, Calcite names a composite expression `EXPR$<position>` (a bare
                // column would keep its name: those are always aliased here).
                let unaliased = roll == 9 && e.contains(' ');
                let name = if unaliased { format!("EXPR${}", select.len()) } else { format!("e{i}") };
                if taken(&cols, &name) {
                    continue;
                }
                select.push(json!(if unaliased { e } else { format!("{e} AS {name}") }));
                // A CASE mixing INT and BIGINT is BIGINT; the generator does not track it: any
                // numeric column is used only where either fits.
                cols.push(Col { name, ty });
            }
            if select.is_empty() {
                let c = &input.cols[0];
                select.push(json!(gen_sql::ident(&c.name)));
                cols.push(c.clone());
            }
            op.insert("select".into(), Value::Array(select));
            if rng.random_bool(0.6) {
                let n = rng.random_range(0..1000);
                let w = if n < 3 {
                    gen_sql::chain(rng, &data, 50 + n * 100)
                } else {
                    gen_sql::expr(rng, &data, Ty::Bool, 0)
                };
                op.insert("where".into(), json!(w));
            }
            Stage { cols, retracts: input.retracts }
        }
        "OverAggregate" => {
            let pt = time_attr.clone().unwrap();
            let partition = pick_cols(rng, &input.cols, 2, |c| c.ty != Ty::ProcTime);
            let windows: Vec<String> = match mode {
                "2.3" => vec![
                    format!("ROWS BETWEEN {} PRECEDING AND CURRENT ROW", rng.random_range(1..4)),
                    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW".into(),
                    "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW".into(),
                    format!("RANGE BETWEEN INTERVAL '{}' SECOND PRECEDING AND CURRENT ROW", rng.random_range(1..5)),
                ],
                "1.12" => vec![format!("ROWS BETWEEN {} PRECEDING AND CURRENT ROW", rng.random_range(1..4))],
                _ => vec![
                    format!("ROWS BETWEEN {} PRECEDING AND CURRENT ROW", rng.random_range(1..4)),
                    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW".into(),
                ],
            };
            let window = windows.choose(rng).unwrap().clone();
            let bounded = !window.contains("UNBOUNDED");
            let mut taken: Vec<String> = input.cols.iter().map(|c| c.name.clone()).collect();
            let (calls, agg_cols) = aggregates(rng, &input.cols, bounded, &mut taken);
            op.insert("partition_by".into(), json!(partition));
            op.insert("order_by".into(), json!([if rng.random_bool(0.5) { pt } else { format!("{pt} ASC") }]));
            op.insert("window".into(), json!(window));
            op.insert("aggregates".into(), Value::Array(calls));
            let mut cols = input.cols.clone();
            cols.extend(agg_cols);
            Stage { cols, retracts: false }
        }
        "CountWindowAggregate" => {
            let group_by = pick_cols(rng, &input.cols, 2, |c| c.ty != Ty::ProcTime);
            let mut taken = group_by.clone();
            let (calls, agg_cols) = aggregates(rng, &input.cols, false, &mut taken);
            op.insert("group_by".into(), json!(group_by));
            op.insert("on".into(), json!(time_attr.clone().unwrap()));
            op.insert("size".into(), json!(rng.random_range(1..5)));
            if rng.random_bool(0.4) {
                op.insert("slide".into(), json!(rng.random_range(1..4)));
            }
            op.insert("aggregates".into(), Value::Array(calls));
            let mut cols: Vec<Col> =
                group_by.iter().map(|g| input.cols.iter().find(|c| &c.name == g).unwrap().clone()).collect();
            cols.extend(agg_cols);
            Stage { cols, retracts: false }
        }
        "Rank" => {
            let partition = pick_cols(rng, &input.cols, 2, |c| c.ty != Ty::ProcTime);
            let dedup = time_attr.is_some() && !input.retracts && rng.random_bool(0.25);
            let (order, rank_end, rank_column) = if dedup {
                let dir = if rng.random_bool(0.5) { " DESC" } else { "" };
                (vec![format!("{}{dir}", time_attr.clone().unwrap())], 1, None)
            } else {
                // `order_by` items are `column [ASC|DESC]`: a name with a space cannot be written.
                let sortable = |c: &Col| c.ty != Ty::ProcTime && !c.name.contains(' ');
                let mut order = pick_cols(rng, &input.cols, 2, sortable);
                if order.is_empty() {
                    order.push(input.cols.iter().find(|c| sortable(c)).map_or("x".into(), |c| c.name.clone()));
                }
                let order =
                    order.into_iter().map(|o| format!("{o}{}", ["", " ASC", " DESC"].choose(rng).unwrap())).collect();
                let rc = rng
                    .random_bool(0.4)
                    .then(|| "rn".to_string())
                    .filter(|rn| !input.cols.iter().any(|c| &c.name == rn));
                (order, rng.random_range(1..4), rc)
            };
            op.insert("partition_by".into(), json!(partition));
            op.insert("order_by".into(), json!(order));
            op.insert("rank_end".into(), json!(rank_end));
            let mut cols = input.cols.clone();
            if let Some(rc) = rank_column {
                op.insert("rank_column".into(), json!(rc));
                cols.push(Col { name: rc, ty: Ty::BigInt });
            }
            if gub {
                op.insert("generate_update_before".into(), json!(false));
            }
            if own_ttl {
                op.insert("state_ttl".into(), {
                    let ms = rng.random_range(0..3) * 1000;
                    duration(rng, ms)
                });
            }
            let insert_only = dedup && order[0].ends_with(&time_attr.clone().unwrap_or_default());
            Stage { cols, retracts: !insert_only }
        }
        _ => {
            // Deduplicate
            let key = pick_cols(rng, &input.cols, 2, |c| c.ty != Ty::ProcTime);
            // Keep-last is modelled on 2.3 without mini-batch only.
            let first = mode == "1.10-blink" || mini_batch || rng.random_bool(0.5);
            op.insert("key".into(), json!(key));
            op.insert("keep".into(), json!(if first { "FirstRow" } else { "LastRow" }));
            if !first && gub {
                op.insert("generate_update_before".into(), json!(false));
                op.insert("generate_insert".into(), json!(rng.random_bool(0.5)));
            }
            if own_ttl {
                op.insert("state_ttl".into(), {
                    let ms = rng.random_range(0..3) * 1000;
                    duration(rng, ms)
                });
            }
            Stage { cols: input.cols.clone(), retracts: !first }
        }
    };
    if kind == "GroupAggregate" && own_ttl {
        op.insert("state_ttl".into(), {
            let ms = rng.random_range(0..4) * 500;
            duration(rng, ms)
        });
    }
    (Value::Object(op), stage)
}

fn cell(rng: &mut Rng, ty: Ty) -> Value {
    if rng.random_bool(0.08) {
        return Value::Null;
    }
    match ty {
        Ty::Int => json!(rng.random_range(-2i64..6)),
        Ty::BigInt => json!(*[0i64, 1, 2, 3, 5_000_000_000, -1].choose(rng).unwrap()),
        Ty::Str => json!(*["a", "b", "c", "u1", "", "é"].choose(rng).unwrap()),
        Ty::Bool => json!(rng.random_bool(0.5)),
        Ty::ProcTime => Value::Null,
    }
}

/// A time as written: ms, or a date-time when the scenario writes them.
fn time(t: i64, date_time: bool) -> Value {
    if date_time {
        let secs = t.div_euclid(1000);
        let ms = t.rem_euclid(1000);
        let dt = chrono::DateTime::from_timestamp(secs, 0).unwrap().naive_utc();
        json!(format!("{}.{ms:03}", dt.format("%Y-%m-%dT%H:%M:%S")))
    } else {
        json!(t)
    }
}

fn steps(rng: &mut Rng, schema: &[Col], changelog_all: bool, start: i64, date_time: bool) -> Vec<Value> {
    let mut out = Vec::new();
    let mut t = start;
    let scale = *[1i64, 10, 1000, 60_000, 3_600_000].choose(rng).unwrap();
    for _ in 0..rng.random_range(0..16) {
        match rng.random_range(0..10) {
            0 => {
                let by = rng.random_range(0..5) * scale;
                t += by;
                out.push(json!({"advance_by": duration(rng, by)}));
            }
            1 => {
                t += rng.random_range(0..5) * scale;
                out.push(json!({"advance_to": time(t, date_time)}));
            }
            _ => {
                let row: Vec<Value> = schema.iter().map(|c| cell(rng, c.ty)).collect();
                let mut step = Map::new();
                if rng.random_bool(0.8) {
                    t += rng.random_range(0..4) * scale;
                    step.insert("at".into(), time(t, date_time));
                }
                step.insert("row".into(), Value::Array(row));
                if changelog_all && rng.random_bool(0.5) {
                    let k = *["+I", "-U", "+U", "-D", "INSERT", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE"]
                        .choose(rng)
                        .unwrap();
                    step.insert("kind".into(), json!(k));
                }
                out.push(Value::Object(step));
            }
        }
    }
    out
}

fn workload(rng: &mut Rng, schema: &[Col]) -> Option<Value> {
    let keyable: Vec<&Col> = schema.iter().filter(|c| matches!(c.ty, Ty::Str | Ty::Int | Ty::BigInt)).collect();
    let key = keyable.choose(rng)?;
    let mut w = Map::new();
    w.insert("seed".into(), json!(rng.random_range(0..1000)));
    if rng.random_bool(0.7) {
        w.insert("events".into(), json!(rng.random_range(1..400)));
    } else {
        w.insert("duration".into(), {
            let ms = rng.random_range(1..5) * 1000;
            duration(rng, ms)
        });
    }
    w.insert("rate".into(), json!(*[1, 10, 100, 1000].choose(rng).unwrap()));
    w.insert("keys".into(), json!(rng.random_range(1..50)));
    w.insert("key_column".into(), json!(key.name));
    if key.ty == Ty::Str && rng.random_bool(0.5) {
        w.insert("key_prefix".into(), json!("user-"));
    }
    if rng.random_bool(0.3) {
        w.insert("distribution".into(), json!({"zipf": *[0.5, 1.1, 2.0].choose(rng).unwrap()}));
    }
    if rng.random_bool(0.3) {
        w.insert("new_keys".into(), json!(0.1));
    }
    if rng.random_bool(0.3) {
        w.insert("returning".into(), json!({"share": 0.2, "after": "2 s"}));
    }
    let mut columns = Map::new();
    for c in schema.iter().filter(|c| c.name != key.name) {
        let g = match (c.ty, rng.random_range(0..4)) {
            (Ty::BigInt, 0) => json!("proctime"),
            (Ty::BigInt, 1) => json!("sequence"),
            (Ty::Int | Ty::BigInt, 2) => json!({"uniform": [-2, 5]}),
            (_, 3) => json!({"one_of": [cell(rng, c.ty), cell(rng, c.ty), Value::Null]}),
            _ => json!({"constant": cell(rng, c.ty)}),
        };
        columns.insert(c.name.clone(), g);
    }
    w.insert("columns".into(), Value::Object(columns));
    Some(Value::Object(w))
}

/// A scenario meant to be valid.
pub fn scenario(rng: &mut Rng) -> Value {
    let mode = *MODES.choose(rng).unwrap();
    let mut schema: Vec<Col> = Vec::new();
    for _ in 0..rng.random_range(1..=4) {
        let name = NAMES.choose(rng).unwrap().to_string();
        if !schema.iter().any(|c| c.name == name) {
            let ty = *[Ty::Str, Ty::Int, Ty::BigInt, Ty::Bool, Ty::Str, Ty::Int].choose(rng).unwrap();
            schema.push(Col { name, ty });
        }
    }
    let mut source = Map::new();
    source.insert("name".into(), json!(*["s", "src", "tbl 1"].choose(rng).unwrap()));
    source.insert("schema".into(), Value::Array(schema.iter().map(|c| json!([c.name, c.ty.sql()])).collect()));
    let changelog_all = rng.random_bool(0.15);
    if changelog_all {
        source.insert("changelog".into(), json!("all"));
    }
    let mut cols = schema.clone();
    if rng.random_bool(0.45) {
        source.insert("proctime".into(), json!("pt"));
        cols.push(Col { name: "pt".into(), ty: Ty::ProcTime });
    }
    let mut stage = Stage { cols, retracts: changelog_all };
    let mini_batch = !legacy(mode) && rng.random_bool(0.3);
    let n = *[1, 1, 2, 2, 2, 3, 4].choose(rng).unwrap();
    let mut pipeline = Vec::new();
    for i in 0..n {
        let id = ["agg", "inner", "outer", "q", "top", "w"][i % 6].to_string() + &i.to_string();
        let (op, next) = operator(rng, mode, mini_batch, &id, &stage, i + 1 == n);
        // A Top-N over an update stream whose sort only moves up runs UpdatableTopNFunction,
        // which needs its input without UPDATE_BEFORE: the upstream operator drops them.
        if op["operator"] == "Rank" && rng.random_bool(0.5) {
            if let Some(Value::Object(prev)) = pipeline.last_mut() {
                if prev["operator"] == "GroupAggregate" {
                    prev.insert("generate_update_before".into(), json!(false));
                }
            }
        }
        pipeline.push(op);
        stage = next;
    }
    let mut s = Map::new();
    s.insert("name".into(), json!(format!("fz-{mode}")));
    s.insert("flink".into(), json!(mode));
    if rng.random_bool(0.1) {
        s.insert("title".into(), json!(*["A title", "tab\there", "é😀", "<b>x</b>"].choose(rng).unwrap()));
    }
    let date_time = rng.random_bool(0.4);
    let start: i64 = if date_time { 1_574_262_000_000 } else { *[0i64, 1, 1000].choose(rng).unwrap() };
    let steps = steps(rng, &schema, changelog_all, start, date_time);
    // Without `start`, a scenario starts at its first step's time: when steps before it advance
    // time, they would run from there and overtake the later times.
    let first_at = steps.first().is_some_and(|s| s.get("at").is_some());
    if !first_at || rng.random_bool(0.3) {
        s.insert("start".into(), time(start, date_time));
    }
    if rng.random_bool(0.15) {
        s.insert("time_format".into(), json!(*["millis", "date-time"].choose(rng).unwrap()));
    }
    match mode {
        "2.3" => {
            if rng.random_bool(0.7) {
                s.insert("state_ttl".into(), {
                    let ms = rng.random_range(0..5) * 1000;
                    duration(rng, ms)
                });
            }
        }
        "1.12" if rng.random_bool(0.5) => {
            s.insert("state_ttl".into(), {
                let ms = rng.random_range(0..5) * 1000;
                duration(rng, ms)
            });
        }
        _ => {
            if rng.random_bool(0.75) {
                let harness = rng.random_bool(0.6);
                let min = if harness { rng.random_range(0..20) } else { rng.random_range(0..3) * 60_000 };
                let max = if harness { min + rng.random_range(0..20) } else { min + 300_000 };
                s.insert(
                    "idle_state_retention".into(),
                    json!({"min": duration(rng, min), "max": duration(rng, max), "test_harness": harness}),
                );
            }
        }
    }
    if mini_batch {
        let latency = *[1i64, 5, 1000].choose(rng).unwrap();
        s.insert("mini_batch".into(), json!({"allow_latency": duration(rng, latency), "size": rng.random_range(1..6)}));
        // Two-phase aggregation is modelled on 2.3 only: the others keep one phase.
        if mode != "2.3" && rng.random_bool(0.95) {
            s.insert("agg_phase_strategy".into(), json!(*["ONE_PHASE", "one_phase"].choose(rng).unwrap()));
        } else if rng.random_bool(0.5) {
            s.insert("agg_phase_strategy".into(), json!(*["AUTO", "ONE_PHASE", "two_phase"].choose(rng).unwrap()));
        }
    }
    if rng.random_bool(0.1) {
        s.insert("state_backend".into(), json!(*["hashmap", "rocksdb"].choose(rng).unwrap()));
    }
    s.insert("source".into(), Value::Object(source));
    s.insert("pipeline".into(), Value::Array(pipeline));
    s.insert("steps".into(), Value::Array(steps));
    if rng.random_bool(0.2) {
        if let Some(w) = workload(rng, &schema) {
            s.insert("workload".into(), w);
        }
    }
    Value::Object(s)
}
