//! Flink 2.3.0's `DropUpdateBeforeFunction` (`flink-table-runtime`, `operators/misc/`, read from
//! the 2.3.0 bytecode): the `FilterFunction` of `StreamExecDropUpdateBefore`, which
//! `FlinkChangelogModeInferenceProgram` puts above a source whose changelog has `UPDATE_BEFORE`
//! when its consumer asks for `ONLY_UPDATE_AFTER` (a `ChangelogNormalize` always does).
//!
//! ```text
//! filter(value) = !RowKind.UPDATE_BEFORE.equals(value.getRowKind())
//! ```

use crate::engine::row::{Change, Message, RowKind};

/// Whether `DropUpdateBeforeFunction.filter` drops `message` (an `UPDATE_BEFORE`).
pub fn drops(message: &Message) -> bool {
    message.change == Change::Kind(RowKind::UpdateBefore)
}
