//! The sink family: the operator a sink with a `PRIMARY KEY` runs before writing, when the
//! query's upsert key differs from that key (`StreamExecSink.applyUpsertMaterialize`).
//!
//! - [`upsert_materialize`](self::upsert_materialize): the spec (`"operator":
//!   "SinkUpsertMaterializer"`), its compiler, and its plan text — the `Sink(...)` node itself,
//!   with `upsertMaterialize=[true]` (Flink has no node of its own for the materializer: the
//!   `Sink` ExecNode translates into the materializer followed by the sink function).
//! - one file per Flink class: [`SinkUpsertMaterializer`].
//!
//! **Which class Flink 2.3.0 runs** (`StreamExecSink.createSumOperator`, read from the 2.3.0
//! planner bytecode, `flink-table-planner-loader-2.3.0.jar`):
//!
//! ```text
//! if conflictStrategy is ERROR or NOTHING:  WatermarkCompactingSinkMaterializer.create(ttl, strategy, ...)
//! strategy = table.exec.sink.upsert-materialize-strategy.type (null → LEGACY; default LEGACY)
//! if strategy == LEGACY:                    SinkUpsertMaterializer.create(ttl, rowType, equaliser, upsertKeyEqualiser, inputUpsertKey)
//! else (VALUE, MAP, ADAPTIVE):              SinkUpsertMaterializerV2.create(...)  // its state TTL is disabled, with a warning
//! ```
//!
//! So `ON CONFLICT DO DEDUPLICATE`, and no `ON CONFLICT` at all, run the classic
//! [`SinkUpsertMaterializer`] under the default strategy. `DO ERROR` / `DO NOTHING` need
//! watermarks on every source (`FlinkChangelogModeInferenceProgram.validateSourcesHaveWatermarks`),
//! which the simulator's sources never have: the planner refuses them with Flink's message before
//! any operator is chosen, so `WatermarkCompactingSinkMaterializer` is not modelled, nor is
//! `SinkUpsertMaterializerV2` (a strategy other than `LEGACY` is refused).

mod sink_upsert_materializer;
pub(super) mod upsert_materialize;

pub use sink_upsert_materializer::SinkUpsertMaterializer;
pub use upsert_materialize::{ConflictBehavior, SinkUpsertMaterializerSpec};
