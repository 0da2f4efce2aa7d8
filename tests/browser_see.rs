//! The "See" views in a real headless browser: the retraction flow (select an input, select a
//! result row, stale rows with where the loss happened), the charts (points, a cursor that moves
//! on Step, also in the what-if result) and the state inspector (a TTL-expired-but-stored entry).
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, until, Page};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Event, EventInit, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Steps until Step is disabled (the end of the scenario).
async fn step_to_end(page: &Page) {
    for _ in 0..200 {
        if page.is_disabled("#step") {
            return;
        }
        page.click("#step").await;
    }
    panic!("the scenario never ended");
}

fn classes(page: &Page, selector: &str) -> Vec<String> {
    let list = page.root.query_selector_all(selector).unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
        .map(|e| e.class_name())
        .collect()
}

#[wasm_bindgen_test]
async fn a_selected_input_lights_up_what_it_caused_down_to_the_result_row() {
    let page = Page::open().await;
    page.choose("#preset-select", "seed-004-device-status").await;
    page.step(2).await;
    assert_eq!(
        page.texts("#flow-inputs .flow-input .msg-text"),
        ["(true,dev1,1,1574347472000)", "(true,dev1,0,1574347474000)"]
    );
    assert!(page.texts("#flow-rows .flow-row.hl").is_empty(), "nothing lit before a selection");
    // The second input: dev1 moves from status 1 to 0.
    page.click("#flow-inputs li:nth-child(2) .flow-input").await;
    assert_eq!(page.attr("#flow-inputs li:nth-child(2) .flow-input", "aria-pressed"), "true");
    assert!(
        page.text("#flow-status").starts_with("input #2 (true,dev1,0,1574347474000)"),
        "{}",
        page.text("#flow-status")
    );
    // Every message it caused, on every edge, is marked, the retractions with their kind as text.
    assert_eq!(
        page.texts(".fmsgs .msg.hl"),
        ["▶ (true,dev1,0,1574347474000)", "▶ (false,dev1,1)", "▶ (true,dev1,0)", "▶ (false,1,1)", "▶ (true,0,1)"]
    );
    assert!(page.text("#flow-op-outer .fchanges .hl.state_cleared").contains("the input counter reached 0"));
    assert_eq!(page.texts("#flow-rows .flow-row.hl"), ["▶ [0, 1]"]);
    assert_eq!(page.text("#flow-rows .depends"), "depends on input #1, #2");
    // The reverse: the row lights up both inputs and the chain that produced it.
    page.click("#flow-rows .flow-row").await;
    assert_eq!(page.texts("#flow-inputs .flow-input.hl").len(), 2);
    assert_eq!(page.texts(".fmsgs .msg.hl"), ["▶ (true,dev1,0,1574347474000)", "▶ (true,dev1,0)", "▶ (true,0,1)"]);
    page.click("#flow-clear").await;
    assert!(page.texts(".fmsgs .msg.hl").is_empty());
}

#[wasm_bindgen_test]
async fn a_stale_row_says_where_the_state_was_lost() {
    let page = Page::open().await;
    // seed-001: u1's cleanup timer fires at 2019-11-23 16:00 and clears its count silently.
    step_to_end(&page).await;
    assert_eq!(classes(&page, "#flow-rows .flow-row-item"), ["flow-row-item stale"]);
    assert_eq!(
        page.text("#flow-rows .loss"),
        "⚠ stale since 2019-11-23 16:00: logins_per_user lost key u1 at 2019-11-23 16:00: its cleanup timer for \
         2019-11-23 16:00 fired and cleared it; nothing was emitted"
    );
}

#[wasm_bindgen_test]
async fn the_charts_have_points_and_the_cursor_moves_on_step() {
    let page = Page::open().await;
    let cursor = |page: &Page| page.attr("#charts-0-cursor", "x1").parse::<f64>().unwrap();
    let before = cursor(&page);
    assert_eq!(before, 0.0, "at the start of the run");
    page.click("#step").await;
    page.click("#step").await;
    let after = cursor(&page);
    assert!(after > before, "{before} → {after}");
    let points = page.attr("#charts-0 polyline.s0", "points");
    assert!(points.split(' ').count() > 2, "{points}");
    assert!(page.text("#charts-0 figcaption").contains("entries stored 3"), "{}", page.text("#charts-0 figcaption"));
    assert!(page.texts("#charts .tick text").iter().any(|t| t == "11-21"), "{:?}", page.texts("#charts .tick text"));
    assert!(page.text("#charts-2 figcaption").contains("(true,…) 2"), "{}", page.text("#charts-2 figcaption"));
    // The charts follow the timeline's view; "whole run" shows the timeline's whole domain (the
    // run and every pending timer) whatever the view, and gives the view back when released.
    let range = |page: &Page| page.text("#charts-range");
    let unzoomed = range(&page);
    page.click("#tl-zoom-in").await;
    page.click("#tl-zoom-in").await;
    let zoomed = range(&page);
    assert_ne!(zoomed, unzoomed, "the charts follow the zoomed view");
    page.click("#charts-whole").await;
    assert_eq!(page.attr("#charts-whole", "aria-pressed"), "true");
    // The timeline's domain: from the first input to the last cleanup timer (11-24 00:00, the
    // scenario's end too), whatever the view.
    assert_eq!(range(&page), "3 samples; 11-20 15:00 – 11-24 00:00; cursor at 2019-11-20 16:00");
    page.click("#charts-whole").await;
    assert_eq!(range(&page), zoomed);
}

#[wasm_bindgen_test]
async fn the_inspector_shows_an_expired_but_stored_entry() {
    let page = Page::open().await;
    page.choose("#preset-select", "seed-002-dau-new-users-global-ttl").await;
    step_to_end(&page).await;
    // The flow says which row a restarted state made wrong: u1 counted as new again on 11-21.
    assert_eq!(
        page.texts("#flow-rows .loss.restarted"),
        ["↺ computed from a state that started empty again after: OverAggregate[3] lost key u1 at 2019-11-21 09:00: state TTL \
          expired (last access 2019-11-18 09:00 + ttl <= now); a read at 2019-11-21 10:00 removed it; nothing was \
          emitted"]
    );
    assert!(page.find("#inspector-table").is_none(), "nothing computed while closed");
    // Opening fires `toggle` in a task of its own: wait for the table it shows.
    page.get("#inspector").dyn_into::<web_sys::HtmlDetailsElement>().unwrap().set_open(true);
    until("the inspector's table", || page.find("#inspector-table").is_some()).await;
    settle().await;
    assert_eq!(page.texts("#inspector-table tr.i-expired th.key"), ["u1", "u3"]);
    assert_eq!(
        page.text("#inspector-table tr.i-expired .status"),
        "expired at 2019-11-24 10:00 — still stored, invisible to reads"
    );
    assert!(page.text("#inspector-table tr.i-expired td").contains("(0 of 1 entries visible)"));
    // The filter box narrows the keys.
    let input = page.get("#inspector-filter").dyn_into::<HtmlInputElement>().unwrap();
    input.set_value("u2");
    let init = EventInit::new();
    init.set_bubbles(true);
    input.dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    settle().await;
    assert_eq!(page.texts("#inspector-table th.key"), ["u2"]);
    assert!(
        page.text("#inspector-count").contains("1 of 1 matching keys shown (4 stored"),
        "{}",
        page.text("#inspector-count")
    );
}

#[wasm_bindgen_test]
async fn the_what_if_result_has_charts() {
    let page = Page::open().await;
    page.enter("#wi-events", "2000").await;
    page.enter("#wi-keys", "100").await;
    page.click("#wi-run").await;
    until("the what-if result's charts", || page.find("#wi-charts").is_some()).await;
    // seed-001's COUNT(*) GROUP BY user_id over 100 keys: 100 keys held at the end, 2000 rows emitted.
    assert!(page.text("#wi-charts-0 figcaption").contains("keys 100"), "{}", page.text("#wi-charts-0 figcaption"));
    assert!(page.text("#wi-charts-2 figcaption").contains("(true,…) 2000"), "{}", page.text("#wi-charts-2 figcaption"));
    assert!(page.attr("#wi-charts-0 polyline.s2", "points").split(' ').count() > 10);
}

/// A key's label on the timeline opens the state inspector on that key: its operator chosen, its
/// label as the search (trial 19: nothing led from a lane to the key's state). Enter does the same.
#[wasm_bindgen_test]
async fn a_key_label_on_the_timeline_opens_the_inspector_on_that_key() {
    let page = Page::open().await;
    page.choose("#preset-select", "seed-002-dau-new-users-global-ttl").await;
    step_to_end(&page).await;
    assert!(page.find("#inspector-table").is_none(), "closed at first");
    let labels = page.root.query_selector_all("#tl-lanes .lane").unwrap();
    // The last operator's lane of key u2.
    let lane = (0..labels.length())
        .filter_map(|i| labels.item(i)?.dyn_into::<web_sys::Element>().ok())
        .filter(|l| l.get_attribute("data-key").as_deref() == Some("u2"))
        .last()
        .expect("a lane of u2");
    let op = lane.get_attribute("data-op").unwrap();
    let label = lane.query_selector(".lane-label.inspectable").unwrap().expect("a clickable label");
    assert_eq!(label.get_attribute("role").as_deref(), Some("button"));
    label.dispatch_event(&web_sys::MouseEvent::new("click").unwrap()).unwrap();
    until("the inspector's table", || page.find("#inspector-table").is_some()).await;
    settle().await;
    assert!(page.get("#inspector").dyn_into::<web_sys::HtmlDetailsElement>().unwrap().open());
    assert_eq!(page.get("#inspector-filter").dyn_into::<HtmlInputElement>().unwrap().value(), "u2");
    let chosen = page.root.query_selector("#inspector-op option:checked").unwrap().and_then(|o| o.text_content());
    assert_eq!(chosen.as_deref(), Some(op.as_str()));
    assert_eq!(page.texts("#inspector-table th.key"), ["u2"]);
    // Enter on another key's label (the first lane) shows that one.
    let first = page.get("#tl-lanes .lane");
    let key = first.get_attribute("data-key").unwrap();
    let init = web_sys::KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_bubbles(true);
    let enter = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    first.query_selector(".lane-label").unwrap().unwrap().dispatch_event(&enter).unwrap();
    settle().await;
    assert_eq!(page.get("#inspector-filter").dyn_into::<HtmlInputElement>().unwrap().value(), key);
}
