//! Processing time and the driving buttons: Step, Next timer, Advance by, Play/Pause, Reset.

use crate::ui::state::{Action, AppState};
use web_sys::HtmlInputElement;
use yew::prelude::*;

pub fn view(state: &AppState, dispatch: &Callback<Action>, advance_ref: &NodeRef) -> Html {
    let Some(sim) = &state.sim else {
        return html! {};
    };
    let tf = sim.time_format();
    let next_timer = sim.next_timer_ms().map(|t| tf.format(t));
    let on_advance = {
        let advance_ref = advance_ref.clone();
        dispatch.reform(move |_: MouseEvent| {
            Action::AdvanceBy(advance_ref.cast::<HtmlInputElement>().map(|i| i.value()).unwrap_or_default())
        })
    };
    let on_play = if state.playing { dispatch.reform(|_| Action::Pause) } else { dispatch.reform(|_| Action::Play) };
    let default_advance = match tf {
        crate::engine::time::TimeFormat::DateTime => "1 h",
        crate::engine::time::TimeFormat::Millis => "1 ms",
    };
    html! {
        <div class="controls">
            <div class="clock">
                <span class="label">{ "processing time" }</span>
                <span id="now">{ state.now_text() }</span>
            </div>
            <button id="step" onclick={dispatch.reform(|_| Action::Step)} disabled={sim.is_finished()}
                title="Run the next scenario step">{ "▶ Step" }</button>
            <span id="progress" class="progress">{ format!("step {} / {}", sim.next_step(), sim.step_count()) }</span>
            <button id="next-timer" onclick={dispatch.reform(|_| Action::NextTimer)} disabled={next_timer.is_none()}
                title="Advance processing time to the next registered timer">
                { format!("⇥ next timer{}", next_timer.map(|t| format!(" ({t})")).unwrap_or_default()) }
            </button>
            <span class="advance">
                <label for="advance-by">{ "advance by " }</label>
                <input id="advance-by" ref={advance_ref.clone()} value={default_advance} size="7"
                    title="A duration in Flink's syntax: 300 ms, 5 min, 1 h, 1 d" />
                <button id="advance" onclick={on_advance}>{ "go" }</button>
            </span>
            <button id="play" onclick={on_play}>{ if state.playing { "❚❚ Pause" } else { "▷ Play" } }</button>
            <button id="reset" onclick={dispatch.reform(|_| Action::Reset)}>{ "⟲ Reset" }</button>
        </div>
    }
}
