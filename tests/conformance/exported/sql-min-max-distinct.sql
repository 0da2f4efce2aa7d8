-- Flink SQL exported by flink-state-sim from scenario 'sql-min-max-distinct'.
-- Runs unchanged in Flink 2.3's SQL client (sql-client.sh -f FILE); the print sink writes the
-- changelog the simulator shows for operator 'GroupAggregate[2]'.

SET 'execution.runtime-mode' = 'streaming';
SET 'parallelism.default' = '1';

CREATE TEMPORARY VIEW `src` AS
SELECT CAST(f0 AS STRING) AS `k`, CAST(CASE WHEN n1 THEN NULL ELSE f1 END AS INT) AS `v`
FROM (VALUES
  ('a', 3, FALSE), -- 2026-12-02 10:00
  ('a', 5, FALSE), -- 2026-12-02 10:00:02
  ('a', 3, FALSE), -- 2026-12-02 10:00:04
  ('b', 2, FALSE), -- 2026-12-02 10:00:06
  ('a', 0, TRUE), -- 2026-12-02 10:00:08
  ('a', 4, FALSE), -- 2026-12-02 10:00:10
  ('b', 2, FALSE), -- 2026-12-02 10:00:12
  ('c', 0, TRUE), -- 2026-12-02 10:00:14
  ('c', 0, TRUE), -- 2026-12-02 10:00:16
  ('c', 4, FALSE), -- 2026-12-02 10:00:18
  ('a', 6, FALSE)  -- 2026-12-02 10:00:20
) AS t(f0, f1, n1);

CREATE TABLE `sink` (
  `k` STRING,
  `mn` INT,
  `mx` INT,
  `cd` BIGINT
) WITH ('connector' = 'print');

INSERT INTO `sink`
SELECT k, MIN(v) AS mn, MAX(v) AS mx, COUNT(DISTINCT v) AS cd
FROM src
GROUP BY k;
