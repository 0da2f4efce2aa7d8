//! Random small scenarios within the valid space of the scenario format, and random action
//! sequences over them: the generators shared by `tests/properties.rs` (the engine's invariants)
//! and `tests/no_panic.rs` (malformed input never panics).
#![allow(dead_code)]

use flink_state_sim::engine::{Action, Scenario, SimOptions, Simulation, TraceLevel};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::{json, Value};

/// `cases` cases, unless `PROPTEST_CASES` says otherwise (`ProptestConfig::with_cases` would
/// ignore it); no regression files are written. The cases are the same on every run (a fixed
/// seed, unless `PROPTEST_RNG_SEED` gives another): a run that passes passes again, and a case
/// that fails fails again until fixed (a random seed once failed CI on a case no run before had
/// drawn).
pub fn config(cases: u32) -> ProptestConfig {
    let mut c = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = cases;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        c.rng_seed = proptest::test_runner::RngSeed::Fixed(0x5eed_f11c);
    }
    c.failure_persistence = None;
    c
}

// ---------------------------------------------------------------------------------------------
// Random small scenarios, within the valid space of the scenario format.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
pub enum Retention {
    /// `1.10-legacy`, idle state retention with the test harness (min > 1: cleaning enabled).
    Legacy { min: i64, max: i64 },
    /// `2.3`, `table.exec.state.ttl` (0: never expires).
    Ttl(i64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Second {
    None,
    /// Groups by the first operator's count column (its SUM column when it has no count).
    ByFirst,
    /// No `group_by`: a global aggregation.
    Global,
}

#[derive(Debug, Clone)]
pub enum StepSpec {
    /// An input `dt` ms after the previous step's time (`None`: `at` left out), key
    /// `KEYS[key]`, value `v`, kind `KINDS[kind]` (when the changelog is `all`).
    Input {
        dt: Option<i64>,
        key: usize,
        v: Option<i32>,
        kind: usize,
    },
    AdvanceBy(i64),
    /// `advance_to` the previous step's time + `dt`.
    AdvanceTo(i64),
}

#[derive(Debug, Clone)]
pub struct Spec {
    pub retention: Retention,
    pub changelog_all: bool,
    /// The first operator's aggregates: COUNT(*) AS cnt, SUM(v) AS s (at least one).
    pub count: bool,
    pub sum: bool,
    pub gub_first: bool,
    pub second: Second,
    /// The second operator also has SUM(<the column it would group by>) AS t.
    pub second_sum: bool,
    pub gub_second: bool,
    pub start: i64,
    pub steps: Vec<StepSpec>,
}

pub const KEYS: &[&str] = &["a", "b", "c"];
pub const KINDS: &[&str] = &["+I", "-U", "+U", "-D"];

impl Spec {
    pub fn legacy(&self) -> bool {
        matches!(self.retention, Retention::Legacy { .. })
    }

    pub fn to_value(&self) -> Value {
        let mut first_aggs = vec![];
        if self.count {
            first_aggs.push(json!({"function": "COUNT", "args": ["*"], "as": "cnt"}));
        }
        if self.sum {
            first_aggs.push(json!({"function": "SUM", "args": ["v"], "as": "s"}));
        }
        let first_col = if self.count { "cnt" } else { "s" };
        let mut pipeline = vec![json!({
            "operator": "GroupAggregate", "id": "agg", "group_by": ["k"], "aggregates": first_aggs,
            "generate_update_before": self.gub_first || self.second != Second::None,
        })];
        if self.second != Second::None {
            let mut aggs = vec![json!({"function": "COUNT", "args": ["*"], "as": "n"})];
            if self.second_sum {
                aggs.push(json!({"function": "SUM", "args": [first_col], "as": "t"}));
            }
            let group_by: Vec<&str> = if self.second == Second::ByFirst { vec![first_col] } else { vec![] };
            pipeline.push(json!({
                "operator": "GroupAggregate", "id": "outer", "group_by": group_by, "aggregates": aggs,
                "generate_update_before": self.gub_second,
            }));
        }
        let mut t = self.start;
        let steps: Vec<Value> = self
            .steps
            .iter()
            .map(|s| match *s {
                StepSpec::Input { dt, key, v, kind } => {
                    let mut step = json!({"row": [KEYS[key], v]});
                    if let Some(dt) = dt {
                        t += dt;
                        step["at"] = json!(t);
                    }
                    if self.changelog_all {
                        step["kind"] = json!(KINDS[kind]);
                    }
                    step
                }
                StepSpec::AdvanceBy(d) => {
                    t += d;
                    json!({"advance_by": d})
                }
                StepSpec::AdvanceTo(dt) => {
                    t += dt;
                    json!({"advance_to": t})
                }
            })
            .collect();
        let mut scenario = json!({
            "name": "prop",
            "flink": if self.legacy() { "1.10-legacy" } else { "2.3" },
            "start": self.start,
            "source": {
                "name": "src",
                "schema": [["k", "STRING"], ["v", "INT"]],
                "changelog": if self.changelog_all { "all" } else { "insert-only" },
            },
            "pipeline": pipeline,
            "steps": steps,
        });
        match self.retention {
            Retention::Legacy { min, max } => {
                scenario["idle_state_retention"] = json!({"min": min, "max": max, "test_harness": true});
            }
            Retention::Ttl(ttl) => scenario["state_ttl"] = json!(ttl),
        }
        scenario
    }

    /// The processing time each step runs at, when it is fixed in advance (an input with `at`,
    /// an `advance_to`); `None` for steps relative to the time they run at.
    pub fn step_times(&self) -> Vec<Option<i64>> {
        let mut t = self.start;
        self.steps
            .iter()
            .map(|s| match *s {
                StepSpec::Input { dt: Some(dt), .. } | StepSpec::AdvanceTo(dt) => {
                    t += dt;
                    Some(t)
                }
                StepSpec::Input { dt: None, .. } => None,
                StepSpec::AdvanceBy(d) => {
                    t += d;
                    None
                }
            })
            .collect()
    }

    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    pub fn scenario(&self) -> Scenario {
        let json = self.to_json();
        Scenario::from_json(&json).unwrap_or_else(|e| panic!("the generated scenario is invalid: {e}\n{json}"))
    }

    pub fn sim(&self, options: SimOptions) -> Simulation {
        Simulation::with_options(self.scenario(), options)
    }
}

pub fn retention(legacy_only: bool) -> BoxedStrategy<Retention> {
    let legacy = (2i64..=50, 0i64..=50).prop_map(|(min, extra)| Retention::Legacy { min, max: min + extra });
    if legacy_only {
        legacy.boxed()
    } else {
        prop_oneof![
            3 => legacy,
            1 => Just(Retention::Ttl(0)),
            2 => (1i64..=50).prop_map(Retention::Ttl),
        ]
        .boxed()
    }
}

pub fn step_spec() -> impl Strategy<Value = StepSpec> {
    let input = (
        prop_oneof![1 => Just(None), 4 => (0i64..=8).prop_map(Some)],
        0..KEYS.len(),
        prop_oneof![1 => Just(None), 8 => (-3i32..=5).prop_map(Some)],
        // Mostly +I, so that keys have state for the retractions to find.
        prop_oneof![4 => Just(0usize), 1 => 1..KINDS.len()],
    )
        .prop_map(|(dt, key, v, kind)| StepSpec::Input { dt, key, v, kind });
    prop_oneof![
        8 => input,
        2 => (0i64..=30).prop_map(StepSpec::AdvanceBy),
        1 => (0i64..=30).prop_map(StepSpec::AdvanceTo),
    ]
}

pub fn spec_with(legacy_only: bool) -> impl Strategy<Value = Spec> {
    (
        retention(legacy_only),
        any::<bool>(),
        (any::<bool>(), any::<bool>()),
        any::<bool>(),
        prop_oneof![Just(Second::None), Just(Second::ByFirst), Just(Second::Global)],
        (any::<bool>(), any::<bool>()),
        0i64..=5,
        prop::collection::vec(step_spec(), 0..24),
    )
        .prop_map(
            |(retention, changelog_all, (count, sum), gub_first, second, (second_sum, gub_second), start, steps)| {
                Spec {
                    retention,
                    changelog_all,
                    count: count || !sum,
                    sum,
                    gub_first,
                    second,
                    second_sum,
                    gub_second,
                    start,
                    steps,
                }
            },
        )
}

pub fn spec() -> impl Strategy<Value = Spec> {
    spec_with(false)
}

// ---------------------------------------------------------------------------------------------
// Random action sequences.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
pub enum Act {
    Step,
    /// Advance by `d` ms; when `bounded`, no further than the next step's time (an advance past
    /// it blocks the rest of the scenario, which random advances would do too often).
    AdvanceBy(i64, bool),
    NextTimer,
    /// `AdvanceTo(now + d)`, bounded as `AdvanceBy`.
    AdvanceToRel(i64, bool),
}

impl Act {
    pub fn action(self, sim: &Simulation, step_times: &[Option<i64>]) -> Action {
        let now = sim.now();
        let bound = |d: i64, bounded: bool| match step_times.get(sim.next_step() as usize) {
            Some(Some(t)) if bounded && *t >= now => d.min(t - now),
            _ => d,
        };
        match self {
            Act::Step => Action::Step,
            Act::AdvanceBy(d, bounded) => Action::AdvanceBy(bound(d, bounded)),
            Act::NextTimer => Action::NextTimer,
            Act::AdvanceToRel(d, bounded) => Action::AdvanceTo(now + bound(d, bounded)),
        }
    }
}

pub fn acts(max: usize) -> impl Strategy<Value = Vec<Act>> {
    let by = || (prop_oneof![3 => 0i64..=6, 1 => 0i64..=60], prop::bool::weighted(0.8));
    let act = prop_oneof![
        8 => Just(Act::Step),
        2 => by().prop_map(|(d, b)| Act::AdvanceBy(d, b)),
        1 => Just(Act::NextTimer),
        1 => by().prop_map(|(d, b)| Act::AdvanceToRel(d, b)),
    ];
    prop::collection::vec(act, 0..max)
}

/// Carries out `acts` on a simulation of `spec`, calling `after` after each action the
/// simulation carried out. An action the simulation refuses (an `Err` with the action counter
/// unmoved) is skipped; an operator failure stops the run (the simulation refuses everything
/// after it).
pub fn drive(sim: &mut Simulation, spec: &Spec, acts: &[Act], mut after: impl FnMut(&Simulation)) {
    let step_times = spec.step_times();
    for a in acts {
        if sim.failure().is_some() {
            break;
        }
        let before = sim.action_count();
        let outcome = sim.act(a.action(sim, &step_times));
        if sim.action_count() == before {
            assert!(outcome.is_err(), "an action that ran did not count");
            continue;
        }
        assert_eq!(outcome.is_err(), sim.failure().is_some(), "an action that ran failed without stopping the sim");
        after(sim);
    }
}

pub const FULL: SimOptions = SimOptions { trace: TraceLevel::Full, keep_actions: None, time_travel: false };
pub const METRICS: SimOptions = SimOptions { trace: TraceLevel::Metrics, keep_actions: None, time_travel: false };

// ---------------------------------------------------------------------------------------------
// (a) At most one live cleanup timer per key and operator.
// ---------------------------------------------------------------------------------------------
