//! Scenarios of several sources and a join in a real headless browser (`wasm-pack test
//! --headless --chrome --no-default-features --test browser_join`): the input table and the
//! timeline show each input's source, the retraction flow draws the tree (each source above the
//! operator reading it, the join's left and right inputs named), the join's card shows each
//! side's records per key with that side's TTL, and every preset opens and steps without taking
//! the tab down.
#![cfg(target_arch = "wasm32")]

mod common;

use common::browser::Page;
use flink_state_sim::engine::presets::PRESETS;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

async fn step_to_end(page: &Page) {
    while !page.is_disabled("#step") {
        page.click("#step").await;
    }
}

/// The join's card (its id holds brackets: `op-Join[4]`).
const JOIN: &str = r#"[id="op-Join[4]"]"#;

#[wasm_bindgen_test]
async fn left_join_under_one_global_ttl_shows_both_sources_the_tree_and_each_sides_state() {
    let page = Page::open().await;
    page.choose("#preset-select", "dimension-expires-left-join").await;
    // Day 2: the user row, written once on day 1, expired (TTL 1 d from its write) but is still
    // stored: its cell is greyed; the order o1, written an hour later, is still visible.
    page.step(3).await;
    assert_eq!(page.text("#now"), "2026-12-02 00:00");
    let right = format!(r#"{JOIN} td[data-state="right-records"]"#);
    let left = format!(r#"{JOIN} td[data-state="left-records"]"#);
    assert_eq!(page.text(&format!("{right} .value")), "[u1, EU]");
    assert_eq!(
        page.text(&format!("{right} .cell-ttl")),
        "TTL 1 d: expired at 2026-12-02 00:00 — still stored, invisible"
    );
    assert!(page.get(&right).class_list().contains("expired"));
    assert_eq!(page.text(&format!("{left} .value")), "[o1, u1] (n=1)");
    assert_eq!(page.text(&format!("{left} .cell-ttl")), "TTL 1 d: expires at 2026-12-02 01:00");
    assert!(!page.get(&left).class_list().contains("expired"));
    step_to_end(&page).await;
    assert_eq!(page.text("#progress"), "step 6 / 6");

    // The input table: a column group per source, named; each row under its source's columns.
    assert_eq!(page.texts("#input-table th.source-head"), ["orders", "users"]);
    assert_eq!(page.texts("#input-table tr.step td.source"), ["users", "orders", "orders", "users", "users"]);
    let values = |source: &str| -> Vec<String> {
        let rows = page.root.query_selector_all(&format!(r#"#input-table tr[data-source="{source}"]"#)).unwrap();
        (0..rows.length())
            .map(|i| {
                let row: web_sys::Element = wasm_bindgen::JsCast::unchecked_into(rows.item(i).unwrap());
                let cells = row.query_selector_all("td.src-cells input").unwrap();
                (0..cells.length())
                    .map(|c| {
                        let input: web_sys::HtmlInputElement =
                            wasm_bindgen::JsCast::unchecked_into(cells.item(c).unwrap());
                        input.value()
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .collect()
    };
    assert_eq!(values("orders"), ["o1, u1, 30", "o2, u1, 50"]);
    assert_eq!(values("users"), ["u1, EU", "u1, EU", "u1, US"]);

    // The timeline: one row of input marks per source, named.
    assert_eq!(page.texts("#tl-axis .source-name"), ["orders", "users"]);
    assert_eq!(page.root.query_selector_all(r#"#tl-axis .input[data-source="users"]"#).unwrap().length(), 3);
    assert_eq!(page.root.query_selector_all(r#"#tl-axis .input[data-source="orders"]"#).unwrap().length(), 2);

    // The flow: each source's inputs in its own box, above the join's left and right input.
    assert_eq!(page.texts("#flow-inputs-orders .msg-text"), ["+I[o1, u1, 30]", "+I[o2, u1, 50]"]);
    assert_eq!(page.texts("#flow-inputs-users .msg-text"), ["+I[u1, EU]", "-U[u1, EU]", "+U[u1, US]"]);
    assert_eq!(page.attr(r#"#flow .fedge[data-side="left"]"#, "data-to"), "Join[4]");
    assert_eq!(page.attr(r#"#flow .fedge[data-side="right"]"#, "data-to"), "Join[4]");
    // The last step was the users' +U: it travels on the users' edge only, then out of the join.
    assert_eq!(page.texts(r#"#flow .fedge[data-from="users"] .msg"#), ["+U[u1, US]"]);
    assert_eq!(page.texts(r#"#flow .fedge[data-from="Join[4]"] .msg"#), ["+I[o2, u1, u1, US]"]);
    assert!(page.texts(r#"#flow .fedge[data-from="orders"] .msg"#).is_empty());

    // The join's state of key u1 at the end, per side, each with its TTL (one global TTL: 1 d
    // for both). o1 expired and a read removed it; o2's association count went 0 → -1 → 0, each
    // a write that renewed its TTL; the users side holds the new row only.
    assert_eq!(page.texts(&format!("{JOIN} tbody td.key")), ["u1"]);
    assert_eq!(page.text(&format!("{left} .value")), "[o2, u1] (n=0)");
    assert_eq!(page.text(&format!("{left} .cell-ttl")), "TTL 1 d: expires at 2026-12-04 01:00");
    assert_eq!(page.text(&format!("{right} .value")), "[u1, US]");
    assert_eq!(page.text(&format!("{right} .cell-ttl")), "TTL 1 d: expires at 2026-12-04 01:00");
    assert!(page.find(&format!("{JOIN} td.state-cell.expired")).is_none());

    // The result: o1 joined, o2 padded with NULL (stale for ever), o2 joined with the new row.
    let rows = page.root.query_selector_all("#result-table tbody tr").unwrap();
    let rows: Vec<String> = (0..rows.length())
        .map(|i| {
            let row: web_sys::Element = wasm_bindgen::JsCast::unchecked_into(rows.item(i).unwrap());
            let cells = row.query_selector_all("td:not(.stale-note)").unwrap();
            (0..cells.length()).map(|c| cells.item(c).unwrap().text_content().unwrap()).collect::<Vec<_>>().join(", ")
        })
        .collect();
    assert_eq!(rows, ["o1, u1, EU", "o2, u1, null", "o2, u1, US"]);
}

#[wasm_bindgen_test]
async fn every_preset_opens_and_steps_without_taking_the_tab_down() {
    let page = Page::open().await;
    for (name, _) in PRESETS {
        page.choose("#preset-select", name).await;
        // At most 30 steps: the 100 k-event presets would take long; their first steps run the
        // same views.
        for _ in 0..30 {
            if page.is_disabled("#step") {
                break;
            }
            page.click("#step").await;
        }
        assert!(page.find(".fss-crash-message").is_none(), "{name}: the page crashed");
        assert!(page.find("#flow .fnode.sink").is_some(), "{name}: the flow is drawn");
        assert!(page.find("#scenario-error").is_none(), "{name}: {}", page.text("#scenario-error"));
    }
}

#[wasm_bindgen_test]
async fn with_the_state_ttl_hint_each_side_of_the_join_shows_its_own_ttl() {
    let page = Page::open().await;
    page.choose("#preset-select", "dimension-expires-left-join-hint").await;
    step_to_end(&page).await;
    let cell = |side: &str, part: &str| page.text(&format!(r#"{JOIN} td[data-state="{side}-records"] {part}"#));
    // orders live 1 d, users 3650 d (STATE_TTL('o' = '1d', 'u' = '3650d')).
    assert_eq!(cell("left", ".value"), "[o2, u1] (n=1)");
    assert_eq!(cell("left", ".cell-ttl"), "TTL 1 d: expires at 2026-12-04 01:00");
    assert_eq!(cell("right", ".value"), "[u1, US]");
    assert_eq!(cell("right", ".cell-ttl"), "TTL 3650 d: expires at 2036-11-30 01:00");
    // The state inspector says the same per side.
    page.click("#inspector summary").await;
    common::browser::until("the inspector's table", || page.find("#inspector-table").is_some()).await;
    assert_eq!(page.select_value("#inspector-op"), "1", "the join is the first operator with keyed state");
    assert_eq!(
        page.texts("#inspector-table td.state-cell .cell-ttl"),
        ["TTL 1 d: expires at 2026-12-04 01:00", "TTL 3650 d: expires at 2036-11-30 01:00"]
    );
}

#[wasm_bindgen_test]
async fn the_left_join_compare_pair_renders_both_sides() {
    let page = Page::open().await;
    page.choose("#cmp-pair", "LEFT JOIN: one global TTL vs STATE_TTL per side").await;
    assert_eq!(page.text("#cmp-position"), "step 0 / 6");
    let input = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(page.get("#cmp-scrubber")).unwrap();
    input.set_value("6");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    input.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap()).unwrap();
    common::browser::settle().await;
    assert_eq!(page.text("#cmp-position"), "step 6 / 6");
    // One global TTL keeps the null-padded o2 beside the joined one; per side, o2 ends joined only.
    assert_eq!(page.texts("#cmp-left .cmp-result tr.differs td"), ["o2, u1, null ≠ only here"]);
    assert_eq!(page.texts("#cmp-left .cmp-result tbody tr").len(), 3);
    // The left's row found there only heads its list; the right has an empty row level with it,
    // so the rows both have stand side by side.
    assert_eq!(page.texts("#cmp-left .cmp-result tbody tr td")[0], "o2, u1, null ≠ only here");
    assert_eq!(page.texts("#cmp-left .cmp-result tbody tr td")[1..], ["o1, u1, EU", "o2, u1, US"]);
    assert_eq!(
        page.texts("#cmp-right .cmp-result tbody tr td"),
        ["— only on the other side —", "o1, u1, EU", "o2, u1, US"]
    );
    assert!(page.find("#cmp-right .cmp-result tr.differs").is_none());
}

#[wasm_bindgen_test]
async fn a_row_added_to_a_table_of_several_sources_comes_from_the_last_rows_source() {
    let page = Page::open().await;
    page.choose("#preset-select", "dimension-expires-left-join").await;
    page.click("#add-step").await;
    // A copy of the last input row, the users' +U: without its source the engine would refuse
    // it (the scenario has several sources).
    assert!(page.find("#table-error").is_none(), "{}", page.text("#table-error"));
    assert_eq!(page.text(r#"#input-table tr[data-step="6"] td.source"#), "users");
    assert_eq!(page.input_value("#step-6-col-0"), "u1");
    assert_eq!(page.input_value("#step-6-col-1"), "US");
    page.enter("#step-6-col-1", "APAC").await;
    assert!(page.find("#table-error").is_none(), "{}", page.text("#table-error"));
    assert_eq!(page.input_value("#step-6-col-1"), "APAC");
    assert_eq!(page.text("#progress"), "step 0 / 7");
}

/// One source read twice, as the join recordings of `tests/oracle/joins` are written: each side
/// a view over `src` (the right one aggregated).
const ONE_SOURCE_BOTH_SIDES: &str = r#"{
  "name": "one-source-both-sides",
  "flink": "2.3",
  "time_format": "millis",
  "source": {"name": "src", "schema": [["side", "STRING"], ["k", "STRING"], ["v", "STRING"]]},
  "sql": "CREATE TEMPORARY VIEW l AS SELECT k, v FROM src WHERE side = 'L';\nCREATE TEMPORARY VIEW r AS SELECT k, LAST_VALUE(v) AS v FROM src WHERE side = 'R' GROUP BY k;\nSELECT l.k, l.v AS lv, r.v AS rv FROM l LEFT JOIN r ON l.k = r.k;",
  "steps": [{"at": 0, "row": ["L", "k1", "a1"]}, {"at": 2000, "row": ["R", "k1", "x1"]}, {"at": 4000, "row": ["R", "k1", "x2"]}]
}"#;

#[wasm_bindgen_test]
async fn a_source_read_by_both_sides_of_a_join_is_drawn_above_each() {
    let page = Page::open().await;
    page.set_textarea("#scenario-json", ONE_SOURCE_BOTH_SIDES);
    page.click("#load").await;
    assert!(page.find("#scenario-error").is_none(), "{}", page.text("#scenario-error"));
    step_to_end(&page).await;
    // The source above each of its readers; its list keeps the one id.
    assert_eq!(page.root.query_selector_all(r#"#flow .fnode.source[data-source="src"]"#).unwrap().length(), 2);
    assert_eq!(page.root.query_selector_all("#flow-inputs").unwrap().length(), 1);
    let edges = page.root.query_selector_all("#flow .fedge").unwrap();
    let edges: Vec<String> = (0..edges.length())
        .map(|i| {
            let e: web_sys::Element = wasm_bindgen::JsCast::unchecked_into(edges.item(i).unwrap());
            let side = e.get_attribute("data-side").map(|s| format!(" ({s})")).unwrap_or_default();
            format!("{} → {}{side}", e.get_attribute("data-from").unwrap(), e.get_attribute("data-to").unwrap())
        })
        .collect();
    assert_eq!(
        edges,
        [
            "src → Calc[2]",
            "Calc[2] → Join[6] (left)",
            "src → Calc[4]",
            "Calc[4] → GroupAggregate[5]",
            "GroupAggregate[5] → Join[6] (right)",
            "Join[6] → Calc[7]",
            "Calc[7] → result",
        ]
    );
    // The last input, R(k1, x2), travels into both readers; only the right side's Calc passes it.
    assert_eq!(page.texts(r#"#flow .fedge[data-to="Calc[2]"] .msg"#), ["+I[R, k1, x2]"]);
    assert_eq!(page.texts(r#"#flow .fedge[data-to="Calc[4]"] .msg"#), ["+I[R, k1, x2]"]);
    assert!(page.texts(r#"#flow .fedge[data-from="Calc[2]"] .msg"#).is_empty());
    assert_eq!(page.texts(r#"#flow .fedge[data-from="Calc[4]"] .msg"#), ["+I[k1, x2]"]);
    assert_eq!(page.texts("#flow-rows .flow-row"), ["[k1, a1, x2]"]);
}

/// `ON CONFLICT DO DEDUPLICATE`: the materializer's card shows every row it keeps per city (three
/// users in Paris after step 3: `SinkUpsertMaterializer` keeps one row per upstream key still
/// alive), and its count of rows in state lists.
#[wasm_bindgen_test]
async fn the_materializers_card_shows_each_citys_rows() {
    let page = Page::open().await;
    page.choose("#preset-select", "upsert-sink-on-conflict").await;
    page.step(3).await;
    let rows = page.texts(r#"[id="op-Sink[3]"] tbody tr"#);
    assert!(
        rows.iter().any(|r| r.starts_with("Paris") && r.contains("[u1, Paris], [u2, Paris], [u3, Paris]")),
        "{rows:?}"
    );
    // u1 moves to Berlin: its Paris row leaves the list, Berlin gets one.
    page.step(1).await;
    let rows = page.texts(r#"[id="op-Sink[3]"] tbody tr"#);
    assert!(
        rows.iter().any(|r| r.starts_with("Paris") && r.contains("[u2, Paris], [u3, Paris]") && !r.contains("u1")),
        "{rows:?}"
    );
    assert!(rows.iter().any(|r| r.starts_with("Berlin") && r.contains("[u1, Berlin]")), "{rows:?}");
}
