//! Processing time and the driving buttons: Step, Next timer, Advance by, Play/Pause, Reset.

use crate::ui::state::{Action, AppState, RUN_MANY};
use web_sys::HtmlInputElement;
use yew::prelude::*;

pub fn view(state: &AppState, dispatch: &Callback<Action>) -> Html {
    let Some(handle) = &state.sim else {
        return html! {};
    };
    let sim = handle.get();
    let tf = sim.time_format();
    let next_timer = sim.next_timer_ms().map(|t| tf.format(t));
    // A form, so Enter in the box advances too.
    let on_advance = dispatch.reform(|e: SubmitEvent| {
        e.prevent_default();
        Action::AdvanceBy
    });
    let on_input =
        dispatch.reform(|e: InputEvent| Action::SetAdvanceText(e.target_unchecked_into::<HtmlInputElement>().value()));
    let step_disabled = !sim.can_step();
    let (blocked, hint) = match (sim.step_blocked(), sim.failure()) {
        (Some(reason), _) => (Some(reason), "time is past the next step: Reset to replay"),
        (None, Some(f)) => (Some(format!("stopped: {f}")), "the simulation stopped: Reset to start again"),
        (None, None) => (None, ""),
    };
    let step_title = match (&blocked, sim.is_finished()) {
        (Some(reason), _) => reason.clone(),
        (None, true) => format!("All {} steps have run: Reset to start again", sim.step_count()),
        (None, false) => "Run the next scenario step".into(),
    };
    let can_play = state.playing || sim.can_step();
    let on_play = if state.playing { dispatch.reform(|_| Action::Pause) } else { dispatch.reform(|_| Action::Play) };
    html! {
        <div class="controls">
            <div class="clock">
                <span class="label">{ "processing time" }</span>
                <span id="now">{ state.now_text() }</span>
            </div>
            <button id="step" onclick={dispatch.reform(|_| Action::Step)} disabled={step_disabled}
                title={step_title}>{ "▶ Step" }</button>
            <span id="progress" class="progress">{ format!("step {} / {}", sim.next_step(), sim.step_count()) }</span>
            if sim.step_count() > RUN_MANY {
                <button id="run-many" onclick={dispatch.reform(|_| Action::RunSteps(RUN_MANY))} disabled={step_disabled}
                    title={format!("Run the next {RUN_MANY} steps")}>{ format!("▶▶ ×{RUN_MANY}") }</button>
                <button id="run-all" onclick={dispatch.reform(|_| Action::RunSteps(u64::MAX))} disabled={step_disabled}
                    title="Run every remaining step">{ "▶| to end" }</button>
            }
            if blocked.is_some() {
                <span id="blocked" class="blocked">{ hint }</span>
            }
            <button id="next-timer" onclick={dispatch.reform(|_| Action::NextTimer)} disabled={next_timer.is_none()}
                title="Advance processing time to the next registered timer">
                { format!("⇥ next timer{}", next_timer.map(|t| format!(" ({t})")).unwrap_or_default()) }
            </button>
            <form class="advance" onsubmit={on_advance}>
                <label for="advance-by">{ "advance by " }</label>
                <input id="advance-by" value={state.advance_text.clone()} oninput={on_input} size="9"
                    title="A duration in Flink's syntax: 300 ms, 5 min, 1 h, 1 d" />
                <button id="advance" type="submit">{ "go" }</button>
            </form>
            <button id="play" onclick={on_play} disabled={!can_play}>{ if state.playing { "❚❚ Pause" } else { "▷ Play" } }</button>
            <button id="reset" onclick={dispatch.reform(|_| Action::Reset)}>{ "⟲ Reset" }</button>
        </div>
    }
}
