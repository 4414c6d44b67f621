-- name: regime
-- version: 1
-- computed: regime
-- rationale:
--   A machine whose usable capacity changed within its log (grown, shrunk,
--   a trial at part of its size) is two workloads side by side, and a
--   simulation takes one machine size for the whole log. This rule keeps one
--   capacity regime: by its number, as the capacity_regimes detector of wla
--   quality finds and numbers them over the step's jobs (the thresholds are
--   the detector's), or by dates. Jobs submitted outside it are removed;
--   jobs with an unknown submit time stay. The version's machine size
--   becomes the regime's capacity (its median daily peak of processors in
--   use), or the size given, and a Note line of the version says so, so
--   simulate reads it. A capacity step after this one takes the log's
--   original machine size unless it is given its capacity.
-- params:
--   regime (integer in [1, 2147483647], default none): the regime to keep, numbered from 1 as wla quality lists them; none: keep the jobs between since and until
--   since (time, default none): with no regime, jobs submitted before this are removed: submit seconds, or a date in the log's local time
--   until (time, default none): with no regime, jobs submitted at or after this are removed
--   size (integer in [1, 2147483647], default none): the version's machine size; none: the capacity of the jobs kept
--   min_days (integer in [1, 2147483647], default 28): days at its level a regime holds at least
--   min_change (number in [0, 1], default 0.08): share of the larger capacity by which two regimes differ at least
--   tolerance (number in [0, 1], default 0.05): share of its capacity within which a day is at a regime's level
--   plateau (number in [0, 1], default 0.5): share of a regime's days at its level, at least
SELECT
    input.*,
    c.reason AS _drop
FROM input
LEFT JOIN computed_drops AS c
    ON c.version_id = $version_id AND c.step = $step AND c.line_no = input.line_no
