-- Flink SQL exported by flink-state-sim from scenario 'sql-top2-per-group-with-rank'.
-- Runs unchanged in Flink 2.3's SQL client (sql-client.sh -f FILE); the print sink writes the
-- changelog the simulator shows for operator 'Rank[2]'.

SET 'execution.runtime-mode' = 'streaming';
SET 'parallelism.default' = '1';

CREATE TEMPORARY VIEW `src` AS
SELECT CAST(f0 AS STRING) AS `g`, CAST(f1 AS STRING) AS `name`, CAST(f2 AS INT) AS `score`
FROM (VALUES
  ('g1', 'A', 10), -- 2026-12-02 10:00
  ('g1', 'B', 20), -- 2026-12-02 10:00:02
  ('g1', 'C', 15), -- 2026-12-02 10:00:04
  ('g1', 'D', 5), -- 2026-12-02 10:00:06
  ('g1', 'E', 30), -- 2026-12-02 10:00:08
  ('g2', 'X', 1), -- 2026-12-02 10:00:10
  ('g1', 'F', 20), -- 2026-12-02 10:00:12
  ('g2', 'Y', 2), -- 2026-12-02 10:00:14
  ('g1', 'G', 25)  -- 2026-12-02 10:00:16
) AS t(f0, f1, f2);

CREATE TABLE `sink` (
  `g` STRING,
  `name` STRING,
  `score` INT,
  `rn` BIGINT
) WITH ('connector' = 'print');

INSERT INTO `sink`
SELECT g, name, score, rn
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY score DESC) AS rn
  FROM src
)
WHERE rn <= 2;
