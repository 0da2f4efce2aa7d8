//! The table editor: the scenario's steps (input rows and advances of processing time) and its
//! retention settings, editable. Each change is applied through the engine's scenario parser
//! (`Action::EditStep` …): a refused change keeps what was typed and shows the engine's error,
//! naming the field and the rule, next to the field; the previous run goes on.

use crate::engine::{FlinkMode, ScenarioError};
use crate::ui::files_state::{cell_text, sources, step_source, Setting, SourceColumns, StepField};
use crate::ui::state::{Action, AppState};
use serde_json::Value;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// The most steps the table shows (the rest stay editable in the JSON).
const MAX_ROWS: usize = 300;

/// The source row kinds a step may carry.
const KINDS: [&str; 4] = ["+I", "-U", "+U", "-D"];

pub fn view(state: &AppState, dispatch: &Callback<Action>) -> Html {
    let table = &*state.files.table;
    if !table.is_object() {
        return html! {};
    }
    let error = state.files.table_error.as_ref();
    let error_path = error.map(|e| e.path.as_str()).unwrap_or("");
    let sources = sources(table);
    // Several sources: a column group per source, named, each row filling its source's group.
    let several = sources.len() > 1;
    let names: Vec<String> =
        if several { Vec::new() } else { sources.first().map(|s| s.names.clone()).unwrap_or_default() };
    let empty = Vec::new();
    let steps = table.get("steps").and_then(Value::as_array).unwrap_or(&empty);
    // The table's Flink version, else the run's: the legacy planner's inputs are `(true, row)`.
    let legacy = table
        .get("flink")
        .and_then(Value::as_str)
        .and_then(crate::engine::FlinkMode::parse)
        .or_else(|| state.sim.as_ref().map(|s| s.get().scenario().flink))
        .is_some_and(|m| !m.has_row_kind());
    let next_step = state.sim.as_ref().map_or(0, |s| s.get().next_step());
    // Which of the steps run changed nothing (the engine's answer, `engine::quiet`).
    let quiet = state.sim.as_ref().map(|s| s.get().quiet_steps(MAX_ROWS)).unwrap_or_default();
    let quiet_title =
        "changed nothing: no state written or cleared, no timer, no expiry, nothing emitted to the result";
    // An error in no field the table shows goes above it.
    let shown =
        |p: &str| p.starts_with("steps[") || p.starts_with("state_ttl") || p.starts_with("idle_state_retention");
    let cells = if several { sources.iter().map(|s| s.names.len()).sum::<usize>() + 1 } else { names.len() };
    let width = cells + 5;
    html! {
        <div class="input-table">
            if let Some(e) = error.filter(|e| !shown(&e.path)) {
                <div class="error" id="table-error" role="alert">{ format!("Not applied (the previous run goes on) — {}", error_text(e)) }</div>
            }
            if error.is_some() {
                // Every edit made while one is refused waits with it: the table is a draft.
                <p class="pending" id="table-pending" role="status">
                    <span>{ "This table is a draft: none of its edits since the refused one runs. The run goes on with the scenario before them, until the error is fixed. " }</span>
                    <button id="discard-edits" onclick={dispatch.reform(|_| Action::DiscardTableEdits)}>{ "↺ discard the edits" }</button>
                </p>
            }
            { settings(table, state, dispatch) }
            // Said here too: the skip button that was clicked is in this table, the note above
            // the timeline may be scrolled out of view.
            if let Some(s) = &state.drive.skipped {
                <p class="skipped" id="skipped-here" role="status">
                    <span>{ format!("Step {} ({}) is left out of this run. ", s.step + 1, s.what) }</span>
                    <button onclick={dispatch.reform(|_| Action::UndoSkip)}>{ "↺ bring it back" }</button>
                </p>
            }
            <div class="table-scroll">
            <table id="input-table" class="state" aria-label="Scenario steps">
                if several {
                    { source_head(&sources) }
                } else {
                    <thead><tr>
                        <th scope="col">{ "#" }</th>
                        <th scope="col">{ "at" }</th>
                        <th scope="col">{ "kind" }</th>
                        { for names.iter().map(|n| html! { <th scope="col">{ n }</th> }) }
                        <th scope="col"><span class="visually-hidden">{ "skip and replay" }</span></th>
                        <th scope="col"><span class="visually-hidden">{ "delete" }</span></th>
                    </tr></thead>
                }
                <tbody>
                    { for steps.iter().take(MAX_ROWS).enumerate().map(|(i, step)| {
                        let row_error = error.filter(|_| error_path == format!("steps[{i}]") || error_path.starts_with(&format!("steps[{i}]."))
                            || error_path.starts_with(&format!("steps[{i}][")));
                        let is_quiet = i < next_step as usize && quiet.get(i) == Some(&Some(true));
                        let class = classes!("step", (i < next_step as usize).then_some("done"), (i == next_step as usize).then_some("next"),
                            is_quiet.then_some("quiet"));
                        let source = (several && step.get("row").is_some()).then(|| step_source(&sources, step));
                        html! {
                            <>
                                <tr class={class} data-step={i.to_string()} data-source={source.map(|s| sources[s].name.clone())}>
                                    <td class="index">{ i + 1 }
                                        if is_quiet {
                                            <span class="quiet-mark" title={quiet_title}>
                                                <span aria-hidden="true">{ " ·" }</span>
                                                <span class="visually-hidden">{ format!(" ({quiet_title})") }</span>
                                            </span>
                                        }
                                    </td>
                                    if several && step.get("row").is_some() {
                                        { source_cells(i, step, &sources, error_path, dispatch, legacy) }
                                    } else {
                                        { step_cells(i, step, cells, error_path, dispatch, legacy) }
                                    }
                                    <td>
                                        if step.get("row").is_some() {
                                            <button class="skip" aria-label={format!("skip step {} and replay", i + 1)}
                                                title="Replay the run without this input (the same actions otherwise); the note above the timeline brings it back"
                                                onclick={dispatch.reform(move |_| Action::SkipStep(i as u64))}>{ "skip" }</button>
                                        }
                                    </td>
                                    <td><button class="delete" aria-label={format!("delete step {}", i + 1)}
                                        onclick={dispatch.reform(move |_| Action::DeleteStep(i))}>{ "✕" }</button></td>
                                </tr>
                                if let Some(e) = row_error {
                                    <tr class="row-error"><td colspan={width.to_string()}>
                                        <div class="error" id="table-error" role="alert">{ format!("Not applied (the previous run goes on) — {}", error_text(e)) }</div>
                                    </td></tr>
                                }
                            </>
                        }
                    }) }
                </tbody>
            </table>
            </div>
            if steps.len() > MAX_ROWS {
                <p class="hint">{ format!("… and {} more steps: edit them in the JSON below.", steps.len() - MAX_ROWS) }</p>
            }
            if table.get("workload").is_some() {
                <p class="hint" id="workload-note">{ "Then the generated workload's events (edit the workload in the JSON below)." }</p>
            }
            <button id="add-step" onclick={dispatch.reform(|_| Action::AddStep)}>{ "+ add input row" }</button>
            <span class="hint">{ " Times: ms or ISO-8601 UTC (empty: the current time); durations: \"5 min\", \"1 d\"; a cell `null` is NULL. A change applies when you leave the field or press Enter." }</span>
        </div>
    }
}

/// The engine's error as the table shows it: without serde's ` at line L column C`, which points
/// into the text the table generated, not into anything on screen.
fn error_text(e: &ScenarioError) -> String {
    let text = e.to_string();
    let cut = text.rfind(" at line ").filter(|&i| {
        let rest = &text[i + " at line ".len()..];
        let mut parts = rest.splitn(3, ' ');
        let (line, word, col) = (parts.next(), parts.next(), parts.next());
        let digits = |p: Option<&str>| p.is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
        digits(line) && word == Some("column") && digits(col)
    });
    match cut {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// A text field of the table that applies on `change` (leaving the field, or Enter).
fn field(id: String, label: String, value: String, invalid: bool, on: Callback<String>) -> Html {
    let onchange = on.reform(|e: Event| e.target_unchecked_into::<HtmlInputElement>().value());
    html! {
        <input class="cell" id={id} aria-label={label} value={value} aria-invalid={invalid.then_some("true")}
            onchange={onchange} size="10" />
    }
}

/// The head of a table of several sources: each source's name over its columns.
fn source_head(sources: &[SourceColumns]) -> Html {
    html! {
        <thead>
            <tr>
                <th scope="col" rowspan="2">{ "#" }</th>
                <th scope="col" rowspan="2">{ "at" }</th>
                <th scope="col" rowspan="2">{ "kind" }</th>
                <th scope="col" rowspan="2">{ "source" }</th>
                { for sources.iter().map(|s| html! {
                    <th scope="colgroup" class="source-head" colspan={s.names.len().max(1).to_string()}>{ &s.name }</th>
                }) }
                <th scope="col" rowspan="2"><span class="visually-hidden">{ "skip and replay" }</span></th>
                <th scope="col" rowspan="2"><span class="visually-hidden">{ "delete" }</span></th>
            </tr>
            <tr>
                { for sources.iter().enumerate().flat_map(|(k, s)| {
                    let first = k > 0;
                    s.names.iter().enumerate().map(move |(c, n)| html! {
                        <th scope="col" class={classes!((first && c == 0).then_some("source-start"))}>{ n }</th>
                    }).collect::<Vec<_>>()
                }) }
            </tr>
        </thead>
    }
}

/// An input row of a table of several sources: `at`, kind, its source's name, then its values
/// under its source's columns (the other sources' columns empty).
fn source_cells(
    i: usize,
    step: &Value,
    sources: &[SourceColumns],
    error_path: &str,
    dispatch: &Callback<Action>,
    legacy: bool,
) -> Html {
    let own = step_source(sources, step);
    let values = step.get("row").and_then(Value::as_array).map_or(0, Vec::len);
    html! {
        <>
            { step_cells(i, step, 0, error_path, dispatch, legacy) }
            <td class="source" data-label="source">{ step.get("source").and_then(Value::as_str).unwrap_or(&sources[own].name) }</td>
            { for sources.iter().enumerate().map(|(k, s)| {
                let start = classes!("src-cells", (k > 0).then_some("source-start"));
                if k == own {
                    // A row longer than its source's schema keeps its extra values (the engine names the error).
                    let width = s.names.len().max(values);
                    html! { <>{ for (0..width).map(|c| html! {
                        <td class={if c == 0 { start.clone() } else { classes!("src-cells") }}>
                            { value_field(i, step, c, error_path, dispatch) }
                        </td>
                    }) }</> }
                } else {
                    html! { <>{ for (0..s.names.len()).map(|c| html! {
                        <td class={classes!("other-source", (c == 0 && k > 0).then_some("source-start"))}></td>
                    }) }</> }
                }
            }) }
        </>
    }
}

/// The field of value `c` of step `i`'s row.
fn value_field(i: usize, step: &Value, c: usize, error_path: &str, dispatch: &Callback<Action>) -> Html {
    let f = StepField::Column(c);
    let cells = step.get("row").and_then(Value::as_array);
    let edit = dispatch.reform(move |text: String| Action::EditStep { index: i, field: f, text });
    field(
        format!("step-{i}-col-{c}"),
        format!("step {} column {}", i + 1, c + 1),
        cell_text(cells.and_then(|r| r.get(c))),
        error_path.starts_with(&f.path(i)),
        edit,
    )
}

/// `legacy`: the scenario runs on the legacy planner, whose inputs are `(true, row)` or
/// `(false, row)` (`CRow`): each kind is shown as the flag it becomes, with the kind it is written as.
fn step_cells(
    i: usize,
    step: &Value,
    width: usize,
    error_path: &str,
    dispatch: &Callback<Action>,
    legacy: bool,
) -> Html {
    let edit = |f: StepField| dispatch.reform(move |text: String| Action::EditStep { index: i, field: f, text });
    let invalid = |f: StepField| error_path.starts_with(&f.path(i));
    let advance =
        [("advance_to", StepField::AdvanceTo, "advance to"), ("advance_by", StepField::AdvanceBy, "advance by")]
            .into_iter()
            .find(|(k, _, _)| step.get(*k).is_some());
    if let Some((key, f, label)) = advance {
        return html! {
            <td colspan={(width + 2).to_string()} class="advance-step">
                <span class="what">{ format!("{label} ") }</span>
                { field(format!("step-{i}-{key}"), format!("step {} {label}", i + 1), cell_text(step.get(key)), invalid(f), edit(f)) }
            </td>
        };
    }
    let cells = step.get("row").and_then(Value::as_array).cloned().unwrap_or_default();
    let kind = step.get("kind").and_then(Value::as_str).unwrap_or("+I").to_string();
    let on_kind = dispatch.reform(move |e: Event| Action::EditStep {
        index: i,
        field: StepField::Kind,
        text: e.target_unchecked_into::<HtmlSelectElement>().value(),
    });
    html! {
        <>
            <td>{ field(format!("step-{i}-at"), format!("step {} at", i + 1), cell_text(step.get("at")), invalid(StepField::At), edit(StepField::At)) }</td>
            <td>
                <select class="cell" id={format!("step-{i}-kind")} aria-label={format!("step {} kind", i + 1)} onchange={on_kind}
                    aria-invalid={invalid(StepField::Kind).then_some("true")}>
                    { for KINDS.iter().map(|k| {
                        let shown = match legacy {
                            // RowKind.isAccumulate: +I and +U are `true`, -U and -D `false`.
                            true => format!("{} ({k})", matches!(*k, "+I" | "+U")),
                            false => k.to_string(),
                        };
                        html! { <option value={*k} selected={kind == *k}>{ shown }</option> }
                    }) }
                </select>
            </td>
            if width > 0 {
                { for (0..width.max(cells.len())).map(|c| html! { <td>{ value_field(i, step, c, error_path, dispatch) }</td> }) }
            }
        </>
    }
}

/// The retention settings the scenario's Flink reads (and any it has written).
fn settings(table: &Value, state: &AppState, dispatch: &Callback<Action>) -> Html {
    let flink = table.get("flink").and_then(Value::as_str).and_then(FlinkMode::parse);
    let timers = flink.is_some_and(FlinkMode::uses_cleanup_timers);
    let idle = table.get("idle_state_retention");
    let error = state.files.table_error.as_ref();
    let edit = |s: Setting| dispatch.reform(move |text: String| Action::EditSetting { setting: s, text });
    let one = |s: Setting, label: &str, value: String, hint: &str| {
        // The 5-minute rule names `idle_state_retention` itself: said next to max.
        let err = error.filter(|e| match s {
            Setting::StateTtl => e.path.starts_with("state_ttl"),
            Setting::IdleMin => e.path == "idle_state_retention.min",
            Setting::IdleMax => e.path.starts_with("idle_state_retention") && e.path != "idle_state_retention.min",
            Setting::TestHarness => false,
        });
        let id = s.path().replace(['.', '_'], "-");
        html! {
            <span class="setting">
                <label for={id.clone()}>{ format!("{label} ") }</label>
                { field(id, label.to_string(), value, err.is_some(), edit(s)) }
                <span class="hint">{ format!(" {hint}") }</span>
                if let Some(e) = err {
                    <span class="field-error error" id="table-error" role="alert">{ format!("Not applied — {}", error_text(e)) }</span>
                }
            </span>
        }
    };
    let harness = idle.and_then(|i| i.get("test_harness")).and_then(Value::as_bool).unwrap_or(false);
    let on_harness = edit(Setting::TestHarness)
        .reform(|e: Event| e.target_unchecked_into::<HtmlInputElement>().checked().to_string());
    html! {
        <fieldset class="settings" aria-label="Retention settings">
            <legend>{ "Retention" }</legend>
            if timers || idle.is_some() {
                { one(Setting::IdleMin, "idle state retention min", cell_text(idle.and_then(|i| i.get("min"))), "") }
                { one(Setting::IdleMax, "max", cell_text(idle.and_then(|i| i.get("max"))), "(setIdleStateRetentionTime; min and max both empty: never clean)") }
                <label class="setting"><input type="checkbox" id="idle-state-retention-test-harness" checked={harness} onchange={on_harness} />
                    { " test harness (skip the 5-minute rule)" }</label>
            }
            if !timers || table.get("state_ttl").is_some() {
                { one(Setting::StateTtl, "state_ttl", cell_text(table.get("state_ttl")), "(table.exec.state.ttl; empty or 0: never expires)") }
            }
        </fieldset>
    }
}
