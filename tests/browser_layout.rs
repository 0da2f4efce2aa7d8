//! The page's layout in a real headless browser, measured: the controls keep the scrubber at one
//! height while stepping seed 001 (the next timer's label changes) and with an advance-by error
//! shown; at 400 px wide nothing is wider than its container (a wide table scrolls inside its
//! own box). The simulator is mounted with its stylesheets (`mount()`, into a shadow root) in a
//! `<div>` of the wanted width.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, Page};
use flink_state_sim::ui::mount::{mount, Simulator};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A fresh `<div>` of `width` px in the test page.
fn host(width: u32) -> Element {
    let el = document().create_element("div").unwrap();
    el.set_attribute("style", &format!("width: {width}px")).unwrap();
    document().body().unwrap().append_child(&el).unwrap();
    el
}

fn mounted(host: &Element, preset: &str) -> (Simulator, Page) {
    let sim = mount(host.clone().into(), JsValue::from_str(preset), JsValue::UNDEFINED)
        .unwrap_or_else(|_| panic!("mount {preset}"));
    let root = host.shadow_root().expect("a shadow root");
    (sim, Page { root: root.query_selector(".fss-host").unwrap().expect("a simulator in the shadow root") })
}

/// The whole page (`App`) in a `<div>` of `width` px, with the page's stylesheets in the document.
async fn styled_page(width: u32) -> Page {
    common::browser::with_page_styles();
    let page = Page::open().await;
    page.root.set_attribute("style", &format!("width: {width}px")).unwrap();
    settle().await;
    page
}

fn top(page: &Page, selector: &str) -> f64 {
    page.get(selector).get_bounding_client_rect().top()
}

fn height(page: &Page, selector: &str) -> f64 {
    page.get(selector).get_bounding_client_rect().height()
}

#[wasm_bindgen_test]
async fn the_scrubber_stays_put_while_stepping_and_with_an_advance_error_at_1280() {
    let page = styled_page(1280).await;
    let inner = web_sys::window().unwrap().inner_width().unwrap().as_f64().unwrap();
    assert!(inner > 700.0, "the test window is {inner} px wide: the narrow layout's media queries would apply");
    assert_eq!(page.text("#progress"), "step 0 / 4", "seed 001 opens");
    let scrubber = top(&page, "#scrubber");
    let controls = height(&page, ".controls");
    assert!(scrubber > 0.0 && controls > 0.0);
    // One line of controls: every control's top within the row's first line.
    let one_line = |page: &Page| {
        let list = page.root.query_selector_all(".controls > *").unwrap();
        let row = page.get(".controls").get_bounding_client_rect();
        (0..list.length())
            .filter_map(|i| list.item(i))
            .map(|n| n.unchecked_into::<Element>().get_bounding_client_rect())
            .all(|r| r.bottom() <= row.bottom() && r.top() >= row.top())
    };
    assert!(one_line(&page), "the controls fit on one line at 1280 px");
    let mut labels = Vec::new();
    for step in 1..=4 {
        page.click("#step").await;
        labels.push(page.text("#next-timer"));
        assert_eq!(top(&page, "#scrubber"), scrubber, "scrubber's y after step {step} ({})", page.text("#next-timer"));
        assert_eq!(height(&page, ".controls"), controls, "the controls' height after step {step}");
    }
    // The steps did change the label the row used to wrap on (long from step 1, short again once
    // the last timer has fired).
    assert_eq!(
        labels,
        [
            "⇥ next timer (2019-11-22 15:00)",
            "⇥ next timer (2019-11-22 15:00)",
            "⇥ next timer (2019-11-23 16:00)",
            "⇥ next timer"
        ]
    );
    // Back to step 0 (no timer: the short label), then a bad duration typed and submitted.
    for _ in 0..4 {
        page.click("#step-back").await;
    }
    assert_eq!(page.text("#next-timer"), "⇥ next timer");
    assert_eq!(top(&page, "#scrubber"), scrubber, "at step 0");
    page.type_into("#advance-by", "abc").await;
    assert_eq!(page.attr("#advance-error", "role"), "alert");
    assert_eq!(top(&page, "#scrubber"), scrubber, "with the typed error shown");
    page.click("#advance").await;
    let error = page.get("#step-error");
    assert_eq!(error.get_attribute("role").as_deref(), Some("alert"));
    assert_eq!(page.text("#step-error"), "advance by 'abc': text does not start with a number ('abc')");
    assert_eq!(page.attr("#advance-by", "aria-describedby"), "step-error");
    assert_eq!(top(&page, "#scrubber"), scrubber, "with the advance error shown");
    assert_eq!(height(&page, ".controls"), controls);
    assert!(one_line(&page), "still one line with the error");
    // The error is visible next to its box: just under it, starting at its left edge.
    let (e, field) = (error.get_bounding_client_rect(), page.get("#advance-by").get_bounding_client_rect());
    assert!(e.width() > 100.0 && e.height() > 10.0, "the error is shown: {}×{}", e.width(), e.height());
    assert!(
        e.top() >= field.bottom() && e.top() - field.bottom() < 8.0,
        "under the box: {} vs {}",
        e.top(),
        field.bottom()
    );
    assert!((e.left() - field.left()).abs() < 1.0, "at the box's left: {} vs {}", e.left(), field.left());
    // Going back leaves the fork row below the scrubber, not above it.
    page.type_into("#advance-by", "1 h").await;
    page.step(3).await;
    page.click("#step-back").await;
    assert!(page.find("#fork").is_some());
    assert_eq!(top(&page, "#scrubber"), scrubber, "with the fork row shown");
    // Advanced past the next step: Step is blocked and says why, under itself, the row unmoved.
    page.click("#fork").await;
    page.type_into("#advance-by", "3 d").await;
    page.click("#advance").await;
    assert_eq!(page.text("#blocked"), "time is past the next step: ◀ Back or Reset to run it");
    assert_eq!(top(&page, "#scrubber"), scrubber, "with the blocked hint shown");
    assert_eq!(height(&page, ".controls"), controls);
    assert!(one_line(&page), "still one line with the blocked hint");
}

/// Elements that stick out to the right of `container`, unless a scrolling or clipping box inside
/// it holds them: "tag#id.class: right edge".
fn sticking_out(page: &Page, container: &Element) -> Vec<String> {
    let right = container.get_bounding_client_rect().right() + 0.5;
    let window = web_sys::window().unwrap();
    let clipped = |e: &Element| {
        let mut a = e.parent_element();
        while let Some(p) = a {
            if p.is_same_node(Some(container)) {
                return false;
            }
            let style = window.get_computed_style(&p).unwrap().unwrap();
            if style.get_property_value("overflow-x").unwrap() != "visible" {
                return true;
            }
            a = p.parent_element();
        }
        false
    };
    let list = page.root.query_selector_all("*").unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|n| n.unchecked_into::<Element>())
        .filter(|e| {
            let r = e.get_bounding_client_rect();
            r.width() > 0.0 && r.right() > right && !clipped(e)
        })
        .map(|e| {
            format!(
                "{}#{}.{}: {}",
                e.tag_name(),
                e.id(),
                e.get_attribute("class").unwrap_or_default(),
                e.get_bounding_client_rect().right()
            )
        })
        .collect()
}

#[wasm_bindgen_test]
async fn at_400_px_nothing_is_wider_than_its_container() {
    for preset in ["seed-001-one-day-two-days", "seed-004-device-status-flink-2.3"] {
        let h = host(400);
        let (sim, page) = mounted(&h, preset);
        sim.seek(JsValue::from(2)).unwrap();
        settle().await;
        let fss = page.get(".fss");
        assert_eq!(fss.get_bounding_client_rect().width(), 400.0);
        assert_eq!(sticking_out(&page, &fss), Vec::<String>::new(), "{preset}");
        assert!(fss.scroll_width() <= fss.client_width(), "{preset}: {} > {}", fss.scroll_width(), fss.client_width());
        // The operators' state table fits its card: its headers wrap at capitals.
        let list = page.root.query_selector_all(".operator").unwrap();
        for op in (0..list.length()).filter_map(|i| list.item(i)).map(|n| n.unchecked_into::<Element>()) {
            assert!(
                op.scroll_width() <= op.client_width(),
                "{preset}: {} {} > {}",
                op.id(),
                op.scroll_width(),
                op.client_width()
            );
        }
        h.remove();
    }
}

#[wasm_bindgen_test]
async fn at_400_px_the_scrubber_label_goes_under_the_slider_whole() {
    let page = styled_page(400).await;
    page.choose("#preset-select", "seed-004-device-status-flink-2.3").await;
    page.step(2).await;
    assert_eq!(page.text("#scrub-position"), "action 2 / 2 · 2019-11-21 14:44:34");
    let (label, slider, row) = (
        page.get("#scrub-position").get_bounding_client_rect(),
        page.get("#scrubber").get_bounding_client_rect(),
        page.get(".scrub-row").get_bounding_client_rect(),
    );
    assert!(label.right() <= row.right() + 0.5, "the label ends inside the row: {} > {}", label.right(), row.right());
    assert!(label.top() >= slider.bottom(), "under the slider: {} < {}", label.top(), slider.bottom());
    assert!(row.right() <= 400.5, "the row is no wider than the page: {}", row.right());
}

#[wasm_bindgen_test]
async fn at_400_px_every_panel_in_the_compact_layout_fits() {
    let all = r#"{"layout": "compact", "panels": ["timeline", "happened", "operators", "result", "flow", "charts", "inspector"]}"#;
    for preset in ["seed-001-one-day-two-days", "seed-004-device-status-flink-2.3"] {
        let h = host(400);
        let options = js_sys::JSON::parse(all).unwrap();
        let sim =
            mount(h.clone().into(), JsValue::from_str(preset), options).unwrap_or_else(|_| panic!("mount {preset}"));
        let root = h.shadow_root().expect("a shadow root");
        let page = Page { root: root.query_selector(".fss-host").unwrap().expect("a simulator in the shadow root") };
        sim.seek(JsValue::from(2)).unwrap();
        settle().await;
        // The inspector open, its table laid out as the narrow simulator's list of keys.
        page.get("#inspector").unchecked_into::<web_sys::HtmlDetailsElement>().set_open(true);
        common::browser::until("the inspector's table", || page.find("#inspector-table").is_some()).await;
        settle().await;
        let fss = page.get(".fss");
        assert_eq!(fss.get_bounding_client_rect().width(), 400.0);
        for part in ["#timeline", "#happened", "#flow", "#charts", "#inspector-table"] {
            assert!(page.get(part).get_bounding_client_rect().width() > 100.0, "{preset}: {part} is laid out");
        }
        assert_eq!(sticking_out(&page, &fss), Vec::<String>::new(), "{preset}");
        assert!(fss.scroll_width() <= fss.client_width(), "{preset}: {} > {}", fss.scroll_width(), fss.client_width());
        drop(page);
        h.remove();
    }
}

/// The next-timer button's "⚠ skips the input" callout hangs over the scrubber's left end: a
/// click there reaches the scrubber (trial 18: it swallowed the clicks). And a scenario's title
/// keeps its text direction inside it (a link's title may hold U+202E).
#[wasm_bindgen_test]
async fn the_skip_callout_lets_clicks_through_and_the_title_is_isolated() {
    let page = styled_page(1280).await;
    page.click("#step").await;
    // In view, whatever the tests before this one left in the document above it
    // (`elementFromPoint` finds nothing outside the viewport); the scroll is undone below, for
    // the tests after this one.
    let window = web_sys::window().unwrap();
    let scrolled = (window.scroll_x().unwrap(), window.scroll_y().unwrap());
    page.get("#scrubber").scroll_into_view_with_bool(true);
    let callout = page.get("#next-timer-skips").get_bounding_client_rect();
    let scrubber = page.get("#scrubber").get_bounding_client_rect();
    let overlap = (callout.left().max(scrubber.left()), callout.right().min(scrubber.right()));
    let (top, bottom) = (callout.top().max(scrubber.top()), callout.bottom().min(scrubber.bottom()));
    assert!(overlap.0 < overlap.1 && top < bottom, "the callout no longer overlaps the scrubber: {callout:?}");
    let hit = document().element_from_point(((overlap.0 + overlap.1) / 2.0) as f32, ((top + bottom) / 2.0) as f32);
    assert_eq!(
        hit.map(|e| e.id()),
        Some("scrubber".to_string()),
        "a click where the callout hangs reaches the scrubber"
    );
    window.scroll_to_with_x_and_y(scrolled.0, scrolled.1);
    let style = web_sys::window().unwrap().get_computed_style(&page.get("#scenario-title")).unwrap().unwrap();
    assert_eq!(style.get_property_value("unicode-bidi").unwrap(), "isolate");
}

/// While "▶| to end" runs, Cancel and the progress take the button's place and width: no control
/// of the row moves (trial 18: the row reflowed, the next-timer button jumping to a second line).
#[wasm_bindgen_test]
async fn running_to_the_end_moves_no_control() {
    let page = styled_page(1280).await;
    // Its clock starts as "2019-11-20 10:00" and runs into "2019-11-20 16:34:07.650", its step
    // count from "step 0" into "step 40960" (trial 26: the row moved 107 px under the pointer).
    page.choose("#preset-select", "seed-000-topn-dedup").await;
    let places = |page: &Page| -> Vec<(String, i64, i64)> {
        ["#step", "#next-timer", "#advance-by", "#scrubber", "#run-all, #to-end-cancel"]
            .iter()
            .map(|s| {
                let r = page.get(s).get_bounding_client_rect();
                (s.to_string(), r.left().round() as i64, r.top().round() as i64)
            })
            .collect()
    };
    let before = places(&page);
    page.get("#run-all").unchecked_into::<web_sys::HtmlElement>().click();
    common::browser::until("the run going", || page.find("#to-end-cancel").is_some()).await;
    assert_eq!(places(&page), before, "the controls while running to the end");
    common::browser::until("a few steps run", || {
        page.text("#now").len() > "2019-11-20 10:00".len() && page.text("#progress").len() > "step 1000 / 400006".len()
    })
    .await;
    assert_eq!(places(&page), before, "the controls at {} ({})", page.text("#now"), page.text("#progress"));
    // The next-timer button's "skips the input" callout waits for the run's end (it would change
    // on every slice, over the run's note).
    assert!(page.find("#next-timer-skips").is_none(), "the skip callout while running");
    page.click("#to-end-cancel").await;
    assert!(page.find("#next-timer-skips").is_some(), "the skip callout where the run stopped");
}

/// At 400 px the next-timer button's "⚠ skips the input" callout sits under its button in the
/// row's flow, not over the "advance by" field of the wrapped row (trial 19: it hid the field).
#[wasm_bindgen_test]
async fn at_400_px_the_skip_callout_covers_nothing() {
    common::browser::with_page_styles();
    let h = host(400);
    // As the trial's embed: compact, two panels.
    let options = js_sys::JSON::parse(r#"{"layout": "compact", "panels": ["timeline", "happened"]}"#).unwrap();
    let sim = mount(h.clone().into(), JsValue::from_str("seed-001-one-day-two-days"), options)
        .unwrap_or_else(|_| panic!("mount"));
    let root = h.shadow_root().expect("a shadow root");
    let page = Page { root: root.query_selector(".fss-host").unwrap().expect("a simulator in the shadow root") };
    sim.seek(JsValue::from(2)).unwrap();
    settle().await;
    let callout = page.get("#next-timer-skips").get_bounding_client_rect();
    assert!(callout.width() > 0.0, "the callout is shown at step 2");
    for other in ["#advance-by", "label[for='advance-by']", "#step"] {
        let r = page.get(other).get_bounding_client_rect();
        let overlap = callout.left() < r.right()
            && r.left() < callout.right()
            && callout.top() < r.bottom()
            && r.top() < callout.bottom();
        let at = |r: &web_sys::DomRect| (r.left(), r.top(), r.right(), r.bottom());
        assert!(!overlap, "the callout {:?} overlaps {other} {:?} (left, top, right, bottom)", at(&callout), at(&r));
    }
    drop(page);
    h.remove();
}

/// The compact embed at 1280 px: the next timer's "⚠ skips the input" callout sits in the row's
/// flow, covering neither the timeline's legend nor a button (it hung over the legend once the
/// row fitted on one line), and without it the row's last button, ⌨ keys, is on the first line
/// (trial 20: it wrapped alone).
#[wasm_bindgen_test]
async fn at_1280_px_the_compact_controls_fit_one_line_and_the_skip_callout_covers_nothing() {
    let h = host(1280);
    let options = js_sys::JSON::parse(r#"{"layout": "compact"}"#).unwrap();
    let sim = mount(h.clone().into(), JsValue::from_str("seed-001-one-day-two-days"), options).unwrap();
    let root = h.shadow_root().expect("a shadow root");
    let page = Page { root: root.query_selector(".fss-host").unwrap().expect("a simulator in the shadow root") };
    settle().await;
    let top = |selector: &str| page.get(selector).get_bounding_client_rect().top();
    assert!((top("#keys-help") - top("#step")).abs() < 4.0, "⌨ keys on the first line, with Step");
    sim.seek(JsValue::from(2)).unwrap();
    settle().await;
    let callout = page.get("#next-timer-skips").get_bounding_client_rect();
    assert!(callout.width() > 0.0);
    let list = page
        .root
        .query_selector_all(".controls button, .controls select, .controls input, .timeline .legend li")
        .unwrap();
    for i in 0..list.length() {
        let e = list.item(i).unwrap().dyn_into::<web_sys::Element>().unwrap();
        let r = e.get_bounding_client_rect();
        let apart = r.bottom() <= callout.top()
            || r.top() >= callout.bottom()
            || r.right() <= callout.left()
            || r.left() >= callout.right();
        assert!(apart, "the callout covers '{}'", e.text_content().unwrap_or_default());
    }
    drop(page);
    h.remove();
}

/// While "▶| to end" runs below 1 200 px, its hint is not drawn (its words are the box's
/// title): at 400 px it stuck out of the simulator (trial 24), at 1 000 px it covered the next
/// row's controls (trial 25), stacked under Cancel it moved the rows below (trial 26).
#[wasm_bindgen_test]
async fn at_400_px_to_end_s_hint_stays_within_the_simulator() {
    let h = host(400);
    let (_sim, page) = mounted(&h, "what-if-100k-logins");
    settle().await;
    let places = |page: &Page| -> Vec<(i64, i64)> {
        ["#step", "#next-timer", "#advance-by", "#timeline"]
            .iter()
            .map(|s| page.get(s).get_bounding_client_rect())
            .map(|r| (r.left().round() as i64, r.top().round() as i64))
            .collect()
    };
    let before = places(&page);
    page.get("#run-all").unchecked_into::<web_sys::HtmlElement>().click();
    common::browser::until("the run going", || page.find("#to-end-cancel").is_some()).await;
    let fss = page.get(".fss");
    assert_eq!(sticking_out(&page, &fss), Vec::<String>::new());
    assert_eq!(page.get(".to-end .hint").get_bounding_client_rect().width(), 0.0, "the hint is not drawn");
    assert_eq!(places(&page), before, "the controls while running to the end");
    page.click("#to-end-cancel").await;
    settle().await;
    h.remove();
    // At 1 000 px the hint would hang over the next row's controls (trial 25): not drawn, its
    // words the box's title.
    let h = host(1000);
    let (_sim, page) = mounted(&h, "what-if-100k-logins");
    settle().await;
    page.get("#run-all").unchecked_into::<web_sys::HtmlElement>().click();
    common::browser::until("the run going", || page.find("#to-end-cancel").is_some()).await;
    assert_eq!(page.get(".to-end .hint").get_bounding_client_rect().width(), 0.0, "the hint is not drawn");
    assert_eq!(page.attr("#to-end", "title"), "running to the end: the views below catch up when it stops");
    assert_eq!(sticking_out(&page, &page.get(".fss")), Vec::<String>::new());
    page.click("#to-end-cancel").await;
    settle().await;
    h.remove();
}

/// At 320 px the header's preset list (as wide as its longest option) fits the page (trial 28:
/// 4 px of sideways scroll and the list cut off at the right edge).
#[wasm_bindgen_test]
async fn at_320_px_the_preset_list_fits_the_page() {
    let page = styled_page(320).await;
    let fss = page.get(".fss");
    let right = fss.get_bounding_client_rect().right() + 0.5;
    for part in ["#preset-select", "#flink-select"] {
        let r = page.get(part).get_bounding_client_rect();
        assert!(r.width() > 100.0 && r.right() <= right, "{part}: {} > {right}", r.right());
    }
}
