//! The changelog-normalize family: `ChangelogNormalize(key=[…])`, which Flink's planner puts over
//! the scan of an upsert source (or of a CDC source with a primary key when
//! `table.exec.source.cdc-events-duplicate` is on) to turn its upserts into a changelog with
//! `-U` and full-row `-D` (`StreamPhysicalChangelogNormalize` → `StreamExecChangelogNormalize`,
//! Flink 2.3.0).
//!
//! - [`changelog_normalize`](self::changelog_normalize): the spec (`"operator":
//!   "ChangelogNormalize"`), its compiler and its plan text;
//! - [`ProcTimeDeduplicateKeepLastRowOnChangelog`]: the function `StreamExecChangelogNormalize`
//!   builds without mini-batch, `ProcTimeDeduplicateKeepLastRowFunction` with
//!   `inputIsInsertOnly = false` (`DeduplicateFunctionHelper.processLastRowOnChangelog`); the
//!   insert-only path of the same class is the deduplicate family's;
//! - [`drop_update_before_function`]: `DropUpdateBeforeFunction`, the planner's
//!   `DropUpdateBefore` below the normalize's exchange when its input carries `-U`.

pub(super) mod changelog_normalize;
pub mod drop_update_before_function;
mod process_last_row_on_changelog;

pub use process_last_row_on_changelog::ProcTimeDeduplicateKeepLastRowOnChangelog;
