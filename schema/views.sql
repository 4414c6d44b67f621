-- The typed view of all jobs: -1 becomes NULL, and the times a question
-- usually needs are derived. Local time uses the log's TimeZoneString; when
-- that is unknown it is UTC and tz_known is false. Without UnixStartTime
-- there is no calendar time at all (the timestamp columns are NULL).
CREATE OR REPLACE VIEW typed_jobs AS
WITH j AS (
    SELECT
        l.name AS log,
        j.log_id,
        j.line_no,
        j.job,
        nullif(j.submit, -1)       AS submit,
        nullif(j.wait, -1)         AS wait,
        nullif(j.run, -1)          AS run,
        nullif(j.procs, -1)        AS procs,
        nullif(j.cpu, -1)          AS cpu,
        nullif(j.mem, -1)          AS mem,
        nullif(j.req_procs, -1)    AS req_procs,
        nullif(j.req_time, -1)     AS req_time,
        nullif(j.req_mem, -1)      AS req_mem,
        nullif(j.status, -1)       AS status,
        nullif(j.user_id, -1)      AS user_id,
        nullif(j.group_id, -1)     AS group_id,
        nullif(j.app_id, -1)       AS app_id,
        nullif(j.queue_id, -1)     AS queue_id,
        nullif(j.partition_id, -1) AS partition_id,
        nullif(j.prev_job, -1)     AS prev_job,
        nullif(j.think, -1)        AS think,
        l.unix_start_time,
        l.tz
    FROM jobs AS j
    JOIN logs AS l USING (log_id)
)
SELECT
    * EXCLUDE (unix_start_time, tz),
    submit + wait                                   AS start_time,
    submit + wait + run                             AS end_time,
    to_timestamp(unix_start_time + submit)          AS submit_utc,
    timezone(coalesce(tz, 'UTC'), to_timestamp(unix_start_time + submit)) AS submit_local,
    tz IS NOT NULL                                  AS tz_known,
    isodow(timezone(coalesce(tz, 'UTC'), to_timestamp(unix_start_time + submit))) AS day_of_week,
    hour(timezone(coalesce(tz, 'UTC'), to_timestamp(unix_start_time + submit)))   AS hour_of_day,
    log_week(submit)                                AS week
FROM j;
