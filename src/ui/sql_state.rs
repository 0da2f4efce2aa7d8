//! The editor's two forms of a scenario: its JSON and its SQL (a scenario with `"sql"` in place
//! of `"pipeline"`, docs/scenario-format.md). The planning, the plan text and the error positions
//! are the engine's ([`crate::engine::scenario::sql`], [`crate::engine::explain`]): this module
//! only swaps the scenario's query for the user's draft and passes the text to the engine.

use super::state::AppState;
use crate::engine::error::ScenarioError;
use crate::engine::explain::{explain, plan_notes};
use crate::engine::export_sql;
use crate::engine::planner;
use crate::engine::scenario::sql::{error_location, to_json_form, MODELLED_OPTIONS};
use crate::engine::Scenario;
use serde_json::Value;

/// Which form the editor shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EditorMode {
    #[default]
    Json,
    Sql,
}

/// What the page keeps about the editor's forms.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SqlState {
    pub mode: EditorMode,
    /// The two forms of the last switch: switching back loads the one it started from, as the
    /// user wrote it (its SQL text, its operator ids).
    pub forms: Option<Forms>,
    /// Why the switch could not give the loaded scenario's other form.
    pub note: Option<String>,
}

/// A scenario as JSON and as SQL: one written by the user, the other made of it by the engine
/// ([`to_json_form`], [`sql_form`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Forms {
    pub json: String,
    pub sql: String,
}

/// A SQL draft planned by the engine over the loaded scenario's source and steps.
#[derive(Clone, Debug, PartialEq)]
pub enum Planned {
    /// Nothing written yet.
    Empty,
    /// The plan as Flink's `EXPLAIN CHANGELOG_MODE` prints it, what it leaves unsaid
    /// ([`crate::engine::explain::plan_notes`]), and the scenario to load.
    Plan { explain: String, notes: Vec<&'static str>, scenario: String },
    /// The engine's error (`sql: line L, column C: …`), and the position it names.
    Error { message: String, at: Option<(u64, u64)> },
}

/// The `"sql"` of a scenario's text, if it has one.
pub fn sql_of(json: &str) -> Option<String> {
    let value: Value = serde_json::from_str(json.strip_prefix('\u{feff}').unwrap_or(json)).ok()?;
    value.get("sql")?.as_str().map(str::to_string)
}

/// The scenario `json` with `sql` as its query: `"sql"` in place of its `"sql"` or `"pipeline"`
/// (at the same place among its fields), or after `"source"` when it has neither.
///
/// # Errors
/// When `json` is not a JSON object (the JSON editor says why).
pub fn with_sql(json: &str, sql: &str) -> Result<String, ScenarioError> {
    let value: Value = serde_json::from_str(json.strip_prefix('\u{feff}').unwrap_or(json))
        .map_err(|e| ScenarioError::new("", format!("the loaded scenario is not valid JSON: {e}")))?;
    let Value::Object(fields) = value else {
        return Err(ScenarioError::new("", "the loaded scenario is not a JSON object"));
    };
    let has_query = fields.contains_key("sql") || fields.contains_key("pipeline");
    let mut out = serde_json::Map::new();
    for (key, v) in fields {
        match key.as_str() {
            "sql" | "pipeline" => {
                out.insert("sql".into(), sql.into());
            }
            "source" | "sources" if !has_query => {
                out.insert(key, v);
                out.insert("sql".into(), sql.into());
            }
            _ => {
                out.insert(key, v);
            }
        }
    }
    if !out.contains_key("sql") {
        out.insert("sql".into(), sql.into());
    }
    serde_json::to_string_pretty(&Value::Object(out)).map_err(|e| ScenarioError::new("", e.to_string()))
}

/// Plans `sql` as the query of the loaded scenario `json`: what the editor shows under the draft.
pub fn plan_draft(json: &str, sql: &str) -> Planned {
    if sql.trim().is_empty() {
        return Planned::Empty;
    }
    let planned = with_sql(json, sql).and_then(|text| Scenario::from_json(&text).map(|s| (s, text)));
    match planned {
        Ok((scenario, text)) => {
            Planned::Plan { explain: explain(&scenario), notes: plan_notes(&scenario), scenario: text }
        }
        Err(e) => Planned::Error { message: e.to_string(), at: error_location(&e) },
    }
}

/// The SQL form of a scenario written with a JSON `"pipeline"` (the switch JSON → SQL): the
/// engine's export ([`export_sql::export`]) as a `"sql"` over the same source
/// ([`export_sql::Exported::planner_sql`]: its `SET`s, one view per operator, the sink and the
/// `INSERT INTO`), in place of the pipeline and of the fields its `SET`s set.
///
/// # Errors
/// What the export refuses (a legacy mode, a changelog source, a workload, …), with its reason.
pub fn sql_form(json: &str) -> Result<String, String> {
    let refused = |why: String| format!("this scenario has no SQL form: {why}");
    let sql = export_sql::export(json).map_err(|r| refused(r.to_string()))?.planner_sql();
    let set = planner::script::parse(&sql).map_err(|e| refused(e.to_string()))?.options;
    let mut value: Value =
        serde_json::from_str(json.strip_prefix('\u{feff}').unwrap_or(json)).map_err(|e| refused(e.to_string()))?;
    if let Value::Object(fields) = &mut value {
        for option in &set {
            if let Some((_, field)) = MODELLED_OPTIONS.iter().find(|(key, _)| *key == option.key) {
                fields.remove(field.split('.').next().unwrap_or(field));
            }
        }
    }
    let text = serde_json::to_string(&value).map_err(|e| refused(e.to_string()))?;
    with_sql(&text, &sql).map_err(|e| refused(e.to_string()))
}

impl AppState {
    /// Whether the loaded scenario is written in SQL.
    pub fn is_sql(&self) -> bool {
        self.sim.as_ref().is_some_and(|s| s.get().scenario().sql.is_some())
    }

    /// Switches the editor to `mode`, loading the loaded scenario's other form at the page's
    /// position (the same pipeline, so the same run): SQL → JSON by the engine's
    /// [`to_json_form`]; JSON → SQL back to the SQL the JSON form was made from (as the user
    /// wrote it), else by the engine's export ([`sql_form`]).
    pub(super) fn switch_form(mut self, mode: EditorMode) -> Self {
        self.sql.note = None;
        if self.sql.mode == mode {
            return self;
        }
        self.sql.mode = mode;
        // The other side of the last switch, when the page still holds its result.
        let back = self.sql.forms.as_ref().and_then(|f| match mode {
            EditorMode::Json if f.sql == self.json => Some(f.json.clone()),
            EditorMode::Sql if f.json == self.json => Some(f.sql.clone()),
            _ => None,
        });
        if let Some(text) = back {
            return self.load_at_position(text);
        }
        let converted = match mode {
            EditorMode::Json if self.is_sql() => to_json_form(&self.json).map_err(|e| e.to_string()),
            EditorMode::Sql if !self.is_sql() => sql_form(&self.json),
            _ => return self,
        };
        match converted {
            Ok(text) => {
                let forms = match mode {
                    EditorMode::Json => Forms { json: text.clone(), sql: self.json.clone() },
                    EditorMode::Sql => Forms { json: self.json.clone(), sql: text.clone() },
                };
                let mut next = self.load_at_position(text);
                if next.scenario_error.is_none() {
                    next.sql.forms = Some(forms);
                }
                next
            }
            Err(why) => {
                match mode {
                    EditorMode::Sql => {
                        self.sql.note =
                            Some(format!("{why} — you can write a query over its source table here and Apply it"))
                    }
                    EditorMode::Json => self.scenario_error = Some(why),
                }
                self
            }
        }
    }

    /// Loads `text`, another form of the loaded scenario, and replays the page's actions on it
    /// (as the table editor does: [`AppState::apply_table`]).
    fn load_at_position(self, text: String) -> Self {
        let position = self.position();
        let mut next = self.with_json(text);
        if next.scenario_error.is_some() {
            return next;
        }
        if let Some(p) = position {
            if let Err(e) = next.replay(p.actions()) {
                next.step_error = Some(format!("the other form replayed up to where it stopped: {e}"));
            }
        }
        next
    }
}
