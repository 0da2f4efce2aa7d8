//! The Top-N family: `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …)` filtered to `rn <= N`,
//! planned by `StreamExecRank` (a Rank that `RankUtil.canConvertToDeduplicate` accepts becomes a
//! `StreamExecDeduplicate`: the [`deduplicate`](super::deduplicate) family).
//!
//! - [`rank`](self::rank): the spec (`"operator": "Rank"`) and its compiler.
//! - one file per Flink class: [`AppendOnlyTopNFunction`], [`BlinkAppendOnlyTopNFunction`] (Blink
//!   1.9 – 1.10), [`FastTop1Function`], [`RetractableTopNFunction`], [`UpdatableTopNFunction`].
//! - `top_n_buffer`: the sorted buffer the append-only functions share (`TopNBuffer`).

mod append_only_top_n_function;
mod blink_append_only_top_n_function;
mod fast_top1_function;
#[allow(clippy::module_inception)]
pub(super) mod rank;
mod retractable_top_n_function;
mod top_n_buffer;
mod updatable_top_n_function;

pub use append_only_top_n_function::AppendOnlyTopNFunction;
pub use blink_append_only_top_n_function::BlinkAppendOnlyTopNFunction;
pub use fast_top1_function::FastTop1Function;
#[doc(hidden)]
pub use retractable_top_n_function::sorted_map_entries_walked;
pub use retractable_top_n_function::RetractableTopNFunction;
pub use updatable_top_n_function::UpdatableTopNFunction;
