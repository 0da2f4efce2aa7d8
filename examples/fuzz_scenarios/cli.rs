//! The command line on a sample of cases: `flink-state-sim run FILE` with a random `--trace`,
//! `--format` and `--flink`, checked for its exit status (0 ran, 2 refused or failed while
//! running; never a panic or a signal), its standard error (empty after a clean run, else one
//! line that keeps the message contract) and its standard output (every JSONL line JSON, every
//! CSV record as wide as the header, text lines without raw control characters).

use crate::check::{bad_char, message_problem, shorten, Failure};
use rand::seq::IndexedRandom;
use rand::RngExt;
use rand_pcg::Pcg64Mcg as Rng;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one CLI run may take before it counts as hung.
const LIMIT: Duration = Duration::from_secs(20);

/// Runs the CLI at `bin` on `text`; returns the options used, and adds what went wrong.
/// `expect_ok`: the scenario is valid and ran without an operator failure in process.
pub fn run(
    bin: &Path,
    dir: &Path,
    text: &str,
    expect_ok: Option<bool>,
    rng: &mut Rng,
    out: &mut Vec<Failure>,
) -> String {
    let trace = *["full", "metrics"].choose(rng).unwrap();
    let format = *["text", "jsonl", "csv"].choose(rng).unwrap();
    let file = dir.join("case.json");
    if std::fs::write(&file, text).is_err() {
        return "unwritable temp file".into();
    }
    let mut cmd = Command::new(bin);
    cmd.args(["run", "--trace", trace, "--format", format]);
    let mut used = format!("--trace {trace} --format {format}");
    let flink =
        rng.random_bool(0.15).then(|| *["1.10-legacy", "2.3", "1.12", "1.6-legacy", "nope"].choose(rng).unwrap());
    if let Some(f) = flink {
        cmd.args(["--flink", f]);
        used.push_str(&format!(" --flink {f}"));
    }
    let mut fail = |d: String| out.push(Failure { class: "cli".into(), detail: format!("run {used}: {d}") });
    let child = cmd.arg(&file).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn();
    let Ok(mut child) = child else {
        fail("cannot start the CLI".into());
        return used;
    };
    // Read both streams on threads (a full pipe would block the child).
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let t_err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if started.elapsed() > LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break None,
        }
    };
    let stdout = String::from_utf8_lossy(&t_out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&t_err.join().unwrap_or_default()).into_owned();
    let Some(status) = status else {
        fail(format!("no exit within {} s", LIMIT.as_secs()));
        return used;
    };
    let code = status.code();
    let err_lines: Vec<&str> = stderr.lines().filter(|l| !l.starts_with("[run] ")).collect();
    match code {
        Some(0) => {
            if !err_lines.is_empty() {
                fail(format!("exit 0 with standard error: {}", shorten(&stderr)));
            }
        }
        Some(2) => {
            if err_lines.len() != 1 {
                fail(format!("exit 2 with {} lines on standard error: {}", err_lines.len(), shorten(&stderr)));
            } else if let Some(p) = message_problem(err_lines[0]) {
                fail(format!("error line: {p}: {}", shorten(err_lines[0])));
            }
        }
        other => fail(format!("exit {other:?}: {}", shorten(&stderr))),
    }
    if flink.is_none() {
        match (expect_ok, code) {
            (Some(true), Some(2)) => fail(format!("runs in process, refused by the CLI: {}", shorten(&stderr))),
            (None, Some(0)) => fail("refused in process, run by the CLI".into()),
            _ => {}
        }
    }
    if code == Some(0) || code == Some(2) {
        check_stdout(&stdout, trace, format, &mut fail);
    }
    used
}

fn check_stdout(stdout: &str, trace: &str, format: &str, fail: &mut impl FnMut(String)) {
    match format {
        "jsonl" => {
            if let Some(l) = stdout.lines().find(|l| serde_json::from_str::<serde_json::Value>(l).is_err()) {
                fail(format!("a jsonl line is not JSON: {}", shorten(l)));
            }
        }
        "csv" => {
            let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(stdout.as_bytes());
            let width = r.headers().map(|h| h.len()).unwrap_or(0);
            if let Some(bad) = r.records().find(|rec| rec.as_ref().map_or(true, |rec| rec.len() != width)) {
                fail(format!("a csv record does not fit the header ({width} columns): {bad:?}"));
            }
        }
        _ => {
            if let Some(l) = stdout.lines().find(|l| l.chars().any(bad_char)) {
                let c = l.chars().find(|&c| bad_char(c)).unwrap();
                fail(format!("`--trace {trace} --format text` line holds raw U+{:04X}: {}", c as u32, shorten(l)));
            }
        }
    }
}
