-- A log's figures, computed from its jobs: what the catalog shows of it.
-- They are kept in the table log_figures (tables.sql) when a log or version
-- is stored, so that listing the archive reads one row per log instead of
-- every job; this view is how they are computed, then and by a migration.
-- Processors of a job: job_procs (macros.sql). A job whose wait is unknown
-- (some logs record none) is taken to end at submit + run.
CREATE OR REPLACE VIEW job_figures AS
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
GROUP BY log_id;
