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
pub mod timeline_lanes;
pub mod tour;
pub mod what_if;

use crate::engine::row::Change;

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
