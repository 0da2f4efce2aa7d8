//! Title bar: preset and Flink version choosers, the scenario's title and description.

use crate::engine::presets::PRESETS;
use crate::engine::scenario::describe_retention;
use crate::engine::FlinkMode;
use crate::ui::state::{Action, AppState};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

pub fn view(state: &AppState, dispatch: &Callback<Action>) -> Html {
    let on_preset =
        dispatch.reform(|e: Event| Action::SelectPreset(e.target_unchecked_into::<HtmlSelectElement>().value()));
    let on_flink = dispatch.reform(|e: Event| Action::SetFlink(e.target_unchecked_into::<HtmlSelectElement>().value()));
    let scenario = state.sim.as_ref().map(|s| s.scenario());
    let flink = scenario.map(|s| s.flink);
    html! {
        <header>
            <div class="bar">
                <h1>{ "flink-state-sim" }</h1>
                <label>{ "preset " }
                    <select id="preset-select" onchange={on_preset}>
                        if state.preset.is_none() {
                            <option value="" selected=true disabled=true>{ "custom scenario" }</option>
                        }
                        { for PRESETS.iter().map(|(name, _)| html! {
                            <option value={*name} selected={state.preset == Some(*name)}>{ *name }</option>
                        }) }
                    </select>
                </label>
                <label>{ "Flink " }
                    <select id="flink-select" onchange={on_flink}>
                        { for FlinkMode::ALL.iter().map(|m| html! {
                            <option value={m.id()} selected={flink == Some(*m)}>{ m.label() }</option>
                        }) }
                    </select>
                </label>
            </div>
            if let Some(s) = scenario {
                <div class="scenario">
                    <strong id="scenario-title">{ &s.title }</strong>
                    <span class="retention" id="retention">{ describe_retention(&s.retention) }</span>
                    <p class="description">{ &s.description }</p>
                </div>
            }
        </header>
    }
}
