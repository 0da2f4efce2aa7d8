//! Built-in scenarios, selectable by name in the page and the CLI. Each is a JSON file under
//! `scenarios/`, the same format users write.

use super::error::{quote, ScenarioError};
use super::scenario::Scenario;

/// (name, JSON text) of every preset, in the order the page lists them.
pub const PRESETS: &[(&str, &str)] = &[
    ("seed-001-one-day-two-days", include_str!("../../scenarios/seed-001-one-day-two-days.json")),
    ("cleanup-harness-min5-max10", include_str!("../../scenarios/cleanup-harness-min5-max10.json")),
    ("seed-004-device-status", include_str!("../../scenarios/seed-004-device-status.json")),
    ("seed-004-device-status-flink-2.3", include_str!("../../scenarios/seed-004-device-status-flink-2.3.json")),
    ("seed-000-topn-dedup", include_str!("../../scenarios/seed-000-topn-dedup.json")),
    ("seed-000-topn-dedup-no-retention", include_str!("../../scenarios/seed-000-topn-dedup-no-retention.json")),
    ("seed-002-dau-new-users-global-ttl", include_str!("../../scenarios/seed-002-dau-new-users-global-ttl.json")),
    (
        "seed-002-dau-new-users-per-operator-ttl",
        include_str!("../../scenarios/seed-002-dau-new-users-per-operator-ttl.json"),
    ),
    ("sql-dedup-keep-last-heap", include_str!("../../scenarios/sql-dedup-keep-last-heap.json")),
    ("sql-top2-per-group-with-rank", include_str!("../../scenarios/sql-top2-per-group-with-rank.json")),
    ("sql-top2-over-sum-ttl", include_str!("../../scenarios/sql-top2-over-sum-ttl.json")),
    ("sql-device-status-two-level-ttl", include_str!("../../scenarios/sql-device-status-two-level-ttl.json")),
    ("sql-min-max-distinct", include_str!("../../scenarios/sql-min-max-distinct.json")),
    ("dimension-expires-left-join", include_str!("../../scenarios/dimension-expires-left-join.json")),
    ("dimension-expires-left-join-hint", include_str!("../../scenarios/dimension-expires-left-join-hint.json")),
    ("upsert-sink-on-conflict", include_str!("../../scenarios/upsert-sink-on-conflict.json")),
    ("what-if-100k-logins", include_str!("../../scenarios/what-if-100k-logins.json")),
    ("timer-churn-min-equals-max", include_str!("../../scenarios/timer-churn-min-equals-max.json")),
    ("timer-churn-wide-gap", include_str!("../../scenarios/timer-churn-wide-gap.json")),
    ("upsert-source-normalize", include_str!("../../scenarios/upsert-source-normalize.json")),
    ("upsert-source-normalize-ttl", include_str!("../../scenarios/upsert-source-normalize-ttl.json")),
    ("lateral-snapshot-join-ttl", include_str!("../../scenarios/lateral-snapshot-join-ttl.json")),
];

/// Pairs of presets written to be compared side by side (the page's Compare panel): (label, left,
/// right). Each pair runs the same input under two configurations.
pub const COMPARE_PAIRS: &[(&str, &str, &str)] = &[
    (
        "Top-N dedup with vs without idle state retention (seed 000)",
        "seed-000-topn-dedup",
        "seed-000-topn-dedup-no-retention",
    ),
    (
        "DAU: one global TTL vs per-operator TTL (seed 002)",
        "seed-002-dau-new-users-global-ttl",
        "seed-002-dau-new-users-per-operator-ttl",
    ),
    ("Legacy planner vs Flink 2.3 (seed 004)", "seed-004-device-status", "seed-004-device-status-flink-2.3"),
    ("Timer churn: min = max vs a wide gap", "timer-churn-min-equals-max", "timer-churn-wide-gap"),
    (
        "LEFT JOIN: one global TTL vs STATE_TTL per side",
        "dimension-expires-left-join",
        "dimension-expires-left-join-hint",
    ),
    (
        "Upsert source: ChangelogNormalize without vs with state TTL",
        "upsert-source-normalize",
        "upsert-source-normalize-ttl",
    ),
];

/// The preset the page opens on.
pub const DEFAULT_PRESET: &str = "seed-001-one-day-two-days";

/// The JSON text of a preset.
pub fn preset_json(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, json)| *json)
}

/// Loads a preset by name.
///
/// # Errors
/// When no preset has that name (the message lists them), or the preset is invalid.
pub fn load_preset(name: &str) -> Result<Scenario, ScenarioError> {
    let json = preset_json(name).ok_or_else(|| {
        let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
        ScenarioError::new("preset", format!("no preset named {} (presets: {})", quote(name), names.join(", ")))
    })?;
    Scenario::from_json(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair names two presets with the same input: the same source, steps and workload.
    #[test]
    fn compare_pairs_run_the_same_input() {
        for (label, left, right) in COMPARE_PAIRS {
            let input = |name: &str| {
                let json = preset_json(name).unwrap_or_else(|| panic!("{label}: no preset {name}"));
                let v: serde_json::Value = serde_json::from_str(json).unwrap();
                (v["source"].clone(), v["steps"].clone(), v["workload"].clone())
            };
            assert_eq!(input(left), input(right), "{label}");
            assert_ne!(preset_json(left), preset_json(right), "{label}");
        }
    }
}
