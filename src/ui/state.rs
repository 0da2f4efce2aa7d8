//! The page's state and the actions that change it. Every Flink rule is the engine's: the
//! reducer only calls [`Simulation`] and keeps what it says (including its errors) for display.

use crate::engine::presets::{DEFAULT_PRESET, PRESETS};
use crate::engine::scenario::with_flink;
use crate::engine::time::{parse_duration, TimeFormat};
use crate::engine::{FlinkMode, Scenario, SimOptions, Simulation, TraceLevel};
use std::cell::{Ref, RefCell};
use std::rc::Rc;
use yew::Reducible;

/// How many of the last actions' trace entries the page keeps (the timeline and the changelog
/// chips show them); anything older is produced again by replay when needed.
pub const TRACE_WINDOW_ACTIONS: usize = 400;

/// How many steps "run ×1000" runs.
pub const RUN_MANY: u64 = 1000;

/// The page's simulation: shared, and changed in place by the reducer (an action never copies
/// the simulation or its history).
#[derive(Clone)]
pub struct SimHandle(Rc<RefCell<Simulation>>);

impl SimHandle {
    fn new(scenario: Scenario) -> Self {
        let options =
            SimOptions { trace: TraceLevel::Full, keep_actions: Some(TRACE_WINDOW_ACTIONS), time_travel: true };
        SimHandle(Rc::new(RefCell::new(Simulation::with_options(scenario, options))))
    }
    /// The simulation, to read.
    pub fn get(&self) -> Ref<'_, Simulation> {
        self.0.borrow()
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
    /// Run the scenario in the editor on another Flink version (`1.10-legacy`, `2.3`).
    SetFlink {
        flink: String,
        editor_text: String,
    },
    /// Run the next scenario step.
    Step,
    /// Run up to this many steps (stopping at the end, a blocked step or a failure).
    RunSteps(u64),
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
                self.scenario_error = Some(format!("preset: no preset named '{name}'"));
                self
            }
        }
    }

    fn with_json(mut self, json: String) -> Self {
        match Scenario::from_json(&json) {
            Ok(scenario) => {
                self.preset = PRESETS.iter().find(|(_, p)| *p == json).map(|(n, _)| *n);
                self.preset_flink = self.preset.map(|_| scenario.flink);
                self.advance_text = match scenario.time_format {
                    TimeFormat::DateTime => "1 h".into(),
                    TimeFormat::Millis => "1 ms".into(),
                };
                self.sim = Some(SimHandle::new(scenario));
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
        let (preset, preset_flink) = (self.preset, self.preset_flink);
        let next = self.with_json(text);
        match (preset, &next.scenario_error) {
            // A preset on another Flink version keeps its name when that is the only change.
            (Some(p), None) if next.sim.as_ref().is_some_and(|s| s.get().scenario().name == p) => {
                AppState { preset: Some(p), preset_flink, ..next }
            }
            _ => next,
        }
    }

    fn drive(mut self, f: impl FnOnce(&mut Simulation) -> Result<(), String>) -> Self {
        if let Some(sim) = &self.sim {
            self.step_error = f(&mut sim.0.borrow_mut()).err();
            if self.step_error.is_some() {
                self.playing = false;
            }
        }
        self
    }

    /// Processing time, formatted, or an empty string before any scenario loaded.
    pub fn now_text(&self) -> String {
        self.sim.as_ref().map(|s| s.get().time_format().format(s.get().now())).unwrap_or_default()
    }

    /// Whether the simulation can step (false when none loaded).
    fn can_step(&self) -> bool {
        self.sim.as_ref().is_some_and(|s| s.get().can_step())
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let state = (*self).clone();
        let version = state.version + 1;
        let next = match action {
            Action::SelectPreset(name) => state.with_preset(&name),
            Action::LoadJson(json) => state.with_json(json),
            Action::SetFlink { flink, editor_text } => state.with_flink(&flink, editor_text),
            Action::Step => state.drive(|s| s.step().map_err(|e| e.to_string())),
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
                state.drive(|s| {
                    let by = parse_duration(&text).map_err(|e| format!("advance by '{}': {e}", text.trim()))?;
                    s.advance_by(by).map_err(|e| format!("advance by '{}': {e}", text.trim()))
                })
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
                let mut next = state.drive(|s| s.step().map_err(|e| e.to_string()));
                if !next.can_step() {
                    next.playing = false;
                }
                next
            }
        };
        Rc::new(AppState { version, ..next })
    }
}
