//! The first five minutes (issue 17): "hide steps that changed nothing" (the toggle, `q`, a Step
//! and a Back that pass quiet steps and say how many, the input table's marks) and the
//! timeline's time range in the permalink (`t=`: opened, written on zoom, a bad one refused with
//! a message; an embed's `t` option).
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, until, Page};
use flink_state_sim::ui::drive_state::HIDE_QUIET_KEY;
use flink_state_sim::ui::persist::{STORAGE_KEY, TOUR_KEY};
use flink_state_sim::ui::AppProps;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web_sys::{KeyboardEvent, KeyboardEventInit};

wasm_bindgen_test_configure!(run_in_browser);

fn window() -> web_sys::Window {
    web_sys::window().unwrap()
}

fn storage() -> web_sys::Storage {
    window().local_storage().unwrap().unwrap()
}

fn set_query(query: &str) {
    let path = window().location().pathname().unwrap();
    window().history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{query}"))).unwrap();
}

fn query() -> String {
    window().location().search().unwrap()
}

/// The page as the real page mounts it (it reads the link and the local settings).
async fn open_link(q: &str) -> Page {
    set_query(q);
    storage().remove_item(STORAGE_KEY).unwrap();
    storage().set_item(TOUR_KEY, "1").unwrap();
    Page::open_with(AppProps { persist: true, embed: None }).await
}

/// Leaves the test page's address and storage as the other tests expect them.
fn clean() {
    set_query("");
    storage().remove_item(STORAGE_KEY).unwrap();
    storage().remove_item(HIDE_QUIET_KEY).unwrap();
}

async fn press(key: &str) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    window().document().unwrap().dispatch_event(&event).unwrap();
    settle().await;
}

fn checked(page: &Page, selector: &str) -> bool {
    use wasm_bindgen::JsCast;
    page.get(selector).dyn_into::<web_sys::HtmlInputElement>().unwrap().checked()
}

/// The timeline's axis names the range it shows in the scenario's format.
fn axis(page: &Page) -> String {
    page.get("#tl-axis").get_attribute("aria-label").unwrap()
}

#[wasm_bindgen_test]
async fn hiding_quiet_steps_passes_them_forward_and_back_and_says_how_many() {
    clean();
    let page = open_link("?preset=seed-000-topn-dedup-no-retention&step=1").await;
    let total = page.text("#progress").rsplit(' ').next().unwrap().to_string();
    assert_eq!(page.text("#progress"), format!("step 1 / {total}"));
    assert!(!checked(&page, "#hide-quiet"));
    page.click("#hide-quiet").await;
    assert!(checked(&page, "#hide-quiet"));
    // Step 2 (o1 at 10:05 cannot enter the top N) changed nothing: Step runs it and step 3.
    page.click("#step").await;
    assert_eq!(page.text("#progress"), format!("step 3 / {total}"));
    assert_eq!(page.text("#quiet-note"), "passed 1 quiet step (they changed nothing)");
    // → : steps 4, 5 and 6 are quiet, step 7 is not.
    press("ArrowRight").await;
    assert_eq!(page.text("#progress"), format!("step 7 / {total}"));
    assert_eq!(page.text("#quiet-note"), "passed 3 quiet steps (they changed nothing)");
    assert!(query().contains("step=7"), "{}", query());
    // The input table marks the quiet steps run: rows 2, 4, 5, 6 (data-step 1, 3, 4, 5).
    let marked: Vec<String> = {
        let rows = page.root.query_selector_all("#input-table tr.quiet").unwrap();
        (0..rows.length())
            .map(|i| rows.item(i).unwrap().dyn_into_element().get_attribute("data-step").unwrap())
            .collect()
    };
    assert_eq!(marked, vec!["1", "3", "4", "5"]);
    // Back undoes step 7 and passes 6, 5, 4.
    page.click("#step-back").await;
    assert_eq!(page.text("#progress"), format!("step 3 / {total}"));
    assert_eq!(page.text("#quiet-note"), "back past 3 quiet steps (they changed nothing)");
    // Kept in the local settings; q turns it off, and Step is one step again.
    assert_eq!(storage().get_item(HIDE_QUIET_KEY).unwrap().as_deref(), Some("1"));
    press("q").await;
    assert!(!checked(&page, "#hide-quiet"));
    assert_eq!(storage().get_item(HIDE_QUIET_KEY).unwrap().as_deref(), Some("0"));
    page.click("#step").await;
    assert_eq!(page.text("#progress"), format!("step 4 / {total}"));
    assert!(page.find("#quiet-note").is_none());
    drop(page);
    // A page opened later starts with it as it was left.
    storage().set_item(HIDE_QUIET_KEY, "1").unwrap();
    let page = open_link("?preset=seed-000-topn-dedup-no-retention&step=1").await;
    assert!(checked(&page, "#hide-quiet"));
    drop(page);
    clean();
}

trait IntoElement {
    fn dyn_into_element(self) -> web_sys::Element;
}

impl IntoElement for web_sys::Node {
    fn dyn_into_element(self) -> web_sys::Element {
        use wasm_bindgen::JsCast;
        self.dyn_into().unwrap()
    }
}

#[wasm_bindgen_test]
async fn a_link_opens_on_its_time_range_and_a_zoom_writes_the_new_one() {
    clean();
    let page = open_link("?preset=seed-001-one-day-two-days&step=3&t=2019-11-21T00:00..2019-11-22T00:00").await;
    assert_eq!(page.text("#progress").split(' ').nth(1), Some("3"));
    assert_eq!(axis(&page), "time axis from 2019-11-21 00:00 to 2019-11-22 00:00");
    assert!(page.find("#files-note").is_none(), "no note for a good range");
    // The address keeps it (written back as the page reads it).
    until("the address to keep the range", || query().contains("&t=2019-11-21T00:00..2019-11-22T00:00")).await;
    // Zoom in around the middle: the address carries the range the axis shows.
    page.click("#tl-zoom-in").await;
    let shown = axis(&page);
    assert_ne!(shown, "time axis from 2019-11-21 00:00 to 2019-11-22 00:00");
    let (from, to) = shown.trim_start_matches("time axis from ").split_once(" to ").unwrap();
    let expected = format!("&t={}..{}", from.replacen(' ', "T", 1), to.replacen(' ', "T", 1));
    until("the address to carry the zoomed range", || query().ends_with(&expected)).await;
    assert!(query().starts_with("?preset=seed-001-one-day-two-days&step=3&t="), "{}", query());
    // "fit" is the default view: no range in the address.
    page.click("#tl-fit").await;
    until("the address to drop the range", || !query().contains("&t=")).await;
    drop(page);
    clean();
}

#[wasm_bindgen_test]
async fn a_bad_range_is_refused_with_a_message_and_the_link_still_opens() {
    clean();
    let page = open_link("?preset=seed-001-one-day-two-days&step=2&t=2019-11-21T00:00..tomorrow").await;
    assert_eq!(page.text("#progress").split(' ').nth(1), Some("2"), "the link's position is kept");
    let note = page.text("#files-note");
    assert!(
        note.starts_with("link: t: the end 'tomorrow' is not a date-time or a whole number of ms (FROM..TO"),
        "{note}"
    );
    assert!(note.contains("— the timeline shows the run as usual"), "{note}");
    let whole = axis(&page);
    drop(page);
    // Outside the run: refused too, naming both ranges.
    let page = open_link("?preset=seed-001-one-day-two-days&step=2&t=2030-01-01T00:00..2030-01-02T00:00").await;
    let note = page.text("#files-note");
    assert!(
        note.starts_with(
            "link: t: 2030-01-01 00:00 – 2030-01-02 00:00 is not within the run's time, 2019-11-20 15:00 – "
        ),
        "{note}"
    );
    assert_eq!(axis(&page), whole, "the default view");
    drop(page);
    // A link whose scenario cannot be opened: its note says so, the range is not tried on the
    // default preset instead.
    let page = open_link("?preset=nope&step=2&t=2019-11-20T15:00..2019-11-21T00:00").await;
    let note = page.text("#files-note");
    assert!(note.starts_with("link: preset: no preset named 'nope'"), "{note}");
    assert_eq!(axis(&page), "time axis from 2019-11-20 15:00 to 2019-11-24 06:00", "the default view");
    drop(page);
    clean();
}

#[wasm_bindgen_test]
async fn an_embed_takes_the_range_as_an_option_and_refuses_a_bad_one() {
    use common::embed::{host, inside, mount_error, mounted, options};
    let h = host("width: 900px");
    let mut sim = mounted(
        &h,
        "seed-001-one-day-two-days",
        options(r#"{"step": 3, "panels": ["timeline"], "t": "2019-11-20T12:00..2019-11-21T18:00"}"#),
    );
    let page = inside(&h);
    settle().await;
    // 12:00 is before the run's first time (15:00): refused, said in the simulator.
    let note = page.text("#files-note");
    assert!(note.starts_with("link: t: 2019-11-20 12:00 – 2019-11-21 18:00 is not within the run's time"), "{note}");
    sim.destroy();
    h.remove();
    let h = host("width: 900px");
    let mut sim = mounted(
        &h,
        "seed-001-one-day-two-days",
        options(r#"{"step": 3, "panels": ["timeline"], "t": "2019-11-20T16:00..2019-11-21T18:00"}"#),
    );
    let page = inside(&h);
    settle().await;
    assert_eq!(axis(&page), "time axis from 2019-11-20 16:00 to 2019-11-21 18:00");
    sim.destroy();
    h.remove();
    let h = host("");
    let e = mount_error(
        JsValue::from(h.clone()),
        JsValue::from_str("seed-001-one-day-two-days"),
        options(r#"{"t": "5..1"}"#),
    );
    assert_eq!(e, "mount: options.t: the range must end after it starts (1 is not after 5)");
    h.remove();
    // The element's attribute, the same text.
    common::embed::define();
    let el = common::embed::element(
        r#"<flink-state-sim scenario="seed-001-one-day-two-days" step="2" panels="timeline" t="2019-11-20T16:00..2019-11-21T18:00"></flink-state-sim>"#,
    );
    settle().await;
    assert_eq!(axis(&inside(&el)), "time axis from 2019-11-20 16:00 to 2019-11-21 18:00");
    el.remove();
    settle().await;
    let bad =
        common::embed::element(r#"<flink-state-sim scenario="seed-001-one-day-two-days" t="16:00"></flink-state-sim>"#);
    settle().await;
    let shown = bad.text_content().unwrap_or_default();
    assert!(shown.contains("<flink-state-sim>: attribute t: '16:00' is not a time range (FROM..TO"), "{shown}");
    bad.remove();
    // An `?embed` link: the same parameter.
    let (_, opts) = flink_state_sim::ui::embed::link("?embed&preset=seed-001-one-day-two-days&t=0..1500").unwrap();
    assert_eq!(opts.t.as_deref(), Some("0..1500"));
    let e = flink_state_sim::ui::embed::link("?embed&preset=seed-001-one-day-two-days&t=x").unwrap_err();
    assert!(e.starts_with("t: 'x' is not a time range (FROM..TO"), "{e}");
}
