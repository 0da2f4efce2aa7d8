//! The scenario as a file: exported as JSON (an edited preset renamed) or as a Flink SQL script,
//! imported from a file chosen in the page (refused beyond [`MAX_IMPORT_BYTES`] before it is
//! read). Re-exported by [`super::persist`], which keeps the links and the autosave.

use super::files_state::Note;
use super::state::{Action, AppState};
use crate::engine::digits::grouped;
use crate::link::MAX_IMPORT_BYTES;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The export's file name: the scenario's name, with characters file systems refuse replaced.
pub fn file_name(state: &AppState) -> String {
    let name = state.sim.as_ref().map(|s| s.get().scenario().name.clone()).unwrap_or_else(|| "scenario".into());
    safe_file_name(&name)
}

fn safe_file_name(name: &str) -> String {
    let safe: String = name.chars().map(|c| if c.is_alphanumeric() || "-_.".contains(c) { c } else { '-' }).collect();
    format!("{safe}.json")
}

/// Downloads the scenario's JSON text, exactly as loaded, as `NAME.json`; a preset edited on the
/// page is renamed `NAME-edited` (title "… (edited)", [`crate::engine::scenario::as_edited_copy`]),
/// and the page says so.
pub fn export(state: &AppState, dispatch: Callback<Action>) {
    if state.edited_preset().is_some() {
        if let Ok(text) = crate::engine::scenario::as_edited_copy(&state.json) {
            let name = crate::engine::Scenario::from_json(&text).map(|s| s.name).unwrap_or_default();
            let file = safe_file_name(&name);
            download(&text, "application/json", &file);
            let text =
                format!("Exported {file}: edited from the preset, so renamed {name} (and its title marked edited)");
            dispatch.emit(Action::FilesNote(Note { text, error: false }));
            return;
        }
    }
    download(state.json.as_str(), "application/json", &file_name(state));
}

/// Downloads the Flink SQL script the engine writes for the scenario (`export_sql`), as
/// `NAME.sql`, and says so (with its warnings), or says why Flink 2.3 cannot run it.
pub fn export_sql(state: &AppState, dispatch: Callback<Action>) {
    let note = match crate::engine::export_sql::export(&state.json) {
        Ok(exported) => {
            let name = state.sim.as_ref().map(|s| s.get().scenario().name.clone()).unwrap_or_default();
            let file = crate::engine::export_sql::file_name(&name);
            download(&exported.sql(), "application/sql", &file);
            let mut text = format!("Exported {file}: it runs unchanged in Flink 2.3's SQL client");
            for warning in &exported.warnings {
                text.push_str(&format!(". Warning: {warning}"));
            }
            Note { text, error: false }
        }
        Err(refused) => Note { text: format!("Cannot export to Flink SQL: {refused}"), error: true },
    };
    dispatch.emit(Action::FilesNote(note));
}

/// Downloads `text` as the file `name`.
fn download(text: &str, mime: &str, name: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let blob = gloo_file::Blob::new_with_options(text, Some(mime));
    let url = gloo_file::ObjectUrl::from(blob);
    let Ok(anchor) = document.create_element("a") else { return };
    let Ok(anchor) = anchor.dyn_into::<web_sys::HtmlAnchorElement>() else { return };
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.set_id("export-download");
    let body = document.body();
    if let Some(body) = &body {
        let _ = body.append_child(&anchor);
    }
    anchor.click();
    anchor.remove();
    // The object URL lives a little longer than the click that downloads it.
    gloo_timers::callback::Timeout::new(10_000, move || drop(url)).forget();
}

/// Reads the file chosen in an `<input type=file>` and dispatches it as [`Action::Import`].
pub fn import(input: web_sys::HtmlInputElement, dispatch: Callback<Action>) {
    let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
    let file = gloo_file::File::from(file);
    if file.size() > MAX_IMPORT_BYTES {
        // Refused before it is read: a scenario file is text of a few KB.
        let text = Err(format!(
            "the file is {} bytes, more than the {} (4 MiB) a scenario file may be",
            grouped(file.size()),
            grouped(MAX_IMPORT_BYTES)
        ));
        dispatch.emit(Action::Import { file_name: file.name(), text });
        input.set_value("");
        return;
    }
    let busy = super::settled::pending();
    wasm_bindgen_futures::spawn_local(async move {
        let _busy = busy;
        let text = gloo_file::futures::read_as_text(&file).await.map_err(|e| e.to_string());
        dispatch.emit(Action::Import { file_name: file.name(), text });
        // The same file can be chosen again.
        input.set_value("");
    });
}
