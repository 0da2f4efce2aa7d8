//! Text widths in the page's font, for placing the timeline's labels so that none overlaps
//! another: a canvas's `measureText`, with the font the timeline's SVG text uses (`www/style.css`).

use std::cell::RefCell;
use std::collections::HashMap;
use wasm_bindgen::JsCast;
use web_sys::CanvasRenderingContext2d;

/// The font of the timeline's text (`svg text` in `www/style.css`) at `px` pixels.
fn font(px: u32) -> String {
    format!("{px}px system-ui, -apple-system, \"Segoe UI\", Roboto, sans-serif")
}

thread_local! {
    static CONTEXT: Option<CanvasRenderingContext2d> = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("canvas").ok())
        .and_then(|c| c.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        .and_then(|c| c.get_context("2d").ok().flatten())
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok());
    /// Widths measured so far, by font size and text (labels repeat from one render to the next).
    static CACHE: RefCell<HashMap<(u32, String), f64>> = RefCell::new(HashMap::new());
}

/// The width in px of `text` in the timeline's font at `px` pixels (an estimate when the page has
/// no canvas).
pub fn text_width(text: &str, px: u32) -> f64 {
    let key = (px, text.to_string());
    if let Some(w) = CACHE.with(|c| c.borrow().get(&key).copied()) {
        return w;
    }
    let measured = CONTEXT.with(|ctx| {
        ctx.as_ref().and_then(|ctx| {
            ctx.set_font(&font(px));
            ctx.measure_text(text).ok().map(|m| m.width())
        })
    });
    let width = measured.unwrap_or_else(|| text.chars().count() as f64 * f64::from(px) * 0.6);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() > 4096 {
            c.clear();
        }
        c.insert(key, width);
    });
    width
}

/// `text` cut with an ellipsis to fit `max` px at `px` pixels.
pub fn clip_to(text: &str, max: f64, px: u32) -> String {
    if text_width(text, px) <= max {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let (mut lo, mut hi) = (0usize, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let candidate: String = chars[..mid].iter().collect::<String>() + "…";
        if text_width(&candidate, px) <= max {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    chars[..lo].iter().collect::<String>() + "…"
}
