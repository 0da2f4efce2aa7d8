//! Bookmarks: the steps of the scenario's straight run where a timer fired, state expired, a
//! result row went stale or a key counted as new again ([`crate::engine::bookmarks`] finds them;
//! nothing is decided here). A click, or `[` / `]` (previous / next), goes there through the
//! page's time travel (`Action::GoTo`, the permalink's path), so the address keeps the step.

use crate::engine::bookmarks::{scan, Bookmarks, MAX_SCAN_STEPS};
use crate::engine::error;
use crate::engine::time::TimeFormat;
use crate::engine::Scenario;
use crate::ui::components::keys::typed_into_target;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The most characters of a bookmark's line shown (it names keys, which are anyone's).
const MAX_WHAT_CHARS: usize = 300;

#[derive(Properties, PartialEq, Clone)]
pub struct BookmarksProps {
    /// The scenario's text: the bookmarks are found again when it changes.
    pub json: String,
    /// Where the page stands, in steps of the straight run (`None` after another action, such
    /// as advancing time by hand).
    pub here: Option<u64>,
    /// Goes to the position after this many steps.
    pub on_jump: Callback<u64>,
}

/// The bookmarks of `json`'s run, with its time format (`None` when the text does not load: the
/// page says why elsewhere).
fn find(json: &str) -> Option<(Bookmarks, TimeFormat)> {
    let scenario = Scenario::from_json(json).ok()?;
    let tf = scenario.time_format;
    Some((scan(&scenario, MAX_SCAN_STEPS), tf))
}

/// The step `]` (`forward`) or `[` goes to from `here`.
fn neighbour(marks: &Bookmarks, here: Option<u64>, forward: bool) -> Option<u64> {
    let at = here.unwrap_or(0);
    if forward {
        marks.next_after(at).map(|m| m.step)
    } else {
        marks.previous_before(at).map(|m| m.step)
    }
}

#[component]
pub fn BookmarksPanel(props: &BookmarksProps) -> Html {
    let found = use_memo(props.json.clone(), |json| find(json));
    {
        // `[` and `]` on the page (not in a field, a list or the tour).
        let (found, on_jump, here) = (found.clone(), props.on_jump.clone(), props.here);
        use_effect_with((found.clone(), here), move |_| {
            let document = web_sys::window().and_then(|w| w.document());
            let listener = document.map(|doc| {
                gloo_events::EventListener::new(&doc, "keydown", move |e| {
                    let Some(e) = e.dyn_ref::<web_sys::KeyboardEvent>() else { return };
                    let forward = match e.key().as_str() {
                        "]" => true,
                        "[" => false,
                        _ => return,
                    };
                    if e.ctrl_key() || e.alt_key() || e.meta_key() || typed_into_target(e) {
                        return;
                    }
                    if let Some(step) = (*found).as_ref().and_then(|(b, _)| neighbour(b, here, forward)) {
                        on_jump.emit(step);
                    }
                })
            });
            move || drop(listener)
        });
    }
    let Some((marks, tf)) = (*found).as_ref() else { return html! {} };
    let (prev, next) = (neighbour(marks, props.here, false), neighbour(marks, props.here, true));
    let jump = |step: Option<u64>| {
        let on_jump = props.on_jump.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(s) = step {
                on_jump.emit(s)
            }
        })
    };
    let cut = (marks.scanned < marks.total).then(|| format!(" (the first {} of {} steps)", marks.scanned, marks.total));
    html! {
        <nav class="bookmarks" id="bookmarks" aria-label="Bookmarks">
            <div class="bm-head">
                <h2>{ "Bookmarks" }</h2>
                <button id="bm-prev" onclick={jump(prev)} disabled={prev.is_none()}
                    title="The previous bookmark ([)">{ "◀ previous" }</button>
                <button id="bm-next" onclick={jump(next)} disabled={next.is_none()}
                    title="The next bookmark (])">{ "next ▶" }</button>
                <span class="hint">{ format!("{} in the run{}", marks.marks.len(), cut.unwrap_or_default()) }</span>
            </div>
            if marks.marks.is_empty() {
                <p class="hint">{ if marks.scanned < marks.total {
                    format!("In the first {} steps no timer fired, no state expired, no row went stale and no key \
                             counted as new again; the bookmarks do not look further.", marks.scanned)
                } else {
                    "No timer fired, no state expired, no row went stale and no key counted as new again.".to_string()
                } }</p>
            } else {
                <ol class="bm-list">
                    { for marks.marks.iter().map(|m| {
                        let current = props.here == Some(m.step);
                        html! {
                            <li class={classes!("bm", m.kind.id())}>
                                <button class="bm-jump" data-step={m.step.to_string()} onclick={jump(Some(m.step))}
                                    aria-current={current.then_some("step")}>
                                    <span class="bm-step">{ format!("step {}", m.step) }</span>
                                    <span class="bm-kind">{ m.kind.label() }</span>
                                    <span class="bm-what">{ format!("{} · {}", tf.format(m.time_ms), error::cut(&m.what, MAX_WHAT_CHARS)) }</span>
                                </button>
                            </li>
                        }
                    }) }
                </ol>
            }
            // The bookmarks are the straight run's: after time advanced by hand (`n`, advance by)
            // this run's timers differ from them (trial 23: a firing listed at 11-23 16:00 while
            // the page showed one at 11-22 15:00).
            if props.here.is_none() && !marks.marks.is_empty() {
                <p class="hint" id="bm-straight">{ "These are the scenario's straight run (one Step per input): time                     was advanced by hand here, so this run's timers may differ; a bookmark goes back to the straight                     run at its step." }</p>
            }
            if let Some(why) = &marks.stopped {
                <p class="hint">{ format!("The run stops before its end: {why}") }</p>
            }
        </nav>
    }
}
