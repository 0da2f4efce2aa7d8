//! A fuzzer for the whole scenario format, the engine and the command line:
//!
//! ```text
//! cargo run --profile fuzz --example fuzz_scenarios -- [CASES] [--seed S]    # default 1000000
//! cargo run --profile fuzz --example fuzz_scenarios -- --case N [--seed S]    # rerun one case
//! ```
//!
//! Most cases are scenarios generated to be valid (gen_scenario.rs: a schema, a pipeline of any
//! operator kind whose columns exist, in any Flink mode, with mini-batch, per-operator TTLs,
//! workloads, Calc SQL from a grammar, gen_sql.rs), then optionally mutated (mutate.rs); they
//! reach the engine as a file, a permalink or a `--flink` rewrite (case.rs) and are checked
//! (check.rs: the message contract; for valid ones determinism, step-by-step = run-all, trace
//! levels, time travel, every rendering, `check --draft` round trip); a sample goes through the
//! CLI binary (cli.rs). Each case draws from its own seed, so `--case N` reruns it alone.
//!
//! The cases run in a worker process (this program with `--worker`), under a 3 GB address-space
//! limit, on a thread with the page's 1 MiB stack: a stack overflow, an abort or an allocation
//! failure ends the worker, and the supervisor records the case and starts a new worker after it;
//! a case running over 30 s is killed and recorded. The report lists the shares of cases that
//! validate and run, by origin, mode, operator kind, Flink class and feature, and every failure
//! with its rerun command and a minimized input; the last line is `N passed, M failed` (M: cases
//! with a failure), and the exit status is 1 when M > 0.
//!
//! The `fuzz` profile (Cargo.toml) is release with overflow checks and debug assertions. A long
//! run writes its report so far every 30 s to the file `FUZZ_PARTIAL_REPORT` names, if set.
//! `--rejections N` lists why the generator's own (unmutated) scenarios are rejected.

mod case;
mod check;
mod cli;
mod gen_scenario;
mod gen_sql;
mod mutate;
mod reduce;
mod report;

use case::{case_rng, make_input, Outcome};
use check::Failure;
use rand::RngExt;
use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A case running longer than this is killed and recorded as hung.
const HANG: Duration = Duration::from_secs(30);
/// The worker's address-space limit (KiB).
const MEMORY_KIB: u64 = 3 << 20;
/// The share of cases also run through the CLI binary.
const CLI_SHARE: f64 = 0.03;

struct Args {
    cases: u64,
    seed: u64,
    case: Option<u64>,
    worker: Option<u64>,
    cli: Option<PathBuf>,
    stack_kib: usize,
}

fn parse_args() -> Args {
    let mut a = Args { cases: 1_000_000, seed: 1, case: None, worker: None, cli: None, stack_kib: 1024 };
    let sibling = std::env::current_exe().ok().and_then(|e| Some(e.parent()?.parent()?.join("flink-state-sim")));
    a.cli = sibling.filter(|p| p.exists());
    let mut it = std::env::args().skip(1);
    let num = |v: Option<String>, what: &str| -> u64 {
        v.and_then(|v| v.replace('_', "").parse().ok()).unwrap_or_else(|| panic!("{what}: expected a number"))
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seed" => a.seed = num(it.next(), "--seed"),
            "--case" => a.case = Some(num(it.next(), "--case")),
            "--worker" => a.worker = Some(num(it.next(), "--worker")),
            "--cli" => a.cli = it.next().map(PathBuf::from),
            "--no-cli" => a.cli = None,
            "--stack-kib" => a.stack_kib = num(it.next(), "--stack-kib") as usize,
            n => a.cases = num(Some(n.to_string()), "CASES"),
        }
    }
    a
}

thread_local! {
    /// The message and location of the last panic (the hook records it; nothing is printed).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs case `case` in this process: its input, its outcome (a panic caught) and the CLI sample.
fn run_case(a: &Args, case: u64, text_override: Option<&str>) -> (Outcome, Option<String>) {
    let mut rng = case_rng(a.seed, case);
    let mut input = make_input(&mut rng);
    if let Some(t) = text_override {
        input.text = Some(t.to_string());
    }
    let mut run_rng = case_rng(a.seed.wrapping_add(1), case);
    let t0 = Instant::now();
    let result = panic::catch_unwind(AssertUnwindSafe(|| case::run(&input, &mut run_rng)));
    let mut outcome = result.unwrap_or_else(|_| {
        let message = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "(no message)".into());
        let mut o = Outcome { origin: input.origin.into(), carrier: input.carrier.into(), ..Outcome::default() };
        o.failures.push(Failure { class: "panic".into(), detail: message });
        o
    });
    if let (Some(bin), Some(text)) = (&a.cli, &input.text) {
        if text_override.is_none() && run_rng.random_bool(CLI_SHARE) {
            // The CLI runs a scenario to its end: only short ones.
            let parsed = flink_state_sim::engine::Scenario::from_json(text);
            let expect_ok = match &parsed {
                Ok(s) if s.step_count() > 2000 => None,
                Ok(s) => Some(Some(flink_state_sim::engine::Simulation::new(s.clone()).run_to_end().is_ok())),
                Err(_) => Some(None),
            };
            if let Some(expect_ok) = expect_ok {
                let dir = std::env::temp_dir().join(format!("fuzz-scenarios-{}", std::process::id()));
                let _ = std::fs::create_dir_all(&dir);
                outcome.cli = Some(cli::run(bin, &dir, text, expect_ok, &mut run_rng, &mut outcome.failures));
            }
        }
    }
    outcome.ms = t0.elapsed().as_secs_f64() * 1000.0;
    (outcome, input.text)
}

/// The smallest input that fails like `outcome` did (same class; a panic at the same place).
fn minimize(a: &Args, case: u64, text: &str, outcome: &Outcome) -> Option<String> {
    let target = outcome.failures.iter().find(|f| f.class != "cli")?.clone();
    let same = |f: &Failure| {
        f.class == target.class && (f.class != "panic" || f.detail.lines().next() == target.detail.lines().next())
    };
    let pretty = text.contains('\n');
    Some(reduce::reduce(text, pretty, |t| run_case(a, case, Some(t)).0.failures.iter().any(same)))
}

/// The worker: runs cases `from..cases`, one JSON line per case on standard output.
fn worker(a: Args, from: u64) {
    panic::set_hook(Box::new(|info| LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()))));
    let stack = a.stack_kib * 1024;
    let handle = std::thread::Builder::new().stack_size(stack).spawn(move || {
        let mut out = std::io::stdout().lock();
        // Failures already minimized by this worker (the first of each kind is).
        let mut minimized = std::collections::HashSet::new();
        for case in from..a.cases {
            let (outcome, text) = run_case(&a, case, None);
            let new = outcome.failures.iter().any(|f| minimized.insert((f.class.clone(), check::signature(f))));
            let minimal = if new { text.as_deref().and_then(|t| minimize(&a, case, t, &outcome)) } else { None };
            let line = serde_json::json!({"case": case, "outcome": outcome, "minimal": minimal});
            // One write per case, unbuffered: after a crash the supervisor knows every case before.
            if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                return;
            }
        }
    });
    let _ = handle.expect("start the worker thread").join();
}

/// The input of case `case`, regenerated (for a crash or a hang, which the worker cannot report).
fn input_text(a: &Args, case: u64) -> String {
    make_input(&mut case_rng(a.seed, case)).text.unwrap_or_else(|| "(the link does not decode)".into())
}

fn supervise(a: &Args) -> u64 {
    let exe = std::env::current_exe().expect("this program's path");
    let reproduce = "cargo run --profile fuzz --example fuzz_scenarios -- --seed ".to_string() + &a.seed.to_string();
    let mut stats = report::Stats::default();
    let started = Instant::now();
    let mut last_note = Instant::now();
    let mut next = 0u64;
    while next < a.cases {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &format!("ulimit -v {MEMORY_KIB}; exec \"$0\" \"$@\""), exe.to_str().unwrap()]);
        cmd.args([a.cases.to_string(), "--seed".into(), a.seed.to_string(), "--worker".into(), next.to_string()]);
        cmd.args(["--stack-kib".to_string(), a.stack_kib.to_string()]);
        match &a.cli {
            Some(p) => cmd.arg("--cli").arg(p),
            None => cmd.arg("--no-cli"),
        };
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("start a worker");
        let (tx, rx) = mpsc::channel();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let err_reader = std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = stderr.read_to_end(&mut b);
            String::from_utf8_lossy(&b[b.len().saturating_sub(2000)..]).into_owned()
        });
        let lost = loop {
            match rx.recv_timeout(HANG) {
                Ok(line) => {
                    let v: serde_json::Value = serde_json::from_str(&line).expect("a worker line");
                    let case = v["case"].as_u64().unwrap();
                    let o: Outcome = serde_json::from_value(v["outcome"].clone()).expect("an outcome");
                    let minimal = v["minimal"].as_str().map(str::to_string);
                    stats.add(case, &o, || minimal.unwrap_or_else(|| input_text(a, case)));
                    next = case + 1;
                    if last_note.elapsed() > Duration::from_secs(30) {
                        let secs = started.elapsed().as_secs_f64();
                        eprintln!(
                            "  … {next} cases, {} valid, {} failed, {:.0} cases/s",
                            stats.valid(),
                            stats.failed_cases,
                            next as f64 / secs
                        );
                        last_note = Instant::now();
                        // A long run leaves its report so far where FUZZ_PARTIAL_REPORT says.
                        if let Some(path) = std::env::var_os("FUZZ_PARTIAL_REPORT") {
                            let _ = std::fs::write(path, stats.render(a.seed, secs, &reproduce));
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    break Some(Failure {
                        class: "hang".into(),
                        detail: format!("no result within {} s", HANG.as_secs()),
                    });
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            }
        };
        let status = child.wait().expect("wait for the worker");
        let tail = err_reader.join().unwrap_or_default();
        let lost = lost.or_else(|| {
            (next < a.cases)
                .then(|| Failure { class: "crash".into(), detail: format!("worker ended ({status}): {}", tail.trim()) })
        });
        if let Some(f) = lost {
            let o = Outcome { failures: vec![f], origin: "?".into(), carrier: "?".into(), ..Outcome::default() };
            stats.add(next, &o, || input_text(a, next));
            next += 1;
        }
    }
    print!("{}", stats.render(a.seed, started.elapsed().as_secs_f64(), &reproduce));
    let failed = stats.failed_cases;
    println!("{} passed, {failed} failed", stats.cases() - failed);
    failed
}

/// `--rejections N`: why the generator's own scenarios (unmutated) are rejected, most common
/// first: what to fix in gen_scenario.rs when the valid share drops.
fn rejections(n: u64) {
    let mut by: std::collections::BTreeMap<String, (u64, String)> = Default::default();
    for case in 0..n {
        let v = gen_scenario::scenario(&mut case_rng(7, case));
        if let Err(e) = flink_state_sim::engine::Scenario::from_json(&v.to_string()) {
            let key: String = e.to_string().chars().filter(|c| !c.is_ascii_digit()).take(110).collect();
            by.entry(key).or_insert((0, e.to_string())).0 += 1;
        }
    }
    let mut rows: Vec<_> = by.into_iter().collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.1 .0));
    println!("{} of {n} generated scenarios rejected", rows.iter().map(|r| r.1 .0).sum::<u64>());
    for (_, (count, example)) in rows.iter().take(25) {
        println!("{count:>6}  {}", check::shorten(example));
    }
}

fn main() {
    if let Some(n) = std::env::args().skip_while(|a| a != "--rejections").nth(1) {
        return rejections(n.parse().expect("--rejections N"));
    }
    let a = parse_args();
    if let Some(from) = a.worker {
        return worker(a, from);
    }
    if let Some(case) = a.case {
        panic::set_hook(Box::new(|info| LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()))));
        let (outcome, text) = run_case(&a, case, None);
        println!("{}", text.as_deref().unwrap_or("(the link does not decode)"));
        println!("{}", serde_json::to_string_pretty(&outcome).unwrap());
        if let (false, Some(t)) = (outcome.failures.is_empty(), &text) {
            println!("minimal input:\n{}", minimize(&a, case, t, &outcome).unwrap_or_default());
        }
        std::process::exit(i32::from(!outcome.failures.is_empty()));
    }
    if supervise(&a) > 0 {
        std::process::exit(1);
    }
}
