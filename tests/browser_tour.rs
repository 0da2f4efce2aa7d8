//! The first five minutes in headless Chromium: the guided tour of seed 001 opens on a first
//! visit (no link, no autosave, the tour never shown), moves the page to the step it explains
//! and points at the part it names, keeps the focus inside its dialog, is closed by Esc, does
//! not open again at the next visit, opens again from the Tour button, and never opens in an
//! embed (which leaves the storage alone). Bookmarks list seed 001's timer firing and stale row
//! at step 4 and jump there by a click and by `]`, and the permalink keeps the step.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, until, Page};
use flink_state_sim::ui::embed::{link, Embed};
use flink_state_sim::ui::persist::{STORAGE_KEY, TOUR_KEY};
use flink_state_sim::ui::state::AppState;
use flink_state_sim::ui::AppProps;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web_sys::{HtmlElement, KeyboardEvent, KeyboardEventInit};

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

/// A first visitor's browser: no address parameters, no autosave, no tour shown.
fn first_visitor() {
    set_query("");
    storage().remove_item(STORAGE_KEY).unwrap();
    storage().remove_item(TOUR_KEY).unwrap();
}

/// The page as the real page mounts it (the URL, the autosave, the first-visit tour).
async fn open_page() -> Page {
    Page::open_with(AppProps { persist: true, embed: None }).await
}

/// A `keydown` of `key` (with Shift when `shift`) on `selector`'s element, or on the document.
async fn press(page: &Page, target: Option<&str>, key: &str, shift: bool) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_shift_key(shift);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    match target {
        Some(selector) => page.get(selector).dispatch_event(&event).unwrap(),
        None => window().document().unwrap().dispatch_event(&event).unwrap(),
    };
    settle().await;
}

fn focused_id() -> String {
    window().document().unwrap().active_element().map(|e| e.id()).unwrap_or_default()
}

#[wasm_bindgen_test]
async fn the_tour_opens_on_a_first_visit_teaches_with_seed_001_s_numbers_and_esc_closes_it_for_good() {
    first_visitor();
    let page = open_page().await;
    until("the tour's dialog", || page.find("#tour").is_some()).await;
    assert_eq!(page.attr("#tour", "role"), "dialog");
    assert_eq!(page.attr("#tour", "aria-modal"), "true");
    assert_eq!(page.attr("#tour", "aria-labelledby"), "tour-title");
    assert_eq!(page.text("#tour-count"), "Tour 1 / 6");
    assert_eq!(
        page.text("#tour-title"),
        "Seed 001: idle state retention min 1 day, max 2 days: one key, min = 1 d, max = 2 d"
    );
    assert_eq!(focused_id(), "tour-next", "the focus moved into the dialog");
    assert_eq!(storage().get_item(TOUR_KEY).unwrap().as_deref(), Some("1"), "shown once: remembered");
    assert_eq!(page.text("#progress"), "step 0 / 4");

    // → goes on: the page runs u1's first login and the tour points at the timeline.
    press(&page, Some("#tour-next"), "ArrowRight", false).await;
    assert_eq!(page.text("#tour-count"), "Tour 2 / 6");
    assert_eq!(page.text("#progress"), "step 1 / 4", "the page went to the step the tour explains");
    let text = page.text("#tour-text");
    assert!(
        text.starts_with(
            "2019-11-20 15:00: u1 has no cleanup time C yet, so a timer is registered at now + max = 2019-11-22 15:00"
        ),
        "{text}"
    );
    assert!(page.get("#timeline").class_list().contains("tour-target"));
    // The page's own → (step) is not run by a key typed in the dialog.
    assert_eq!(page.text("#progress"), "step 1 / 4");

    // Enter on the dialog goes on too: the move of C, with its numbers, in "What just happened".
    press(&page, Some("#tour"), "Enter", false).await;
    press(&page, Some("#tour"), "Enter", false).await;
    assert_eq!(page.text("#tour-count"), "Tour 4 / 6");
    assert_eq!(page.text("#progress"), "step 3 / 4");
    let text = page.text("#tour-text");
    assert!(text.contains("now + min = 2019-11-22 16:00 is after C = 2019-11-22 15:00"), "{text}");
    assert!(text.contains("now + max = 2019-11-23 16:00"), "{text}");
    assert!(page.get("#happened").class_list().contains("tour-target"));
    assert!(!page.get("#timeline").class_list().contains("tour-target"), "one part at a time");
    // Its outline is drawn whole: the columns it sits in do not clip it (`content-visibility:
    // auto` does; trial 22 saw only the right edge).
    common::browser::with_page_styles();
    let columns = page.get("#happened").closest(".columns").unwrap().expect("#happened sits in the columns");
    let style = window().get_computed_style(&columns).unwrap().unwrap();
    assert_eq!(style.get_property_value("content-visibility").unwrap(), "visible");

    // ← goes back.
    press(&page, Some("#tour"), "ArrowLeft", false).await;
    assert_eq!(page.text("#tour-count"), "Tour 3 / 6");
    assert_eq!(page.text("#progress"), "step 2 / 4");

    // Tab stays inside: from the last button to the first, Shift+Tab from the first to the last.
    page.get("#tour-close").dyn_ref_html().focus().unwrap();
    press(&page, Some("#tour-close"), "Tab", false).await;
    assert_eq!(focused_id(), "tour-back");
    press(&page, Some("#tour-back"), "Tab", true).await;
    assert_eq!(focused_id(), "tour-close");

    // Esc closes it, wherever the focus is.
    press(&page, None, "Escape", false).await;
    assert!(page.find("#tour").is_none(), "Esc closed the tour");
    assert!(!page.get("#happened").class_list().contains("tour-target"), "nothing is outlined any more");
    // The focus lands on the Tour button, not on the page's <body> (trial 19).
    assert_eq!(focused_id(), "tour-open");
    drop(page);

    // The next visit (the same browser, a fresh page without its autosave): no tour.
    set_query("");
    storage().remove_item(STORAGE_KEY).unwrap();
    let page = open_page().await;
    assert!(page.find("#tour").is_none(), "a returning visitor never sees the tour by itself");
    // The Tour button opens it again, at its first step.
    page.click("#tour-open").await;
    assert_eq!(page.text("#tour-count"), "Tour 1 / 6");
    page.click("#tour-close").await;
    assert!(page.find("#tour").is_none());
    drop(page);
    first_visitor();
}

#[wasm_bindgen_test]
async fn a_visit_with_a_link_or_an_autosave_is_no_first_visit() {
    first_visitor();
    set_query("?preset=seed-001-one-day-two-days&step=2");
    let page = open_page().await;
    assert_eq!(page.text("#progress"), "step 2 / 4");
    assert!(page.find("#tour").is_none(), "a link is not interrupted by the tour");
    drop(page);
    first_visitor();
}

#[wasm_bindgen_test]
async fn the_tour_never_opens_in_an_embed_and_an_embed_leaves_the_storage_alone() {
    first_visitor();
    let (_, opts) = link("?embed").unwrap();
    let doc = window().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    let embed = Embed::new(AppState::default(), opts);
    common::browser::render(&root, AppProps { persist: false, embed: Some(embed) });
    settle().await;
    let page = Page { root };
    assert_eq!(page.text("#progress"), "step 0 / 4", "the embed runs seed 001");
    assert!(page.find("#tour").is_none() && page.find("#tour-open").is_none());
    assert_eq!(storage().get_item(TOUR_KEY).unwrap(), None);
    assert_eq!(storage().get_item(STORAGE_KEY).unwrap(), None);
}

#[wasm_bindgen_test]
async fn bookmarks_list_seed_001_s_timer_firing_and_jump_there_keeping_the_step_in_the_link() {
    first_visitor();
    storage().set_item(TOUR_KEY, "1").unwrap();
    let page = open_page().await;
    assert!(page.find("#tour").is_none());
    assert_eq!(
        page.texts("#bookmarks .bm-jump"),
        [
            "step 4timer fired2019-11-23 16:00 · logins_per_user [u1] timer for 2019-11-23 16:00",
            "step 4row went stale2019-11-23 16:00 · result row (u1, 3)",
        ]
    );
    assert!(page.is_disabled("#bm-prev"));
    page.click("#bm-next").await;
    assert_eq!(page.text("#progress"), "step 4 / 4");
    assert!(page.text("#happened").contains("fired"), "{}", page.text("#happened"));
    assert_eq!(page.attr("#bookmarks li.timer-fired .bm-jump", "aria-current"), "step");
    assert!(
        page.find("#result-table tr.stale").is_some() || page.text("#result").contains("stale since 2019-11-23 16:00")
    );
    let search = window().location().search().unwrap();
    assert!(search.ends_with("preset=seed-001-one-day-two-days&step=4"), "{search}");
    assert!(page.is_disabled("#bm-next"), "no bookmark after step 4");

    // Back to the start with ←, then `]` jumps to the next bookmark again.
    for _ in 0..4 {
        page.click("#step-back").await;
    }
    assert_eq!(page.text("#progress"), "step 0 / 4");
    press(&page, None, "]", false).await;
    assert_eq!(page.text("#progress"), "step 4 / 4");
    // A click on a bookmark of the list goes there too (here: where the page already is).
    page.click("#bookmarks li.row-stale .bm-jump").await;
    assert_eq!(page.text("#progress"), "step 4 / 4");
    assert!(page.find("#bm-straight").is_none(), "the page is on the straight run");
    // Time advanced by hand: the bookmarks say they are the straight run's (trial 23).
    for _ in 0..3 {
        page.click("#step-back").await;
    }
    page.click("#next-timer").await;
    assert!(page.text("#bm-straight").starts_with("These are the scenario's straight run"));
    drop(page);
    first_visitor();
}

/// A long run is looked through whole while the page is idle, beyond the first 2 000 steps and
/// the 500 bookmarks listed in words: the page counts what the engine's scan of the whole run
/// counts, "counted as new again" alone is chosen, and `[` from the run's end goes to its last
/// key counted as new again, far past the listed ones, with the step in the address.
#[wasm_bindgen_test]
async fn bookmarks_look_through_the_whole_run_and_previous_from_its_end_reaches_the_last_new_again() {
    use flink_state_sim::engine::bookmarks::{scan, BookmarkKind};
    use flink_state_sim::engine::digits::grouped;
    // 8 000 logins with cleanup timers min 10 min / max 20 min: a user idle for 20 min is lost.
    let json = flink_state_sim::engine::presets::preset_json("what-if-100k-logins")
        .unwrap()
        .replace(r#""events": 100000"#, r#""events": 8000"#)
        .replace(r#""min": "6 h", "max": "12 h""#, r#""min": "10 min", "max": "20 min""#);
    let expected = scan(&flink_state_sim::engine::Scenario::from_json(&json).unwrap(), u64::MAX);
    assert_eq!(expected.scanned, 8_000);
    let last = expected.previous_before(8_000, Some(BookmarkKind::NewAgain)).unwrap();
    assert!(!expected.all_described() && last > expected.marks.last().unwrap().step, "past the listed ones");
    first_visitor();
    storage().set_item(TOUR_KEY, "1").unwrap();
    set_query(&format!("?s={}", lz_str::compress_to_encoded_uri_component(&json)));
    let page = open_page().await;
    until("the run to be looked through", || page.attr("#bookmarks", "data-scanning") == "false").await;
    settle().await;
    assert_eq!(page.text("#bm-count"), format!("{} bookmarked steps in the run", grouped(expected.count(None))));
    let chips: Vec<String> = [BookmarkKind::TimerFired, BookmarkKind::RowStale, BookmarkKind::NewAgain]
        .iter()
        .map(|&k| format!("{} {}", k.label(), grouped(expected.count(Some(k)))))
        .collect();
    assert_eq!(page.texts(".bm-kind-filter"), chips);
    assert!(page.text("#bm-more").starts_with("The first 500 are listed"), "{}", page.text("#bm-more"));
    // Only the keys counted as new again: the chip is pressed and the list shows only them.
    page.click(".bm-kind-filter.new-again").await;
    assert_eq!(page.attr(".bm-kind-filter.new-again", "aria-pressed"), "true");
    let listed = page.texts("#bookmarks .bm-kind");
    assert!(!listed.is_empty() && listed.iter().all(|k| k == "counted as new again"), "{listed:?}");
    page.click("#run-all").await;
    until("the run to reach its end", || page.text("#progress") == "step 8000 / 8000").await;
    settle().await;
    press(&page, None, "[", false).await;
    until("the page to reach the last new-again step", || page.text("#progress") == format!("step {last} / 8000"))
        .await;
    settle().await;
    let (kinds, nth) = expected.at(last).unwrap();
    assert!(kinds.contains(&BookmarkKind::NewAgain));
    assert!(
        page.text("#bm-here").starts_with(&format!(
            "Here, step {}: bookmark {} of {}",
            grouped(last),
            grouped(nth),
            grouped(expected.count(None))
        )),
        "{}",
        page.text("#bm-here")
    );
    let new_again = grouped(expected.count(Some(BookmarkKind::NewAgain)));
    assert!(
        page.text("#bm-here").contains(&format!("; \"counted as new again\" {new_again} of {new_again}")),
        "the last of its kind: {}",
        page.text("#bm-here")
    );
    assert!(page.is_disabled("#bm-next"), "no key counted as new again after the last");
    let search = window().location().search().unwrap();
    assert!(search.ends_with(&format!("&step={last}")), "{search}");
    drop(page);
    first_visitor();
}

/// Stop ends the look through a long run where it got to, and says so; Go on takes it up again.
#[wasm_bindgen_test]
async fn bookmarks_stop_looking_through_a_long_run_on_stop() {
    first_visitor();
    storage().set_item(TOUR_KEY, "1").unwrap();
    let page = open_page().await;
    page.choose("#preset-select", "what-if-100k-logins").await;
    assert_eq!(page.attr("#bookmarks", "data-scanning"), "true", "100 000 steps are not looked through at once");
    assert!(page.text("#bm-count").contains("looking through the run"), "{}", page.text("#bm-count"));
    page.click("#bm-stop").await;
    assert_eq!(page.attr("#bookmarks", "data-scanning"), "false");
    let said = page.text("#bm-count");
    assert!(said.contains(" of 100,000 steps (stopped)"), "{said}");
    assert!(page.find("#bm-stop").is_none());
    // Go on takes it up where it stopped.
    page.click("#bm-resume").await;
    assert_eq!(page.attr("#bookmarks", "data-scanning"), "true");
    assert!(page.find("#bm-resume").is_none() && page.find("#bm-stop").is_some());
    drop(page);
    first_visitor();
}

/// `element.focus()` for a test.
trait DynHtml {
    fn dyn_ref_html(&self) -> &HtmlElement;
}

impl DynHtml for web_sys::Element {
    fn dyn_ref_html(&self) -> &HtmlElement {
        wasm_bindgen::JsCast::unchecked_ref(self)
    }
}
