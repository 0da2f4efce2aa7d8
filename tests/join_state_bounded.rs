#![cfg(not(target_arch = "wasm32"))]
//! A join's state follows its live records, never the number of events: with state TTL each
//! side keeps what arrived within the TTL (plus what the background cleanup has not reached),
//! so after the first TTL the stored records stay level however long the run goes (benchmark
//! (j)'s shape, scaled down for a debug build).

use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};

#[test]
fn join_state_stays_level_under_state_ttl() {
    let json =
        std::fs::read_to_string(format!("{}/benches/scenarios/j-left-join-ttl.json", env!("CARGO_MANIFEST_DIR")))
            .unwrap()
            .replace("\"state_ttl\": \"30 s\"", "\"state_ttl\": \"1 s\"")
            .replace("\"events\": 1000000", "\"events\": 60000")
            .replace("\"rate\": 10000", "\"rate\": 5000")
            .replace("\"keys\": 100000", "\"keys\": 5000");
    let scenario = Scenario::from_json(&json).unwrap();
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(scenario, options);
    sim.run_to_end().unwrap();
    assert_eq!(sim.inputs(), 60_000);
    let samples = sim.metrics();
    let stored_at = |ms: i64| {
        let s = samples.iter().find(|s| s.time_ms >= ms).expect("a sample");
        s.operators[0].entries_stored
    };
    // 5 000 events a second for 12 s; the TTL is 1 s: about 5 000 live records.
    let (early, late) = (stored_at(4_000), stored_at(11_000));
    assert!((3_000..=12_000).contains(&early), "records stored at 4 s: {early}");
    assert!(late <= early * 3 / 2 && early <= late * 3 / 2, "stored records 4 s: {early}, 11 s: {late}");
    let peak = sim.peaks()[0].entries_stored.value;
    eprintln!("join records stored: 4 s {early}, 11 s {late}, peak {peak}");
    assert!(peak < 15_000, "peak stored records {peak} for 60 000 events");
}
