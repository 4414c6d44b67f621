-- name: recover
-- version: 1
-- action: recover
-- rationale:
--   Some missing values can be rebuilt from redundant fields. A missing run
--   time is taken from the average CPU time per processor when that was
--   recorded (above 0): CPU time is a lower bound of the run time, so the
--   recovered value errs short, never long. A missing requested-processor
--   count is taken from the allocated count, and a missing allocated count
--   from the requested one. Every recovered value is flagged as recovered,
--   not observed; each part can be switched off.
-- params:
--   run_from_cpu (boolean, default true): recover a missing run time from the CPU time
--   procs_from_request (boolean, default true): recover missing allocated or requested processors from the other
SELECT
    * REPLACE (
        CASE WHEN $run_from_cpu AND run = -1 AND cpu > 0 THEN cpu ELSE run END AS run,
        CASE WHEN $procs_from_request AND procs = -1 AND req_procs > 0 THEN req_procs ELSE procs END AS procs,
        CASE WHEN $procs_from_request AND req_procs = -1 AND procs > 0 THEN procs ELSE req_procs END AS req_procs
    ),
    'run time unknown: recovered from the average CPU time per processor (a lower bound)' AS _why_run,
    'allocated processors unknown: recovered from the requested processors' AS _why_procs,
    'requested processors unknown: recovered from the allocated processors' AS _why_req_procs
FROM input
