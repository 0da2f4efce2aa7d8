//! Mounting the page in the test browser and poking at it like a user.

use flink_state_sim::ui::App;
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

/// The page mounted in a fresh element of the test page. Removed when dropped.
pub struct Page {
    pub root: Element,
}

impl Drop for Page {
    fn drop(&mut self) {
        self.root.remove();
    }
}

/// Lets Yew render (and run effects) after a mount or an event, including the sections below
/// the timeline, which follow one frame later (`src/ui/deferred.rs`).
pub async fn settle() {
    TimeoutFuture::new(0).await;
    TimeoutFuture::new(0).await;
    next_frame().await;
    TimeoutFuture::new(0).await;
    TimeoutFuture::new(0).await;
}

/// Resolves at the next animation frame.
pub async fn next_frame() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window().unwrap().request_animation_frame(&resolve);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

impl Page {
    pub async fn open() -> Page {
        let doc = web_sys::window().unwrap().document().unwrap();
        let root = doc.create_element("div").unwrap();
        doc.body().unwrap().append_child(&root).unwrap();
        yew::Renderer::<App>::with_root(root.clone()).render();
        settle().await;
        Page { root }
    }

    pub fn find(&self, selector: &str) -> Option<Element> {
        self.root.query_selector(selector).unwrap()
    }

    pub fn get(&self, selector: &str) -> Element {
        self.find(selector).unwrap_or_else(|| panic!("no element matches {selector}"))
    }

    pub fn text(&self, selector: &str) -> String {
        self.get(selector).text_content().unwrap_or_default()
    }

    /// Text of every element matching `selector`, in document order.
    pub fn texts(&self, selector: &str) -> Vec<String> {
        let list = self.root.query_selector_all(selector).unwrap();
        (0..list.length()).filter_map(|i| list.item(i)).map(|n| n.text_content().unwrap_or_default()).collect()
    }

    pub async fn click(&self, selector: &str) {
        self.get(selector).dyn_into::<HtmlElement>().unwrap().click();
        settle().await;
    }

    pub fn is_disabled(&self, selector: &str) -> bool {
        self.get(selector).has_attribute("disabled")
    }

    /// Chooses an option of a `<select>` and fires `change`, as a user's choice does.
    pub async fn choose(&self, selector: &str, value: &str) {
        let select = self.get(selector).dyn_into::<HtmlSelectElement>().unwrap();
        select.set_value(value);
        assert_eq!(select.value(), value, "{selector} has no option {value}");
        let init = EventInit::new();
        init.set_bubbles(true);
        select.dispatch_event(&Event::new_with_event_init_dict("change", &init).unwrap()).unwrap();
        settle().await;
    }

    /// Types into an `<input>`: sets the value and fires `input`, as typing does.
    pub async fn type_into(&self, selector: &str, value: &str) {
        let input = self.get(selector).dyn_into::<HtmlInputElement>().unwrap();
        input.set_value(value);
        let init = EventInit::new();
        init.set_bubbles(true);
        input.dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
        settle().await;
    }

    /// Types `value` into a field, then leaves it (`input`, then `change`).
    pub async fn enter(&self, selector: &str, value: &str) {
        self.type_into(selector, value).await;
        let init = EventInit::new();
        init.set_bubbles(true);
        self.get(selector).dispatch_event(&Event::new_with_event_init_dict("change", &init).unwrap()).unwrap();
        settle().await;
    }

    pub fn input_value(&self, selector: &str) -> String {
        self.get(selector).dyn_into::<HtmlInputElement>().unwrap().value()
    }

    pub fn select_value(&self, selector: &str) -> String {
        self.get(selector).dyn_into::<HtmlSelectElement>().unwrap().value()
    }

    pub fn attr(&self, selector: &str, name: &str) -> String {
        self.get(selector).get_attribute(name).unwrap_or_default()
    }

    pub fn set_textarea(&self, selector: &str, value: &str) {
        self.get(selector).dyn_into::<HtmlTextAreaElement>().unwrap().set_value(value);
    }

    pub fn textarea(&self, selector: &str) -> String {
        self.get(selector).dyn_into::<HtmlTextAreaElement>().unwrap().value()
    }

    /// Clicks Step `n` times.
    pub async fn step(&self, n: usize) {
        for _ in 0..n {
            self.click("#step").await;
        }
    }
}
