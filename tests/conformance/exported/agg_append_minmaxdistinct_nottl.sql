-- Flink SQL exported by flink-state-sim from scenario 'agg_append_minmaxdistinct_nottl'.
-- Runs unchanged in Flink 2.3's SQL client (sql-client.sh -f FILE); the print sink writes the
-- changelog the simulator shows for operator 'query'.

SET 'execution.runtime-mode' = 'streaming';
SET 'parallelism.default' = '1';

CREATE TEMPORARY VIEW `src` AS
SELECT CAST(f0 AS STRING) AS `k`, CAST(CASE WHEN n1 THEN NULL ELSE f1 END AS INT) AS `v`
FROM (VALUES
  ('a', 3, FALSE), -- 1 ms
  ('a', 5, FALSE), -- 2 ms
  ('a', 3, FALSE), -- 3 ms
  ('b', 2, FALSE), -- 4 ms
  ('a', 0, TRUE), -- 5 ms
  ('a', 4, FALSE), -- 6 ms
  ('b', 2, FALSE), -- 7 ms
  ('c', 0, TRUE), -- 8 ms
  ('c', 0, TRUE), -- 9 ms
  ('c', 4, FALSE), -- 10 ms
  ('a', 6, FALSE)  -- 11 ms
) AS t(f0, f1, n1);

CREATE TEMPORARY VIEW `query` AS
SELECT `k`, MIN(`v`) AS `mn`, MAX(`v`) AS `mx`, COUNT(DISTINCT `v`) AS `cd` FROM `src` GROUP BY `k`;

CREATE TABLE `sink` (
  `k` STRING,
  `mn` INT,
  `mx` INT,
  `cd` BIGINT
) WITH ('connector' = 'print');

INSERT INTO `sink` SELECT * FROM `query`;
