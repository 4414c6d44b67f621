-- name: filter
-- version: 1
-- rationale:
--   Flurries (bursts of one user's activity that dominate the machine) and
--   other unrepresentative jobs are removed by a predicate in the archive's
--   notation: field values and ranges, job-number spans, submit-time spans
--   and daily windows in the log's local time, combined with and, or and not.
--   Detection (wla flurries) proposes a predicate; a person decides, and the
--   reason given here is what every dropped job's decision says.
-- params:
--   where (predicate): the jobs to drop, e.g. user=374 and job>=1000 and job<=2000
--   reason (text, default ""): why they are dropped; empty means the predicate itself is the reason
SELECT
    *,
    CASE WHEN $where THEN
        CASE WHEN $reason = '' THEN 'matches the filter ' || $where_text ELSE $reason END
    END AS _drop
FROM input
