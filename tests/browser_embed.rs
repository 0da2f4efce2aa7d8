//! Embedding in a real headless browser: `mount()` simulators (two on one page stepping apart,
//! `destroy`, bad arguments throwing), the `<flink-state-sim>` element, the `?embed` link, and
//! that an embedded simulator leaves the URL and the storage alone. Its keys:
//! `tests/browser_embed_keys.rs`.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, Page};
use common::embed::{define, document, element, host, inside, js, message, mount_error, mounted, options};
use flink_state_sim::engine::presets::preset_json;
use flink_state_sim::ui::embed::{link, Embed, Panel};
use flink_state_sim::ui::persist::STORAGE_KEY;
use flink_state_sim::ui::state::AppState;
use flink_state_sim::ui::AppProps;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn two_simulators_on_one_page_step_independently() {
    let (ha, hb) = (host(""), host(""));
    let a = mounted(&ha, "seed-001-one-day-two-days", JsValue::UNDEFINED);
    let b = mounted(&hb, "cleanup-harness-min5-max10", options(r#"{"step": 2}"#));
    settle().await;
    let (pa, pb) = (inside(&ha), inside(&hb));
    assert_eq!(pa.text("#progress"), "step 0 / 4");
    assert_eq!(pb.text("#progress"), "step 2 / 8");
    assert_eq!(pb.text("#now"), "1 ms");
    assert_eq!((a.position().unwrap(), b.position().unwrap(), a.steps().unwrap()), (0.0, 2.0, 4.0));

    a.step().unwrap();
    a.step().unwrap();
    settle().await;
    assert_eq!(pa.text("#progress"), "step 2 / 4");
    assert!(pa
        .text("#happened")
        .contains("now + min = 2019-11-21 16:00 <= C = 2019-11-22 15:00 → keep 2019-11-22 15:00"));
    assert_eq!(pb.text("#progress"), "step 2 / 8", "b did not move");
    assert_eq!(a.now().unwrap(), "2019-11-20 16:00");

    // b's own Step button moves b alone, and its handle sees it.
    pb.click("#step").await;
    assert_eq!(pb.text("#progress"), "step 3 / 8");
    assert_eq!((a.position().unwrap(), b.position().unwrap()), (2.0, 3.0));

    // seek: back by replay, forward by stepping.
    b.seek(js(0)).unwrap();
    a.seek(js(4)).unwrap();
    settle().await;
    assert_eq!(pb.text("#progress"), "step 0 / 8");
    assert_eq!(pa.text("#progress"), "step 4 / 4");
    assert!(pa.find(r#"#timeline .timer.fired[data-timer="2019-11-23 16:00"]"#).is_some());
    assert_eq!(message(a.step().unwrap_err()), "step: all 4 steps have run");
    a.seek(js(1)).unwrap();
    settle().await;
    assert_eq!(pa.texts("#op-logins_per_user .msg"), ["(true,u1,1)"]);
}

#[wasm_bindgen_test]
async fn a_handle_steps_before_the_first_render() {
    let h = host("");
    let sim = mounted(&h, "seed-004-device-status-flink-2.3", JsValue::UNDEFINED);
    sim.step().unwrap();
    sim.step().unwrap();
    assert_eq!(sim.position().unwrap(), 2.0);
    settle().await;
    let page = inside(&h);
    assert_eq!(page.texts("#op-outer .msg"), ["+I[1, 1]", "-D[1, 1]", "+I[0, 1]"]);
}

#[wasm_bindgen_test]
async fn destroy_removes_one_simulator_and_the_element_takes_another() {
    let (ha, hb) = (host(""), host(""));
    let mut a = mounted(&ha, "seed-001-one-day-two-days", JsValue::UNDEFINED);
    let b = mounted(&hb, "seed-001-one-day-two-days", JsValue::UNDEFINED);
    settle().await;
    assert!(ha.has_attribute("data-flink-state-sim"));
    a.destroy();
    settle().await;
    assert!(ha.shadow_root().unwrap().first_child().is_none(), "nothing is left in a's element");
    assert!(!ha.has_attribute("data-flink-state-sim"));
    assert_eq!(message(a.step().unwrap_err()), "step: this simulator was destroyed");
    assert_eq!(message(a.seek(js(1)).unwrap_err()), "seek: this simulator was destroyed");
    assert_eq!(message(a.position().unwrap_err()), "position: this simulator was destroyed");
    a.destroy(); // again: nothing happens

    b.step().unwrap();
    settle().await;
    assert_eq!(inside(&hb).text("#progress"), "step 1 / 4", "b goes on");

    let again = mounted(&ha, "seed-004-device-status", JsValue::UNDEFINED);
    settle().await;
    assert_eq!(inside(&ha).text("#progress"), "step 0 / 2");
    assert_eq!(again.steps().unwrap(), 2.0);
}

#[wasm_bindgen_test]
async fn bad_arguments_throw_naming_the_argument_and_the_rule() {
    let h = host("");
    let el = || js(h.clone());
    let preset = || JsValue::from_str("seed-001-one-day-two-days");
    assert_eq!(
        mount_error(JsValue::NULL, preset(), JsValue::UNDEFINED),
        "mount: element: expected a DOM element, got null (did the element's lookup find nothing?)"
    );
    assert_eq!(
        mount_error(JsValue::from_str("#sim"), preset(), JsValue::UNDEFINED),
        "mount: element: expected a DOM element, got the string '#sim'"
    );
    let unknown = mount_error(el(), JsValue::from_str("seed-01"), JsValue::UNDEFINED);
    assert!(
        unknown.starts_with("mount: scenario: no preset named 'seed-01' (presets: seed-001-one-day-two-days, "),
        "{unknown}"
    );
    assert!(unknown.ends_with("); a scenario of your own is given as its JSON text"), "{unknown}");
    let bad_json = mount_error(el(), JsValue::from_str("{ not json"), JsValue::UNDEFINED);
    assert!(bad_json.starts_with("mount: scenario: "), "{bad_json}");
    // Said once (trial 23: "scenario: scenario: invalid JSON").
    let e = flink_state_sim::engine::Scenario::from_json("{ not json").unwrap_err();
    assert_eq!(e.path, "scenario");
    assert_eq!(bad_json, format!("mount: scenario: {}", e.message));
    assert!(e.message.starts_with("invalid JSON: "), "{e}");
    let bad_rule = preset_json("seed-001-one-day-two-days").unwrap().replace(r#""max": "2 d""#, r#""max": "1 d""#);
    assert_eq!(
        mount_error(el(), JsValue::from_str(&bad_rule), JsValue::UNDEFINED),
        "mount: scenario: idle_state_retention: min = 1 d, max = 1 d: 0 ms apart; max must be at least 5 minutes more than min (or both 0) — Flink: \"Difference between minTime: 86400000 ms and maxTime: 86400000 msshoud be at least 5 minutes.\""
    );
    assert_eq!(
        mount_error(el(), options(r#"{"name": "x"}"#), JsValue::UNDEFINED),
        "mount: scenario: expected a preset's name or a scenario's JSON text, got an object (JSON.stringify a scenario object first)"
    );
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"stpe": 2}"#)),
        "mount: options.stpe: unknown field `stpe`, expected one of `step`, `heading`, `panels`, `layout`, `t`"
    );
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"panels": ["timelin"]}"#)),
        "mount: options.panels[0]: unknown panel `timelin`, expected one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector`"
    );
    // Every bad option at once, one per line, in the object's order (trial 19: the first hid the
    // others).
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"stpe": 2, "panels": ["timelin"], "heading": "sure"}"#)),
        "mount: options.stpe: unknown field `stpe`, expected one of `step`, `heading`, `panels`, `layout`, `t`\n\
         options.panels[0]: unknown panel `timelin`, expected one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector`\n\
         options.heading: expected true or false, found the string \"sure\""
    );
    // An empty name between commas is said (trial 26: taken without a word).
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"panels": "timeline,,result"}"#)),
        "mount: options.panels: 'timeline,,result' has an empty name between commas"
    );
    // heading in words, as a link and an attribute take it (trial 26: refused by mount()).
    let h2 = host("");
    let sim = flink_state_sim::ui::mount::mount(js(h2.clone()), preset(), options(r#"{"heading": "no"}"#));
    assert!(sim.is_ok(), "heading: 'no' accepted");
    settle().await;
    let root = h2.shadow_root().unwrap();
    assert!(root.query_selector("#scenario-title").unwrap().is_none(), "no heading");
    drop(sim);
    h2.remove();
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"heading": "maybe"}"#)),
        "mount: options.heading: expected true or false, found the string \"maybe\""
    );
    // A panel or layout that is not a name says which names there are (trial 24: serde's
    // "expected string or map").
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"panels": ["timeline", 3], "layout": 2}"#)),
        "mount: options.panels[1]: expected the name of a panel, one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector`, found the number 3\n\
         options.layout: expected the name of a layout, `full` or `compact`, found the number 2"
    );
    // Every unknown panel, and a step past the end alongside another option's error (trial 21:
    // only the first unknown panel was named, and the step's error hid behind the others).
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"step": 9, "panels": ["timelin", "charts", "bogus"]}"#)),
        "mount: options.panels[0]: unknown panel `timelin`, expected one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector`\n\
         options.panels[2]: unknown panel `bogus`, expected one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector`\n\
         options.step: 9 is past the scenario's last step (4 steps)"
    );
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"step": 1.5}"#)),
        "mount: options.step: expected a whole number, 0 or more, found the number 1.5"
    );
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"step": 5}"#)),
        "mount: options.step: 5 is past the scenario's last step (4 steps)"
    );
    assert_eq!(
        mount_error(el(), preset(), JsValue::from_str("step=2")),
        "mount: options: expected an object such as { step: 2 }, got the string 'step=2'"
    );
    let img = document().create_element("img").unwrap();
    assert_eq!(
        mount_error(js(img), preset(), JsValue::UNDEFINED),
        "mount: element: a <img> cannot hold a simulator (a shadow root); use a <div>"
    );
    assert!(h.shadow_root().is_none(), "a refused mount leaves the element alone");

    let sim = mounted(&h, "seed-001-one-day-two-days", JsValue::UNDEFINED);
    assert_eq!(
        mount_error(el(), preset(), JsValue::UNDEFINED),
        "mount: element: it already holds a simulator (destroy() it first) or another shadow root"
    );
    assert_eq!(message(sim.seek(js(9)).unwrap_err()), "seek: k: 9 is past the scenario's last step (4 steps)");
    assert_eq!(
        message(sim.seek(JsValue::from_str("2")).unwrap_err()),
        "seek: k: expected a whole number of steps from 0 to 4, got the string '2'"
    );
    assert_eq!(
        message(sim.seek(js(-1)).unwrap_err()),
        "seek: k: expected a whole number of steps from 0 to 4, got the number -1"
    );
}

#[wasm_bindgen_test]
async fn only_the_simulator_with_the_chosen_panels() {
    let h = host("");
    let _sim = mounted(&h, "seed-002-dau-new-users-global-ttl", JsValue::UNDEFINED);
    settle().await;
    let page = inside(&h);
    for chrome in ["#preset-select", "#flink-select", "#export", "#compare", "#scenario-json", "header"] {
        assert!(page.find(chrome).is_none(), "no {chrome} in an embedded simulator");
    }
    for part in [
        "#step",
        "#timeline",
        "#happened",
        "[id='op-OverAggregate[3]']",
        "#result-table",
        "#scenario-title",
        "#scenario-watch",
    ] {
        assert!(page.find(part).is_some(), "{part} is shown");
    }
    assert_eq!(page.text("#retention"), "table.exec.state.ttl = 3 d");

    let h2 = host("");
    let _two =
        mounted(&h2, "seed-001-one-day-two-days", options(r#"{"panels": ["result", "operators"], "heading": false}"#));
    settle().await;
    let page = inside(&h2);
    assert!(page.find("#timeline").is_none() && page.find("#happened").is_none());
    assert!(page.find("#scenario-title").is_none());
    let ids: Vec<String> = page.texts(".flow .op-id");
    assert_eq!(ids, ["result", "logins_per_user"], "in the order asked for");
    // Panels as the element's attribute writes them (trial 23: "expected a sequence").
    let h3 = host("");
    let _three = mounted(&h3, "seed-001-one-day-two-days", options(r#"{"panels": "result, operators"}"#));
    settle().await;
    assert_eq!(inside(&h3).texts(".flow .op-id"), ["result", "logins_per_user"]);
}

#[wasm_bindgen_test]
async fn an_embedded_simulator_leaves_the_url_and_the_storage_alone() {
    let window = web_sys::window().unwrap();
    let storage = window.local_storage().unwrap().unwrap();
    storage.remove_item(STORAGE_KEY).unwrap();
    let (href, history) = (window.location().href().unwrap(), window.history().unwrap().length().unwrap());
    let h = host("");
    let sim = mounted(&h, "seed-001-one-day-two-days", options(r#"{"step": 1}"#));
    settle().await;
    sim.step().unwrap();
    inside(&h).click("#step").await;
    sim.seek(js(0)).unwrap();
    settle().await;
    assert_eq!(window.location().href().unwrap(), href);
    assert_eq!(window.history().unwrap().length().unwrap(), history);
    assert_eq!(storage.get_item(STORAGE_KEY).unwrap(), None);
}

fn simulator_property(el: &Element, name: &str) -> JsValue {
    let sim = js_sys::Reflect::get(el, &JsValue::from_str("simulator")).unwrap();
    assert!(!sim.is_undefined(), "the element has a simulator");
    js_sys::Reflect::get(&sim, &JsValue::from_str(name)).unwrap()
}

#[wasm_bindgen_test]
async fn the_custom_element_mounts_from_its_attributes_and_its_json_child() {
    define();
    let by_name =
        element(r#"<flink-state-sim scenario="seed-001-one-day-two-days" step="3" class="x"></flink-state-sim>"#);
    settle().await;
    assert_eq!(inside(&by_name).text("#progress"), "step 3 / 4");
    assert_eq!(simulator_property(&by_name, "position").as_f64(), Some(3.0));

    let json = preset_json("seed-004-device-status").unwrap();
    let inline = element(&format!(
        r#"<flink-state-sim panels="operators result" heading="false"><script type="application/json">{json}</script></flink-state-sim>"#
    ));
    settle().await;
    let page = inside(&inline);
    assert_eq!(page.text("#progress"), "step 0 / 2");
    assert!(page.find("#timeline").is_none() && page.find("#scenario-title").is_none());
    let step = simulator_property(&inline, "step").unchecked_into::<js_sys::Function>();
    step.call0(&js_sys::Reflect::get(&inline, &JsValue::from_str("simulator")).unwrap()).unwrap();
    settle().await;
    assert_eq!(page.texts("#op-outer .msg"), ["(true,1,1)"]);

    // Taken out of the page, it is destroyed.
    inline.remove();
    settle().await;
    assert!(inline.shadow_root().unwrap().first_child().is_none());
    assert!(js_sys::Reflect::get(&inline, &JsValue::from_str("simulator")).unwrap().is_undefined());
}

#[wasm_bindgen_test]
async fn a_bad_attribute_is_shown_in_the_element() {
    define();
    let cases = [
        (
            r#"<flink-state-sim scenario="seed-001-one-day-two-days" stpe="1"></flink-state-sim>"#,
            "<flink-state-sim>: attribute stpe: not an attribute of this element (scenario, step, panels, layout, heading, t)",
        ),
        (
            r#"<flink-state-sim scenario="seed-001-one-day-two-days" step="two"></flink-state-sim>"#,
            "<flink-state-sim>: attribute step: 'two' is not a whole number of steps",
        ),
        (
            r#"<flink-state-sim scenario="seed-001-one-day-two-days" step="7"></flink-state-sim>"#,
            "<flink-state-sim>: attribute step: 7 is past the scenario's last step (4 steps)",
        ),
        (
            r#"<flink-state-sim scenario="seed-001-one-day-two-days" panels="timeline clock"></flink-state-sim>"#,
            "<flink-state-sim>: attribute panels[1]: unknown panel `clock`, expected one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector`",
        ),
        (
            // Every error at once, one per line, in the attributes' order (trial 18: only the
            // first was shown, so fixing it revealed the next).
            r#"<flink-state-sim scenario="seed-001-one-day-two-days" stpe="1" heading="maybe" panels="clock"></flink-state-sim>"#,
            "<flink-state-sim>: attribute stpe: not an attribute of this element (scenario, step, panels, layout, heading, t)\n\
             <flink-state-sim>: attribute heading: 'maybe' is not true or false\n\
             <flink-state-sim>: attribute panels[0]: unknown panel `clock`, expected one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector`",
        ),
        (
            // The scenario's error with an attribute's (trial 19: only the attribute's was shown).
            r#"<flink-state-sim scenario="no-such-preset" heading="maybe"></flink-state-sim>"#,
            "<flink-state-sim>: attribute heading: 'maybe' is not true or false\n\
             <flink-state-sim>: scenario: no preset named 'no-such-preset' (presets: ",
        ),
        (
            // Trial 20: the t and duplicate-panel errors hid behind the others, and a step past the
            // end behind a bad heading.
            r#"<flink-state-sim scenario="seed-001-one-day-two-days" step="-3" layout="tiny" t="9..1" panels="timeline,timeline"></flink-state-sim>"#,
            "<flink-state-sim>: attribute step: '-3' is not a whole number of steps\n\
             <flink-state-sim>: attribute layout: unknown layout `tiny`, expected `full` or `compact`\n\
             <flink-state-sim>: attribute panels[1]: 'timeline' is listed twice\n\
             <flink-state-sim>: attribute t: the range must end after it starts (1 is not after 9)",
        ),
        (
            r#"<flink-state-sim scenario="seed-001-one-day-two-days" step="99" heading="nope"></flink-state-sim>"#,
            "<flink-state-sim>: attribute heading: 'nope' is not true or false\n\
             <flink-state-sim>: attribute step: 99 is past the scenario's last step (4 steps)",
        ),
        (
            r#"<flink-state-sim></flink-state-sim>"#,
            "<flink-state-sim>: scenario: missing: a preset's name in scenario=\"…\", or the scenario's JSON in a <script type=\"application/json\"> child",
        ),
    ];
    for (html, expected) in cases {
        let el = element(html);
        settle().await;
        assert!(el.shadow_root().is_none(), "{html}: nothing mounted");
        let text = el.query_selector(".flink-state-sim-error").unwrap().map(|p| p.text_content().unwrap_or_default());
        // Exact, but for the list of presets ending a message that names it.
        let text = text.unwrap_or_default();
        let listed = expected.ends_with("(presets: ") && text.starts_with(expected);
        assert!(text == expected || listed, "{html}:\n  got {text:?}\n want {expected:?}");
        el.remove();
    }
}

#[wasm_bindgen_test]
async fn an_embed_link_opens_its_scenario_position_and_panels() {
    let (position, opts) =
        link("?embed&preset=seed-001-one-day-two-days&step=3&panels=timeline,result&heading=false").unwrap();
    assert_eq!(opts.panels, [Panel::Timeline, Panel::Result]);
    assert!(!opts.heading);
    // Yes or no in words too (trial 24: `heading=no` was refused).
    for (word, on) in [("no", false), ("OFF", false), ("0", false), ("yes", true), ("on", true), ("", true)] {
        let (_, opts) = link(&format!("?embed&preset=seed-001-one-day-two-days&heading={word}")).unwrap();
        assert_eq!(opts.heading, on, "heading={word}");
    }
    let root = host("");
    let embed = Embed::new(AppState::open(&position.unwrap(), "link"), opts);
    common::browser::render(&root, AppProps { persist: false, embed: Some(embed) });
    settle().await;
    let page = Page { root };
    assert_eq!(page.text("#progress"), "step 3 / 4");
    assert!(page.find("#timeline .timer.live[data-timer=\"2019-11-23 16:00\"]").is_some());
    assert!(page.find("#happened").is_none() && page.find("#preset-select").is_none());

    assert_eq!(
        link("?embed&preset=seed-001-one-day-two-days&stp=3").unwrap_err(),
        "'stp': not a parameter of an embed link (embed, preset, s, step, actions, panels, layout, heading, t)"
    );
    assert_eq!(link("?embed&heading=nope").unwrap_err(), "heading: 'nope' is not true or false");
    assert_eq!(
        link("?embed&panels=").unwrap_err(),
        "panels: name at least one of timeline, happened, operators, result, flow, charts, inspector"
    );
    assert!(link("?embed").unwrap().0.is_none(), "no scenario: the default preset");
}

/// Opens the page's own `?embed` handling (`from_location`) on `query`, mounted in a test host.
async fn from_query(query: &str) -> Page {
    let window = web_sys::window().unwrap();
    let path = window.location().pathname().unwrap();
    let history = window.history().unwrap();
    history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}{query}"))).unwrap();
    let embed = flink_state_sim::ui::embed::from_location().expect("an embed link");
    history.replace_state_with_url(&JsValue::NULL, "", Some(&path)).unwrap();
    let root = host("");
    common::browser::render(&root, AppProps { persist: false, embed: Some(embed) });
    settle().await;
    Page { root }
}

#[wasm_bindgen_test]
async fn a_bad_option_in_an_embed_link_keeps_its_scenario_and_says_why() {
    let page = from_query("?embed&preset=seed-004-device-status&step=1&heading=maybe").await;
    assert_eq!(
        page.text("#files-note"),
        "link: heading: 'maybe' is not true or false — ignored; the link's other options apply"
    );
    assert!(page.text("#scenario-title").starts_with("Seed 004"), "{}", page.text("#scenario-title"));
    assert_eq!(page.text("#progress"), "step 1 / 2");
    drop(page);
    // The link's valid options apply beside a bad one (trial 23: one bad option dropped them all).
    let page = from_query("?embed&preset=seed-004-device-status&layout=compact&heading=maybe&panels=result").await;
    assert!(page.text("#files-note").starts_with("link: heading: 'maybe' is not true or false — ignored"));
    let shown =
        page.root.query_selector_all("#timeline, #happened, .operators, #result, #flow, #charts, #inspector").unwrap();
    let ids: Vec<String> =
        (0..shown.length()).map(|i| shown.item(i).unwrap().dyn_into::<Element>().unwrap().id()).collect();
    assert_eq!(ids, ["result"], "panels=result applies");
    assert!(page.root.query_selector(".fss.compact").unwrap().is_some(), "layout=compact applies");
    assert!(page.find("#scenario-title").is_some(), "heading left at its default (shown)");
    drop(page);
    // A bad scenario or position: the default preset, and why.
    let page = from_query("?embed&preset=nope").await;
    assert_eq!(
        page.text("#files-note"),
        "link: preset: no preset named 'nope' — the default preset 'seed-001-one-day-two-days' is loaded instead"
    );
    assert_eq!(page.text("#progress"), "step 0 / 4");
    drop(page);
    // A bad step and no scenario: both said (the default preset is not opened for the step).
    let page = from_query("?embed&step=abc").await;
    assert_eq!(
        page.text("#files-note"),
        "link: step: 'abc' is not a whole number of steps, and the link names no scenario (preset= or s=) — the \
         default preset is shown instead"
    );
    assert_eq!(page.text("#progress"), "step 0 / 4");
}

/// A bad position in an embed link keeps the link's valid options, and every problem of a link
/// is said, one per line (trial 19: a bad `step=` lost `panels=`, and only the first bad option
/// was named).
#[wasm_bindgen_test]
async fn an_embed_link_says_every_problem_and_keeps_what_is_valid() {
    let page = from_query("?embed&preset=seed-004-device-status&step=abc&panels=result").await;
    let note = page.text("#files-note");
    assert!(note.starts_with("link: step: "), "{note}");
    assert!(note.ends_with(" — shown at its start"), "{note}");
    assert!(page.text("#scenario-title").starts_with("Seed 004"), "{}", page.text("#scenario-title"));
    assert_eq!(page.text("#progress"), "step 0 / 2");
    let shown =
        page.root.query_selector_all("#timeline, #happened, .operators, #result, #flow, #charts, #inspector").unwrap();
    let ids: Vec<String> =
        (0..shown.length()).map(|i| shown.item(i).unwrap().dyn_into::<Element>().unwrap().id()).collect();
    assert_eq!(ids, ["result"], "the link's panels are kept");
    drop(page);
    let page =
        from_query("?embed&preset=seed-004-device-status&step=1&heading=maybe&layout=small&panels=clock&stpe=1").await;
    let note = page.text("#files-note");
    let lines: Vec<&str> = note.lines().collect();
    assert_eq!(
        lines,
        [
            "link: heading: 'maybe' is not true or false",
            "link: 'stpe': not a parameter of an embed link (embed, preset, s, step, actions, panels, layout, heading, t)",
            "link: layout: unknown layout `small`, expected `full` or `compact`",
            "link: panels[0]: unknown panel `clock`, expected one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector` — these are ignored; the link's other options apply",
        ]
    );
    assert_eq!(page.text("#progress"), "step 1 / 2", "the position is kept");
    drop(page);
    // A step past the end is said with the bad options, not dropped (trial 21).
    let page = from_query("?embed&preset=seed-004-device-status&step=99&layout=small&panels=clock,bogus").await;
    let note = page.text("#files-note");
    let lines: Vec<&str> = note.lines().collect();
    assert_eq!(
        lines,
        [
            "link: step: 99 is past the scenario's last step (2 steps) — opened at its end",
            "link: layout: unknown layout `small`, expected `full` or `compact`",
            "link: panels[0]: unknown panel `clock`, expected one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector`",
            "link: panels[1]: unknown panel `bogus`, expected one of `timeline`, `happened`, `operators`, `result`, `flow`, `charts`, `inspector` — these are ignored; the link's other options apply",
        ]
    );
    assert_eq!(page.text("#progress"), "step 2 / 2", "opened at its end");
}

/// A key with a right-to-left override (U+202E) in its first value, grouped with a second one.
const OVERRIDE_KEY: &str = r#"{
  "name": "bidi-key", "flink": "1.10-legacy",
  "idle_state_retention": { "min": "1 d", "max": "2 d" },
  "source": { "name": "logins", "schema": [["user_id", "STRING"], ["app", "STRING"]] },
  "pipeline": [{ "operator": "GroupAggregate", "id": "per_user", "group_by": ["user_id", "app"],
                 "aggregates": [{ "function": "COUNT", "args": ["*"], "as": "cnt" }] }],
  "steps": [{ "at": "2019-11-20T15:00", "row": ["u\u202e1x", "web"] }]
}"#;

#[wasm_bindgen_test]
async fn a_right_to_left_override_in_a_key_stays_in_its_value() {
    let h = host("");
    let sim = mounted(&h, OVERRIDE_KEY, options(r#"{"step": 1}"#));
    settle().await;
    let page = inside(&h);
    assert_eq!(sim.position().unwrap(), 1.0);
    // The state table's key: each value isolated, the second laid out after the first.
    let cell = page.get("#op-per_user td.key");
    assert_eq!(cell.text_content().unwrap(), "u\u{202e}1x, web", "the key as the engine writes it");
    assert_eq!(page.texts("#op-per_user td.key bdi"), ["u\u{202e}1x", "web"]);
    let bdis = cell.query_selector_all("bdi").unwrap();
    let rect = |i| bdis.item(i).unwrap().unchecked_into::<Element>().get_bounding_client_rect();
    assert!(rect(0).right() <= rect(1).left(), "'web' is after the overridden value, not flipped before it");
    // The result's values, each isolated.
    assert_eq!(page.texts("#result-table tbody bdi"), ["u\u{202e}1x", "web", "1"]);
    // The timeline's lane label: the key's text is isolated from the operator's.
    let key = page.get("#timeline .lane-label .key");
    assert_eq!(key.text_content().unwrap(), "u\u{202e}1x, web");
    let style = web_sys::window().unwrap().get_computed_style(&key).unwrap().unwrap();
    assert_eq!(style.get_property_value("unicode-bidi").unwrap(), "isolate");
    // … and each of its values from the next.
    assert_eq!(page.texts("#timeline .lane-label .key .v"), ["u\u{202e}1x", "web"]);
    let values = key.query_selector_all(".v").unwrap();
    let rect = |i| values.item(i).unwrap().unchecked_into::<Element>().get_bounding_client_rect();
    assert!(rect(0).right() <= rect(1).left(), "in the lane label too, 'web' is after the overridden value");
}
