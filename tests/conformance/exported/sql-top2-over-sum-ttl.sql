-- Flink SQL exported by flink-state-sim from scenario 'sql-top2-over-sum-ttl'.
-- Runs unchanged in Flink 2.3's SQL client (sql-client.sh -f FILE); the print sink writes the
-- changelog the simulator shows for operator 'Rank[3]'.

SET 'execution.runtime-mode' = 'streaming';
SET 'parallelism.default' = '1';
SET 'table.exec.state.ttl' = '1 h';

CREATE TEMPORARY VIEW `src` AS
SELECT CAST(f0 AS STRING) AS `g`, CAST(f1 AS STRING) AS `name`, CAST(f2 AS INT) AS `score`
FROM (VALUES
  ('g1', 'A', 10), -- 2026-12-02 10:00
  ('g1', 'B', 20), -- 2026-12-02 10:00:02
  ('g1', 'C', 15), -- 2026-12-02 10:00:04
  ('g1', 'A', 15), -- 2026-12-02 10:00:06
  ('g1', 'B', -15), -- 2026-12-02 10:00:08
  ('g1', 'C', 0), -- 2026-12-02 10:00:10
  ('g1', 'D', 1), -- 2026-12-02 10:00:12
  ('g1', 'C', 20)  -- 2026-12-02 10:00:14
) AS t(f0, f1, f2);

CREATE TEMPORARY VIEW totals AS
  SELECT g, name, SUM(score) AS total FROM src GROUP BY g, name;

CREATE TABLE `sink` (
  `g` STRING,
  `name` STRING,
  `total` INT
) WITH ('connector' = 'print');

INSERT INTO `sink`
SELECT g, name, total
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY total DESC) AS rn
  FROM totals
)
WHERE rn <= 2;
