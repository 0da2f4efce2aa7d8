//! The scenario editor: the table of inputs and settings (`input_table`), open, and the scenario
//! for power users, editable as JSON or as SQL (`sql_editor`); Load validates the JSON with the
//! engine and shows the error (field and rule) without losing the text. Both show the loaded
//! scenario: an edit applied in the table is in the JSON at once. Switching between JSON and SQL
//! loads the scenario's other form at the same position ([`crate::ui::sql_state`]).

use super::sql_editor::SqlEditor;
use crate::ui::state::{Action, AppState, EditorMode};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

pub fn view(state: &AppState, dispatch: &Callback<Action>, editor_ref: &NodeRef, details_ref: &NodeRef) -> Html {
    let on_load = {
        let editor_ref = editor_ref.clone();
        dispatch.reform(move |_: MouseEvent| {
            Action::LoadJson(editor_ref.cast::<HtmlTextAreaElement>().map(|t| t.value()).unwrap_or_default())
        })
    };
    let mode = state.sql.mode;
    let tab = |id: &'static str, label: &'static str, to: EditorMode, title: &'static str| {
        let pressed = mode == to;
        html! {
            <button id={id} class={classes!("mode", pressed.then_some("on"))} aria-pressed={pressed.to_string()}
                title={title} onclick={dispatch.reform(move |_: MouseEvent| Action::SetEditorMode(to))}>{ label }</button>
        }
    };
    html! {
        <>
        <details class="inputs" open=true>
            <summary>{ "Inputs and settings: add, edit and delete the scenario's steps" }</summary>
            { super::input_table::view(state, dispatch) }
        </details>
        // Opened by the user, or by the App when a scenario is refused; never closed for them.
        <details class="editor" ref={details_ref.clone()}>
            <summary>{ "Scenario (JSON or SQL): edit and load your own" }</summary>
            <div class="modes" role="group" aria-label="the scenario's form">
                { tab("mode-json", "JSON", EditorMode::Json, "The whole scenario as JSON; a SQL scenario shows the pipeline its SQL is planned into") }
                { tab("mode-sql", "SQL", EditorMode::Sql, "The scenario's query as Flink SQL, planned as you type") }
            </div>
            <div class="json-form" hidden={mode != EditorMode::Json}>
                <p class="hint">{ "Format: docs/scenario-format.md. Times are processing time (ms or ISO-8601 UTC); durations use Flink's syntax (\"5 min\", \"1 d\")." }</p>
                // Not bound to a `value`: the App writes the loaded scenario into it, and whatever the
                // user typed stays there across re-renders and failed loads.
                <textarea id="scenario-json" ref={editor_ref.clone()} rows="18" spellcheck="false" />
                <div><button id="load" onclick={on_load}>{ "Load" }</button></div>
            </div>
            if mode == EditorMode::Sql {
                <SqlEditor json={state.json.clone()} note={state.sql.note.clone()} dispatch={dispatch.clone()} />
            }
            if let Some(err) = &state.scenario_error {
                <div class="error" id="scenario-error" role="alert">{ err }</div>
            }
        </details>
        </>
    }
}
