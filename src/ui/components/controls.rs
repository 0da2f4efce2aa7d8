//! Processing time and the driving buttons: Step back, Step, run ×1000 / to the end, Next timer,
//! Advance by (its error beside the box), Play / Pause with its speed, Reset, and the keys help.
//! The scrubber, fork and skip are in [`super::scrubber`].

use crate::engine::time::parse_duration;
use crate::ui::state::{Action, AppState, RUN_MANY, SPEEDS};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

pub fn view(state: &AppState, dispatch: &Callback<Action>) -> Html {
    let Some(handle) = &state.sim else {
        return html! {};
    };
    let sim = handle.get();
    let tf = sim.time_format();
    let next_timer = sim.next_timer_ms().map(|t| tf.format(t));
    // Going to a timer past the next scenario step leaves that step behind (time never goes back).
    let skips_step = match (sim.next_timer_ms(), sim.next_step_ms()) {
        (Some(t), Some(s)) if t > s => Some(s),
        _ => None,
    };
    // Said under the button, but not while a run to the end or a far scrub moves the position on
    // every slice (it would flicker, over the run's own note).
    let skip_said = skips_step.filter(|_| state.drive.to_end.is_none() && state.drive.scrub_to.is_none());
    let next_timer_title = match (sim.next_timer_ms(), skips_step) {
        (Some(t), Some(s)) => format!(
            "Advance processing time to the next registered timer, {} (n): past the next scenario step at {}, which then can no longer run (◀ Back undoes it)",
            tf.format(t),
            tf.format(s)
        ),
        _ => "Advance processing time to the next registered timer (n)".into(),
    };
    // A form, so Enter in the box advances too.
    let on_advance = dispatch.reform(|e: SubmitEvent| {
        e.prevent_default();
        Action::AdvanceBy
    });
    let on_input =
        dispatch.reform(|e: InputEvent| Action::SetAdvanceText(e.target_unchecked_into::<HtmlInputElement>().value()));
    // The box is checked as it is typed, by the engine's parser of Flink's durations; what going
    // by it failed with (a bad duration, past the latest time) is said beside it too.
    let submitted = state.step_error.as_ref().filter(|_| state.drive.error_from_advance);
    let typed = parse_duration(&state.advance_text).err().map(|e| format!("not a duration: {e}"));
    let advance_error = submitted.cloned().or(typed);
    let error_id = if submitted.is_some() { "step-error" } else { "advance-error" };
    let step_disabled = !sim.can_step();
    let (blocked, hint) = match (sim.step_blocked(), sim.failure()) {
        (Some(reason), _) => (Some(reason), "time is past the next step: ◀ Back or Reset to run it"),
        (None, Some(f)) => (Some(format!("stopped: {f}")), "the simulation stopped: Reset to start again"),
        (None, None) => (None, ""),
    };
    let step_title = match (&blocked, sim.is_finished()) {
        (Some(reason), _) => reason.clone(),
        (None, true) => format!("All {} steps have run: Reset to start again", sim.step_count()),
        (None, false) => "Run the next scenario step (→)".into(),
    };
    let can_play = state.playing || sim.can_step();
    let speed = SPEEDS[state.drive.speed.min(SPEEDS.len() - 1)];
    let on_speed = dispatch.reform(|e: Event| {
        Action::SetSpeed(e.target_unchecked_into::<HtmlSelectElement>().value().parse().unwrap_or(0))
    });
    let at_start = sim.action_count() == 0;
    html! {
        <div class="controls" role="toolbar" aria-label="Drive the simulation">
            // The clock and the step count as wide as their longest text from the start, so the
            // controls after them never move as the run goes on (trial 26: "▶| to end" moved the
            // row 107 px right under the pointer, and a second click hit ▶▶ ×1000).
            <div class="clock" data-widest={widest_time(&sim)}>
                <span class="label">{ "processing time" }</span>
                <span id="now" aria-live="polite">{ state.now_text() }</span>
            </div>
            <span class="group step-group">
                <button id="step-back" onclick={dispatch.reform(|_| Action::StepBack)} disabled={at_start}
                    aria-keyshortcuts="ArrowLeft" title="Undo the last action exactly (checkpoint + replay); Step redoes it (←)">{ "◀ Back" }</button>
                <button id="step" onclick={dispatch.reform(|_| Action::Step)} disabled={step_disabled}
                    aria-keyshortcuts="ArrowRight" title={step_title}>{ "▶ Step" }</button>
                // The step count over the quiet-steps box: a column as tall as the clock, so the
                // row is no wider with the box than without.
                <span class="progress-col" data-widest={format!("step {0} / {0}", sim.step_count())}>
                    <span id="progress" class="progress">{ format!("step {} / {}", sim.next_step(), sim.step_count()) }</span>
                    <label class="hide-quiet" title="Step (→) and Back (←) pass the steps that changed nothing: no state written or cleared, no timer, no expiry, nothing emitted to the result (q)">
                        <input type="checkbox" id="hide-quiet" checked={state.drive.hide_quiet} aria-keyshortcuts="Q" aria-label="hide quiet steps"
                            onchange={dispatch.reform(|_| Action::ToggleHideQuiet)} />
                        { " hide quiet" }
                    </label>
                </span>
                // Under the Step button, out of the row's flow: the row keeps its height.
                if blocked.is_some() {
                    <span id="blocked" class="blocked" role="status">{ hint }</span>
                } else if let Some(passed) = &state.drive.passed_quiet {
                    <span id="quiet-note" class="blocked quiet-note" role="status">{ passed.text() }</span>
                }
            </span>
            if sim.step_count() > RUN_MANY {
                <span class="group">
                    <button id="run-many" onclick={dispatch.reform(|_| Action::RunSteps(RUN_MANY))} disabled={step_disabled}
                        title={format!("Run the next {RUN_MANY} steps")}>{ format!("▶▶ ×{RUN_MANY}") }</button>
                    { crate::ui::to_end::view(state, dispatch, step_disabled) }
                </span>
            }
            // The timer's time on a second, smaller line: the button is no wider with it than
            // without, so the row keeps to one line at 1280 px and the scrubber stays put.
            <span class="group nt-group">
                <button id="next-timer" class="next-timer" onclick={dispatch.reform(|_| Action::NextTimer)} disabled={next_timer.is_none()}
                    aria-keyshortcuts="N" title={next_timer_title} aria-describedby={skip_said.map(|_| "next-timer-skips")}
                    data-widest={format!(" ({})", widest_time(&sim))}>
                    <span class="nt-label">{ "⇥ next timer" }</span>
                    if let Some(t) = &next_timer { <span class="nt-time">{ format!(" ({t})") }</span> }
                </button>
                // Said under the button (and read with it), not only in its tooltip.
                if let Some(s) = skip_said {
                    <span id="next-timer-skips" class="blocked" role="status">{ format!("⚠ skips the input at {}", tf.format(s)) }</span>
                }
            </span>
            <form class="advance" onsubmit={on_advance}>
                <label for="advance-by">{ "advance by " }</label>
                // The error hangs under the box (out of the row's flow: the row does not grow).
                <span class="advance-field">
                    <input id="advance-by" value={state.advance_text.clone()} oninput={on_input} size="9"
                        aria-invalid={advance_error.is_some().then_some("true")}
                        aria-describedby={advance_error.is_some().then_some(error_id)}
                        title="A duration in Flink's syntax: 300 ms, 5 min, 1 h, 1 d" />
                    <button id="advance" type="submit">{ "go" }</button>
                    if let Some(e) = &advance_error {
                        <span class="field-error error" id={error_id}
                            role="alert">{ e }</span>
                    }
                </span>
            </form>
            <span class="group">
                <button id="play" onclick={dispatch.reform(|_| Action::TogglePlay)} disabled={!can_play}
                    aria-keyshortcuts="Space" aria-pressed={state.playing.to_string()}
                    title={format!("Step by itself at {} (space)", speed.rate())}>
                    { if state.playing { "❚❚ Pause" } else { "▷ Play" } }
                </button>
                <label class="speed" title="Play's speed">
                    <span class="visually-hidden">{ "speed" }</span>
                    <select id="speed" onchange={on_speed} aria-label="Play speed">
                        { for SPEEDS.iter().enumerate().map(|(i, s)| html! {
                            <option value={i.to_string()} selected={i == state.drive.speed}>{ format!("{} ({})", s.label, s.rate()) }</option>
                        }) }
                    </select>
                </label>
            </span>
            <button id="reset" onclick={dispatch.reform(|_| Action::Reset)} title="Start over (forgets the recorded run)">{ "⟲ Reset" }</button>
            <button id="keys-help" onclick={dispatch.reform(|_| Action::ToggleKeys)} aria-keyshortcuts="?"
                aria-expanded={state.drive.show_keys.to_string()} title="Keyboard keys (?)">{ "⌨ keys" }</button>
        </div>
    }
}

/// The clock's longest text over the run: a generated workload's times run into
/// milliseconds, so its time format with them at the scenario's end; explicit steps, the longer
/// of now and the end (a time the user advances to by hand may still be longer). Drawn hidden
/// (`data-widest`, style.css) under the clock and the next timer's time to keep them that wide
/// from the start.
fn widest_time(sim: &crate::engine::Simulation) -> String {
    let tf = sim.time_format();
    let end = sim.scenario().end_ms().max(sim.now());
    let mut times = vec![sim.now(), end];
    if sim.scenario().workload.is_some() {
        times.extend([end.saturating_add(1), end.saturating_add(999)]);
    }
    times.into_iter().map(|t| tf.format(t)).max_by_key(|t| t.chars().count()).unwrap_or_default()
}
