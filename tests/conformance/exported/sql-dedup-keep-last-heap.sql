-- Flink SQL exported by flink-state-sim from scenario 'sql-dedup-keep-last-heap'.
-- Runs unchanged in Flink 2.3's SQL client (sql-client.sh -f FILE); the print sink writes the
-- changelog the simulator shows for operator 'Calc[4]'.

SET 'execution.runtime-mode' = 'streaming';
SET 'parallelism.default' = '1';

CREATE TEMPORARY VIEW `src` AS
SELECT CAST(f0 AS STRING) AS `k`, CAST(CASE WHEN n1 THEN NULL ELSE f1 END AS INT) AS `v`, PROCTIME() AS `pt`
FROM (VALUES
  ('a', 1, FALSE), -- 2026-12-02 10:00
  ('a', 1, FALSE), -- 2026-12-02 10:00:02
  ('b', 2, FALSE), -- 2026-12-02 10:00:04
  ('a', 3, FALSE), -- 2026-12-02 10:00:06
  ('a', 3, FALSE), -- 2026-12-02 10:00:08
  ('b', 2, FALSE), -- 2026-12-02 10:00:10
  ('a', 3, FALSE), -- 2026-12-02 10:00:12
  ('c', 5, FALSE), -- 2026-12-02 10:00:14
  ('c', 5, FALSE), -- 2026-12-02 10:00:16
  ('c', 5, FALSE), -- 2026-12-02 10:00:18
  ('b', 7, FALSE), -- 2026-12-02 10:00:20
  ('b', 7, FALSE), -- 2026-12-02 10:00:22
  ('d', 0, TRUE)  -- 2026-12-02 10:00:24
) AS t(f0, f1, n1);

CREATE TABLE `sink` (
  `k` STRING,
  `v` INT
) WITH ('connector' = 'print');

INSERT INTO `sink`
SELECT k, v
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn
  FROM src
)
WHERE rn = 1;
