//! The engine's hot paths, measured (`cargo bench`; the README's table lists the figures).
//!
//! (a) legacy cleanup timers, COUNT(*) GROUP BY key, 1 M events over 100 k keys, uniform;
//! (b) the same with Zipf 1.1; (c) Flink 2.3 two-level aggregation with state TTL, 1 M events;
//! (e) Flink 2.3 Top-3 per key with a rank column (`AppendOnlyTopNFunction`) and state TTL, 1 M
//! events over 100 k keys; (f) Flink 2.3 `SUM` per (key, item) then Top-3 items per key
//! (`RetractableTopNFunction`), 1 M events; (h) Flink 2.3 `COUNT` per never-seen key with a 1 s
//! state TTL on the heap backend, where `TtlIncrementalCleanup` removes the expired keys, 1 M of
//! the workload's 10 M events; each at the `metrics` trace level, and (a) at the
//! `full` level; (d) `seek` to random actions of a 100 k-event run. The same workloads run in headless Chromium on the wasm build:
//! `scripts/bench-wasm.sh`. (p) what the page asks of the engine at each render, on the preset
//! `what-if-100k-logins` stepped 10 k times with the page's options (full trace of the last 400
//! actions, time travel): the timeline's lanes, the retraction flow's provenance, the operator
//! cards' keys, the charts' series. (k) the bookmarks' look through a whole run
//! (`BookmarkScan`: full trace, every expiry told as it happens) of the preset
//! `what-if-100k-logins` made 1 M logins long (cleanup timers fire, users count as new again)
//! and of (c) (state TTL).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};
use std::time::Duration;

const A: &str = include_str!("scenarios/a-cleanup-timers-uniform.json");
const B: &str = include_str!("scenarios/b-cleanup-timers-zipf.json");
const C: &str = include_str!("scenarios/c-two-level-ttl.json");
const E: &str = include_str!("scenarios/e-top-n-append-ttl.json");
const F: &str = include_str!("scenarios/f-top-n-retract.json");
const H: &str = include_str!("scenarios/h-distinct-keys-short-ttl.json");
const J: &str = include_str!("scenarios/j-left-join-ttl.json");

fn one_way(level: TraceLevel) -> SimOptions {
    SimOptions { trace: level, keep_actions: None, time_travel: false }
}

/// Runs a scenario to its end; at the `full` level the trace is drained after every step, as
/// the CLI streams it.
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

fn workloads(c: &mut Criterion) {
    let mut g = c.benchmark_group("workload");
    g.sample_size(10).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(2));
    let h = H.replace("\"events\": 10000000", "\"events\": 1000000");
    for (name, json, level) in [
        ("a_cleanup_timers_uniform_metrics", A, TraceLevel::Metrics),
        ("b_cleanup_timers_zipf_metrics", B, TraceLevel::Metrics),
        ("c_two_level_ttl_metrics", C, TraceLevel::Metrics),
        ("a_cleanup_timers_uniform_full", A, TraceLevel::Full),
        ("e_top_n_append_ttl_metrics", E, TraceLevel::Metrics),
        ("f_top_n_retract_metrics", F, TraceLevel::Metrics),
        ("h_distinct_keys_incremental_cleanup_metrics", h.as_str(), TraceLevel::Metrics),
        ("j_left_join_ttl_metrics", J, TraceLevel::Metrics),
    ] {
        let scenario = Scenario::from_json(json).expect("benchmark scenario is valid");
        g.throughput(Throughput::Elements(scenario.step_count()));
        g.bench_function(name, |b| b.iter(|| run(&scenario, one_way(level))));
    }
    g.finish();
}

/// (k): the bookmarks of a whole run, as the page finds them (`BookmarkScan`, step by step).
fn bookmarks(c: &mut Criterion) {
    use flink_state_sim::engine::bookmarks::scan;
    let mut g = c.benchmark_group("bookmarks");
    g.sample_size(10).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(2));
    let logins =
        include_str!("../scenarios/what-if-100k-logins.json").replace("\"events\": 100000", "\"events\": 1000000");
    for (name, json) in [("k_bookmarks_1m_logins", logins.as_str()), ("k_bookmarks_c_two_level_ttl", C)] {
        let scenario = Scenario::from_json(json).expect("benchmark scenario is valid");
        g.throughput(Throughput::Elements(scenario.step_count()));
        g.bench_function(name, |b| b.iter(|| scan(&scenario, u64::MAX).count(None)));
    }
    g.finish();
}

/// (d): a 100 k-event run of (a)'s shape, then seeks to pseudo-random actions (a fixed LCG, so
/// every run measures the same positions).
fn seek(c: &mut Criterion) {
    let json = A.replace("\"events\": 1000000", "\"events\": 100000");
    let scenario = Scenario::from_json(&json).expect("valid");
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: Some(200), time_travel: true };
    let mut sim = Simulation::with_options(scenario, options);
    sim.run_to_end().expect("runs");
    let n = sim.action_count();
    let mut g = c.benchmark_group("seek");
    g.sample_size(50);
    let mut x: u64 = 12345;
    g.bench_function("d_seek_random_100k", |b| {
        b.iter_batched(
            || {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (x >> 33) as usize % n
            },
            |target| sim.seek(target).expect("seek"),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

/// (p): the engine's part of one page render after a Step, at 10 k steps of a 100 k-event run
/// over 20 k users (`src/ui`: `TRACE_WINDOW_ACTIONS` = 400, the operator cards' 50 keys).
fn page(c: &mut Criterion) {
    use flink_state_sim::engine::{chart, presets, provenance::Provenance, timeline};
    let json = presets::preset_json("what-if-100k-logins").expect("the preset exists");
    let scenario = Scenario::from_json(json).expect("valid");
    let options = SimOptions { trace: TraceLevel::Full, keep_actions: Some(400), time_travel: true };
    let mut sim = Simulation::with_options(scenario, options);
    for _ in 0..10_000 {
        sim.step().expect("runs");
    }
    let mut g = c.benchmark_group("page");
    g.bench_function("p_timeline_lanes", |b| b.iter(|| timeline::timeline_filtered(&sim, "").lanes.len()));
    g.bench_function("p_provenance", |b| b.iter(|| Provenance::of(&sim).rows.len()));
    g.bench_function("p_operator_cards", |b| b.iter(|| sim.operator_views_limited(50).len()));
    g.bench_function("p_charts", |b| b.iter(|| chart::operator_charts(&sim.metrics(), 0).len()));
    g.finish();
}

criterion_group!(benches, workloads, seek, page, bookmarks);
criterion_main!(benches);
