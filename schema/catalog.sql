-- One row per log or version, like the Parallel Workloads Archive's own
-- table, saying what it is (log_kinds, views.sql).
-- Figures of its jobs: log_figures (tables.sql, kept as figures.sql
-- computes them). Utilization: processor-seconds of all jobs over machine
-- size times the interval from the first to the last job termination
-- (which reduces end effects).
CREATE OR REPLACE VIEW log_summary AS
SELECT
    l.name,
    k.kind,
    k.original,
    k.version,
    k.converted_from,
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
FROM log_figures AS s
JOIN logs AS l USING (log_id)
JOIN log_kinds AS k USING (log_id);
