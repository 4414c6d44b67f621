-- The statements of `wla diff`, both ways of comparing (archive/analysis/diff/):
-- job by job, any two logs or versions (A and B, matched by job number and
-- occurrence, through temporary tables of the connection that are dropped
-- after), and by rule, two versions of one log (matched by line, each
-- difference attributed to the rule that decided it).
--
-- Each statement follows a line `-- name: NAME` and ends with the first line
-- that ends with a semicolon; archive/analysis/diff/sql.py reads them by
-- name. Values are bound parameters ($name), never pasted into the text.
-- Comments between a statement and the next name are not sent.


-- Job by job: the pairing ---------------------------------------------------

-- name: rows
-- Each log's jobs with the occurrence of their job number (1 for its first line).
CREATE OR REPLACE TEMP TABLE wla_diff_rows AS
SELECT 'A' AS side, row_number() OVER (PARTITION BY job ORDER BY line_no) AS occurrence, * EXCLUDE (log_id)
FROM jobs WHERE log_id = $a
UNION ALL
SELECT 'B', row_number() OVER (PARTITION BY job ORDER BY line_no), * EXCLUDE (log_id)
FROM jobs WHERE log_id = $b;

-- name: match
-- Every job number and occurrence that is not the same in both: in one log only, or changed.
CREATE OR REPLACE TEMP TABLE wla_diff_match AS
WITH x AS (SELECT * FROM wla_diff_rows WHERE side = 'A'),
     y AS (SELECT * FROM wla_diff_rows WHERE side = 'B'),
     m AS (
        SELECT coalesce(x.job, y.job) AS job, coalesce(x.occurrence, y.occurrence) AS occurrence,
               CASE WHEN y.job IS NULL THEN 'only in A' WHEN x.job IS NULL THEN 'only in B'
                    WHEN x.submit IS DISTINCT FROM y.submit OR x.wait IS DISTINCT FROM y.wait
                      OR x.run IS DISTINCT FROM y.run OR x.procs IS DISTINCT FROM y.procs
                      OR x.cpu IS DISTINCT FROM y.cpu OR x.mem IS DISTINCT FROM y.mem
                      OR x.req_procs IS DISTINCT FROM y.req_procs OR x.req_time IS DISTINCT FROM y.req_time
                      OR x.req_mem IS DISTINCT FROM y.req_mem OR x.status IS DISTINCT FROM y.status
                      OR x.user_id IS DISTINCT FROM y.user_id OR x.group_id IS DISTINCT FROM y.group_id
                      OR x.app_id IS DISTINCT FROM y.app_id OR x.queue_id IS DISTINCT FROM y.queue_id
                      OR x.partition_id IS DISTINCT FROM y.partition_id
                      OR x.prev_job IS DISTINCT FROM y.prev_job OR x.think IS DISTINCT FROM y.think
                    THEN 'changed' ELSE 'same' END AS state
        FROM x FULL JOIN y ON x.job = y.job AND x.occurrence = y.occurrence)
SELECT * FROM m WHERE state <> 'same';

-- name: values
-- The fields of changed jobs, one row each, as text (exact for BIGINT and DOUBLE alike).
CREATE OR REPLACE TEMP TABLE wla_diff_values AS
UNPIVOT (SELECT side, job, occurrence, line_no, COLUMNS(* EXCLUDE (side, job, occurrence, line_no))::VARCHAR
         FROM wla_diff_rows SEMI JOIN (SELECT job, occurrence FROM wla_diff_match WHERE state = 'changed')
              USING (job, occurrence))
ON COLUMNS(* EXCLUDE (side, job, occurrence, line_no)) INTO NAME field VALUE value;

-- name: groups
-- The jobs of each group: A and B whole (what a group is compared with), the
-- jobs in one log only, the changed jobs (as A has them) and those per field.
CREATE OR REPLACE TEMP TABLE wla_diff_groups AS
SELECT side AS grp, side AS base, * FROM wla_diff_rows
UNION ALL
SELECT m.state, r.side, r.* FROM wla_diff_rows AS r JOIN wla_diff_match AS m USING (job, occurrence)
WHERE m.state = 'only in A' AND r.side = 'A' OR m.state = 'only in B' AND r.side = 'B'
UNION ALL
SELECT 'changed', 'A', r.* FROM wla_diff_rows AS r JOIN wla_diff_match AS m USING (job, occurrence)
WHERE m.state = 'changed' AND r.side = 'A'
UNION ALL
SELECT 'changed ' || c.field, 'A', r.* FROM wla_diff_rows AS r
JOIN (SELECT DISTINCT job, occurrence, field FROM wla_diff_values) AS c USING (job, occurrence)
JOIN (SELECT x.job, x.occurrence, x.field FROM wla_diff_values AS x JOIN wla_diff_values AS y
      USING (job, occurrence, field)
      WHERE x.side = 'A' AND y.side = 'B' AND x.value IS DISTINCT FROM y.value) AS d
  USING (job, occurrence, field)
WHERE r.side = 'A';

-- name: drop_groups
DROP TABLE IF EXISTS wla_diff_groups;

-- name: drop_values
DROP TABLE IF EXISTS wla_diff_values;

-- name: drop_match
DROP TABLE IF EXISTS wla_diff_match;

-- name: drop_rows
DROP TABLE IF EXISTS wla_diff_rows;


-- Job by job: what the pairing found ----------------------------------------

-- name: sizes
-- Each log's jobs, and its job numbers that occur more than once.
SELECT side, count(*), count(*) FILTER (WHERE occurrence = 2) FROM wla_diff_rows GROUP BY side;

-- name: only
-- The jobs of one log only ($state 'only in A' or 'only in B', $side the log), in file order.
SELECT r.* EXCLUDE (side) FROM wla_diff_rows AS r
JOIN wla_diff_match AS m USING (job, occurrence) WHERE m.state = $state AND r.side = $side ORDER BY r.line_no;

-- name: changes
-- The changed fields, one row per job and field, in SWF order ($fields).
SELECT x.job, x.occurrence, x.line_no AS line_a, y.line_no AS line_b, x.field,
       x.value AS value_a, y.value AS value_b
FROM wla_diff_values AS x JOIN wla_diff_values AS y USING (job, occurrence, field)
WHERE x.side = 'A' AND y.side = 'B' AND x.value IS DISTINCT FROM y.value
ORDER BY x.job, x.occurrence, list_position($fields, x.field);

-- name: rejects
-- Lines of the log's file a lenient ingest refused: not jobs, so not compared.
SELECT count(*) FROM rejects WHERE log_id = $log_id;

-- name: clock
SELECT unix_start_time, tz FROM logs WHERE log_id = $log_id;


-- Job by job: what the jobs of each group have in common --------------------

-- name: within
-- The jobs of a log between two of its lines.
SELECT count(*) FROM wla_diff_rows WHERE side = $side AND line_no BETWEEN $first AND $last;

-- name: traits
-- Per group: its size, how many of its jobs have each trait (TRAITS of
-- findings.py), its job numbers, lines, users and submit times.
SELECT grp, base, count(*) AS jobs,
       count(*) FILTER (WHERE run > req_time AND req_time > 0) AS run_over_req,
       count(*) FILTER (WHERE procs > req_procs AND req_procs > 0) AS procs_over_req,
       count(*) FILTER (WHERE cpu > run AND run >= 0) AS cpu_over_run,
       count(*) FILTER (WHERE wait > $day) AS wait_over_day,
       count(*) FILTER (WHERE submit = -1) AS submit_unknown,
       count(*) FILTER (WHERE wait = -1) AS wait_unknown,
       count(*) FILTER (WHERE run = -1) AS run_unknown,
       count(*) FILTER (WHERE run = 0) AS run_zero,
       count(*) FILTER (WHERE procs = -1) AS procs_unknown,
       count(*) FILTER (WHERE procs = 0) AS procs_zero,
       count(*) FILTER (WHERE cpu = -1) AS cpu_unknown,
       count(*) FILTER (WHERE cpu = 0) AS cpu_zero,
       count(*) FILTER (WHERE mem = -1) AS mem_unknown,
       count(*) FILTER (WHERE mem = 0) AS mem_zero,
       count(*) FILTER (WHERE req_procs = -1) AS req_procs_unknown,
       count(*) FILTER (WHERE req_time = -1) AS req_time_unknown,
       min(job) AS first_job, max(job) AS last_job, min(line_no) AS first_line, max(line_no) AS last_line,
       count(DISTINCT user_id) AS users,
       min(submit) FILTER (WHERE submit >= 0) AS first_submit,
       max(submit) FILTER (WHERE submit >= 0) AS last_submit
FROM wla_diff_groups GROUP BY grp, base ORDER BY grp;

-- name: values_of_groups
-- The three most common values of each VALUE_FIELDS field (findings.py) per
-- group, with how many jobs of the group's whole log hold the same value.
WITH v AS (UNPIVOT (SELECT grp, base, status, user_id, group_id, app_id, queue_id, partition_id, procs, req_procs
                    FROM wla_diff_groups)
           ON COLUMNS(* EXCLUDE (grp, base)) INTO NAME field VALUE value),
     c AS (SELECT grp, base, field, value, count(*) AS n FROM v GROUP BY ALL),
     r AS (SELECT *, row_number() OVER (PARTITION BY grp, field ORDER BY n DESC, value) AS rank,
                  count(*) OVER (PARTITION BY grp, field) AS values FROM c)
SELECT r.grp, r.field, r.value, r.n, r.rank, r.values, w.n AS in_log
FROM r JOIN c AS w ON w.grp = r.base AND w.field = r.field AND w.value = r.value
WHERE r.rank <= 3 ORDER BY r.grp, r.field, r.rank;

-- name: how
-- How each field changed: direction, size, and its most common new value.
WITH c AS (
    SELECT x.job, x.occurrence, x.field, TRY_CAST(x.value AS DOUBLE) AS a, TRY_CAST(y.value AS DOUBLE) AS b
    FROM wla_diff_values AS x JOIN wla_diff_values AS y USING (job, occurrence, field)
    WHERE x.side = 'A' AND y.side = 'B' AND x.value IS DISTINCT FROM y.value)
SELECT field, count(*) AS changes,
       count(*) FILTER (WHERE a = -1) AS from_unknown,
       count(*) FILTER (WHERE b = -1) AS to_unknown,
       count(*) FILTER (WHERE b > a AND a <> -1 AND b <> -1) AS raised,
       count(*) FILTER (WHERE b < a AND a <> -1 AND b <> -1) AS lowered,
       min(b - a) FILTER (WHERE b > a AND a <> -1 AND b <> -1) AS raised_min,
       median(b - a) FILTER (WHERE b > a AND a <> -1 AND b <> -1) AS raised_median,
       max(b - a) FILTER (WHERE b > a AND a <> -1 AND b <> -1) AS raised_max,
       min(b / a) FILTER (WHERE b > a AND a > 0) AS raised_factor_min,
       median(b / a) FILTER (WHERE b > a AND a > 0) AS raised_factor_median,
       max(b / a) FILTER (WHERE b > a AND a > 0) AS raised_factor_max,
       min(b - a) FILTER (WHERE b < a AND a <> -1 AND b <> -1) AS lowered_min,
       median(b - a) FILTER (WHERE b < a AND a <> -1 AND b <> -1) AS lowered_median,
       max(b - a) FILTER (WHERE b < a AND a <> -1 AND b <> -1) AS lowered_max,
       mode(b) AS common_value, count(*) FILTER (WHERE b = mode_b) AS common_count
FROM (SELECT *, mode(b) OVER (PARTITION BY field) AS mode_b FROM c)
GROUP BY field;

-- name: equals
-- For each changed field, the other field (of the same job, in A or in B)
-- its new value most often equals, -1 and 0 equal too much to say anything.
WITH c AS (
    SELECT x.job, x.occurrence, x.field, TRY_CAST(y.value AS DOUBLE) AS b
    FROM wla_diff_values AS x JOIN wla_diff_values AS y USING (job, occurrence, field)
    WHERE x.side = 'A' AND y.side = 'B' AND x.value IS DISTINCT FROM y.value),
     e AS (
    SELECT c.field, o.field AS other, o.side, count(*) AS n
    FROM c JOIN wla_diff_values AS o ON o.job = c.job AND o.occurrence = c.occurrence AND o.field <> c.field
    WHERE TRY_CAST(o.value AS DOUBLE) = c.b AND c.b NOT IN (-1, 0)
    GROUP BY ALL)
SELECT field, other, side, n FROM e
QUALIFY row_number() OVER (PARTITION BY field ORDER BY n DESC, side DESC, list_position($fields, other)) = 1;


-- By rule: two versions of one log -----------------------------------------

-- name: by_rule
-- Jobs dropped or changed between the versions $ida and $idb (V1 and V2,
-- either may be the original), matched by line. Each job's fields as
-- (line_no, field, value) rows, all DOUBLE as a union of the fields would
-- make them: then the changed values are a join. Each difference goes to the
-- rules whose decisions on its line (a drop, or that field) belong to the
-- lineage of the version that made it ($la for a job dropped in V1, else
-- $lb), else to those of V1's lineage, else to '?'.
WITH x AS (SELECT * FROM jobs WHERE log_id = $ida),
     y AS (SELECT * FROM jobs WHERE log_id = $idb),
     xf AS (UNPIVOT (SELECT line_no, COLUMNS(* EXCLUDE (log_id, line_no))::DOUBLE FROM x)
            ON COLUMNS(* EXCLUDE (line_no)) INTO NAME field VALUE value),
     yf AS (UNPIVOT (SELECT line_no, COLUMNS(* EXCLUDE (log_id, line_no))::DOUBLE FROM y)
            ON COLUMNS(* EXCLUDE (line_no)) INTO NAME field VALUE value),
     rows AS (
        SELECT x.line_no, x.job, $in2 AS change, NULL AS field,
               NULL::DOUBLE AS value_1, NULL::DOUBLE AS value_2
        FROM x ANTI JOIN y USING (line_no)
        UNION ALL
        SELECT y.line_no, y.job, $in1, NULL, NULL, NULL
        FROM y ANTI JOIN x USING (line_no)
        UNION ALL
        SELECT xf.line_no, x.job, 'changed', xf.field, xf.value, yf.value
        FROM xf JOIN yf USING (line_no, field) JOIN x USING (line_no)
        WHERE xf.value IS DISTINCT FROM yf.value
     )
SELECT r.change, coalesce(
           (SELECT string_agg(DISTINCT d.rule, ', ') FROM decisions AS d
            WHERE d.line_no = r.line_no
              AND (r.change = $in1 AND list_contains($la, d.version_id)
                   OR r.change <> $in1 AND list_contains($lb, d.version_id))
              AND (r.field IS NULL AND d.action = 'drop' OR d.field = r.field)),
           (SELECT string_agg(DISTINCT d.rule, ', ') FROM decisions AS d
            WHERE d.line_no = r.line_no AND list_contains($la, d.version_id)
              AND (r.field IS NULL AND d.action = 'drop' OR d.field = r.field)),
           '?') AS rule,
       r.line_no, r.job, r.field, r.value_1, r.value_2
FROM rows AS r
ORDER BY r.change, rule, r.line_no, r.field;
