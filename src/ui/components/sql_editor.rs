//! The editor's SQL form: the loaded scenario's query (`SET`s, views, one query) in a
//! monospace text box with line numbers, re-planned by the engine on every input, with under it
//! the plan (Flink's `EXPLAIN CHANGELOG_MODE` text) or the engine's error, whose line is marked
//! in the box (its number, a band behind the line, and a caret under the column). Apply loads
//! the planned scenario as the JSON editor's Load does (`Action::LoadJson`).
//!
//! The draft lives in this component, so typing re-renders the editor only, not the page.

use crate::ui::sql_state::{plan_draft, sql_of, Planned};
use crate::ui::state::Action;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

/// The height of a line in the text box and its gutter (www/style.css: `.sql-box`), and the
/// box's top padding, in CSS pixels: where the band behind a line goes.
const LINE_PX: u64 = 18;
const PAD_PX: u64 = 6;

#[derive(Properties, PartialEq, Clone)]
pub struct SqlEditorProps {
    /// The loaded scenario's text: the draft starts as its `"sql"` (empty for a JSON pipeline).
    pub json: String,
    /// Why the scenario's SQL cannot be shown (switched from a JSON pipeline).
    pub note: Option<String>,
    pub dispatch: Callback<Action>,
}

#[component]
pub fn SqlEditor(props: &SqlEditorProps) -> Html {
    let draft = use_state_eq(|| sql_of(&props.json).unwrap_or_default());
    {
        // A newly loaded scenario (a preset, an applied draft, a Load) replaces the draft.
        let draft = draft.clone();
        use_effect_with(props.json.clone(), move |json| draft.set(sql_of(json).unwrap_or_default()));
    }
    let planned = {
        let key = (props.json.clone(), (*draft).clone());
        use_memo(key, |(json, sql)| plan_draft(json, sql))
    };
    let on_input = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(t) = e.target_dyn_into::<HtmlTextAreaElement>() {
                draft.set(t.value());
            }
        })
    };
    let line_count = draft.split('\n').count().max(1);
    let bad = match &*planned {
        Planned::Error { at: Some((line, column)), .. } => Some((*line, *column)),
        _ => None,
    };
    let gutter = (1..=line_count as u64).map(|n| {
        let class = classes!("ln", (bad.map(|b| b.0) == Some(n)).then_some("bad"));
        html! { <span class={class}>{ n }</span> }
    });
    let band = bad.filter(|(line, _)| *line as usize <= line_count).map(|(line, _)| {
        let style = format!("top: {}px; height: {LINE_PX}px", PAD_PX + (line - 1) * LINE_PX);
        html! { <div class="sql-band" id="sql-band" data-line={line.to_string()} style={style} /> }
    });
    let apply = match &*planned {
        Planned::Plan { scenario, .. } if sql_of(&props.json).as_deref() != Some(draft.as_str()) => {
            let scenario = scenario.clone();
            Some(props.dispatch.reform(move |_: MouseEvent| Action::LoadJson(scenario.clone())))
        }
        _ => None,
    };
    let below = match &*planned {
        Planned::Empty => html! {
            <p class="hint" id="sql-empty">{ "Write a query over the scenario's source table: its plan shows here as you type." }</p>
        },
        Planned::Plan { explain, notes, .. } => html! {
            <>
                <pre class="sql-plan" id="sql-plan" aria-label="the plan (EXPLAIN CHANGELOG_MODE)">{ explain.trim_end() }</pre>
                { for notes.iter().map(|n| html! { <p class="hint plan-note">{ format!("Note: {n}") }</p> }) }
            </>
        },
        Planned::Error { message, at } => html! {
            <>
                <div class="error" id="sql-error" role="alert">{ message }</div>
                if let Some((line, column)) = at {
                    <pre class="sql-caret" id="sql-caret">{ caret(&draft, *line, *column) }</pre>
                }
            </>
        },
    };
    html! {
        <div class="sql-editor">
            if let Some(note) = &props.note {
                <p class="files-note" id="sql-note">{ note }</p>
            }
            <p class="hint">{ "SET 'option' = 'value'; statements, CREATE TEMPORARY VIEW v AS …; then one query over the source table. Planned as Flink 2.3 plans it, as you type." }</p>
            <div class="sql-box">
                <div class="sql-gutter" aria-hidden="true">{ for gutter }</div>
                <div class="sql-text">
                    { for band }
                    <textarea id="scenario-sql" rows={line_count.max(6).to_string()} wrap="off" spellcheck="false"
                        aria-label="the scenario's SQL" value={(*draft).clone()} oninput={on_input} />
                </div>
            </div>
            <div>
                <button id="apply-sql" disabled={apply.is_none()} onclick={apply}
                    title="Run this SQL: the scenario's query is replaced and the run starts over">{ "Apply" }</button>
            </div>
            { below }
        </div>
    }
}

/// The line `line` of `text` with its number, and a caret under column `column` (1-based, in
/// characters): `  3 | SELECT k FRM t` / `    |          ^`.
fn caret(text: &str, line: u64, column: u64) -> String {
    let Some(source) = text.split('\n').nth(line.saturating_sub(1) as usize) else {
        return String::new();
    };
    let number = line.to_string();
    let pad = " ".repeat(number.len());
    let before: String =
        source.chars().take(column.saturating_sub(1) as usize).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
    format!("{number} | {source}\n{pad} | {before}^")
}
