//! The native command line:
//! `flink-state-sim run (SCENARIO.json | --preset NAME) [--flink V] [--trace full|metrics] [--format text|jsonl|csv]`,
//! `flink-state-sim check FILE...`, `flink-state-sim explain FILE`, `flink-state-sim export-sql (FILE | --preset NAME)`,
//! `flink-state-sim import-plan PLAN.json`,
//! `flink-state-sim presets` and `flink-state-sim schema`.
//! Exit status ([`EXIT_STATUS`]): 0 done, 1 an expectation failed (`check`), 2 bad input or a run
//! that failed (a one-line error), 3 the output cannot be written (standard output closed, a full
//! disk); a closed pipe (`run … | head -1`) stops quietly with 0. Nothing panics on a stream:
//! standard output is written through [`Out`], standard error through [`report`]. User text in
//! messages and text output is escaped ([`quote`], [`escape_line`]).

mod cli;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand, ValueEnum};
use cli::output::{report, stdout_is_closed, Out, WriteFailure};
use flink_state_sim::engine::error::{escape_line, quote};
use flink_state_sim::engine::expect::{self, Checked};
use flink_state_sim::engine::{presets, scenario, FlinkMode, Scenario, SimOptions, Simulation, TraceLevel};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The exit statuses, as `--help` and the README's "Command line" list them.
const EXIT_STATUS: &str = "Exit status: 0 done (also when the reader of a pipe stops early, as in `run … | head -1`); \
1 an expectation failed (`check`); 2 bad input: usage, an unreadable file, an invalid scenario, or a run that failed \
where Flink would throw (one line on standard error); 3 the output cannot be written (standard output closed, a full disk).";

/// `check` found a difference from what a file expects.
const EXPECTATION_FAILED: u8 = 1;
/// Bad input, or a run that failed.
const BAD_INPUT: u8 = 2;
/// Standard output cannot be written.
const CANNOT_WRITE: u8 = 3;

#[derive(Parser)]
#[command(
    name = "flink-state-sim",
    version,
    about = "Step through Flink's keyed state, cleanup timers, state TTL and retractions",
    after_help = EXIT_STATUS
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario to its end and print its trace, its metrics or a summary.
    Run {
        /// A scenario JSON file (see docs/scenario-format.md).
        #[arg(required_unless_present = "preset", conflicts_with = "preset")]
        scenario: Option<PathBuf>,
        /// Run a built-in scenario instead (see `flink-state-sim presets`).
        #[arg(long)]
        preset: Option<String>,
        /// Override the scenario's Flink version: `1.6-legacy`, `1.7-legacy`, `1.10-legacy`, `1.10-blink`, `1.12` or `2.3`.
        #[arg(long)]
        flink: Option<String>,
        /// `full`: record every decision (what `text` and `jsonl` print); `metrics`: only the
        /// metrics series (memory follows keys, not events: for runs of millions of events).
        #[arg(long, value_enum, default_value_t = Trace::Full)]
        trace: Trace,
        /// `text`: the trace and the result table (`full`) or a summary (`metrics`); `jsonl`: one
        /// JSON object per trace entry (`full`) or per metrics sample (`metrics`); `csv`: the
        /// metrics series.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Run scenario files and check what they expect (their `expect` blocks): prints one line per
    /// file, exits 1 when any expectation fails (naming the first difference).
    Check {
        /// Scenario JSON files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Check nothing: print the `expect` block each file's run produces (one JSON object per
        /// file), a draft to read against Flink's rules before putting it into the file.
        #[arg(long)]
        draft: bool,
    },
    /// Print the scenario's plan as Flink's `EXPLAIN CHANGELOG_MODE` prints it: the optimized
    /// physical plan with each node's changelog mode, then the optimized execution plan.
    Explain {
        /// A scenario JSON file (with `sql` or `pipeline`).
        #[arg(required_unless_present = "preset", conflicts_with = "preset")]
        scenario: Option<PathBuf>,
        /// Explain a built-in scenario instead.
        #[arg(long)]
        preset: Option<String>,
    },
    /// Write the scenario as a Flink SQL script that Flink 2.3's SQL client runs unchanged (the
    /// `SET`s, a source holding the rows in order, the views, a `print` sink); exits 2 with the
    /// reason when Flink 2.3 cannot express it, and warns (standard error) where the output can differ.
    ExportSql {
        /// A scenario JSON file.
        #[arg(required_unless_present = "preset", conflicts_with = "preset")]
        scenario: Option<PathBuf>,
        /// Export a built-in scenario instead.
        #[arg(long)]
        preset: Option<String>,
    },
    /// Read a Flink compiled plan (the JSON of `COMPILE PLAN … FOR INSERT …`, Flink 1.18+) and
    /// print the scenario it is: source, pipeline and settings, no steps (add steps or a workload).
    ImportPlan {
        /// The compiled plan's JSON file.
        plan: PathBuf,
    },
    /// List the built-in scenarios.
    Presets,
    /// Print the JSON Schema of the scenario format (draft-07), for editors: save it and
    /// point a scenario's `"$schema"` at it.
    Schema,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Trace {
    Full,
    Metrics,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Jsonl,
    Csv,
}

fn main() -> ExitCode {
    if stdout_is_closed() {
        report("cannot write the output: standard output is closed");
        return ExitCode::from(CANNOT_WRITE);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                let mut out = Out::stdout();
                return finish(out.line(&e.to_string()).and_then(|()| out.flush()));
            }
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                report("no command given: try `flink-state-sim run --preset seed-001-one-day-two-days` or `flink-state-sim --help`");
                return ExitCode::from(BAD_INPUT);
            }
            _ => {
                report(&escape_line(&one_line(&e.to_string())));
                return ExitCode::from(BAD_INPUT);
            }
        },
    };
    let mut out = Out::stdout();
    let result = match cli.command {
        Command::Presets => list_presets(&mut out),
        Command::Schema => print_schema(&mut out),
        Command::Check { files, draft: true } => draft(&mut out, &files),
        Command::Check { files, draft: false } => match check(&mut out, &files) {
            Ok(0) => Ok(()),
            Ok(_) => {
                return match out.flush() {
                    Ok(()) => ExitCode::from(EXPECTATION_FAILED),
                    written => finish(written),
                };
            }
            Err(e) => Err(e),
        },
        Command::Explain { scenario, preset } => explain(&mut out, scenario, preset),
        Command::ExportSql { scenario, preset } => export_sql(&mut out, scenario, preset),
        Command::ImportPlan { plan } => import_plan(&mut out, &plan),
        Command::Run { scenario, preset, flink, trace, format } => {
            run(&mut out, scenario, preset, flink, trace, format)
        }
    };
    match result {
        Ok(()) => finish(out.flush()),
        Err(Failure::Input(e) | Failure::Run(e)) => {
            // What was printed before the failure still goes out; the failure decides the status.
            let _ = out.flush();
            report(&e);
            ExitCode::from(BAD_INPUT)
        }
        Err(Failure::Write(w)) => finish(Err(w)),
    }
}

/// The exit status after writing: a closed pipe ends quietly, another write error is reported.
fn finish(written: Result<(), WriteFailure>) -> ExitCode {
    match written {
        Ok(()) | Err(WriteFailure::ClosedPipe) => ExitCode::SUCCESS,
        Err(WriteFailure::Other(e)) => {
            report(&format!("cannot write the output: {e}"));
            ExitCode::from(CANNOT_WRITE)
        }
    }
}

/// A path as messages and `check` lines show it: escaped ([`escape_line`]), not shortened (the
/// system bounds a path, and its end is what tells two files apart).
fn shown(path: &Path) -> String {
    match escape_line(&path.to_string_lossy()) {
        Cow::Borrowed(text) => text.to_string(),
        Cow::Owned(text) => text,
    }
}

/// A file's text, or a one-line error naming it.
fn read(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| Failure::Input(format!("{}: cannot read: {e}", shown(path))))
}

/// Why a command failed.
enum Failure {
    /// Bad input: a one-line error, status 2.
    Input(String),
    /// The scenario failed while running (an operator failed where Flink would throw): status 2.
    Run(String),
    Write(WriteFailure),
}

impl From<WriteFailure> for Failure {
    fn from(w: WriteFailure) -> Self {
        Failure::Write(w)
    }
}

/// A clap error on one line: the message without the usage block, its lines joined.
fn one_line(message: &str) -> String {
    let body = message.split("\n\nUsage:").next().unwrap_or(message);
    let body = body.trim().trim_start_matches("error: ");
    body.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn list_presets(out: &mut Out) -> Result<(), Failure> {
    for (name, json) in presets::PRESETS {
        let title = Scenario::from_json(json).map(|s| s.title).unwrap_or_default();
        out.line(&format!("{name}\t{title}"))?;
    }
    Ok(())
}

fn print_schema(out: &mut Out) -> Result<(), Failure> {
    let schema = scenario::schema::json_schema();
    let text = serde_json::to_string_pretty(&schema).map_err(|e| Failure::Run(e.to_string()))?;
    Ok(out.line(&text)?)
}

/// Checks each file's expectations; returns how many failed.
fn check(out: &mut Out, files: &[PathBuf]) -> Result<usize, Failure> {
    let mut failed = 0;
    for path in files {
        let text = read(path)?;
        let path = shown(path);
        match expect::check_text(&text) {
            Ok(Checked::NothingExpected) => out.text(&format!("ok    {path} (it expects nothing)"))?,
            Ok(Checked::Passed) => out.text(&format!("ok    {path}"))?,
            Ok(Checked::RefusedAsExpected) => out.text(&format!("ok    {path} (refused as expected)"))?,
            Err(difference) => {
                failed += 1;
                out.text(&format!("FAIL  {path}: {difference}"))?;
            }
        }
    }
    Ok(failed)
}

/// Prints the `expect` block of each file's run (`check --draft`).
fn draft(out: &mut Out, files: &[PathBuf]) -> Result<(), Failure> {
    for path in files {
        let text = read(path)?;
        let scenario = Scenario::from_json(&text).map_err(|e| Failure::Input(format!("{}: {e}", shown(path))))?;
        let expect = expect::observed(scenario).map_err(|e| Failure::Run(format!("{}: {e}", shown(path))))?;
        let text = serde_json::to_string_pretty(&expect).map_err(|e| Failure::Run(e.to_string()))?;
        out.line(&text)?;
    }
    Ok(())
}

/// The text of a scenario file or of a preset.
fn scenario_text(file: Option<&Path>, preset: Option<&str>) -> Result<String, Failure> {
    match (file, preset) {
        (Some(path), _) => read(path),
        (None, Some(name)) => presets::preset_json(name)
            .map(str::to_string)
            .ok_or_else(|| Failure::Input(presets::load_preset(name).err().map(|e| e.to_string()).unwrap_or_default())),
        (None, None) => Err(Failure::Input("give a scenario file or --preset NAME".into())),
    }
}

fn explain(out: &mut Out, file: Option<PathBuf>, preset: Option<String>) -> Result<(), Failure> {
    let text = scenario_text(file.as_deref(), preset.as_deref())?;
    let scenario = Scenario::from_json(&text).map_err(|e| Failure::Input(e.to_string()))?;
    out.line(flink_state_sim::engine::explain::explain(&scenario).trim_end())?;
    // Under the plan, never in Flink's text: what it leaves unsaid.
    for note in flink_state_sim::engine::explain::plan_notes(&scenario) {
        out.line("")?;
        out.line(&format!("Note: {note}"))?;
    }
    Ok(())
}

fn export_sql(out: &mut Out, file: Option<PathBuf>, preset: Option<String>) -> Result<(), Failure> {
    let text = scenario_text(file.as_deref(), preset.as_deref())?;
    let exported = flink_state_sim::engine::export_sql::export(&text)
        .map_err(|e| Failure::Input(format!("cannot export to Flink SQL: {e}")))?;
    for warning in &exported.warnings {
        report(&format!("warning: {warning}"));
    }
    Ok(out.line(exported.sql().trim_end())?)
}

fn import_plan(out: &mut Out, path: &Path) -> Result<(), Failure> {
    use flink_state_sim::engine::compiled_plan::{import, MAX_PLAN_BYTES};
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_PLAN_BYTES as u64 {
        let shown = shown(path);
        return Err(Failure::Input(format!(
            "{shown}: the plan is {} bytes, more than the {} (4 MiB) read",
            flink_state_sim::engine::digits::grouped(size),
            flink_state_sim::engine::digits::grouped(MAX_PLAN_BYTES)
        )));
    }
    let scenario = import(&read(path)?).map_err(|e| Failure::Input(format!("{}: {e}", shown(path))))?;
    let text = serde_json::to_string_pretty(&scenario).map_err(|e| Failure::Run(e.to_string()))?;
    Ok(out.line(&text)?)
}

fn run(
    out: &mut Out,
    file: Option<PathBuf>,
    preset: Option<String>,
    flink: Option<String>,
    trace: Trace,
    format: Format,
) -> Result<(), Failure> {
    let text = scenario_text(file.as_deref(), preset.as_deref())?;
    let text = match flink {
        None => text,
        Some(f) => {
            let mode = FlinkMode::parse(&f).ok_or_else(|| {
                let known: Vec<&str> = FlinkMode::ALL.iter().map(|m| m.id()).collect();
                Failure::Input(format!("--flink: unknown Flink version {} (known: {})", quote(&f), known.join(", ")))
            })?;
            scenario::with_flink(&text, mode).map_err(|e| Failure::Input(e.to_string()))?
        }
    };
    let scenario = Scenario::from_json(&text).map_err(|e| Failure::Input(e.to_string()))?;
    let level = if trace == Trace::Full && format != Format::Csv { TraceLevel::Full } else { TraceLevel::Metrics };
    let options = SimOptions { trace: level, keep_actions: None, time_travel: false };
    let mut sim = Simulation::with_options(scenario, options);
    let mut progress = cli::progress::Progress::start(sim.step_count());
    let tf = sim.time_format();
    let mut outcome = Ok(());
    while !sim.is_finished() {
        if let Err(e) = sim.step() {
            outcome = Err(e);
            break;
        }
        if level == TraceLevel::Full {
            for entry in sim.drain_trace() {
                match format {
                    Format::Jsonl => out.json_line(&entry.record(tf))?,
                    _ => out.text(&entry.text_line(tf))?,
                }
            }
        }
        progress.tick(sim.next_step());
    }
    progress.done();
    match (level, format) {
        (TraceLevel::Full, Format::Text) => cli::summary::result_table(out, &sim)?,
        (TraceLevel::Full, _) => {}
        (TraceLevel::Metrics, Format::Text) => cli::summary::summary(out, &sim, progress.elapsed_secs())?,
        (TraceLevel::Metrics, Format::Jsonl) => {
            let ids: Vec<&str> = sim.scenario().operators.iter().map(|n| n.id.as_str()).collect();
            for sample in sim.metrics() {
                out.json_line(&cli::summary::sample_by_operator(&sample, &ids))?;
            }
        }
        (TraceLevel::Metrics, Format::Csv) => cli::csv::write_series(out, &sim)?,
    }
    outcome.map_err(|e| Failure::Run(e.to_string()))
}
