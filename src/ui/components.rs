//! The parts of the page, one per file. Each is a function from state to `Html`.

pub mod bookmarks;
pub mod charts;
pub mod compare;
pub mod controls;
pub mod editor;
pub mod flow;
pub mod happened;
pub mod header;
pub mod input_table;
pub mod inspector;
pub mod keys;
pub mod measure;
pub mod operators;
pub mod result;
pub mod scrubber;
pub mod sql_editor;
pub mod timeline;
pub mod timeline_inputs;
pub mod timeline_lanes;
pub mod tour;
pub mod what_if;

use crate::engine::row::Change;

/// The most characters of one value or changelog message a view writes: a longer one (a
/// 20 000-character key from anyone's link) is cut with `…`, whole in the exported files.
pub const MAX_SHOWN_CHARS: usize = 300;

/// `text` as a view writes it: cut at [`MAX_SHOWN_CHARS`].
pub fn shown(text: impl std::fmt::Display) -> String {
    let text = text.to_string();
    match crate::engine::error::cut(&text, MAX_SHOWN_CHARS) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(cut) => cut,
    }
}

/// The CSS class of a changelog kind: `k-I`, `k-UB`, `k-UA`, `k-D`, `k-true`, `k-false`.
pub fn kind_class(change: Change) -> &'static str {
    use crate::engine::row::RowKind::*;
    match change {
        Change::Kind(Insert) => "k-I",
        Change::Kind(UpdateBefore) => "k-UB",
        Change::Kind(UpdateAfter) => "k-UA",
        Change::Kind(Delete) => "k-D",
        Change::Legacy(true) => "k-true",
        Change::Legacy(false) => "k-false",
    }
}
