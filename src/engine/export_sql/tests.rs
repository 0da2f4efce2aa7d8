use super::*;

fn scenario(source: &str, pipeline: &str, steps: &str) -> String {
    format!(r#"{{"name": "t", "flink": "2.3", "source": {source}, "pipeline": {pipeline}, "steps": {steps}}}"#)
}

const COUNT: &str = r#"[{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
    "aggregates": [{"function": "COUNT", "args": ["*"], "as": "cnt"}]}]"#;

#[test]
fn values_hold_literals_only_with_null_flags() {
    let text = scenario(
        r#"{"name": "src", "schema": [["k", "STRING"], ["v", "BIGINT"]]}"#,
        COUNT,
        r#"[{"at": 1, "row": ["a", 5000000000]}, {"at": 2, "row": [null, 1]}, {"at": 3, "row": ["it's", 2]}]"#,
    );
    let out = export(&text).unwrap();
    let sql = out.sql();
    assert!(
        sql.contains(
            "CREATE TEMPORARY VIEW `src` AS\nSELECT CAST(CASE WHEN n0 THEN NULL ELSE f0 END AS STRING) AS `k`, \
         CAST(f1 AS BIGINT) AS `v`\nFROM (VALUES\n  ('a', FALSE, 5000000000), -- 1 ms\n  ('', TRUE, 1), -- 2 ms\n  \
         ('it''s', FALSE, 2)  -- 3 ms\n) AS t(f0, n0, f1);"
        ),
        "{sql}"
    );
    assert!(sql.contains("CREATE TEMPORARY VIEW `agg` AS\nSELECT `k`, COUNT(*) AS `cnt` FROM `src` GROUP BY `k`;"));
    assert!(sql.contains("CREATE TABLE `sink` (\n  `k` STRING,\n  `cnt` BIGINT\n) WITH ('connector' = 'print');"));
    assert!(sql.ends_with("INSERT INTO `sink` SELECT * FROM `agg`;\n"), "{sql}");
    assert!(out.warnings.is_empty());
}

#[test]
fn legacy_modes_and_changelog_sources_are_refused_with_the_reason() {
    let legacy = scenario(r#"{"name": "src", "schema": [["k", "STRING"]]}"#, COUNT, r#"[{"at": 1, "row": ["a"]}]"#)
        .replace("\"2.3\"", "\"1.10-legacy\"");
    let e = export(&legacy).unwrap_err();
    assert!(e.0.contains("Flink 2.3 has no legacy planner"), "{e}");
    let changelog = scenario(
        r#"{"name": "src", "schema": [["k", "STRING"]], "changelog": "all"}"#,
        COUNT,
        r#"[{"at": 1, "row": ["a"]}]"#,
    );
    assert!(export(&changelog).unwrap_err().0.contains("-U/+U/-D"));
    let udf = scenario(
        r#"{"name": "src", "schema": [["k", "STRING"], ["v", "INT"], ["t", "BIGINT"]]}"#,
        r#"[{"operator": "GroupAggregate", "id": "g", "group_by": ["k"],
            "aggregates": [{"function": "LATEST_BY_TIME", "args": ["v", "t"], "as": "st"}]}]"#,
        r#"[{"at": 1, "row": ["a", 1, 1]}]"#,
    );
    assert!(export(&udf).unwrap_err().0.contains("latestTimeUdf"));
}

#[test]
fn a_ttl_the_rows_outlast_is_warned() {
    let text = scenario(
        r#"{"name": "src", "schema": [["k", "STRING"]]}"#,
        COUNT,
        r#"[{"at": 0, "row": ["a"]}, {"at": 7200000, "row": ["a"]}]"#,
    )
    .replace("\"flink\": \"2.3\"", "\"flink\": \"2.3\", \"state_ttl\": \"1 h\"");
    let out = export(&text).unwrap();
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    assert!(out.warnings[0]
        .starts_with("'agg' keeps state for table.exec.state.ttl = 1 h, and the scenario's rows span 2 h"));
    assert!(out.sql().contains("-- WARNING: 'agg' keeps state"));
    assert!(out.sql().contains("SET 'table.exec.state.ttl' = '1 h';"));
}

#[test]
fn statements_split_outside_quotes_and_comments() {
    let parts = statements::split("SET 'a' = 'x;y';\n-- c; d\nSELECT `a;b` /* ; */ FROM t;  ");
    assert_eq!(parts, vec!["SET 'a' = 'x;y'", "\n-- c; d\nSELECT `a;b` /* ; */ FROM t"]);
}

#[test]
fn file_names_keep_safe_characters() {
    assert_eq!(file_name("seed-002 dau/ttl"), "seed-002_dau_ttl.sql");
}

#[test]
fn a_sink_with_a_primary_key_is_not_exported() {
    let source = r#"{"name": "src", "schema": [["k", "STRING"], ["v", "STRING"]]}"#;
    let steps = r#"[{"at": 1, "row": ["a", "x"]}]"#;
    let agg = r#"{"operator": "GroupAggregate", "id": "agg", "group_by": ["k"],
        "aggregates": [{"function": "LAST_VALUE", "args": ["v"], "as": "v"}]}"#;
    let materialized =
        format!(r#"[{agg}, {{"operator": "SinkUpsertMaterializer", "id": "snk", "primary_key": ["v"]}}]"#);
    let e = export(&scenario(source, &materialized, steps)).unwrap_err();
    assert!(e.0.contains("operator `snk` (SinkUpsertMaterializer): a sink with a primary key"), "{e}");
    let sql = serde_json::json!({
        "name": "t", "flink": "2.3", "source": serde_json::from_str::<serde_json::Value>(source).unwrap(),
        "sql": "SET 'table.exec.sink.upsert-materialize' = 'NONE';\nCREATE TABLE snk (k STRING, v STRING, \
                PRIMARY KEY (v) NOT ENFORCED) WITH ('connector' = 'print');\nINSERT INTO snk SELECT k, \
                LAST_VALUE(v) AS v FROM src GROUP BY k;",
        "steps": serde_json::from_str::<serde_json::Value>(steps).unwrap(),
    });
    let e = export(&sql.to_string()).unwrap_err();
    assert!(e.0.contains("the sink has a PRIMARY KEY"), "{e}");
}
