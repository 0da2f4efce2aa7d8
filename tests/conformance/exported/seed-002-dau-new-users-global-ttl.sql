-- Flink SQL exported by flink-state-sim from scenario 'seed-002-dau-new-users-global-ttl'.
-- Runs unchanged in Flink 2.3's SQL client (sql-client.sh -f FILE); the print sink writes the
-- changelog the simulator shows for operator 'GroupAggregate[5]'.
-- WARNING: 'OverAggregate[3]' keeps state for table.exec.state.ttl = 3 d, and the scenario's rows span 8670 min: in the simulation state can expire between rows, on Flink every row arrives within milliseconds and none does, so the outputs can differ
-- WARNING: 'GroupAggregate[5]' keeps state for table.exec.state.ttl = 3 d, and the scenario's rows span 8670 min: in the simulation state can expire between rows, on Flink every row arrives within milliseconds and none does, so the outputs can differ

SET 'execution.runtime-mode' = 'streaming';
SET 'parallelism.default' = '1';
SET 'table.exec.state.ttl' = '3 d';

CREATE TEMPORARY VIEW `login` AS
SELECT CAST(f0 AS STRING) AS `t_date`, CAST(f1 AS STRING) AS `user_id`, PROCTIME() AS `proctime`
FROM (VALUES
  ('2019-11-18', 'u1'), -- 2019-11-18 09:00
  ('2019-11-18', 'u2'), -- 2019-11-18 10:00
  ('2019-11-19', 'u2'), -- 2019-11-19 09:30
  ('2019-11-19', 'u3'), -- 2019-11-19 11:00
  ('2019-11-20', 'u2'), -- 2019-11-20 09:30
  ('2019-11-20', 'u3'), -- 2019-11-20 10:00
  ('2019-11-21', 'u2'), -- 2019-11-21 09:30
  ('2019-11-21', 'u1'), -- 2019-11-21 10:00
  ('2019-11-21', 'u4'), -- 2019-11-21 11:00
  ('2019-11-22', 'u2'), -- 2019-11-22 09:30
  ('2019-11-22', 'u4'), -- 2019-11-22 10:00
  ('2019-11-23', 'u2'), -- 2019-11-23 09:30
  ('2019-11-23', 'u2'), -- 2019-11-23 18:00
  ('2019-11-24', 'u2')  -- 2019-11-24 09:30
) AS t(f0, f1);

CREATE TABLE `sink` (
  `t_date` STRING,
  `cnt_login` BIGINT,
  `cnt_new` BIGINT
) WITH ('connector' = 'print');

INSERT INTO `sink`
SELECT t_date, COUNT(DISTINCT user_id) AS cnt_login, COUNT(DISTINCT new_user_id) AS cnt_new
FROM (
  SELECT t_date, user_id, CASE WHEN t_date = t_debut THEN user_id END AS new_user_id
  FROM (
    SELECT t_date, user_id,
      MIN(t_date) OVER (PARTITION BY user_id ORDER BY proctime
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS t_debut
    FROM login
  ) AS t
) AS t_new
GROUP BY t_date;
