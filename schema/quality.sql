-- The quality report: counts of inconsistent jobs per log (cleaning.md,
-- "What a report on log quality shows"), and the usage profile behind the
-- utilization exceptions. A value of -1 is unknown and never counted as
-- negative; "requested" comparisons need a known (positive) request.
CREATE OR REPLACE VIEW quality_counts AS
SELECT
    log_id,
    count(*)                                                        AS jobs,
    count(*) FILTER (WHERE submit = -1)                             AS missing_submit,
    count(*) FILTER (WHERE wait = -1)                               AS missing_start,
    count(*) FILTER (WHERE run = -1)                                AS missing_run,
    count(*) FILTER (WHERE status = 1 AND procs = 0)                AS zero_procs,
    count(*) FILTER (WHERE status = 1 AND run = 0)                  AS zero_run,
    count(*) FILTER (WHERE status = 1 AND cpu = 0)                  AS zero_cpu,
    count(*) FILTER (WHERE status = 1 AND mem = 0)                  AS zero_mem,
    count(*) FILTER (WHERE wait < -60)                              AS negative_wait,
    count(*) FILTER (WHERE run < -60)                               AS negative_run,
    count(*) FILTER (WHERE run >= 0 AND req_time > 0 AND run > req_time + 60) AS run_over_requested,
    count(*) FILTER (WHERE procs >= 0 AND req_procs > 0 AND procs > req_procs) AS procs_over_requested,
    count(*) FILTER (WHERE mem >= 0 AND req_mem > 0 AND mem > req_mem)         AS mem_over_requested,
    count(*) FILTER (WHERE cpu >= 0 AND run >= 0 AND cpu > run + 60)           AS cpu_over_run
FROM jobs
GROUP BY log_id;

-- Processors in use after every instant where some job starts or ends. A job
-- holds its processors over [start, end): all events of one instant are
-- summed before the level is read, so a job ending at t and one starting at t
-- do not overlap.
CREATE OR REPLACE VIEW usage_steps AS
WITH occupying AS (
    SELECT
        log_id,
        submit + wait       AS t0,
        submit + wait + run AS t1,
        CASE WHEN procs > 0 THEN procs WHEN req_procs > 0 THEN req_procs END AS p
    FROM jobs
    WHERE submit <> -1 AND wait <> -1 AND run > 0
),
events AS (
    SELECT log_id, t0 AS t, p AS delta, true AS starts FROM occupying WHERE p IS NOT NULL
    UNION ALL
    SELECT log_id, t1 AS t, -p AS delta, false AS starts FROM occupying WHERE p IS NOT NULL
),
steps AS (
    SELECT log_id, t, sum(delta) AS delta, bool_or(starts) AS starts
    FROM events
    GROUP BY log_id, t
)
SELECT
    log_id,
    t,
    starts,
    sum(delta) OVER (PARTITION BY log_id ORDER BY t) AS usage
FROM steps;

-- Utilization exceptions: start instants where usage exceeds the machine.
-- The ceiling is the highest usage ever reached (first reached at peak_at);
-- far below the machine size it suggests the stated size is wrong.
CREATE OR REPLACE VIEW usage_exceptions AS
WITH s AS (
    SELECT *, max(usage) OVER (PARTITION BY log_id) AS ceiling
    FROM usage_steps
)
SELECT
    s.log_id,
    any_value(s.ceiling)                                              AS ceiling,
    min(s.t) FILTER (WHERE s.usage = s.ceiling)                       AS peak_at,
    CASE WHEN l.machine_size IS NOT NULL
         THEN count(*) FILTER (WHERE s.starts AND s.usage > l.machine_size) END AS exceptions,
    greatest(any_value(s.ceiling) - l.machine_size, 0)                AS worst_excess
FROM s
JOIN logs AS l USING (log_id)
GROUP BY s.log_id, l.machine_size;
