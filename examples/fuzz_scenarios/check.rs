//! What one case checks. A rejected scenario: its error is one line without raw control or
//! invisible characters (the message contract). A valid one is run four ways that must agree:
//! step by step with the trace streamed out as the CLI does (A), at the `metrics` level without
//! time travel (B), by `run_to_end` with the trace kept (C), and A again after going back by
//! time travel (`seek`, `step_back`, `go_to`); every output the CLI and the page render from a
//! run is rendered (text and JSONL trace lines, the summary, the metrics as JSON, the result,
//! operator views, the state dump, the plans), and `check --draft`'s `expect` block must pass
//! `check` when put back into the scenario.

use flink_state_sim::engine::scenario::what_if::{what_if_scenario, WhatIf};
use flink_state_sim::engine::simulation::{Action, SimOptions};
use flink_state_sim::engine::{expect, explain, scenario, summary, Scenario, Simulation, TraceLevel};
use rand::RngExt;
use rand_pcg::Pcg64Mcg as Rng;
use serde::{Deserialize, Serialize};

/// The most steps a valid scenario runs (a longer one runs its first `MAX_STEPS`).
pub const MAX_STEPS: u64 = 300;

/// A broken promise found in a case.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Failure {
    /// `panic`, `crash`, `hang`, `message`, `trace-level`, `run-all` (also determinism: a
    /// second run), `time-travel`, `expect`, `what-if`, `render`, `cli`.
    pub class: String,
    pub detail: String,
}

fn fail(out: &mut Vec<Failure>, class: &str, detail: impl Into<String>) {
    out.push(Failure { class: class.into(), detail: detail.into() });
}

/// Why `text` breaks the message contract (one line, no raw control or invisible characters,
/// a bounded length), if it does.
pub fn message_problem(text: &str) -> Option<String> {
    if text.is_empty() {
        return Some("empty message".into());
    }
    if let Some(c) = text.chars().find(|&c| bad_char(c)) {
        return Some(format!("raw U+{:04X} in the message", c as u32));
    }
    let n = text.chars().count();
    (n > 2000).then(|| format!("a {n}-character message"))
}

/// A control character, or an invisible one that changes how the line reads (bidi controls,
/// zero-width characters, a BOM).
pub fn bad_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// What a valid scenario's run looked like, for the statistics.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct RunInfo {
    pub classes: Vec<String>,
    pub steps: u64,
    /// An operator failed (where Flink would throw): the run stopped there.
    pub stopped: bool,
}

/// The driving actions after the steps: the same for every run of the case.
fn extra_actions(rng: &mut Rng) -> Vec<Action> {
    let durations = [1, 5, 1000, 86_400_000, 300_000];
    (0..rng.random_range(0..4))
        .map(|_| match rng.random_range(0..3) {
            0 => Action::AdvanceBy(durations[rng.random_range(0..durations.len())]),
            1 => Action::NextTimer,
            _ => Action::AdvanceTo(rng.random_range(0..4_000_000_000i64)),
        })
        .collect()
}

/// Runs `steps` steps then `actions`; step errors end the steps. Errors are checked against the
/// message contract.
fn drive(sim: &mut Simulation, steps: u64, actions: &[Action], stream: bool, out: &mut Vec<Failure>) -> Vec<String> {
    let mut lines = Vec::new();
    let note = |e: &str, out: &mut Vec<Failure>| {
        if let Some(p) = message_problem(e) {
            fail(out, "message", format!("step error: {p}: {}", shorten(e)));
        }
    };
    for _ in 0..steps {
        let stepped = sim.step();
        if stream {
            lines.extend(sim.drain_trace().map(|e| format!("{e:?}")));
        }
        if let Err(e) = stepped {
            note(&e.0, out);
            break;
        }
    }
    for a in actions {
        if sim.failure().is_some() {
            break;
        }
        if let Err(e) = sim.act(*a) {
            note(&e.0, out);
        }
        if stream {
            lines.extend(sim.drain_trace().map(|e| format!("{e:?}")));
        }
    }
    lines
}

/// The observable end state of a run: its state dump, result, metrics and failure.
fn fingerprint(sim: &Simulation) -> String {
    let rows: Vec<String> = sim.result().rows().map(|r| format!("{:?}{:?}", r.row, r.stale_since_ms)).collect();
    format!("{}\n{rows:?}\n{:?}\n{:?}\n{}", sim.state_dump(), sim.metrics(), sim.failure(), sim.now())
}

/// The part of a failure's detail that names it (numbers and quoted text vary between cases):
/// failures with the same signature are one finding.
pub fn signature(f: &Failure) -> String {
    let first: String = f.detail.lines().take(2).collect::<Vec<_>>().join(" ");
    let mut s: String = first.chars().take(90).collect();
    if f.class != "panic" && f.class != "crash" {
        s = s.chars().map(|c| if c.is_ascii_digit() { '#' } else { c }).collect();
        if let Some(i) = s.find(": ") {
            s.truncate(i.max(20).min(s.len()));
        }
    }
    s
}

pub fn shorten(text: &str) -> String {
    let s: String = text.chars().take(300).collect();
    if s.len() < text.len() {
        format!("{s}…")
    } else {
        s
    }
}

fn options(trace: TraceLevel, time_travel: bool) -> SimOptions {
    SimOptions { trace, keep_actions: None, time_travel }
}

/// Renders everything the CLI and the page show of `sim` (A: full trace, kept or streamed).
fn render(sim: &Simulation, entries: &[flink_state_sim::engine::trace::TraceEntry], out: &mut Vec<Failure>) {
    let tf = sim.time_format();
    // The text lines are rendered (no panic); what reaches a terminal is the CLI's to escape, and
    // is checked on the CLI's own output (cli.rs).
    for e in entries {
        let _ = e.text_line(tf);
        match serde_json::to_string(&e.record(tf)) {
            Ok(j) if serde_json::from_str::<serde_json::Value>(&j).is_ok() => {}
            other => fail(out, "render", format!("jsonl record not JSON: {other:?}")),
        }
    }
    let _ = summary::run_summary(sim, 0.5);
    for s in sim.metrics() {
        if serde_json::to_value(&s).is_err() {
            fail(out, "render", "a metrics sample does not serialize");
        }
    }
    let _ = sim.operator_views_limited(50);
    let _ = (explain::source_plan(sim.scenario()), explain::sink_plan(sim.scenario()));
    let _ = scenario::describe_retentions(sim.scenario());
    let _ = (sim.peaks(), sim.sample_now(), sim.next_step_ms(), sim.step_blocked(), sim.next_timer_ms());
}

/// Runs and cross-checks a valid scenario.
pub fn valid_case(text: &str, s: &Scenario, rng: &mut Rng, out: &mut Vec<Failure>) -> RunInfo {
    let steps = s.step_count().min(MAX_STEPS);
    let actions = extra_actions(rng);
    // A: step by step, the trace streamed out after each step (the CLI), time travel on.
    let mut a = Simulation::with_options(s.clone(), options(TraceLevel::Full, true));
    let streamed = drive(&mut a, steps, &actions, true, out);
    let info = RunInfo {
        classes: a.flink_classes().iter().map(|c| c.to_string()).collect(),
        steps: a.next_step(),
        stopped: a.failure().is_some(),
    };
    let end = fingerprint(&a);
    // C: run to the end in one call when the scenario is short, the trace kept whole.
    let mut c = Simulation::with_options(s.clone(), options(TraceLevel::Full, false));
    if s.step_count() <= MAX_STEPS {
        let _ = c.run_to_end();
        drive(&mut c, 0, &actions, false, out);
    } else {
        drive(&mut c, steps, &actions, false, out);
    }
    let kept: Vec<String> = c.trace().iter().map(|e| format!("{e:?}")).collect();
    if kept != streamed {
        let i = kept.iter().zip(&streamed).position(|(x, y)| x != y).unwrap_or(kept.len().min(streamed.len()));
        let (x, y) = (kept.get(i).map_or("(none)", |s| s.as_str()), streamed.get(i).map_or("(none)", |s| s.as_str()));
        fail(out, "run-all", format!("trace entry {i}: run_to_end {} vs stepped {}", shorten(x), shorten(y)));
    } else if fingerprint(&c) != end {
        fail(out, "run-all", "run_to_end and stepping end in different states");
    }
    render(&c, c.trace(), out);
    // B: the metrics level, no time travel: the same state, result and metrics.
    let mut b = Simulation::with_options(s.clone(), options(TraceLevel::Metrics, false));
    drive(&mut b, steps, &actions, false, out);
    if fingerprint(&b) != end {
        fail(out, "trace-level", "the metrics level ends in another state than the full trace");
    }
    // Time travel on A: back to a random position, then forward again.
    let n = a.action_count();
    if n > 0 {
        let k = rng.random_range(0..n);
        match a.seek(k) {
            Ok(()) => {
                let mut fresh = Simulation::with_options(s.clone(), options(TraceLevel::Full, false));
                for act in a.history()[..k].iter().copied() {
                    let _ = fresh.act(act);
                }
                if fingerprint(&fresh) != fingerprint(&a) {
                    fail(out, "time-travel", format!("seek({k}) of {n} differs from a straight run of {k} actions"));
                }
            }
            Err(e) => fail(out, "time-travel", format!("seek({k}) of {n}: {}", e.0)),
        }
        let _ = a.step_back();
        match a.go_to(n) {
            Ok(()) if fingerprint(&a) != end => {
                fail(out, "time-travel", format!("go_to({n}) after seek does not restore the end"))
            }
            Ok(()) => {}
            Err(e) if info.stopped => drop(e),
            Err(e) => fail(out, "time-travel", format!("go_to({n}): {}", e.0)),
        }
    }
    // `check --draft`'s expect block, put back, must pass `check`.
    if s.step_count() <= MAX_STEPS && s.expect.is_empty() && rng.random_bool(0.2) {
        match expect::observed(s.clone()) {
            Ok(block) => {
                if let Ok(serde_json::Value::Object(mut obj)) =
                    serde_json::from_str(text.trim_start_matches('\u{feff}'))
                {
                    obj.insert("expect".into(), block);
                    let with = serde_json::Value::Object(obj).to_string();
                    if let Err(d) = expect::check_text(&with) {
                        fail(out, "expect", format!("check fails on its own draft: {}", shorten(&d)));
                    }
                }
            }
            Err(e) if info.stopped => drop(e),
            Err(e) => fail(out, "expect", format!("check --draft failed: {}", shorten(&e))),
        }
    }
    // The page's what-if form: prefilled from the scenario, written back, read again.
    // (A scenario whose columns are all BOOLEAN has no key column: its refusal is right.)
    let keyable = s.source().columns.iter().any(|c| c.data_type != flink_state_sim::engine::row::DataType::Boolean);
    if rng.random_bool(0.05) && keyable {
        if let Ok(form) = WhatIf::for_scenario(text) {
            match what_if_scenario(text, &form).map(|t| Scenario::from_json(&t)) {
                Ok(Ok(_)) => {}
                Ok(Err(e)) | Err(e) => fail(out, "what-if", format!("the prefilled what-if form is refused: {e}")),
            }
        }
    }
    info
}
