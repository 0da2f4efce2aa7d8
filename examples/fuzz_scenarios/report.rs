//! The statistics of a run and the report printed at its end: the shares of cases that
//! validate and that run (by origin, Flink mode, operator kind, Flink class and feature), the
//! CLI runs, the most common rejections, and every failure with the command that reruns it and
//! its minimized input.

use crate::case::Outcome;
use crate::check::signature;
use std::collections::BTreeMap;

/// `writeln!` into a `String` (which cannot fail).
macro_rules! w {
    ($o:expr, $($t:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($o, $($t)*);
    }};
}

/// Counts for one row of a table: cases, valid, ran (valid and no operator failure).
#[derive(Default, Clone, Copy)]
struct Row {
    cases: u64,
    valid: u64,
    ran: u64,
}

impl Row {
    fn add(&mut self, valid: bool, ran: bool) {
        self.cases += 1;
        self.valid += valid as u64;
        self.ran += ran as u64;
    }
}

/// One distinct failure: its first case and how often it was seen.
pub struct Found {
    pub first_case: u64,
    pub count: u64,
    pub detail: String,
    pub input: String,
}

#[derive(Default)]
pub struct Stats {
    total: Row,
    by_origin: BTreeMap<String, Row>,
    by_carrier: BTreeMap<String, Row>,
    by_mode: BTreeMap<String, Row>,
    by_kind: BTreeMap<String, Row>,
    by_class: BTreeMap<String, Row>,
    by_feature: BTreeMap<String, Row>,
    by_cli: BTreeMap<String, u64>,
    errors: BTreeMap<String, u64>,
    steps: u64,
    /// Failures by class and signature.
    pub found: BTreeMap<(String, String), Found>,
    pub failed_cases: u64,
    pub slow: Vec<(u64, f64)>,
    pub slowest: (f64, u64),
}

impl Stats {
    pub fn add(&mut self, case: u64, o: &Outcome, input: impl FnOnce() -> String) {
        let ran = o.run.as_ref().is_some_and(|r| !r.stopped);
        self.total.add(o.valid, ran);
        self.by_origin.entry(o.origin.clone()).or_default().add(o.valid, ran);
        self.by_carrier.entry(o.carrier.clone()).or_default().add(o.valid, ran);
        if let Some(m) = &o.mode {
            self.by_mode.entry(m.clone()).or_default().add(o.valid, ran);
        }
        let mut kinds = o.kinds.clone();
        kinds.sort();
        kinds.dedup();
        for k in kinds {
            self.by_kind.entry(k).or_default().add(o.valid, ran);
        }
        if let Some(r) = &o.run {
            self.steps += r.steps;
            let mut classes = r.classes.clone();
            classes.sort();
            classes.dedup();
            for c in classes {
                self.by_class.entry(c).or_default().add(o.valid, ran);
            }
        }
        for f in &o.features {
            self.by_feature.entry(f.clone()).or_default().add(o.valid, ran);
        }
        if let Some(c) = &o.cli {
            *self.by_cli.entry(c.split(" --flink").next().unwrap_or(c).to_string()).or_default() += 1;
        }
        if let Some(e) = &o.error_path {
            *self.errors.entry(e.clone()).or_default() += 1;
        }
        if o.ms > 1000.0 {
            self.slow.push((case, o.ms));
        }
        if o.ms > self.slowest.0 {
            self.slowest = (o.ms, case);
        }
        if !o.failures.is_empty() {
            self.failed_cases += 1;
            let text = input();
            for f in &o.failures {
                let key = (f.class.clone(), signature(f));
                let e = self.found.entry(key).or_insert_with(|| Found {
                    first_case: case,
                    count: 0,
                    detail: f.detail.clone(),
                    input: text.clone(),
                });
                e.count += 1;
            }
        }
    }

    pub fn cases(&self) -> u64 {
        self.total.cases
    }

    pub fn valid(&self) -> u64 {
        self.total.valid
    }

    pub fn render(&self, seed: u64, secs: f64, reproduce: &str) -> String {
        let mut o = String::new();
        let pct = |n: u64, d: u64| if d == 0 { 0.0 } else { 100.0 * n as f64 / d as f64 };
        let t = self.total;
        w!(o, "fuzz_scenarios: seed {seed}, {} cases in {secs:.1} s ({:.0} cases/s)", t.cases, t.cases as f64 / secs);
        w!(
            o,
            "valid: {} ({:.1} %)   ran: {} ({:.1} %)   stopped on an operator failure: {}   steps run: {}",
            t.valid,
            pct(t.valid, t.cases),
            t.ran,
            pct(t.ran, t.cases),
            t.valid - t.ran,
            self.steps
        );
        let table = |o: &mut String, title: &str, rows: &BTreeMap<String, Row>, of_valid: bool| {
            w!(*o, "\n{title:<34} {:>9} {:>9} {:>7} {:>9} {:>7}", "cases", "valid", "%", "ran", "%");
            for (name, r) in rows {
                let base = if of_valid { r.valid } else { r.cases };
                w!(
                    *o,
                    "  {name:<32} {:>9} {:>9} {:>6.1}% {:>9} {:>6.1}%",
                    r.cases,
                    r.valid,
                    pct(r.valid, r.cases),
                    r.ran,
                    pct(r.ran, base)
                );
            }
        };
        table(&mut o, "by origin", &self.by_origin, false);
        table(&mut o, "by carrier", &self.by_carrier, false);
        table(&mut o, "by Flink mode (valid cases)", &self.by_mode, true);
        table(&mut o, "by operator kind (valid cases)", &self.by_kind, true);
        table(&mut o, "by Flink class run (valid cases)", &self.by_class, true);
        table(&mut o, "by feature (valid cases)", &self.by_feature, true);
        w!(o, "\nCLI runs (`run --trace T --format F`):");
        for (opts, n) in &self.by_cli {
            w!(o, "  {n:>9}  {opts}");
        }
        let mut errors: Vec<(&String, &u64)> = self.errors.iter().collect();
        errors.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        w!(o, "\nrejections by path (top 12 of {}):", errors.len());
        for (path, n) in errors.iter().take(12) {
            w!(o, "  {n:>9}  {path}");
        }
        w!(
            o,
            "\nslowest case: {:.1} ms (case {}); cases over 1 s: {}",
            self.slowest.0,
            self.slowest.1,
            self.slow.len()
        );
        for (case, ms) in self.slow.iter().take(10) {
            w!(o, "  case {case}: {ms:.0} ms   ({reproduce} --case {case})");
        }
        w!(o, "\nfailures: {} distinct, in {} cases", self.found.len(), self.failed_cases);
        for ((class, _), f) in &self.found {
            w!(o, "- [{class}] ×{}  first in case {}: {}", f.count, f.first_case, f.detail.escape_debug());
            w!(o, "  rerun: {reproduce} --case {}", f.first_case);
            let input: String = f.input.chars().take(1500).collect();
            let more =
                if input.len() < f.input.len() { format!(" … ({} bytes)", f.input.len()) } else { String::new() };
            w!(o, "  minimal input: {}{more}", input.escape_debug());
        }
        o
    }
}
