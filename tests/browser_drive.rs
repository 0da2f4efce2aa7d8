//! Driving a run in headless Chromium, asserting what the DOM shows: step back, the scrubber,
//! fork from here (also by editing a past input), skip one input and bring it back, Play's ticks
//! and pause, next timer, the keyboard (and no capture while typing), dragging an input on the
//! timeline.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, until, Page};
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{
    Element, Event, EventInit, HtmlInputElement, KeyboardEvent, KeyboardEventInit, PointerEvent, PointerEventInit,
};

wasm_bindgen_test_configure!(run_in_browser);

/// Presses `key` on `target` (the document when `None`), as the keyboard does: a bubbling keydown.
async fn press(page: &Page, target: Option<&str>, key: &str) {
    key_down(page, target, key);
    settle().await;
}

/// [`press`], waiting for nothing.
fn key_down(page: &Page, target: Option<&str>, key: &str) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    match target {
        Some(selector) => page.get(selector).dispatch_event(&event).unwrap(),
        None => web_sys::window().unwrap().document().unwrap().dispatch_event(&event).unwrap(),
    };
}

/// Moves the scrubber to `to`, as dragging its handle does (an `input` event).
async fn scrub(page: &Page, to: usize) {
    scrub_event(page, to);
    settle().await;
}

/// The scrubber's `input` event for `to`, waiting for nothing.
fn scrub_event(page: &Page, to: usize) {
    let input = page.get("#scrubber").dyn_into::<HtmlInputElement>().unwrap();
    input.set_value(&to.to_string());
    let init = EventInit::new();
    init.set_bubbles(true);
    input.dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
}

/// Loads `what-if-100k-logins` with `events` events into `page` (the editor and Load): the JSON.
async fn load_logins(page: &Page, events: u64) -> String {
    let json = flink_state_sim::engine::presets::PRESETS.iter().find(|(n, _)| *n == "what-if-100k-logins").unwrap().1;
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    value["workload"]["events"] = events.into();
    let json = value.to_string();
    page.set_textarea("#scenario-json", &json);
    page.click("#load").await;
    json
}

/// "▶| to end" on a run of `steps` steps, until the page is settled at its end.
async fn run_to_end(page: &Page, steps: u64) {
    page.click("#run-all").await;
    let end = format!("step {steps} / {steps}");
    until("the end of the run", || page.text("#progress") == end).await;
    settle().await;
}

fn pointer(kind: &str, client_x: f64, client_y: f64) -> PointerEvent {
    let init = PointerEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_pointer_id(7);
    init.set_is_primary(true);
    init.set_client_x(client_x as i32);
    init.set_client_y(client_y as i32);
    PointerEvent::new_with_event_init_dict(kind, &init).unwrap()
}

/// The `x` (in the axis's own coordinates) an input mark is drawn at.
fn mark_x(page: &Page, step: usize) -> f64 {
    page.get(&format!(r#"#tl-axis .input[data-step="{step}"] text"#)).get_attribute("x").unwrap().parse().unwrap()
}

/// A pointer on the timeline's axis of `cleanup-harness-min5-max10`, at processing times in ms:
/// the axis is linear, its inputs at 1 ms (step 0) and 5 ms (step 2) give its scale.
struct AxisPointer {
    axis: Element,
    left: f64,
    y: f64,
    x1: f64,
    x5: f64,
}

impl AxisPointer {
    fn new(page: &Page) -> AxisPointer {
        let axis: Element = page.get("#tl-axis");
        let rect = axis.get_bounding_client_rect();
        AxisPointer { left: rect.left(), y: rect.top() + 45.0, x1: mark_x(page, 0), x5: mark_x(page, 2), axis }
    }
    fn at(&self, kind: &str, t: f64) -> PointerEvent {
        pointer(kind, self.left + self.x1 + (t - 1.0) * (self.x5 - self.x1) / 4.0, self.y)
    }
    /// Presses on input step `step`'s mark, standing at `t`.
    async fn press_on(&self, page: &Page, step: usize, t: f64) {
        let mark = page.get(&format!(r#"#tl-axis .input[data-step="{step}"]"#));
        mark.dispatch_event(&self.at("pointerdown", t)).unwrap();
        settle().await;
    }
    async fn move_to(&self, t: f64) {
        self.axis.dispatch_event(&self.at("pointermove", t)).unwrap();
        settle().await;
    }
    async fn release_at(&self, t: f64) {
        self.axis.dispatch_event(&self.at("pointerup", t)).unwrap();
        settle().await;
    }
}

#[wasm_bindgen_test]
async fn step_back_undoes_exactly_and_step_redoes() {
    let page = Page::open().await;
    page.step(3).await;
    assert_eq!(page.text("#op-logins_per_user .cleanup-time"), "2019-11-23 16:00");
    assert!(!page.is_disabled("#step-back"));
    page.click("#step-back").await;
    assert_eq!(page.text("#progress"), "step 2 / 4");
    assert_eq!(page.text("#now"), "2019-11-20 16:00");
    assert_eq!(page.text("#op-logins_per_user .cleanup-time"), "2019-11-22 15:00", "the moved timer is not moved yet");
    assert_eq!(page.texts("#op-logins_per_user .msg"), ["(true,u1,1)", "(false,u1,1)", "(true,u1,2)"]);
    assert!(page.find(r#"#timeline .timer.live[data-timer="2019-11-23 16:00"]"#).is_none());
    assert_eq!(page.text("#future .future-text"), "1 later action recorded: Step (→) redoes it.");
    page.click("#step").await;
    assert_eq!(page.text("#op-logins_per_user .cleanup-time"), "2019-11-23 16:00");
    assert!(page.find("#future").is_none(), "redone: nothing recorded ahead");
    page.click("#step-back").await;
    page.click("#step-back").await;
    page.click("#step-back").await;
    assert_eq!(page.text("#progress"), "step 0 / 4");
    assert!(page.is_disabled("#step-back"), "the start of the run");
}

#[wasm_bindgen_test]
async fn the_scrubber_goes_anywhere_in_the_run() {
    let page = Page::open().await;
    assert_eq!(page.attr("#scrubber", "max"), "4", "the whole run: four steps");
    scrub(&page, 4).await;
    assert_eq!(page.text("#progress"), "step 4 / 4");
    assert_eq!(page.text("#now"), "2019-11-24 00:00");
    assert!(page.find(r#"#timeline .timer.fired[data-timer="2019-11-23 16:00"]"#).is_some());
    assert_eq!(page.text("#scrub-position"), "action 4 / 4 · 2019-11-24 00:00");
    scrub(&page, 1).await;
    assert_eq!(page.text("#progress"), "step 1 / 4");
    assert_eq!(page.text("#now"), "2019-11-20 15:00");
    assert_eq!(page.text("#op-logins_per_user .cleanup-time"), "2019-11-22 15:00");
    assert_eq!(page.texts("#op-logins_per_user .msg"), ["(true,u1,1)"]);
    assert_eq!(page.text("#future .future-text"), "3 later actions recorded: Step (→) redoes them.");
    // Several moves within one frame (one task): the first goes at once, the last one at the
    // next frame, and it wins.
    scrub_event(&page, 2);
    scrub_event(&page, 1);
    scrub_event(&page, 3);
    yew::scheduler::flush().await;
    assert_eq!(page.text("#progress"), "step 2 / 4", "the first move went at once");
    assert!(!page.get(".fss").has_attribute("data-settled"), "a move waits for the next frame");
    settle().await;
    assert_eq!(page.text("#progress"), "step 3 / 4");
}

#[wasm_bindgen_test]
async fn fork_from_here_discards_the_recorded_future() {
    let page = Page::open().await;
    page.step(1).await;
    page.click("#advance").await; // by 1 h
    assert_eq!(page.text("#now"), "2019-11-20 16:00");
    assert_eq!(page.attr("#scrubber", "max"), "5", "one advance and four steps");
    page.click("#step-back").await;
    assert_eq!(page.text("#now"), "2019-11-20 15:00");
    assert_eq!(page.text("#future .future-text"), "1 later action recorded: Step (→) redoes it.");
    page.click("#fork").await;
    assert!(page.find("#future").is_none());
    assert_eq!(page.attr("#scrubber", "max"), "4", "the advance is forgotten");
    page.click("#step").await;
    assert_eq!(page.text("#now"), "2019-11-20 16:00");
    assert_eq!(page.text("#progress"), "step 2 / 4", "Step runs the next input, not the forgotten advance");

    // Editing a past input replays to here with the edit and forgets the future too.
    page.step(1).await;
    page.click("#step-back").await;
    page.click("#step-back").await;
    assert!(page.find("#future").is_some());
    let field = page.get("#step-0-at").dyn_into::<HtmlInputElement>().unwrap();
    field.set_value("2019-11-20T14:00");
    let init = EventInit::new();
    init.set_bubbles(true);
    field.dispatch_event(&Event::new_with_event_init_dict("change", &init).unwrap()).unwrap();
    settle().await;
    assert_eq!(page.text("#progress"), "step 1 / 4");
    assert_eq!(page.text("#now"), "2019-11-20 14:00");
    assert_eq!(page.text("#op-logins_per_user .cleanup-time"), "2019-11-22 14:00");
    assert!(page.find("#future").is_none(), "the edited past has another future");
}

#[wasm_bindgen_test]
async fn skip_one_input_replays_the_rest_and_brings_it_back() {
    let page = Page::open().await;
    page.step(3).await;
    page.click(r#"button.skip[aria-label="skip step 2 and replay"]"#).await;
    assert_eq!(
        page.text("#skipped > span"),
        "Step 2 skipped ((true,u1) at 2019-11-20 16:00): the run was replayed without it. "
    );
    assert_eq!(page.text("#skipped-here > span"), "Step 2 ((true,u1) at 2019-11-20 16:00) is left out of this run. ");
    assert_eq!(page.text("#progress"), "step 2 / 3");
    assert_eq!(page.text("#now"), "2019-11-21 16:00");
    assert_eq!(page.texts("#op-logins_per_user .msg"), ["(true,u1,1)", "(false,u1,1)", "(true,u1,2)"]);
    assert_eq!(page.text("#op-logins_per_user .cleanup-time"), "2019-11-23 16:00");
    assert!(page.find(r#"#timeline .timer.deleted[data-timer="2019-11-22 15:00"]"#).is_some());
    page.click("#undo-skip").await;
    assert!(page.find("#skipped").is_none() && page.find("#skipped-here").is_none());
    assert_eq!(page.text("#progress"), "step 3 / 4");
    assert_eq!(page.texts("#op-logins_per_user .msg").len(), 5);
}

#[wasm_bindgen_test]
async fn play_ticks_at_its_speed_and_pause_stops_every_tick() {
    let page = Page::open().await;
    page.choose("#preset-select", "cleanup-harness-min5-max10").await;
    page.choose("#speed", "3").await; // ×10: a step every 90 ms
    assert!(page.attr("#play", "title").contains("11 steps/s"));
    // Two beats or more, then pause (in the same task as the check). A beat may come late on a
    // busy machine (and the next then at once), never early: the k-th not before k × 90 ms
    // (10 ms of slack for the clocks' rounding).
    let started = js_sys::Date::now();
    page.click_only("#play");
    until("two of Play's beats", || steps(&page) >= 2).await;
    let (beats, elapsed) = (steps(&page), js_sys::Date::now() - started);
    assert_eq!(page.text("#play"), "❚❚ Pause");
    page.click("#play").await;
    assert_eq!(page.text("#play"), "▷ Play");
    let paused_at = page.text("#progress");
    assert_eq!(steps(&page), beats, "paused where the beats were: {paused_at}");
    assert!(elapsed >= f64::from(beats) * 90.0 - 10.0, "{beats} beats of 90 ms took {elapsed} ms");
    // Paused: no beat comes any more (a slower machine only makes it surer).
    TimeoutFuture::new(400).await;
    settle().await;
    assert_eq!(page.text("#progress"), paused_at, "paused: no tick");
    // Play runs to the end and stops by itself.
    page.click_only("#play");
    until("Play at the end, stopped", || page.text("#progress") == "step 8 / 8" && page.text("#play") == "▷ Play")
        .await;
    settle().await;
    assert_eq!(page.text("#progress"), "step 8 / 8");
    assert!(page.is_disabled("#play"));
}

/// The step `#progress` shows (`step 3 / 8`: 3).
fn steps(page: &Page) -> u32 {
    page.text("#progress").trim_start_matches("step ").split(' ').next().unwrap().parse().unwrap()
}

#[wasm_bindgen_test]
async fn the_keys_drive_the_page_but_not_while_typing() {
    let page = Page::open().await;
    press(&page, None, "ArrowRight").await;
    assert_eq!(page.text("#progress"), "step 1 / 4");
    press(&page, None, "ArrowRight").await;
    press(&page, None, "ArrowLeft").await;
    assert_eq!(page.text("#progress"), "step 1 / 4");
    assert!(page.find("#keys").is_none());
    press(&page, None, "?").await;
    assert!(page.text("#keys").contains("Spaceplay / pause"));
    assert!(page.text("#keys").contains("nadvance to the next timer"));
    press(&page, None, "Escape").await;
    assert!(page.find("#keys").is_none());
    // Play, then pause before its first beat (0.9 s): rendered, not waited for.
    key_down(&page, None, " ");
    yew::scheduler::flush().await;
    assert_eq!(page.text("#play"), "❚❚ Pause");
    press(&page, None, " ").await;
    assert_eq!(page.text("#play"), "▷ Play");
    // Typed into a field, the keys are the field's.
    press(&page, Some("#advance-by"), "ArrowRight").await;
    press(&page, Some("#advance-by"), "n").await;
    press(&page, Some("#scenario-json"), " ").await;
    assert_eq!(page.text("#progress"), "step 1 / 4");
    assert_eq!(page.text("#play"), "▷ Play");
    // `n`: the next timer.
    assert_eq!(page.text("#next-timer"), "⇥ next timer (2019-11-22 15:00)");
    press(&page, None, "n").await;
    assert_eq!(page.text("#now"), "2019-11-22 15:00");
    assert!(page.find(r#"#timeline .timer.fired[data-timer="2019-11-22 15:00"]"#).is_some());
    assert!(page.find("#op-logins_per_user .cleanup-time").is_none(), "the timer cleared the key");
    // The two inputs it passed stay on the axis, greyed, saying why they did not run (trial 28:
    // their marks vanished).
    let passed = page.root.query_selector_all("#tl-axis .input.passed").unwrap();
    let steps: Vec<String> = (0..passed.length())
        .filter_map(|i| passed.item(i))
        .map(|n| n.unchecked_into::<Element>().get_attribute("data-step").unwrap())
        .collect();
    assert_eq!(steps, ["1", "2"]);
    assert_eq!(page.text("#lg-passed"), "▿ not run: time was advanced past it");
    assert_eq!(
        page.text("#passed-inputs"),
        "It went past 2 inputs without running them (step 2 at 2019-11-20 16:00, step 3 at 2019-11-21 16:00): \
         processing time does not go back, so they cannot run from here — ◀ Back or Reset runs them."
    );
    assert_eq!(
        page.attr(r#"#tl-axis .input.passed[data-step="1"]"#, "aria-label"),
        "input step 2, (true,u1) at 2019-11-20 16:00: not run — time was advanced past it (◀ Back or Reset to run it)"
    );
}

#[wasm_bindgen_test]
async fn an_input_dropped_at_a_refused_time_goes_back_to_where_it_was() {
    let page = Page::open().await;
    page.choose("#preset-select", "cleanup-harness-min5-max10").await;
    page.step(5).await;
    let drag = AxisPointer::new(&page);
    drag.press_on(&page, 4, 8.0).await;
    // Through 10 ms (accepted, run live), then let go past the advance to 11 ms that follows it.
    drag.move_to(10.0).await;
    assert_eq!(page.attr(r#"#tl-axis .input[data-step="4"]"#, "data-at"), "10 ms");
    drag.move_to(12.0).await;
    drag.release_at(12.0).await;
    // Mark, table and run agree again, at the time before the drag (not the 10 ms it passed).
    assert!(page.find("#table-error").is_none(), "{}", page.text("#table-error"));
    assert_eq!(page.attr(r#"#tl-axis .input[data-step="4"]"#, "data-at"), "8 ms");
    assert_eq!(page.input_value("#step-4-at"), "8");
    assert_eq!(page.texts("#op-agg .cleanup-time"), ["11 ms", "18 ms", "15 ms"]);
    assert_eq!(page.text("#progress"), "step 5 / 8");
    let note = page.text("#files-note");
    assert!(note.starts_with("Input #5 was not moved to 12 ms: steps[5]"), "{note}");
    assert!(note.contains("processing time never goes backwards: 11 ms is before 12 ms"), "{note}");
    assert!(note.contains("— it stays at 8 ms"), "{note}");
    assert!(page.find("#scenario-edited").is_none(), "the preset is the preset again");
}

#[wasm_bindgen_test]
async fn dragging_an_input_moves_its_timers_and_outputs() {
    let page = Page::open().await;
    page.choose("#preset-select", "cleanup-harness-min5-max10").await;
    page.step(5).await;
    assert_eq!(page.attr(r#"#tl-axis .input[data-step="4"]"#, "data-at"), "8 ms");
    assert!(page.find(r#"#timeline .lane[data-key="b"] .timer.live[data-timer="18 ms"]"#).is_some());
    let drag = AxisPointer::new(&page);
    drag.press_on(&page, 4, 8.0).await;
    drag.move_to(10.0).await;
    // Live while dragging: b's second access is now at 10 ms, its cleanup time 20 ms, its first
    // timer deleted (the view stays put under the pointer until the drop).
    assert_eq!(page.attr(r#"#tl-axis .input[data-step="4"]"#, "data-at"), "10 ms");
    assert_eq!(page.texts("#op-agg .cleanup-time"), ["11 ms", "20 ms", "15 ms"]);
    assert!(page.find(r#"#timeline .lane[data-key="b"] .timer.deleted[data-timer="11 ms"]"#).is_some());
    // Past the advance to 11 ms that follows it, the engine refuses the scenario: said in the
    // table, the run stays as it was.
    drag.move_to(12.0).await;
    assert!(
        page.text("#table-error").starts_with("Not applied (the previous run goes on) — steps[5]"),
        "{}",
        page.text("#table-error")
    );
    assert_eq!(page.attr(r#"#tl-axis .input[data-step="4"]"#, "data-at"), "10 ms");
    drag.move_to(7.0).await;
    drag.release_at(7.0).await;
    assert!(page.find("#table-error").is_none());
    assert_eq!(page.attr(r#"#tl-axis .input[data-step="4"]"#, "data-at"), "7 ms");
    assert_eq!(page.input_value("#step-4-at"), "7", "the table shows the moved time");
    assert!(page.find(r#"#timeline .lane[data-key="b"] .timer.live[data-timer="17 ms"]"#).is_some());
    assert!(page.find(r#"#timeline .lane[data-key="b"] .timer.deleted[data-timer="11 ms"]"#).is_some());
    assert_eq!(page.text("#progress"), "step 5 / 8", "replayed to the same position");
    assert_eq!(page.text("#now"), "7 ms");
    assert_eq!(page.texts("#op-agg .cleanup-time"), ["11 ms", "17 ms", "15 ms"]);
    // A focused input moves by the arrows too (a round step of the axis).
    press(&page, Some(r#"#tl-axis .input[data-step="4"]"#), "ArrowLeft").await;
    assert_eq!(page.attr(r#"#tl-axis .input[data-step="4"]"#, "data-at"), "6 ms");
    assert_eq!(page.text("#progress"), "step 5 / 8", "the arrow moved the input, it did not step back");
}

/// A scrub that replays far runs in slices (`src/ui/scrub_far.rs`): the handle stays where it
/// was put meanwhile, a newer move replaces the one under way, and the page ends exactly there.
#[wasm_bindgen_test]
async fn a_far_scrub_ends_where_the_handle_was_put_and_a_newer_one_wins() {
    let page = Page::open().await;
    load_logins(&page, 6_000).await;
    run_to_end(&page, 6_000).await;
    // Back from 6 000 to 1 500 replays from the start (checkpoints every 2 048); then 1 200
    // before the first has ended, if it has not.
    scrub_event(&page, 1_500);
    if page.text("#scrub-position").starts_with("going to action 1500") {
        assert_eq!(page.input_value("#scrubber"), "1500", "the handle stays where it was put");
    }
    scrub_event(&page, 1_200);
    settle().await;
    assert!(page.text("#scrub-position").starts_with("action 1200 / 6000 · "), "{}", page.text("#scrub-position"));
    assert_eq!(page.input_value("#scrubber"), "1200");
    assert_eq!(page.text("#progress"), "step 1200 / 6000");
}

/// A far scrub shows its progress from where its replay started and a Cancel, which stops it
/// where it got to: a position like any other, the views and the scrubber showing it
/// (`src/ui/scrub_far.rs`; trial 22: a far scrub had neither).
#[wasm_bindgen_test]
async fn a_far_scrub_shows_its_progress_and_cancel_stops_it_where_it_got_to() {
    let page = Page::open().await;
    load_logins(&page, 70_000).await;
    run_to_end(&page, 70_000).await;
    // Checkpoints every 4 096 actions past 65 536: a move to 4 000 after one replays 4 000
    // actions, many slices of 12 ms in this (debug) build.
    let to = 7 * 4096 + 4000;
    scrub_event(&page, to);
    yew::scheduler::flush().await;
    assert!(page.text("#scrub-position").starts_with(&format!("going to action {to} / 70000… (at ")));
    let label = page.attr("#scrub-progress", "aria-label");
    assert_eq!(label, format!("replaying from action {} to action {to}", 7 * 4096), "the checkpoint it restored");
    let at: usize = page.text("#scrub-position").rsplit("(at ").next().unwrap().trim_end_matches(')').parse().unwrap();
    assert!(7 * 4096 < at && at < to, "{at}");
    assert_eq!(page.attr("#scrub-progress", "max"), "4000");
    assert!(page.text("#scrub-going").contains("the views below catch up when it stops"));
    assert_eq!(page.attr("#scrub-progress", "value"), (at - 7 * 4096).to_string());
    page.click_only("#scrub-cancel");
    settle().await;
    assert!(page.find("#scrub-cancel").is_none() && page.find("#scrub-progress").is_none());
    // It stops where it got to, and replays on the trace window the views show (400 actions):
    // what happened there and the lanes of the keys it touched, not "nothing changed".
    let at = (at + 400).min(to);
    assert!(
        page.text("#scrub-position").starts_with(&format!("action {at} / 70000 · ")),
        "{}",
        page.text("#scrub-position")
    );
    assert_eq!(page.input_value("#scrubber"), at.to_string(), "the handle shows where it stopped");
    assert_eq!(page.text("#progress"), format!("step {at} / 70000"), "the views show where it stopped");
    assert!(
        page.text("#happened").contains(&format!("step {at}/70000: input (true,user-")),
        "{}",
        page.text("#happened")
    );
    assert!(!page.text("#happened").contains("nothing changed"), "{}", page.text("#happened"));
    assert!(page.find("#timeline .lane").is_some(), "the lanes of the keys the last actions touched");
    // From there, a Step goes on by one.
    page.click("#step").await;
    assert_eq!(page.text("#progress"), format!("step {} / 70000", at + 1));
}

/// A Back with no checkpoint near behind — after a far scrub was cancelled where the checkpoints
/// are 16 384 actions apart — goes in slices with its progress and Cancel, as a far scrub does,
/// and ends one action back; the Back after it restores the ladder it laid (no slices).
#[wasm_bindgen_test]
async fn a_back_that_replays_far_goes_in_slices_and_lays_the_ladder() {
    let page = Page::open().await;
    load_logins(&page, 270_000).await;
    run_to_end(&page, 270_000).await;
    // Past 262 144 actions the checkpoints are 16 384 apart: a scrub to 16 000 after one.
    let to = 5 * 16_384 + 16_000;
    scrub_event(&page, to);
    yew::scheduler::flush().await;
    assert_eq!(
        page.attr("#scrub-progress", "aria-label"),
        format!("replaying from action {} to action {to}", 5 * 16_384)
    );
    // Cancelled more than 8 192 actions past the checkpoint.
    let got_to =
        || page.text("#scrub-position").rsplit("(at ").next().unwrap().trim_end_matches(')').parse::<usize>().ok();
    until("the move past 90 200", || got_to().is_some_and(|at| at > 5 * 16_384 + 8_192 + 100)).await;
    page.click_only("#scrub-cancel");
    settle().await;
    let at: usize = page.input_value("#scrubber").parse().unwrap();
    assert!(5 * 16_384 + 8_192 + 500 < at && at < to, "{at}");
    page.click_only("#step-back");
    yew::scheduler::flush().await;
    assert_eq!(
        page.attr("#scrub-progress", "aria-label"),
        format!("replaying from action {} to action {}", 5 * 16_384, at - 1),
        "the Back replays from the checkpoint, in slices"
    );
    settle().await;
    assert!(
        page.text("#scrub-position").starts_with(&format!("action {} / 270000 · ", at - 1)),
        "{}",
        page.text("#scrub-position")
    );
    assert_eq!(page.text("#progress"), format!("step {} / 270000", at - 1));
    assert!(
        page.text("#happened").contains(&format!("step {}/270000: input (true,user-", at - 1)),
        "{}",
        page.text("#happened")
    );
    page.click_only("#step-back");
    yew::scheduler::flush().await;
    assert!(page.find("#scrub-progress").is_none(), "the ladder the far Back laid is near");
    assert!(
        page.text("#scrub-position").starts_with(&format!("action {} / 270000 · ", at - 2)),
        "{}",
        page.text("#scrub-position")
    );
}

/// A double-click on "▶| to end": its second click lands on the Cancel that took the button's
/// place and is not taken for it (trial 28: the run stopped at action 0, with nothing said); a
/// single click on Cancel stops the run.
#[wasm_bindgen_test]
async fn a_double_click_on_to_end_runs_to_the_end() {
    let page = Page::open().await;
    load_logins(&page, 20_000).await;
    let click = |selector: &str, detail: i32| {
        let init = web_sys::MouseEventInit::new();
        init.set_bubbles(true);
        init.set_detail(detail);
        let event = web_sys::MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap();
        page.get(selector).dispatch_event(&event).unwrap();
    };
    click("#run-all", 1);
    yew::scheduler::flush().await;
    click("#to-end-cancel", 2);
    yew::scheduler::flush().await;
    assert!(page.find("#to-end-cancel").is_some(), "the second click of a double-click cancelled the run");
    until("the end of the run", || page.text("#progress") == "step 20000 / 20000").await;
    settle().await;
    // A single click on Cancel stops it.
    page.click("#reset").await;
    click("#run-all", 1);
    yew::scheduler::flush().await;
    click("#to-end-cancel", 1);
    settle().await;
    assert!(
        page.find("#to-end-cancel").is_none() && page.text("#progress") != "step 20000 / 20000",
        "{}",
        page.text("#progress")
    );
    // A double-click on Cancel: its second click lands on "▶| to end" and does not start it again
    // (trial 29).
    let stopped = page.text("#progress");
    page.click("#reset").await;
    click("#run-all", 1);
    yew::scheduler::flush().await;
    click("#to-end-cancel", 1);
    yew::scheduler::flush().await;
    click("#run-all", 2);
    settle().await;
    assert!(page.find("#to-end-cancel").is_none(), "the second click of a double-click on Cancel started the run");
    assert_ne!(page.text("#progress"), "step 20000 / 20000", "stopped, as at {stopped}");
}

/// A Step while a far scrub replays (its Cancel showing) stops it where it got to and first
/// replays the trace window the views need, as Cancel does (trial 29: one lane of the 200 a
/// straight run shows, and "What just happened" one key).
#[wasm_bindgen_test]
async fn a_step_during_a_far_scrub_shows_what_a_straight_run_shows() {
    let page = Page::open().await;
    let json = load_logins(&page, 40_000).await;
    run_to_end(&page, 40_000).await;
    // Far back: it replays from a checkpoint thousands of actions behind, in slices.
    scrub_event(&page, 30_000);
    yew::scheduler::flush().await;
    assert!(page.find("#scrub-cancel").is_some(), "the scrub goes in slices");
    page.click_only("#step");
    settle().await;
    let at: u64 = page.text("#progress").split(' ').nth(1).unwrap().parse().unwrap();
    assert!(at > 20_000 && at <= 30_001, "{at}");
    let lanes = page.text("#lanes-note");
    let happened = page.text("#happened");
    // The same position reached by a scrub straight there.
    let straight = Page::open().await;
    straight.set_textarea("#scenario-json", &json);
    straight.click("#load").await;
    scrub(&straight, at as usize).await;
    assert_eq!(straight.text("#progress"), page.text("#progress"));
    assert_eq!(lanes, straight.text("#lanes-note"));
    assert_eq!(happened, straight.text("#happened"));
}
