//! What the page shows when the simulator panics (a bug). In wasm a panic aborts: the module
//! traps (`RuntimeError: unreachable`) with its state half-changed — borrowed `RefCell`s, Yew's
//! scheduler mid-run — so no Rust of it can safely run again, and every simulator of the page
//! shares that module. The panic hook ([`install`]) runs just before the trap: it replaces every
//! simulator on the page (the page's own, each mounted one in its shadow root) with a message,
//! the scenario it was running (a read-only text to copy, a Copy button, a download link) and a
//! Reload button. It builds that with plain DOM calls from what was recorded before the panic
//! ([`watch`]: each app's root element and scenario text, updated when the scenario changes),
//! and wires the buttons with JavaScript listeners (no Rust runs when they are pressed; no inline
//! script, so a Content-Security-Policy without `unsafe-inline` allows them).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use wasm_bindgen::prelude::*;
use web_sys::Element;

/// One simulator on the page: where it renders and the scenario text it runs.
struct Watched {
    id: u64,
    root: Element,
    json: String,
}

thread_local! {
    static WATCHED: RefCell<Vec<Watched>> = const { RefCell::new(Vec::new()) };
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// The message is shown once: a later panic (a call into the broken module) leaves it.
static CRASHED: AtomicBool = AtomicBool::new(false);

/// A new id for [`watch`].
pub fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Records (or updates) simulator `id`'s root element and scenario text.
pub fn watch(id: u64, root: Element, json: &str) {
    WATCHED.with(|w| {
        let Ok(mut w) = w.try_borrow_mut() else { return };
        match w.iter_mut().find(|e| e.id == id) {
            Some(e) => {
                e.root = root;
                if e.json != json {
                    e.json = json.to_string();
                }
            }
            None => w.push(Watched { id, root, json: json.to_string() }),
        }
    });
}

/// Forgets simulator `id` (unmounted).
pub fn unwatch(id: u64) {
    WATCHED.with(|w| {
        if let Ok(mut w) = w.try_borrow_mut() {
            w.retain(|e| e.id != id);
        }
    });
}

/// Sets the panic hook (once; the hook set before — Yew's console logger, a test runner's —
/// still runs after it). Through `yew::set_custom_panic_hook`: Yew replaces any other hook when
/// it renders an app.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        yew::set_custom_panic_hook(Box::new(move |info| {
            let message = info.to_string();
            web_sys::console::error_1(&JsValue::from_str(&format!("flink-state-sim: internal error: {message}")));
            if !CRASHED.swap(true, Ordering::SeqCst) {
                show_everywhere(&message);
            }
            previous(info);
        }));
    });
}

/// Whether a panic happened (the message is on show).
pub fn crashed() -> bool {
    CRASHED.load(Ordering::SeqCst)
}

#[wasm_bindgen(inline_js = r#"
export function crash_wire(copy, text, reload) {
  copy.addEventListener('click', () => {
    text.focus();
    text.select();
    const said = (t) => { copy.textContent = t; };
    const fallback = () => { try { said(document.execCommand('copy') ? 'Copied' : 'Select the text and copy it'); } catch (e) { said('Select the text and copy it'); } };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text.value).then(() => said('Copied'), fallback);
    } else {
      fallback();
    }
  });
  reload.addEventListener('click', () => location.reload());
}
"#)]
extern "C" {
    fn crash_wire(copy: &Element, text: &Element, reload: &Element);
}

fn show_everywhere(message: &str) {
    let watched: Vec<(Element, String)> = WATCHED.with(|w| match w.try_borrow() {
        Ok(w) => w.iter().map(|e| (e.root.clone(), e.json.clone())).collect(),
        Err(_) => Vec::new(),
    });
    if watched.is_empty() {
        // A panic before any simulator rendered: the page's own root, if there is one.
        let app = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app"));
        if let Some(app) = app {
            show(&app, message, "");
        }
    }
    for (root, json) in watched {
        show(&root, message, &json);
    }
}

/// Replaces what `root` holds with the message, the scenario and the buttons.
fn show(root: &Element, message: &str, json: &str) -> Option<()> {
    let doc = root.owner_document()?;
    let make = |parent: &Element, tag: &str, class: &str, text: &str| -> Option<Element> {
        let el = doc.create_element(tag).ok()?;
        el.set_class_name(class);
        if !text.is_empty() {
            el.set_text_content(Some(text));
        }
        parent.append_child(&el).ok()?;
        Some(el)
    };
    root.set_text_content(None);
    let panel = doc.create_element("div").ok()?;
    panel.set_class_name("fss-crash");
    let _ = panel.set_attribute("role", "alert");
    root.append_child(&panel).ok()?;
    make(&panel, "strong", "fss-crash-title", "The simulator stopped: an internal error (a bug in flink-state-sim).")?;
    make(&panel, "pre", "fss-crash-message", message)?;
    make(
        &panel,
        "p",
        "fss-crash-help",
        "Every simulator on this page stopped with it (they share one module, which cannot run on \
         safely). Please report it with the scenario below, then reload the page.",
    )?;
    let text = make(&panel, "textarea", "fss-crash-scenario", "")?;
    let _ = text.set_attribute("readonly", "");
    let _ = text.set_attribute("rows", "6");
    let _ = text.set_attribute("aria-label", "the scenario that was running");
    // The value, not a child text node: the text is never parsed as HTML.
    if let Some(area) = text.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        area.set_value(if json.is_empty() { "(no scenario was loaded)" } else { json });
    }
    let actions = make(&panel, "div", "fss-crash-actions", "")?;
    let copy = make(&actions, "button", "fss-crash-copy", "Copy the scenario")?;
    let _ = copy.set_attribute("type", "button");
    let download = make(&actions, "a", "fss-crash-download button", "Download the scenario")?;
    let href = format!("data:application/json;charset=utf-8,{}", String::from(js_sys::encode_uri_component(json)));
    let _ = download.set_attribute("href", &href);
    let _ = download.set_attribute("download", "scenario.json");
    let reload = make(&actions, "button", "fss-crash-reload", "Reload the page")?;
    let _ = reload.set_attribute("type", "button");
    crash_wire(&copy, &text, &reload);
    Some(())
}
