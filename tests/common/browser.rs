//! Mounting the page in the test browser and poking at it like a user, and waiting for what the
//! page does by itself: never for a number of frames or milliseconds, always for a condition
//! (with [`PATIENCE_MS`] before failing), so that a busy machine is slower, not failing.

use flink_state_sim::ui::settled::ATTRIBUTE as SETTLED;
use flink_state_sim::ui::App;
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

/// How long [`settle`] and [`until`] wait for their condition before failing the test: far more
/// than anything takes on an idle machine, so that only a page that never gets there fails.
pub const PATIENCE_MS: f64 = 20_000.0;

/// The page mounted in a fresh element of the test page. Removed when dropped.
pub struct Page {
    pub root: Element,
}

impl Drop for Page {
    /// Unmounts the app rendered in the root ([`render`]), if any, then removes the root: an app
    /// left mounted keeps its listeners on the document (the page's keys) for the tests after.
    fn drop(&mut self) {
        let apps = MOUNTED.with(|m| {
            let mut m = m.borrow_mut();
            let (mine, others): (Vec<_>, Vec<_>) = m.drain(..).partition(|(root, _)| *root == self.root);
            *m = others;
            mine
        });
        let destroyed = !apps.is_empty();
        for (_, app) in apps {
            app.destroy();
        }
        if destroyed {
            // Yew runs the destroy from a microtask; run it now (the first poll of `flush` drains
            // the scheduler synchronously), so that its effects' cleanups (the autosave's last
            // write of a pending position, the URL) happen before the test goes on and sets the
            // address or the storage for what comes next.
            use std::future::Future;
            let mut flush = std::pin::pin!(yew::scheduler::flush());
            let _ = flush.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop()));
        }
        self.root.remove();
    }
}

thread_local! {
    /// The apps [`render`] mounted, by their root.
    static MOUNTED: std::cell::RefCell<Vec<(Element, yew::AppHandle<App>)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Mounts the app in `root` with `props`; the [`Page`] on `root` unmounts it when dropped.
pub fn render(root: &Element, props: flink_state_sim::ui::AppProps) {
    let app = yew::Renderer::<App>::with_root_and_props(root.clone(), props).render();
    MOUNTED.with(|m| m.borrow_mut().push((root.clone(), app)));
}

/// Waits until the page is settled after a mount or an event: Yew has rendered and run its
/// effects (`yew::scheduler::flush`), and every app root in the document (in the shadow roots
/// of embedded simulators too) carries `data-settled` (`src/ui/settled.rs`: the sections below
/// the timeline caught up, no scrubber move, autosave, file read or clipboard write pending);
/// then once more after an animation frame (layout observers, the timeline's `ResizeObserver`,
/// run in it), then one more task. Panics after [`PATIENCE_MS`], naming what it waited for.
///
/// Play's beats and a what-if run are not waited for (they go on by themselves): wait for what
/// they show with [`until`].
pub async fn settle() {
    let deadline = js_sys::Date::now() + PATIENCE_MS;
    quiet(deadline).await;
    next_frame().await;
    quiet(deadline).await;
    tick().await;
}

/// Flushes Yew and waits until every app root is settled.
async fn quiet(deadline: f64) {
    loop {
        yew::scheduler::flush().await;
        tick().await;
        yew::scheduler::flush().await;
        let waiting = unsettled();
        if waiting.is_empty() {
            return;
        }
        if js_sys::Date::now() > deadline {
            panic!(
                "settle: after {} s, {} app root(s) still lack `{SETTLED}` (src/ui/settled.rs: the sections below the \
                 timeline have not caught up, or a scrubber move, an autosave, a file read or a clipboard write is \
                 still pending): {:?}",
                PATIENCE_MS / 1000.0,
                waiting.len(),
                waiting.iter().map(|e| e.class_name()).collect::<Vec<_>>()
            );
        }
    }
}

/// The app roots (`.fss`) in the document and in the shadow roots of embedded simulators that
/// do not carry `data-settled`.
fn unsettled() -> Vec<Element> {
    let doc = web_sys::window().unwrap().document().unwrap();
    let mut roots = all(&doc.query_selector_all(".fss").unwrap());
    for host in all(&doc.query_selector_all("[data-flink-state-sim]").unwrap()) {
        if let Some(shadow) = host.shadow_root() {
            roots.extend(all(&shadow.query_selector_all(".fss").unwrap()));
        }
    }
    roots.into_iter().filter(|r| !r.has_attribute(SETTLED)).collect()
}

fn all(list: &web_sys::NodeList) -> Vec<Element> {
    (0..list.length()).filter_map(|i| list.item(i)).filter_map(|n| n.dyn_into::<Element>().ok()).collect()
}

/// Waits until `condition` holds, checking it after every task (so that a state shown between
/// two of Play's beats is seen), and returns at once then: nothing else runs between the check
/// that held and the caller's next statement. Panics after [`PATIENCE_MS`] with `what`.
pub async fn until(what: &str, condition: impl Fn() -> bool) {
    let deadline = js_sys::Date::now() + PATIENCE_MS;
    loop {
        if condition() {
            return;
        }
        if js_sys::Date::now() > deadline {
            panic!("timed out after {} s waiting for {what}", PATIENCE_MS / 1000.0);
        }
        tick().await;
    }
}

/// One task: what was queued before it (timers, events, Yew's continuation after it yielded) runs.
pub async fn tick() {
    TimeoutFuture::new(0).await;
}

/// Resolves at the next animation frame.
pub async fn next_frame() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window().unwrap().request_animation_frame(&resolve);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Puts the page's own stylesheets (`www/style.css`, `www/see.css`) into the test document, once:
/// a test of layout measures what users see. They stay for the tests after it, so every test
/// that measures layout calls this itself rather than depend on which test ran before.
pub fn with_page_styles() {
    let doc = web_sys::window().unwrap().document().unwrap();
    if doc.get_element_by_id("layout-css").is_none() {
        let style = doc.create_element("style").unwrap();
        style.set_id("layout-css");
        style.set_text_content(Some(concat!(
            include_str!("../../www/style.css"),
            include_str!("../../www/see.css"),
            "\nbody { margin: 0; }"
        )));
        doc.head().unwrap().append_child(&style).unwrap();
    }
}

impl Page {
    pub async fn open() -> Page {
        Page::open_with(flink_state_sim::ui::AppProps::default()).await
    }

    /// The app with `props` in a fresh element of the test page (`persist: true`: as the real
    /// page mounts it, with the address and the autosave), settled.
    pub async fn open_with(props: flink_state_sim::ui::AppProps) -> Page {
        let doc = web_sys::window().unwrap().document().unwrap();
        let root = doc.create_element("div").unwrap();
        doc.body().unwrap().append_child(&root).unwrap();
        render(&root, props);
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
        self.click_only(selector);
        settle().await;
    }

    /// Clicks without waiting for anything (then [`until`] what the click starts, such as Play).
    pub fn click_only(&self, selector: &str) {
        self.get(selector).dyn_into::<HtmlElement>().unwrap().click();
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
