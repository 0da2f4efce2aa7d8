//! The page says when it is settled: each app's root element (`.fss`) carries `data-settled`
//! while nothing the page has scheduled for later is still to come — the sections below the
//! timeline have caught up with the controls ([`super::deferred`]), no scrubber move waits for
//! the next frame, no autosave waits to be written, no imported file is being read and no copy
//! to the clipboard is under way. Tests (`tests/common/browser.rs`, `settle`) and any other
//! automation wait for it instead of for a number of frames or milliseconds.
//!
//! Not counted: Play (it goes on until paused; its beats are awaited by what they show), a
//! what-if run, "▶| to end" and "Go there" of a far link (they show their progress; the views
//! below wait for their end, `super::far`), the bookmarks' look through a long run (it goes on
//! while the page is idle and says how far it got, `data-scanning`), and a render Yew has queued (it
//! runs in a microtask after the event that queued it; tests flush it with
//! `yew::scheduler::flush`).
//!
//! One count for all the apps of the wasm module (a page with several embedded simulators is
//! settled when all of them are); it costs a counter and an attribute write when it goes from 0
//! to 1 and back. Invisible: no style uses the attribute.

use std::cell::RefCell;
use yew::prelude::*;

/// The attribute on each app's root element while the page is settled.
pub const ATTRIBUTE: &str = "data-settled";

#[derive(Default)]
struct Tracker {
    /// Work scheduled and not yet done ([`Pending`] guards alive).
    pending: u32,
    /// The root of every mounted app, by registration id.
    roots: Vec<(u64, NodeRef)>,
    next_id: u64,
}

thread_local! {
    static TRACKER: RefCell<Tracker> = RefCell::default();
}

/// Work the page scheduled for later (a frame, a task, a read): while a `Pending` is alive the
/// roots lose `data-settled`; dropping it is the work being done.
#[must_use = "the work counts as pending only while this is alive"]
pub struct Pending(());

/// Counts one piece of work as pending until the returned guard is dropped.
pub fn pending() -> Pending {
    let became_busy = TRACKER.with(|t| {
        let mut t = t.borrow_mut();
        t.pending += 1;
        t.pending == 1
    });
    if became_busy {
        mark_all();
    }
    Pending(())
}

impl Drop for Pending {
    fn drop(&mut self) {
        let became_idle = TRACKER.with(|t| {
            let mut t = t.borrow_mut();
            t.pending = t.pending.saturating_sub(1);
            t.pending == 0
        });
        if became_idle {
            mark_all();
        }
    }
}

/// Whether nothing is pending.
pub fn is_settled() -> bool {
    TRACKER.with(|t| t.borrow().pending == 0)
}

fn mark_all() {
    let roots: Vec<NodeRef> = TRACKER.with(|t| t.borrow().roots.iter().map(|(_, r)| r.clone()).collect());
    let settled = is_settled();
    for root in &roots {
        mark(root, settled);
    }
}

/// Sets or removes the attribute on `root`, writing only a change (a write is a DOM mutation).
fn mark(root: &NodeRef, settled: bool) {
    let Some(el) = root.cast::<web_sys::Element>() else { return };
    if el.has_attribute(ATTRIBUTE) != settled {
        let _ = if settled { el.set_attribute(ATTRIBUTE, "") } else { el.remove_attribute(ATTRIBUTE) };
    }
}

/// Keeps `data-settled` on the element `root` refers to (the app's root element) while mounted.
#[hook]
pub fn use_settled_marker(root: &NodeRef) {
    let root = root.clone();
    use_effect_with((), move |_| {
        let id = TRACKER.with(|t| {
            let mut t = t.borrow_mut();
            t.next_id += 1;
            let id = t.next_id;
            t.roots.push((id, root.clone()));
            id
        });
        mark(&root, is_settled());
        move || TRACKER.with(|t| t.borrow_mut().roots.retain(|(i, _)| *i != id))
    });
}
