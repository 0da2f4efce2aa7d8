#![cfg(all(target_arch = "wasm32", feature = "wasm-bench"))]
//! The engine's hot paths on the wasm build, in headless Chromium: the workloads of the native
//! criterion benchmark (`benches/engine.rs`), timed with `performance.now()`.
//!
//! Run by `scripts/bench-wasm.sh` (release build, `--features wasm-bench`), never by the test
//! command. Each workload prints one machine-readable line through `console_log!`:
//!
//! ```text
//! BENCH <name> events=<n> runs=<k> best_secs=<s> median_secs=<s> best_events_per_sec=<r> median_events_per_sec=<r> all_secs=<s,s,..> work=<n>
//! BENCH d_seek_random_100k actions=<n> seeks=<k> median_ms=<ms> p90_ms=<ms> mean_ms=<ms> min_ms=<ms> max_ms=<ms>
//! ```
//!
//! `work` is what a run returns (trace entries drained plus result rows): the same natively, so a
//! wasm run is seen to do the whole workload.
//!
//! (a) legacy cleanup timers, COUNT(*) GROUP BY key, 1 M events over 100 k keys, uniform;
//! (b) the same with Zipf 1.1; (c) Flink 2.3 two-level aggregation with state TTL, 1 M events;
//! (e) and (f), Top-N; (j) Flink 2.3 `orders LEFT JOIN users` with state TTL, 1 M events;
//! each at the `metrics` trace level, and (a) at the `full` level (trace drained after every
//! step, as the bench and the CLI do); (d) `seek` to pseudo-random actions of a 100 k-event run
//! of (a)'s shape, the positions drawn by the bench's LCG; (k) the bookmarks' look through the
//! whole run of `what-if-100k-logins` made 1 M logins long and of (c).

use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const A: &str = include_str!("../benches/scenarios/a-cleanup-timers-uniform.json");
const B: &str = include_str!("../benches/scenarios/b-cleanup-timers-zipf.json");
const C: &str = include_str!("../benches/scenarios/c-two-level-ttl.json");
const E: &str = include_str!("../benches/scenarios/e-top-n-append-ttl.json");
const F: &str = include_str!("../benches/scenarios/f-top-n-retract.json");
const J: &str = include_str!("../benches/scenarios/j-left-join-ttl.json");

/// Timed runs of each 1 M-event workload; the best and the median are reported.
const RUNS: usize = 3;
/// Timed seeks in (d), after [`SEEK_WARMUP`] untimed ones.
const SEEKS: usize = 50;
const SEEK_WARMUP: usize = 5;

// `performance.now()` bound directly: the crate's web-sys build does not enable the
// `Performance` feature, and `Date.now()` has only millisecond resolution.
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

fn one_way(level: TraceLevel) -> SimOptions {
    SimOptions { trace: level, keep_actions: None, time_travel: false }
}

/// Runs a scenario to its end, as the native bench does; at the `full` level the trace is
/// drained after every step. Returns a count that depends on the work (so none is skipped).
fn run(scenario: &Scenario, options: SimOptions) -> u64 {
    let mut sim = Simulation::with_options(scenario.clone(), options);
    let mut entries = 0u64;
    while !sim.is_finished() {
        sim.step().expect("the workload runs");
        if options.trace == TraceLevel::Full {
            entries += sim.drain_trace().len() as u64;
        }
    }
    entries + sim.result().len() as u64
}

/// Lets the page breathe between timed runs: the runner's output scraping and the console
/// stream get a turn, so progress shows while the benchmark runs.
async fn yield_to_browser() {
    TimeoutFuture::new(0).await;
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(|a, b| a.partial_cmp(b).expect("times are numbers"));
    v
}

/// The median of sorted values (mean of the middle two for an even count).
fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The nearest-rank percentile `p` (0..=100) of sorted values.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Steps between two turns of the browser in [`run_yielding`].
const CHUNK_STEPS: usize = 50_000;

/// [`run`] in chunks of [`CHUNK_STEPS`], the browser getting a turn between them, for a workload
/// whose run takes longer than ChromeDriver waits for a busy renderer (30 s: "Timed out
/// receiving message from renderer", and the runner fails). Returns the work and the seconds
/// spent in the chunks (the turns are not counted).
async fn run_yielding(scenario: &Scenario, options: SimOptions) -> (u64, f64) {
    let start = performance_now();
    let mut sim = Simulation::with_options(scenario.clone(), options);
    let mut ms = performance_now() - start;
    while !sim.is_finished() {
        yield_to_browser().await;
        let start = performance_now();
        for _ in 0..CHUNK_STEPS {
            if sim.is_finished() {
                break;
            }
            sim.step().expect("the workload runs");
        }
        ms += performance_now() - start;
    }
    (sim.result().len() as u64, ms / 1000.0)
}

/// Notes run `i`'s seconds, checking that every run did the same work `out`.
fn record(name: &str, i: usize, out: u64, secs: f64, check: &mut Option<u64>, all: &mut Vec<f64>) {
    assert_eq!(*check.get_or_insert(out), out, "{name}: run {i} differs");
    console_log!("bench-progress {name} run={} secs={secs:.3}", i + 1);
    all.push(secs);
}

/// The `BENCH` line of a workload's runs.
fn report(name: &str, events: u64, secs: Vec<f64>, work: u64) {
    let all = secs.iter().map(|s| format!("{s:.3}")).collect::<Vec<_>>().join(",");
    let by_time = sorted(secs);
    let (best, med) = (by_time[0], median(&by_time));
    console_log!(
        "BENCH {name} events={events} runs={RUNS} best_secs={best:.3} median_secs={med:.3} \
         best_events_per_sec={:.0} median_events_per_sec={:.0} all_secs={all} work={work}",
        events as f64 / best,
        events as f64 / med,
    );
}

async fn workload(name: &str, json: &str, level: TraceLevel) {
    timed_workload(name, json, level, false).await;
}

/// `chunked`: run with [`run_yielding`] (at the `metrics` level only).
async fn timed_workload(name: &str, json: &str, level: TraceLevel, chunked: bool) {
    let scenario = Scenario::from_json(json).expect("benchmark scenario is valid");
    let events = scenario.step_count();
    let mut secs = Vec::with_capacity(RUNS);
    let mut check = None;
    for i in 0..RUNS {
        yield_to_browser().await;
        let (out, s) = if chunked {
            assert_eq!(level, TraceLevel::Metrics, "{name}: chunked runs drain no trace");
            run_yielding(&scenario, one_way(level)).await
        } else {
            let start = performance_now();
            let out = run(&scenario, one_way(level));
            (out, (performance_now() - start) / 1000.0)
        };
        record(name, i, out, s, &mut check, &mut secs);
    }
    report(name, events, secs, check.expect("at least one run"));
}

#[wasm_bindgen_test]
async fn a_cleanup_timers_uniform_metrics() {
    workload("a_cleanup_timers_uniform_metrics", A, TraceLevel::Metrics).await;
}

#[wasm_bindgen_test]
async fn b_cleanup_timers_zipf_metrics() {
    workload("b_cleanup_timers_zipf_metrics", B, TraceLevel::Metrics).await;
}

#[wasm_bindgen_test]
async fn c_two_level_ttl_metrics() {
    workload("c_two_level_ttl_metrics", C, TraceLevel::Metrics).await;
}

#[wasm_bindgen_test]
async fn a_cleanup_timers_uniform_full() {
    workload("a_cleanup_timers_uniform_full", A, TraceLevel::Full).await;
}

#[wasm_bindgen_test]
async fn e_top_n_append_ttl_metrics() {
    workload("e_top_n_append_ttl_metrics", E, TraceLevel::Metrics).await;
}

#[wasm_bindgen_test]
async fn f_top_n_retract_metrics() {
    workload("f_top_n_retract_metrics", F, TraceLevel::Metrics).await;
}

#[wasm_bindgen_test]
async fn j_left_join_ttl_metrics() {
    // 25–35 s a run: in chunks, or ChromeDriver gives up on the busy renderer.
    timed_workload("j_left_join_ttl_metrics", J, TraceLevel::Metrics, true).await;
}

/// (k): the bookmarks' look through a whole run (`BookmarkScan`) of the preset
/// `what-if-100k-logins` made 1 M logins long and of (c), in chunks as the page runs it (the
/// browser's turns not counted).
async fn bookmarks(name: &str, json: &str) {
    use flink_state_sim::engine::bookmarks::BookmarkScan;
    let scenario = Scenario::from_json(json).expect("benchmark scenario is valid");
    let events = scenario.step_count();
    let mut secs = Vec::with_capacity(RUNS);
    let mut check = None;
    for i in 0..RUNS {
        yield_to_browser().await;
        let mut ms = 0.0;
        let mut scan = BookmarkScan::new(&scenario);
        while !scan.is_finished() {
            yield_to_browser().await;
            let start = performance_now();
            for _ in 0..CHUNK_STEPS {
                if !scan.step() {
                    break;
                }
            }
            ms += performance_now() - start;
        }
        record(name, i, scan.bookmarks().count(None), ms / 1000.0, &mut check, &mut secs);
    }
    report(name, events, secs, check.expect("at least one run"));
}

#[wasm_bindgen_test]
async fn k_bookmarks_1m_logins() {
    let json =
        include_str!("../scenarios/what-if-100k-logins.json").replace("\"events\": 100000", "\"events\": 1000000");
    bookmarks("k_bookmarks_1m_logins", &json).await;
}

#[wasm_bindgen_test]
async fn k_bookmarks_c_two_level_ttl() {
    bookmarks("k_bookmarks_c_two_level_ttl", C).await;
}

/// (d): a 100 k-event run of (a)'s shape with time travel, then seeks to pseudo-random actions
/// drawn by the bench's LCG (same seed and constants, so every run measures the same positions).
#[wasm_bindgen_test]
async fn d_seek_random_100k() {
    let json = A.replace("\"events\": 1000000", "\"events\": 100000");
    assert_ne!(json, A, "the (a) scenario still says \"events\": 1000000");
    let scenario = Scenario::from_json(&json).expect("valid");
    let events = scenario.step_count();
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: Some(200), time_travel: true };
    let mut sim = Simulation::with_options(scenario, options);
    let start = performance_now();
    sim.run_to_end().expect("runs");
    let setup = (performance_now() - start) / 1000.0;
    console_log!(
        "BENCH d_setup_run_to_end_100k events={events} secs={setup:.3} events_per_sec={:.0}",
        events as f64 / setup
    );
    let n = sim.action_count();
    let mut x: u64 = 12345;
    let mut next_target = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) as usize % n
    };
    for _ in 0..SEEK_WARMUP {
        sim.seek(next_target()).expect("seek");
    }
    let mut ms = Vec::with_capacity(SEEKS);
    for _ in 0..SEEKS {
        let target = next_target();
        let start = performance_now();
        sim.seek(target).expect("seek");
        ms.push(performance_now() - start);
        assert_eq!(sim.action_count(), target);
    }
    let mean = ms.iter().sum::<f64>() / ms.len() as f64;
    let ms = sorted(ms);
    console_log!(
        "BENCH d_seek_random_100k actions={n} seeks={SEEKS} median_ms={:.3} p90_ms={:.3} mean_ms={mean:.3} \
         min_ms={:.3} max_ms={:.3}",
        median(&ms),
        percentile(&ms, 90.0),
        ms[0],
        ms[ms.len() - 1],
    );
}
