//! Stream operators: one folder per SQL operator family, one file per Flink class inside, one
//! shape for all of them.
//!
//! - [`StreamOperator`] is a running operator, modelled on Flink's `KeyedProcessFunction` /
//!   `OneInputStreamOperator`: `processElement(input, ctx)`, `onTimer(timestamp, key, ctx)`, its
//!   keyed-state backend, and what the page shows of its state.
//! - [`OperatorSpec`] is a validated operator of a scenario's pipeline (its columns, its plan
//!   text) that builds the Flink class the scenario's Flink version runs.
//! - [`OPERATOR_KINDS`] maps the scenario format's `"operator"` names to their compilers (and,
//!   for `flink-state-sim schema`, to the JSON Schema of the serde type each compiler reads).
//!
//! The families: `aggregate/` (`GroupAggregate`), `rank/` (`Rank`), `deduplicate/`
//! (`Deduplicate`), `over/` (`OverAggregate`), `window/` (`CountWindowAggregate`), `calc/`
//! (`Calc`), `sink/` (`SinkUpsertMaterializer`, the sink of a table with a primary key),
//! `normalize/` (`ChangelogNormalize`); each folder's `mod.rs` says which Flink classes are inside
//! and which planner node builds them. What several families share stays here: [`Context`],
//! [`binary_row`], [`monotonicity`], [`state_ttl`], `map_bundle` and `mini_batch_assigner`
//! (mini-batch).
//!
//! Adding an operator: one new file in its family's folder (a new folder with a `mod.rs` for a
//! new family) with its spec, its compiler and its `StreamOperator` impl (or one file per Flink
//! class when versions differ), and one line in [`OPERATOR_KINDS`]. Its raw serde type derives
//! `JsonSchema` beside `Deserialize` (doc comments on its fields are what editors show), and its
//! `KIND` is `OperatorKind::new::<RawX>("X", compile)`.

mod aggregate;
pub mod binary_row;
mod calc;
mod context;
mod deduplicate;
pub mod java_hash_map;
mod join;
mod map_bundle;
mod mini_batch_assigner;
pub mod monotonicity;
mod normalize;
mod over;
mod rank;
mod sink;
pub mod state_ttl;
mod watermark_assigner;
mod window;

pub use aggregate::{
    BlinkGroupAggFunction, GroupAggFunction, GroupAggProcessFunction, GroupAggregateSpec, MiniBatchGroupAggFunction,
    MiniBatchLocalGlobalGroupAgg,
};
pub use context::{Context, EmitCounts};
pub use deduplicate::{
    DeduplicateKeepFirstRowFunction, MiniBatchDeduplicateKeepFirstRowFunction, ProcTimeDeduplicateKeepFirstRowFunction,
    ProcTimeDeduplicateKeepLastRowFunction,
};
pub use mini_batch_assigner::ProcTimeMiniBatchAssigner;
pub use normalize::ProcTimeDeduplicateKeepLastRowOnChangelog;
pub use over::{
    OverAggregateSpec, ProcTimeRangeBoundedPrecedingFunction, ProcTimeRowsBoundedPrecedingFunction,
    ProcTimeUnboundedPrecedingFunction,
};
#[doc(hidden)]
pub use rank::sorted_map_entries_walked;
pub use rank::{
    AppendOnlyTopNFunction, BlinkAppendOnlyTopNFunction, FastTop1Function, RetractableTopNFunction,
    UpdatableTopNFunction,
};
pub use sink::{ConflictBehavior, SinkUpsertMaterializer, SinkUpsertMaterializerSpec};
pub use watermark_assigner::WatermarkAssigner;

use super::error::ScenarioError;
use super::options::{AggPhaseStrategy, FlinkMode, MiniBatch, Retention, StateBackend};
use super::row::{Column, DataType, Message};
use super::state::{KeyId, KeyedStateBackend, StateSize};
use super::time::Millis;
use super::view::{StateCell, TtlView};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::json;
use std::borrow::Cow;
use std::fmt;
use std::rc::Rc;

/// A running operator.
pub trait StreamOperator: dyn_clone::DynClone + fmt::Debug {
    /// The Flink class it models, e.g. `GroupAggProcessFunction`.
    fn flink_class(&self) -> &'static str;

    /// `processElement(input, ctx, out)`.
    ///
    /// # Errors
    /// A message when Flink would throw (an aggregate function failing).
    fn process_element(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String>;

    /// `processElement2(input)`: a message of a two-input operator's second (right) input. Only
    /// a two-input operator is ever given one.
    ///
    /// # Errors
    /// As [`StreamOperator::process_element`].
    fn process_element2(&mut self, input: &Message, ctx: &mut Context) -> Result<(), String> {
        let _ = (input, ctx);
        Err(format!("{} reads one input", self.flink_class()))
    }

    /// `onTimer(timestamp, ctx, out)` for a processing-time timer of `key`, already polled (the
    /// key is the backend's current key). Operators that register no timers keep the default.
    ///
    /// # Errors
    /// As [`StreamOperator::process_element`].
    fn on_timer(&mut self, timestamp: Millis, key: KeyId, ctx: &mut Context) -> Result<(), String> {
        let _ = (timestamp, key, ctx);
        Ok(())
    }

    /// `processWatermark(mark)`: the mini-batch marker `ProcTimeMiniBatchAssignerOperator`
    /// emits at the end of each `allow-latency` interval reached the operator. A bundle operator
    /// finishes its bundle (`AbstractMapBundleOperator.processWatermark`); others let it pass.
    ///
    /// # Errors
    /// As [`StreamOperator::process_element`].
    fn process_watermark(&mut self, watermark: Millis, ctx: &mut Context) -> Result<(), String> {
        let _ = (watermark, ctx);
        Ok(())
    }

    /// Whether it acts on event-time watermarks (`WATERMARK FOR`, from a source's
    /// `WatermarkAssignerOperator`) itself: then [`StreamOperator::process_rowtime_watermark`]
    /// gets them. Others get none: the pipeline forwards them as `AbstractStreamOperator` does
    /// (the minimum over the inputs, when it advances). Not the mini-batch marker
    /// ([`StreamOperator::process_watermark`]), which is another stream.
    fn handles_rowtime_watermarks(&self) -> bool {
        false
    }

    /// `processWatermark1/2(mark)` of an event-time watermark on input `port` (0, or 1 for a
    /// join's right input): what it emits goes into `ctx`, and the watermark it forwards after
    /// that, if any, is returned.
    ///
    /// # Errors
    /// As [`StreamOperator::process_element`].
    fn process_rowtime_watermark(
        &mut self,
        port: usize,
        watermark: Millis,
        ctx: &mut Context,
    ) -> Result<Option<Millis>, String> {
        let _ = (port, ctx);
        Ok(Some(watermark))
    }

    /// A processing-time timer of the operator itself, not of a key
    /// (`getProcessingTimeService().registerTimer(t, callback)`), if one is registered.
    fn operator_timer(&self) -> Option<Millis> {
        None
    }

    /// Fires [`StreamOperator::operator_timer`] at `timestamp` (the callback); returns the
    /// event-time watermark it forwards, if any.
    ///
    /// # Errors
    /// As [`StreamOperator::process_element`].
    fn on_operator_timer(&mut self, timestamp: Millis, ctx: &mut Context) -> Result<Option<Millis>, String> {
        let _ = (timestamp, ctx);
        Ok(None)
    }

    /// Its own metrics (Flink's metric group), by Flink's names, for an operator that has any
    /// the page's samples do not hold.
    fn flink_metrics(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// Records waiting in its mini-batch bundles (0 for an operator without one).
    fn bundled(&self) -> u64 {
        0
    }

    /// Its keys and timers.
    fn backend(&self) -> &KeyedStateBackend;
    fn backend_mut(&mut self) -> &mut KeyedStateBackend;

    /// The names of its keyed states, as Flink names them (the page's columns).
    fn state_names(&self) -> Vec<&'static str>;

    /// What each of its states holds for `key` at `now`, in [`StreamOperator::state_names`] order.
    fn key_state(&self, key: KeyId, now: Millis) -> Vec<Option<StateCell>>;

    /// The stored cleanup time `C` of `key` (legacy idle state retention), if the operator keeps one.
    fn cleanup_time(&self, key: KeyId) -> Option<Millis> {
        let _ = key;
        None
    }

    /// The TTL of `key`'s state at `now`, if its state has a TTL (what expires first when several
    /// states do).
    fn ttl_of(&self, key: KeyId, now: Millis) -> Option<TtlView> {
        self.key_state(key, now).into_iter().flatten().find_map(|c| c.ttl)
    }

    /// The size of each of its states at `now`.
    fn state_sizes(&self, now: Millis) -> Vec<(&'static str, StateSize)>;

    /// State entries physically stored, over all its states (called after every record, to
    /// track the peak: operators override it with a sum of counters).
    fn entries_stored(&self) -> u64 {
        self.state_sizes(0).iter().map(|(_, s)| s.stored).sum()
    }

    /// Rows held inside list-valued entries, all keys together (expired or not): a state that
    /// keeps a whole list per key in one entry (`SinkUpsertMaterializer`'s
    /// `ValueState<List<RowData>>`) counts as one entry in [`StreamOperator::entries_stored`]
    /// however many rows the list holds. A running count (called after every record); 0 for an
    /// operator without such a state.
    fn list_rows(&self) -> u64 {
        0
    }
}

dyn_clone::clone_trait_object!(StreamOperator);

/// What an operator of the pipeline is compiled against.
#[derive(Debug, Clone, Copy)]
pub struct CompileInput<'a> {
    /// The operator's path in the scenario, e.g. `pipeline[1]`.
    pub path: &'a str,
    pub flink: FlinkMode,
    pub retention: Retention,
    /// `state.backend.type`: read only by operators whose behaviour depends on it.
    pub state_backend: StateBackend,
    /// `table.exec.mini-batch.*`, when mini-batch is enabled.
    pub mini_batch: Option<MiniBatch>,
    /// `table.optimizer.agg-phase-strategy`.
    pub agg_phase_strategy: AggPhaseStrategy,
    /// The input's columns.
    pub columns: &'a [Column],
    /// The input for people: `source 'tbl1'` or `the output of 'inner'`.
    pub input_name: &'a str,
    /// Whether the input carries retractions (`-U`/`-D`, `(false, ..)`).
    pub retracts: bool,
    /// Whether the input's updates come with `UPDATE_BEFORE` (a pass-through operator keeps it).
    pub update_before: bool,
    /// Whether the input can hold deletions (`D` in its changelog mode; a pass-through operator
    /// keeps it).
    pub deletes: bool,
    /// How many leading input columns are the input's unique key.
    pub unique_key_len: usize,
    /// How the input's columns change ([`monotonicity`]).
    pub monotonicity: &'a monotonicity::ModifiedMonotonicity,
    /// The physical plan of the node that produces the input's changes, as Flink names it when
    /// an operator cannot consume them (`FlinkChangelogModeInferenceProgram`): the nearest
    /// upstream operator that is not a `Calc`, or the source scan.
    pub changes_from: &'a str,
    /// Whether the pipeline was planned from SQL: the planner then makes an upstream operator
    /// drop `UPDATE_BEFORE` that this one does not need (a first compile pass may accept an input
    /// carrying them; [`crate::engine::scenario::sql::drop_unneeded_update_before`]).
    pub planned: bool,
    /// The input column that is the source's processing-time attribute, when the input is the
    /// source: the scan does not produce it, the operator computes `PROCTIME()` (a `Calc`).
    pub source_proctime: Option<usize>,
    /// The input column that is an event-time attribute with a watermark (`WATERMARK FOR`), when
    /// the input is a source that declares one (through an operator it is not tracked).
    pub rowtime: Option<usize>,
    /// A two-input operator's right input (its fields as above; `path` and the settings are the
    /// left's). `None` for a one-input operator.
    pub right: Option<&'a CompileInput<'a>>,
}

/// How an operator needs its input distributed (`FlinkRelDistribution`): by a hash of these
/// columns of its input, or all on one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Distribution {
    Hash(Vec<String>),
    Single,
}

impl Distribution {
    /// `hash[keys]`, or `single` without keys.
    pub fn by(keys: Vec<String>) -> Distribution {
        if keys.is_empty() {
            Distribution::Single
        } else {
            Distribution::Hash(keys)
        }
    }
}

/// What a `Calc` right above a scan pushes into it (`PushProjectIntoTableSourceScanRule`,
/// `PushFilterIntoTableSourceScanRule`): the input fields it reads (`None`: all) and its condition
/// in Calcite's form (the `filesystem` connector accepts none of it as applied: the `Calc` keeps
/// its `where`, the scan only names it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScanPushdown {
    pub columns: Option<Vec<usize>>,
    pub filter: Option<String>,
}

/// A validated operator of a scenario's pipeline.
pub trait OperatorSpec: fmt::Debug {
    /// Its output columns.
    fn output_columns(&self) -> &[Column];
    /// How many leading output columns are its unique key (an upsert sink keys on them).
    fn unique_key_len(&self) -> usize;
    /// The output columns holding the key of its state, in the order of the key the operator
    /// reports when it loses a key's state (the result table groups rows by them).
    fn state_key_columns(&self) -> Vec<usize> {
        (0..self.unique_key_len()).collect()
    }
    /// The types of the key row its keyed state is addressed by (the `BinaryRowData` its
    /// `KeySelector` writes), which place each key on the heap backend
    /// ([`crate::engine::state::key_groups`]): by default the [`OperatorSpec::state_key_columns`].
    fn key_types(&self) -> Vec<DataType> {
        let out = self.output_columns();
        self.state_key_columns().iter().filter_map(|&i| out.get(i)).map(|c| c.data_type).collect()
    }
    /// In an upsert sink, the columns besides [`OperatorSpec::state_key_columns`] that identify
    /// a row (a Top-N's rank column).
    fn upsert_key_extra(&self) -> Vec<usize> {
        Vec::new()
    }
    /// Whether its output carries retractions.
    fn output_retracts(&self) -> bool;
    /// Whether it emits `UPDATE_BEFORE` / `(false, prevRow)` before an update.
    fn generates_update_before(&self) -> bool;
    /// Whether it needs `UPDATE_BEFORE` from its input to retract old rows (a projection does not).
    fn needs_update_before(&self) -> bool {
        true
    }
    /// Whether it needs `UPDATE_BEFORE` from its input `port` (0, or 1 for a join's right input).
    fn needs_update_before_from(&self, port: usize) -> bool {
        let _ = port;
        self.needs_update_before()
    }
    /// How its output columns change (`FlinkRelMdModifiedMonotonicity`); `None` when the output
    /// can contain deletions, which is what an operator that does not say declares.
    fn modified_monotonicity(&self) -> monotonicity::ModifiedMonotonicity {
        None
    }
    /// Flink's plan text, e.g. `GroupAggregate(groupBy=[devId], select=[...])`: its node in
    /// the optimized execution plan (`ExecNode.getDescription`).
    fn plan(&self) -> String;
    /// What its plan text leaves unsaid, for people (not part of Flink's text): a user-defined
    /// function printed like a built-in.
    fn plan_notes(&self) -> Vec<&'static str> {
        Vec::new()
    }
    /// Its node in the optimized physical plan (`RelNode.explain`), where that differs from
    /// [`OperatorSpec::plan`]: a deduplication is still a `Rank`, a `Calc` prints its
    /// expressions in Calcite's prefix form.
    fn physical_plan(&self) -> String {
        self.plan()
    }
    /// How it needs its input distributed: Flink's `Exchange` in front of it (`None`: it takes
    /// its input as it comes, as a `Calc` does).
    fn distribution(&self) -> Option<Distribution> {
        None
    }
    /// Whether the planner puts a `DropUpdateBefore` on its input, below the exchange
    /// (`StreamPhysicalDropUpdateBefore`: a `ChangelogNormalize` over a changelog with `-U`).
    fn input_drops_update_before(&self) -> bool {
        false
    }
    /// What the planner pushes into a scan this operator reads directly, when the source's
    /// connector takes push-down ([`ScanPushdown`]): nothing by default.
    fn scan_pushdown(&self) -> ScanPushdown {
        ScanPushdown::default()
    }
    /// How a two-input operator needs its right input distributed.
    fn right_distribution(&self) -> Option<Distribution> {
        None
    }
    /// Whether its output can hold deletions (`D` in its changelog mode) besides updates.
    fn output_deletes(&self) -> bool {
        self.output_retracts()
    }
    /// Whether it is the sink's own operator: its plan text is the `Sink` node (Flink's
    /// `StreamExecSink` runs it before the sink function), so `EXPLAIN` prints no other `Sink`
    /// line, and it can only be the pipeline's last operator.
    fn is_sink(&self) -> bool {
        false
    }
    /// Its own state TTL (a `STATE_TTL` hint or a compiled plan's state metadata), which replaces
    /// `table.exec.state.ttl` for it alone ([`state_ttl::effective_retention`]).
    fn state_ttl(&self) -> Option<&state_ttl::OperatorStateTtl> {
        None
    }
    /// Its own state TTL for people (`STATE_TTL hint 2 d`), when it has one.
    fn describe_own_ttl(&self) -> Option<String> {
        self.state_ttl().map(|t| t.describe())
    }
    /// The Flink class that runs it on `flink` with `retention`.
    fn build(&self, flink: FlinkMode, retention: Retention) -> Box<dyn StreamOperator>;
}

/// Compiles one operator of the scenario format: `raw` is the operator's JSON object (the
/// compiler reads its own fields, rejecting unknown ones).
pub type Compile = fn(raw: &str, input: CompileInput) -> Result<Rc<dyn OperatorSpec>, ScenarioError>;

/// An operator name of the scenario format, its compiler and the JSON Schema of its object.
pub struct OperatorKind {
    pub name: &'static str,
    pub compile: Compile,
    /// How many inputs it reads: 1, or 2 for a join (`left`, `right`).
    pub inputs: usize,
    /// `json_schema` of the serde type `compile` reads. Native only: the page never prints the
    /// schema, and a pointer here would keep the schema code in the wasm module.
    #[cfg(not(target_arch = "wasm32"))]
    schema: fn(&mut SchemaGenerator) -> Schema,
}

impl OperatorKind {
    /// An operator kind: its name, its compiler, and `T`, the serde type `compile` reads, whose
    /// JSON Schema describes the operator's object in `flink-state-sim schema`.
    pub const fn new<T: JsonSchema>(name: &'static str, compile: Compile) -> OperatorKind {
        OperatorKind {
            name,
            compile,
            inputs: 1,
            #[cfg(not(target_arch = "wasm32"))]
            schema: T::json_schema,
        }
    }

    /// A two-input operator kind (a join): its object names its `left` and `right` inputs, and
    /// `compile` gets the right one as [`CompileInput::right`].
    pub const fn two_input<T: JsonSchema>(name: &'static str, compile: Compile) -> OperatorKind {
        OperatorKind { inputs: 2, ..OperatorKind::new::<T>(name, compile) }
    }

    /// The JSON Schema of its object (its `"operator"` field is pinned to `name` by
    /// [`AnyOperator`]); an empty schema in the wasm build, which never prints it.
    pub fn schema(&self, generator: &mut SchemaGenerator) -> Schema {
        #[cfg(not(target_arch = "wasm32"))]
        return (self.schema)(generator);
        #[cfg(target_arch = "wasm32")]
        {
            let _ = generator;
            Schema::default()
        }
    }
}

/// Every operator the scenario format knows.
pub const OPERATOR_KINDS: &[OperatorKind] = &[
    aggregate::group_aggregate::KIND,
    calc::calc::KIND,
    rank::rank::KIND,
    deduplicate::deduplicate::KIND,
    join::join::KIND,
    over::over_aggregate::KIND,
    window::count_window_aggregate::KIND,
    sink::upsert_materialize::KIND,
    normalize::changelog_normalize::KIND,
    join::lateral_snapshot_join::KIND,
];

/// A `pipeline` item in the scenario format's JSON Schema: one of [`OPERATOR_KINDS`], told apart
/// by its `"operator"` name.
pub struct AnyOperator;

impl JsonSchema for AnyOperator {
    fn schema_name() -> Cow<'static, str> {
        "Operator".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let kinds: Vec<Schema> = OPERATOR_KINDS
            .iter()
            .map(|kind| {
                let mut schema = kind.schema(generator);
                schema.insert("title".into(), kind.name.into());
                if let Some(props) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) {
                    props.insert(
                        "operator".into(),
                        json!({ "description": "The operator's kind.", "const": kind.name }),
                    );
                    let input = |what: &str| json!({ "type": "string", "description": what });
                    if kind.inputs == 2 {
                        props.insert("left".into(), input("The operator or source of its left input."));
                        props.insert("right".into(), input("The operator or source of its right input."));
                    } else {
                        props.insert(
                            "input".into(),
                            input(
                                "The operator or source whose changelog it consumes (default: the previous \
                                 operator, or the only source).",
                            ),
                        );
                    }
                }
                schema
            })
            .collect();
        let names: Vec<&str> = OPERATOR_KINDS.iter().map(|k| k.name).collect();
        json_schema!({
            "description": format!("An operator: {}.", names.join(", ")),
            "type": "object",
            "required": ["operator", "id"],
            "properties": { "operator": { "enum": names } },
            "oneOf": kinds
        })
    }
}
