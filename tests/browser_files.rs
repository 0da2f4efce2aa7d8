//! Files and links in a real headless browser: export / import, the permalink and Back, the
//! autosave and its quota error, the table editor, the Flink refusal's conversion.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, until, Page};
use flink_state_sim::engine::presets::preset_json;
use flink_state_sim::ui::persist::{STORAGE_KEY, TOUR_KEY};
use flink_state_sim::ui::AppProps;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Event, EventInit, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

fn window() -> web_sys::Window {
    web_sys::window().unwrap()
}

/// Sets the page's query (`?preset=…`) without loading anything, as a link opened would.
fn set_query(query: &str) {
    let path = window().location().pathname().unwrap();
    window().history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{query}"))).unwrap();
}

fn query() -> String {
    window().location().search().unwrap()
}

fn storage() -> web_sys::Storage {
    window().local_storage().unwrap().unwrap()
}

/// The page as the real page mounts it: with the URL and the autosave.
async fn open_persistent() -> Page {
    Page::open_with(AppProps { persist: true, embed: None }).await
}

/// A clean address and no autosave, before and after a test that uses them.
fn clean() {
    set_query("");
    storage().remove_item(STORAGE_KEY).unwrap();
    // The first-visit tour is tests/browser_tour.rs's: here it stays closed.
    storage().set_item(TOUR_KEY, "1").unwrap();
}

/// The step `#progress` shows (`step 3 / 8`: 3).
fn progress(page: &Page) -> u32 {
    page.text("#progress").trim_start_matches("step ").split(' ').next().unwrap().parse().unwrap()
}

/// Puts a file into `#import`, as choosing it does.
async fn import(page: &Page, name: &str, text: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let file = web_sys::File::new_with_str_sequence(&parts, name).unwrap();
    let transfer = web_sys::DataTransfer::new().unwrap();
    transfer.items().add_with_file(&file).unwrap();
    let input = page.get("#import").dyn_into::<HtmlInputElement>().unwrap();
    input.set_files(transfer.files().as_ref());
    fire(&input, "change");
    settle().await;
}

fn fire(target: &web_sys::EventTarget, kind: &str) {
    let init = EventInit::new();
    init.set_bubbles(true);
    target.dispatch_event(&Event::new_with_event_init_dict(kind, &init).unwrap()).unwrap();
}

/// Changes a table field as a user does: types, then leaves it (`change`).
async fn change(page: &Page, selector: &str, value: &str) {
    let input = page.get(selector).dyn_into::<HtmlInputElement>().unwrap();
    input.set_value(value);
    fire(&input, "change");
    settle().await;
}

/// Clicks Export with the download stopped, and reads the file it would have saved:
/// (file name, text).
async fn export(page: &Page) -> (String, String) {
    download(page, "#export").await
}

/// Clicks `button` with the download stopped, and reads the file it would have saved.
async fn download(page: &Page, button: &str) -> (String, String) {
    let seen: Rc<RefCell<Option<(String, String)>>> = Rc::default();
    let listener = {
        let seen = seen.clone();
        Closure::<dyn Fn(Event)>::new(move |e: Event| {
            if let Some(a) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlAnchorElement>().ok()) {
                e.prevent_default();
                *seen.borrow_mut() = Some((a.download(), a.href()));
            }
        })
    };
    let doc = window().document().unwrap();
    doc.add_event_listener_with_callback_and_bool("click", listener.as_ref().unchecked_ref(), true).unwrap();
    page.click(button).await;
    doc.remove_event_listener_with_callback_and_bool("click", listener.as_ref().unchecked_ref(), true).unwrap();
    let (name, href) = seen.borrow().clone().expect("the button clicked a download link");
    let response = wasm_bindgen_futures::JsFuture::from(window().fetch_with_str(&href)).await.unwrap();
    let response: web_sys::Response = response.dyn_into().unwrap();
    let text = wasm_bindgen_futures::JsFuture::from(response.text().unwrap()).await.unwrap();
    (name, text.as_string().unwrap())
}

#[wasm_bindgen_test]
async fn export_import_round_trip_and_a_bad_file_changes_nothing() {
    let page = Page::open().await;
    page.choose("#preset-select", "cleanup-harness-min5-max10").await;
    let (name, text) = export(&page).await;
    assert_eq!(name, "cleanup-harness-min5-max10.json");
    assert_eq!(text, preset_json("cleanup-harness-min5-max10").unwrap(), "the exact text");

    page.choose("#preset-select", "seed-001-one-day-two-days").await;
    page.step(1).await;
    let bad = text.replace(r#"["a"]"#, "[1]");
    import(&page, "bad.json", &bad).await;
    until("the refusal", || page.find("#files-note").is_some()).await;
    assert_eq!(
        page.text("#files-note span"),
        "import 'bad.json': steps[0].row[0]: column 'key': expected STRING or null, found 1 — nothing was changed"
    );
    assert_eq!(page.text("#progress"), "step 1 / 4", "nothing changed");
    assert_eq!(page.text("#now"), "2019-11-20 15:00");
    // A Load after it says its own error, without the import's note beside it (trial 22).
    page.set_textarea("#scenario-json", "{");
    page.click("#load").await;
    assert!(page.find("#scenario-error").is_some());
    assert!(page.find("#files-note").is_none(), "{}", page.text("#files-note"));
    import(&page, "bad.json", &bad).await;
    until("the refusal", || page.find("#files-note").is_some()).await;

    import(&page, "cleanup-harness-min5-max10.json", &text).await;
    until("the import", || page.text("#progress") == "step 0 / 8").await;
    assert_eq!(page.text("#files-note span"), "Imported cleanup-harness-min5-max10.json");
    assert_eq!(page.textarea("#scenario-json"), text);
    assert_eq!(page.select_value("#preset-select"), "cleanup-harness-min5-max10", "the same text is the preset");
    assert_eq!(export(&page).await.1, text, "export → import → export is exact");
}

#[wasm_bindgen_test]
async fn a_permalink_opens_its_step_and_back_steps_back() {
    clean();
    set_query("?preset=cleanup-harness-min5-max10&step=3");
    let page = open_persistent().await;
    assert_eq!(page.text("#progress"), "step 3 / 8");
    assert_eq!(page.text("#now"), "5 ms");
    // The URL follows the page in an effect after the render: wait for it, then compare.
    page.click("#step").await;
    until("the URL after Step", || query() != "?preset=cleanup-harness-min5-max10&step=3").await;
    assert_eq!(query(), "?preset=cleanup-harness-min5-max10&step=4");
    page.click("#next-timer").await;
    until("the URL after the next timer", || query() != "?preset=cleanup-harness-min5-max10&step=4").await;
    assert_eq!(query(), "?preset=cleanup-harness-min5-max10&actions=s4.n");
    window().history().unwrap().back().unwrap();
    until("Back", || page.text("#now") == "5 ms").await;
    assert_eq!(page.text("#progress"), "step 4 / 8");
    assert_eq!(query(), "?preset=cleanup-harness-min5-max10&step=4");
    window().history().unwrap().back().unwrap();
    until("Back again", || page.text("#progress") == "step 3 / 8").await;
    window().history().unwrap().forward().unwrap();
    until("Forward", || page.text("#progress") == "step 4 / 8").await;
    drop(page);

    // A scenario of one's own travels compressed; a corrupted one loads the default preset.
    let custom = preset_json("seed-004-device-status").unwrap().replace("seed-004", "my-004");
    set_query(&format!("?s={}&step=1", lz_str::compress_to_encoded_uri_component(custom.as_str())));
    let page = open_persistent().await;
    assert_eq!(page.textarea("#scenario-json"), custom);
    assert_eq!(page.text("#progress"), "step 1 / 2");
    drop(page);
    set_query("?s=N4Ig-garbage&step=1");
    let page = open_persistent().await;
    assert_eq!(
        page.text("#files-note span"),
        "link: s: the compressed scenario is corrupted (it is not LZ-String data of a text) — the default preset \
         'seed-001-one-day-two-days' is loaded instead"
    );
    assert_eq!(page.text("#progress"), "step 0 / 4");
    drop(page);
    clean();
}

#[wasm_bindgen_test]
async fn play_is_one_history_entry_written_when_it_starts_and_when_it_pauses() {
    clean();
    set_query("?preset=cleanup-harness-min5-max10&step=1");
    let page = open_persistent().await;
    let history = window().history().unwrap();
    page.choose("#speed", "3").await; // ×10: a step every 90 ms
    page.click("#play").await;
    // Written after the frame that shows the first beat: step 2, or a later beat's step when the
    // machine is so busy that the next beat came before that frame (the write takes the latest).
    until("Play's first write of the URL", || query() != "?preset=cleanup-harness-min5-max10&step=1").await;
    let first = query();
    let written: u32 =
        first.strip_prefix("?preset=cleanup-harness-min5-max10&step=").unwrap_or("").parse().unwrap_or(0);
    assert!((2..=progress(&page)).contains(&written), "Play's first write: {first} at {}", page.text("#progress"));
    // Beats may come two at once on a busy machine: any step from 5 on.
    until("more beats", || progress(&page) >= 5).await;
    assert_eq!(query(), first, "the beats after the first write nothing while Play runs");
    page.click("#play").await; // pause
    let paused = page.text("#progress");
    let step: String = paused.trim_start_matches("step ").split(' ').next().unwrap().to_string();
    until("the URL at the pause", || query() == format!("?preset=cleanup-harness-min5-max10&step={step}")).await;
    // One entry for the whole Play: Back goes to where it started.
    history.back().unwrap();
    until("Back to before Play", || page.text("#progress") == "step 1 / 8").await;
    assert_eq!(query(), "?preset=cleanup-harness-min5-max10&step=1");
    drop(page);
    clean();
}

#[wasm_bindgen_test]
async fn the_autosave_restores_a_reload_and_a_quota_error_is_reported() {
    clean();
    let page = open_persistent().await;
    let custom = preset_json("seed-004-device-status").unwrap().replace("\"dev1\", 0", "\"dev1\", 5");
    page.set_textarea("#scenario-json", &custom);
    page.click("#load").await;
    page.step(1).await;
    // A reload: the page is hidden (the autosave of the last frame is written then), then gone.
    window().dispatch_event(&web_sys::Event::new("pagehide").unwrap()).unwrap();
    drop(page);
    set_query("");
    let page = open_persistent().await;
    assert_eq!(page.textarea("#scenario-json"), custom, "the reload lost nothing");
    assert_eq!(page.text("#progress"), "step 1 / 2");

    // A full storage: setItem throws as browsers do.
    let quota = js_sys::Function::new_no_args(
        "window.__setItem = Storage.prototype.setItem;
         Storage.prototype.setItem = function () { throw new DOMException('the quota has been exceeded', 'QuotaExceededError'); };",
    );
    quota.call0(&JsValue::NULL).unwrap();
    page.click("#step").await;
    // The autosave runs in an effect after the render, and its error is shown by the render
    // after that: since the page has more components (the timeline's own state and effects),
    // that can take more than the two timer turns `click` waits.
    until("the autosave's error", || page.find("#storage-error").is_some()).await;
    let restore = js_sys::Function::new_no_args("Storage.prototype.setItem = window.__setItem;");
    restore.call0(&JsValue::NULL).unwrap();
    assert_eq!(
        page.text("#storage-error"),
        "Autosave failed (QuotaExceededError: the quota has been exceeded): a reload will not bring this session back; \
         export the scenario to keep it."
    );
    assert_eq!(page.text("#progress"), "step 2 / 2", "the page goes on");
    page.click("#reset").await;
    assert!(page.find("#storage-error").is_none(), "the next save worked");
    drop(page);
    clean();
}

#[wasm_bindgen_test]
async fn the_table_editor_applies_edits_and_shows_refusals_next_to_the_field() {
    let page = Page::open().await;
    page.choose("#preset-select", "seed-004-device-status").await;
    page.step(1).await;
    change(&page, "#step-1-col-1", "7").await;
    assert!(page.textarea("#scenario-json").contains("7"), "the JSON editor follows");
    assert_eq!(page.text("#progress"), "step 1 / 2", "the position is kept");
    page.step(1).await;
    assert_eq!(page.texts("#op-outer .msg"), ["(true,1,1)", "(false,1,1)", "(true,7,1)"]);

    change(&page, "#step-0-col-1", "abc").await;
    assert!(
        page.text("#table-error")
            .starts_with("Not applied (the previous run goes on) — steps[0].row[1]: column 'status': expected INT"),
        "{}",
        page.text("#table-error")
    );
    assert_eq!(page.input_value("#step-0-col-1"), "abc", "what was typed is kept");
    assert_eq!(page.attr("#step-0-col-1", "aria-invalid"), "true");
    assert_eq!(page.text("#progress"), "step 2 / 2", "the previous run goes on");
    change(&page, "#step-0-col-1", "1").await;
    assert!(page.find("#table-error").is_none());

    page.choose("#preset-select", "seed-001-one-day-two-days").await;
    change(&page, "#idle-state-retention-max", "1 d").await;
    assert_eq!(
        page.text(".setting #table-error"),
        "Not applied — idle_state_retention: min = 1 d, max = 1 d: 0 ms apart; max must be at least 5 minutes more than min (or both 0) — Flink: \"Difference between minTime: 86400000 ms and maxTime: 86400000 msshoud be at least 5 minutes.\""
    );
    assert!(page.text("#retention").contains("min 1 d, max 2 d"), "still running the old settings");
    // Edits made meanwhile wait with the refused one, and the table says it is a draft.
    assert_eq!(
        page.text("#table-pending span"),
        "This table is a draft: none of its edits since the refused one runs. The run goes on with the scenario \
         before them, until the error is fixed. "
    );
    page.click(r#"button[aria-label="delete step 1"]"#).await;
    assert_eq!(page.texts("#input-table tbody tr").len(), 3, "the draft lost the row");
    assert_eq!(page.text("#progress"), "step 0 / 4", "the run still has it");
    page.click("#discard-edits").await;
    assert!(page.find("#table-pending").is_none());
    assert!(page.find("#table-error").is_none());
    assert_eq!(page.texts("#input-table tbody tr").len(), 4, "the table shows the run's scenario again");
    // Seed 001 runs on the legacy planner: each kind shown as the CRow flag it becomes.
    assert_eq!(page.texts("#step-0-kind option"), ["true (+I)", "false (-U)", "true (+U)", "false (-D)"]);
    assert_eq!(page.input_value("#idle-state-retention-max"), "2 d");
    change(&page, "#idle-state-retention-max", "1 d").await;
    change(&page, "#idle-state-retention-max", "3 d").await;
    assert!(page.text("#retention").contains("min 1 d, max 3 d"));

    page.click("#add-step").await;
    assert_eq!(page.text("#progress"), "step 0 / 5");
    page.click(r#"button[aria-label="delete step 5"]"#).await;
    page.click(r#"button[aria-label="delete step 1"]"#).await;
    assert_eq!(page.text("#progress"), "step 0 / 3");
    assert_eq!(page.input_value("#step-0-at"), "2019-11-20T16:00");
    // On Flink 2.3 the kinds are RowKinds, shown as written.
    page.choose("#preset-select", "seed-004-device-status-flink-2.3").await;
    assert_eq!(page.texts("#step-0-kind option"), ["+I", "-U", "+U", "-D"]);
}

#[wasm_bindgen_test]
async fn a_refused_flink_version_is_said_once_and_offers_the_conversion() {
    let page = Page::open().await;
    page.step(1).await;
    page.choose("#flink-select", "2.3").await;
    assert!(page.text("#flink-error").starts_with(
        "Not switched to Flink 1.19–2.3 (still running Flink 1.8–1.11 legacy planner): idle_state_retention: Flink 1.19–2.3 keeps state with state TTL"
    ));
    assert!(page.find("#scenario-error").is_none(), "said once");
    assert!(!page.get("details.editor").has_attribute("open"), "the editor stays closed");
    assert_eq!(page.select_value("#flink-select"), "1.10-legacy");
    assert_eq!(
        page.text("#conversion-summary"),
        "idle_state_retention {min 1 d, max 2 d} → state_ttl 1 d (as Flink 1.12 maps it: table.exec.state.ttl = min; max is ignored)"
    );
    page.click("#convert").await;
    assert!(page.find("#flink-error").is_none());
    assert_eq!(page.select_value("#flink-select"), "2.3");
    assert_eq!(page.text("#retention"), "table.exec.state.ttl = 1 d");
    // Converted at the position the page was at, as a plain switch (trial 18: it went to step 0).
    assert_eq!(page.text("#progress"), "step 1 / 4");
    assert_eq!(page.texts("#op-logins_per_user .msg"), ["+I[u1, 1]"]);

    // A refusal a conversion cannot lift (an operator the version does not model) offers none.
    page.choose("#preset-select", "seed-000-topn-dedup").await;
    page.choose("#flink-select", "1.12").await;
    assert!(page.text("#flink-error").contains("not modelled"), "{}", page.text("#flink-error"));
    assert!(page.find("#convert").is_none(), "a conversion that would be refused too is not offered");
}

#[wasm_bindgen_test]
async fn export_to_flink_sql_downloads_the_script_or_says_why_not() {
    let page = Page::open().await;
    page.choose("#preset-select", "sql-device-status-two-level-ttl").await;
    let (name, text) = download(&page, "#export-sql").await;
    assert_eq!(name, "sql-device-status-two-level-ttl.sql");
    // The script the CLI's `export-sql` writes, recorded on real Flink 2.3.
    assert_eq!(text, include_str!("conformance/exported/sql-device-status-two-level-ttl.sql"));
    until("the note", || page.find("#files-note").is_some()).await;
    assert!(page.text("#files-note span").starts_with("Exported sql-device-status-two-level-ttl.sql"));

    // The legacy planner's scenario: the button is disabled and says why (trial 23: it promised
    // a script, then a click refused).
    page.choose("#preset-select", "seed-001-one-day-two-days").await;
    assert!(page.is_disabled("#export-sql"));
    let title = page.attr("#export-sql", "title");
    assert!(
        title.starts_with("Cannot export to Flink SQL: the scenario simulates")
            && title.contains("\"flink\": \"1.10-legacy\"")
            && title.contains("Flink 2.3 has no legacy planner"),
        "{title}"
    );
    // Refusals that only the export itself finds disable it too (trial 24: enabled, then a
    // click refused): a user-defined aggregate, a sink with a PRIMARY KEY.
    for (preset, why) in [
        ("seed-004-device-status-flink-2.3", "LATEST_BY_TIME is seed 004's user-defined function (latestTimeUdf)"),
        ("upsert-sink-on-conflict", "the sink has a PRIMARY KEY"),
    ] {
        page.choose("#preset-select", preset).await;
        assert!(page.is_disabled("#export-sql"), "{preset}");
        let title = page.attr("#export-sql", "title");
        assert!(title.starts_with("Cannot export to Flink SQL: ") && title.contains(why), "{preset}: {title}");
    }
    page.choose("#preset-select", "sql-device-status-two-level-ttl").await;
    assert!(!page.is_disabled("#export-sql"));
}

/// A preset edited on the page is exported under another name, so the file is not taken for the
/// preset, and the page says so (issue 17).
#[wasm_bindgen_test]
async fn an_edited_preset_is_exported_as_an_edited_copy() {
    let page = Page::open().await;
    page.choose("#preset-select", "cleanup-harness-min5-max10").await;
    let edited = preset_json("cleanup-harness-min5-max10")
        .unwrap()
        .replace(r#"{ "at": 8, "row": ["b"] }"#, r#"{ "at": 9, "row": ["b"] }"#);
    assert_ne!(edited, preset_json("cleanup-harness-min5-max10").unwrap(), "the edit changes the text");
    page.set_textarea("#scenario-json", &edited);
    page.click("#load").await;
    assert!(page.find("#scenario-edited").is_some());
    // The preset's own notes are said to be the preset's: their numbers may not be this run's.
    assert!(
        page.text("#scenario-edited").contains("What to watch are the preset's"),
        "{}",
        page.text("#scenario-edited")
    );
    assert!(page.text("#scenario-watch").starts_with("What to watch (in the preset as it ships): "));
    let (name, text) = export(&page).await;
    assert_eq!(name, "cleanup-harness-min5-max10-edited.json");
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["name"], "cleanup-harness-min5-max10-edited");
    assert!(value["title"].as_str().unwrap().ends_with(" (edited)"), "{}", value["title"]);
    assert_eq!(value["steps"][4]["at"], 9, "the edit is exported");
    assert!(
        page.text("#files-note").contains("renamed cleanup-harness-min5-max10-edited"),
        "{}",
        page.text("#files-note")
    );
}
