//! Pieces of the command line: output with pipe handling, progress, the summary, the CSV series.

pub mod csv;
pub mod output;
pub mod progress;
pub mod summary;
