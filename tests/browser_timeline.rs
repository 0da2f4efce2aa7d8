//! The timeline in headless Chromium, asserting what the DOM shows: an axis that does not rescale
//! while stepping, labels in human units that never overlap, no `.500` ticks on a 2-second run,
//! zoom, inputs that can never run not drawn, readable lanes at 400 px, the global key, and a
//! `LATEST_BY_TIME` state written as a time.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, until, Page};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The axis's placed tick labels.
fn tick_labels(page: &Page) -> Vec<String> {
    page.texts("#tl-axis .tick text")
}

/// (left, right) of every element matching `selector`, as laid out.
fn extents(page: &Page, selector: &str) -> Vec<(f64, f64)> {
    let list = page.root.query_selector_all(selector).unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
        .map(|e| {
            let r = e.get_bounding_client_rect();
            (r.left(), r.right())
        })
        .collect()
}

fn assert_no_overlap(mut spans: Vec<(f64, f64)>, what: &str) {
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    for w in spans.windows(2) {
        assert!(w[1].0 >= w[0].1, "{what}: {:?} overlaps {:?}", w[0], w[1]);
    }
}

/// Narrows the page to `width_px` and waits until the timeline is drawn at most that wide (its
/// `ResizeObserver` is told after the browser's next layout).
async fn resize(page: &Page, width_px: u32) {
    page.root.set_attribute("style", &format!("width: {width_px}px")).unwrap();
    web_sys::window().unwrap().dispatch_event(&web_sys::Event::new("resize").unwrap()).unwrap();
    let drawn = || page.attr("#tl-axis", "width").parse::<f64>().is_ok_and(|w| w <= f64::from(width_px));
    until(&format!("the timeline drawn at most {width_px} px wide"), drawn).await;
    settle().await;
}

#[wasm_bindgen_test]
async fn the_axis_stays_put_while_stepping_and_its_labels_never_overlap() {
    let page = Page::open().await;
    let first = tick_labels(&page);
    assert!(first.iter().all(|l| !l.contains("ms") && !l.contains('.')), "{first:?}");
    for _ in 0..4 {
        page.click("#step").await;
        assert_eq!(tick_labels(&page), first, "the ticks do not move at {}", page.text("#progress"));
        assert_no_overlap(extents(&page, "#tl-axis .tick text"), "tick labels");
        assert_no_overlap(extents(&page, "#tl-lanes .tlabel"), "timer labels");
    }
    assert_eq!(page.text("#tl-range"), "11-20 15:00 – 11-24 06:00");
    // Zoomed in, the ticks get finer and are still apart.
    page.click("#tl-zoom-in").await;
    page.click("#tl-zoom-in").await;
    assert_ne!(tick_labels(&page), first);
    assert_no_overlap(extents(&page, "#tl-axis .tick text"), "zoomed tick labels");
    page.click("#tl-fit").await;
    assert_eq!(tick_labels(&page), first, "fit shows the whole run again");
}

/// A generated run opens on a window that follows now (15 h of a 28-hour run here): "fit" shows
/// the whole run from its start, not that window again.
#[wasm_bindgen_test]
async fn fit_shows_a_generated_run_whole() {
    let page = Page::open().await;
    page.choose("#preset-select", "what-if-100k-logins").await;
    let window = page.text("#tl-range");
    page.click("#tl-fit").await;
    let whole = page.text("#tl-range");
    assert_ne!(whole, window, "the whole run, not the window that follows now");
    assert_eq!(whole.split(" – ").next(), window.split(" – ").next(), "both from the run's start: {window} / {whole}");
    assert_eq!(page.attr("#tl-follow", "aria-pressed"), "true", "and it still follows now");
}

#[wasm_bindgen_test]
async fn a_two_second_run_ticks_whole_seconds_and_a_harness_run_milliseconds() {
    let page = Page::open().await;
    page.choose("#preset-select", "seed-004-device-status").await;
    assert_eq!(tick_labels(&page), ["11-21 14:44:32", "14:44:33", "14:44:34"]);
    page.click("#step").await;
    assert_eq!(page.text("#op-inner td:nth-child(2)"), "st: 1 @ 2019-11-21 14:44:32", "LATEST_BY_TIME's time");
    // The operator's card says under its plan that LATEST_BY_TIME is no Flink built-in.
    assert!(page.text("#op-inner .plan-note").starts_with("LATEST_BY_TIME is not a Flink built-in"));
    page.choose("#preset-select", "cleanup-harness-min5-max10").await;
    let labels = tick_labels(&page);
    assert!(labels.len() >= 3 && labels.iter().all(|l| l.starts_with("t = ") && l.ends_with(" ms")), "{labels:?}");
}

/// An input time was advanced past can never run from here: it stays on the axis, greyed and not
/// draggable, saying so (trial 28: its mark vanished, and nothing said why); one still ahead can.
#[wasm_bindgen_test]
async fn inputs_that_can_never_run_are_drawn_greyed_and_say_why() {
    let page = Page::open().await;
    page.click("#step").await;
    assert!(page.find(r#"#tl-axis .input.done[data-step="0"]"#).is_some());
    assert!(page.find(r#"#tl-axis .input.upcoming[data-step="1"]"#).is_some());
    page.type_into("#advance-by", "1 d").await;
    page.click("#advance").await;
    assert_eq!(page.text("#now"), "2019-11-21 15:00");
    let passed = page.get(r#"#tl-axis .input[data-step="1"]"#);
    assert_eq!(passed.get_attribute("class").unwrap(), "input passed", "11-20 16:00 is before now: it can never run");
    assert!(!passed.has_attribute("tabindex") && passed.query_selector(".hit").unwrap().is_none(), "not draggable");
    assert!(page
        .attr(r#"#tl-axis .input[data-step="1"]"#, "aria-label")
        .ends_with("at 2019-11-20 16:00: not run — time was advanced past it (◀ Back or Reset to run it)"));
    assert!(page.find(r#"#tl-axis .input.upcoming[data-step="2"]"#).is_some(), "11-21 16:00 still can");
}

#[wasm_bindgen_test]
async fn at_400_px_the_lanes_stay_readable_and_the_global_key_is_said_once() {
    common::browser::with_page_styles();
    let page = Page::open().await;
    let scenario = r#"{"name": "g", "flink": "2.3", "state_ttl": "1 h",
        "source": {"name": "s", "schema": [["v", "INT"]]},
        "pipeline": [{"operator": "GroupAggregate", "id": "global", "aggregates": [{"function": "SUM", "args": ["v"], "as": "s"}]}],
        "steps": [{"at": "2019-11-20T10:00", "row": [1]}, {"at": "2019-11-20T10:10", "row": [2]}]}"#;
    page.set_textarea("#scenario-json", scenario);
    page.click("#load").await;
    page.step(2).await;
    resize(&page, 400).await;
    let axis_w: f64 = page.attr("#tl-axis", "width").parse().unwrap();
    assert!((300.0..=400.0).contains(&axis_w), "drawn at the page's width, not scaled: {axis_w}");
    let lane_h: f64 = page.attr("#tl-lanes .lane-bg", "height").parse().unwrap();
    assert!(lane_h >= 50.0, "a lane is {lane_h} px tall");
    let label = page.texts("#tl-lanes .lane-label tspan").concat();
    assert!(label.starts_with("global ") && label.matches("global").count() == 1, "{label}");
    // The now line passes each lane below its label, not through it (trial 20).
    let rects = |selector: &str| -> Vec<web_sys::DomRect> {
        let list = page.root.query_selector_all(selector).unwrap();
        (0..list.length())
            .map(|i| list.item(i).unwrap().dyn_into::<web_sys::Element>().unwrap().get_bounding_client_rect())
            .collect()
    };
    let (now, labels) = (rects("#tl-lanes .now-line"), rects("#tl-lanes .lane-label"));
    assert!(!now.is_empty() && !labels.is_empty());
    let line_x = now[0].left();
    assert!(labels.iter().any(|l| l.left() <= line_x && line_x <= l.right()), "the case: now is under a label's x");
    for n in &now {
        for l in &labels {
            let apart = n.bottom() <= l.top() || n.top() >= l.bottom() || n.right() < l.left() || n.left() > l.right();
            assert!(apart, "now line {}..{} crosses a label {}..{}", n.top(), n.bottom(), l.top(), l.bottom());
        }
    }
    assert_no_overlap(extents(&page, "#tl-axis .tick text"), "tick labels at 400 px");
    let legend = extents(&page, "#timeline .legend li");
    let one_line = page.root.query_selector_all("#timeline .legend li").unwrap();
    for i in 0..one_line.length() {
        let li = one_line.item(i).unwrap().dyn_into::<web_sys::HtmlElement>().unwrap();
        assert!(li.offset_height() < 24, "legend item '{}' wraps", li.text_content().unwrap_or_default());
    }
    assert!(!legend.is_empty());
    let key_cell = page.get("#op-global td.key");
    assert_eq!(key_cell.text_content().unwrap_or_default(), "(global)");
    // Its text's line boxes (the cell itself is as tall as the row's tallest cell).
    let range = web_sys::window().unwrap().document().unwrap().create_range().unwrap();
    range.select_node_contents(&key_cell).unwrap();
    let lines = range.get_client_rects().unwrap();
    let tops: std::collections::BTreeSet<i64> =
        (0..lines.length()).filter_map(|i| lines.item(i)).map(|r| r.top().round() as i64).collect();
    assert_eq!(tops.len(), 1, "(global) on one line, not {} lines", tops.len());
}

/// Whether `s` is a date-time in minutes without the year, `11-22 22:53`.
fn in_minutes(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 11
        && b.iter().enumerate().all(|(i, c)| match i {
            2 => *c == b'-',
            5 => *c == b' ',
            8 => *c == b':',
            _ => c.is_ascii_digit(),
        })
}

#[wasm_bindgen_test]
async fn a_zoomed_range_is_written_at_the_precision_of_its_ticks() {
    let page = Page::open().await;
    let lanes = page.get("#tl-lanes");
    let left = lanes.get_bounding_client_rect().left();
    // Ctrl + wheel at points that are no round time: the view's ends fall on odd milliseconds.
    for x in [333.0, 271.0] {
        let init = web_sys::WheelEventInit::new();
        init.set_ctrl_key(true);
        init.set_delta_y(-100.0);
        init.set_client_x((left + x) as i32);
        init.set_bubbles(true);
        init.set_cancelable(true);
        lanes.dispatch_event(&web_sys::WheelEvent::new_with_event_init_dict("wheel", &init).unwrap()).unwrap();
        settle().await;
    }
    let range = page.text("#tl-range");
    assert_ne!(range, "11-20 15:00 – 11-24 06:00", "zoomed in");
    // The ticks are hours (or minutes): the range has neither seconds nor milliseconds.
    assert!(
        tick_labels(&page).iter().all(|l| !l.contains('.') && l.matches(':').count() == 1),
        "{:?}",
        tick_labels(&page)
    );
    let ends: Vec<&str> = range.split(" – ").collect();
    assert!(ends.len() == 2 && ends.iter().all(|e| in_minutes(e)), "range {range:?}");
}

/// The cleanup-timer rule is stated once, beside the legend, with the scenario's min and max and
/// the Flink version's treatment of the old timer; a scenario without cleanup timers has none.
#[wasm_bindgen_test]
async fn the_cleanup_timer_rule_is_stated_beside_the_legend() {
    let page = Page::open().await;
    let rule = page.text("#tl-rule");
    assert!(rule.contains("min = 1 d, max = 2 d"), "{rule}");
    assert!(rule.contains("now + min > C, a timer is registered at now + max"), "{rule}");
    assert!(rule.contains("the timer at C is deleted"), "{rule}");
    assert_eq!(page.texts("#tl-rule").len(), 1);
    page.choose("#flink-select", "1.7-legacy").await;
    assert!(page.text("#tl-rule").contains("stays registered (Flink ≤ 1.7)"), "{}", page.text("#tl-rule"));
    page.choose("#preset-select", "seed-002-dau-new-users-global-ttl").await;
    assert!(page.find("#tl-rule").is_none(), "state TTL has no cleanup timers");
}

/// A scenario of 5 000 explicit inputs at the same time is drawn as groups of inputs on the axis
/// (how many each holds, what zooming in does), not 5 000 draggable marks (trial 19: loading a
/// 30 000-step scenario froze the page for seconds, 3 s of it creating the marks); 300 or fewer in
/// view are drawn one by one as before.
#[wasm_bindgen_test]
async fn thousands_of_inputs_are_drawn_as_groups_with_their_count() {
    let page = Page::open().await;
    // Times never go back: the first half at 10:00, the second at 11:00.
    let steps: Vec<String> = (0..5_000)
        .map(|i| format!(r#"{{"at": "2019-11-20T{}:00", "row": ["u{}"]}}"#, if i < 2_500 { 10 } else { 11 }, i % 97))
        .collect();
    let scenario = |steps: &[String]| {
        format!(
            r#"{{"name": "many", "flink": "2.3", "state_ttl": "1 h",
            "source": {{"name": "s", "schema": [["user_id", "STRING"]]}},
            "pipeline": [{{"operator": "GroupAggregate", "id": "c", "group_by": ["user_id"],
                          "aggregates": [{{"function": "COUNT", "args": ["*"], "as": "n"}}]}}],
            "steps": [{}]}}"#,
            steps.join(",")
        )
    };
    page.set_textarea("#scenario-json", &scenario(&steps));
    page.click("#load").await;
    settle().await;
    assert_eq!(page.text("#progress"), "step 0 / 5000");
    let counts: Vec<String> = {
        let groups = page.root.query_selector_all("#tl-axis .input.group").unwrap();
        (0..groups.length())
            .map(|i| {
                groups.get(i).unwrap().dyn_into::<web_sys::Element>().unwrap().get_attribute("data-count").unwrap()
            })
            .collect()
    };
    assert_eq!(counts, ["2500", "2500"], "one group at 10:00, one at 11:00");
    assert_eq!(page.texts("#tl-axis .input.group .count"), ["2.5k", "2.5k"], "each count written on the axis");
    assert_eq!(page.root.query_selector_all("#tl-axis .input[data-step]").unwrap().length(), 0);
    let label = page.attr("#tl-axis .input.group", "aria-label");
    assert!(label.starts_with("2500 inputs at ") && label.ends_with(" (0 done): zoom in to move one"), "{label}");
    page.step(3).await;
    settle().await;
    let label = page.attr("#tl-axis .input.group", "aria-label");
    assert!(label.ends_with(" (3 done): zoom in to move one"), "{label}");
    // Few inputs: each its own mark, draggable, as before.
    page.set_textarea("#scenario-json", &scenario(&steps[..2]));
    page.click("#load").await;
    settle().await;
    assert_eq!(page.root.query_selector_all("#tl-axis .input.group").unwrap().length(), 0);
    assert_eq!(page.root.query_selector_all("#tl-axis .input[data-step]").unwrap().length(), 2);
    assert!(page.attr(r#"#tl-axis .input[data-step="0"]"#, "aria-label").starts_with("input step 1, +I[u0] at "));
}
