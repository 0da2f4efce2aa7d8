//! The editor's SQL form in a real headless browser (`wasm-pack test --headless --chrome
//! --no-default-features --test browser_sql`): typing re-plans at once (the plan, or the error
//! at its line and column with that line marked), Apply runs the SQL, and switching SQL → JSON →
//! SQL keeps the run the same. Prints how long re-planning takes (`REPLAN …` lines, with
//! `-- --nocapture`); on an optimized build (the page's) it must be under 50 ms.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::{settle, Page};
use flink_state_sim::engine::presets::PRESETS;
use flink_state_sim::ui::sql_state::{plan_draft, sql_of, Planned};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Event, EventInit, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// A scenario written in SQL: a count per key over three rows.
const SCENARIO: &str = r#"{
  "name": "sql-editor",
  "flink": "2.3",
  "time_format": "millis",
  "source": {"name": "src", "schema": [["k", "STRING"], ["v", "INT"]]},
  "sql": "SELECT k, COUNT(*) AS cnt\nFROM src\nGROUP BY k",
  "steps": [{"at": 1, "row": ["a", 1]}, {"at": 2, "row": ["a", 2]}, {"at": 3, "row": ["b", 5]}]
}"#;

async fn load(page: &Page, json: &str) {
    page.set_textarea("#scenario-json", json);
    page.click("#load").await;
    assert!(page.find("#scenario-error").is_none(), "{}", page.text("#scenario-error"));
}

/// Types `sql` into the SQL box: sets its value and fires `input`, as typing does.
async fn type_sql(page: &Page, sql: &str) {
    let area = page.get("#scenario-sql").dyn_into::<HtmlTextAreaElement>().unwrap();
    area.set_value(sql);
    let init = EventInit::new();
    init.set_bubbles(true);
    area.dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    settle().await;
}

async fn step_to_end(page: &Page) {
    while !page.is_disabled("#step") {
        page.click("#step").await;
    }
}

fn result_rows(page: &Page) -> Vec<String> {
    page.texts("#result-table tbody tr")
}

#[wasm_bindgen_test]
async fn typing_sql_shows_the_plan_or_the_error_at_its_line() {
    let page = Page::open().await;
    load(&page, SCENARIO).await;
    page.click("#mode-sql").await;
    assert_eq!(page.attr("#mode-sql", "aria-pressed"), "true");
    assert_eq!(page.textarea("#scenario-sql"), "SELECT k, COUNT(*) AS cnt\nFROM src\nGROUP BY k");
    assert_eq!(page.texts(".sql-gutter .ln"), ["1", "2", "3"]);
    let plan = page.text("#sql-plan");
    assert!(plan.starts_with("== Optimized Physical Plan ==\nGroupAggregate(groupBy=[k], select=[k, COUNT(*) AS cnt], changelogMode=[I,UB,UA])"), "{plan}");
    assert!(plan.contains("+- Exchange(distribution=[hash[k]], changelogMode=[I])"), "{plan}");
    assert!(page.is_disabled("#apply-sql"), "nothing to apply: the box holds the loaded SQL");

    // Another query: re-planned as it is typed.
    type_sql(&page, "SELECT k, SUM(v) AS total\nFROM src\nGROUP BY k").await;
    let plan = page.text("#sql-plan");
    assert!(
        plan.contains("GroupAggregate(groupBy=[k], select=[k, SUM(v) AS total], changelogMode=[I,UB,UA])"),
        "{plan}"
    );
    assert!(page.find("#sql-error").is_none());

    // A broken one: the engine's error with its line and column, and that line marked.
    type_sql(&page, "SELECT k, SUM(v) AS total\nFROM src\nGROUP BY k, nope").await;
    let error = page.text("#sql-error");
    assert!(error.starts_with("sql: line 3, column 13: "), "{error}");
    assert!(error.contains("nope"), "{error}");
    assert!(page.find("#sql-plan").is_none(), "no plan for a query that does not plan");
    assert_eq!(page.texts(".sql-gutter .ln.bad"), ["3"]);
    assert_eq!(page.attr("#sql-band", "data-line"), "3");
    assert_eq!(page.attr("#sql-band", "style"), "top: 42px; height: 18px");
    assert_eq!(page.text("#sql-caret"), "3 | GROUP BY k, nope\n  |             ^");
    assert!(page.is_disabled("#apply-sql"), "an error cannot be applied");
    assert_eq!(page.text("#progress"), "step 0 / 3", "the run goes on with the loaded query");

    // Fixed and applied: the page runs the new query, as a Load does.
    type_sql(&page, "SELECT k, SUM(v) AS total\nFROM src\nGROUP BY k").await;
    assert!(page.find(".sql-gutter .ln.bad").is_none() && page.find("#sql-band").is_none());
    page.click("#apply-sql").await;
    step_to_end(&page).await;
    assert_eq!(result_rows(&page), ["a3", "b5"]);
    assert!(page.textarea("#scenario-json").contains("\"sql\": \"SELECT k, SUM(v) AS total\\nFROM src\\nGROUP BY k\""));
}

#[wasm_bindgen_test]
async fn switching_sql_to_json_and_back_keeps_the_run() {
    let page = Page::open().await;
    load(&page, SCENARIO).await;
    page.click("#step").await;
    page.click("#step").await;
    let rows = result_rows(&page);
    let cards = page.texts(".operator .msg");
    assert_eq!(rows, ["a2"]);
    page.click("#mode-sql").await;

    // SQL → JSON: the planned pipeline, loaded at the same position: the same run.
    page.click("#mode-json").await;
    let json = page.textarea("#scenario-json");
    assert!(json.contains("\"pipeline\": [") && !json.contains("\"sql\""), "{json}");
    // Field trimming: a Calc keeps `k` only (COUNT(*) reads no column), then the aggregate.
    assert!(json.contains("\"id\": \"Calc[2]\"") && json.contains("\"id\": \"GroupAggregate[3]\""), "{json}");
    assert_eq!(page.text("#progress"), "step 2 / 3");
    assert_eq!(result_rows(&page), rows);
    assert_eq!(page.texts(".operator .msg"), cards);
    step_to_end(&page).await;
    let end = result_rows(&page);
    assert_eq!(end, ["a2", "b1"]);

    // JSON → SQL: back to the SQL it was made from, at the same position.
    page.click("#mode-sql").await;
    assert_eq!(page.textarea("#scenario-sql"), "SELECT k, COUNT(*) AS cnt\nFROM src\nGROUP BY k");
    assert!(page.textarea("#scenario-json").contains("\"sql\""));
    assert_eq!(page.text("#progress"), "step 3 / 3");
    assert_eq!(result_rows(&page), end);
    assert!(page.find("#sql-note").is_none());
}

/// A scenario written as a JSON pipeline, on Flink 2.3, with state TTL in its field.
const PIPELINE: &str = r#"{
  "name": "json-pipeline",
  "flink": "2.3",
  "time_format": "millis",
  "state_ttl": "10 ms",
  "source": {"name": "src", "schema": [["k", "STRING"], ["v", "INT"]]},
  "pipeline": [{"operator": "GroupAggregate", "id": "per_key", "group_by": ["k"],
                "aggregates": [{"function": "SUM", "args": ["v"], "as": "total"}]}],
  "steps": [{"at": 1, "row": ["a", 1]}, {"at": 2, "row": ["a", 2]}, {"at": 30, "row": ["a", 5]}]
}"#;

#[wasm_bindgen_test]
async fn a_json_pipeline_switches_to_the_sql_the_engine_exports_and_back() {
    let page = Page::open().await;
    load(&page, PIPELINE).await;
    step_to_end(&page).await;
    let rows = result_rows(&page);
    let cards = page.texts(".operator .msg");
    assert_eq!(rows, ["a3⚠ stale since 12 ms", "a5"], "the TTL of 10 ms expired a's sum");

    // JSON → SQL: the engine's export over the same source (its SET in place of the field).
    page.click("#mode-sql").await;
    assert!(page.find("#sql-note").is_none(), "{}", page.text("#sql-note"));
    let sql = page.textarea("#scenario-sql");
    assert!(sql.starts_with("SET 'execution.runtime-mode' = 'streaming';"), "{sql}");
    assert!(sql.contains("SET 'table.exec.state.ttl' = '10 ms';"), "{sql}");
    assert!(sql.contains("SELECT `k`, SUM(`v`) AS `total` FROM `src` GROUP BY `k`;"), "{sql}");
    assert!(sql.ends_with("INSERT INTO `sink` SELECT * FROM `per_key`;"), "{sql}");
    assert!(!page.textarea("#scenario-json").contains("\"state_ttl\""), "the SET holds the TTL");
    assert!(page
        .text("#sql-plan")
        .contains("GroupAggregate(groupBy=[k], select=[k, SUM(v) AS total], changelogMode=[I,UB,UA])"));
    assert_eq!(page.text("#progress"), "step 3 / 3");
    assert_eq!(result_rows(&page), rows, "the same run");

    // SQL → JSON: back to the pipeline as it was written (its operator id `per_key`).
    page.click("#mode-json").await;
    assert_eq!(page.textarea("#scenario-json"), PIPELINE);
    assert_eq!(page.texts(".operator .msg"), cards);
    assert_eq!(result_rows(&page), rows);
}

#[wasm_bindgen_test]
async fn a_scenario_flink_2_3_cannot_run_says_why_it_has_no_sql() {
    let page = Page::open().await;
    // seed-001: the legacy planner's idle state retention.
    page.click("#mode-sql").await;
    let note = page.text("#sql-note");
    assert!(
        note.starts_with("this scenario has no SQL form: the scenario simulates Flink 1.8–1.11 legacy planner"),
        "{note}"
    );
    assert!(note.ends_with("— you can write a query over its source table here and Apply it"), "{note}");
    assert_eq!(page.textarea("#scenario-sql"), "");
    assert!(page.find("#sql-empty").is_some());
    assert!(page.text("#retention").contains("idle state retention"), "still seed-001");
}

/// Re-planning the SQL of every preset that has SQL, and of this file's scenario, timed; printed
/// as `REPLAN name median_ms=… max_ms=…`. The page re-plans on every input, so on the page's
/// optimized build each must take under 50 ms.
#[wasm_bindgen_test]
fn replanning_is_fast() {
    let mut cases: Vec<(&str, &str, String)> = vec![("sql-editor", SCENARIO, sql_of(SCENARIO).unwrap())];
    cases.extend(PRESETS.iter().filter_map(|(name, json)| sql_of(json).map(|sql| (*name, *json, sql))));
    for (name, json, sql) in cases {
        assert!(matches!(plan_draft(json, &sql), Planned::Plan { .. }), "{name} plans");
        let mut times: Vec<f64> = (0..21)
            .map(|_| {
                let t0 = performance_now();
                let planned = plan_draft(json, &sql);
                let ms = performance_now() - t0;
                assert!(matches!(planned, Planned::Plan { .. }));
                ms
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let (median, max) = (times[times.len() / 2], times[times.len() - 1]);
        let build = if cfg!(debug_assertions) { "debug" } else { "optimized" };
        console_log!("REPLAN {name} build={build} median_ms={median:.2} max_ms={max:.2} sql_chars={}", sql.len());
        if !cfg!(debug_assertions) {
            assert!(median < 50.0, "{name}: re-planning takes {median:.1} ms at the median (bound 50 ms)");
        }
    }
}
