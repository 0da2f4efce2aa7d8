//! Errors: a rejected scenario names the field and the rule; a failed step says why.

use thiserror::Error;

/// A scenario that cannot run. `path` names the field (`steps[3].at`,
/// `pipeline[1].aggregates[0].args`, `idle_state_retention`), `message` the rule, in Flink's own
/// words where Flink has them.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{path}: {message}")]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into() }
    }
}

/// A driving action that could not be carried out: time would go backwards, the scenario has
/// no more steps, or an operator failed where Flink would throw (the simulation then stops, as
/// a Flink job would, and refuses further actions until it is reset).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct StepError(pub String);
