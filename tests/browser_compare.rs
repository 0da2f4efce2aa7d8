//! The Compare panel in a real headless browser: two configurations over the same input, one
//! shared scrubber, rows found on one side only highlighted.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, Page};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Event, EventInit, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Moves the shared scrubber to `to`, as dragging it does, and waits for the move to end.
async fn scrub(page: &Page, to: u64) {
    scrub_event(page, to);
    settle().await;
}

/// The input event of a drag of the shared scrubber to `to`.
fn scrub_event(page: &Page, to: u64) {
    let input = page.get("#cmp-scrubber").dyn_into::<HtmlInputElement>().unwrap();
    input.set_value(&to.to_string());
    let init = EventInit::new();
    init.set_bubbles(true);
    input.dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
}

#[wasm_bindgen_test]
async fn seed_002_global_vs_per_operator_ttl_differ_on_the_returning_user() {
    let page = Page::open().await;
    page.choose("#cmp-pair", "DAU: one global TTL vs per-operator TTL (seed 002)").await;
    assert_eq!(page.text("#cmp-position"), "step 0 / 15");
    scrub(&page, 15).await;
    assert_eq!(page.text("#cmp-position"), "step 15 / 15");
    // The user idle for longer than the TTL counts as new again under one global TTL only. The
    // day's row is stale on both sides by then: its GROUP BY state expired (a finished day).
    assert_eq!(page.texts("#cmp-left .cmp-result tr.differs td"), ["2019-11-21, 3, 2 ≠ only here · ⚠ stale"]);
    assert_eq!(page.texts("#cmp-right .cmp-result tr.differs td"), ["2019-11-21, 3, 1 ≠ only here · ⚠ stale"]);
    // Back by replay: at step 0 both results are empty and nothing differs.
    scrub(&page, 0).await;
    assert!(page.find("#cmp-left .cmp-result tbody tr").is_none());
    assert!(page.text("#cmp-left .cmp-time").starts_with("step 0 / 15"));
    // Step by step, both move together.
    page.click("#cmp-step").await;
    assert!(page.text("#cmp-left .cmp-time").starts_with("step 1 / 15"));
    assert!(page.text("#cmp-right .cmp-time").starts_with("step 1 / 15"));
}

#[wasm_bindgen_test]
async fn the_scenario_on_screen_against_a_version_that_refuses_it_says_why() {
    let page = Page::open().await;
    // seed-001 sets idle state retention, which Flink 2.3 no longer has.
    page.choose("#cmp-flink", "2.3").await;
    assert!(page.text("#cmp-error").starts_with("right: "), "{}", page.text("#cmp-error"));
    // The refusal and its conversion are the scenario on screen's: another preset drops them
    // (trial 25: they stayed, and the conversion then compared that preset with seed 001).
    page.choose("#preset-select", "sql-min-max-distinct").await;
    assert!(page.find("#cmp-error").is_none() && page.find("#cmp-convert").is_none());
    assert_eq!(page.select_value("#cmp-flink"), "");
    page.choose("#preset-select", "seed-001-one-day-two-days").await;
    page.choose("#cmp-flink", "2.3").await;
    assert!(page.text("#cmp-error").starts_with("right: "), "{}", page.text("#cmp-error"));
    // The engine's conversion is offered, as the page's own Flink chooser offers it.
    page.click("#cmp-convert").await;
    assert!(page.find("#cmp-error").is_none());
    assert!(page.find("#cmp-convert").is_none());
    assert_eq!(page.text("#cmp-right .hint"), "Flink 1.19–2.3 — table.exec.state.ttl = 1 d");
    page.choose("#cmp-flink", "1.7-legacy").await;
    assert!(page.find("#cmp-error").is_none());
    assert!(
        page.text("#cmp-right .hint").starts_with("Flink 1.7 legacy planner — "),
        "{}",
        page.text("#cmp-right .hint")
    );
}

/// The timer-churn pair's point is the timers: every sampled metric is in the compare table,
/// marked where the sides differ (after user-1's three logins: min = max registered 3 timers and
/// deleted 2; the wide gap registered 1 and kept it).
#[wasm_bindgen_test]
async fn the_timer_churn_pair_shows_the_timers_it_is_about() {
    let page = Page::open().await;
    page.choose("#cmp-pair", "Timer churn: min = max vs a wide gap").await;
    scrub(&page, 3).await;
    let rows = |side: &str| page.texts(&format!("#cmp-{side} .cmp-ops tbody tr"));
    let (left, right) = (rows("left"), rows("right"));
    for (side, rows, registered, deleted) in [("left", &left, "3 ≠", "2 ≠"), ("right", &right, "1 ≠", "0 ≠")] {
        assert!(rows.contains(&format!("timers registered{registered}")), "{side}: {rows:?}");
        assert!(rows.contains(&format!("timers deleted{deleted}")), "{side}: {rows:?}");
        // The same on both sides: no mark.
        assert!(rows.contains(&"timers now1".to_string()), "{side}: {rows:?}");
        assert!(rows.contains(&"emitted (true,..)3".to_string()), "{side}: {rows:?}");
        // 2.3's kinds are not emitted by either legacy run: not listed.
        assert!(!rows.iter().any(|r| r.starts_with("emitted +I")), "{side}: {rows:?}");
    }
    // A far move goes in slices of 12 ms, the page answering between (trial 23: one 665 ms task
    // to this pair's end): 4 000 steps of both runs take many in this (debug) build.
    scrub_event(&page, 4003);
    yew::scheduler::flush().await;
    assert_eq!(page.text("#cmp-position"), format!("going to step 4003 / {}…", page.attr("#cmp-scrubber", "max")));
    settle().await;
    assert_eq!(page.text("#cmp-position"), format!("step 4003 / {}", page.attr("#cmp-scrubber", "max")));
    assert!(page.text("#cmp-left .cmp-time").starts_with("step 4003 / "), "{}", page.text("#cmp-left .cmp-time"));
    assert!(page.text("#cmp-right .cmp-time").starts_with("step 4003 / "), "{}", page.text("#cmp-right .cmp-time"));
    // Back by 4 000 the same way, exactly where a straight run is.
    scrub(&page, 3).await;
    assert_eq!((rows("left"), rows("right")), (left, right));
}

/// A far move of the shared scrubber on the Top-N pair (trial 24: the left run went all the way
/// while the right stayed at step 0 for 35 s, under metrics of two different steps, with no
/// Cancel, the handle back at 0 and the page said settled; 93 s to the end): both runs go a part
/// each in turn; the sides keep showing the step they were at, greyed, until both are there;
/// the handle shows where the move goes; Cancel stops both at the same step.
#[wasm_bindgen_test]
async fn a_far_move_of_both_runs_goes_together_with_its_progress_and_cancel() {
    let page = Page::open().await;
    page.choose("#cmp-pair", "Top-N dedup with vs without idle state retention (seed 000)").await;
    assert_eq!(page.text("#cmp-position"), "step 0 / 400006");
    scrub_event(&page, 6000);
    yew::scheduler::flush().await;
    assert_eq!(page.text("#cmp-position"), "going to step 6000 / 400006…");
    assert_eq!(page.input_value("#cmp-scrubber"), "6000", "the handle shows where the move goes");
    assert!(!page.get(".fss").has_attribute("data-settled"), "not settled while the runs move");
    assert!(page.get(".cmp-sides").class_list().contains("catching-up"));
    for side in ["left", "right"] {
        let time = page.text(&format!("#cmp-{side} .cmp-time"));
        assert!(time.starts_with("step 0 / 400006"), "{side}: {time}");
    }
    assert!(page.text("#cmp-going").contains("the sides below show step 0 until both are at step 6000"));
    // Both runs went their first part: neither waits for the other to finish.
    assert_eq!(page.attr("#cmp-progress", "max"), "12000");
    let done: u64 = page.attr("#cmp-progress", "value").parse().unwrap();
    assert!((256..12_000).contains(&done), "{done}");
    page.click_only("#cmp-cancel");
    settle().await;
    assert!(page.find("#cmp-going").is_none() && page.find("#cmp-cancel").is_none());
    let position = page.text("#cmp-position");
    let at: u64 = position.trim_start_matches("step ").split(' ').next().unwrap().parse().unwrap();
    assert!((128..6000).contains(&at), "{position}");
    assert_eq!(page.input_value("#cmp-scrubber"), at.to_string());
    for side in ["left", "right"] {
        let time = page.text(&format!("#cmp-{side} .cmp-time"));
        assert!(time.starts_with(&format!("step {at} / 400006")), "{side}: {time}");
    }
    assert!(!page.get(".cmp-sides").class_list().contains("catching-up"));
    // The rows on one side only are counted after the sides are drawn, in slices; settled once
    // counted, as many as the engine's own runs to that step count.
    let run = |name: &str| {
        let scenario = flink_state_sim::engine::presets::load_preset(name).unwrap();
        let mut sim = flink_state_sim::engine::Simulation::new(scenario);
        sim.go_to(at as usize).unwrap();
        sim
    };
    let (left, right) = (run("seed-000-topn-dedup"), run("seed-000-topn-dedup-no-retention"));
    for (side, a, b) in [("left", &left, &right), ("right", &right, &left)] {
        let mut found = flink_state_sim::engine::result_table::Lacked::default();
        a.result().count_lacked_by(b.result(), 0, usize::MAX, &mut found, 0);
        let lacked = found.count;
        let rows = a.result().len();
        let summary = page.text(&format!("#cmp-{side} .cmp-summary"));
        assert!(summary.starts_with(&format!("result: {rows} rows")), "{side}: {summary}");
        let said = if lacked == 0 {
            "; 0 not on the other side".to_string()
        } else {
            format!("; {lacked} not on the other side, listed first")
        };
        assert!(summary.ends_with(&said), "{side}: {summary}");
        // The rows the other side lacks head the list, wherever they stand in the result.
        let classes: Vec<bool> =
            (0..page.root.query_selector_all(&format!("#cmp-{side} .cmp-result tbody tr")).unwrap().length())
                .map(|i| {
                    let row = page
                        .root
                        .query_selector_all(&format!("#cmp-{side} .cmp-result tbody tr"))
                        .unwrap()
                        .item(i)
                        .unwrap();
                    row.unchecked_into::<web_sys::Element>().class_list().contains("differs")
                })
                .collect();
        assert_eq!(classes.iter().take_while(|&&d| d).count(), lacked.min(100), "{side}: {classes:?}");
        assert_eq!(classes.iter().filter(|&&d| d).count(), lacked.min(100), "{side}");
    }
    // Step by step from there, both together.
    page.click("#cmp-step").await;
    assert_eq!(page.text("#cmp-position"), format!("step {} / 400006", at + 1));
    assert!(page.text("#cmp-right .cmp-time").starts_with(&format!("step {} / 400006", at + 1)));
}

/// A view never shows another scenario's runs: the on-screen scenario against another version
/// is dropped when the page switches scenario, and a refused version leaves no runs behind.
#[wasm_bindgen_test]
async fn a_pair_of_the_scenario_on_screen_goes_with_it() {
    let page = Page::open().await;
    page.choose("#cmp-flink", "1.7-legacy").await;
    assert!(page.find("#cmp-left").is_some());
    page.choose("#preset-select", "seed-002-dau-new-users-global-ttl").await;
    assert!(page.find("#cmp-left").is_none(), "seed 001's runs still shown under seed 002");
    // The choosers name no comparison once its runs are gone (trial 18: they kept the old one).
    assert_eq!((page.select_value("#cmp-pair"), page.select_value("#cmp-flink")), (String::new(), String::new()));
    // A preset pair, then the scenario on screen against a version: the pair chooser lets go.
    page.choose("#cmp-pair", "Timer churn: min = max vs a wide gap").await;
    page.choose("#cmp-flink", "2.3").await;
    assert_eq!(page.select_value("#cmp-pair"), "");
    assert_eq!(page.select_value("#cmp-flink"), "2.3");
    // seed 002 (state TTL, 2.3) on the legacy planner is refused: an error and no runs; the
    // chooser names the version refused.
    page.choose("#cmp-flink", "1.10-legacy").await;
    assert!(page.text("#cmp-error").starts_with("right: "), "{}", page.text("#cmp-error"));
    assert!(page.find("#cmp-left").is_none());
    assert_eq!(page.select_value("#cmp-flink"), "1.10-legacy");
    // A valid version after the refusal shows seed 002 on both sides.
    page.choose("#cmp-flink", "main").await;
    assert!(page.find("#cmp-error").is_none());
    assert!(page.text("#cmp-left h3").starts_with("Seed 002"), "{}", page.text("#cmp-left h3"));
}
