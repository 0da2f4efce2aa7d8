#!/usr/bin/env python3
"""Translates a recording of real Flink 2.3 (shared/oracle/NAME.json + NAME.expected.json) into a
simulator scenario with the recorded changelog as its expectation (tests/scenarios/oracle/NAME.json).

The pipeline is written by hand below, operator for operator from the recording's plan
(`plan_changelog`, read bottom-up); everything else (schema, rows, TTL, expected changelog) is
copied. Rows arrive 1 ms apart, as the recorder's bounded source delivers them within one
processing-time instant of any TTL.

    scripts/oracle_to_scenario.py ORACLE_DIR NAME...
"""
import json
import sys

RANK_TOP1_ASC = [
    {"operator": "Rank", "id": "query", "partition_by": ["k"], "order_by": ["ts ASC"], "rank_end": 1},
]
TOPN2 = {"operator": "Rank", "id": "query", "partition_by": ["g"], "order_by": ["score DESC"], "rank_end": 2}
AGG_ALL = [
    {"function": "COUNT", "args": ["*"], "as": "cnt"},
    {"function": "SUM", "args": ["v"], "as": "s"},
    {"function": "MIN", "args": ["v"], "as": "mn"},
    {"function": "MAX", "args": ["v"], "as": "mx"},
    {"function": "COUNT_DISTINCT", "args": ["v"], "as": "cd"},
]
AGG_RETRACT_ALL = [
    {"operator": "Rank", "id": "latest", "partition_by": ["id"], "order_by": ["ts DESC"], "rank_end": 1},
    {"operator": "Calc", "id": "latest_kv", "select": ["k", "v"]},
    {"operator": "GroupAggregate", "id": "query", "group_by": ["k"], "aggregates": AGG_ALL},
]
TOPN2_OVER_AGG = [
    {
        "operator": "GroupAggregate",
        "id": "totals",
        "group_by": ["g", "name"],
        "aggregates": [{"function": "SUM", "args": ["score"], "as": "total"}],
    },
    {"operator": "Rank", "id": "query", "partition_by": ["g"], "order_by": ["total DESC"], "rank_end": 2},
]

# ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt ASC|DESC) = 1 on the source's processing-time
# attribute: the Rank the planner turns into a Deduplicate, then the outer projection.
DEDUP_FIRST = [
    {"operator": "Rank", "id": "dedup", "partition_by": ["k"], "order_by": ["pt ASC"], "rank_end": 1},
    {"operator": "Calc", "id": "query", "select": ["k", "v"]},
]
DEDUP_LAST = [
    {"operator": "Rank", "id": "dedup", "partition_by": ["k"], "order_by": ["pt DESC"], "rank_end": 1},
    {"operator": "Calc", "id": "query", "select": ["k", "v"]},
]

DAU_OVER_1PRECEDING = [
    {
        "operator": "OverAggregate",
        "id": "v",
        "partition_by": ["user_id"],
        "order_by": ["pt"],
        "window": "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW",
        "aggregates": [{"function": "MIN", "args": ["t_date"], "as": "t_debut"}],
    },
    {"operator": "Calc", "id": "v_f2", "select": ["t_date", "user_id", "CASE WHEN t_date = t_debut THEN user_id END AS `$f2`"]},
    {
        "operator": "GroupAggregate",
        "id": "query",
        "group_by": ["t_date"],
        "aggregates": [
            {"function": "COUNT_DISTINCT", "args": ["user_id"], "as": "cnt_login"},
            {"function": "COUNT_DISTINCT", "args": ["$f2"], "as": "cnt_new"},
        ],
    },
]

PIPELINES = {
    "rank_top1_ts_asc_nottl": RANK_TOP1_ASC,
    "rank_top1_ts_desc_nottl": [
        {"operator": "Rank", "id": "top1", "partition_by": ["k"], "order_by": ["ts DESC"], "rank_end": 1},
        {"operator": "Calc", "id": "query", "select": ["k", "v"]},
    ],
    "rank_top1_ts_asc_into_count_nottl": [
        {"operator": "Rank", "id": "top1", "partition_by": ["k"], "order_by": ["ts ASC"], "rank_end": 1},
        {"operator": "Calc", "id": "top1_kv", "select": ["k", "v"]},
        {
            "operator": "GroupAggregate",
            "id": "query",
            "group_by": ["k"],
            "aggregates": [
                {"function": "COUNT", "args": ["*"], "as": "cnt"},
                {"function": "SUM", "args": ["v"], "as": "s"},
            ],
        },
    ],
    "topn2_norank_nottl": [TOPN2],
    "device_status_top1_nottl": [
        {"operator": "Rank", "id": "inner_v", "partition_by": ["dev_id"], "order_by": ["ts DESC"], "rank_end": 1},
        {"operator": "Calc", "id": "inner_v_st", "select": ["dev_id", "status AS st"]},
        {"operator": "GroupAggregate", "id": "query", "group_by": ["st"], "aggregates": [
            {"function": "COUNT", "args": ["*"], "as": "cnt"},
        ]},
    ],
    "topn2_withrank_nottl": [dict(TOPN2, rank_column="rn")],
    "topn2_withrank_ttl": [dict(TOPN2, rank_column="rn")],
    "topn2_over_agg_norank_nottl": TOPN2_OVER_AGG,
    "topn2_over_agg_norank_ttl": TOPN2_OVER_AGG,
    "agg_retract_all_nottl": AGG_RETRACT_ALL,
    "agg_retract_all_ttl": AGG_RETRACT_ALL,
    "dedup_first_proctime_nottl": DEDUP_FIRST,
    "dedup_first_proctime_ttl": DEDUP_FIRST,
    "dedup_last_proctime_nottl": DEDUP_LAST,
    "dedup_last_proctime_ttl": DEDUP_LAST,
    "dau_over_1preceding_nottl": DAU_OVER_1PRECEDING,
    "dau_over_1preceding_ttl": DAU_OVER_1PRECEDING,
    # Inner GroupAggregate: LAST_VALUE cannot merge -> one-phase MiniBatchGroupAggFunction; outer
    # COUNT(*) over the Calc(st) -> LocalGroupAggregate -> GlobalGroupAggregate (both one node here).
    "device3_lastvalue_minibatch": [
        {"operator": "GroupAggregate", "id": "inner_v", "group_by": ["dev_id"], "aggregates": [
            {"function": "LAST_VALUE", "args": ["status"], "as": "st"},
        ]},
        {"operator": "Calc", "id": "inner_v_st", "select": ["st"]},
        {"operator": "GroupAggregate", "id": "query", "group_by": ["st"], "aggregates": [
            {"function": "COUNT", "args": ["*"], "as": "cnt"},
        ]},
    ],
}

# Flink options carried into the scenario: conf key -> (scenario field, sub-field, converter).
MINI_BATCH_CONF = {
    "table.exec.mini-batch.allow-latency": ("allow_latency", str),
    "table.exec.mini-batch.size": ("size", int),
}

# Recordings without an "about" of their own.
ABOUT = {
    "device_status_top1_nottl": "Latest status per device (ROW_NUMBER top-1 by ts DESC) counted per status: "
    "each newer row retracts the device from its status group (COUNT 0 -> -D) and adds it again, even with "
    "the same status.",
}


def translate(oracle_dir, name):
    rec = json.load(open(f"{oracle_dir}/{name}.json"))
    expected = json.load(open(f"{oracle_dir}/{name}.expected.json"))
    pipeline = PIPELINES[name]
    (source_name, source), = rec["sources"].items()
    ttl = rec["conf"].get("table.exec.state.ttl")
    views = "".join(f" View {v[0]}: {v[1]}." for v in rec.get("views", []))
    scenario = {
        "name": name,
        "description": f"Translated from shared/oracle/{name}.json (real Flink 2.3). {rec.get('about') or ABOUT[name]}"
        f"{views} Query: {rec['query']}. Rows arrive 1 ms apart; the expectation is the changelog Flink printed.",
        "flink": "2.3",
    }
    if ttl:
        scenario["state_ttl"] = ttl
    source_spec = {"name": source_name, "schema": source["schema"]}
    if "proctime" in source:
        source_spec["proctime"] = source["proctime"]
    conf = rec["conf"]
    steps = [{"at": i + 1, "row": row} for i, row in enumerate(source["rows"])]
    if conf.get("table.exec.mini-batch.enabled") == "true":
        scenario["mini_batch"] = {
            field: convert(conf[key]) for key, (field, convert) in MINI_BATCH_CONF.items() if key in conf
        }
        # The recorder's bounded source ends with endInput, which finishes every bundle; this
        # source is unbounded, so the run goes on until the assigner's interval ends.
        steps.append({"advance_by": conf["table.exec.mini-batch.allow-latency"]})
        scenario["description"] += (
            " The recorder's bounded source finished every bundle at the end of input; here the last"
            " step advances processing time by the allow-latency interval, so the mini-batch assigner's"
            " timer ends the batch and its watermark finishes the bundles."
        )
    if "table.optimizer.agg-phase-strategy" in conf:
        scenario["agg_phase_strategy"] = conf["table.optimizer.agg-phase-strategy"]
    scenario.update(
        {
            "time_format": "millis",
            "source": source_spec,
            "pipeline": pipeline,
            "steps": steps,
            "expect": {"changelog": {pipeline[-1]["id"]: expected}},
        }
    )
    return scenario


if __name__ == "__main__":
    oracle_dir, names = sys.argv[1], sys.argv[2:]
    for name in names:
        with open(f"tests/scenarios/oracle/{name}.json", "w") as f:
            json.dump(translate(oracle_dir, name), f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"tests/scenarios/oracle/{name}.json")
