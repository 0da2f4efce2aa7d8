//! What the page keeps about files, links and the table editor, and the table editor's edits of
//! the scenario's JSON. No rule is decided here: an edit is a change of the JSON text, applied by
//! loading that text with the engine's scenario parser, whose error (field and rule) is shown next
//! to the field.

use crate::engine::digits::grouped;
use crate::engine::scenario::RetentionConversion;
use crate::engine::{Action as EngineAction, FlinkMode, ScenarioError};
use serde_json::{Map, Value};
use std::rc::Rc;

/// Files, links and the table editor.
#[derive(Clone, Default)]
pub struct FilesState {
    /// The scenario as JSON values, for the table editor: the loaded scenario's, or the user's
    /// edit that the engine refused (then `table_error` says why, and the previous run goes on).
    pub table: Rc<Value>,
    /// Why the table's last edit was refused.
    pub table_error: Option<ScenarioError>,
    /// Why the Flink chooser's last choice was refused.
    pub flink_refusal: Option<FlinkRefusal>,
    /// A note about files and links: an import refused or done, a link that could not be opened,
    /// the copy-link outcome.
    pub note: Option<Note>,
    /// Why autosave failed (quota, access).
    pub storage_error: Option<String>,
    /// Why the address does not carry the scenario's link: longer than
    /// [`crate::link::MAX_ADDRESS_CHARS`].
    pub long_link: Option<LongLink>,
    /// A link's position not replayed on load ([`super::far`]).
    pub far: Option<super::far::Far>,
}

impl FilesState {
    /// A scenario was loaded from `json`: the table shows it, earlier refusals are void.
    pub(super) fn loaded(&mut self, json: &str) {
        self.table =
            Rc::new(serde_json::from_str(json.strip_prefix('\u{feff}').unwrap_or(json)).unwrap_or(Value::Null));
        self.table_error = None;
        self.flink_refusal = None;
        self.far = None;
    }
}

/// A scenario whose link the address does not carry ([`crate::link::MAX_ADDRESS_CHARS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LongLink {
    /// The compressed scenario alone is this many characters.
    Compressed(usize),
    /// The scenario's text is this many bytes, more than [`crate::link::MAX_LINKED_TEXT_BYTES`]:
    /// not compressed.
    Text(usize),
}

impl LongLink {
    /// What the page says about it.
    pub fn text(self) -> String {
        let max = crate::link::MAX_ADDRESS_CHARS;
        let what = match self {
            LongLink::Compressed(chars) => {
                format!("This scenario's link would be more than {} characters long", grouped(chars))
            }
            LongLink::Text(bytes) => {
                format!("This scenario is {} bytes of text: its link would be far longer", grouped(bytes))
            }
        };
        format!(
            "{what} — over the {} characters a web server is sure to accept, so the address bar does not carry it. A reload \
             brings the scenario back from this browser's autosave; to share it, export it (⤓ Export) and send the file.",
            grouped(max)
        )
    }
}

/// A note for the user, an error or not.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    pub text: String,
    pub error: bool,
}

impl Note {
    /// The copy-link button's outcome: the link copied, or why not (with the link to copy by
    /// hand). A link longer than a web server is sure to accept
    /// ([`crate::link::MAX_ADDRESS_CHARS`]) is said, not written out whole; briefly when the
    /// long-link note (`long_note`) already says what to do (trial 22: said twice).
    pub fn link_copied(outcome: Result<String, (String, String)>, long_note: bool) -> Note {
        let url = match &outcome {
            Ok(url) | Err((url, _)) => url,
        };
        let long = (url.len() > crate::link::MAX_ADDRESS_CHARS).then(|| match long_note {
            true => format!(
                "it is {} characters long, too long for a web server: the note above says what to do",
                grouped(url.len())
            ),
            false => format!(
                "it is {} characters long, more than the {} a web server is sure to accept (it may answer 414 \
                 URI Too Long): to share this scenario, export it (⤓ Export) and send the file",
                grouped(url.len()),
                grouped(crate::link::MAX_ADDRESS_CHARS)
            ),
        });
        match (outcome, long) {
            (Ok(url), None) => Note { text: format!("Link copied: {url}"), error: false },
            (Ok(_), Some(long)) => Note { text: format!("Link copied, but {long}"), error: true },
            (Err((url, why)), None) => {
                Note { text: format!("Could not copy the link ({why}); copy it from here: {url}"), error: true }
            }
            (Err((_, why)), Some(long)) => {
                Note { text: format!("Could not copy the link ({why}); {long}"), error: true }
            }
        }
    }
}

/// A Flink version the scenario cannot run on, and the engine's conversion when it has one.
#[derive(Clone, Debug, PartialEq)]
pub struct FlinkRefusal {
    pub flink: FlinkMode,
    /// The engine's error: field and rule.
    pub error: ScenarioError,
    pub conversion: Option<RetentionConversion>,
}

/// Which scenario a permalink or the autosave names: a preset, shorter, or the JSON text.
#[derive(Clone, Debug, PartialEq)]
pub enum ScenarioRef {
    Preset(String),
    Json(String),
}

/// A scenario and the driving actions carried out on it, run-length encoded (`(Step, 3)`): where a
/// permalink or the autosave puts the page.
#[derive(Clone, Debug, PartialEq)]
pub struct Position {
    pub scenario: ScenarioRef,
    pub actions: Vec<(EngineAction, u64)>,
}

impl Position {
    /// The actions one by one.
    pub fn actions(&self) -> impl Iterator<Item = EngineAction> + '_ {
        self.actions.iter().flat_map(|(a, n)| std::iter::repeat_n(*a, *n as usize))
    }
    /// How many actions.
    pub fn action_count(&self) -> u64 {
        self.actions.iter().map(|(_, n)| n).sum()
    }
}

/// A field of one step in the table editor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepField {
    /// `at`: the row's processing time (empty: the current time).
    At,
    /// `kind`: `+I`, `-U`, `+U`, `-D`.
    Kind,
    /// `row[i]`.
    Column(usize),
    AdvanceTo,
    AdvanceBy,
}

impl StepField {
    /// The field's JSON path in step `index`, as the engine's errors name it.
    pub fn path(self, index: usize) -> String {
        match self {
            StepField::At => format!("steps[{index}].at"),
            StepField::Kind => format!("steps[{index}].kind"),
            StepField::Column(i) => format!("steps[{index}].row[{i}]"),
            StepField::AdvanceTo => format!("steps[{index}].advance_to"),
            StepField::AdvanceBy => format!("steps[{index}].advance_by"),
        }
    }
}

/// A retention setting in the table editor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// `state_ttl` (`table.exec.state.ttl`).
    StateTtl,
    /// `idle_state_retention.min`.
    IdleMin,
    /// `idle_state_retention.max`.
    IdleMax,
    /// `idle_state_retention.test_harness` (`true` / `false`).
    TestHarness,
}

impl Setting {
    /// The field's JSON path.
    pub fn path(self) -> &'static str {
        match self {
            Setting::StateTtl => "state_ttl",
            Setting::IdleMin => "idle_state_retention.min",
            Setting::IdleMax => "idle_state_retention.max",
            Setting::TestHarness => "idle_state_retention.test_harness",
        }
    }
}

/// How a cell shows a JSON value: strings as they are, `null` as `null`.
pub fn cell_text(value: Option<&Value>) -> String {
    match value {
        None => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// A time or duration as typed: whole milliseconds as a number, anything else as a string for the
/// engine to read (`"2019-11-20T15:00"`, `"5 min"`); empty means absent.
fn time_value(text: &str) -> Option<Value> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    Some(t.parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::String(t.to_string())))
}

/// A cell as typed, for a column of SQL type `ty`: `null` is NULL; numbers for `INT`/`BIGINT`,
/// `true`/`false` for `BOOLEAN` when the text is one; anything else stays a string, for the
/// engine to accept (a `STRING` column) or refuse with its message.
fn cell_value(text: &str, ty: &str) -> Value {
    if text == "null" {
        return Value::Null;
    }
    let number = text.trim().parse::<i64>().ok().map(Value::from);
    let boolean = match text.trim() {
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        _ => None,
    };
    match ty.to_ascii_uppercase().as_str() {
        "INT" | "BIGINT" => number,
        "BOOLEAN" => boolean,
        _ => None,
    }
    .unwrap_or_else(|| Value::String(text.to_string()))
}

/// One source table as the scenario's JSON writes it: its name and its columns' names and
/// types (as written: `"INT"`).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceColumns {
    pub name: String,
    pub names: Vec<String>,
    pub types: Vec<String>,
}

/// The scenario's source tables, as written: `sources` (several), or the one `source`.
pub fn sources(table: &Value) -> Vec<SourceColumns> {
    let one = |s: &Value| {
        let schema = s.get("schema").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let text = |c: &Value, i: usize, default: &str| c.get(i).and_then(Value::as_str).unwrap_or(default).to_string();
        SourceColumns {
            name: s.get("name").and_then(Value::as_str).unwrap_or("?").to_string(),
            names: schema.iter().map(|c| text(c, 0, "?")).collect(),
            types: schema.iter().map(|c| text(c, 1, "STRING")).collect(),
        }
    };
    match (table.get("sources").and_then(Value::as_array), table.get("source")) {
        (Some(list), _) => list.iter().map(one).collect(),
        (None, Some(source)) => vec![one(source)],
        (None, None) => Vec::new(),
    }
}

/// The index in [`sources`] of the source an input step names (`"source"`), or the first when
/// it names none (the engine says when one is needed) or one the scenario has not.
pub fn step_source(sources: &[SourceColumns], step: &Value) -> usize {
    let named = step.get("source").and_then(Value::as_str);
    named.and_then(|n| sources.iter().position(|s| s.name == n)).unwrap_or(0)
}

/// The first source's column names (a scenario of one source: its only one).
pub fn column_names(table: &Value) -> Vec<String> {
    sources(table).into_iter().next().map(|s| s.names).unwrap_or_default()
}

fn steps_mut(table: &mut Value) -> Option<&mut Vec<Value>> {
    let obj = table.as_object_mut()?;
    obj.entry("steps").or_insert_with(|| Value::Array(Vec::new())).as_array_mut()
}

fn set_or_remove(obj: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    match value {
        Some(v) => {
            obj.insert(key.to_string(), v);
        }
        None => {
            obj.shift_remove(key);
        }
    }
}

/// The table with step `index`'s `field` set to `text`.
pub fn edit_step(table: &Value, index: usize, field: StepField, text: &str) -> Value {
    let all = sources(table);
    let mut table = table.clone();
    let Some(step) = steps_mut(&mut table).and_then(|s| s.get_mut(index)).and_then(Value::as_object_mut) else {
        return table;
    };
    // A row's cells take the types of the source it comes from.
    let types = all.get(step_source(&all, &Value::Object(step.clone()))).map(|s| s.types.clone()).unwrap_or_default();
    match field {
        StepField::At => set_or_remove(step, "at", time_value(text)),
        StepField::Kind => {
            let kind = (!text.is_empty() && text != "+I").then(|| Value::String(text.to_string()));
            set_or_remove(step, "kind", kind)
        }
        StepField::AdvanceTo => set_or_remove(step, "advance_to", time_value(text)),
        StepField::AdvanceBy => set_or_remove(step, "advance_by", time_value(text)),
        StepField::Column(i) => {
            let ty = types.get(i).map_or("STRING", String::as_str);
            if let Some(cells) = step.get_mut("row").and_then(Value::as_array_mut) {
                if let Some(cell) = cells.get_mut(i) {
                    *cell = cell_value(text, ty);
                }
            }
        }
    }
    table
}

/// The table with a new input row after the last step: a copy of the last input row (or NULLs
/// of the first source) at the last time written, from the same source.
pub fn add_step(table: &Value) -> Value {
    let width = sources(table).first().map_or(0, |s| s.types.len());
    let mut table = table.clone();
    let Some(steps) = steps_mut(&mut table) else { return table };
    let last_row = steps.iter().rev().find(|s| s.get("row").is_some());
    let row = last_row.and_then(|s| s.get("row")).cloned().unwrap_or_else(|| Value::Array(vec![Value::Null; width]));
    let source = last_row.and_then(|s| s.get("source")).cloned();
    let last_time = steps.iter().rev().find_map(|s| s.get("at").or_else(|| s.get("advance_to"))).cloned();
    let mut step = Map::new();
    if let Some(at) = last_time {
        step.insert("at".into(), at);
    }
    if let Some(source) = source {
        step.insert("source".into(), source);
    }
    step.insert("row".into(), row);
    steps.push(Value::Object(step));
    table
}

/// The table without step `index`.
pub fn delete_step(table: &Value, index: usize) -> Value {
    let mut table = table.clone();
    if let Some(steps) = steps_mut(&mut table) {
        if index < steps.len() {
            steps.remove(index);
        }
    }
    table
}

/// The table with a retention setting set to `text` (empty removes it; `idle_state_retention`
/// goes when both bounds are empty).
pub fn edit_setting(table: &Value, setting: Setting, text: &str) -> Value {
    let mut table = table.clone();
    let Some(obj) = table.as_object_mut() else { return table };
    if setting == Setting::StateTtl {
        set_or_remove(obj, "state_ttl", time_value(text));
        return table;
    }
    let idle = obj.entry("idle_state_retention").or_insert_with(|| Value::Object(Map::new()));
    if let Some(idle) = idle.as_object_mut() {
        match setting {
            Setting::IdleMin => set_or_remove(idle, "min", time_value(text)),
            Setting::IdleMax => set_or_remove(idle, "max", time_value(text)),
            _ => set_or_remove(idle, "test_harness", (text == "true").then_some(Value::Bool(true))),
        }
        if idle.is_empty() {
            obj.shift_remove("idle_state_retention");
        }
    }
    table
}
