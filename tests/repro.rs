//! The hostile and bad inputs of `shared/repro/` (found by fuzzing the CLI): each gets a one-line
//! error that names the field and the rule, or runs; never a panic, a hang or unbounded memory.
//! The small reproducers are copied under `tests/fixtures/repro/`; the big ones are generated here
//! as `shared/repro/gen_big.py` writes them.
#![cfg(not(target_arch = "wasm32"))]

use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use serde_json::json;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/repro/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn error(json: &str) -> String {
    Scenario::from_json(json).unwrap_err().to_string()
}

fn metrics_only() -> SimOptions {
    SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false }
}

/// The harness preset with another pipeline or steps (what `gen_big.py` starts from).
fn base() -> serde_json::Value {
    serde_json::from_str(include_str!("../scenarios/cleanup-harness-min5-max10.json")).unwrap()
}

/// E1, E1b: user text in an error is quoted on one line, control characters escaped.
#[test]
fn user_text_in_errors_is_escaped_on_one_line() {
    let e1 = error(&fixture("E1-multiline-error-newline-in-column.json"));
    assert_eq!(e1, r"pipeline[0].group_by[0]: no column 'key\nsecond line' in source 'src' (columns: key)");
    let e1b = error(&fixture("E1b-raw-escape-in-error.json"));
    assert!(!e1b.contains('\u{1b}') && !e1b.contains('\n'), "{e1b:?}");
    assert!(e1b.contains(r"'key\u{1b}[2J\u{1b}[31mFAKE\u{1b}[0m'"), "{e1b}");
}

/// E2: a 1 MB unknown function name is not echoed back whole.
#[test]
fn long_user_text_is_shortened() {
    let mut d = base();
    d["pipeline"][0]["aggregates"][0]["function"] = json!("X".repeat(1 << 20));
    let err = error(&d.to_string());
    assert!(err.starts_with("pipeline[0].aggregates[0].function: unknown aggregate function 'XXXX"), "{err}");
    assert!(err.contains("(1048576 characters)") && err.len() < 300, "{} bytes", err.len());
}

/// E3: `1.0` is exactly 1 ms; `1.5` is still refused.
#[test]
fn a_whole_number_written_with_a_fraction_is_that_number() {
    let mut sim = Simulation::from_json(&fixture("E3-float-1.0-says-outside-range.json")).unwrap();
    sim.step().unwrap();
    assert_eq!(sim.now(), 1);
    let mut d = base();
    d["steps"][0]["at"] = json!(1.5);
    assert!(error(&d.to_string()).starts_with("steps[0].at: 1.5 is not a whole number of milliseconds"));
}

/// E4: an operator failure names the step that caused it.
#[test]
fn a_runtime_error_names_the_step() {
    let mut sim = Simulation::from_json(&fixture("E4-runtime-error-no-field-path.json")).unwrap();
    let err = sim.run_to_end().unwrap_err().0;
    assert!(err.starts_with("steps[1]: operator 'inner' failed on +I[dev1, 0, null]: LATEST_BY_TIME"), "{err}");
}

/// E5: a UTF-8 byte-order mark before the JSON is not part of it.
#[test]
fn a_byte_order_mark_is_skipped() {
    let text = fixture("E5-bom-then-valid-json.json");
    assert!(text.starts_with('\u{feff}'));
    assert_eq!(Scenario::from_json(&text).unwrap().name, "cleanup-harness-min5-max10");
}

/// A1: Flink's `TimeUtils.parseDuration` trims like Java (characters up to U+0020): a no-break
/// space is part of the unit label, which then matches no unit.
#[test]
fn a_no_break_space_in_a_duration_is_refused_as_flink_refuses_it() {
    let err = error(&fixture("A1-nbsp-duration-accepted.json"));
    assert!(
        err.starts_with(r"state_ttl: Time interval unit label '\u{a0}min' does not match any of the recognized units"),
        "{err}"
    );
}

/// How much longer `work(n)` takes than `work(n / 8)`: the best of three timings of each,
/// interleaved, so that a busy or slow machine slows both alike and the ratio does not depend on
/// its speed. Linear work takes about 8× as long; work that scans what it built so far at each
/// item (quadratic) 64×. `work` gets what `prepare` made for its size (not timed).
fn growth<T>(n: usize, prepare: impl Fn(usize) -> T, work: impl Fn(usize, T)) -> (f64, Duration, Duration) {
    let (mut small, mut big) = (Duration::MAX, Duration::MAX);
    for _ in 0..3 {
        for (size, best) in [(n / 8, &mut small), (n, &mut big)] {
            let input = prepare(size);
            let started = Instant::now();
            work(size, input);
            *best = (*best).min(started.elapsed());
        }
    }
    let ratio = big.as_secs_f64() / small.as_secs_f64().max(1e-6);
    eprintln!("growth: {n} took {big:?}, {} took {small:?}: {ratio:.1}×", n / 8);
    (ratio, small, big)
}

/// Below this ratio of [`growth`], work is taken as linear: 4× a linear ratio, half a quadratic one.
const LINEAR: f64 = 32.0;

/// H2a, H2b: validation is linear (150 k columns, 100 k aggregates took 10-11 s each when it was quadratic).
#[test]
fn validation_is_linear() {
    let columns = |n: usize| {
        let mut d = base();
        d["source"]["schema"] = json!((0..n).map(|i| json!([format!("c{i}"), "INT"])).collect::<Vec<_>>());
        d["pipeline"][0]["group_by"] = json!(["c0"]);
        d["steps"] = json!([]);
        d.to_string()
    };
    let aggregates = |n: usize| {
        let mut d = base();
        d["pipeline"][0]["aggregates"] = json!((0..n)
            .map(|i| json!({"function": "COUNT", "args": ["*"], "as": format!("c{i}")}))
            .collect::<Vec<_>>());
        d.to_string()
    };
    let valid = |_: usize, text: String| assert!(Scenario::from_json(&text).is_ok());
    // The repro's 100 k aggregates are 4.8 MB of JSON, over the 4 MiB a scenario text may be
    // (`MAX_SCENARIO_BYTES`): refused by its size before it is read. Validation's growth is
    // measured on the most that fits, 80 k (3.8 MB), against 10 k.
    let repro = aggregates(100_000);
    assert!(repro.len() > flink_state_sim::engine::scenario::MAX_SCENARIO_BYTES);
    let refused = Scenario::from_json(&repro).unwrap_err().to_string();
    assert!(refused.starts_with("scenario: the text is ") && refused.contains("4 MiB"), "{refused}");
    for (what, n, ratio) in [
        ("columns", 150_000, growth(150_000, columns, valid)),
        ("aggregates", 80_000, growth(80_000, aggregates, valid)),
    ] {
        assert!(ratio.0 < LINEAR, "{n} {what} took {:?}, {} took {:?}: {:.1}×", ratio.2, n / 8, ratio.1, ratio.0);
    }
}

/// H3: 60 k keys each seen once on the legacy planner, every cleanup timer firing at the end:
/// the cost per event does not grow with the keys (it took minutes when each firing scanned the result).
#[test]
fn many_keys_each_seen_once_run_in_linear_time() {
    let scenario = |n: usize| {
        let steps: Vec<serde_json::Value> = (0..n)
            .map(|i| json!({"at": i * 1000, "row": [format!("k{i}")]}))
            .chain([json!({"advance_by": "2 d"})])
            .collect();
        json!({"name": "h3", "flink": "1.10-legacy", "time_format": "millis",
            "idle_state_retention": {"min": "12 h", "max": "1 d"},
            "source": {"name": "src", "schema": [["key", "STRING"]]},
            "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["key"],
                          "aggregates": [{"function": "COUNT", "args": ["*"], "as": "cnt"}]}],
            "steps": steps})
        .to_string()
    };
    let run = |n: usize, text: String| {
        let mut sim = Simulation::with_options(Scenario::from_json(&text).unwrap(), metrics_only());
        sim.run_to_end().unwrap();
        assert_eq!((sim.result().len(), sim.result().stale_len()), (n, n), "every row went stale");
        assert_eq!(sim.sample_now().operators[0].keys, 0, "every key was cleaned up");
    };
    let (ratio, small, big) = growth(60_000, scenario, run);
    assert!(ratio < LINEAR, "60000 keys took {big:?}, 7500 took {small:?}: {ratio:.1}×");
}

/// H1: a 1000-operator chain at the `metrics` level keeps no trace (its memory follows the state,
/// not the events; the CLI at `full` streams the trace).
#[test]
fn a_long_chain_keeps_no_trace_at_the_metrics_level() {
    let d = {
        let mut d = base();
        let mut pipeline = vec![json!({"operator": "GroupAggregate", "id": "op0", "group_by": ["key"],
                                       "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c0"}]})];
        pipeline.extend((1..1000).map(|i| json!({"operator": "GroupAggregate", "id": format!("op{i}"), "group_by": [],
                                                  "aggregates": [{"function": "COUNT", "args": ["*"], "as": format!("c{i}")}]})));
        d["pipeline"] = json!(pipeline);
        d["steps"] = json!((0..60).map(|i| json!({"at": 1 + i, "row": [format!("k{}", i % 7)]})).collect::<Vec<_>>());
        d.to_string()
    };
    let mut sim = Simulation::with_options(Scenario::from_json(&d).unwrap(), metrics_only());
    sim.run_to_end().unwrap();
    assert!(sim.trace().is_empty());
    assert_eq!(sim.sample_now().operators.len(), 1000);
}

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flink-state-sim"))
}

/// P1: a full disk is one line and status 3 (P2: distinct from 1, an expectation that failed); a
/// closed pipe ends quietly with status 0.
#[test]
fn write_errors_do_not_panic() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = cli().args(["run", "--preset", "seed-001-one-day-two-days"]).stdout(full).output().unwrap();
    assert_eq!(o.status.code(), Some(3));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("cannot write the output: No space left on device"), "{err}");

    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = cli()
        .args(["run", "--preset", "seed-001-one-day-two-days"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
}
