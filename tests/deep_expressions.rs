//! C1, E17: a Calc expression as large and as deep as the limits allow is compiled, evaluated,
//! printed and dropped on a 1 MiB stack — the page's wasm stack (run by `wasm-pack test` in the
//! debug build, where frames are largest) and, natively, a thread given exactly that stack — and
//! one token or one level more is refused with a message that names the field and the limit.

use flink_state_sim::engine::expr::{MAX_EXPRESSION_DEPTH, MAX_EXPRESSION_TOKENS};
use flink_state_sim::engine::{Scenario, Simulation};
use serde_json::json;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The page's stack: wasm-ld's default, which rustc keeps for `wasm32-unknown-unknown`.
const PAGE_STACK: usize = 1 << 20;

/// Runs `f` on a stack the size of the page's: natively on a thread of exactly that size, in
/// wasm on the module's own stack (which is that size).
fn on_page_stack(f: impl FnOnce() + Send + 'static) {
    #[cfg(not(target_arch = "wasm32"))]
    std::thread::Builder::new().stack_size(PAGE_STACK).spawn(f).unwrap().join().unwrap();
    #[cfg(target_arch = "wasm32")]
    {
        let _ = PAGE_STACK;
        f();
    }
}

/// A Calc with `select` items and a `where` over columns `k STRING, b BOOLEAN`, one row.
fn scenario(select: &[String], condition: &str) -> String {
    json!({
        "name": "deep", "flink": "2.3", "time_format": "millis",
        "source": {"name": "s", "schema": [["k", "STRING"], ["b", "BOOLEAN"]]},
        "pipeline": [{"operator": "Calc", "id": "c", "select": select, "where": condition}],
        "steps": [{"at": 1, "row": ["a", true]}]
    })
    .to_string()
}

/// `b AND b AND …` with exactly `tokens` tokens: `NOT b AND b …` when `tokens` is even.
fn chain(op: &str, tokens: usize) -> String {
    let terms = vec!["b"; tokens.div_ceil(2)].join(&format!(" {op} "));
    if tokens.is_multiple_of(2) {
        format!("NOT {terms}")
    } else {
        terms
    }
}

/// Compiles, runs one row (`b` TRUE) through, and drops the scenario: whether the row passed.
fn passes(json: String) -> bool {
    let mut sim = Simulation::from_json(&json).unwrap();
    sim.step().unwrap();
    let passed = sim.result().len() == 1;
    drop(sim);
    passed
}

fn runs_and_passes(json: String) {
    assert!(passes(json), "the row passes the condition");
}

fn refused(json: &str) -> String {
    Scenario::from_json(json).unwrap_err().to_string()
}

#[wasm_bindgen_test(unsupported = test)]
fn the_longest_chains_run_on_the_page_stack() {
    // Odd and even lengths: `b AND … AND b` passes, `NOT b AND b …` does not; `NOT b OR b …`
    // does; `NOT b = b = …` is `NOT (b = b = …)`.
    for (op, odd, even) in [("AND", true, false), ("OR", true, true), ("=", true, false)] {
        for (tokens, pass) in [(MAX_EXPRESSION_TOKENS - 1, odd), (MAX_EXPRESSION_TOKENS, even)] {
            let condition = chain(op, tokens);
            assert_eq!(condition.split(' ').count(), tokens);
            on_page_stack(move || assert_eq!(passes(scenario(&["k".into()], &condition)), pass, "{op} {tokens}"));
        }
    }
    // `b IS NOT NULL IS NOT NULL …`: three tokens a level.
    let levels = (MAX_EXPRESSION_TOKENS - 1) / 3;
    let condition = format!("b{}", " IS NOT NULL".repeat(levels));
    on_page_stack(move || runs_and_passes(scenario(&["k".into()], &condition)));
    // In `select` too, as a computed column.
    let item = format!("{} AS x", chain("AND", MAX_EXPRESSION_TOKENS - 2));
    on_page_stack(move || runs_and_passes(scenario(&[item], "b")));
}

#[wasm_bindgen_test(unsupported = test)]
fn one_token_more_is_refused_with_the_limit() {
    let err = refused(&scenario(&["k".into()], &chain("AND", MAX_EXPRESSION_TOKENS + 1)));
    assert_eq!(
        err,
        format!(
            "pipeline[0].where: the expression has {} tokens, more than this simulator's limit of {MAX_EXPRESSION_TOKENS} \
             (a bound that keeps the page's stack safe; Flink's parser has none)",
            MAX_EXPRESSION_TOKENS + 1
        )
    );
    let item = format!("{} AS x", chain("OR", MAX_EXPRESSION_TOKENS));
    assert!(refused(&scenario(&[item], "b")).starts_with("pipeline[0].select[0]: the expression has"));
}

/// `NOT NOT … NOT (b)` and `((…(b)…))`, nested `depth` levels below the top.
fn nots(depth: usize) -> String {
    format!("{}(b)", "NOT ".repeat(depth))
}
fn parens(depth: usize) -> String {
    format!("{}b{}", "(".repeat(depth), ")".repeat(depth))
}
fn cases(depth: usize) -> String {
    format!("{}b{}", "CASE WHEN TRUE THEN ".repeat(depth), " END".repeat(depth))
}

/// The deepest expression of each kind that parses (found by trying: each construct spends its
/// own number of sqlparser levels), which must run on the page's stack.
fn deepest(make: fn(usize) -> String) -> usize {
    let parses = |d: usize| Scenario::from_json(&scenario(&["k".into()], &make(d))).is_ok();
    let mut d = 0;
    while parses(d + 1) {
        d += 1;
    }
    d
}

#[wasm_bindgen_test(unsupported = test)]
fn the_deepest_nesting_runs_on_the_page_stack_and_one_more_is_refused() {
    let limit = format!("deeper than this simulator's limit of {MAX_EXPRESSION_DEPTH} levels");
    for make in [nots as fn(usize) -> String, parens, cases] {
        let d = deepest(make);
        assert!(d >= MAX_EXPRESSION_DEPTH / 3, "{d} levels of {}", make(1));
        let condition = make(d);
        // An odd number of NOTs is FALSE.
        let pass = !condition.starts_with("NOT") || d.is_multiple_of(2);
        on_page_stack(move || assert_eq!(passes(scenario(&["k".into()], &condition)), pass, "{condition}"));
        let err = refused(&scenario(&["k".into()], &make(d + 1)));
        assert!(err.starts_with("pipeline[0].where: the expression nests ") && err.contains(&limit), "{err}");
    }
}

/// E17: 49 `NOT`s named the limit's victim `unexpected NOT` before.
#[wasm_bindgen_test(unsupported = test)]
fn forty_nine_nots_are_refused_by_the_named_depth_limit() {
    let err = refused(&scenario(&["k".into()], &nots(49)));
    assert!(err.contains("nests deeper than this simulator's limit of"), "{err}");
    assert!(!err.contains("unexpected"), "{err}");
}
