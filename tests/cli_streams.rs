//! P2: the CLI on misbehaving streams and hostile arguments. No panic on any stream, distinct
//! exit statuses (0 done, 1 an expectation failed, 2 bad input, 3 the output cannot be written;
//! a closed pipe ends quietly with 0), and arguments echoed escaped.
#![cfg(unix)]

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_flink-state-sim");

fn cli(args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args);
    c
}

fn full() -> File {
    OpenOptions::new().write(true).open("/dev/full").unwrap()
}

/// Runs `flink-state-sim ARGS` under `sh -c` with `redirect` (`>&-`, `2>&-`) applied.
fn shell(args: &str, redirect: &str) -> Output {
    Command::new("sh").arg("-c").arg(format!("\"$0\" {args} {redirect}")).arg(BIN).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn oracle(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/oracle").join(name)
}

#[test]
fn standard_error_on_a_full_disk_does_not_panic() {
    for args in [&["run", "/nonexistent.json"][..], &["run", "--preset", "nope"], &["run"], &[]] {
        let o = cli(args).stderr(full()).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: bad input, whatever became of the message");
    }
    let o = shell("run /nonexistent.json", "2>&-");
    assert_eq!(o.status.code(), Some(2));
    let o = cli(&["run", "--preset", "seed-001-one-day-two-days"]).stderr(full()).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "a run that writes nothing to standard error is unaffected");
    assert!(!o.stdout.is_empty());
}

#[test]
fn a_closed_standard_output_exits_3() {
    for args in ["presets", "schema", "--help", "run --preset seed-001-one-day-two-days"] {
        let o = shell(args, ">&-");
        assert_eq!(o.status.code(), Some(3), "{args}");
        assert_eq!(text(&o.stderr), "cannot write the output: standard output is closed\n", "{args}");
    }
    let o = shell("presets", "> /dev/null");
    assert_eq!(o.status.code(), Some(0), "/dev/null is a place to write to");
}

#[test]
fn a_full_disk_exits_3_with_one_line() {
    let check = oracle("global_count_ttl.json");
    let runs: [&[&str]; 4] = [
        &["presets"],
        &["--help"],
        &["run", "--preset", "what-if-100k-logins", "--trace", "metrics", "--format", "csv"],
        &["check", check.to_str().unwrap()],
    ];
    for args in runs {
        let o = cli(args).stdout(full()).output().unwrap();
        assert_eq!(o.status.code(), Some(3), "{args:?}");
        // A run longer than a second reports progress on stderr first (`[run] …` lines, as the
        // README says): how many depends on the machine's speed, so only the rest is counted.
        let err = text(&o.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("[run] ")).collect();
        assert_eq!(lines.len(), 1, "{err}");
        assert!(lines[0].starts_with("cannot write the output: No space left on device"), "{err}");
    }
}

#[test]
fn a_failed_expectation_exits_1_and_a_closed_pipe_0() {
    let mut d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(oracle("device_status_lastvalue_nottl.json")).unwrap()).unwrap();
    d["expect"]["changelog"]["query"][1] = serde_json::json!(["-U", [1, 1]]);
    let wrong = Path::new(env!("CARGO_TARGET_TMPDIR")).join("streams-wrong.json");
    std::fs::write(&wrong, d.to_string()).unwrap();
    let o = cli(&["check", wrong.to_str().unwrap()]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stdout).starts_with("FAIL  "), "{}", text(&o.stdout));
    let o = cli(&["check", wrong.to_str().unwrap()]).stdout(full()).output().unwrap();
    assert_eq!(o.status.code(), Some(3), "cannot write says so, not 'an expectation failed'");

    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = cli(&["run", "--preset", "what-if-100k-logins"]).stdout(writer).stderr(Stdio::piped()).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
}

#[test]
fn arguments_are_echoed_escaped() {
    let hostile = "a\nFAKE\u{1b}[31m\u{2066}";
    let path = format!("/nonexistent/{hostile}.json");
    let cases = [
        (vec!["run", "--preset", hostile], r"preset: no preset named 'a\nFAKE\u{1b}[31m\u{2066}' (presets: "),
        (
            vec!["run", "--preset", "seed-001-one-day-two-days", "--flink", hostile],
            r"--flink: unknown Flink version 'a\nFAKE\u{1b}[31m\u{2066}' (known: 1.6-legacy",
        ),
        (vec!["run", &path], r"/nonexistent/a\nFAKE\u{1b}[31m\u{2066}.json: cannot read: "),
        (vec!["check", &path], r"/nonexistent/a\nFAKE\u{1b}[31m\u{2066}.json: cannot read: "),
        (vec!["run", "--preset", "x", "--format", hostile], r"invalid value 'a FAKE\u{2066}' for '--format <FORMAT>'"),
    ];
    // clap drops the ANSI sequence itself and the newline becomes a space (one_line); the bidi
    // isolate is escaped.
    for (args, expected) in cases {
        let o = cli(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.trim_end().chars().any(|c| c.is_control() || ('\u{2066}'..='\u{2069}').contains(&c)), "{err:?}");
        assert!(err.starts_with(expected), "{args:?}: {err}");
    }
}

#[test]
fn help_lists_the_exit_statuses() {
    let o = cli(&["--help"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let help = text(&o.stdout);
    for status in ["Exit status: 0 done", "1 an expectation failed", "2 bad input", "3 the output cannot be written"] {
        assert!(help.contains(status), "{status}: {help}");
    }
}

/// Every write to a standard stream in the CLI goes through `Out` or `report`: the printing
/// macros panic when the stream fails.
#[test]
fn the_cli_has_no_printing_macros() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("src/main.rs")];
    files.extend(std::fs::read_dir(root.join("src/cli")).unwrap().map(|e| e.unwrap().path()));
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        for (i, line) in source.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for mac in ["println!", "print!", "eprintln!", "eprint!", "dbg!"] {
                assert!(!code.contains(mac), "{}:{}: {line}", file.display(), i + 1);
            }
        }
    }
}
