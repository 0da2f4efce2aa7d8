//! Embedding in a real headless browser: `mount()` simulators (two on one page stepping apart,
//! `destroy`, bad arguments throwing), the `<flink-state-sim>` element, the `?embed` link, and
//! that an embedded simulator takes no scroll or keys until clicked and leaves the URL and the
//! storage alone; that a focused one takes the page's keys and keeps them from the host page.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, Page};
use flink_state_sim::engine::presets::preset_json;
use flink_state_sim::ui::embed::{link, Embed, Panel};
use flink_state_sim::ui::mount::{mount, Simulator};
use flink_state_sim::ui::persist::STORAGE_KEY;
use flink_state_sim::ui::state::AppState;
use flink_state_sim::ui::{App, AppProps};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, KeyboardEvent, KeyboardEventInit};

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A fresh `<div>` in the test page, `style` on it.
fn host(style: &str) -> Element {
    let el = document().create_element("div").unwrap();
    el.set_attribute("style", style).unwrap();
    document().body().unwrap().append_child(&el).unwrap();
    el
}

/// The simulator inside `host`'s shadow root, to query like the page.
fn inside(host: &Element) -> Page {
    let root = host.shadow_root().expect("a shadow root");
    Page { root: root.query_selector(".fss-host").unwrap().expect("a simulator in the shadow root") }
}

fn js(v: impl Into<JsValue>) -> JsValue {
    v.into()
}

/// `mount(...)` that must succeed.
fn mounted(host: &Element, scenario: &str, options: JsValue) -> Simulator {
    mount(js(host.clone()), JsValue::from_str(scenario), options).unwrap_or_else(|e| panic!("{}", message(e)))
}

/// `{ … }` from JSON text, as a page passes options.
fn options(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

/// The message of the `Error` a call threw (and that it is an `Error`).
fn message(e: wasm_bindgen::JsError) -> String {
    let v = JsValue::from(e);
    assert!(v.is_instance_of::<js_sys::Error>(), "thrown as an Error: {v:?}");
    v.unchecked_into::<js_sys::Error>().message().into()
}

fn mount_error(element: JsValue, scenario: JsValue, opts: JsValue) -> String {
    match mount(element, scenario, opts) {
        Ok(_) => panic!("mount accepted bad arguments"),
        Err(e) => message(e),
    }
}

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
    assert_eq!(
        bad_json,
        format!("mount: scenario: {}", flink_state_sim::engine::Scenario::from_json("{ not json").unwrap_err())
    );
    let bad_rule = preset_json("seed-001-one-day-two-days").unwrap().replace(r#""max": "2 d""#, r#""max": "1 d""#);
    assert_eq!(
        mount_error(el(), JsValue::from_str(&bad_rule), JsValue::UNDEFINED),
        "mount: scenario: idle_state_retention: Difference between minTime: 86400000 ms and maxTime: 86400000 msshoud be at least 5 minutes."
    );
    assert_eq!(
        mount_error(el(), options(r#"{"name": "x"}"#), JsValue::UNDEFINED),
        "mount: scenario: expected a preset's name or a scenario's JSON text, got an object (JSON.stringify a scenario object first)"
    );
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"stpe": 2}"#)),
        "mount: options.stpe: unknown field `stpe`, expected one of `step`, `heading`, `panels`"
    );
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"panels": ["timelin"]}"#)),
        "mount: options.panels[0]: unknown variant `timelin`, expected one of `timeline`, `happened`, `operators`, `result`"
    );
    assert_eq!(
        mount_error(el(), preset(), options(r#"{"step": 1.5}"#)),
        "mount: options.step: invalid type: floating point `1.5`, expected u64"
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
    for part in ["#step", "#timeline", "#happened", "#op-t", "#result-table", "#scenario-title", "#scenario-watch"] {
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
}

fn key(target: &web_sys::EventTarget, key: &str) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_composed(true);
    target.dispatch_event(&KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap()).unwrap();
}

fn overflow(el: &Element) -> String {
    web_sys::window().unwrap().get_computed_style(el).unwrap().unwrap().get_property_value("overflow-y").unwrap()
}

#[wasm_bindgen_test]
async fn no_scroll_or_keys_until_clicked_and_esc_lets_go() {
    let h = host("height: 220px");
    let sim = mounted(&h, "seed-001-one-day-two-days", JsValue::UNDEFINED);
    settle().await;
    let page = inside(&h);
    let root = page.get(".fss.embed");
    assert_eq!(root.get_bounding_client_rect().height(), 220.0, "sized to its container");
    assert!(root.scroll_height() > 220, "its content is taller than the container");
    assert_eq!(overflow(&root), "hidden", "no scroll before a click");
    assert_eq!(overflow(&page.get(".timeline .scroll")), "hidden");
    assert!(page.find(".embed-hint").is_some());
    // Keys pressed in the page do nothing to it.
    let body: web_sys::EventTarget = document().body().unwrap().into();
    for k in ["ArrowRight", "ArrowLeft", " ", "Enter", "n", "j", "k", ".", "Home", "End", "PageDown"] {
        key(&body, k);
        key(&document().into(), k);
    }
    settle().await;
    assert_eq!(page.text("#progress"), "step 0 / 4");
    assert_eq!(sim.position().unwrap(), 0.0);

    // A click gives it the focus (a click on a part that takes none focuses the root).
    root.clone().dyn_into::<HtmlElement>().unwrap().focus().unwrap();
    settle().await;
    assert_eq!(overflow(&root), "auto", "it scrolls once clicked");
    assert_eq!(overflow(&page.get(".timeline .scroll")), "auto");
    key(&root.clone().into(), "Escape");
    settle().await;
    assert_eq!(overflow(&root), "hidden", "Esc gives the scroll back to the page");
    assert_eq!(sim.position().unwrap(), 0.0);
}

/// A keydown of `key` on `target`, as a user's key in a focused element sends it (bubbling, out of
/// a shadow root too); whether something cancelled it (`preventDefault`).
fn press(target: &Element, key: &str) -> bool {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_composed(true);
    init.set_cancelable(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    target.dispatch_event(&event).unwrap();
    event.default_prevented()
}

/// A mouse press on `el`, as a click begins.
fn mouse_down(el: &Element) {
    let init = web_sys::MouseEventInit::new();
    init.set_bubbles(true);
    init.set_composed(true);
    init.set_cancelable(true);
    el.dispatch_event(&web_sys::MouseEvent::new_with_mouse_event_init_dict("mousedown", &init).unwrap()).unwrap();
}

fn focus(el: &Element) {
    el.clone().dyn_into::<HtmlElement>().unwrap().focus().unwrap();
}

/// The keys a listener on the document heard, as mdBook's ← → (page turns) listens.
struct DocumentKeys {
    heard: std::rc::Rc<std::cell::RefCell<Vec<String>>>,
    _listener: gloo_events::EventListener,
}

impl DocumentKeys {
    fn listen() -> DocumentKeys {
        let heard = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let h = heard.clone();
        let listener = gloo_events::EventListener::new(&document(), "keydown", move |e| {
            h.borrow_mut().push(e.dyn_ref::<KeyboardEvent>().unwrap().key());
        });
        DocumentKeys { heard, _listener: listener }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.heard.borrow_mut())
    }
}

/// The keys help's keys, as listed.
fn help_keys(page: &Page) -> Vec<String> {
    page.texts(".keys-help dt")
}

const HELP_KEYS: [&str; 7] = ["Space", "→", "←", "n", "?", "Esc", "+ / − / 0"];

/// The page's keys on a simulator embedded in `page` (its controls at `step 0 / 4` of seed 001):
/// none until it is focused; focused, each does what it does on the page, and none reaches the
/// document.
async fn keys_of_a_focused_simulator(page: &Page) {
    let doc = DocumentKeys::listen();
    let root = page.get(".fss.embed");
    let body = document().body().unwrap();

    // Not focused: the host page's keys, even pressed on the simulator itself.
    for k in ["ArrowRight", "ArrowLeft", " ", "n", "?"] {
        assert!(!press(&body, k), "{k} on the page is not cancelled");
        assert!(!press(&root, k), "{k} on the unfocused simulator is not cancelled");
    }
    settle().await;
    assert_eq!(page.text("#progress"), "step 0 / 4", "unfocused, → does not step");
    assert!(page.find(".keys-help").is_none(), "unfocused, ? shows nothing");
    assert_eq!(doc.take().len(), 10, "the document heard every key");

    // Focused (as a click gives it): → steps, ← steps back, n goes to the next timer.
    focus(&root);
    assert!(press(&root, "ArrowRight"), "→ is cancelled (no scroll, no page turn)");
    settle().await;
    assert_eq!(page.text("#progress"), "step 1 / 4");
    assert_eq!(page.text("#now"), "2019-11-20 15:00");
    focus(&page.get("#step"));
    press(&page.get("#step"), "ArrowRight");
    settle().await;
    assert_eq!(page.text("#progress"), "step 2 / 4", "→ on a button inside steps too");
    press(&page.get("#step"), "ArrowLeft");
    settle().await;
    assert_eq!(page.text("#progress"), "step 1 / 4", "← steps back");
    assert_eq!(page.text("#now"), "2019-11-20 15:00");
    // A button pressed with the mouse leaves the focus on the root (n below disables Step, which
    // would drop a focused Step's focus to the host page).
    mouse_down(&page.get("#next-timer"));
    assert!(root.matches(":focus").unwrap(), "a mouse press on a button focuses the simulator's root");
    press(&root, "n");
    settle().await;
    assert_eq!(page.text("#now"), "2019-11-22 15:00", "n: to the cleanup timer of u1's first login");
    assert!(page.find(r#"#timeline .timer.fired[data-timer="2019-11-22 15:00"]"#).is_some());
    press(&root, "ArrowLeft");
    settle().await;
    assert_eq!(page.text("#now"), "2019-11-20 15:00", "← undoes the advance");
    assert!(doc.take().is_empty(), "no key the simulator took reached the document");

    // ? shows the keys, Esc hides them; the simulator keeps the focus, a second Esc lets go.
    assert!(press(&root, "?"));
    settle().await;
    assert_eq!(help_keys(page), HELP_KEYS);
    assert!(press(&root, "Escape"));
    settle().await;
    assert!(page.find(".keys-help").is_none(), "Esc hides the keys");
    assert!(root.matches(":focus-within").unwrap(), "and keeps the focus");
    press(&root, "?");
    press(&root, "?");
    settle().await;
    assert!(page.find(".keys-help").is_none(), "? again hides them");

    // The ⌨ keys button shows the same help; its × hides it and the simulator keeps the keys.
    page.click("#keys-help").await;
    assert_eq!(help_keys(page), HELP_KEYS);
    assert_eq!(page.attr("#keys-help", "aria-expanded"), "true");
    mouse_down(&page.get(".keys-help button.close"));
    page.click(".keys-help button.close").await;
    assert!(page.find(".keys-help").is_none());
    press(&page.get(".controls"), "ArrowRight");
    settle().await;
    assert_eq!(page.text("#progress"), "step 2 / 4", "→ after closing the help with ×");
    assert!(doc.take().is_empty());

    // A key typed into a field is the field's: not cancelled, no step, and not the host page's.
    let field = page.get("#advance-by");
    focus(&field);
    assert!(!press(&field, "ArrowRight"), "the field's caret moves");
    assert!(!press(&field, "n"));
    settle().await;
    assert_eq!(page.text("#progress"), "step 2 / 4");
    assert!(doc.take().is_empty(), "a field's → does not turn the host page either");

    // Space plays and pauses.
    focus(&root);
    press(&root, " ");
    settle().await;
    assert_eq!(page.attr("#play", "aria-pressed"), "true", "space plays");
    press(&root, " ");
    settle().await;
    assert_eq!(page.attr("#play", "aria-pressed"), "false", "space pauses");

    // Esc with the help hidden gives the page back: keys are the host page's again.
    press(&root, "Escape");
    settle().await;
    assert!(!root.matches(":focus-within").unwrap());
    let at = page.text("#progress");
    assert!(!press(&root, "ArrowLeft"));
    settle().await;
    assert_eq!(page.text("#progress"), at, "unfocused again, ← does nothing");
    assert_eq!(doc.take(), ["ArrowLeft"]);
}

#[wasm_bindgen_test]
async fn a_focused_mounted_simulator_takes_the_keys_and_keeps_them_from_the_page() {
    let h = host("");
    let _sim = mounted(&h, "seed-001-one-day-two-days", JsValue::UNDEFINED);
    settle().await;
    keys_of_a_focused_simulator(&inside(&h)).await;
}

#[wasm_bindgen_test]
async fn a_focused_custom_element_and_embed_link_take_the_keys() {
    define();
    let el = element(r#"<flink-state-sim scenario="seed-001-one-day-two-days"></flink-state-sim>"#);
    settle().await;
    keys_of_a_focused_simulator(&inside(&el)).await;
    el.remove();

    // The ?embed page (no shadow root).
    let (position, opts) = link("?embed&preset=seed-001-one-day-two-days").unwrap();
    let root = host("");
    let embed = Embed::new(AppState::open(&position.unwrap(), "link"), opts);
    yew::Renderer::<App>::with_root_and_props(root.clone(), AppProps { persist: false, embed: Some(embed) }).render();
    settle().await;
    keys_of_a_focused_simulator(&Page { root }).await;
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

/// `<flink-state-sim>` defined (the module's start defines it on a page; a test page does not run it).
fn define() {
    flink_state_sim::ui::mount::define_element(None);
    assert!(!flink_state_sim::ui::mount::define_element(None), "a second definition is refused");
}

/// `html`'s element, put into the page.
fn element(html: &str) -> Element {
    let wrap = document().create_element("div").unwrap();
    wrap.set_inner_html(html);
    let el = wrap.first_element_child().unwrap();
    document().body().unwrap().append_child(&el).unwrap();
    el
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
            "<flink-state-sim>: attribute stpe: not an attribute of this element (scenario, step, panels, heading)",
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
            "<flink-state-sim>: attribute panels[1]: unknown variant `clock`, expected one of `timeline`, `happened`, `operators`, `result`",
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
        assert_eq!(text.as_deref(), Some(expected), "{html}");
        el.remove();
    }
}

#[wasm_bindgen_test]
async fn an_embed_link_opens_its_scenario_position_and_panels() {
    let (position, opts) =
        link("?embed&preset=seed-001-one-day-two-days&step=3&panels=timeline,result&heading=false").unwrap();
    assert_eq!(opts.panels, [Panel::Timeline, Panel::Result]);
    assert!(!opts.heading);
    let root = host("");
    let embed = Embed::new(AppState::open(&position.unwrap(), "link"), opts);
    yew::Renderer::<App>::with_root_and_props(root.clone(), AppProps { persist: false, embed: Some(embed) }).render();
    settle().await;
    let page = Page { root };
    assert_eq!(page.text("#progress"), "step 3 / 4");
    assert!(page.find("#timeline .timer.live[data-timer=\"2019-11-23 16:00\"]").is_some());
    assert!(page.find("#happened").is_none() && page.find("#preset-select").is_none());

    assert_eq!(
        link("?embed&preset=seed-001-one-day-two-days&stp=3").unwrap_err(),
        "'stp': not a parameter of an embed link (embed, preset, s, step, actions, panels, heading)"
    );
    assert_eq!(link("?embed&heading=no").unwrap_err(), "heading: 'no' is not true or false");
    assert_eq!(
        link("?embed&panels=").unwrap_err(),
        "link.panels: name at least one of timeline, happened, operators, result"
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
    yew::Renderer::<App>::with_root_and_props(root.clone(), AppProps { persist: false, embed: Some(embed) }).render();
    settle().await;
    Page { root }
}

#[wasm_bindgen_test]
async fn a_bad_option_in_an_embed_link_keeps_its_scenario_and_says_why() {
    let page = from_query("?embed&preset=seed-004-device-status&step=1&heading=maybe").await;
    assert_eq!(
        page.text("#files-note"),
        "link: heading: 'maybe' is not true or false — shown with the default options instead"
    );
    assert!(page.text("#scenario-title").starts_with("Seed 004"), "{}", page.text("#scenario-title"));
    assert_eq!(page.text("#progress"), "step 1 / 2");
    drop(page);
    // A bad scenario or position: the default preset, and why.
    let page = from_query("?embed&preset=nope").await;
    assert_eq!(
        page.text("#files-note"),
        "link: preset: no preset named 'nope' — the default preset 'seed-001-one-day-two-days' is loaded instead"
    );
    assert_eq!(page.text("#progress"), "step 0 / 4");
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
