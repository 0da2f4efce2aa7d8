//! Bookmarks: the steps of the scenario's straight run where a timer fired, state expired, a
//! result row went stale or a key counted as new again ([`crate::engine::bookmarks`] finds them;
//! nothing is decided here). A click, or `[` / `]` (previous / next), goes there through the
//! page's time travel (`Action::GoTo`, the permalink's path), so the address keeps the step.
//!
//! The whole run is looked through: its first [`MAX_SCAN_STEPS`] steps at once (a preset's whole
//! run), the rest in slices while the page is idle ([`crate::ui::idle`]) and has been left
//! alone for [`QUIET_MS`] (a Back or a scrub never waits for a slice of it), with how far it got
//! shown and a Stop. Next and previous reach every bookmark found, of every kind or of the one
//! chosen; the first ones are also listed in words.

use crate::engine::bookmarks::{BookmarkKind, BookmarkScan, Bookmarks, MAX_SCAN_STEPS};
use crate::engine::digits::grouped;
use crate::engine::error;
use crate::engine::time::TimeFormat;
use crate::engine::Scenario;
use crate::ui::clock::wall_ms;
use crate::ui::components::keys::typed_into_target;
use crate::ui::idle::idle_slice;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The most characters of a bookmark's line shown (it names keys, which are anyone's).
const MAX_WHAT_CHARS: usize = 300;
/// Steps between two looks at the clock inside an idle slice.
const CLOCK_EVERY: u32 = 32;
/// The least wall-clock ms between two redraws of the panel while the scan goes on.
const REDRAW_EVERY_MS: f64 = 250.0;
/// How long the page must have been left alone (no move, nothing under way) before the scan
/// goes on: a Back, a scrub or "▶| to end" never shares a frame with it.
const QUIET_MS: f64 = 500.0;

#[derive(Properties, PartialEq, Clone)]
pub struct BookmarksProps {
    /// The scenario's text: the bookmarks are found again when it changes.
    pub json: String,
    /// Where the page stands, in steps of the straight run (`None` after another action, such
    /// as advancing time by hand).
    pub here: Option<u64>,
    /// Goes to the position after this many steps.
    pub on_jump: Callback<u64>,
    /// Whether the page has work under way ("▶| to end", a far move, views catching up): the
    /// scan waits for it.
    #[prop_or_default]
    pub busy: bool,
}

/// When the page last moved or was busy (`now_ms`), for the scan to wait until it is left alone.
#[derive(Default)]
struct Activity {
    last_ms: f64,
    busy: bool,
}

impl Activity {
    /// How long the scan should wait before going on, ms (0: go on).
    fn wait_ms(&self, now: f64) -> f64 {
        if self.busy || !crate::ui::settled::is_settled() {
            QUIET_MS
        } else {
            (self.last_ms + QUIET_MS - now).max(0.0)
        }
    }
}

/// The scan of the scenario on screen.
struct Scan {
    scan: BookmarkScan,
    time_format: TimeFormat,
    /// Stopped by the user before the run's end.
    stopped: bool,
}

impl Scan {
    fn going(&self) -> bool {
        !self.stopped && !self.scan.is_finished()
    }
}

type Shared = Rc<RefCell<Option<Scan>>>;

/// The step `]` (`forward`) or `[` goes to from `here`, among the bookmarks of `kind` (any: `None`).
fn neighbour(marks: &Bookmarks, here: Option<u64>, forward: bool, kind: Option<BookmarkKind>) -> Option<u64> {
    let at = here.unwrap_or(0);
    if forward {
        marks.next_after(at, kind)
    } else {
        marks.previous_before(at, kind)
    }
}

/// Scans `json`'s run into `shared`: the first steps now, the rest while the page is idle, until
/// the run ends, the user stops it or `generation` moves on (a new scenario).
fn start(
    json: &str,
    shared: &Shared,
    generation: &Rc<RefCell<u64>>,
    activity: &Rc<RefCell<Activity>>,
    redraw: UseForceUpdateHandle,
) {
    let mine = {
        let mut g = generation.borrow_mut();
        *g += 1;
        *g
    };
    let Ok(scenario) = Scenario::from_json(json) else {
        *shared.borrow_mut() = None;
        return;
    };
    let mut scan = BookmarkScan::new(&scenario);
    while scan.bookmarks().scanned < MAX_SCAN_STEPS && scan.step() {}
    let going = !scan.is_finished();
    *shared.borrow_mut() = Some(Scan { scan, time_format: scenario.time_format, stopped: false });
    if going {
        go_on(shared, generation, activity, redraw, mine);
    }
}

/// Goes on with the scan in `shared` while the page is idle, as long as `generation` is `mine`.
fn go_on(
    shared: &Shared,
    generation: &Rc<RefCell<u64>>,
    activity: &Rc<RefCell<Activity>>,
    redraw: UseForceUpdateHandle,
    mine: u64,
) {
    let (shared, generation, activity) = (shared.clone(), generation.clone(), activity.clone());
    yew::platform::spawn_local(async move {
        let mut drawn = wall_ms();
        loop {
            let wait = activity.borrow().wait_ms(wall_ms());
            if wait > 0.0 {
                gloo_timers::future::TimeoutFuture::new(wait.ceil() as u32).await;
                continue;
            }
            let budget = idle_slice().await;
            if *generation.borrow() != mine {
                return;
            }
            if activity.borrow().wait_ms(wall_ms()) > 0.0 {
                continue;
            }
            let started = wall_ms();
            let going = {
                let mut guard = shared.borrow_mut();
                let Some(s) = guard.as_mut().filter(|s| s.going()) else { return };
                'slice: while wall_ms() - started < budget {
                    for _ in 0..CLOCK_EVERY {
                        if !s.scan.step() {
                            break 'slice;
                        }
                    }
                }
                s.going()
            };
            if !going || wall_ms() - drawn >= REDRAW_EVERY_MS {
                drawn = wall_ms();
                redraw.force_update();
            }
            if !going {
                return;
            }
        }
    });
}

#[component]
pub fn BookmarksPanel(props: &BookmarksProps) -> Html {
    let shared: Shared = use_mut_ref(|| None::<Scan>);
    let generation = use_mut_ref(|| 0u64);
    let activity = use_mut_ref(Activity::default);
    let redraw = use_force_update();
    {
        // Each move of the page and each render while it is busy puts the scan off.
        let mut a = activity.borrow_mut();
        a.busy = props.busy;
    }
    {
        let activity = activity.clone();
        use_effect_with((props.here, props.busy), move |_| {
            activity.borrow_mut().last_ms = wall_ms();
        });
    }
    // Next and previous go through the bookmarks of this kind (any: `None`).
    let kind = use_state(|| None::<BookmarkKind>);
    {
        let (shared, generation, redraw, activity) =
            (shared.clone(), generation.clone(), redraw.clone(), activity.clone());
        use_effect_with(props.json.clone(), move |json| {
            start(json, &shared, &generation, &activity, redraw.clone());
            redraw.force_update();
            // A scan in progress ends with the panel (its generation is no longer current).
            move || *generation.borrow_mut() += 1
        });
    }
    {
        // `[` and `]` on the page (not in a field, a list or the tour).
        let (shared, on_jump, here, kind) = (shared.clone(), props.on_jump.clone(), props.here, *kind);
        use_effect_with((here, kind), move |_| {
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
                    let to = shared.borrow().as_ref().and_then(|s| neighbour(s.scan.bookmarks(), here, forward, kind));
                    if let Some(step) = to {
                        on_jump.emit(step);
                    }
                })
            });
            move || drop(listener)
        });
    }
    let guard = shared.borrow();
    let Some(scan) = guard.as_ref() else { return html! {} };
    let (marks, tf, going) = (scan.scan.bookmarks(), scan.time_format, scan.going());
    let (prev, next) = (neighbour(marks, props.here, false, *kind), neighbour(marks, props.here, true, *kind));
    let jump = |step: Option<u64>| {
        let on_jump = props.on_jump.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(s) = step {
                on_jump.emit(s)
            }
        })
    };
    let on_stop = {
        let (shared, redraw) = (shared.clone(), redraw.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(s) = shared.borrow_mut().as_mut() {
                s.stopped = true;
            }
            redraw.force_update();
        })
    };
    let on_resume = {
        let (shared, generation, activity, redraw) =
            (shared.clone(), generation.clone(), activity.clone(), redraw.clone());
        Callback::from(move |_: MouseEvent| {
            let resumed = match shared.borrow_mut().as_mut() {
                Some(s) if s.stopped => {
                    s.stopped = false;
                    true
                }
                _ => false,
            };
            if resumed {
                let mine = *generation.borrow();
                go_on(&shared, &generation, &activity, redraw.clone(), mine);
            }
            redraw.force_update();
        })
    };
    let resumable = scan.stopped && !scan.scan.is_finished();
    let total = marks.count(None);
    let how_far = if going {
        let pct = marks.scanned as f64 * 100.0 / marks.total.max(1) as f64;
        format!(
            "{} bookmarked steps so far · looking through the run: {} of {} steps ({pct:.0} %)",
            grouped(total),
            grouped(marks.scanned),
            grouped(marks.total)
        )
    } else if marks.scanned < marks.total && marks.stopped.is_none() {
        format!(
            "{} bookmarked steps in the first {} of {} steps (stopped)",
            grouped(total),
            grouped(marks.scanned),
            grouped(marks.total)
        )
    } else {
        format!("{} bookmarked step{} in the run", grouped(total), if total == 1 { "" } else { "s" })
    };
    let which = match *kind {
        Some(k) => format!(" {}", k.label()),
        None => String::new(),
    };
    let none_yet = if going { " (not found yet: the run is still being looked through)" } else { "" };
    let kinds = BookmarkKind::ALL.iter().filter(|k| marks.count(Some(**k)) > 0).map(|&k| {
        let pressed = *kind == Some(k);
        let onclick = {
            let chosen = kind.clone();
            Callback::from(move |_: MouseEvent| chosen.set(if pressed { None } else { Some(k) }))
        };
        let (steps, events) = (marks.count(Some(k)), marks.events(k));
        let title = format!(
            "{events} time{} at {steps} step{} — next and previous go to these only (click again for every kind)",
            if events == 1 { "" } else { "s" },
            if steps == 1 { "" } else { "s" }
        );
        html! {
            <button class={classes!("bm-kind-filter", k.id())} aria-pressed={pressed.to_string()} {onclick} {title}>
                { format!("{} {}", k.label(), grouped(steps)) }
            </button>
        }
    });
    // Where the page stands, when it is a bookmark the list does not describe.
    let here_line = props
        .here
        .and_then(|h| marks.at(h).filter(|_| !marks.marks.iter().any(|m| m.step == h)).map(|(k, nth)| (h, k, nth)));
    html! {
        <nav class="bookmarks" id="bookmarks" aria-label="Bookmarks" data-scanning={going.to_string()}>
            <div class="bm-head">
                <h2>{ "Bookmarks" }</h2>
                <button id="bm-prev" onclick={jump(prev)} disabled={prev.is_none()}
                    title={format!("The previous{which} bookmark ([){}", if prev.is_none() { none_yet } else { "" })}>{ "◀ previous" }</button>
                <button id="bm-next" onclick={jump(next)} disabled={next.is_none()}
                    title={format!("The next{which} bookmark (]){}", if next.is_none() { none_yet } else { "" })}>{ "next ▶" }</button>
                <span class="hint" id="bm-count">{ how_far }</span>
                if going {
                    <button id="bm-stop" onclick={on_stop} title="Stop looking through the run (the bookmarks found so far stay)">{ "Stop" }</button>
                }
                if resumable {
                    <button id="bm-resume" onclick={on_resume} title="Look through the rest of the run">{ "Go on" }</button>
                }
            </div>
            if total > 0 {
                <div class="bm-kinds" role="group" aria-label="Go through one kind of bookmark">{ for kinds }</div>
            }
            if let Some((h, k, nth)) = here_line {
                <p class="hint" id="bm-here">{ format!(
                    "Here, step {}: bookmark {} of {}{} — {} (the panel \"What just happened\" below says where).",
                    grouped(h), grouped(nth), grouped(total),
                    kind.and_then(|k| marks.rank_of(h, k).map(|r| format!("; \"{}\" {} of {}", k.label(), grouped(r), grouped(marks.count(Some(k)))))).unwrap_or_default(),
                    k.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")
                ) }</p>
            }
            if total == 0 {
                <p class="hint">{ if going {
                    format!("No timer fired, no state expired, no row went stale and no key counted as new again in the first {} steps; looking further.", grouped(marks.scanned))
                } else if marks.scanned < marks.total {
                    format!("In the first {} steps no timer fired, no state expired, no row went stale and no key \
                             counted as new again.", grouped(marks.scanned))
                } else {
                    "No timer fired, no state expired, no row went stale and no key counted as new again.".to_string()
                } }</p>
            } else if kind.is_some_and(|k| !marks.marks.iter().any(|m| m.kind == k)) {
                // The chosen kind happens only past the bookmarks described in words.
                <p class="hint" id="bm-none-listed">{ format!(
                    "None of the first {} bookmarks listed is \"{}\": previous and next (or [ and ]) go to the {} steps where it happens.",
                    marks.marks.len(), kind.map_or("", |k| k.label()), grouped(marks.count(*kind))
                ) }</p>
            } else {
                <ol class="bm-list">
                    { for marks.marks.iter().filter(|m| kind.is_none_or(|k| m.kind == k)).map(|m| {
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
            if total > 0 && !marks.all_described() {
                <p class="hint" id="bm-more">{ format!(
                    "The first {} are listed; previous and next go through all {} bookmarked steps{}.",
                    marks.marks.len(), grouped(total), if going { " found so far" } else { "" }
                ) }</p>
            }
            // The bookmarks are the straight run's: after time advanced by hand (`n`, advance by)
            // this run's timers differ from them (trial 23: a firing listed at 11-23 16:00 while
            // the page showed one at 11-22 15:00).
            if props.here.is_none() && total > 0 {
                <p class="hint" id="bm-straight">{ "These are the scenario's straight run (one Step per input): time                     was advanced by hand here, so this run's timers may differ; a bookmark goes back to the straight                     run at its step." }</p>
            }
            if let Some(why) = &marks.stopped {
                <p class="hint">{ format!("The run stops before its end: {why}") }</p>
            }
        </nav>
    }
}
