//! A panic in the page (a bug) in a real headless browser: the panic hook (`src/ui/crash.rs`)
//! replaces every simulator on the page — the page's own and each mounted one in its shadow root,
//! since they share the one wasm module that cannot run on — with the message, the scenario each
//! was running (to copy or download) and a Reload button.
//!
//! Needs the hidden action that panics, which a debug build has (`debug_assertions`, as
//! `wasm-pack test` builds) and a release build only with `--features test-panic` (a screenshot
//! of the message): `wasm-pack test --headless --chrome --no-default-features --test
//! browser_crash`. One test only: after the panic the module is unusable, so nothing else may run
//! in this test binary (each tests/*.rs is its own wasm module).
#![cfg(all(target_arch = "wasm32", any(feature = "test-panic", debug_assertions)))]

mod common;

use common::browser::Page;
use common::embed::{host, inside, mounted};
use common::wait::wait_for;
use flink_state_sim::engine::presets::preset_json;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

/// The crash view in `root`: (message, scenario text, download href, reload button's text).
fn crash_view(root: &Element) -> Option<(String, String, String, String)> {
    let find = |s: &str| root.query_selector(s).ok().flatten();
    let message = find(".fss-crash-message")?.text_content()?;
    let scenario = find("textarea.fss-crash-scenario")?.unchecked_into::<HtmlTextAreaElement>();
    let download = find("a.fss-crash-download[download]")?.get_attribute("href")?;
    let reload = find("button.fss-crash-reload")?.text_content()?;
    Some((message, scenario.value(), download, reload))
}

#[wasm_bindgen_test]
async fn a_panic_shows_the_message_the_scenario_and_reload_in_every_simulator() {
    let page = Page::open().await;
    let (ha, hb) = (host(""), host(""));
    let a = mounted(&ha, "seed-001-one-day-two-days", JsValue::UNDEFINED);
    let _b = mounted(&hb, "cleanup-harness-min5-max10", JsValue::UNDEFINED);
    let (pa, pb) = (inside(&ha), inside(&hb));
    wait_for("both simulators", 10_000.0, || pa.find("#step").is_some() && pb.find("#step").is_some()).await;
    assert!(crash_view(&pa.root).is_none() && crash_view(&page.root).is_none());

    // The panic happens in a timer task of its own (a panic in the test itself would end it).
    a.__test_panic();
    let roots = [(&pa.root, "seed-001-one-day-two-days"), (&pb.root, "cleanup-harness-min5-max10")];
    wait_for("the message in every simulator", 10_000.0, || {
        roots.iter().all(|(r, _)| crash_view(r).is_some()) && crash_view(&page.root).is_some()
    })
    .await;
    for (root, preset) in roots.iter().copied().chain([(&page.root, "seed-001-one-day-two-days")]) {
        let (message, scenario, download, reload) = crash_view(root).unwrap();
        assert!(message.contains("test panic (feature test-panic): the reducer was asked to panic"), "{message}");
        // Each shows its own scenario, as text (the page's own runs the default preset).
        assert_eq!(scenario, preset_json(preset).unwrap());
        let prefix = "data:application/json;charset=utf-8,";
        assert!(download.starts_with(prefix), "{download}");
        let decoded = String::from(js_sys::decode_uri_component(&download[prefix.len()..]).unwrap());
        assert_eq!(decoded, scenario);
        assert_eq!(reload, "Reload the page");
        assert!(root.query_selector("button.fss-crash-copy").unwrap().is_some());
        // The simulator's own view is gone (no Step button to press into the broken module).
        assert!(root.query_selector("#step").unwrap().is_none());
    }
    let title = page.root.query_selector(".fss-crash-title").unwrap().unwrap().text_content().unwrap();
    assert_eq!(title, "The simulator stopped: an internal error (a bug in flink-state-sim).");
}
