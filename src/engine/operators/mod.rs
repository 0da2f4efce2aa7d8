//! Stream operators. Each file models one Flink class; [`Operator`] dispatches to them.

mod context;
mod group_agg;
mod group_agg_process_function;

pub use context::Context;
pub use group_agg::GroupAggFunction;
pub use group_agg_process_function::GroupAggProcessFunction;

use super::row::{Message, Row};
use super::scenario::{GroupAggregateSpec, Retention};
use super::time::Millis;
use super::timer_service::TimerService;
use super::view::OperatorView;

/// A running operator.
#[derive(Debug, Clone)]
pub enum Operator {
    /// Legacy planner group aggregation (Flink 1.10).
    GroupAggProcessFunction(GroupAggProcessFunction),
    /// Flink 2.3 group aggregation.
    GroupAggFunction(GroupAggFunction),
}

impl Operator {
    /// Builds the operator that runs `spec` under `retention`: idle state retention is the legacy
    /// planner's mechanism (Flink 1.10), state TTL Flink 2.3's (scenario validation pairs them
    /// with [`FlinkMode`](super::scenario::FlinkMode)).
    pub fn new(spec: GroupAggregateSpec, retention: Retention) -> Operator {
        match retention {
            Retention::IdleState(r) => Operator::GroupAggProcessFunction(GroupAggProcessFunction::new(spec, r)),
            Retention::StateTtl(ttl) => Operator::GroupAggFunction(GroupAggFunction::new(spec, ttl)),
        }
    }

    pub fn spec(&self) -> &GroupAggregateSpec {
        match self {
            Operator::GroupAggProcessFunction(op) => &op.spec,
            Operator::GroupAggFunction(op) => &op.spec,
        }
    }

    /// `processElement(input, ctx, out)`.
    ///
    /// # Errors
    /// A message when Flink would throw (an aggregate function failing).
    pub fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        match self {
            Operator::GroupAggProcessFunction(op) => op.process_element(input, ctx),
            Operator::GroupAggFunction(op) => op.process_element(input, ctx),
        }
    }

    /// `onTimer(timestamp, ctx, out)` for a processing-time timer of `key`, already polled.
    pub fn on_timer(&mut self, key: &Row, timestamp: Millis, ctx: &mut Context) {
        match self {
            Operator::GroupAggProcessFunction(op) => op.on_timer(key, timestamp, ctx),
            Operator::GroupAggFunction(_) => {}
        }
    }

    /// The operator's processing-time timers, if it uses any.
    pub fn timers(&self) -> Option<&TimerService<Row>> {
        match self {
            Operator::GroupAggProcessFunction(op) => Some(&op.timers),
            Operator::GroupAggFunction(_) => None,
        }
    }

    pub fn timers_mut(&mut self) -> Option<&mut TimerService<Row>> {
        match self {
            Operator::GroupAggProcessFunction(op) => Some(&mut op.timers),
            Operator::GroupAggFunction(_) => None,
        }
    }

    /// What the page shows of the operator at processing time `now`.
    pub fn view(&self, now: Millis) -> OperatorView {
        match self {
            Operator::GroupAggProcessFunction(op) => op.view(),
            Operator::GroupAggFunction(op) => op.view(now),
        }
    }
}
