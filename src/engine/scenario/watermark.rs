//! A source's `WATERMARK FOR ts AS ts - INTERVAL …` (Flink SQL DDL, the Blink planner's since
//! 1.10), as the scenario format writes it: `"watermark": {"column": "ts", "delay": "5 s"}` on a
//! source, `"auto_watermark_interval"` on the scenario (`pipeline.auto-watermark-interval`).

use super::raw::{RawScenario, RawSource};
use super::SourceWatermark;
use crate::engine::error::{name_list, quote, ScenarioError};
use crate::engine::row::{Column, DataType};
use crate::engine::time::Millis;

/// `pipeline.auto-watermark-interval`'s default (`PipelineOptions.AUTO_WATERMARK_INTERVAL`, 200 ms,
/// which the table environment keeps; Flink 2.3).
pub const DEFAULT_AUTO_WATERMARK_INTERVAL_MS: Millis = 200;

/// The source's watermark, checked against its columns.
pub(super) fn compile_watermark(
    raw: &RawSource,
    columns: &[Column],
    path: &str,
    scenario: &RawScenario,
) -> Result<Option<SourceWatermark>, ScenarioError> {
    let Some(w) = &raw.watermark else { return Ok(None) };
    let path = format!("{path}.watermark");
    if scenario.flink.is_legacy_planner() {
        return Err(ScenarioError::new(
            path,
            format!(
                "the {} has no WATERMARK clause: watermarks in CREATE TABLE are DDL of the Blink planner \
                 (Flink 1.10+)",
                scenario.flink.label()
            ),
        ));
    }
    let column = columns.iter().position(|c| c.name == w.column).ok_or_else(|| {
        ScenarioError::new(
            format!("{path}.column"),
            format!(
                "no column {} in the source's schema (columns: {})",
                quote(&w.column),
                name_list(columns.iter().map(|c| c.name.as_str()))
            ),
        )
    })?;
    if columns[column].data_type != DataType::BigInt {
        return Err(ScenarioError::new(
            format!("{path}.column"),
            format!(
                "{} is {}: the row-time column must be a BIGINT of epoch milliseconds (the simulator's stand-in \
                 for Flink's TIMESTAMP(3) / TIMESTAMP_LTZ(3), which it has no type for)",
                quote(&w.column),
                columns[column].data_type.name()
            ),
        ));
    }
    let interval_ms = scenario.auto_watermark_interval.map_or(DEFAULT_AUTO_WATERMARK_INTERVAL_MS, |d| d.0);
    Ok(Some(SourceWatermark { column, delay_ms: w.delay.map_or(0, |d| d.0), interval_ms }))
}
