-- name: set
-- version: 1
-- computed: set
-- rationale:
--   A simulation may need one recorded value changed on purpose: the
--   shaking paper's butterfly effect (Table II) cuts the run of job 64,241
--   of SDSC SP2 from 18 h 0 min 30 s to the 18 h it requested. The rule
--   sets one field of the jobs a predicate selects to one value, and every
--   value it changes is a decision with the old value, the new one and the
--   reason, so the version says what was changed by hand. The field must be
--   one of the 18 SWF fields and the value one the field can hold (-1, for
--   unknown, or a value of the field's range; whole for the counted
--   fields); a predicate that selects no job is refused, as it almost
--   always means a mistyped predicate.
-- params:
--   where (predicate): the jobs to change, e.g. job=64241
--   field (text): the SWF field to set (its column name: job, submit, wait, run, procs, cpu, mem, req_procs, req_time, req_mem, status, user_id, group_id, app_id, queue_id, partition_id, prev_job, think)
--   value (number): the value the field takes
--   reason (text, default ""): why; empty means the field, the value and the predicate are the reason
SELECT
    * REPLACE (
        CASE WHEN $field = 'job' AND $where THEN CAST($value AS BIGINT) ELSE job END AS job,
        CASE WHEN $field = 'submit' AND $where THEN CAST($value AS DOUBLE) ELSE submit END AS submit,
        CASE WHEN $field = 'wait' AND $where THEN CAST($value AS DOUBLE) ELSE wait END AS wait,
        CASE WHEN $field = 'run' AND $where THEN CAST($value AS DOUBLE) ELSE run END AS run,
        CASE WHEN $field = 'procs' AND $where THEN CAST($value AS BIGINT) ELSE procs END AS procs,
        CASE WHEN $field = 'cpu' AND $where THEN CAST($value AS DOUBLE) ELSE cpu END AS cpu,
        CASE WHEN $field = 'mem' AND $where THEN CAST($value AS DOUBLE) ELSE mem END AS mem,
        CASE WHEN $field = 'req_procs' AND $where THEN CAST($value AS BIGINT) ELSE req_procs END AS req_procs,
        CASE WHEN $field = 'req_time' AND $where THEN CAST($value AS DOUBLE) ELSE req_time END AS req_time,
        CASE WHEN $field = 'req_mem' AND $where THEN CAST($value AS DOUBLE) ELSE req_mem END AS req_mem,
        CASE WHEN $field = 'status' AND $where THEN CAST($value AS BIGINT) ELSE status END AS status,
        CASE WHEN $field = 'user_id' AND $where THEN CAST($value AS BIGINT) ELSE user_id END AS user_id,
        CASE WHEN $field = 'group_id' AND $where THEN CAST($value AS BIGINT) ELSE group_id END AS group_id,
        CASE WHEN $field = 'app_id' AND $where THEN CAST($value AS BIGINT) ELSE app_id END AS app_id,
        CASE WHEN $field = 'queue_id' AND $where THEN CAST($value AS BIGINT) ELSE queue_id END AS queue_id,
        CASE WHEN $field = 'partition_id' AND $where THEN CAST($value AS BIGINT) ELSE partition_id END AS partition_id,
        CASE WHEN $field = 'prev_job' AND $where THEN CAST($value AS BIGINT) ELSE prev_job END AS prev_job,
        CASE WHEN $field = 'think' AND $where THEN CAST($value AS DOUBLE) ELSE think END AS think
    ),
    CASE WHEN $reason = '' THEN 'job set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_job,
    CASE WHEN $reason = '' THEN 'submit set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_submit,
    CASE WHEN $reason = '' THEN 'wait set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_wait,
    CASE WHEN $reason = '' THEN 'run set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_run,
    CASE WHEN $reason = '' THEN 'procs set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_procs,
    CASE WHEN $reason = '' THEN 'cpu set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_cpu,
    CASE WHEN $reason = '' THEN 'mem set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_mem,
    CASE WHEN $reason = '' THEN 'req_procs set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_req_procs,
    CASE WHEN $reason = '' THEN 'req_time set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_req_time,
    CASE WHEN $reason = '' THEN 'req_mem set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_req_mem,
    CASE WHEN $reason = '' THEN 'status set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_status,
    CASE WHEN $reason = '' THEN 'user_id set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_user_id,
    CASE WHEN $reason = '' THEN 'group_id set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_group_id,
    CASE WHEN $reason = '' THEN 'app_id set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_app_id,
    CASE WHEN $reason = '' THEN 'queue_id set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_queue_id,
    CASE WHEN $reason = '' THEN 'partition_id set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_partition_id,
    CASE WHEN $reason = '' THEN 'prev_job set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_prev_job,
    CASE WHEN $reason = '' THEN 'think set to ' || $value_text || ' where ' || $where_text ELSE $reason END AS _why_think
FROM input
