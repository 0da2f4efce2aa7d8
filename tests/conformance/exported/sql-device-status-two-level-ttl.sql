-- Flink SQL exported by flink-state-sim from scenario 'sql-device-status-two-level-ttl'.
-- Runs unchanged in Flink 2.3's SQL client (sql-client.sh -f FILE); the print sink writes the
-- changelog the simulator shows for operator 'GroupAggregate[5]'.

SET 'execution.runtime-mode' = 'streaming';
SET 'parallelism.default' = '1';
SET 'table.exec.state.ttl' = '1 h';

CREATE TEMPORARY VIEW `src` AS
SELECT CAST(f0 AS STRING) AS `dev_id`, CAST(f1 AS INT) AS `status`, CAST(f2 AS BIGINT) AS `ts`
FROM (VALUES
  ('dev1', 1, 1000), -- 2026-12-02 10:00
  ('dev1', 0, 2000), -- 2026-12-02 10:00:02
  ('dev1', 0, 3000)  -- 2026-12-02 10:00:04
) AS t(f0, f1, f2);

CREATE TEMPORARY VIEW inner_v AS
  SELECT dev_id, LAST_VALUE(status) AS st FROM src GROUP BY dev_id;

CREATE TABLE `sink` (
  `st` INT,
  `cnt` BIGINT
) WITH ('connector' = 'print');

INSERT INTO `sink`
SELECT st, COUNT(*) AS cnt FROM inner_v GROUP BY st;
