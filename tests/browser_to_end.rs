//! "▶| to end" in headless Chromium runs in slices: the progress shows while it runs, the page
//! answers between slices, and Cancel stops it where it got to (before the end), a position that
//! stays put afterwards.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, tick, until, Page};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The scenario step the `#progress` text shows (`step 123 / 100000`).
fn step_shown(page: &Page) -> u64 {
    let text = page.text("#progress");
    text.strip_prefix("step ")
        .and_then(|t| t.split(" / ").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("#progress reads '{text}'"))
}

fn progress_value(page: &Page) -> u64 {
    page.find("#to-end-progress").map_or(0, |e| e.get_attribute("value").unwrap_or_default().parse().unwrap_or(0))
}

#[wasm_bindgen_test]
async fn to_end_shows_progress_and_cancel_stops_before_the_end() {
    let page = Page::open().await;
    page.choose("#preset-select", "what-if-100k-logins").await;
    assert_eq!(page.text("#progress"), "step 0 / 100000");
    let timeline = page.get("#timeline").inner_html();
    page.click_only("#run-all");
    // The run goes on by itself, slice by slice: wait until the bar has moved off 0.
    until("the progress bar of the run to the end to move", || progress_value(&page) > 0).await;
    assert_eq!(page.attr("#to-end-progress", "max"), "100000");
    assert!(page.find("#run-all").is_none(), "the button gives way to the progress and Cancel");
    // The page answers between slices: a task queued now runs while the run goes on.
    let before = progress_value(&page);
    tick().await;
    assert!(page.find("#to-end-cancel").is_some(), "still running after one task");
    until("the run to go on", || progress_value(&page) > before).await;
    // The timeline keeps the run's starting position while it runs (trial 22: it re-rendered
    // from the run mid-way at every slice, its callbacks being new at each render).
    assert!(page.get("#timeline").inner_html() == timeline, "the timeline changed while the run went on");
    page.click("#to-end-cancel").await;
    assert!(page.get("#timeline").inner_html() != timeline, "the timeline catches up when it stops");
    assert!(page.find("#to-end-progress").is_none(), "Cancel removes the progress");
    let stopped = step_shown(&page);
    assert!(stopped > before && stopped < 100_000, "stopped at step {stopped}, after {before} and before the end");
    assert!(!page.is_disabled("#run-all"), "to end can run again");
    // Nothing runs on after Cancel.
    for _ in 0..20 {
        tick().await;
    }
    settle().await;
    assert_eq!(step_shown(&page), stopped);
    // Back works from where it stopped (running to the very end is tests/browser_drive_perf.rs's,
    // on the release build).
    page.click("#step-back").await;
    assert_eq!(step_shown(&page), stopped - 1);
}
