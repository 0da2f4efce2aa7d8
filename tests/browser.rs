//! The page in a real headless browser (`wasm-pack test --headless --chrome`): choose each preset,
//! click Step / Advance, and check what the DOM shows.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, until, Page};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn opens_on_seed_001_ready_to_step() {
    let page = Page::open().await;
    assert_eq!(page.text("#now"), "2019-11-20 15:00");
    assert_eq!(page.text("#progress"), "step 0 / 4");
    assert!(page.text("#retention").contains("idle state retention min 1 d, max 2 d"));
    assert!(!page.is_disabled("#step"));
    assert!(page.is_disabled("#next-timer"), "no timer before the first record");
}

#[wasm_bindgen_test]
async fn the_root_is_marked_settled_once_the_sections_below_the_timeline_caught_up() {
    let page = Page::open().await;
    let root = page.get(".fss");
    assert!(root.has_attribute("data-settled"), "opened and settled");
    page.click_only("#step");
    yew::scheduler::flush().await;
    // Rendered: the controls show step 1; the cards wait for the next frame, and the root says so.
    assert_eq!(page.text("#progress"), "step 1 / 4");
    assert!(page.find("#op-logins_per_user .cleanup-time").is_none(), "the cards still show step 0");
    assert!(!root.has_attribute("data-settled"), "not settled while the cards are behind");
    settle().await;
    assert!(root.has_attribute("data-settled"));
    assert_eq!(page.text("#op-logins_per_user .cleanup-time"), "2019-11-22 15:00");
}

#[wasm_bindgen_test]
async fn seed_001_registers_keeps_moves_and_fires_the_cleanup_timer() {
    let page = Page::open().await;
    page.step(1).await;
    assert!(page.find(r#"#timeline .timer.live[data-timer="2019-11-22 15:00"]"#).is_some());
    assert_eq!(page.text("#op-logins_per_user .cleanup-time"), "2019-11-22 15:00");
    assert!(page
        .text("#happened")
        .contains("no cleanup time C yet → register now + max = 2019-11-20 15:00 + 2 d = 2019-11-22 15:00"));
    // Going to that timer would leave the inputs before it behind: the button says so.
    assert_eq!(
        page.attr("#next-timer", "title"),
        "Advance processing time to the next registered timer, 2019-11-22 15:00 (n): past the next scenario step at \
         2019-11-20 16:00, which then can no longer run (◀ Back undoes it)"
    );
    // And under it, where the user looks (issue 17: it was only in the tooltip).
    assert_eq!(page.text("#next-timer-skips"), "⚠ skips the input at 2019-11-20 16:00");
    assert_eq!(page.attr("#next-timer", "aria-describedby"), "next-timer-skips");

    page.step(1).await;
    assert!(page
        .text("#happened")
        .contains("now + min = 2019-11-21 16:00 <= C = 2019-11-22 15:00 → keep 2019-11-22 15:00"));
    assert_eq!(page.text("#op-logins_per_user .cleanup-time"), "2019-11-22 15:00");

    page.step(1).await;
    assert!(page.text("#happened").contains(
        "now + min = 2019-11-22 16:00 > C = 2019-11-22 15:00 → register 2019-11-23 16:00, delete 2019-11-22 15:00"
    ));
    assert!(page.find(r#"#timeline .timer.deleted[data-timer="2019-11-22 15:00"]"#).is_some());
    assert!(page.find(r#"#timeline .timer.live[data-timer="2019-11-23 16:00"]"#).is_some());
    assert_eq!(page.text("#op-logins_per_user .cleanup-time"), "2019-11-23 16:00");
    assert_eq!(
        page.texts("#op-logins_per_user .msg"),
        ["(true,u1,1)", "(false,u1,1)", "(true,u1,2)", "(false,u1,2)", "(true,u1,3)"]
    );

    page.step(1).await;
    assert_eq!(page.text("#now"), "2019-11-24 00:00");
    assert!(page.find(r#"#timeline .timer.fired[data-timer="2019-11-23 16:00"]"#).is_some());
    assert!(page.text("#happened").contains("timer fired for 2019-11-23 16:00"));
    assert!(page.find("#op-logins_per_user .cleanup-time").is_none(), "the key's state is cleared");
    assert!(page.is_disabled("#step"));
    assert_eq!(
        page.texts("#result-table tbody td:not(.stale-note)"),
        ["u1", "3"],
        "cleanup is silent: the result keeps the row"
    );
    assert!(page.text("#result-table tr.stale .stale-note").starts_with("⚠ stale since 2019-11-23 16:00"));
}

#[wasm_bindgen_test]
async fn cleanup_harness_preset_and_next_timer() {
    let page = Page::open().await;
    page.choose("#preset-select", "cleanup-harness-min5-max10").await;
    assert_eq!(page.text("#now"), "1 ms");
    page.step(5).await;
    assert_eq!(page.texts("#op-agg td.key"), ["a", "b", "c"]);
    assert_eq!(page.texts("#op-agg .cleanup-time"), ["11 ms", "18 ms", "15 ms"]);
    assert!(page.find(r#"#timeline .timer.deleted[data-timer="11 ms"]"#).is_some(), "b's first timer was deleted");
    assert_eq!(page.text("#next-timer"), "⇥ next timer (11 ms)");
    assert!(page.find("#next-timer-skips").is_none(), "the timer is not past the next step (advance to 11 ms)");
    page.click("#next-timer").await;
    assert_eq!(page.text("#now"), "11 ms");
    assert_eq!(page.texts("#op-agg td.key"), ["b", "c"], "a is cleared at 11");
    page.click("#next-timer").await;
    page.click("#next-timer").await;
    assert_eq!(page.text("#now"), "18 ms");
    assert!(page.find("#op-agg td.key").is_none());
    assert!(page.is_disabled("#next-timer"));
}

#[wasm_bindgen_test]
async fn seed_004_legacy_retractions() {
    let page = Page::open().await;
    page.choose("#preset-select", "seed-004-device-status").await;
    page.step(2).await;
    assert_eq!(page.texts("#op-inner .msg"), ["(true,dev1,1)", "(false,dev1,1)", "(true,dev1,0)"]);
    assert_eq!(page.texts("#op-outer .msg"), ["(true,1,1)", "(false,1,1)", "(true,0,1)"]);
    assert_eq!(page.texts("#result-table tbody td:not(.stale-note)"), ["0", "1"]);
}

#[wasm_bindgen_test]
async fn seed_004_on_flink_2_3() {
    let page = Page::open().await;
    page.choose("#preset-select", "seed-004-device-status-flink-2.3").await;
    page.step(2).await;
    assert_eq!(page.texts("#op-inner .msg"), ["+I[dev1, 1]", "-U[dev1, 1]", "+U[dev1, 0]"]);
    assert_eq!(page.texts("#op-outer .msg"), ["+I[1, 1]", "-D[1, 1]", "+I[0, 1]"]);
    assert_eq!(page.texts("#op-outer .msg.fresh"), ["-D[1, 1]", "+I[0, 1]"], "the last step's rows are highlighted");
}

#[wasm_bindgen_test]
async fn switching_the_flink_version() {
    let page = Page::open().await;
    page.choose("#preset-select", "seed-004-device-status").await;
    page.choose("#flink-select", "2.3").await;
    assert!(page.find("#scenario-error").is_none());
    page.step(2).await;
    assert_eq!(page.texts("#op-outer .msg"), ["+I[1, 1]", "-D[1, 1]", "+I[0, 1]"]);

    assert!(page
        .text("#flink-note")
        .contains("written for Flink 1.8–1.11 legacy planner; it now runs on Flink 1.19–2.3"));

    // seed-001's min/max retention has no Flink 2.3 meaning: the page says so, once, next to the
    // chooser, and keeps running 1.10 — the chooser shows what runs (tests/browser_files.rs
    // follows the conversion it offers).
    page.choose("#preset-select", "seed-001-one-day-two-days").await;
    page.choose("#flink-select", "2.3").await;
    assert!(page.text("#flink-error").contains("idle_state_retention: Flink 1.19–2.3 keeps state with state TTL"));
    assert!(page.find("#scenario-error").is_none());
    assert_eq!(page.select_value("#flink-select"), "1.10-legacy");
    page.step(1).await;
    assert_eq!(page.texts("#op-logins_per_user .msg"), ["(true,u1,1)"]);
}

/// Another Flink version replays the run to the same position (issue 17: it used to restart at
/// step 0).
#[wasm_bindgen_test]
async fn switching_the_flink_version_keeps_the_position() {
    let page = Page::open().await;
    page.step(3).await;
    assert_eq!(page.text("#progress"), "step 3 / 4");
    page.choose("#flink-select", "1.7-legacy").await;
    assert_eq!(page.text("#progress"), "step 3 / 4");
    assert_eq!(page.text("#now"), "2019-11-21 16:00");
    assert_eq!(
        page.texts("#op-logins_per_user .msg"),
        ["(true,u1,1)", "(false,u1,1)", "(true,u1,2)", "(false,u1,2)", "(true,u1,3)"]
    );
    assert!(page.text("#tl-rule").contains("stays registered (Flink ≤ 1.7)"));
}

#[wasm_bindgen_test]
async fn an_invalid_scenario_shows_field_and_rule_and_keeps_the_text() {
    let page = Page::open().await;
    let bad = r#"{"name": "x", "flink": "1.10-legacy",
        "idle_state_retention": {"min": "12 h", "max": "12 h"},
        "source": {"name": "s", "schema": [["k", "STRING"]]},
        "pipeline": [{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"]}],
        "steps": [{"at": 5, "row": ["a"]}]}"#;
    page.set_textarea("#scenario-json", bad);
    page.click("#load").await;
    assert_eq!(
        page.text("#scenario-error"),
        "idle_state_retention: min = 12 h, max = 12 h: 0 ms apart; max must be at least 5 minutes more than min (or both 0) — Flink: \"Difference between minTime: 43200000 ms and maxTime: 43200000 msshoud be at least 5 minutes.\""
    );
    assert_eq!(page.textarea("#scenario-json"), bad, "the user's text is kept");
    assert_eq!(page.text("#now"), "2019-11-20 15:00", "the previous simulation still runs");

    page.set_textarea("#scenario-json", &bad.replace(r#"["a"]"#, "[1]").replace(r#""max": "12 h""#, r#""max": "1 d""#));
    page.click("#load").await;
    assert_eq!(page.text("#scenario-error"), "steps[0].row[0]: column 'k': expected STRING or null, found 1");

    page.set_textarea("#scenario-json", "{ not json");
    page.click("#load").await;
    assert!(page
        .text("#scenario-error")
        .starts_with("scenario: invalid JSON: key must be a string at line 1 column 3"));
}

#[wasm_bindgen_test]
async fn advance_by_a_flink_duration() {
    let page = Page::open().await;
    page.step(1).await;
    assert_eq!(page.input_value("#advance-by"), "1 h");
    page.type_into("#advance-by", "1 d").await;
    page.click("#advance").await;
    assert_eq!(page.text("#now"), "2019-11-21 15:00");
    assert_eq!(page.input_value("#advance-by"), "1 d", "the box keeps what was typed");
    page.type_into("#advance-by", "1 h 30 min").await;
    page.click("#advance").await;
    assert!(page
        .text("#step-error")
        .starts_with("advance by '1 h 30 min': Time interval unit label 'h 30 min' does not match"));
    assert_eq!(page.input_value("#advance-by"), "1 h 30 min", "a typo can be fixed in place");
    assert_eq!(page.text("#now"), "2019-11-21 15:00");
    page.type_into("#advance-by", "99999999 d").await;
    page.click("#advance").await;
    assert!(
        page.text("#step-error")
            .starts_with("advance by '99999999 d': duration 99999999 d is longer than a scenario's whole time range"),
        "{}",
        page.text("#step-error")
    );
    page.type_into("#advance-by", "2 d").await;
    page.click("#advance").await;
    assert!(page.find("#step-error").is_none());
    assert!(page.find(r#"#timeline .timer.fired[data-timer="2019-11-22 15:00"]"#).is_some());
    // The next scenario input (2019-11-20 16:00) is now in the past: Step is disabled and says why.
    assert!(page.is_disabled("#step"));
    assert_eq!(page.text("#blocked"), "time is past the next step: ◀ Back or Reset to run it");
    assert!(page.attr("#step", "title").contains("it was advanced past it); step back or reset to run it"));
    page.click("#reset").await;
    assert_eq!(page.text("#now"), "2019-11-20 15:00");
    assert!(!page.is_disabled("#step"));
}

#[wasm_bindgen_test]
async fn ttl_expiry_and_a_global_aggregation_are_shown() {
    let page = Page::open().await;
    let scenario = r#"{"name": "ttl", "flink": "2.3", "state_ttl": "10 ms",
        "source": {"name": "s", "schema": [["k", "STRING"], ["v", "INT"]]},
        "pipeline": [{"operator": "GroupAggregate", "id": "total", "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}]}],
        "steps": [{"at": 0, "row": ["a", 1]}, {"advance_to": 20}, {"at": 25, "row": ["b", 2]}]}"#;
    page.set_textarea("#scenario-json", scenario);
    page.click("#load").await;
    page.step(1).await;
    assert_eq!(page.texts("#op-total td.key"), ["(global)"]);
    assert_eq!(page.text("#op-total td.ttl"), "expires at 10 ms");
    page.step(1).await;
    assert!(page.text("#happened").contains("total [(global)]state TTL expired (lastAccess + ttl <= now)"));
    assert_eq!(page.text("#op-total td.ttl"), "expired at 10 ms — still stored, invisible");
    page.step(1).await;
    assert!(page
        .text("#happened")
        .contains("accState expired: last access 0 ms + ttl = 10 ms <= now → removed on read"));
    assert_eq!(
        page.texts("#op-total .msg"),
        ["+I[1]", "+I[2]"],
        "expired state restarts with +I; the old row is never retracted"
    );
    assert_eq!(page.texts("#result-table tbody td:not(.stale-note)"), ["1", "2"]);
    assert!(page.text("#result-table tr.stale .stale-note").starts_with("⚠ stale since 10 ms"));
}

#[wasm_bindgen_test]
async fn the_flink_switch_applies_to_the_editor_text() {
    let page = Page::open().await;
    page.choose("#preset-select", "seed-004-device-status").await;
    let edited =
        page.textarea("#scenario-json").replace(r#"["dev1", 0, 1574347474000]"#, r#"["dev1", 7, 1574347474000]"#);
    page.set_textarea("#scenario-json", &edited);
    page.choose("#flink-select", "2.3").await;
    page.step(2).await;
    assert_eq!(page.texts("#op-outer .msg"), ["+I[1, 1]", "-D[1, 1]", "+I[7, 1]"], "the edit was kept and runs on 2.3");

    // A broken edit is refused with its reason; the text stays and the editor stays open once fixed.
    page.set_textarea("#scenario-json", r#"{"name": "x", "flink": "2.3", "bogus": 1}"#);
    page.choose("#flink-select", "1.10-legacy").await;
    assert!(page.text("#scenario-error").starts_with("scenario: unknown field `bogus`"));
    assert_eq!(
        page.textarea("#scenario-json"),
        r#"{"name": "x", "flink": "2.3", "bogus": 1}"#,
        "the text is untouched"
    );
    assert!(page.get("details.editor").has_attribute("open"));
    page.set_textarea("#scenario-json", &edited);
    page.click("#load").await;
    assert!(page.find("#scenario-error").is_none());
    assert!(page.get("details.editor").has_attribute("open"), "the editor stays open after the fix");
}

#[wasm_bindgen_test]
async fn a_failed_operator_stops_step_and_play() {
    let page = Page::open().await;
    let scenario = r#"{"name": "null-time", "flink": "2.3",
        "source": {"name": "s", "schema": [["d", "STRING"], ["st", "INT"], ["t", "BIGINT"]]},
        "pipeline": [{"operator": "GroupAggregate", "id": "inner", "group_by": ["d"],
                      "aggregates": [{"function": "LATEST_BY_TIME", "args": ["st", "t"], "as": "v"}]}],
        "steps": [{"at": 1, "row": ["a", 1, null]}, {"at": 2, "row": ["a", 2, 5]}]}"#;
    page.set_textarea("#scenario-json", scenario);
    page.click("#load").await;
    page.click("#step").await;
    assert!(page.text("#happened").contains(
        "stopped: steps[0]: operator 'inner' failed on +I[a, 1, null]: LATEST_BY_TIME: the time argument is NULL"
    ));
    assert!(page.is_disabled("#step") && page.is_disabled("#play"));
    assert_eq!(page.text("#blocked"), "the simulation stopped: Reset to start again");
    page.click("#reset").await;
    assert!(!page.is_disabled("#step"));
}

#[wasm_bindgen_test]
async fn play_steps_by_itself_and_pauses() {
    let page = Page::open().await;
    // The first beat (×1: 0.9 s, not earlier; a busy machine may delay it, and the next then
    // come at once), then pause in the same task as the check.
    let started = js_sys::Date::now();
    page.click_only("#play");
    until("Play's first beat", || page.text("#progress") != "step 0 / 4").await;
    let (at, elapsed) = (page.text("#progress"), js_sys::Date::now() - started);
    assert_eq!(page.text("#play"), "❚❚ Pause");
    page.click("#play").await;
    assert_eq!(page.text("#play"), "▷ Play");
    assert_eq!(page.text("#progress"), at, "paused where the beat left it");
    let beats: f64 = at.trim_start_matches("step ").split(' ').next().unwrap().parse().unwrap();
    assert!(beats >= 1.0 && elapsed >= beats * 900.0 - 10.0, "{at} after {elapsed} ms of beats of 0.9 s");
    // Paused: no beat comes any more (two beats' time; a slower machine only makes it surer).
    gloo_timers::future::TimeoutFuture::new(1_800).await;
    settle().await;
    assert_eq!(page.text("#progress"), at, "paused: no beat");
}
