-- Definitions every view shares, made before the views. Python says the same
-- in wla.archive.kernel.processors and wla.archive.kernel.clock; tests hold them equal on
-- every real log.

-- Processors a job holds: allocated when positive, else requested when
-- positive, else unknown (NULL).
CREATE OR REPLACE MACRO job_procs(procs, req_procs) AS
    CASE WHEN procs > 0 THEN procs WHEN req_procs > 0 THEN req_procs END;

-- The week of the log a submit time falls in: week k is
-- [k * 604800, (k + 1) * 604800) seconds of the log's clock.
CREATE OR REPLACE MACRO log_week(submit) AS CAST(floor(submit / 604800) AS BIGINT);
