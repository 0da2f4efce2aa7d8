//! Title bar: preset and Flink version choosers, the scenario's title and description.

use crate::engine::presets::PRESETS;
use crate::engine::scenario::describe_retentions;
use crate::engine::FlinkMode;
use crate::ui::state::{Action, AppState};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// `on_flink` receives the chosen Flink version; the App applies it to the editor's text.
pub fn view(state: &AppState, dispatch: &Callback<Action>, on_flink: &Callback<String>) -> Html {
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
                <label>{ "Flink " }
                    <select id="flink-select" key={format!("f{key}")} onchange={on_flink}>
                        { for FlinkMode::ALL.iter().map(|m| html! {
                            <option value={m.id()} selected={flink == Some(*m)}>{ m.label() }</option>
                        }) }
                    </select>
                </label>
            </div>
            if let Some(s) = scenario {
                <div class="scenario">
                    <strong id="scenario-title">{ &s.title }</strong>
                    <span class="retention" id="retention">{ describe_retentions(s) }</span>
                    if let Some(w) = written_for {
                        <p class="note" id="flink-note">{ format!(
                            "This preset was written for {}; it now runs on {}, so its title and description may not match.",
                            w.label(), s.flink.label()) }</p>
                    }
                    <p class="description">{ &s.description }</p>
                    if !s.watch.is_empty() {
                        <p class="watch" id="scenario-watch"><strong>{ "What to watch: " }</strong>{ &s.watch }</p>
                    }
                </div>
            }
        </header>
    }
}
