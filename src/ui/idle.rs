//! Work that waits for the page to be idle: [`idle_slice`] resolves in the browser's next idle
//! period (`requestIdleCallback`) and says how long the work may take, at most [`MAX_SLICE_MS`],
//! so that a click or a key waits for no more than that. Input, frames and the page's own tasks
//! (a step back, "▶| to end") go first. Where the browser has no `requestIdleCallback`, a task
//! of [`MAX_SLICE_MS`] is given instead; where the page is never idle, the browser gives one
//! after [`FORCED_AFTER_MS`] (so the work goes on, slowly, under a busy page).

use wasm_bindgen::JsCast;

/// The longest slice of idle work, ms.
pub const MAX_SLICE_MS: f64 = 4.0;
/// The longest wait for an idle period before the browser runs the work anyway, ms.
const FORCED_AFTER_MS: u32 = 1_000;
/// The slice given when the browser ran the work without an idle period (its deadline is 0).
const FORCED_SLICE_MS: f64 = 2.0;

/// Waits for the browser's next idle period; how many ms of work it leaves, at most
/// [`MAX_SLICE_MS`].
pub async fn idle_slice() -> f64 {
    let window = web_sys::window();
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let options = web_sys::IdleRequestOptions::new();
        options.set_timeout(FORCED_AFTER_MS);
        let asked = window.as_ref().is_some_and(|w| w.request_idle_callback_with_options(&resolve, &options).is_ok());
        if !asked {
            let given = window
                .as_ref()
                .is_some_and(|w| w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0).is_ok());
            if !given {
                let _ = resolve.call0(&wasm_bindgen::JsValue::UNDEFINED);
            }
        }
    });
    match wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .ok()
        .and_then(|d| d.dyn_into::<web_sys::IdleDeadline>().ok())
    {
        Some(deadline) => deadline.time_remaining().clamp(FORCED_SLICE_MS, MAX_SLICE_MS),
        None => MAX_SLICE_MS,
    }
}
