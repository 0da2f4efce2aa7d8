//! The page's wall clock: `performance.now()`, in ms. What the page uses to cut long work into
//! slices and to say how long something took; never read by the engine, whose time is the
//! scenario's processing time.

/// Milliseconds since the page started (0 where there is no `performance`).
pub fn wall_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}
