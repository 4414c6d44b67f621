-- name: timing
-- version: 1
-- rationale:
--   A job whose start is before its submit (a wait more negative than the
--   allowance; -1 is unknown, never negative) holds three times that cannot
--   all be right, and which one is wrong is unknown (the experience paper's
--   Table 3). The fix says which to believe. "start = submit" keeps the
--   submit and the end: the wait becomes 0 and the run is shortened by the
--   negative wait (unknown if the end is before the submit too). "submit =
--   start" keeps the start and the end as the machine recorded them: the
--   submit moves to the start, the wait becomes 0, the run stays. "wait = 0"
--   keeps the submit and the run: the start moves to the submit and the end
--   moves with it. "none" changes nothing (a recipe's explicit choice). The
--   same dilemma holds for a job whose start is missing: a job that did not
--   complete with an unknown run and a known wait (the converter wrote the
--   wait as end - submit); only "start = submit" decides it, as the paper's
--   section 4.3 did, by taking the interval from submit to end as the run
--   (run := wait, wait := 0), which makes some runs exceed their request.
--   The default changes no time the machine recorded (start, end, run).
-- params:
--   fix (text, default "submit = start"): which time to believe: "none", "start = submit", "submit = start" or "wait = 0"
--   allowance (number >= 0, default 60): seconds a start may precede its submit before the job is fixed (Table 2 of the paper counts beyond 1 min)
--   missing_start (boolean, default true): with "start = submit", also set a missing start (run unknown, wait known, status not 1) to the submit
SELECT
    * REPLACE (
        CASE WHEN $fix NOT IN ('none', 'start = submit', 'submit = start', 'wait = 0')
             THEN CAST(error('fix must be one of "none", "start = submit", "submit = start", "wait = 0"') AS BIGINT)
             WHEN submit <> -1 AND wait <> -1 AND wait < -$allowance AND $fix = 'submit = start' THEN submit + wait
             ELSE submit END AS submit,
        CASE WHEN submit <> -1 AND wait <> -1 AND wait < -$allowance AND $fix <> 'none' THEN 0
             WHEN $fix = 'start = submit' AND $missing_start AND submit <> -1 AND run = -1 AND wait >= 0 AND status <> 1 THEN 0
             ELSE wait END AS wait,
        CASE WHEN submit <> -1 AND wait <> -1 AND wait < -$allowance AND $fix = 'start = submit' AND run <> -1
             THEN CASE WHEN run + wait >= 0 THEN run + wait ELSE -1 END
             WHEN $fix = 'start = submit' AND $missing_start AND submit <> -1 AND run = -1 AND wait >= 0 AND status <> 1 THEN wait
             ELSE run END AS run
    ),
    CASE WHEN submit <> -1 AND wait <> -1 AND wait < -$allowance AND $fix = 'submit = start'
         THEN 'start before submit by ' || CAST(-wait AS BIGINT) || ' s (beyond ' || $allowance_text
              || ' s), fix submit = start: the submit moved to the recorded start'
    END AS _why_submit,
    CASE WHEN submit <> -1 AND wait <> -1 AND wait < -$allowance AND $fix <> 'none'
         THEN 'start before submit by ' || CAST(-wait AS BIGINT) || ' s (beyond ' || $allowance_text || ' s), fix '
              || $fix_text || ': wait 0'
         WHEN $fix = 'start = submit' AND $missing_start AND submit <> -1 AND run = -1 AND wait >= 0 AND status <> 1
         THEN 'start missing (status ' || status || '), fix start = submit: the recorded wait, end - submit, is the run'
    END AS _why_wait,
    CASE WHEN submit <> -1 AND wait <> -1 AND wait < -$allowance AND $fix = 'start = submit' AND run <> -1 AND run + wait >= 0
         THEN 'start before submit by ' || CAST(-wait AS BIGINT) || ' s, fix start = submit: the end stays, the run is shortened'
         WHEN submit <> -1 AND wait <> -1 AND wait < -$allowance AND $fix = 'start = submit' AND run <> -1
         THEN 'start before submit by ' || CAST(-wait AS BIGINT) || ' s and the end before the submit too: run unknown'
         WHEN $fix = 'start = submit' AND $missing_start AND submit <> -1 AND run = -1 AND wait >= 0 AND status <> 1
         THEN 'start missing (status ' || status || '), fix start = submit: the run is from submit to end'
    END AS _why_run
FROM input
