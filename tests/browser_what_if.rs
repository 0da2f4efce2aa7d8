//! The what-if panel in a real headless browser: a workload form over the pipeline on screen,
//! run by the engine at `metrics` level in slices, then its summary.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{until, Page};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Waits until `selector` is in the page (a what-if run goes on by itself, in slices).
async fn wait_for(page: &Page, selector: &str) {
    until(&format!("{selector} in the page"), || page.find(selector).is_some()).await;
}

#[wasm_bindgen_test]
async fn runs_the_pipeline_on_screen_over_a_generated_workload() {
    let page = Page::open().await;
    // seed-001: COUNT(*) GROUP BY user_id, idle state retention min 1 d / max 2 d; no workload,
    // so the form starts from its defaults with the key in the first STRING column.
    assert!(page.text("#what-if").contains("key column: user_id"), "{}", page.text("#what-if"));
    page.enter("#wi-events", "30000").await;
    page.enter("#wi-keys", "700").await;
    page.enter("#wi-rate", "1").await;
    page.click("#wi-run").await;
    assert!(page.find("#wi-progress").is_some() || page.find("#wi-result").is_some());
    wait_for(&page, "#wi-result").await;
    let summary = page.text("#wi-result pre");
    assert!(
        summary.contains("scenario seed-001-one-day-two-days-what-if on Flink 1.8–1.11 legacy planner"),
        "{summary}"
    );
    // 30 000 events at 1 per second from 2019-11-20 15:00: the last at +29 999 s.
    assert!(summary.contains("30000 inputs from 2019-11-20 15:00 to 2019-11-20 23:19:59"), "{summary}");
    assert!(summary.contains("keys now 700 (700 visible)"), "{summary}");
    assert!(summary.contains("registered 700, deleted 0, fired 0"), "{summary}");
    // The run can be opened in the stepper.
    page.click("#wi-open").await;
    assert_eq!(page.text("#progress"), "step 0 / 30000");
}

#[wasm_bindgen_test]
async fn a_bad_field_is_named_next_to_it_and_nothing_runs() {
    let page = Page::open().await;
    page.enter("#wi-returning-share", "1.5").await;
    page.click("#wi-run").await;
    assert_eq!(page.text("label[for=wi-returning-share] .wi-error"), "1.5 is not a share between 0 and 1");
    assert!(page.find("#wi-result").is_none() && page.find("#wi-progress").is_none());
    page.enter("#wi-returning-share", "0").await;
    page.enter("#wi-events", "lots").await;
    assert_eq!(page.text("label[for=wi-events] .wi-error"), "expected a whole number, found 'lots'");
    assert_eq!(page.input_value("#wi-events"), "lots", "what was typed stays on show");
    assert_eq!(page.text("#progress"), "step 0 / 4", "the stepper's scenario is untouched");
    // Run refuses while a field is not valid: it never runs the value from before.
    page.click("#wi-run").await;
    assert_eq!(page.text("#wi-error"), "form: not run: the field 'events' is not valid");
    assert!(page.find("#wi-result").is_none() && page.find("#wi-progress").is_none());
    assert_eq!(page.input_value("#wi-events"), "lots");
    // Checked as typed: the error goes before the field is left (Run is not moved under the
    // pointer), and the text stays as typed until then.
    page.type_into("#wi-events", "1_000").await;
    assert!(page.find("label[for=wi-events] .wi-error").is_none());
    assert_eq!(page.input_value("#wi-events"), "1_000");
    // A whole number in exponent notation is one.
    page.enter("#wi-events", "2e3").await;
    assert!(page.find("label[for=wi-events] .wi-error").is_none());
    assert_eq!(page.input_value("#wi-events"), "2000");
    page.click("#wi-run").await;
    wait_for(&page, "#wi-result").await;
    assert!(page.text("#wi-result pre").contains("2000 inputs"), "{}", page.text("#wi-result pre"));
}
