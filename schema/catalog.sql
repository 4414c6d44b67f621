-- One row per log, like the Parallel Workloads Archive's own table.
-- Processors of a job: job_procs (macros.sql). Utilization: processor-
-- seconds of all jobs over machine size times the interval from the first to
-- the last job termination (which reduces end effects). A job whose wait is
-- unknown (some logs record none) is taken to end at submit + run.
CREATE OR REPLACE VIEW log_summary AS
WITH s AS (
    SELECT
        log_id,
        count(*) AS jobs,
        min(submit) FILTER (WHERE submit <> -1) AS first_submit,
        max(submit) FILTER (WHERE submit <> -1) AS last_submit,
        count(DISTINCT user_id) FILTER (WHERE user_id <> -1) AS users,
        sum(run * job_procs(procs, req_procs)) FILTER (WHERE run > 0) AS proc_seconds,
        min(submit + greatest(wait, 0) + run) FILTER (WHERE submit <> -1 AND run <> -1) AS first_end,
        max(submit + greatest(wait, 0) + run) FILTER (WHERE submit <> -1 AND run <> -1) AS last_end
    FROM jobs
    GROUP BY log_id
)
SELECT
    l.name,
    l.log_id,
    CAST(timezone(coalesce(l.tz, 'UTC'), to_timestamp(l.unix_start_time + s.first_submit)) AS DATE) AS first_submit_date,
    CAST(timezone(coalesce(l.tz, 'UTC'), to_timestamp(l.unix_start_time + s.last_submit)) AS DATE) AS last_submit_date,
    round((s.last_submit - s.first_submit) / (86400 * 365.25 / 12), 1) AS months,
    l.machine_size,
    l.machine_size_source,
    s.users,
    s.jobs,
    s.proc_seconds / (l.machine_size * (s.last_end - s.first_end)) AS utilization,
    s.first_submit,
    s.last_submit,
    s.first_end,
    s.last_end,
    s.proc_seconds
FROM s
JOIN logs AS l USING (log_id);
