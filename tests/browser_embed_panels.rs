//! An embedded simulator's panels and layouts in a real headless browser: the retraction flow,
//! the charts and the inspector shown when chosen (by `mount`'s options, an `?embed` link and
//! `<flink-state-sim>`'s attributes) and absent when not, in the order chosen; a bad layout named
//! in its error; and the compact layout's height, bounded, at the book's widths.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, until, Page};
use common::embed::{define, element, host, inside, js, mount_error, mounted, options};
use flink_state_sim::ui::embed::{link, Layout, Panel};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

const SEED_004_23: &str = "seed-004-device-status-flink-2.3";

/// The ids of the panels' sections, in the order they are in the simulator.
fn shown(page: &Page) -> Vec<String> {
    let list =
        page.root.query_selector_all("#timeline, #happened, .operators, #result, #flow, #charts, #inspector").unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|n| {
            let e = n.unchecked_into::<Element>();
            if e.id().is_empty() {
                e.class_name()
            } else {
                e.id()
            }
        })
        .collect()
}

#[wasm_bindgen_test]
async fn each_new_panel_is_shown_when_chosen_and_absent_when_not() {
    // The default: the stepper's four, none of the new ones.
    let h = host("width: 900px");
    let _default = mounted(&h, SEED_004_23, options(r#"{"step": 2}"#));
    settle().await;
    assert_eq!(shown(&inside(&h)), ["timeline", "happened", "operators", "result"]);

    // The retraction flow alone: step 2's messages on each edge, from the engine's trace.
    let h = host("width: 900px");
    let _flow = mounted(&h, SEED_004_23, options(r#"{"step": 2, "panels": ["flow"]}"#));
    settle().await;
    let page = inside(&h);
    assert_eq!(shown(&page), ["flow"]);
    assert_eq!(page.texts(r#"#flow .fedge[data-from="outer"][data-to="result"] .msg"#), ["-D[1, 1]", "+I[0, 1]"]);
    assert_eq!(page.texts("#flow-rows .flow-row"), ["[0, 1]"]);
    // Drawn at once, not only once scrolled to (the page's style.css skips sections out of view).
    let section = page.get(".see-flow");
    let style = web_sys::window().unwrap().get_computed_style(&section).unwrap().unwrap();
    assert_eq!(style.get_property_value("content-visibility").unwrap(), "visible");
    // Selecting a result row lights the inputs it depends on, as on the page.
    page.click("#flow-rows .flow-row").await;
    assert_eq!(page.texts("#flow-inputs .flow-input.hl").len(), 2);

    // The charts alone, over the whole run (no timeline to follow).
    let h = host("width: 900px");
    let _charts = mounted(&h, SEED_004_23, options(r#"{"step": 2, "panels": ["charts"]}"#));
    settle().await;
    let page = inside(&h);
    assert_eq!(shown(&page), ["charts"]);
    assert_eq!(page.texts("#charts .chart-title"), ["state size", "timers", "emitted rows (total)"]);
    let emitted = page.text("#charts-2 figcaption");
    assert!(emitted.contains("+I 1") && emitted.contains("-U 1") && emitted.contains("+U 1"), "{emitted}");
    assert_eq!(page.texts("#charts-op option"), ["inner", "outer"]);
    // A pipeline that starts with a stateless Calc charts the first operator that keeps state
    // (trial 19: flat zeros until another was picked).
    let h = host("width: 900px");
    let _join = mounted(&h, "dimension-expires-left-join", options(r#"{"step": 3, "panels": ["charts"]}"#));
    settle().await;
    let page = inside(&h);
    let select = page.get("#charts-op").dyn_into::<web_sys::HtmlSelectElement>().unwrap();
    let options_text = page.texts("#charts-op option");
    let chosen = &options_text[usize::try_from(select.selected_index()).unwrap()];
    assert!(options_text[0].starts_with("Calc"), "{options_text:?}");
    assert!(!chosen.starts_with("Calc"), "charted by default: {chosen} of {options_text:?}");

    // The inspector alone: closed, and its table once opened.
    let h = host("width: 900px");
    let _inspector = mounted(&h, SEED_004_23, options(r#"{"step": 2, "panels": ["inspector"]}"#));
    settle().await;
    let page = inside(&h);
    assert_eq!(shown(&page), ["inspector"]);
    assert!(page.find("#inspector-table").is_none(), "nothing computed while closed");
    page.get("#inspector").dyn_into::<web_sys::HtmlDetailsElement>().unwrap().set_open(true);
    until("the inspector's table", || page.find("#inspector-table").is_some()).await;
    assert_eq!(page.texts("#inspector-table th.key"), ["dev1"]);

    // All seven, in the order chosen: the columns' three where the first of them is named.
    let h = host("width: 900px");
    let all =
        r#"{"step": 2, "panels": ["charts", "result", "timeline", "flow", "happened", "operators", "inspector"]}"#;
    let _all = mounted(&h, SEED_004_23, options(all));
    settle().await;
    let page = inside(&h);
    assert_eq!(shown(&page), ["charts", "happened", "result", "operators", "timeline", "flow", "inspector"]);
}

#[wasm_bindgen_test]
async fn links_attributes_and_options_name_the_new_panels_and_the_layout() {
    let (_, opts) = link("?embed&preset=seed-004-device-status&panels=flow,charts,inspector&layout=compact").unwrap();
    assert_eq!(opts.panels, [Panel::Flow, Panel::Charts, Panel::Inspector]);
    assert_eq!(opts.layout, Layout::Compact);
    assert_eq!(link("?embed").unwrap().1.layout, Layout::Full, "full unless asked");
    assert_eq!(
        link("?embed&layout=tight").unwrap_err(),
        "layout: unknown layout `tight`, expected `full` or `compact`"
    );
    assert_eq!(
        link("?embed&panels=timeline,flows").unwrap_err(),
        "panels[1]: unknown panel `flows`, expected one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector`"
    );
    let h = host("");
    let preset = || JsValue::from_str("seed-001-one-day-two-days");
    assert_eq!(
        mount_error(js(h.clone()), preset(), options(r#"{"layout": "small"}"#)),
        "mount: options.layout: unknown layout `small`, expected `full` or `compact`"
    );
    assert_eq!(
        mount_error(js(h.clone()), preset(), options(r#"{"stpe": 2}"#)),
        "mount: options.stpe: unknown field `stpe`, expected one of `step`, `heading`, `panels`, `layout`, `t`"
    );

    define();
    let el = element(
        r#"<flink-state-sim scenario="seed-004-device-status" step="2" panels="flow inspector" layout="compact"></flink-state-sim>"#,
    );
    settle().await;
    let page = inside(&el);
    assert_eq!(shown(&page), ["flow", "inspector"]);
    assert!(page.get(".fss.embed").class_list().contains("compact"));
    assert_eq!(page.texts(r#"#flow .fedge[data-from="outer"][data-to="result"] .msg"#), ["(false,1,1)", "(true,0,1)"]);
    drop(page);
    el.remove();
    let bad = element(r#"<flink-state-sim scenario="seed-004-device-status" layout="wide"></flink-state-sim>"#);
    settle().await;
    assert!(bad.shadow_root().is_none(), "nothing mounted");
    assert_eq!(
        bad.query_selector(".flink-state-sim-error").unwrap().and_then(|p| p.text_content()).as_deref(),
        Some("<flink-state-sim>: attribute layout: unknown layout `wide`, expected `full` or `compact`")
    );
    bad.remove();
}

/// The book's first simulator (cleanup-timers.md: seed 001, the default panels) stepped to its
/// end, in a `<div>` as wide as the book gives it in a 1280 px window (932 px) and in a 400 px one
/// (360 px): its height in px, every section rendered (content-visibility would leave a section
/// out of view at its 480 px placeholder), and what sticks out of it.
async fn book_first_simulator(width: u32, layout: &str) -> (f64, f64, f64) {
    let h = host(&format!("width: {width}px"));
    let json = include_str!("../book/scenarios/seed-001-one-day-two-days.json");
    let sim = mounted(&h, json, options(&format!(r#"{{"layout": "{layout}"}}"#)));
    let style = common::embed::document().create_element("style").unwrap();
    style.set_text_content(Some("* { content-visibility: visible !important; }"));
    h.shadow_root().unwrap().append_child(&style).unwrap();
    sim.seek(js(4)).unwrap();
    settle().await;
    let page = inside(&h);
    assert_eq!(page.text("#progress"), "step 4 / 4");
    let fss = page.get(".fss");
    let height = h.get_bounding_client_rect().height();
    let (scroll, client) = (fss.scroll_width() as f64, fss.client_width() as f64);
    drop(page);
    h.remove();
    (height, scroll, client)
}

#[wasm_bindgen_test]
async fn the_compact_layout_keeps_the_book_s_first_simulator_short() {
    // Measured here and by scripts/embed-measure.sh on the built book (headless Chromium, the
    // same numbers): full 736 px at 932 px wide (a 1280 px window) and 1 347 px at 360 px (a
    // 400 px window); compact 587 px and 986 px. The bounds leave room for fonts, not for a
    // layout that grows back.
    for (width, bound) in [(932, 600.0), (360, 1020.0)] {
        let (full, _, _) = book_first_simulator(width, "full").await;
        let (compact, scroll, client) = book_first_simulator(width, "compact").await;
        assert!(compact <= bound, "compact at {width} px: {compact} px tall, over {bound} (full: {full})");
        assert!(compact < 0.85 * full, "compact at {width} px: {compact} px vs full {full}");
        assert!(scroll <= client, "compact at {width} px: nothing wider than the simulator ({scroll} > {client})");
    }
}
