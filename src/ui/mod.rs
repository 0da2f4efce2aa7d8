//! The Yew page (wasm only). It drives the engine and displays what the engine says; no Flink
//! rule is decided here.

mod autosave;
pub mod clock;
pub mod components;
pub mod crash;
pub mod deferred;
pub mod drive_state;
pub mod embed;
pub mod far;
pub mod files;
pub mod files_state;
pub mod idle;
pub mod mount;
pub mod persist;
pub mod scrub_far;
pub mod settled;
pub mod sql_state;
pub mod state;
pub mod to_end;

use crate::engine::time::Millis;
use components::bookmarks::BookmarksPanel;
use components::compare::ComparePanel;
use components::timeline::Timeline;
use components::tour::Tour;
use components::what_if::WhatIfPanel;
use components::{controls, editor, happened, header, keys, operators, result, scrubber};
use gloo_timers::callback::Interval;
use state::{Action, AppState, SPEEDS};
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// Defines `<flink-state-sim>` and mounts the app into `#app` when the page has one (test pages
/// and pages that only embed simulators do not): the whole page, or with `?embed` the simulator
/// alone ([`embed`]).
#[wasm_bindgen(start)]
pub fn start() {
    mount::define_element(None);
    let document = web_sys::window().and_then(|w| w.document());
    let Some(root) = document.as_ref().and_then(|d| d.get_element_by_id("app")) else { return };
    let props = match embed::from_location() {
        Some(embed) => {
            if let Some(html) = document.and_then(|d| d.document_element()) {
                let _ = html.class_list().add_1("fss-embedded");
            }
            AppProps { persist: false, embed: Some(embed) }
        }
        None => AppProps { persist: true, embed: None },
    };
    yew::Renderer::<App>::with_root_and_props(root, props).render();
}

/// The range a link asks the timeline for, and the callback told the range the user chose.
type RangeControl<'a> = (Option<crate::engine::time_axis::Viewport>, &'a Callback<Option<(Millis, Millis)>>);

/// Everything that shows the simulation's state; `on_view` is told the timeline's time range,
/// `range` the link's range and its callback ([`components::timeline::Props::request`]).
fn simulation_view(
    timeline_version: u64,
    handle: &state::SimHandle,
    dispatch: &Callback<Action>,
    on_view: &Callback<(Millis, Millis)>,
    deferred: u64,
    range: RangeControl,
) -> Html {
    html! {
        <>
            <Timeline sim={handle.clone()} version={timeline_version} dispatch={dispatch.clone()} on_view={on_view.clone()}
                request={range.0} on_chosen={range.1.clone()} inspectable={true} />
            <Cards sim={handle.clone()} version={deferred} />
        </>
    }
}

/// What happened, the operator cards and the result, at the page state's version `version`.
#[derive(Properties, Clone)]
struct CardsProps {
    sim: state::SimHandle,
    version: u64,
}

impl PartialEq for CardsProps {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
    }
}

#[component]
fn Cards(props: &CardsProps) -> Html {
    let sim = props.sim.get();
    let sim = &*sim;
    html! {
        <div class="columns">
            { happened::view(sim) }
            <div class="flow">
                { operators::view(sim) }
                { result::view(sim) }
            </div>
        </div>
    }
}

/// The retraction flow, the charts (over the timeline's time range `view`) and the state
/// inspector ([`components::flow`], [`components::charts`], [`components::inspector`]).
fn see_view(
    handle: &state::SimHandle,
    version: u64,
    view: Option<(Millis, Millis)>,
    inspect: Option<drive_state::Inspect>,
) -> Html {
    use components::charts::SimCharts;
    use components::flow::RetractionFlow;
    use components::inspector::StateInspector;
    html! {
        <>
            <RetractionFlow sim={handle.clone()} version={version} />
            <SimCharts sim={handle.clone()} version={version} view={view} />
            <StateInspector sim={handle.clone()} version={version} inspect={inspect} />
        </>
    }
}

/// How the App is mounted.
#[derive(Properties, PartialEq, Clone, Default)]
pub struct AppProps {
    /// Keep the URL (permalink, Back / Forward) and the autosave in step with the page, and open
    /// what they hold ([`persist`]). On for the page itself; off by default, so an embedded
    /// simulator, or a test's, leaves the URL and the storage alone.
    #[prop_or_default]
    pub persist: bool,
    /// Embedded in another page ([`embed`]): the simulator alone, its state reachable from the
    /// `mount` handle. Never together with `persist`.
    #[prop_or_default]
    pub embed: Option<std::rc::Rc<embed::Embed>>,
}

/// The whole page.
#[component]
pub fn App(props: &AppProps) -> Html {
    let persist = props.persist;
    let initial = props.embed.clone();
    let state = use_reducer(move || match (persist, initial) {
        (true, _) => persist::initial_state(),
        (false, Some(embed)) => embed.initial_state(),
        (false, None) => AppState::default(),
    });
    // The timeline's range the user chose, for the permalink's `t=`; a link's range to open on.
    let chosen_range = use_state_eq(|| None::<(Millis, Millis)>);
    // Not when the link's scenario could not be opened (its note says why; the range was the
    // link scenario's, and refusing it on another would hide that note).
    let link_range = {
        let (embed, opened) = (props.embed.clone(), state.files.note.is_none());
        *use_state(move || {
            let range = match embed {
                Some(embed) => embed.range(),
                None => persist.then(persist::link_range).flatten(),
            };
            range.filter(|_| opened)
        })
    };
    let on_chosen = use_callback(chosen_range.setter(), |range: Option<(Millis, Millis)>, set| set.set(range));
    persist::use_persistence(&state, persist, *chosen_range);
    far::use_far(&state);
    to_end::use_to_end(&state);
    scrub_far::use_scrub_far(&state);
    // The panic hook's view of this simulator: its root element and scenario text (`crash`).
    crash::install();
    let crash_id = *use_state(crash::next_id);
    let root_ref = use_node_ref();
    {
        let root_ref = root_ref.clone();
        use_effect_with(state.json.clone(), move |json| {
            if let Some(root) = root_ref.cast::<web_sys::Element>().and_then(|e| e.parent_element()) {
                crash::watch(crash_id, root, json);
            }
        });
        use_effect_with((), move |_| move || crash::unwatch(crash_id));
    }
    // The callbacks the views take are made once (`use_callback`): a new one at each render made
    // the timeline's props differ at every slice of "▶| to end" or a far scrub, so it re-rendered
    // from the run mid-way while it was meant to keep its position (trial 22: "No keyed state
    // yet" in the middle of a scrub).
    let dispatch: Callback<Action> = use_callback(state.dispatcher(), |a, dispatcher| dispatcher.dispatch(a));
    {
        // Play's only clock: an interval while playing, nothing at all while paused.
        let dispatcher = state.dispatcher();
        let speed = SPEEDS[state.drive.speed.min(SPEEDS.len() - 1)];
        use_effect_with((state.playing, speed.interval_ms), move |(playing, interval_ms)| {
            let interval = playing.then(|| Interval::new(*interval_ms, move || dispatcher.dispatch(Action::Tick)));
            move || drop(interval)
        });
    }
    // The page's keys; an embedded simulator takes keys only while focused (`embed::view`).
    keys::use_keys(dispatch.clone(), props.embed.is_none());
    let on_scrub = scrubber::use_scrub(dispatch.clone());
    // While "▶| to end" runs, or "Go there" replays a far link (`far`), the timeline and the
    // sections below it keep showing the position the run started from: rendering them after
    // every slice kept the page from answering input within 50 ms at 1 M steps (and from ever
    // being settled). The controls and the progress bar move; the views catch up when the run
    // ends or is cancelled.
    let views_version = {
        let kept = use_mut_ref(|| state.version);
        let far_running = state.files.far.as_ref().is_some_and(|f| f.running);
        if state.drive.to_end.is_none() && state.drive.scrub_to.is_none() && !far_running {
            *kept.borrow_mut() = state.version;
        }
        let v = *kept.borrow();
        v
    };
    // The sections below the timeline follow one frame later (`deferred`).
    let deferred = deferred::use_deferred_version(views_version);
    // What the last seek replaced, or a run to the end thinned away, is freed once the deferred
    // sections show, one state per task after the one that showed them: a Back's time does not
    // include it, and no task holds two frees (20-70 ms each on `seed-000-topn-dedup`).
    {
        let sim = state.sim.clone();
        use_effect_with(deferred, move |_| {
            if let Some(sim) = sim {
                to_end::release_in_tasks(sim);
            }
        });
    }
    // The timeline's time range on show, which the charts follow.
    let timeline_view = use_state_eq(|| None::<(Millis, Millis)>);
    let on_view = use_callback(timeline_view.setter(), |range: (Millis, Millis), set| set.set(Some(range)));
    // `data-settled` on the root while nothing scheduled is still to come (`settled`).
    settled::use_settled_marker(&root_ref);
    let editor_ref = use_node_ref();
    let details_ref = use_node_ref();
    let on_flink = {
        let (editor_ref, dispatch) = (editor_ref.clone(), dispatch.clone());
        Callback::from(move |flink: String| {
            let editor_text = editor_ref.cast::<web_sys::HtmlTextAreaElement>().map(|t| t.value()).unwrap_or_default();
            dispatch.emit(Action::SetFlink { flink, editor_text })
        })
    };
    {
        // Open the editor when a scenario is refused, so the reason and the text are in view.
        let details_ref = details_ref.clone();
        use_effect_with(state.scenario_error.is_some(), move |refused| {
            if let (true, Some(details)) = (*refused, details_ref.cast::<web_sys::HtmlDetailsElement>()) {
                details.set_open(true);
            }
        });
    }
    {
        // Show each newly loaded scenario in the editor.
        let editor_ref = editor_ref.clone();
        use_effect_with(state.json.clone(), move |json| {
            if let Some(textarea) = editor_ref.cast::<web_sys::HtmlTextAreaElement>() {
                textarea.set_value(json);
            }
        });
    }
    // The guided tour: by itself on a first visit of the page itself, never in an embed.
    let tour_open = use_state(|| persist && props.embed.is_none() && persist::first_visit());
    {
        let tour_open = *tour_open;
        use_effect_with(tour_open, move |open| {
            if *open {
                persist::mark_tour_seen();
            }
        });
    }
    if let Some(embed) = &props.embed {
        embed.attach(&state);
        let panels = embed::PanelState { on_view: &on_view, view: *timeline_view, deferred, range: link_range };
        return embed::view(&state, &dispatch, embed, &root_ref, &panels);
    }
    let on_tour = {
        let tour_open = tour_open.clone();
        Callback::from(move |_: MouseEvent| tour_open.set(true))
    };
    let on_tour_close = {
        let tour_open = tour_open.clone();
        Callback::from(move |()| tour_open.set(false))
    };
    let position = state.position();
    // Where the page stands in steps of the straight run, when it got there by steps alone.
    let here = position
        .as_ref()
        .filter(|p| p.actions.iter().all(|(a, _)| *a == crate::engine::Action::Step))
        .map(|p| p.action_count());
    let here_in_tour = here.filter(|_| {
        state.preset == Some(crate::engine::presets::DEFAULT_PRESET)
            && position.as_ref().is_some_and(|p| matches!(&p.scenario, files_state::ScenarioRef::Preset(_)))
    });
    let on_jump = {
        let (dispatch, scenario) = (dispatch.clone(), position.map(|p| p.scenario));
        Callback::from(move |step: u64| {
            if let Some(scenario) = scenario.clone() {
                let actions = if step > 0 { vec![(crate::engine::Action::Step, step)] } else { vec![] };
                dispatch.emit(Action::GoTo(files_state::Position { scenario, actions }));
            }
        })
    };
    html! {
        <div class="fss" ref={root_ref}>
            { header::view(&state, &dispatch, &on_flink, &on_tour) }
            { controls::view(&state, &dispatch) }
            { scrubber::view(&state, &dispatch, &on_scrub) }
            { keys::help_with(&state, &dispatch, keys::PAGE_KEYS) }
            if *tour_open {
                <Tour dispatch={dispatch.clone()} here={here_in_tour} on_close={on_tour_close} />
            }
            if state.sim.is_some() {
                <BookmarksPanel json={state.json.clone()} here={here} on_jump={on_jump}
                    busy={state.playing || state.drive.to_end.is_some() || state.drive.scrub_to.is_some() || state.drive.dragging
                        || state.files.far.as_ref().is_some_and(|f| f.running)} />
            }
            if let Some(err) = state.step_error.as_ref().filter(|_| !state.drive.error_from_advance) {
                <div class="error" id="step-error" role="alert">{ err }</div>
            }
            if let Some(handle) = &state.sim {
                { simulation_view(views_version, handle, &dispatch, &on_view, deferred, (link_range, &on_chosen)) }
                { see_view(handle, deferred, *timeline_view, state.drive.inspect.clone()) }
            }
            <ComparePanel json={state.json.clone()} />
            <WhatIfPanel json={state.json.clone()} on_open={dispatch.reform(Action::LoadJson)} />
            { editor::view(&state, &dispatch, &editor_ref, &details_ref) }
        </div>
    }
}
