-- The quality report: counts of inconsistent jobs per log (docs/pages/definitions/cleaning.md,
-- "What a report on log quality shows"), and the usage profile behind the
-- utilization exceptions. A value of -1 is unknown and never counted as
-- negative; "requested" comparisons need a known (positive) request.
CREATE OR REPLACE VIEW quality_counts AS
SELECT
    log_id,
    count(*)                                                        AS jobs,
    count(*) FILTER (WHERE submit = -1)                             AS missing_submit,
    count(*) FILTER (WHERE status = 1 AND wait = -1)                AS missing_start,  -- as Table 2: successful jobs
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
        job_procs(procs, req_procs) AS p
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

-- Flurry candidates, counted as `wla flurries` finds them (docs/pages/definitions/cleaning.md,
-- section 3, default thresholds): user-weeks with at least the log's average
-- weekly total of jobs (weeks from the first to the last with jobs, empty ones
-- included; unknown submit times left out), large ones at 5 times, and users
-- with more than 25% of the log's jobs.
CREATE OR REPLACE VIEW flurry_counts AS
WITH k AS (
    SELECT log_id, user_id, log_week(submit) AS week
    FROM jobs WHERE submit <> -1
),
span AS (
    SELECT log_id, count(*) AS jobs, max(week) - min(week) + 1 AS weeks FROM k GROUP BY log_id
),
user_weeks AS (
    SELECT log_id, user_id, week, count(*) AS n FROM k WHERE user_id <> -1 GROUP BY ALL
),
dominant AS (
    SELECT log_id, count(*) FILTER (WHERE n > 0.25 * total) AS users
    FROM (SELECT log_id, user_id, count(*) AS n, any_value(t.total) AS total
          FROM jobs JOIN (SELECT log_id, count(*) AS total FROM jobs GROUP BY log_id) AS t USING (log_id)
          WHERE user_id <> -1 GROUP BY log_id, user_id)
    GROUP BY log_id
)
SELECT
    s.log_id,
    count(u.n) FILTER (WHERE u.n * s.weeks >= s.jobs)     AS flurry_weeks,
    count(u.n) FILTER (WHERE u.n * s.weeks >= 5 * s.jobs) AS large_flurry_weeks,
    coalesce(any_value(d.users), 0)                       AS dominant_users
FROM span AS s
LEFT JOIN user_weeks AS u USING (log_id)
LEFT JOIN dominant AS d USING (log_id)
GROUP BY s.log_id;

-- Dependencies (fields 17 and 18, docs/pages/definitions/cleaning.md section 6):
-- the jobs with a preceding job (field 17 set, not -1), those whose preceding
-- job is no job of the log, and the think time (field 18) of those with one,
-- where it is known: least, quartiles, 90th percentile, greatest (quantiles
-- interpolated, as numpy's percentile).
CREATE OR REPLACE VIEW dependency_counts AS
WITH d AS (
    SELECT j.log_id, j.think, k.job IS NULL AS missing
    FROM jobs AS j
    LEFT JOIN (SELECT DISTINCT log_id, job FROM jobs) AS k ON k.log_id = j.log_id AND k.job = j.prev_job
    WHERE j.prev_job <> -1
),
t AS (
    SELECT
        log_id,
        count(*)                          AS with_predecessor,
        count(*) FILTER (WHERE missing)   AS predecessor_missing,
        min(think) FILTER (WHERE think <> -1) AS think_min,
        quantile_cont(think, [0.25, 0.5, 0.75, 0.9]) FILTER (WHERE think <> -1) AS q,
        max(think) FILTER (WHERE think <> -1) AS think_max
    FROM d
    GROUP BY log_id
)
SELECT
    l.log_id,
    coalesce(t.with_predecessor, 0)    AS with_predecessor,
    coalesce(t.predecessor_missing, 0) AS predecessor_missing,
    t.think_min, t.q[1] AS think_q1, t.q[2] AS think_median, t.q[3] AS think_q3, t.q[4] AS think_p90,
    t.think_max
FROM logs AS l
LEFT JOIN t USING (log_id);

-- What the experience paper's figures show (docs/pages/diagnosis/counts.md):
-- processors against the request where both are known (fewer than requested,
-- the diagonal, above it, on the 4x diagonal of its Fig. 2), requested times of
-- 0, the correlation of size and run time (Pearson's r of ln(procs) and ln(run)
-- over jobs with both above 0), and the jobs by status (1 completed, 0 failed,
-- 5 cancelled, anything else other or unknown) with the failed ones that ran
-- at most 5 s.
CREATE OR REPLACE VIEW request_counts AS
SELECT
    log_id,
    count(*) FILTER (WHERE procs > 0 AND req_procs > 0)                     AS procs_and_request,
    count(*) FILTER (WHERE procs > 0 AND req_procs > 0 AND procs < req_procs) AS procs_under_requested,
    count(*) FILTER (WHERE procs > 0 AND req_procs > 0 AND procs = req_procs) AS procs_as_requested,
    count(*) FILTER (WHERE procs > 0 AND req_procs > 0 AND procs % 4 = 0 AND procs // 4 = req_procs) AS procs_four_times,
    count(*) FILTER (WHERE req_time = 0)                                     AS zero_req_time,
    corr(ln(procs), ln(run)) FILTER (WHERE procs > 0 AND run > 0)            AS size_run_correlation,
    count(*) FILTER (WHERE status = 1)                                       AS completed,
    count(*) FILTER (WHERE status = 0)                                       AS failed,
    count(*) FILTER (WHERE status = 5)                                       AS cancelled,
    count(*) FILTER (WHERE status NOT IN (0, 1, 5))                          AS other_status,
    count(*) FILTER (WHERE status = 0 AND run >= 0 AND run <= 5)             AS failed_within_5s
FROM jobs
GROUP BY log_id;

-- A batching scheduler (the paper's Fig. 8) starts jobs only every P seconds,
-- so the gaps between distinct start instants fall on multiples of P while
-- the gaps between arrivals do not. P is the most common gap of at least 10 s
-- between distinct starts (the smallest on a tie); of the gaps from P - 1 s
-- on, start_on_period is the share within 1 s of a multiple of P and
-- arrival_on_period the same share of the gaps between distinct submit
-- instants. Their ratio is near 1 without batching; the report calls 2 or
-- more batching.
CREATE OR REPLACE VIEW start_batching AS
WITH known AS (
    SELECT log_id, submit, submit + wait AS start FROM jobs WHERE submit <> -1 AND wait <> -1
),
starts AS (
    SELECT log_id, start - lag(start) OVER (PARTITION BY log_id ORDER BY start) AS gap
    FROM (SELECT DISTINCT log_id, start FROM known)
),
arrivals AS (
    SELECT log_id, submit - lag(submit) OVER (PARTITION BY log_id ORDER BY submit) AS gap
    FROM (SELECT DISTINCT log_id, submit FROM known)
),
period AS (
    SELECT log_id, first(gap ORDER BY n DESC, gap) AS period
    FROM (SELECT log_id, gap, count(*) AS n FROM starts WHERE gap >= 10 GROUP BY log_id, gap)
    GROUP BY log_id
),
shares AS (
    SELECT log_id, kind,
           avg(CASE WHEN least(gap % period, period - gap % period) <= 1 THEN 1.0 ELSE 0.0 END) AS share
    FROM (SELECT log_id, 'start' AS kind, gap FROM starts
          UNION ALL SELECT log_id, 'arrival' AS kind, gap FROM arrivals)
    JOIN period USING (log_id)
    WHERE gap >= period - 1
    GROUP BY log_id, kind
)
SELECT
    p.log_id,
    p.period                                                   AS batching_period,
    any_value(s.share) FILTER (WHERE s.kind = 'start')         AS start_on_period,
    any_value(s.share) FILTER (WHERE s.kind = 'arrival')       AS arrival_on_period,
    any_value(s.share) FILTER (WHERE s.kind = 'start')
        / nullif(any_value(s.share) FILTER (WHERE s.kind = 'arrival'), 0) AS batching_ratio
FROM period AS p
LEFT JOIN shares AS s USING (log_id)
GROUP BY p.log_id, p.period;
