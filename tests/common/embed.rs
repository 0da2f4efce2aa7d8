//! Helpers of the embedding tests (`tests/browser_embed.rs`, `tests/browser_embed_keys.rs`):
//! hosts in the test page, `mount()` and the `<flink-state-sim>` element.

use super::browser::Page;
use flink_state_sim::ui::mount::{mount, Simulator};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Element;

pub fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A fresh `<div>` in the test page, `style` on it.
pub fn host(style: &str) -> Element {
    let el = document().create_element("div").unwrap();
    el.set_attribute("style", style).unwrap();
    document().body().unwrap().append_child(&el).unwrap();
    el
}

/// The simulator inside `host`'s shadow root, to query like the page.
pub fn inside(host: &Element) -> Page {
    let root = host.shadow_root().expect("a shadow root");
    Page { root: root.query_selector(".fss-host").unwrap().expect("a simulator in the shadow root") }
}

pub fn js(v: impl Into<JsValue>) -> JsValue {
    v.into()
}

/// `mount(...)` that must succeed.
pub fn mounted(host: &Element, scenario: &str, options: JsValue) -> Simulator {
    mount(js(host.clone()), JsValue::from_str(scenario), options).unwrap_or_else(|e| panic!("{}", message(e)))
}

/// `{ … }` from JSON text, as a page passes options.
pub fn options(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

/// The message of the `Error` a call threw (and that it is an `Error`).
pub fn message(e: wasm_bindgen::JsError) -> String {
    let v = JsValue::from(e);
    assert!(v.is_instance_of::<js_sys::Error>(), "thrown as an Error: {v:?}");
    v.unchecked_into::<js_sys::Error>().message().into()
}

pub fn mount_error(element: JsValue, scenario: JsValue, opts: JsValue) -> String {
    match mount(element, scenario, opts) {
        Ok(_) => panic!("mount accepted bad arguments"),
        Err(e) => message(e),
    }
}

/// `<flink-state-sim>` defined (the module's start defines it on a page; a test page does not run it).
pub fn define() {
    flink_state_sim::ui::mount::define_element(None);
    assert!(!flink_state_sim::ui::mount::define_element(None), "a second definition is refused");
}

/// `html`'s element, put into the page.
pub fn element(html: &str) -> Element {
    let wrap = document().create_element("div").unwrap();
    wrap.set_inner_html(html);
    let el = wrap.first_element_child().unwrap();
    document().body().unwrap().append_child(&el).unwrap();
    el
}
