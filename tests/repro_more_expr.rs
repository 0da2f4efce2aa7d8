//! `shared/repro/more/` E14a–e, E17, H4 and A2 (the small inputs are copied under
//! `tests/fixtures/repro/more/`); C1 and E17's limits are in `tests/deep_expressions.rs`.
#![cfg(not(target_arch = "wasm32"))]

use flink_state_sim::engine::operators::sorted_map_entries_walked;
use flink_state_sim::engine::{Scenario, SimOptions, Simulation, TraceLevel};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/repro/more/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn error(json: &str) -> String {
    Scenario::from_json(json).unwrap_err().to_string()
}

/// E14a–e: SQL text echoed in a message is quoted, its control characters escaped.
#[test]
fn sql_tokens_in_errors_are_quoted_and_escaped() {
    let cases = [
        ("E14a-sql-raw-unexpected.json", r"unexpected '\'line1\nFAKE\u{1b}[31m\'' after the expression"),
        ("E14b-sql-raw-function.json", r"function '`EVIL\nFAKE\u{1b}[2J`'(...) is not supported"),
        ("E14c-sql-raw-dollar-quoted.json", r"the literal '$$line1\nFAKE$$' is not supported"),
        ("E14d-sql-raw-cannot.json", r"cannot negate '\'a\nFAKE\''"),
        ("E14e-sql-raw-national.json", r"the literal 'N\'a\nFAKE\'' is not supported"),
    ];
    for (file, quoted) in cases {
        let err = error(&fixture(file));
        assert!(err.starts_with("pipeline[0].where: "), "{file}: {err}");
        assert!(!err.chars().any(char::is_control), "{file}: {err:?}");
        assert!(err.contains(quoted), "{file}: {err}");
    }
}

/// sqlparser's own message quotes the token it found.
#[test]
fn a_parse_error_quotes_the_token_found() {
    let json = fixture("E14a-sql-raw-unexpected.json").replace(r"v = 1 'line1", r"v = ) 'line1");
    let err = error(&json);
    assert!(err.contains("Expected: an expression, found: ')' at Line: 1, Column: 5"), "{err}");
    assert!(!err.chars().any(char::is_control), "{err:?}");
}

/// E17: 49 nested `NOT`s are refused by the depth limit, named as such.
#[test]
fn deep_nesting_names_the_depth_limit() {
    let err = error(&fixture("E17-recursion-limit-says-unexpected-token.json"));
    assert_eq!(
        err,
        "pipeline[0].where: the expression nests deeper than this simulator's limit of 40 levels \
         (parentheses, NOT, CASE and operands of a higher-precedence operator each add one; a bound \
         that keeps the page's stack safe; Flink's parser has none)"
    );
}

/// A2: Flink's `TimeUtils.parseDuration` scans ASCII `0`–`9` only, so `٥ min` (ARABIC-INDIC DIGIT
/// FIVE) does not start with a number — refused with Flink's message. Checked on real Flink 2.3.0
/// (`TimeUtils.parseDuration("٥ min")` from PyPI's apache-flink 2.3.0 on Java 17, 2026-12-02):
/// `NumberFormatException: text does not start with a number, and is not a valid ISO-8601 duration
/// format: ٥ min` — refused too. (2.3 also accepts ISO-8601 durations such as `PT5M` and the
/// labels `m`, `secs`; this simulator's parser follows the earlier `TimeUtils` and does not yet.)
#[test]
fn a_non_ascii_digit_does_not_start_a_duration() {
    let err = error(&fixture("A2-unicode-digit-duration-flink-accepts.json"));
    assert!(err.starts_with("state_ttl: text does not start with a number"), "{err}");
}

/// Runs H4 with `events` events; returns the sorted-map entries walked and the result's rows.
fn h4(events: u64) -> (u64, usize) {
    let mut v: serde_json::Value =
        serde_json::from_str(&fixture("H4-retractable-topn-one-partition-quadratic.json")).unwrap();
    v["workload"]["events"] = events.into();
    let options = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(Scenario::from_json(&v.to_string()).unwrap(), options);
    let before = sorted_map_entries_walked();
    sim.run_to_end().unwrap();
    (sorted_map_entries_walked() - before, sim.result().len())
}

/// H4: one partition of 20 k then 40 k sort keys; each record's walk stops at `rank_end` (2), so
/// the entries walked grow with the records, not with records × partition size.
#[test]
fn retractable_top_n_walks_only_to_rank_end() {
    let (walked_20k, rows_20k) = h4(20_000);
    let (walked_40k, rows_40k) = h4(40_000);
    assert_eq!((rows_20k, rows_40k), (2, 2), "the top 2 of the one partition");
    // At most rank_end + 2 entries a record (before and after the input's key), two records
    // (-U, +U) an event; copying or walking the whole map would be ~10^8 here.
    assert!(walked_20k <= 20_000 * 2 * 4, "{walked_20k}");
    assert!(walked_40k <= 40_000 * 2 * 4, "{walked_40k}");
    assert!(walked_40k < 3 * walked_20k, "linear: {walked_20k} then {walked_40k}");
}
