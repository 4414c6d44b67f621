-- name: normalize
-- version: 1
-- rationale:
--   Logs are converted from accounting records written by machines whose
--   clocks drift and whose converters write 0 where nothing was recorded.
--   A slightly negative wait or run time is clock skew and becomes 0; one more
--   negative than the allowance (1 h 5 min covers daylight-saving changes and
--   drift) cannot be trusted and becomes unknown (-1). Fields that must be
--   positive but read 0 (allocated and requested processors, used and
--   requested memory, requested time) are unknown, not zero. The value -1
--   already means unknown and is never touched.
-- params:
--   allowance (number >= 0, default 3900): seconds a wait or run time may be negative and still be clock skew
SELECT
    * REPLACE (
        CASE WHEN wait < -$allowance THEN -1
             WHEN wait < 0 AND wait <> -1 THEN 0
             ELSE wait END AS wait,
        CASE WHEN run < -$allowance THEN -1
             WHEN run < 0 AND run <> -1 THEN 0
             ELSE run END AS run,
        CASE WHEN procs = 0 THEN -1 ELSE procs END AS procs,
        CASE WHEN req_procs = 0 THEN -1 ELSE req_procs END AS req_procs,
        CASE WHEN mem = 0 THEN -1 ELSE mem END AS mem,
        CASE WHEN req_mem = 0 THEN -1 ELSE req_mem END AS req_mem,
        CASE WHEN req_time = 0 THEN -1 ELSE req_time END AS req_time
    ),
    CASE WHEN wait < -$allowance THEN 'negative wait time beyond the ' || $allowance_text || ' s allowance: unknown'
         WHEN wait < 0 AND wait <> -1 THEN 'negative wait time within the ' || $allowance_text || ' s allowance (clock skew): 0'
    END AS _why_wait,
    CASE WHEN run < -$allowance THEN 'negative run time beyond the ' || $allowance_text || ' s allowance: unknown'
         WHEN run < 0 AND run <> -1 THEN 'negative run time within the ' || $allowance_text || ' s allowance (clock skew): 0'
    END AS _why_run,
    'allocated processors recorded as 0: unknown' AS _why_procs,
    'requested processors recorded as 0: unknown' AS _why_req_procs,
    'used memory recorded as 0: unknown' AS _why_mem,
    'requested memory recorded as 0: unknown' AS _why_req_mem,
    'requested time recorded as 0: unknown' AS _why_req_time
FROM input
