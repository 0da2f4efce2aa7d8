//! The page state's part for files, links and the table editor ([`super::super::files_state`]
//! holds their state, [`super::super::persist`] the links): opening a position (a link, the
//! autosave), going to one (Back / Forward), applying the table editor, import and export.

use super::{Action, AppState, FlinkMode, FlinkRefusal, Note, Position, Scenario, ScenarioRef, DEFAULT_PRESET};
use std::rc::Rc;

impl AppState {
    /// The page opened at `position` (a permalink, `what` = "link", or the autosave): its
    /// scenario, then its actions replayed (more than [`super::super::far::MAX_ACTIONS_ON_OPEN`] are
    /// left for "Go there": [`super::far`]). When the scenario cannot be loaded the default preset
    /// is, and a note says why.
    pub fn open(position: &Position, what: &str) -> AppState {
        AppState::open_with(position, what, true)
    }

    /// [`AppState::open`], all the actions replayed now when `!defer` (`mount`'s `step`, which
    /// its caller asked for).
    pub fn open_with(position: &Position, what: &str, defer: bool) -> AppState {
        let state = AppState::default();
        let mut state = match &position.scenario {
            ScenarioRef::Preset(name) => state.with_preset(name),
            ScenarioRef::Json(json) => state.with_json(json.clone()),
        };
        if let Some(err) = state.scenario_error.take() {
            let mut state = AppState::default();
            // The link's or the autosave's JSON was never text the user saw: no position in it.
            let err = crate::engine::error::without_json_position(&err);
            state.files.note = Some(Note {
                text: format!("{what}: {err} — the default preset '{DEFAULT_PRESET}' is loaded instead"),
                error: true,
            });
            return state;
        }
        // A link of steps only (`step=`) past the scenario's last step opens at its end, said as
        // `mount`'s `step` option says it (trial 22: "action 3 (the next step) could not run").
        let steps = state.sim.as_ref().map_or(0, |h| h.get().step_count());
        let only_steps = position.actions.iter().all(|(a, _)| *a == crate::engine::Action::Step);
        let asked = position.action_count();
        let (position, past_end) = match only_steps && asked > steps {
            true => {
                let at_end = (steps > 0).then_some((crate::engine::Action::Step, steps));
                (&Position { scenario: position.scenario.clone(), actions: at_end.into_iter().collect() }, true)
            }
            false => (position, false),
        };
        let replayed = if defer { state.replay_or_defer(position, what) } else { state.replay(position.actions()) };
        if let Err(e) = replayed {
            state.files.note = Some(Note { text: format!("{what}: {e}: opened where it stopped"), error: true });
        } else if past_end {
            let past = super::super::mount::past_last_step("step", asked, steps);
            // A position too far to replay on load is offered ("Go there"), not opened (trial 28:
            // "opened at its end" above a banner saying it opened at the start).
            // (Said so that it stays true once "Go there" has gone: trial 29.)
            let end = crate::ui::far::spaced(steps);
            let opened = if state.files.far.is_some() {
                format!("the link goes to its end, step {end}")
            } else {
                "opened at its end".into()
            };
            let text = format!("{what}: {past} — {opened}");
            state.files.note = Some(Note { text, error: true });
        }
        state
    }

    /// The position the permalink and the autosave keep: where the page stands, or, while a
    /// link's far position is pending and the page has not moved since, that position (a reload
    /// offers it again).
    pub fn persisted_position(&self) -> Option<Position> {
        let here = self.position()?;
        match &self.files.far {
            Some(far) if here.action_count() == far.done => Some(far.position(here.scenario)),
            _ => Some(here),
        }
    }

    /// Carries out `actions` one by one, stopping at the first that cannot run.
    pub(in crate::ui) fn replay(&mut self, actions: impl Iterator<Item = crate::engine::Action>) -> Result<(), String> {
        let Some(sim) = &self.sim else { return Ok(()) };
        let mut sim = sim.0.borrow_mut();
        for (i, a) in actions.enumerate() {
            if let Err(e) = sim.act(a) {
                return Err(format!("action {} ({}) could not run — {e}", i + 1, sim.describe_planned(a)));
            }
        }
        Ok(())
    }

    /// Whether the loaded scenario is `scenario`.
    fn is_scenario(&self, scenario: &ScenarioRef) -> bool {
        match scenario {
            ScenarioRef::Preset(name) => crate::engine::presets::preset_json(name) == Some(self.json.as_str()),
            ScenarioRef::Json(json) => *json == self.json,
        }
    }

    /// Where the page stands: the scenario (a preset's name when it is one unchanged) and the
    /// actions carried out, for the permalink and the autosave.
    pub fn position(&self) -> Option<Position> {
        let sim = self.sim.as_ref()?.get();
        let scenario = match self.preset.filter(|p| crate::engine::presets::preset_json(p) == Some(self.json.as_str()))
        {
            Some(p) => ScenarioRef::Preset(p.to_string()),
            None => ScenarioRef::Json(self.json.clone()),
        };
        let done = sim.action_count().min(sim.history().len());
        Some(Position { scenario, actions: sim.history_runs(done) })
    }

    /// Back / Forward: the same scenario goes to the position by [`Simulation::seek`] (to the
    /// longest recorded prefix) and carries out the rest; another scenario is opened.
    fn go_to(mut self, position: &Position) -> Self {
        if !self.is_scenario(&position.scenario) {
            let advance_text = self.advance_text.clone();
            return AppState { advance_text, ..AppState::open(position, "link") };
        }
        self.playing = false;
        self.step_error = None;
        let Some(handle) = self.sim.clone() else { return self };
        let common = {
            let sim = handle.get();
            sim.history().iter().zip(position.actions()).take_while(|(a, b)| **a == *b).count()
        };
        let sought = handle.0.borrow_mut().seek(common);
        let result = sought.map_err(|e| e.to_string()).and_then(|()| self.replay(position.actions().skip(common)));
        if let Err(e) = result {
            self.files.note = Some(Note { text: format!("link: {e}"), error: true });
        }
        self
    }

    /// Applies the table editor's `table`: loaded through the engine's parser at the position the
    /// page was at (its actions replayed, up to the first that no longer runs), or, when refused,
    /// kept in the table with the error while the previous run goes on.
    pub(in crate::ui) fn apply_table(mut self, table: serde_json::Value) -> Self {
        let text = serde_json::to_string_pretty(&table).unwrap_or_default();
        match Scenario::from_json(&text) {
            Ok(_) => {
                let position = self.position();
                let mut next = self.with_json(text);
                if let Some(p) = position {
                    // An action that no longer runs (the edit removed a step, or moved one before
                    // the time the run had reached) stops the replay there, and says so.
                    if let Err(e) = next.replay(p.actions()) {
                        next.step_error = Some(format!("the edited scenario replayed up to where it stopped: {e}"));
                    }
                }
                next
            }
            Err(e) => {
                self.files.table = Rc::new(table);
                self.files.table_error = Some(e);
                self
            }
        }
    }

    /// The Flink chooser's `mode` refused for the editor's scenario: said next to the chooser,
    /// with the engine's conversion when it has one; the previous run goes on.
    pub(super) fn refuse_flink(
        mut self,
        mode: FlinkMode,
        editor_text: &str,
        error: crate::engine::ScenarioError,
    ) -> Self {
        // Offered only when the converted scenario runs on `mode` (a refusal for an operator
        // `mode` does not model is not the retention's: converting it would change nothing).
        let conversion = crate::engine::scenario::idle_state_retention_as_state_ttl(editor_text, mode)
            .ok()
            .flatten()
            .filter(|c| Scenario::from_json(&c.text).is_ok());
        self.files.flink_refusal = Some(FlinkRefusal { flink: mode, error, conversion });
        self
    }

    pub(super) fn reduce_files(mut self, action: Action) -> Self {
        match action {
            Action::Import { file_name, text } => {
                let loaded = text.and_then(|t| Scenario::from_json(&t).map(|_| t).map_err(|e| e.to_string()));
                match loaded {
                    Ok(text) => {
                        let mut next = self.with_json(text);
                        next.files.note = Some(Note { text: format!("Imported {file_name}"), error: false });
                        next
                    }
                    Err(e) => {
                        self.files.note = Some(Note {
                            text: format!("import '{file_name}': {e} — nothing was changed"),
                            error: true,
                        });
                        self
                    }
                }
            }
            Action::GoTo(position) => self.go_to(&position),
            Action::StorageProblem(problem) => {
                self.files.storage_error = problem;
                self
            }
            Action::LongLink(long) => {
                self.files.long_link = long;
                self
            }
            Action::LinkCopied(outcome) => {
                self.files.note = Some(Note::link_copied(outcome, self.files.long_link.is_some()));
                self
            }
            Action::FilesNote(note) => {
                self.files.note = Some(note);
                self
            }
            Action::ApplyConversion => match self.files.flink_refusal.take().and_then(|r| r.conversion) {
                Some(c) => {
                    // At the position the page was at, as a plain switch of the version (a far
                    // one left for "Go there").
                    let position = self.position();
                    let mut next = self.with_json(c.text);
                    if next.scenario_error.is_none() {
                        next.files.note = Some(Note { text: format!("Converted: {}", c.summary), error: false });
                        if let Some(p) = position {
                            if let Err(e) = next.replay_or_defer(&p, "conversion") {
                                next.step_error =
                                    Some(format!("the converted scenario replayed up to where it stopped: {e}"));
                            }
                        }
                    }
                    next
                }
                None => self,
            },
            Action::EditStep { index, field, text } => {
                let table = super::super::files_state::edit_step(&self.files.table, index, field, &text);
                self.apply_table(table)
            }
            Action::AddStep => {
                let table = super::super::files_state::add_step(&self.files.table);
                self.apply_table(table)
            }
            Action::DeleteStep(index) => {
                let table = super::super::files_state::delete_step(&self.files.table, index);
                self.apply_table(table)
            }
            Action::EditSetting { setting, text } => {
                let table = super::super::files_state::edit_setting(&self.files.table, setting, &text);
                self.apply_table(table)
            }
            Action::DiscardTableEdits => {
                let json = self.json.clone();
                self.files.loaded(&json);
                self
            }
            Action::DismissFilesNote => {
                self.files.note = None;
                self
            }
            Action::DismissFlinkRefusal => {
                self.files.flink_refusal = None;
                self
            }
            // The actions above are the only ones `reduce` passes here.
            _ => self,
        }
    }
}
