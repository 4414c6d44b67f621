-- What each log is, so that a query over all logs counts each job once.
-- An original is a log as it came into the archive: read from an SWF file,
-- or from accounting records that `wla convert` turned into SWF, which its
-- Conversion header line says ('wla VERSION from FILE (FORMAT)'; then
-- converted_from is 'FILE (FORMAT)'). A version is built by a recipe from an
-- original or from a version of it, is named ORIGINAL@VERSION, and holds jobs
-- of its original again: `WHERE kind = 'original'` takes each job once.
-- A version's converted_from is its original's. A resampled log (`wla
-- resample`) copies jobs of its source, a log or a version: its original is
-- the source's original.
CREATE OR REPLACE VIEW log_kinds AS
SELECT
    l.log_id,
    l.name,
    CASE WHEN l.kind IN ('version', 'resampled') THEN l.kind ELSE 'original' END AS kind,
    coalesce(o.name, so.name, s.name, l.name) AS original,
    v.version,
    nullif(regexp_extract(coalesce(o.conversion, so.conversion, s.conversion, l.conversion),
                          '^wla \S+ from (.+)$', 1), '') AS converted_from
FROM logs AS l
LEFT JOIN versions AS v ON v.log_id = l.log_id
LEFT JOIN logs AS o ON o.log_id = v.base_log_id
LEFT JOIN logs AS s ON s.log_id = l.source_log_id AND l.kind = 'resampled'
LEFT JOIN versions AS sv ON sv.log_id = s.log_id
LEFT JOIN logs AS so ON so.log_id = sv.base_log_id;

-- The typed view of all jobs: -1 becomes NULL, and the times a question
-- usually needs are derived. Local time uses the log's TimeZoneString; when
-- that is unknown it is UTC and tz_known is false. Without UnixStartTime
-- there is no calendar time at all (the timestamp columns are NULL).
CREATE OR REPLACE VIEW typed_jobs AS
WITH j AS (
    SELECT
        l.name AS log,
        k.kind,
        k.original,
        k.version,
        k.converted_from,
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
    JOIN log_kinds AS k USING (log_id)
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
