//! Title bar: preset and Flink version choosers (a refused version is said next to the chooser,
//! with the engine's conversion when it has one), the file and link buttons, the scenario's title
//! and description.

use crate::engine::error::shown_text;
use crate::engine::presets::PRESETS;
use crate::engine::scenario::describe_retentions;
use crate::engine::FlinkMode;
use crate::ui::persist;
use crate::ui::state::{Action, AppState};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// `on_flink` receives the chosen Flink version; the App applies it to the editor's text.
/// `on_tour` opens the guided tour ([`super::tour`]).
pub fn view(
    state: &UseReducerHandle<AppState>,
    dispatch: &Callback<Action>,
    on_flink: &Callback<String>,
    on_tour: &Callback<MouseEvent>,
) -> Html {
    let on_preset =
        dispatch.reform(|e: Event| Action::SelectPreset(e.target_unchecked_into::<HtmlSelectElement>().value()));
    let on_flink = on_flink.reform(|e: Event| e.target_unchecked_into::<HtmlSelectElement>().value());
    let sim = state.sim.as_ref().map(|s| s.get());
    let scenario = sim.as_ref().map(|s| s.scenario());
    let flink = scenario.map(|s| s.flink);
    // The version this preset was written for, when the page now runs it on another one.
    let written_for = state.preset_flink.filter(|written| Some(*written) != flink);
    // Keyed on the state's version: a refused choice re-renders the selects with what runs.
    let key = state.version.to_string();
    html! {
        <header>
            <div class="bar">
                <h1>{ "flink-state-sim" }</h1>
                <label>{ "preset " }
                    <select id="preset-select" key={format!("p{key}")} onchange={on_preset}>
                        if state.preset.is_none() {
                            <option value="" selected=true disabled=true>{ "custom scenario" }</option>
                        }
                        { for PRESETS.iter().map(|(name, _)| html! {
                            <option value={*name} selected={state.preset == Some(*name)}>{ *name }</option>
                        }) }
                    </select>
                </label>
                <span class="flink-choice">
                    <label>{ "Flink " }
                        <select id="flink-select" key={format!("f{key}")} onchange={on_flink}
                            aria-describedby={state.files.flink_refusal.as_ref().map(|_| "flink-error")}>
                            { for FlinkMode::ALL.iter().map(|m| html! {
                                <option value={m.id()} selected={flink == Some(*m)}>{ m.label() }</option>
                            }) }
                        </select>
                    </label>
                    { flink_refusal(state, dispatch) }
                </span>
                { files_bar(state, dispatch) }
            </div>
            { files_notes(state, dispatch) }
            if let Some(s) = scenario {
                <div class="scenario">
                    <strong id="scenario-title">{ shown_text(&s.title, TITLE_MAX_CHARS).into_owned() }</strong>
                    if state.edited_preset().is_some() {
                        <span class="edited" id="scenario-edited">{ format!(" — edited from the preset {}; the title, description and What to watch are the preset's, \
                            and their numbers may not match this run", s.name) }</span>
                    }
                    <span class="retention" id="retention">{ describe_retentions(s) }</span>
                    <button id="tour-open" class="tour-open" onclick={on_tour.clone()}
                        title="A short guided tour of seed 001: the cleanup-timer rule with its numbers">{ "▶ Tour" }</button>
                    if let Some(w) = written_for {
                        <p class="note" id="flink-note">{ format!(
                            "This preset was written for {}; it now runs on {}, so its title and description may not match.",
                            w.label(), s.flink.label()) }</p>
                    }
                    { description(&s.description, &s.name) }
                    if !s.watch.is_empty() {
                        <p class="watch" id="scenario-watch"><strong>{
                            if state.edited_preset().is_some() { "What to watch (in the preset as it ships): " } else { "What to watch: " }
                        }</strong>{ shown_text(&s.watch, TEXT_MAX_CHARS).into_owned() }</p>
                    }
                </div>
            }
        </header>
    }
}

/// Longer descriptions than this open on request: the controls stay near the top.
const SHORT_DESCRIPTION: usize = 320;

/// The most characters of a scenario's title the page shows (a link's title is anyone's).
pub const TITLE_MAX_CHARS: usize = 200;
/// The most characters of its description or What to watch.
pub const TEXT_MAX_CHARS: usize = 4000;

/// The scenario's description: whole when short, else its start with the rest on request.
fn description(text: &str, key: &str) -> Html {
    if text.chars().count() <= SHORT_DESCRIPTION {
        return html! { <p class="description" id="scenario-description">{ shown_text(text, TEXT_MAX_CHARS).into_owned() }</p> };
    }
    let cut = text.char_indices().nth(SHORT_DESCRIPTION / 2).map_or(text.len(), |(i, _)| i);
    let start = text[..cut].rfind(' ').map_or(&text[..cut], |space| &text[..space]);
    html! {
        // Keyed by the scenario: another one opens closed.
        <details class="description" id="scenario-description" key={key.to_string()}>
            <summary><span class="start">{ format!("{} … ", shown_text(start, TEXT_MAX_CHARS)) }</span><span class="more">{ "more" }</span><span class="less">{ "less" }</span></summary>
            <p>{ shown_text(text, TEXT_MAX_CHARS).into_owned() }</p>
        </details>
    }
}

/// The Flink chooser's refusal, once, as a popover under the chooser (the page does not move),
/// with a one-click conversion when the engine has one.
fn flink_refusal(state: &AppState, dispatch: &Callback<Action>) -> Html {
    let Some(r) = &state.files.flink_refusal else { return html! {} };
    let running = state.sim.as_ref().map(|s| s.get().scenario().flink.label()).unwrap_or_default();
    html! {
        <div class="popover" id="flink-error" role="alert">
            <p>{ format!("Not switched to {} (still running {running}): {}", r.flink.label(), r.error) }</p>
            if let Some(c) = &r.conversion {
                <p class="conversion">
                    <button id="convert" onclick={dispatch.reform(|_| Action::ApplyConversion)}>
                        { format!("Convert and run on {}", r.flink.label()) }
                    </button>
                    <span id="conversion-summary">{ &c.summary }</span>
                </p>
            }
            <button class="close" aria-label="Close" onclick={dispatch.reform(|_| Action::DismissFlinkRefusal)}>{ "×" }</button>
        </div>
    }
}

/// Export, import and copy-link.
fn files_bar(state: &UseReducerHandle<AppState>, dispatch: &Callback<Action>) -> Html {
    let on_export = {
        let (state, dispatch) = (state.clone(), dispatch.clone());
        Callback::from(move |_: MouseEvent| persist::export(&state, dispatch.clone()))
    };
    let on_export_sql = {
        let (state, dispatch) = (state.clone(), dispatch.clone());
        Callback::from(move |_: MouseEvent| persist::export_sql(&state, dispatch.clone()))
    };
    let on_copy = {
        let (state, dispatch) = (state.clone(), dispatch.clone());
        Callback::from(move |_: MouseEvent| persist::copy_link(&state, dispatch.clone()))
    };
    let on_import = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| persist::import(e.target_unchecked_into::<HtmlInputElement>(), dispatch.clone()))
    };
    let refused = state.sim.as_ref().and_then(|s| s.sql_refusal(&state.json));
    let sql_refused = refused.is_some();
    let sql_title = match refused {
        Some(why) => format!("Cannot export to Flink SQL: {why}"),
        None => "Export to Flink SQL: a script that runs this scenario unchanged in Flink 2.3's SQL client".into(),
    };
    html! {
        <span class="files" role="group" aria-label="Files and links">
            <button id="export" onclick={on_export} disabled={state.sim.is_none()}
                title={format!("Download the scenario as {}", persist::file_name(state))}>{ "⤓ Export" }</button>
            // Disabled, saying why, when the scenario's settings have no Flink 2.3 SQL (trial 23:
            // its tooltip promised a script, a click gave a refusal). The span carries the reason
            // where a disabled button shows no tooltip.
            <span title={sql_title.clone()}>
                <button id="export-sql" onclick={on_export_sql} disabled={state.sim.is_none() || sql_refused}
                    title={sql_title}>{ "⤓ Flink SQL" }</button>
            </span>
            <label class="button" for="import" title="Load a scenario JSON file">{ "⤒ Import" }</label>
            <input id="import" class="visually-hidden" type="file" accept=".json,application/json" onchange={on_import} />
            <button id="copy-link" onclick={on_copy}
                title="Copy a link to this scenario at this step">{ "↗ Copy link" }</button>
        </span>
    }
}

/// The note about files and links, and the autosave's problem.
fn files_notes(state: &AppState, dispatch: &Callback<Action>) -> Html {
    html! {
        <>
            if let Some(note) = &state.files.note {
                <div id="files-note" class={classes!("files-note", note.error.then_some("error"))}
                    role={if note.error { "alert" } else { "status" }}>
                    <span>{ &note.text }</span>
                    <button class="close" aria-label="Dismiss" onclick={dispatch.reform(|_| Action::DismissFilesNote)}>{ "×" }</button>
                </div>
            }
            if let Some(long) = state.files.long_link {
                <div id="long-link" class="files-note" role="status">{ long.text() }</div>
            }
            if let Some(problem) = &state.files.storage_error {
                <div id="storage-error" class="files-note error" role="alert">{ problem }</div>
            }
            { crate::ui::far::view(state, dispatch) }
        </>
    }
}
