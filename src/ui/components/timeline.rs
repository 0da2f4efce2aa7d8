//! The timeline: a processing-time axis over the whole run that zooms and pans (buttons, Ctrl +
//! wheel, dragging, keys), labelled in the scenario's time format with labels measured and placed
//! so that none overlaps another; the scenario's inputs, which can be dragged to another time (the
//! edited scenario is re-run at once, through the engine); the current time as a cursor; and one
//! lane per operator × key ([`super::timeline_lanes`]), filtered by a search box and virtualised
//! (only the lanes scrolled into view are drawn). The lanes, the run's domain and the inputs come
//! from the engine ([`crate::engine::timeline`]); the axis arithmetic too
//! ([`crate::engine::time_axis`]). Drawn at the pixel width of the page, never scaled down.

use super::measure::text_width;
use super::timeline_inputs::inputs_view;
use super::timeline_lanes::{lane_view, mark_label, Layout};
use crate::engine::time::Millis;
use crate::engine::time_axis::{place_labels, range_label, snap, snap_step, tick_step, ticks, Scale, Viewport};
use crate::engine::timeline::timeline_filtered;
use crate::ui::state::{Action, SimHandle};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The axis: tick labels, the current time's label, the inputs.
const AXIS_H: f64 = 54.0;
/// Each further source's row of inputs below the first (several sources: one row each, named).
pub(super) const SOURCE_ROW_H: f64 = 20.0;
/// The most the lanes take before they scroll (as `.timeline .scroll` in `www/style.css`).
const SCROLL_H: f64 = 330.0;
/// The least room between two ticks, px.
const TICK_SPACING: f64 = 110.0;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub sim: SimHandle,
    /// The page state's version: the simulation changes in place.
    pub version: u64,
    pub dispatch: Callback<Action>,
    /// Told the time range on show (ms) whenever it changes (zoom, pan, a page turned), so the
    /// charts can show the same range.
    #[prop_or_default]
    pub on_view: Option<Callback<(Millis, Millis)>>,
    /// An embed's compact layout: the cleanup rule folded under a one-line summary.
    #[prop_or_default]
    pub compact: bool,
    /// A link's time range (`t=`): shown when the timeline opens (and whenever it changes), if it
    /// lies within the run ([`crate::engine::time_range::check_range`]; else a note says why and
    /// the default view is shown).
    #[prop_or_default]
    pub request: Option<Viewport>,
    /// Told the range the user chose (zoom, pan, a link's range), or `None` for the default view
    /// (the whole run, or a generated run's window following now): the permalink's `t=`.
    #[prop_or_default]
    pub on_chosen: Option<Callback<Option<(Millis, Millis)>>>,
    /// A state inspector is shown beside the timeline: a lane's key label opens it on that key
    /// (`Action::Inspect`).
    #[prop_or_default]
    pub inspectable: bool,
}

/// A drag in progress: an input being moved (the view is frozen meanwhile, so the axis does not
/// move under the pointer), or the view being panned.
#[derive(Clone, Copy)]
enum Drag {
    Input { step: usize, at: Millis, moved: bool, view: Viewport },
    Pan { start_x: f64, view: Viewport, ms_per_px: f64 },
}

/// What the last render drew, for the listeners (wheel, pointer) that outlive it.
#[derive(Clone, Copy)]
struct Drawn {
    scale: Scale,
    domain: Viewport,
    view: Viewport,
    step: Millis,
}

#[component]
pub fn Timeline(props: &Props) -> Html {
    let root = use_node_ref();
    let axis_ref = use_node_ref();
    let lanes_ref = use_node_ref();
    let width = use_state_eq(|| 1000.0f64);
    let view = use_state_eq(|| None::<Viewport>);
    let follow = use_state_eq(|| true);
    let filter = use_state_eq(String::new);
    let scroll_top = use_state_eq(|| 0.0f64);
    let drag = use_mut_ref(|| None::<Drag>);
    let drawn = use_mut_ref(|| None::<Drawn>);
    use_width(&root, &width);
    use_wheel_zoom(&lanes_ref, &drawn, &view, &follow);
    let sim = props.sim.get();
    {
        // A new scenario opens fitted (or following now); an edit of the same one keeps the zoom.
        let (view, follow) = (view.clone(), follow.clone());
        use_effect_with(sim.scenario().name.clone(), move |_| {
            view.set(None);
            follow.set(true);
        });
    }
    let tl = timeline_filtered(&sim, &filter);
    let tf = sim.time_format();
    // The SVGs' borders are outside their width.
    let w = (*width - 2.0).max(300.0);
    let layout = Layout::for_width(w);
    // A little room after the last mark, ending on a round time (the range reads `– 11-24 06:00`).
    let domain = crate::engine::time_range::domain(tl.from_ms, tl.to_ms);
    {
        // A link's range, once the timeline is there to show it (after the effect above).
        let (view, follow, dispatch) = (view.clone(), follow.clone(), props.dispatch.clone());
        use_effect_with(props.request, move |request| {
            if let Some(range) = request {
                match crate::engine::time_range::check_range(*range, domain, tf) {
                    Ok(range) => {
                        view.set(Some(range));
                        follow.set(false);
                    }
                    Err(e) => dispatch.emit(Action::FilesNote(crate::ui::state::Note {
                        text: format!("link: {e} — the timeline shows the run as usual"),
                        error: true,
                    })),
                }
            }
        });
    }
    let default_view = tl.follow_ms.map_or(domain, |fw| Viewport { from: domain.from, to: domain.from + fw });
    let mut v = view.unwrap_or(default_view).inside(domain);
    if *follow {
        v = v.follow(tl.now_ms, domain);
    }
    if let Some(Drag::Input { view, .. }) = *drag.borrow() {
        v = view;
    }
    // Several sources: each names its row of inputs left of the plot, so the plot starts after
    // the longest name (on a narrow page too, where lane labels sit inside the lanes).
    let sources: Vec<&str> = sim.scenario().sources.iter().map(|s| s.name.as_str()).collect();
    let names_w = match sources.len() {
        0 | 1 => 0.0,
        _ => sources.iter().map(|n| text_width(n, 11)).fold(0.0, f64::max) + 8.0,
    };
    // Room on the right for the lanes' scrollbar and the last label.
    let scale = Scale { from: v.from, to: v.to, left: layout.label_w.max(names_w) + 12.0, right: w - 22.0 };
    let step = tick_step(tf, &scale, TICK_SPACING);
    *drawn.borrow_mut() = Some(Drawn { scale, domain, view: v, step });
    {
        let on_view = props.on_view.clone();
        use_effect_with((v.from, v.to), move |range| {
            if let Some(on_view) = on_view {
                on_view.emit(*range);
            }
        });
        let on_chosen = props.on_chosen.clone();
        use_effect_with((v.from, v.to, view.is_some()), move |(from, to, chosen)| {
            if let Some(on_chosen) = on_chosen {
                on_chosen.emit(chosen.then_some((*from, *to)));
            }
        });
    }
    let axis = ticks(tf, &scale, step, 12.0, &|s| text_width(s, 11));
    // One row of input marks per source, named at its left when there are several.
    let axis_h = AXIS_H + SOURCE_ROW_H * sources.len().saturating_sub(1) as f64;
    let now_x = scale.x(tl.now_ms);
    let now_shown = now_x >= scale.left - 0.5 && now_x <= scale.right + 0.5;
    let now_label = format!("now {}", mark_label(tf, tl.now_ms));
    let now_left = place_labels(&[(now_x, text_width(&now_label, 11))], 0.0, scale.left, scale.right)[0];

    let dispatch = props.dispatch.clone();
    let following = *follow;
    let set_view = {
        let (view, follow) = (view.clone(), follow.clone());
        move |next: Option<Viewport>, keep_following: bool| {
            view.set(next);
            follow.set(keep_following);
        }
    };
    let zoom_by = {
        let set_view = set_view.clone();
        let now = tl.now_ms;
        move |factor: f64| {
            let anchor = if now >= v.from && now <= v.to { now } else { v.from + v.width() / 2 };
            let next = v.zoom(factor, anchor, domain);
            set_view(Some(next), following && now >= next.from && now <= next.to);
        }
    };
    let pan_by = {
        let set_view = set_view.clone();
        move |share: f64| set_view(Some(v.pan((v.width() as f64 * share) as Millis, domain)), false)
    };
    // "fit": the whole domain. A generated run opens on a window that follows now (its default
    // view), so fitting asks for the domain itself; any other run's default is the domain.
    let fit_view = tl.follow_ms.map(|_| domain);
    let on_plot_key = {
        let (zoom_by, pan_by, set_view) = (zoom_by.clone(), pan_by.clone(), set_view.clone());
        Callback::from(move |e: KeyboardEvent| {
            match e.key().as_str() {
                "+" | "=" => zoom_by(0.5),
                "-" | "_" => zoom_by(2.0),
                "0" => set_view(fit_view, true),
                "ArrowLeft" => pan_by(-0.25),
                "ArrowRight" => pan_by(0.25),
                _ => return,
            }
            e.prevent_default();
        })
    };
    let lanes_h = layout.lane_h * tl.lanes.len().max(1) as f64 + 8.0;
    let first = ((*scroll_top / layout.lane_h).floor() as usize).saturating_sub(2);
    let last = (((*scroll_top + SCROLL_H) / layout.lane_h).ceil() as usize + 2).min(tl.lanes.len());
    let on_scroll = {
        let scroll_top = scroll_top.clone();
        Callback::from(move |e: Event| {
            scroll_top.set(f64::from(e.target_unchecked_into::<web_sys::Element>().scroll_top()))
        })
    };
    let on_filter = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| filter.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value()))
    };
    let pointer = pointer_handlers(&drag, &drawn, &dispatch, &set_view, [axis_ref.clone(), lanes_ref.clone()]);
    let zoom_in = zoom_by.clone();
    let zoom_out = zoom_by;
    let (pan_left, pan_right) = (pan_by.clone(), pan_by);
    let (fit, toggle_follow) = (set_view.clone(), set_view);
    let cleanup_rule = (0..sim.scenario().operators.len()).find_map(|i| match sim.scenario().operator_retention(i) {
        crate::engine::scenario::Retention::IdleState(r) if r.state_cleaning_enabled() => {
            Some(crate::engine::cleanup_state::rule_text(r, sim.scenario().flink.deletes_old_cleanup_timers()))
        }
        _ => None,
    });
    let timers_legend = cleanup_rule.is_some();
    html! {
        <section class="timeline" id="timeline" ref={root} aria-label="Timeline">
            <div class="tl-head">
                <h2>{ "Timeline" }</h2>
                <ul class="legend" aria-label="Legend">
                    <li class="lg access">{ "● access" }</li>
                    if timers_legend {
                        <li class="lg window">{ "▭ [last access + min, + max]" }</li>
                        <li class="lg live">{ "▼ cleanup timer" }</li>
                        <li class="lg deleted">{ "✕ deleted" }</li>
                        <li class="lg fired">{ "✸ fired" }</li>
                    }
                    if sim.scenario().has_state_ttl() {
                        <li class="lg ttl">{ "▬ state TTL (grey: expired, still stored)" }</li>
                    }
                    if !tl.inputs.is_empty() {
                        <li class="lg input">{ "▾ input (drag to move)" }</li>
                        <li class="lg upcoming">{ "▿ upcoming input" }</li>
                    }
                    if tl.inputs.iter().any(|m| !m.runnable) {
                        <li class="lg passed" id="lg-passed">{ "▿ not run: time was advanced past it" }</li>
                    }
                    <li class="lg now">{ "│ now" }</li>
                </ul>
            </div>
            if let Some(rule) = cleanup_rule {
                if props.compact {
                    <details class="tl-rule hint">
                        <summary>{ "the cleanup-timer rule" }</summary>
                        <p id="tl-rule">{ rule }</p>
                    </details>
                } else {
                    <p class="tl-rule hint" id="tl-rule">{ rule }</p>
                }
            }
            <div class="tl-tools" role="toolbar" aria-label="Timeline view">
                <button id="tl-zoom-out" onclick={Callback::from(move |_| zoom_out(2.0))} aria-label="Zoom out" title="Zoom out (−)">{ "−" }</button>
                <button id="tl-zoom-in" onclick={Callback::from(move |_| zoom_in(0.5))} aria-label="Zoom in" title="Zoom in (+; Ctrl + wheel)">{ "+" }</button>
                <button id="tl-fit" onclick={Callback::from(move |_| fit(fit_view, true))} title="Show the whole run (0)">{ "fit" }</button>
                <button id="tl-pan-left" onclick={Callback::from(move |_| pan_left(-0.25))} aria-label="Pan left" title="Earlier (drag the lanes, or ←)">{ "◀" }</button>
                <button id="tl-pan-right" onclick={Callback::from(move |_| pan_right(0.25))} aria-label="Pan right" title="Later (→)">{ "▶" }</button>
                <button id="tl-follow" aria-pressed={following.to_string()} onclick={Callback::from(move |_| toggle_follow(Some(v), !following))}
                    title="Turn the page when the current time leaves the view">{ "follow now" }</button>
                <span id="tl-range" class="hint">{ format!("{} – {}", range_label(tf, v.from, step), range_label(tf, v.to, step)) }</span>
                <label class="tl-filter">
                    <span class="visually-hidden">{ "filter lanes by operator or key" }</span>
                    <input id="tl-filter" type="search" placeholder="filter keys" value={(*filter).clone()} oninput={on_filter} size="12"
                        aria-label="filter lanes by operator or key" />
                </label>
            </div>
            <svg id="tl-axis" class="axis" ref={axis_ref} width={w.to_string()} height={axis_h.to_string()} role="img"
                aria-label={format!("time axis from {} to {}", tf.format(v.from), tf.format(v.to))}
                onpointermove={pointer.on_move.clone()} onpointerup={pointer.on_up.clone()} onpointercancel={pointer.on_up.clone()}>
                { for axis.iter().map(|t| html! {
                    <g class="tick">
                        <line x1={format!("{:.1}", t.x)} x2={format!("{:.1}", t.x)} y1="17" y2={axis_h.to_string()} />
                        if let Some(left) = t.label_left {
                            <text x={format!("{left:.1}")} y="13">{ &t.label }</text>
                        }
                    </g>
                }) }
                if now_shown {
                    <g class="now">
                        <line x1={format!("{now_x:.1}")} x2={format!("{now_x:.1}")} y1="17" y2={axis_h.to_string()} />
                        if let Some(left) = now_left {
                            <text id="tl-now" x={format!("{left:.1}")} y="29">{ &now_label }</text>
                        }
                    </g>
                }
                if sources.len() > 1 {
                    { for sources.iter().enumerate().map(|(row, name)| html! {
                        <text class="source-name" x="4" y={format!("{:.1}", 49.0 + SOURCE_ROW_H * row as f64)}
                            data-source={name.to_string()}>{ *name }</text>
                    }) }
                }
                { inputs_view(&tl.inputs, sim.scenario(), &sources, (&scale, tf, step), &pointer, &dispatch) }
            </svg>
            <div class="scroll" onscroll={on_scroll}>
                <svg id="tl-lanes" class="lanes timeline-keys" ref={lanes_ref} width={w.to_string()} height={lanes_h.to_string()}
                    tabindex="0" role="list" aria-label="Lanes: one per operator and key (+ − 0 zoom, ← → pan)"
                    onkeydown={on_plot_key} onpointerdown={pointer.on_pan_start.clone()}
                    onpointermove={pointer.on_move.clone()} onpointerup={pointer.on_up.clone()} onpointercancel={pointer.on_up}>
                    <defs><clipPath id="tl-plot"><rect x={(scale.left - 8.0).to_string()} y="0"
                        width={(scale.right - scale.left + 16.0).to_string()} height={lanes_h.to_string()} /></clipPath></defs>
                    { for axis.iter().map(|t| html! {
                        <line class="grid" x1={format!("{:.1}", t.x)} x2={format!("{:.1}", t.x)} y1="0" y2={lanes_h.to_string()} />
                    }) }
                    { for tl.lanes.iter().enumerate().skip(first).take(last.saturating_sub(first)).map(|(i, lane)| {
                        let op = sim.scenario().operators.iter().position(|n| n.id == lane.op);
                        let inspect = op.filter(|_| props.inspectable).map(|op| {
                            let key = lane.key.clone();
                            dispatch.reform(move |_: ()| Action::Inspect { op, key: key.clone() })
                        });
                        lane_view(lane, layout.lane_h * i as f64, layout, &scale, tf, inspect)
                    }) }
                    if tl.lanes.is_empty() {
                        <text class="empty" x={scale.left.to_string()} y="26">
                            { if filter.trim().is_empty() { "No keyed state yet: press Step." } else { "No lane matches the filter." } }
                        </text>
                    }
                    if now_shown && layout.label_w > 0.0 {
                        <line class="now-line" x1={format!("{now_x:.1}")} x2={format!("{now_x:.1}")} y1="0" y2={lanes_h.to_string()} />
                    }
                    // Narrow, each lane's label is a line of text above its marks: the now line
                    // passes each lane below its label, not through it.
                    if now_shown && layout.label_w == 0.0 {
                        { for (first..last.min(tl.lanes.len())).map(|i| {
                            let top = layout.lane_h * i as f64;
                            html! {
                                <line class="now-line" x1={format!("{now_x:.1}")} x2={format!("{now_x:.1}")}
                                    y1={format!("{:.1}", top + 17.0)} y2={format!("{:.1}", top + layout.lane_h)} />
                            }
                        }) }
                    }
                </svg>
            </div>
            <p class="hint" id="lanes-note">
                { format!("{} lane{}", tl.lanes.len(), if tl.lanes.len() == 1 { "" } else { "s" }) }
                if tl.filtered_out > 0 { { format!(", {} not matching the filter", tl.filtered_out) } }
                if tl.hidden_lanes > 0 {
                    <span id="hidden-lanes">{ format!("; {} more keys touched earlier are not drawn (the {} most recently touched are; filter to find one)", tl.hidden_lanes, tl.lanes.len()) }</span>
                }
                { "." }
                <span class="lanes-why">{ " Lanes come from the last actions the page keeps; older history is replayed by the engine when you go back." }</span>
            </p>
        </section>
    }
}

/// The pointer handlers of the axis (moving inputs) and the lanes (panning).
pub(super) struct Pointer {
    pub(super) on_input_start: Callback<(PointerEvent, usize, Millis)>,
    on_pan_start: Callback<PointerEvent>,
    on_move: Callback<PointerEvent>,
    on_up: Callback<PointerEvent>,
}

/// `x` of a pointer event relative to the element `of` (Yew delegates events, so the event's
/// current target is not the element its handler is on).
fn local_x(e: &PointerEvent, of: &NodeRef) -> f64 {
    let left = of.cast::<web_sys::Element>().map_or(0.0, |el| el.get_bounding_client_rect().left());
    f64::from(e.client_x()) - left
}

/// Sends the pointer's later events to `to` until it is released.
fn capture(e: &PointerEvent, to: &NodeRef) {
    if let Some(el) = to.cast::<web_sys::Element>() {
        // A synthetic or already-ended pointer cannot be captured; the drag works without.
        let _ = el.set_pointer_capture(e.pointer_id());
    }
}

fn pointer_handlers(
    drag: &Rc<RefCell<Option<Drag>>>,
    drawn: &Rc<RefCell<Option<Drawn>>>,
    dispatch: &Callback<Action>,
    set_view: &(impl Fn(Option<Viewport>, bool) + Clone + 'static),
    [axis, lanes]: [NodeRef; 2],
) -> Pointer {
    let on_input_start = {
        let (drag, drawn, axis) = (drag.clone(), drawn.clone(), axis.clone());
        Callback::from(move |(e, step, at): (PointerEvent, usize, Millis)| {
            e.prevent_default();
            let Some(d) = *drawn.borrow() else { return };
            // Captured by the axis (the input's own element is redrawn at every move).
            capture(&e, &axis);
            *drag.borrow_mut() = Some(Drag::Input { step, at, moved: false, view: d.view });
        })
    };
    let on_pan_start = {
        let (drag, drawn, lanes) = (drag.clone(), drawn.clone(), lanes.clone());
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            let Some(d) = *drawn.borrow() else { return };
            capture(&e, &lanes);
            *drag.borrow_mut() =
                Some(Drag::Pan { start_x: local_x(&e, &lanes), view: d.view, ms_per_px: d.scale.ms_per_px() });
        })
    };
    let on_move = {
        let (drag, drawn, dispatch, set_view) = (drag.clone(), drawn.clone(), dispatch.clone(), set_view.clone());
        Callback::from(move |e: PointerEvent| {
            let Some(d) = *drawn.borrow() else { return };
            let current = *drag.borrow();
            match current {
                Some(Drag::Input { step, at, view, .. }) => {
                    let scale = Scale { from: view.from, to: view.to, ..d.scale };
                    let t = snap(scale.t(local_x(&e, &axis)), snap_step(d.step)).clamp(d.domain.from, d.domain.to);
                    if t != at {
                        *drag.borrow_mut() = Some(Drag::Input { step, at: t, moved: true, view });
                        dispatch.emit(Action::MoveInput { step, at_ms: t, done: false });
                    }
                }
                Some(Drag::Pan { start_x, view, ms_per_px }) => {
                    let by = ((start_x - local_x(&e, &lanes)) * ms_per_px) as Millis;
                    if by != 0 {
                        set_view(Some(view.pan(by, d.domain)), false);
                    }
                }
                None => {}
            }
        })
    };
    let on_up = {
        let (drag, dispatch) = (drag.clone(), dispatch.clone());
        Callback::from(move |_: PointerEvent| {
            let ended = drag.borrow_mut().take();
            if let Some(Drag::Input { step, at, moved: true, .. }) = ended {
                dispatch.emit(Action::MoveInput { step, at_ms: at, done: true });
            }
        })
    };
    Pointer { on_input_start, on_pan_start, on_move, on_up }
}

/// Keeps `width` at the element's width, told by a `ResizeObserver` (after the browser's own
/// layout, at mount and on every resize): reading `clientWidth` after each render instead forces a
/// layout of the whole page in the middle of every Step.
#[hook]
fn use_width(root: &NodeRef, width: &UseStateHandle<f64>) {
    let (root, width) = (root.clone(), width.clone());
    use_effect_with((), move |_| {
        let observed = root.cast::<web_sys::Element>().and_then(|el| {
            let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                let entry = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>().ok();
                if let Some(w) = entry.map(|e| e.target().client_width()).filter(|w| *w > 0) {
                    width.set(f64::from(w));
                }
            });
            let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
            observer.observe(&el);
            Some((observer, on_resize))
        });
        move || {
            if let Some((observer, _on_resize)) = observed {
                observer.disconnect();
            }
        }
    });
}

/// Ctrl (or ⌘) + wheel over the lanes zooms around the pointer; a sideways wheel (or Shift +
/// wheel) pans. A plain wheel scrolls the page and the lanes as usual. Registered by hand, not
/// passive, so the browser's own zoom is kept out.
#[hook]
fn use_wheel_zoom(
    lanes: &NodeRef,
    drawn: &Rc<RefCell<Option<Drawn>>>,
    view: &UseStateHandle<Option<Viewport>>,
    follow: &UseStateHandle<bool>,
) {
    let (lanes, drawn, view, follow) = (lanes.clone(), drawn.clone(), view.clone(), follow.clone());
    use_effect_with((), move |_| {
        let listener = lanes.cast::<web_sys::Element>().map(|el| {
            let options = gloo_events::EventListenerOptions::enable_prevent_default();
            gloo_events::EventListener::new_with_options(&el, "wheel", options, move |e| {
                let (Some(e), Some(d)) = (e.dyn_ref::<web_sys::WheelEvent>(), *drawn.borrow()) else { return };
                let sideways = e.shift_key() || e.delta_x().abs() > e.delta_y().abs();
                if e.ctrl_key() || e.meta_key() {
                    e.prevent_default();
                    let rect = e.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
                    let x = f64::from(e.client_x()) - rect.map_or(0.0, |r| r.get_bounding_client_rect().left());
                    let factor = if e.delta_y() < 0.0 { 0.8 } else { 1.25 };
                    view.set(Some(d.view.zoom(factor, d.scale.t(x), d.domain)));
                } else if sideways {
                    e.prevent_default();
                    let delta = if e.shift_key() && e.delta_x() == 0.0 { e.delta_y() } else { e.delta_x() };
                    view.set(Some(d.view.pan((delta * d.scale.ms_per_px()) as Millis, d.domain)));
                    follow.set(false);
                }
            })
        });
        move || drop(listener)
    });
}
