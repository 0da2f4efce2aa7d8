//! The deduplication family: `ROW_NUMBER() OVER (PARTITION BY key ORDER BY proctime ASC|DESC) = 1`
//! without the rank column, planned by `StreamExecDeduplicate` (from a Rank that
//! `RankUtil.canConvertToDeduplicate` accepts).
//!
//! - [`deduplicate`](self::deduplicate): the spec (`"operator": "Deduplicate"`), its compiler,
//!   and `from_rank`, which the [`rank`](super::rank) family calls for such a Rank.
//! - one file per Flink class: [`DeduplicateKeepFirstRowFunction`] (Blink 1.9 – 1.10),
//!   [`ProcTimeDeduplicateKeepFirstRowFunction`], [`ProcTimeDeduplicateKeepLastRowFunction`],
//!   [`MiniBatchDeduplicateKeepFirstRowFunction`] (mini-batch).

#[allow(clippy::module_inception)]
pub(super) mod deduplicate;
mod deduplicate_keep_first_row_function;
mod mini_batch_deduplicate_keep_first_row_function;
mod proc_time_deduplicate_keep_first_row_function;
mod proc_time_deduplicate_keep_last_row_function;

pub use deduplicate_keep_first_row_function::DeduplicateKeepFirstRowFunction;
pub use mini_batch_deduplicate_keep_first_row_function::MiniBatchDeduplicateKeepFirstRowFunction;
pub use proc_time_deduplicate_keep_first_row_function::ProcTimeDeduplicateKeepFirstRowFunction;
pub use proc_time_deduplicate_keep_last_row_function::ProcTimeDeduplicateKeepLastRowFunction;
