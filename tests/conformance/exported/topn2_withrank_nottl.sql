-- Flink SQL exported by flink-state-sim from scenario 'topn2_withrank_nottl'.
-- Runs unchanged in Flink 2.3's SQL client (sql-client.sh -f FILE); the print sink writes the
-- changelog the simulator shows for operator 'query'.

SET 'execution.runtime-mode' = 'streaming';
SET 'parallelism.default' = '1';

CREATE TEMPORARY VIEW `src` AS
SELECT CAST(f0 AS STRING) AS `g`, CAST(f1 AS STRING) AS `name`, CAST(f2 AS INT) AS `score`
FROM (VALUES
  ('g1', 'A', 10), -- 1 ms
  ('g1', 'B', 20), -- 2 ms
  ('g1', 'C', 15), -- 3 ms
  ('g1', 'D', 5), -- 4 ms
  ('g1', 'E', 30), -- 5 ms
  ('g2', 'X', 1), -- 6 ms
  ('g1', 'F', 20), -- 7 ms
  ('g2', 'Y', 2), -- 8 ms
  ('g1', 'G', 25)  -- 9 ms
) AS t(f0, f1, f2);

CREATE TEMPORARY VIEW `query` AS
SELECT `g`, `name`, `score`, `rn` FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY `g` ORDER BY `score` DESC) AS `rn` FROM `src`
) WHERE `rn` <= 2;

CREATE TABLE `sink` (
  `g` STRING,
  `name` STRING,
  `score` INT,
  `rn` BIGINT
) WITH ('connector' = 'print');

INSERT INTO `sink` SELECT * FROM `query`;
