//! The planner's relational tree: what Calcite's `RelNode`s are to Flink's planner, reduced to
//! the nodes the engine runs. Fields are referred to by position, as Calcite's `RexInputRef`
//! does; names are kept for printing and for the pipeline's JSON.

use sqlparser::tokenizer::Location;

/// A scalar expression over the input's fields (what `Calc` evaluates).
#[derive(Debug, Clone, PartialEq)]
pub enum Ex {
    /// `$i`.
    Col(usize),
    /// `PROCTIME()`: the source's processing-time attribute, materialized (a computed column
    /// `pt AS PROCTIME()` of the table).
    ProcTime,
    /// A literal, as SQL text (`1`, `'a'`, `TRUE`, `NULL`).
    Lit(String),
    /// `a op b` with `op` one of `=`, `<>`, `<`, `<=`, `>`, `>=`, `+`, `-`, `*`, `/`, `%`.
    Cmp(&'static str, Box<Ex>, Box<Ex>),
    And(Box<Ex>, Box<Ex>),
    Or(Box<Ex>, Box<Ex>),
    Not(Box<Ex>),
    /// `x IS TRUE` (an aggregate's `FILTER` condition, as Calcite wraps it).
    IsTrue(Box<Ex>),
    IsNull {
        expr: Box<Ex>,
        negated: bool,
    },
    Case {
        whens: Vec<(Ex, Ex)>,
        otherwise: Option<Box<Ex>>,
    },
}

impl Ex {
    /// Every field it reads.
    pub fn columns(&self, out: &mut Vec<usize>) {
        match self {
            Ex::Col(i) => out.push(*i),
            Ex::ProcTime | Ex::Lit(_) => {}
            Ex::Cmp(_, a, b) | Ex::And(a, b) | Ex::Or(a, b) => {
                a.columns(out);
                b.columns(out);
            }
            Ex::Not(a) | Ex::IsNull { expr: a, .. } | Ex::IsTrue(a) => a.columns(out),
            Ex::Case { whens, otherwise } => {
                for (c, r) in whens {
                    c.columns(out);
                    r.columns(out);
                }
                if let Some(e) = otherwise {
                    e.columns(out);
                }
            }
        }
    }

    /// The expression with every `$i` replaced by `f(i)`.
    pub fn map_columns(&self, f: &dyn Fn(usize) -> Ex) -> Ex {
        let m = |e: &Ex| Box::new(e.map_columns(f));
        match self {
            Ex::Col(i) => f(*i),
            Ex::ProcTime => Ex::ProcTime,
            Ex::Lit(s) => Ex::Lit(s.clone()),
            Ex::Cmp(op, a, b) => Ex::Cmp(op, m(a), m(b)),
            Ex::And(a, b) => Ex::And(m(a), m(b)),
            Ex::Or(a, b) => Ex::Or(m(a), m(b)),
            Ex::Not(a) => Ex::Not(m(a)),
            Ex::IsNull { expr, negated } => Ex::IsNull { expr: m(expr), negated: *negated },
            Ex::IsTrue(a) => Ex::IsTrue(m(a)),
            Ex::Case { whens, otherwise } => Ex::Case {
                whens: whens.iter().map(|(c, r)| (c.map_columns(f), r.map_columns(f))).collect(),
                otherwise: otherwise.as_ref().map(|e| m(e)),
            },
        }
    }

    /// SQL text over the input's field `names` (back-quoted), for the pipeline's `Calc`.
    pub fn sql(&self, names: &[String]) -> String {
        let s = |e: &Ex| e.sql(names);
        match self {
            Ex::Col(i) => quote_ident(names.get(*i).map_or("?", String::as_str)),
            Ex::ProcTime => "PROCTIME()".to_string(),
            Ex::Lit(t) => t.clone(),
            Ex::Cmp(op, a, b) => format!("({} {op} {})", s(a), s(b)),
            Ex::And(a, b) => format!("({} AND {})", s(a), s(b)),
            Ex::Or(a, b) => format!("({} OR {})", s(a), s(b)),
            Ex::Not(a) => format!("(NOT {})", s(a)),
            Ex::IsNull { expr, negated } => format!("({} IS {}NULL)", s(expr), if *negated { "NOT " } else { "" }),
            Ex::IsTrue(a) => format!("({} IS TRUE)", s(a)),
            Ex::Case { whens, otherwise } => {
                let mut out = String::from("CASE");
                for (c, r) in whens {
                    out.push_str(&format!(" WHEN {} THEN {}", s(c), s(r)));
                }
                if let Some(e) = otherwise {
                    out.push_str(&format!(" ELSE {}", s(e)));
                }
                out.push_str(" END");
                out
            }
        }
    }
}

/// `` `name` `` with back-ticks doubled inside.
pub fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// An aggregate call: `COUNT(*)`, `SUM(v)`, `COUNT(DISTINCT v)`.
#[derive(Debug, Clone, PartialEq)]
pub struct AggCall {
    /// `COUNT`, `SUM`, `MIN`, `MAX`, `LAST_VALUE`.
    pub function: String,
    pub distinct: bool,
    /// The argument fields (none: `COUNT(*)`; two: `LATEST_BY_TIME(value, time)`).
    pub args: Vec<usize>,
    /// The BOOLEAN field of its `FILTER (WHERE …)`, if any (`AggregateCall.filterArg`).
    pub filter: Option<usize>,
}

/// An `OVER` window frame, as the engine's `OverAggregate` writes it
/// (`ROWS BETWEEN 1 PRECEDING AND CURRENT ROW`).
pub type Frame = String;

/// A relational node with its output field names.
#[derive(Debug, Clone)]
pub struct Rel {
    pub node: Node,
    pub names: Vec<String>,
}

/// The nodes.
#[derive(Debug, Clone)]
pub enum Node {
    /// The source table's physical columns (its processing-time attribute is computed above it):
    /// the table's name.
    Scan(String),
    /// A regular join (`LogicalJoin`): output = left fields, then right fields (names made
    /// unique, [`join_names`]). `left_keys[i] = right_keys[i]` is the join key (right fields
    /// counted from the right input's first); `condition` is the rest of `ON`, over the output
    /// fields; `hints`: `STATE_TTL` per side (`true`: left), as written.
    Join {
        left: Box<Rel>,
        right: Box<Rel>,
        join_type: &'static str,
        left_keys: Vec<usize>,
        right_keys: Vec<usize>,
        /// Per key, whether `ON` wrote the right field first (printed as written).
        right_first: Vec<bool>,
        condition: Option<Ex>,
        hints: Vec<(bool, String)>,
        /// A `LATERAL SNAPSHOT` join's arguments (the right input is the snapshot's `input`);
        /// `None` for a regular join.
        snapshot: Option<Box<super::lateral_snapshot::SnapshotArgs>>,
    },
    /// A projection with an optional condition (Calcite's `LogicalProject` / `LogicalFilter`,
    /// merged into Flink's `Calc`).
    Calc { input: Box<Rel>, items: Vec<Ex>, condition: Option<Ex> },
    /// `GROUP BY group` with `calls` (Calcite's `LogicalAggregate`): output = group fields,
    /// then one field per call. `hint_ttl`: a `STATE_TTL` hint for its input, as written.
    Aggregate { input: Box<Rel>, group: Vec<usize>, calls: Vec<AggCall>, hint_ttl: Option<String> },
    /// Aggregates over a processing-time window (`LogicalWindow`): output = input fields, then
    /// one field per call.
    /// `dollar_names`: Calcite names the window's computed fields `$<index>` (see
    /// [`super::optimize`]).
    Over { input: Box<Rel>, partition: Vec<usize>, order: usize, frame: Frame, calls: Vec<AggCall>, dollar_names: bool },
    /// `ROW_NUMBER() OVER (PARTITION BY … ORDER BY …)` not yet turned into a `Rank` by a filter
    /// on it: output = input fields, then the row number.
    RowNumber { input: Box<Rel>, partition: Vec<usize>, order: Vec<(usize, bool)>, at: Location },
    /// Top-N (`FlinkLogicalRank`): output = input fields, then the row number if `output_rank`.
    Rank { input: Box<Rel>, partition: Vec<usize>, order: Vec<(usize, bool)>, rank_end: u64, output_rank: bool },
}

/// A join's output names: the left's, then the right's made unique as Calcite does
/// (`SqlValidatorUtil.uniquify`: `k` becomes `k0`, then `k1`, …).
pub fn join_names(left: &[String], right: &[String]) -> Vec<String> {
    let mut out: Vec<String> = left.to_vec();
    for name in right {
        let mut unique = name.clone();
        let mut n = 0;
        while out.contains(&unique) {
            unique = format!("{name}{n}");
            n += 1;
        }
        out.push(unique);
    }
    out
}

impl Rel {
    /// Its inputs: none for a scan, two for a join.
    pub fn inputs(&self) -> Vec<&Rel> {
        match &self.node {
            Node::Join { left, right, .. } => vec![left, right],
            _ => self.input().into_iter().collect(),
        }
    }

    /// Its single input (none for a scan or a join).
    pub fn input(&self) -> Option<&Rel> {
        match &self.node {
            Node::Scan(_) | Node::Join { .. } => None,
            Node::Calc { input, .. }
            | Node::Aggregate { input, .. }
            | Node::Over { input, .. }
            | Node::RowNumber { input, .. }
            | Node::Rank { input, .. } => Some(input),
        }
    }
}
