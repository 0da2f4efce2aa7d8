//! Keys in an embedded simulator, in a real headless browser: none, and no scroll, until it is
//! clicked; once focused, the page's keys (space, ← →, `n`, `?`, Esc), kept from the host page
//! (mdBook binds ← → to turn the chapter), for a `mount()`ed simulator, the `<flink-state-sim>`
//! element and the `?embed` page.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, Page};
use common::embed::{define, document, element, host, inside, mounted};
use flink_state_sim::ui::embed::{link, Embed};
use flink_state_sim::ui::state::AppState;
use flink_state_sim::ui::AppProps;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, KeyboardEvent, KeyboardEventInit};

wasm_bindgen_test_configure!(run_in_browser);

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

const HELP_KEYS: [&str; 8] = ["Space", "→", "←", "n", "q", "?", "Esc", "+ / − / 0"];

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
    common::browser::render(&root, AppProps { persist: false, embed: Some(embed) });
    settle().await;
    keys_of_a_focused_simulator(&Page { root }).await;
}
