-- Flink SQL exported by flink-state-sim from scenario 'dedup_last_proctime_nottl'.
-- Runs unchanged in Flink 2.3's SQL client (sql-client.sh -f FILE); the print sink writes the
-- changelog the simulator shows for operator 'query'.

SET 'execution.runtime-mode' = 'streaming';
SET 'parallelism.default' = '1';

CREATE TEMPORARY VIEW `src` AS
SELECT CAST(f0 AS STRING) AS `k`, CAST(CASE WHEN n1 THEN NULL ELSE f1 END AS INT) AS `v`, PROCTIME() AS `pt`
FROM (VALUES
  ('a', 1, FALSE), -- 1 ms
  ('a', 1, FALSE), -- 2 ms
  ('b', 2, FALSE), -- 3 ms
  ('a', 3, FALSE), -- 4 ms
  ('a', 3, FALSE), -- 5 ms
  ('b', 2, FALSE), -- 6 ms
  ('a', 3, FALSE), -- 7 ms
  ('c', 5, FALSE), -- 8 ms
  ('c', 5, FALSE), -- 9 ms
  ('c', 5, FALSE), -- 10 ms
  ('b', 7, FALSE), -- 11 ms
  ('b', 7, FALSE), -- 12 ms
  ('d', 0, TRUE)  -- 13 ms
) AS t(f0, f1, n1);

CREATE TEMPORARY VIEW `dedup` AS
SELECT `k`, `v`, `pt` FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY `k` ORDER BY `pt` DESC) AS `rn` FROM `src`
) WHERE `rn` <= 1;

CREATE TEMPORARY VIEW `query` AS
SELECT k, v FROM `dedup`;

CREATE TABLE `sink` (
  `k` STRING,
  `v` INT
) WITH ('connector' = 'print');

INSERT INTO `sink` SELECT * FROM `query`;
