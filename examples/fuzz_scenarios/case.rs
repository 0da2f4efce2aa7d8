//! One case: its input (drawn from its own seed, so any case reruns alone) and its outcome.
//!
//! Inputs: a generated valid scenario as it is, or with 1–3 mild or wild structural mutations,
//! or byte mutations; or a preset or a seed scenario mutated (the old fuzzer's way). The text then
//! reaches the engine the way a user's does: as a file or the editor's text (import), through a
//! permalink (`?s=`: LZ-String's `compressToEncodedURIComponent`, sometimes damaged, decoded as
//! the page decodes it), or rewritten for another Flink version (`--flink`, the page's chooser).

use crate::check::{self, Failure, RunInfo};
use crate::{gen_scenario, mutate};
use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::engine::scenario::with_flink;
use flink_state_sim::engine::{FlinkMode, Scenario};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg as Rng;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The random source of case `case` of a run seeded `seed`.
pub fn case_rng(seed: u64, case: u64) -> Rng {
    Rng::seed_from_u64(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ case)
}

pub struct Input {
    /// `generated`, `generated+mutated`, `generated+bytes`, `preset+mutated`.
    pub origin: &'static str,
    /// `file`, `link`, `link-damaged`, `--flink`.
    pub carrier: &'static str,
    /// The scenario text the engine reads (`None`: the link did not decode).
    pub text: Option<String>,
}

/// What a case did.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Outcome {
    pub origin: String,
    pub carrier: String,
    pub valid: bool,
    /// The rejected scenario's error path, indices dropped, two levels.
    pub error_path: Option<String>,
    pub mode: Option<String>,
    /// Operator kinds, as written (`"operator"`), of a valid scenario.
    pub kinds: Vec<String>,
    /// Features of a valid scenario: `mini-batch`, `operator-ttl`, `workload`, `where`, ...
    pub features: Vec<String>,
    pub run: Option<RunInfo>,
    pub cli: Option<String>,
    pub failures: Vec<Failure>,
    pub ms: f64,
}

fn preset_values() -> &'static [Value] {
    static V: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    V.get_or_init(|| PRESETS.iter().map(|(_, j)| serde_json::from_str(j).expect("a preset is JSON")).collect())
}

pub fn make_input(rng: &mut Rng) -> Input {
    let roll = rng.random_range(0..100);
    let (origin, value) = if roll < 85 {
        (if roll < 50 { "generated" } else { "generated+mutated" }, gen_scenario::scenario(rng))
    } else {
        ("preset+mutated", preset_values().choose(rng).unwrap().clone())
    };
    let mut value = value;
    if origin != "generated" {
        let mild = rng.random_bool(0.5);
        for _ in 0..*[1, 1, 1, 2, 3].choose(rng).unwrap() {
            mutate::mutate_structure(rng, &mut value, mild);
        }
    }
    let mut text = if rng.random_bool(0.5) { value.to_string() } else { serde_json::to_string_pretty(&value).unwrap() };
    let mut origin = origin;
    if rng.random_bool(0.05) {
        let mut bytes = text.into_bytes();
        for _ in 0..rng.random_range(1..4) {
            mutate::mutate_bytes(rng, &mut bytes);
        }
        text = String::from_utf8_lossy(&bytes).into_owned();
        origin = "generated+bytes";
    }
    match rng.random_range(0..100) {
        0..=69 => Input { origin, carrier: "file", text: Some(text) },
        70..=84 => {
            let mut link = lz_str::compress_to_encoded_uri_component(&text);
            let damaged = rng.random_bool(0.3);
            if damaged && !link.is_empty() {
                let mut chars: Vec<char> = link.chars().collect();
                const URI: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$";
                for _ in 0..rng.random_range(1..4) {
                    let i = rng.random_range(0..chars.len());
                    match rng.random_range(0..3) {
                        0 => chars[i] = *URI.choose(rng).unwrap() as char,
                        1 => chars.truncate(i.max(1)),
                        _ => {
                            chars.remove(i);
                        }
                    }
                    if chars.is_empty() {
                        break;
                    }
                }
                link = chars.into_iter().collect();
            }
            Input { origin, carrier: if damaged { "link-damaged" } else { "link" }, text: decode_link(&link) }
        }
        _ => {
            let mode = *FlinkMode::ALL.choose(rng).unwrap();
            // An error here is reported as the scenario's (the CLI does the same).
            let rewritten = with_flink(&text, mode).unwrap_or(text);
            Input { origin, carrier: "--flink", text: Some(rewritten) }
        }
    }
}

/// The page's reading of a link's `s=` (src/ui/persist.rs `decompress`, wasm-only): LZ-String,
/// then UTF-16; `None` where the page says the link is corrupted.
fn decode_link(data: &str) -> Option<String> {
    let wide = lz_str::decompress_from_encoded_uri_component(data)?;
    String::from_utf16(&wide).ok().filter(|t| !t.is_empty())
}

/// `pipeline[1].aggregates[0].args` → `pipeline[].aggregates[]`; an unknown field's (random) name
/// is replaced by `<unknown field>`.
fn path_prefix(path: &str, message: &str) -> String {
    let path = if message.starts_with("unknown field") {
        path.rsplit_once('.').map_or("<unknown field>".to_string(), |(p, _)| format!("{p}.<unknown field>"))
    } else {
        path.to_string()
    };
    let mut out = String::new();
    let mut in_index = false;
    for c in path.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push_str("[]");
            }
            ']' => in_index = false,
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out.split('.').take(2).collect::<Vec<_>>().join(".")
}

fn features(v: &Value, s: &Scenario) -> Vec<String> {
    let mut f = Vec::new();
    let mut add = |on: bool, name: &str| {
        if on {
            f.push(name.to_string())
        }
    };
    add(s.mini_batch.is_some(), "mini-batch");
    add(s.operators.iter().any(|n| n.spec.state_ttl().is_some()), "operator-ttl");
    add(s.has_state_ttl(), "state-ttl");
    add(
        matches!(s.retention, flink_state_sim::engine::scenario::Retention::IdleState(r) if r.state_cleaning_enabled()),
        "cleanup-timers",
    );
    add(s.workload.is_some(), "workload");
    let ops = v["pipeline"].as_array().cloned().unwrap_or_default();
    add(ops.iter().any(|o| o.get("where").is_some()), "calc-where");
    add(
        ops.iter().any(|o| {
            o["select"].as_array().is_some_and(|a| a.iter().any(|e| e.as_str().is_some_and(|e| e.contains("CASE"))))
        }),
        "calc-case",
    );
    add(s.source().proctime.is_some(), "proctime");
    add(v["source"]["changelog"] == "all", "changelog-all");
    add(s.state_backend != Default::default(), "rocksdb");
    f
}

/// Runs case `input` (parse, then the checks of [`check`]); `rng` draws the run's actions.
pub fn run(input: &Input, rng: &mut Rng) -> Outcome {
    let mut o = Outcome { origin: input.origin.into(), carrier: input.carrier.into(), ..Outcome::default() };
    let Some(text) = &input.text else {
        o.error_path = Some("link (s=)".into());
        return o;
    };
    match Scenario::from_json(text) {
        Err(e) => {
            if let Some(p) = check::message_problem(&e.to_string()) {
                o.failures.push(Failure {
                    class: "message".into(),
                    detail: format!("{p}: {}", check::shorten(&e.to_string())),
                });
            }
            o.error_path = Some(path_prefix(&e.path, &e.message));
        }
        Ok(s) => {
            o.valid = true;
            o.mode = Some(s.flink.id().to_string());
            let v: Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).unwrap_or_default();
            o.kinds = v["pipeline"]
                .as_array()
                .map_or(vec![], |a| a.iter().filter_map(|op| op["operator"].as_str().map(str::to_string)).collect());
            o.features = features(&v, &s);
            o.run = Some(check::valid_case(text, &s, rng, &mut o.failures));
        }
    }
    o
}
