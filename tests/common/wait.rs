//! Waiting in browser tests for what is asserted, never for a number of frames.

use gloo_timers::future::TimeoutFuture;

/// Waits until `cond` holds, looking every 20 ms, for at most `timeout_ms` of wall-clock time;
/// panics naming `what` when it never does. Returns the ms waited.
pub async fn wait_for(what: &str, timeout_ms: f64, cond: impl Fn() -> bool) -> f64 {
    let started = now_ms();
    loop {
        if cond() {
            return now_ms() - started;
        }
        if now_ms() - started > timeout_ms {
            panic!("timed out after {timeout_ms} ms waiting for {what}");
        }
        TimeoutFuture::new(20).await;
    }
}

/// The page's clock, in ms.
pub fn now_ms() -> f64 {
    web_sys::window().unwrap().performance().unwrap().now()
}
