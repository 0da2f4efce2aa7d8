//! The book's scenarios (`book/scenarios/`) in embedded simulators, in a real headless browser:
//! each mounts as a chapter's `<flink-state-sim>` does and steps to its end, and a lane of many
//! cleanup timers draws time labels that do not overlap.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, Page};
use flink_state_sim::ui::mount::define_element;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// Every book scenario (tests/book.rs checks that this lists them all, and that the chapters embed
/// only these).
const BOOK: [(&str, &str); 17] = [
    ("churn-gap-1h", include_str!("../book/scenarios/churn-gap-1h.json")),
    ("churn-min-equals-max", include_str!("../book/scenarios/churn-min-equals-max.json")),
    ("cleanup-harness-min5-max10", include_str!("../book/scenarios/cleanup-harness-min5-max10.json")),
    ("dedup-keep-first-ttl", include_str!("../book/scenarios/dedup-keep-first-ttl.json")),
    (
        "idle-state-retention-becomes-ttl-1.12",
        include_str!("../book/scenarios/idle-state-retention-becomes-ttl-1.12.json"),
    ),
    ("retraction-after-cleanup-1.6-legacy", include_str!("../book/scenarios/retraction-after-cleanup-1.6-legacy.json")),
    (
        "retraction-after-cleanup-dropped-1.10-legacy",
        include_str!("../book/scenarios/retraction-after-cleanup-dropped-1.10-legacy.json"),
    ),
    (
        "seed-000-topn-dedup-no-retention-steps",
        include_str!("../book/scenarios/seed-000-topn-dedup-no-retention-steps.json"),
    ),
    ("seed-000-topn-dedup-steps", include_str!("../book/scenarios/seed-000-topn-dedup-steps.json")),
    ("seed-001-one-day-two-days", include_str!("../book/scenarios/seed-001-one-day-two-days.json")),
    ("seed-002-dau-new-users-global-ttl", include_str!("../book/scenarios/seed-002-dau-new-users-global-ttl.json")),
    (
        "seed-002-dau-new-users-per-operator-ttl",
        include_str!("../book/scenarios/seed-002-dau-new-users-per-operator-ttl.json"),
    ),
    ("seed-004-device-status-flink-2.3", include_str!("../book/scenarios/seed-004-device-status-flink-2.3.json")),
    ("seed-004-device-status", include_str!("../book/scenarios/seed-004-device-status.json")),
    ("stale-cleanup-timers-1.7-legacy", include_str!("../book/scenarios/stale-cleanup-timers-1.7-legacy.json")),
    ("topn-dedup-state-ttl-2.3", include_str!("../book/scenarios/topn-dedup-state-ttl-2.3.json")),
    ("ttl-expired-on-read", include_str!("../book/scenarios/ttl-expired-on-read.json")),
];

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A `<flink-state-sim>` as a chapter writes it: the scenario's JSON in a script child.
async fn element(json: &str, width: u32) -> Element {
    define_element(None);
    let el = document().create_element("flink-state-sim").unwrap();
    el.set_attribute("style", &format!("width: {width}px")).unwrap();
    let script = document().create_element("script").unwrap();
    script.set_attribute("type", "application/json").unwrap();
    script.set_text_content(Some(json));
    el.append_child(&script).unwrap();
    document().body().unwrap().append_child(&el).unwrap();
    settle().await;
    el
}

fn inside(el: &Element) -> Page {
    let root = el.shadow_root().unwrap_or_else(|| panic!("no simulator: {:?}", el.text_content()));
    Page { root: root.query_selector(".fss-host").unwrap().expect("a simulator in the shadow root") }
}

#[wasm_bindgen_test]
async fn every_book_scenario_mounts_and_steps_to_its_end() {
    for (name, json) in BOOK {
        let el = element(json, 900).await;
        let page = inside(&el);
        let total: usize = page.text("#progress").rsplit(' ').next().unwrap().parse().unwrap();
        for _ in 0..total {
            page.click("#step").await;
        }
        assert_eq!(page.text("#progress"), format!("step {total} / {total}"), "{name}");
        assert!(page.is_disabled("#step"), "{name}: all steps ran");
        assert!(page.find(".error").is_none(), "{name}: {:?}", page.texts(".error"));
        drop(page);
        el.remove();
    }
}

#[wasm_bindgen_test]
async fn timer_labels_of_a_busy_lane_do_not_overlap() {
    // min = max = 1 h: each of 8 logins 10 minutes apart moves the timer; 7 deleted, 1 fired.
    let el = element(BOOK[1].1, 900).await;
    let page = inside(&el);
    for _ in 0..9 {
        page.click("#step").await;
    }
    let timers = page.root.query_selector_all("#timeline .timer").unwrap().length();
    assert_eq!(timers, 8);
    let labels = page.root.query_selector_all("#timeline .lane .tlabel").unwrap();
    let rects: Vec<(f64, f64, String)> = (0..labels.length())
        .map(|i| {
            let e = labels.item(i).unwrap().dyn_into::<Element>().unwrap();
            let r = e.get_bounding_client_rect();
            (r.left(), r.right(), e.text_content().unwrap_or_default())
        })
        .collect();
    assert!(rects.len() >= 2 && rects.len() < 8, "some labels elided, some kept: {rects:?}");
    for (i, a) in rects.iter().enumerate() {
        for b in &rects[i + 1..] {
            assert!(a.1 <= b.0 || b.1 <= a.0, "labels {a:?} and {b:?} overlap");
        }
    }
    assert!(page.find(r#"#timeline .timer.fired[data-timer="2019-11-20 12:10"]"#).is_some());
    // A label's text is its time, then its tooltip (`<title>`).
    assert!(rects.iter().any(|r| r.2.starts_with("11-20 12:10")), "the fired timer keeps its label: {rects:?}");
    drop(page);
    el.remove();
}
