//! The page's state and the actions that change it. Every Flink rule is the engine's: the
//! reducer only calls [`Simulation`] and keeps what it says (including its errors) for display.

pub use super::drive_state::{DriveState, Skipped, SPEEDS};
pub use super::files_state::{FilesState, FlinkRefusal, Note, Position, ScenarioRef, Setting, StepField};
pub use super::sql_state::{EditorMode, SqlState};
use crate::engine::presets::{DEFAULT_PRESET, PRESETS};
use crate::engine::scenario::with_flink;
use crate::engine::time::{parse_duration, Millis, TimeFormat};
use crate::engine::{FlinkMode, Scenario, SimOptions, Simulation, TraceLevel};
use std::cell::{Ref, RefCell};
use std::rc::Rc;
use yew::Reducible;

/// Files, links and the table editor: opening a position, going to one, the editor's actions.
mod files;

/// How many of the last actions' trace entries the page keeps (the timeline and the changelog
/// chips show them); anything older is produced again by replay when needed.
pub const TRACE_WINDOW_ACTIONS: usize = 400;

/// The longest scenario text [`SimHandle::sql_refusal`] exports whole to find out whether "⤓ Flink
/// SQL" can: 256 KiB, about 3 000 steps, a few ms of export.
pub const SQL_CHECK_MAX_BYTES: usize = 256 * 1024;

/// How many steps "run ×1000" runs.
pub const RUN_MANY: u64 = 1000;

/// The page's simulation: shared, and changed in place by the reducer (an action never copies
/// the simulation or its history).
#[derive(Clone)]
pub struct SimHandle(Rc<RefCell<Simulation>>, Rc<std::cell::OnceCell<Option<String>>>);

impl PartialEq for SimHandle {
    /// The same simulation (it changes in place: compare the state's version for its changes).
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl SimHandle {
    /// [`Simulation::release_retired`] (one state kept for later), unless the simulation is in
    /// use; true while more remain.
    pub(super) fn release_retired(&self) -> bool {
        self.0.try_borrow_mut().is_ok_and(|mut sim| sim.release_retired())
    }

    pub(super) fn new(scenario: Scenario) -> Self {
        let options =
            SimOptions { trace: TraceLevel::Full, keep_actions: Some(TRACE_WINDOW_ACTIONS), time_travel: true };
        SimHandle(Rc::new(RefCell::new(Simulation::with_options(scenario, options))), Rc::default())
    }

    /// Why "⤓ Flink SQL" cannot export this simulation's scenario, `json` (the text it was loaded
    /// from), worked out once per simulation: the settings Flink 2.3 has no way to express
    /// ([`crate::engine::export_sql::check_expressible`]), then the whole export of a text up to
    /// [`SQL_CHECK_MAX_BYTES`] (trial 24: a `LATEST_BY_TIME` aggregate or a sink's `PRIMARY KEY`
    /// left the button enabled, and a click refused). A longer text is exported on click only.
    pub fn sql_refusal(&self, json: &str) -> Option<String> {
        self.1
            .get_or_init(|| {
                let expressible = crate::engine::export_sql::check_expressible(self.get().scenario());
                match expressible {
                    Err(why) => Some(why.to_string()),
                    Ok(()) if json.len() <= SQL_CHECK_MAX_BYTES => {
                        crate::engine::export_sql::export(json).err().map(|why| why.to_string())
                    }
                    Ok(()) => None,
                }
            })
            .clone()
    }
    /// The simulation, to read.
    pub fn get(&self) -> Ref<'_, Simulation> {
        self.0.borrow()
    }
    /// The simulation, to change (by the reducer only).
    pub(super) fn borrow_mut(&self) -> std::cell::RefMut<'_, Simulation> {
        self.0.borrow_mut()
    }
}

/// What the page shows.
#[derive(Clone)]
pub struct AppState {
    /// The selected preset, or `None` for a scenario loaded from the editor.
    pub preset: Option<&'static str>,
    /// The Flink version the selected preset is written for (it may now run on another).
    pub preset_flink: Option<FlinkMode>,
    /// The scenario JSON the simulation was loaded from.
    pub json: String,
    /// The running simulation (`None` only if the scenario never loaded).
    pub sim: Option<SimHandle>,
    /// Why the last scenario load failed (the editor keeps the text).
    pub scenario_error: Option<String>,
    /// Why the last step or advance failed.
    pub step_error: Option<String>,
    pub playing: bool,
    /// The text of the "advance by" box (a duration in Flink's syntax).
    pub advance_text: String,
    /// Bumped on every change, so components can compare states cheaply.
    pub version: u64,
    /// Files, links and the table editor ([`super::persist`], `components::input_table`).
    pub files: FilesState,
    /// Driving: Play's speed, a skipped input, a drag, the keys help ([`super::drive_state`]).
    pub drive: DriveState,
    /// The editor's form, JSON or SQL ([`super::sql_state`]).
    pub sql: SqlState,
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
    }
}

/// What the user can do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    SelectPreset(String),
    /// Load a scenario written in the editor.
    LoadJson(String),
    /// Show the scenario in the editor as JSON or as SQL: the other form is loaded at the same
    /// position ([`super::sql_state`]).
    SetEditorMode(EditorMode),
    /// Run the scenario in the editor on another Flink version (`1.10-legacy`, `2.3`).
    SetFlink {
        flink: String,
        editor_text: String,
    },
    /// Run the next scenario step.
    Step,
    /// Run up to this many steps (stopping at the end, a blocked step or a failure).
    RunSteps(u64),
    /// Run every remaining step, in slices with progress (`to_end`).
    RunToEnd,
    /// One slice of that run (scheduled by `to_end::use_to_end`).
    ToEndSlice,
    /// Stop running to the end, where it got to.
    CancelToEnd,
    /// The "advance by" box changed.
    SetAdvanceText(String),
    /// Advance processing time by the duration in the "advance by" box (Flink's syntax: `1 h`).
    AdvanceBy,
    /// Advance processing time to the next registered timer.
    NextTimer,
    Reset,
    Play,
    Pause,
    /// One beat of Play: the next step, or stop at the end.
    Tick,
    // --- Files, links and the table editor (handled by `reduce_files`, below) ---
    /// A file chosen in the import input: loaded when the engine accepts it, else its error is
    /// shown and nothing changes.
    Import {
        file_name: String,
        text: Result<String, String>,
    },
    /// Back / Forward landed on a permalink: go to its scenario and position.
    GoTo(Position),
    /// Autosave's outcome: why it failed (quota, access), or `None`.
    StorageProblem(Option<String>),
    /// The scenario's link is too long for the address, or no longer.
    LongLink(Option<super::files_state::LongLink>),
    /// The copy-link button's outcome: the link copied, or why not (with the link to copy by hand).
    LinkCopied(Result<String, (String, String)>),
    /// A note about files to show (the Flink SQL export's outcome).
    FilesNote(super::files_state::Note),
    /// Load the conversion the engine offered when the Flink chooser was refused.
    ApplyConversion,
    /// The table editor: one input or advance step's field changed.
    EditStep {
        index: usize,
        field: StepField,
        text: String,
    },
    /// The table editor: a new input row after the last step.
    AddStep,
    /// The table editor: step `index` removed.
    DeleteStep(usize),
    /// The table editor: a retention setting changed.
    EditSetting {
        setting: Setting,
        text: String,
    },
    /// The table editor: forget the refused draft, show the scenario that runs.
    DiscardTableEdits,
    /// Forget the note about files and links.
    DismissFilesNote,
    /// Close the Flink refusal.
    DismissFlinkRefusal,
    // --- Driving through the run (handled by `reduce_drive`, in `drive_state`) ---
    /// Show operator `op`'s key labelled `key` in the state inspector (a click on its lane).
    Inspect {
        op: usize,
        key: String,
    },
    /// One action back (checkpoint + replay); Step redoes it.
    StepBack,
    /// Go to position `n` (actions) of the whole run: the scrubber.
    ScrubTo(usize),
    /// The next slice of a scrubber move replaying far ([`super::scrub_far`]).
    ScrubSlice(usize),
    /// Stop a scrubber move replaying far where it got to.
    CancelScrub,
    /// Play's speed: an index into [`SPEEDS`].
    SetSpeed(usize),
    /// Play, or pause when playing (the space key).
    TogglePlay,
    /// Forget the recorded actions after the current position ("fork from here").
    DiscardFuture,
    /// Replay the run without explicit step `n` (the scenario without it, the same actions but
    /// the one that ran it).
    SkipStep(u64),
    /// Bring the skipped step back: the scenario and position from before the skip.
    UndoSkip,
    /// Move input step `step` to `at_ms` (dragged on the timeline) and re-run to the position;
    /// `done` when the drag ended.
    MoveInput {
        step: usize,
        at_ms: Millis,
        done: bool,
    },
    /// "hide quiet steps" on or off (`q`).
    ToggleHideQuiet,
    /// Show or hide the keyboard help (`?`); `CloseKeys`: hide it (Escape).
    ToggleKeys,
    CloseKeys,
    // --- A link's position too far to replay on load (handled by `reduce_far`, in `far`) ---
    /// Go there: replay the link's actions in slices, with progress.
    GoFar,
    /// One slice of that replay (scheduled by `far::use_far`).
    FarSlice,
    /// Stop going there (stays where it got to, and can go on).
    CancelFar,
    /// Forget the link's position.
    DismissFar,
    /// Panics (feature `test-panic`, for tests/browser_crash.rs only).
    #[cfg(any(feature = "test-panic", debug_assertions))]
    #[doc(hidden)]
    TestPanic,
}

impl Default for AppState {
    fn default() -> Self {
        let blank = AppState {
            preset: None,
            preset_flink: None,
            json: String::new(),
            sim: None,
            scenario_error: None,
            step_error: None,
            playing: false,
            advance_text: String::new(),
            version: 0,
            files: FilesState::default(),
            drive: DriveState::default(),
            sql: SqlState::default(),
        };
        blank.with_preset(DEFAULT_PRESET)
    }
}

impl AppState {
    fn with_preset(mut self, name: &str) -> Self {
        match PRESETS.iter().find(|(n, _)| *n == name) {
            Some((n, json)) => {
                self = self.with_json(json.to_string());
                if self.scenario_error.is_none() {
                    self.preset = Some(n);
                    self.preset_flink = self.sim.as_ref().map(|s| s.get().scenario().flink);
                }
                self
            }
            None => {
                self.scenario_error = Some(format!("preset: no preset named {}", crate::engine::error::quote(name)));
                self
            }
        }
    }

    pub(super) fn with_json(mut self, json: String) -> Self {
        match Scenario::from_json(&json) {
            Ok(scenario) => {
                self.preset = PRESETS.iter().find(|(_, p)| *p == json).map(|(n, _)| *n);
                self.preset_flink = self.preset.map(|_| scenario.flink);
                self.advance_text = match scenario.time_format {
                    TimeFormat::DateTime => "1 h".into(),
                    TimeFormat::Millis => "1 ms".into(),
                };
                self.sim = Some(SimHandle::new(scenario));
                self.files.loaded(&json);
                self.drive.skipped = None;
                self.json = json;
                self.scenario_error = None;
                self.step_error = None;
                self.playing = false;
            }
            Err(e) => self.scenario_error = Some(e.to_string()),
        }
        self
    }

    /// Loads the editor's text on Flink `id`. Refused (with the reason, nothing lost) when the
    /// text is not valid or the scenario has settings that version does not know.
    fn with_flink(self, id: &str, editor_text: String) -> Self {
        let Some(mode) = FlinkMode::parse(id) else {
            return AppState { scenario_error: Some(format!("flink: unknown Flink version '{id}'")), ..self };
        };
        let text = match with_flink(&editor_text, mode) {
            Ok(text) => text,
            Err(e) => return AppState { scenario_error: Some(e.to_string()), ..self },
        };
        // A scenario valid on its own version but refused on `mode`: said next to the chooser.
        let refused = match Scenario::from_json(&text) {
            Err(e) if Scenario::from_json(&editor_text).is_ok() => Some(e),
            _ => None,
        };
        if let Some(e) = refused {
            return self.refuse_flink(mode, &editor_text, e);
        }
        let (preset, preset_flink) = (self.preset, self.preset_flink);
        // The run goes on from where it stood: its actions are replayed on the new version.
        let position = self.position();
        let next = self.with_json(text);
        let mut next = match (preset, &next.scenario_error) {
            // A preset on another Flink version keeps its name when that is the only change.
            (Some(p), None) if next.sim.as_ref().is_some_and(|s| s.get().scenario().name == p) => {
                AppState { preset: Some(p), preset_flink, ..next }
            }
            _ => next,
        };
        if next.scenario_error.is_none() {
            // A note about how the page was opened (a link's) no longer applies to this run
            // (trial 20: it stayed above the switched run).
            next.files.note = None;
        }
        if let (None, Some(p)) = (&next.scenario_error, position) {
            if let Err(e) = next.replay_or_defer(&p, "version switch") {
                next.step_error = Some(format!("on {} the run was replayed up to where it stopped: {e}", mode.label()));
            }
        }
        next
    }

    pub(super) fn drive(mut self, f: impl FnOnce(&mut Simulation) -> Result<(), String>) -> Self {
        self.drive.error_from_advance = false;
        self.drive.passed_quiet = None;
        if let Some(sim) = &self.sim {
            self.step_error = f(&mut sim.0.borrow_mut()).err();
            if self.step_error.is_some() {
                self.playing = false;
            }
        }
        self
    }

    /// The preset the scenario on screen was edited from: not a preset unchanged, but named as one.
    pub fn edited_preset(&self) -> Option<&'static str> {
        let name = self.sim.as_ref()?.get().scenario().name.clone();
        match self.preset {
            Some(_) => None,
            None => crate::engine::presets::PRESETS.iter().find(|(n, _)| *n == name).map(|(n, _)| *n),
        }
    }

    /// Processing time, formatted, or an empty string before any scenario loaded.
    pub fn now_text(&self) -> String {
        self.sim.as_ref().map(|s| s.get().time_format().format(s.get().now())).unwrap_or_default()
    }

    /// Whether the simulation can step (false when none loaded).
    pub(super) fn can_step(&self) -> bool {
        self.sim.as_ref().is_some_and(|s| s.get().can_step())
    }
}

/// Whether `action` carries on from the position the page stands at (rather than moving to
/// another one, as a scrub, a Back or a Reset do).
fn goes_on_from_here(action: &Action) -> bool {
    matches!(
        action,
        Action::Step
            | Action::RunSteps(_)
            | Action::NextTimer
            | Action::AdvanceBy
            | Action::Play
            | Action::TogglePlay
            | Action::DiscardFuture
    )
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut state = (*self).clone();
        let version = state.version + 1;
        let scrub = state.drive.scrub_to;
        if super::to_end::stops_it(&action) {
            state.drive.to_end = None;
            // A newer scrubber move replaces the one under way (`scrub_far`); another move stops it.
            state.drive.scrub_to = None;
            // A move that goes on from where a far scrub got to first replays the trace window
            // the views need, as its Cancel does (trial 29: a Step there showed one lane of the
            // 200 a straight run shows, and "What just happened" one key).
            if scrub.is_some() && goes_on_from_here(&action) {
                state = state.cancel_scrub(scrub);
            }
        }
        let next = match action {
            Action::SelectPreset(name) => state.with_preset(&name),
            // A Load says its own outcome: a note on an earlier import or link goes.
            Action::LoadJson(json) => {
                AppState { files: FilesState { note: None, ..state.files }, ..state }.with_json(json)
            }
            Action::SetEditorMode(mode) => state.switch_form(mode),
            Action::SetFlink { flink, editor_text } => state.with_flink(&flink, editor_text),
            Action::Step => state.step_once(),
            Action::RunSteps(n) => state.drive(|s| {
                for _ in 0..n {
                    if !s.can_step() {
                        break;
                    }
                    s.step().map_err(|e| e.to_string())?;
                }
                Ok(())
            }),
            Action::SetAdvanceText(text) => AppState { advance_text: text, ..state },
            Action::AdvanceBy => {
                let text = state.advance_text.clone();
                let mut next = state.drive(|s| {
                    let by = parse_duration(&text).map_err(|e| format!("advance by '{}': {e}", text.trim()))?;
                    if by == 0 {
                        // Not recorded: an action that changes nothing would only lengthen Back.
                        return Err(format!("advance by '{}': 0 ms moves nothing", text.trim()));
                    }
                    s.advance_by(by).map_err(|e| format!("advance by '{}': {e}", text.trim()))
                });
                next.drive.error_from_advance = next.step_error.is_some();
                next
            }
            Action::NextTimer => state.drive(|s| s.advance_to_next_timer().map_err(|e| e.to_string())),
            Action::Reset => {
                let mut state = state;
                if let Some(sim) = &state.sim {
                    let scenario = sim.get().scenario().clone();
                    state.sim = Some(SimHandle::new(scenario));
                }
                AppState { step_error: None, scenario_error: None, playing: false, ..state }
            }
            Action::Play => {
                let can = state.can_step();
                AppState { playing: can, step_error: None, ..state }
            }
            Action::Pause => AppState { playing: false, ..state },
            Action::Tick if !state.playing => return self,
            Action::Tick => {
                let beat = SPEEDS[state.drive.speed.min(SPEEDS.len() - 1)].steps_per_beat;
                let mut next = state.drive(|s| {
                    for _ in 0..beat {
                        if !s.can_step() {
                            break;
                        }
                        s.step().map_err(|e| e.to_string())?;
                    }
                    Ok(())
                });
                if !next.can_step() {
                    next.playing = false;
                }
                next
            }
            Action::StepBack
            | Action::ScrubTo(_)
            | Action::ScrubSlice(_)
            | Action::SetSpeed(_)
            | Action::TogglePlay
            | Action::DiscardFuture
            | Action::SkipStep(_)
            | Action::UndoSkip
            | Action::MoveInput { .. }
            | Action::ToggleHideQuiet
            | Action::Inspect { .. }
            | Action::ToggleKeys
            | Action::CloseKeys => state.reduce_drive(action),
            Action::CancelScrub => state.cancel_scrub(scrub),
            Action::GoFar | Action::FarSlice | Action::CancelFar | Action::DismissFar => state.reduce_far(action),
            Action::RunToEnd | Action::ToEndSlice | Action::CancelToEnd => state.reduce_to_end(action),
            #[cfg(any(feature = "test-panic", debug_assertions))]
            Action::TestPanic => panic!("test panic (feature test-panic): the reducer was asked to panic"),
            files_action => state.reduce_files(files_action),
        };
        Rc::new(AppState { version, ..next })
    }
}
