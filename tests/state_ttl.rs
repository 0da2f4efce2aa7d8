//! Per-operator state TTL: the `STATE_TTL` hint on a `GroupAggregate` (Flink 1.19+) and a compiled
//! plan's state TTL on a `Rank` / `Deduplicate` (Flink 1.18+) replace `table.exec.state.ttl` for
//! that operator alone (`StateMetadata.getStateTtlForOneInputOperator`), 0 meaning never expire.

mod common;

use common::{emitted, run, text};
use flink_state_sim::engine::scenario::{describe_retentions, Retention};
use flink_state_sim::engine::{Scenario, Simulation};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const HOUR: i64 = 3_600_000;

/// Source `src(k STRING, v INT)` on Flink 2.3 with `top` (top-level fields, each ending in a
/// comma), `pipeline` and `steps` (JSON texts).
fn scenario(top: &str, pipeline: &str, steps: &str) -> String {
    format!(
        r#"{{"name": "t", "flink": "2.3", {top}
            "source": {{"name": "src", "schema": [["k", "STRING"], ["v", "INT"]], "proctime": "pt"}},
            "pipeline": {pipeline}, "steps": {steps}}}"#
    )
}

/// `a` at 0, again at 2 h, then 2 h more.
const A_TWICE: &str = r#"[{"at": 0, "row": ["a", 1]}, {"at": 7200000, "row": ["a", 1]}, {"advance_by": "2 h"}]"#;

/// A keep-first Deduplicate under the scenario's TTL, then a global COUNT(*) with `hint` as its
/// `STATE_TTL` (none when empty).
fn dedup_then_count(global: &str, hint: &str) -> String {
    let hint = if hint.is_empty() { String::new() } else { format!(r#", "state_ttl": {hint}"#) };
    scenario(
        global,
        &format!(
            r#"[{{"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "FirstRow"}},
                {{"operator": "GroupAggregate", "id": "cnt", "aggregates": [{{"function": "COUNT", "args": ["*"], "as": "c"}}]{hint}}}]"#
        ),
        A_TWICE,
    )
}

#[wasm_bindgen_test(unsupported = test)]
fn a_hint_of_zero_keeps_the_aggregation_while_the_rest_of_the_query_expires() {
    // table.exec.state.ttl = 1 h: the Deduplicate forgets `a` and emits it again at 2 h.
    let sim = run(&dedup_then_count(r#""state_ttl": "1 h","#, r#""0""#));
    assert_eq!(emitted(&sim, "d"), ["+I[a, 1, 1970-01-01T00:00:00Z]", "+I[a, 1, 1970-01-01T02:00:00Z]"]);
    // The COUNT's hint of 0 keeps its accumulator: the second `a` counts on.
    assert_eq!(emitted(&sim, "cnt"), ["+I[1]", "-U[1]", "+U[2]"]);
    // Without the hint the COUNT's state expired at 1 h too, and it starts again at 1.
    let without = run(&dedup_then_count(r#""state_ttl": "1 h","#, ""));
    assert_eq!(emitted(&without, "cnt"), ["+I[1]", "+I[1]"]);
    let s = sim.scenario();
    assert_eq!((s.operator_retention(0), s.operator_retention(1)), (Retention::StateTtl(HOUR), Retention::StateTtl(0)));
    assert_eq!(describe_retentions(s), "table.exec.state.ttl = 1 h; 'cnt': STATE_TTL hint 0 ms (never expires)");
}

#[wasm_bindgen_test(unsupported = test)]
fn a_hint_gives_the_aggregation_a_ttl_under_a_query_that_never_expires() {
    let sim = run(&dedup_then_count("", r#""1 h""#));
    // table.exec.state.ttl = 0: the Deduplicate keeps `a` for ever and drops the second one.
    assert_eq!(emitted(&sim, "d"), ["+I[a, 1, 1970-01-01T00:00:00Z]"]);
    assert_eq!(emitted(&sim, "cnt"), ["+I[1]"]);
    let s = sim.scenario();
    assert_eq!((s.operator_retention(0), s.operator_retention(1)), (Retention::StateTtl(0), Retention::StateTtl(HOUR)));
    assert!(s.has_state_ttl(), "the COUNT's state expires, though table.exec.state.ttl is 0");
    // The COUNT's accumulator, written at 0, has expired by the end (4 h).
    let view = &sim.operator_views()[1];
    let ttl = view.keys[0].ttl.expect("the COUNT's state has a TTL");
    assert_eq!(ttl.expires_at_ms, HOUR);
    assert!(ttl.expired);

    // One aggregation alone, 1 h by the hint: idle for 2 h, `a` starts again at 1.
    let alone = run(&scenario(
        "",
        r#"[{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
             "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}], "state_ttl": "1 h"}]"#,
        r#"[{"at": 0, "row": ["a", 1]}, {"at": 1800000, "row": ["a", 2]}, {"at": 9000000, "row": ["a", 4]}]"#,
    ));
    assert_eq!(emitted(&alone, "agg"), ["+I[a, 1]", "-U[a, 1]", "+U[a, 3]", "+I[a, 4]"]);
}

#[wasm_bindgen_test(unsupported = test)]
fn with_ttl_zero_everywhere_nothing_has_a_state_ttl() {
    let s = Scenario::from_json(&dedup_then_count(r#""state_ttl": "1 h","#, "0")).unwrap();
    assert!(s.has_state_ttl(), "the Deduplicate still has table.exec.state.ttl = 1 h");
    let s = Scenario::from_json(&scenario(
        r#""state_ttl": "1 h","#,
        r#"[{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"], "state_ttl": 0}]"#,
        "[]",
    ))
    .unwrap();
    assert!(!s.has_state_ttl(), "the only operator's hint turns the TTL off");
    assert_eq!(describe_retentions(&s), "table.exec.state.ttl = 1 h; 'agg': STATE_TTL hint 0 ms (never expires)");
}

#[wasm_bindgen_test(unsupported = test)]
fn the_plan_shows_the_hint_as_flink_explains_it() {
    let plan = |top: &str, op: &str| {
        let s = Simulation::from_json(&scenario(top, &format!("[{op}]"), "[]")).unwrap();
        s.operator_views()[0].plan.clone()
    };
    let count = |hint: &str| {
        format!(
            r#"{{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
                 "aggregates": [{{"function": "COUNT", "args": ["*"], "as": "c"}}], "state_ttl": {hint}}}"#
        )
    };
    assert_eq!(
        plan("", &count(r#""2d""#)),
        "GroupAggregate(groupBy=[k], select=[k, COUNT(*) AS c], stateTtlHints=[[[STATE_TTL options:[2d]]]])"
    );
    assert_eq!(
        plan("", &count("86400000")),
        "GroupAggregate(groupBy=[k], select=[k, COUNT(*) AS c], stateTtlHints=[[[STATE_TTL options:[86400000]]]])"
    );
    assert_eq!(
        plan(
            "",
            r#"{"operator": "GroupAggregate", "id": "g", "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"}], "state_ttl": "1 h"}"#
        ),
        "GroupAggregate(select=[COUNT(*) AS c], stateTtlHints=[[[STATE_TTL options:[1 h]]]])"
    );
    // Two-phase: the hint goes to the GlobalGroupAggregate, which keeps the state.
    assert_eq!(
        plan(r#""mini_batch": {"allow_latency": "1 s", "size": 100},"#, &count(r#""1 h""#)),
        "GlobalGroupAggregate(groupBy=[k], select=[k, COUNT(count1$0) AS c], stateTtlHints=[[[STATE_TTL options:[1 h]]]])\n\
         +- Exchange(distribution=[hash[k]])\n   \
         +- LocalGroupAggregate(groupBy=[k], select=[k, COUNT(*) AS count1$0])"
    );
    // A compiled plan's TTL is not in EXPLAIN.
    assert_eq!(
        plan("", r#"{"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "LastRow", "state_ttl": "1 h"}"#),
        "Deduplicate(keep=[LastRow], key=[k], order=[PROCTIME], outputInsertOnly=[false])"
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn a_mini_batch_aggregation_takes_the_hint() {
    // LAST_VALUE cannot merge: one MiniBatchGroupAggFunction. `a` = 1 in two bundles.
    let run_with = |hint: &str| {
        run(&scenario(
            r#""mini_batch": {"allow_latency": "1 s", "size": 100},"#,
            &format!(
                r#"[{{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
                     "aggregates": [{{"function": "LAST_VALUE", "args": ["v"], "as": "lv"}}]{hint}}}]"#
            ),
            r#"[{"at": 100, "row": ["a", 1]}, {"at": 1500, "row": ["a", 1]}, {"advance_to": 3000}]"#,
        ))
    };
    // With a TTL an unchanged result is re-emitted; with table.exec.state.ttl = 0 it is not.
    assert_eq!(emitted(&run_with(r#", "state_ttl": "1 h""#), "agg"), ["+I[a, 1]", "-U[a, 1]", "+U[a, 1]"]);
    assert_eq!(emitted(&run_with(""), "agg"), ["+I[a, 1]"]);
    // The re-emission says why, just before it.
    let reason = "the result is unchanged, but state cleaning is on";
    let trace = text(&run_with(r#", "state_ttl": "1 h""#));
    let at = trace.iter().position(|l| l.contains(reason)).expect("the reason is in the trace");
    assert!(trace[at + 1].contains("-U[a, 1]"), "{trace:?}");
    assert!(!text(&run_with("")).iter().any(|l| l.contains(reason)));
}

/// The legacy planner (`GroupAggProcessFunction`, Flink 1.7) under idle state retention: `MAX(v)`
/// stays 5 when 3 arrives, and the row is retracted and emitted again, "to prevent too early
/// state eviction of downstream operators"; the trace says so. Without retention nothing is
/// emitted for the 3.
#[wasm_bindgen_test(unsupported = test)]
fn the_legacy_planner_re_emits_an_unchanged_row_and_says_why() {
    let legacy = |retention: &str| {
        run(&format!(
            r#"{{"name": "t", "flink": "1.7-legacy", {retention}
                "source": {{"name": "src", "schema": [["k", "STRING"], ["v", "INT"]]}},
                "pipeline": [{{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
                               "aggregates": [{{"function": "MAX", "args": ["v"], "as": "m"}}]}}],
                "steps": [{{"at": 0, "row": ["a", 5]}}, {{"at": 1000, "row": ["a", 3]}}]}}"#
        ))
    };
    let kept = legacy(r#""idle_state_retention": {"min": "1 h", "max": "2 h"},"#);
    assert_eq!(emitted(&kept, "agg"), ["(true,a,5)", "(false,a,5)", "(true,a,5)"]);
    let trace = text(&kept);
    let at = trace.iter().position(|l| l.contains("the result is unchanged, but state cleaning is on")).unwrap();
    assert!(trace[at].contains("to prevent too early state eviction of downstream operators"), "{}", trace[at]);
    assert!(trace[at + 1].contains("(false,a,5)"), "{trace:?}");
    assert_eq!(emitted(&legacy(""), "agg"), ["(true,a,5)"]);
}

#[wasm_bindgen_test(unsupported = test)]
fn a_compiled_plan_ttl_on_a_rank_or_a_deduplicate() {
    let first = |op: &str| run(&scenario("", &format!("[{op}]"), A_TWICE));
    // Keep-first under table.exec.state.ttl = 0: `a` once.
    let plain = first(r#"{"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "FirstRow"}"#);
    assert_eq!(emitted(&plain, "d"), ["+I[a, 1, 1970-01-01T00:00:00Z]"]);
    // Its deduplicateState with a TTL of 1 h in the compiled plan: `a` again at 2 h.
    let ttl = first(r#"{"operator": "Deduplicate", "id": "d", "key": ["k"], "keep": "FirstRow", "state_ttl": "1 h"}"#);
    assert_eq!(emitted(&ttl, "d"), ["+I[a, 1, 1970-01-01T00:00:00Z]", "+I[a, 1, 1970-01-01T02:00:00Z]"]);
    assert_eq!(
        describe_retentions(ttl.scenario()),
        "table.exec.state.ttl = 0 ms: state never expires; 'd': compiled-plan state TTL 1 h"
    );
    // The same written as a Rank that Flink turns into a Deduplicate keeps the TTL.
    let rank = first(
        r#"{"operator": "Rank", "id": "d", "partition_by": ["k"], "order_by": ["pt"], "rank_end": 1, "state_ttl": "1 h"}"#,
    );
    assert_eq!(emitted(&rank, "d"), emitted(&ttl, "d"));
    // A top-1 by `v` (FastTop1Function): a worse row after the TTL is the top row again.
    let top1 = |ttl: &str| {
        run(&scenario(
            "",
            &format!(
                r#"[{{"operator": "Rank", "id": "r", "partition_by": ["k"], "order_by": ["v DESC"], "rank_end": 1{ttl}}}]"#
            ),
            r#"[{"at": 0, "row": ["a", 5]}, {"at": 7200000, "row": ["a", 1]}]"#,
        ))
    };
    assert_eq!(emitted(&top1(""), "r"), ["+I[a, 5, 1970-01-01T00:00:00Z]"]);
    assert_eq!(
        emitted(&top1(r#", "state_ttl": "1 h""#), "r"),
        ["+I[a, 5, 1970-01-01T00:00:00Z]", "+I[a, 1, 1970-01-01T02:00:00Z]"]
    );
}

/// A result row goes stale when its key's state becomes invisible (`lastWrite + ttl <= now`,
/// `NeverReturnExpired`), whether or not anything reads the state afterwards: the issue-7 report
/// of a global COUNT whose state expired at 11:10 with its row still shown as live.
#[wasm_bindgen_test(unsupported = test)]
fn a_row_is_stale_from_its_keys_expiry_without_a_later_read() {
    let json = scenario(
        r#""state_ttl": "1 h","#,
        r#"[{"operator": "GroupAggregate", "id": "cnt", "aggregates": [{"function": "COUNT", "args": ["*"], "as": "c"}]}]"#,
        r#"[{"at": 600000, "row": ["a", 1]}, {"advance_to": 4199999}, {"advance_to": 4200000}, {"advance_by": "1 h"}]"#,
    );
    let mut sim = Simulation::new(Scenario::from_json(&json).expect("valid"));
    sim.step().expect("input");
    sim.step().expect("advance");
    let stale = |sim: &Simulation| sim.result().rows().map(|r| r.stale_since_ms).collect::<Vec<_>>();
    assert_eq!(stale(&sim), [None], "1 ms before 0:10 + 1 h the state is visible");
    sim.step().expect("advance");
    assert_eq!(stale(&sim), [Some(4_200_000)], "at 0:10 + 1 h it is invisible: nothing will retract +I[1]");
    assert_eq!(sim.result().stale_len(), 1);
    sim.step().expect("advance");
    // The metrics count it from its expiry on, at every later sample.
    let samples = sim.metrics();
    let first_stale = samples.iter().find(|s| s.stale_rows == 1).map(|s| s.time_ms);
    assert!(first_stale.is_some_and(|t| t >= 4_200_000), "first sample counting it: {first_stale:?}");
    assert!(samples.iter().filter(|s| s.time_ms >= 4_200_000).all(|s| s.stale_rows == 1));
    assert!(samples.iter().filter(|s| s.time_ms < 4_200_000).all(|s| s.stale_rows == 0));
}
