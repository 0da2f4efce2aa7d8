//! Hostile links and files in a real headless browser (issue 14, `repro/more/url/`): a
//! decompression bomb refused with a note, a link asking for 10^7 steps opening at the start with
//! "Go there" (progress, Cancel), a link full of HTML shown as text, a file too large refused
//! before it is read. The page stays usable after each.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, Page};
use common::wait::{now_ms, wait_for};
use flink_state_sim::engine::digits::grouped;
use flink_state_sim::link::{MAX_IMPORT_BYTES, MAX_SCENARIO_UNITS};
use flink_state_sim::ui::persist::{STORAGE_KEY, TOUR_KEY};
use flink_state_sim::ui::AppProps;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Event, EventInit, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

fn window() -> web_sys::Window {
    web_sys::window().unwrap()
}

/// Sets the page's query without loading anything, as a link opened would.
fn set_query(query: &str) {
    let path = window().location().pathname().unwrap();
    window().history().unwrap().replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{query}"))).unwrap();
}

fn clean() {
    set_query("");
    window().local_storage().unwrap().unwrap().remove_item(STORAGE_KEY).unwrap();
    // The first-visit tour is tests/browser_tour.rs's: here it stays closed.
    window().local_storage().unwrap().unwrap().set_item(TOUR_KEY, "1").unwrap();
}

/// The page as the real page mounts it (it reads the link), and the ms its mount took.
fn open_link(query: &str) -> (Page, f64) {
    clean();
    set_query(query);
    let doc = window().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    let started = now_ms();
    common::browser::render(&root, AppProps { persist: true, embed: None });
    (Page { root }, now_ms() - started)
}

/// `repro/more/url/lz_bomb.py N` (no close code), bit for bit.
fn lz_bomb(n: usize) -> String {
    const URI_KEY: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$";
    let mut bits: Vec<u8> = Vec::new();
    let emit =
        |bits: &mut Vec<u8>, value: usize, width: u32| (0..width).for_each(|i| bits.push(((value >> i) & 1) as u8));
    emit(&mut bits, 0, 2);
    emit(&mut bits, usize::from(b'{'), 8);
    let (mut dict_len, mut num_bits, mut enlarge_in) = (4usize, 3u32, 4usize);
    for _ in 0..n {
        emit(&mut bits, dict_len, num_bits);
        dict_len += 1;
        enlarge_in -= 1;
        if enlarge_in == 0 {
            enlarge_in = 1 << num_bits;
            num_bits += 1;
        }
    }
    while bits.len() % 6 != 0 {
        bits.push(0);
    }
    bits.chunks(6).map(|c| URI_KEY[c.iter().fold(0usize, |v, b| (v << 1) | usize::from(*b))] as char).collect()
}

/// The page works: Step moves it.
async fn page_works(page: &Page) {
    let before = page.text("#progress");
    page.click("#step").await;
    wait_for("Step to move the page", 10_000.0, || page.text("#progress") != before).await;
}

#[wasm_bindgen_test]
async fn a_decompression_bomb_link_is_refused_with_a_note_and_the_page_works() {
    // 70 KB that decode to 420 M characters (840 MB).
    let data = lz_bomb(29_000);
    assert!(data.len() > 60_000, "{}", data.len());
    let (page, mount_ms) = open_link(&format!("?s={data}&step=1"));
    wait_for("the note about the link", 10_000.0, || page.find("#files-note").is_some()).await;
    let note = page.text("#files-note");
    assert!(
        note.contains(&format!(
            "link: s: the compressed scenario decodes to more than {} characters",
            grouped(MAX_SCENARIO_UNITS)
        )),
        "{note}"
    );
    assert!(note.contains("the default preset"), "{note}");
    assert!(mount_ms < 5_000.0, "the page took {mount_ms} ms to open the link");
    page_works(&page).await;
    clean();
}

/// A step past a long scenario's end is too far to replay on load: its end is offered (trial 28:
/// the note said "opened at its end" above the banner saying it opened at the start).
#[wasm_bindgen_test]
async fn a_step_past_a_long_runs_end_offers_its_end_and_says_so() {
    let (page, _) = open_link("?preset=what-if-100k-logins&step=10000000");
    wait_for("the link's note", 10_000.0, || page.find("#far-note").is_some()).await;
    assert_eq!(
        page.text("#files-note").trim_end_matches('×'),
        "link: step: 10000000 is past the scenario's last step (100000 steps) — the link goes to its end, step 100 000"
    );
    let far = page.text("#far-note");
    assert!(far.contains("This link asks for step 100 000; it opened at the start"), "{far}");
    assert_eq!(page.text("#progress"), "step 0 / 100000");
    clean();
}

#[wasm_bindgen_test]
async fn a_link_to_step_ten_million_opens_at_the_start_and_goes_there_only_when_asked() {
    let link = include_str!("fixtures/repro/more/ten-million-link.txt").trim();
    let query = &link[link.find('?').unwrap()..];
    let (page, mount_ms) = open_link(query);
    wait_for("the link's note", 10_000.0, || page.find("#far-note").is_some()).await;
    assert!(mount_ms < 5_000.0, "the page took {mount_ms} ms to open the link");
    let note = page.text("#far-note");
    assert!(note.contains("This link asks for step 10 000 000; it opened at the start"), "{note}");
    assert_eq!(page.text("#progress"), "step 0 / 10000000");
    assert!(page.find("#far-go").is_some());
    // The address keeps what the link asks for (a reload offers it again).
    wait_for("the address written", 10_000.0, || window().location().search().unwrap().contains("step=10000000")).await;

    page.click("#far-go").await;
    wait_for("progress", 10_000.0, || {
        page.find("#far-progress")
            .and_then(|p| p.get_attribute("value"))
            .is_some_and(|v| v.parse::<u64>().unwrap_or(0) > 0)
    })
    .await;
    // Responsive while it runs: a timer task gets its turn within a few frames.
    let started = now_ms();
    gloo_timers::future::TimeoutFuture::new(0).await;
    let turn = now_ms() - started;
    assert!(turn < 1_000.0, "a task waited {turn} ms while going there");
    page.click("#far-cancel").await;
    wait_for("Go on", 10_000.0, || page.find("#far-go").is_some_and(|b| b.text_content().unwrap() == "Go on")).await;
    let note = page.text("#far-note");
    assert!(note.contains("stopped at"), "{note}");
    let at: u64 = page.text("#progress").split(' ').nth(1).unwrap().parse().unwrap();
    assert!(at > 0 && at < 10_000_000, "{at}");
    page_works(&page).await;
    clean();
}

/// Every element under `root`, with its tag and attributes.
fn elements(root: &web_sys::Element) -> Vec<web_sys::Element> {
    let list = root.query_selector_all("*").unwrap();
    (0..list.length()).filter_map(|i| list.item(i)).map(|n| n.unchecked_into()).collect()
}

#[wasm_bindgen_test]
async fn a_link_full_of_html_is_shown_as_text_and_creates_no_element() {
    let link = include_str!("fixtures/repro/more/xss-link.txt").trim();
    let (page, _) = open_link(&link[link.find('?').unwrap()..]);
    let title = "<img src=x onerror=alert(1)><script>alert(2)</script>";
    wait_for("the scenario's title", 10_000.0, || {
        page.find("#scenario-title").is_some_and(|t| t.text_content().unwrap() == title)
    })
    .await;
    assert!(page.find("#files-note").is_none(), "the link opened: {}", page.text("#files-note"));
    // Run it to its end so the key, the ids and the output column are on show.
    while page.text("#progress") != "step 3 / 3" {
        assert!(!page.is_disabled("#step"), "Step disabled at {}", page.text("#progress"));
        page.click("#step").await;
    }
    wait_for("the key on show", 10_000.0, || {
        page.root.text_content().unwrap().contains("<img src=x onerror=alert(1)>")
    })
    .await;
    let text = page.root.text_content().unwrap();
    for shown in ["<iframe src=javascript:alert(5)>", "\"><img src=x onerror=alert(6)>"] {
        assert!(text.contains(shown), "{shown} is not shown as text");
    }
    for el in elements(&page.root) {
        let tag = el.tag_name().to_lowercase();
        assert!(!["img", "script", "iframe"].contains(&tag.as_str()), "a <{tag}> in the page: {}", el.outer_html());
        for name in el.get_attribute_names().iter().filter_map(|n| n.as_string()) {
            assert!(!name.starts_with("on"), "an attribute {name} on <{tag}>");
            let value = el.get_attribute(&name).unwrap_or_default();
            assert!(!value.trim_start().to_lowercase().starts_with("javascript:"), "{name}=\"{value}\" on <{tag}>");
        }
    }
    // Nowhere in the document either (the test page's own scripts aside).
    let doc = window().document().unwrap();
    assert!(doc
        .query_selector("[href^='javascript:' i], [src^='javascript:' i], img, iframe, svg[onload]")
        .unwrap()
        .is_none());
    clean();
}

#[wasm_bindgen_test]
async fn a_file_too_large_is_refused_before_it_is_read() {
    let page = Page::open().await;
    let big = format!("{{\"name\": \"{}\"}}", "x".repeat(MAX_IMPORT_BYTES as usize));
    let parts = js_sys::Array::of1(&JsValue::from_str(&big));
    let file = web_sys::File::new_with_str_sequence(&parts, "big.json").unwrap();
    let transfer = web_sys::DataTransfer::new().unwrap();
    transfer.items().add_with_file(&file).unwrap();
    let input = page.get("#import").dyn_into::<HtmlInputElement>().unwrap();
    input.set_files(transfer.files().as_ref());
    let init = EventInit::new();
    init.set_bubbles(true);
    input.dispatch_event(&Event::new_with_event_init_dict("change", &init).unwrap()).unwrap();
    wait_for("the import's note", 10_000.0, || page.find("#files-note").is_some()).await;
    assert_eq!(
        page.text("#files-note").trim_end_matches('×'),
        format!(
            "import 'big.json': the file is {} bytes, more than the 4,194,304 (4 MiB) a scenario file may be — nothing was changed",
            grouped(big.len())
        )
    );
    page_works(&page).await;
}

/// Opens the page at `address` (its query or fragment) and checks the link's note and the
/// position it opened at; the page works after.
async fn opens_with_note(address: &str, note: &str, progress: &str) {
    let (page, _) = open_link(address);
    wait_for("the link's note", 10_000.0, || page.find("#files-note").is_some()).await;
    assert_eq!(page.text("#files-note span"), note);
    assert_eq!(page.text("#progress"), progress);
    page_works(&page).await;
    clean();
}

#[wasm_bindgen_test]
async fn a_link_with_its_parameters_after_the_hash_is_told_how_to_write_them() {
    // The page opens as it does without a link: the default preset at its start.
    opens_with_note(
        "#preset=seed-004-device-status&step=2",
        "link: the part after # (preset=seed-004-device-status&step=2) is not read — a link carries its parameters after ?, as ?preset=seed-004-device-status&step=2",
        "step 0 / 4",
    )
    .await;
}

#[wasm_bindgen_test]
async fn a_parameter_the_page_does_not_read_is_named() {
    opens_with_note(
        "?preset=seed-004-device-status&step=1&foo=bar&panels=flow",
        "link: foo, panels are not read by the page (it reads preset, s, step, actions, t); the rest of the link opened",
        "step 1 / 2",
    )
    .await;
}

#[wasm_bindgen_test]
async fn a_bad_step_keeps_the_links_scenario() {
    // Trial 19: a bad `step=` opened the default preset (seed 001) instead of seed 004.
    opens_with_note(
        "?preset=seed-004-device-status&step=abc",
        "link: step: 'abc' is not a whole number of steps — the link's scenario opened at its start",
        "step 0 / 2",
    )
    .await;
    opens_with_note(
        "?preset=seed-004-device-status&actions=zz",
        "link: actions: 'zz' is not an action (s, n, bMS, tMS, optionally *COUNT) — the link's scenario opened at its start",
        "step 0 / 2",
    )
    .await;
    // A bad scenario and a bad step: both are said (trial 22: only the preset was).
    opens_with_note(
        "?preset=nope&step=abc",
        "link: preset: no preset named 'nope' — the default preset 'seed-001-one-day-two-days' is loaded instead\n\
         link: step: 'abc' is not a whole number of steps",
        "step 0 / 4",
    )
    .await;
}

#[wasm_bindgen_test]
async fn a_bidi_control_in_a_links_preset_name_is_shown_escaped() {
    // Trial 19: U+202E in the name reversed the note's text on the page.
    opens_with_note(
        "?preset=%E2%80%AEevil%E2%80%AC-name",
        "link: preset: no preset named '\\u{202e}evil\\u{202c}-name' — the default preset 'seed-001-one-day-two-days' is loaded instead",
        "step 0 / 4",
    )
    .await;
}

#[wasm_bindgen_test]
async fn a_bad_range_without_a_scenario_is_said() {
    // Trial 19: `?t=` reversed, with no preset= or s=, opened the page without a word.
    opens_with_note(
        "?t=2019-11-22T00:00..2019-11-21T00:00",
        "link: t: the range must end after it starts (2019-11-21T00:00 is not after 2019-11-22T00:00) — the timeline shows the run as usual",
        "step 0 / 4",
    )
    .await;
}

/// A link's scenario title with a right-to-left override and a zero-width space shows them
/// escaped, not applied (trial 20: the title read reversed), and a 20 000-character title is cut.
#[wasm_bindgen_test]
async fn a_link_s_title_shows_its_invisible_characters_escaped_and_is_cut_when_long() {
    let json = flink_state_sim::engine::presets::preset_json("seed-004-device-status").unwrap();
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    value["title"] = "evil \u{202e} title\u{200b}<img src=x onerror=alert(1)>".into();
    let data = lz_str::compress_to_encoded_uri_component(&value.to_string());
    let (page, _) = open_link(&format!("?s={data}"));
    settle().await;
    assert_eq!(page.text("#scenario-title"), "evil \\u{202e} title\\u{200b}<img src=x onerror=alert(1)>");
    drop(page);
    value["title"] = "K".repeat(20_000).into();
    let data = lz_str::compress_to_encoded_uri_component(&value.to_string());
    let (page, _) = open_link(&format!("?s={data}"));
    settle().await;
    assert_eq!(page.text("#scenario-title"), format!("{}…", "K".repeat(200)));
    clean();
}

/// A link's note is about how the page was opened: switching the Flink version (which replays the
/// run at the same position) leaves it behind (trial 20: it stayed above the switched run).
#[wasm_bindgen_test]
async fn switching_the_flink_version_drops_the_link_s_note_and_keeps_the_position() {
    let (page, _) = open_link("?preset=seed-004-device-status&step=1&t=nonsense");
    settle().await;
    assert!(page.text("#files-note").starts_with("link: t: "), "{}", page.text("#files-note"));
    page.choose("#flink-select", "2.3").await;
    settle().await;
    assert!(page.find("#files-note").is_none(), "{}", page.text("#files-note"));
    assert_eq!(page.text("#progress"), "step 1 / 2");
    clean();
}

/// A 20 000-character key (a link's scenario is anyone's) is cut in "What just happened" and in
/// the bookmarks, not written out whole (trial 20: it filled the page with lines of K's).
#[wasm_bindgen_test]
async fn a_very_long_key_is_cut_where_the_page_writes_lines_about_it() {
    let long = "K".repeat(20_000);
    let json = flink_state_sim::engine::presets::preset_json("seed-001-one-day-two-days").unwrap();
    let json = json.replace("\"u1\"", &format!("\"{long}\""));
    let data = lz_str::compress_to_encoded_uri_component(&json);
    let (page, _) = open_link(&format!("?s={data}&step=4"));
    settle().await;
    let lines = page.texts("#happened .entry");
    assert!(!lines.is_empty());
    for line in &lines {
        assert!(line.chars().count() < 1_000, "{} characters: {}…", line.chars().count(), &line[..200]);
    }
    assert!(lines.iter().any(|l| l.contains("KKK…")), "the key is cut with …");
    let marks = page.texts(".bm-what");
    assert!(!marks.is_empty());
    for m in &marks {
        assert!(m.chars().count() < 400, "{} characters", m.chars().count());
    }
    // The result's cells, the operators' changelogs and keys, the flow's messages and rows, the
    // inspector's keys: each value or message cut at 300 characters.
    let cells = page.texts("#result td");
    assert!(
        cells.iter().any(|c| c.starts_with("KKK") && c.ends_with('…')),
        "{:?}",
        cells.iter().map(|c| c.len()).collect::<Vec<_>>()
    );
    for selector in [
        "#result td",
        ".operators li",
        ".operators span",
        "#flow .msg",
        "#flow .msg-text",
        "#flow .flow-row",
        "#flow .fchanges li",
        "th.key",
    ] {
        for text in page.texts(selector) {
            assert!(text.chars().count() < 700, "{selector}: {} characters", text.chars().count());
        }
    }
    clean();
}

/// A scenario whose link is longer than a web server is sure to accept (8 000 characters) is not
/// written into the address: the bare address stays, the autosave keeps the scenario, and a note
/// says so; Copy link says it too instead of writing the link out (trial 19: a 30 000-step
/// scenario wrote a 194 KB address that the server refused with 414 on reload).
#[wasm_bindgen_test]
async fn a_scenario_too_long_for_a_link_stays_out_of_the_address_and_is_said() {
    use flink_state_sim::link::MAX_ADDRESS_CHARS;
    let json = flink_state_sim::engine::presets::preset_json("seed-001-one-day-two-days").unwrap();
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    // 1 500 logins of users whose ids do not compress (a fixed linear congruential sequence).
    let mut x: u64 = 42;
    let steps = value["steps"].as_array_mut().unwrap();
    for i in 0..1_500 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        steps.insert(3 + i, serde_json::json!({ "at": "2019-11-21T16:00", "row": [format!("{x:016x}")] }));
    }
    let text = value.to_string();
    let data = lz_str::compress_to_encoded_uri_component(&text);
    assert_eq!(MAX_ADDRESS_CHARS, 8_000);
    assert!(data.len() > MAX_ADDRESS_CHARS, "{} characters", data.len());
    let (page, _) = open_link(&format!("?s={data}&step=2"));
    settle().await;
    assert_eq!(page.text("#progress"), "step 2 / 1504");
    assert_eq!(window().location().search().unwrap(), "", "the address carries no scenario");
    assert_eq!(
        page.text("#long-link"),
        format!(
            "This scenario's link would be more than {} characters long — over the 8,000 characters a web \
             server is sure to accept, so the address bar does not carry it. A reload brings the scenario back \
             from this browser's autosave; to share it, export it (⤓ Export) and send the file.",
            grouped(data.len())
        )
    );
    let saved = window().local_storage().unwrap().unwrap().get_item(STORAGE_KEY).unwrap().unwrap();
    let saved: serde_json::Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(saved["scenario"].as_str(), Some(text.as_str()), "the autosave holds the scenario's text");
    page.step(1).await;
    settle().await;
    assert_eq!(window().location().search().unwrap(), "");
    page.click("#copy-link").await;
    wait_for("the copy's note", 10_000.0, || page.find("#files-note").is_some()).await;
    let note = page.text("#files-note");
    // Briefly: the long-link note above says what to do (trial 22: said twice).
    assert!(note.contains("characters long, too long for a web server: the note above says what to do"), "{note}");
    assert!(!note.contains("Export"), "{note}");
    assert!(note.chars().count() < 600, "the link is not written out: {} characters", note.chars().count());
    drop(page);
    // A preset's link is short again: written, and no note.
    let (page, _) = open_link("?preset=seed-001-one-day-two-days&step=1");
    settle().await;
    page.step(1).await;
    settle().await;
    assert_eq!(window().location().search().unwrap(), "?preset=seed-001-one-day-two-days&step=2");
    assert!(page.find("#long-link").is_none());
    clean();
}

/// A scenario whose text is over 512 KB is not even compressed: the page says so, and Copy link
/// copies nothing and says it in one line, pointing at that note (trial 22: the branch had no test).
#[wasm_bindgen_test]
async fn a_scenario_text_too_long_to_compress_copies_no_link_and_says_why() {
    use flink_state_sim::link::MAX_LINKED_TEXT_BYTES;
    let json = flink_state_sim::engine::presets::preset_json("seed-001-one-day-two-days").unwrap();
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    let steps = value["steps"].as_array_mut().unwrap();
    for i in 0..12_000 {
        steps.insert(3 + i, serde_json::json!({ "at": "2019-11-21T16:00", "row": [format!("user-{i:08}")] }));
    }
    let text = value.to_string();
    assert!(text.len() > MAX_LINKED_TEXT_BYTES, "{} bytes", text.len());
    let (page, _) = open_link("?preset=seed-001-one-day-two-days");
    settle().await;
    page.set_textarea("#scenario-json", &text);
    page.click("#load").await;
    settle().await;
    assert_eq!(page.text("#progress"), "step 0 / 12004");
    assert_eq!(
        page.text("#long-link"),
        format!(
            "This scenario is {} bytes of text: its link would be far longer — over the 8,000 characters a web \
             server is sure to accept, so the address bar does not carry it. A reload brings the scenario back \
             from this browser's autosave; to share it, export it (⤓ Export) and send the file.",
            grouped(text.len())
        )
    );
    assert_eq!(window().location().search().unwrap(), "", "the address carries no scenario");
    page.click("#copy-link").await;
    assert_eq!(
        page.text("#files-note span"),
        "No link copied: this scenario is too long for a link (the note above says what to do)."
    );
    drop(page);
    clean();
}

/// A far scrub goes through many positions in slices; the address is written once, where it
/// ends, as one history entry (trial 24: `step=` showed the positions it passed).
#[wasm_bindgen_test]
async fn a_far_scrub_writes_the_address_once_where_it_ends() {
    let (page, _) = open_link("");
    settle().await;
    let json = flink_state_sim::engine::presets::preset_json("what-if-100k-logins").unwrap();
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    value["workload"]["events"] = 70_000.into();
    page.set_textarea("#scenario-json", &value.to_string());
    page.click("#load").await;
    page.click("#run-all").await;
    common::browser::until("the end of the run", || page.text("#progress") == "step 70000 / 70000").await;
    settle().await;
    let search = || window().location().search().unwrap();
    let before = search();
    assert!(before.contains("step=70000"), "{before}");
    let entries = window().history().unwrap().length().unwrap();
    // Checkpoints every 4 096 actions there: 4 000 actions of replay, many slices in this build.
    let to = 7 * 4096 + 4000;
    let input = page.get("#scrubber").dyn_into::<HtmlInputElement>().unwrap();
    input.set_value(&to.to_string());
    let init = EventInit::new();
    init.set_bubbles(true);
    input.dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    yew::scheduler::flush().await;
    assert!(page.find("#scrub-going").is_some(), "a far move: {}", page.text("#scrub-position"));
    let mut slices = 0;
    while page.find("#scrub-going").is_some() {
        assert_eq!(search(), before, "the address while the move goes on ({})", page.text("#scrub-position"));
        common::browser::tick().await;
        slices += 1;
    }
    assert!(slices > 1, "the move went in slices");
    settle().await;
    assert_eq!(page.text("#progress"), format!("step {to} / 70000"));
    assert!(search().contains(&format!("step={to}")), "{}", search());
    assert_eq!(window().history().unwrap().length().unwrap(), entries + 1, "one entry for the move");
    clean();
}
