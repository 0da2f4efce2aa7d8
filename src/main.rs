//! The native command line: `flink-state-sim run (SCENARIO.json | --preset NAME) [--format text|jsonl]`
//! and `flink-state-sim presets`. Bad input exits with status 2 and a one-line error.

use clap::error::ErrorKind;
use clap::{Parser, Subcommand, ValueEnum};
use flink_state_sim::engine::{presets, scenario, FlinkMode, Scenario, Simulation};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "flink-state-sim",
    version,
    about = "Step through Flink's keyed state, cleanup timers, state TTL and retractions"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario to its end and print the trace.
    Run {
        /// A scenario JSON file (see docs/scenario-format.md).
        #[arg(required_unless_present = "preset", conflicts_with = "preset")]
        scenario: Option<std::path::PathBuf>,
        /// Run a built-in scenario instead (see `flink-state-sim presets`).
        #[arg(long)]
        preset: Option<String>,
        /// Override the scenario's Flink version (`1.10-legacy` or `2.3`).
        #[arg(long)]
        flink: Option<String>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// List the built-in scenarios.
    Presets,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// One line per trace entry, then the result table.
    Text,
    /// One JSON object per trace entry.
    Jsonl,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                print!("{e}");
                return ExitCode::SUCCESS;
            }
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                eprintln!("no command given: try `flink-state-sim run --preset seed-001-one-day-two-days` or `flink-state-sim --help`");
                return ExitCode::from(2);
            }
            _ => {
                eprintln!("{}", one_line(&e.to_string()));
                return ExitCode::from(2);
            }
        },
    };
    let result = match cli.command {
        Command::Presets => {
            for (name, json) in presets::PRESETS {
                let title = Scenario::from_json(json).map(|s| s.title).unwrap_or_default();
                println!("{name}\t{title}");
            }
            Ok(())
        }
        Command::Run { scenario, preset, flink, format } => run(scenario, preset, flink, format),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}

/// A clap error on one line: the message without the usage block, its lines joined.
fn one_line(message: &str) -> String {
    let body = message.split("\n\nUsage:").next().unwrap_or(message);
    let body = body.trim().trim_start_matches("error: ");
    body.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn run(
    file: Option<std::path::PathBuf>,
    preset: Option<String>,
    flink: Option<String>,
    format: Format,
) -> Result<(), String> {
    let text = match (&file, &preset) {
        (Some(path), _) => {
            std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?
        }
        (None, Some(name)) => presets::preset_json(name)
            .ok_or_else(|| presets::load_preset(name).err().map(|e| e.to_string()).unwrap_or_default())?
            .to_string(),
        (None, None) => return Err("give a scenario file or --preset NAME".into()),
    };
    let text = match flink {
        None => text,
        Some(f) => {
            let mode = FlinkMode::parse(&f)
                .ok_or_else(|| format!("--flink: unknown Flink version '{f}' (known: 1.10-legacy, 2.3)"))?;
            scenario::with_flink(&text, mode).map_err(|e| e.to_string())?
        }
    };
    let scenario = Scenario::from_json(&text).map_err(|e| e.to_string())?;
    let mut sim = Simulation::new(scenario);
    let outcome = sim.run_to_end();
    let tf = sim.time_format();
    match format {
        Format::Jsonl => {
            for entry in sim.trace() {
                println!("{}", serde_json::to_string(&entry.record(tf)).map_err(|e| e.to_string())?);
            }
        }
        Format::Text => {
            for entry in sim.trace() {
                println!("{}", entry.text_line(tf));
            }
            let result = sim.result();
            println!("result [{}]:", result.columns.join(", "));
            for r in result.rows() {
                match r.stale_since_ms {
                    None => println!("  {}", r.row.join(", ")),
                    Some(t) => println!(
                        "  {}    (stale since {}: its key's state is gone, it will never be retracted)",
                        r.row.join(", "),
                        tf.format(t)
                    ),
                }
            }
        }
    }
    outcome.map_err(|e| e.to_string())
}
