//! The projection and filter family: `SELECT <expressions> FROM <input> [WHERE <condition>]`,
//! planned by `StreamExecCalc` (stateless).
//!
//! - [`calc`](self::calc): the spec (`"operator": "Calc"`), its compiler and its operator.

#[allow(clippy::module_inception)]
pub(super) mod calc;
