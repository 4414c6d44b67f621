-- name: trim
-- version: 1
-- rationale:
--   Some logs begin while the machine was still in testing or half
--   configured: long idle stretches or a plateau at part of its capacity,
--   then production. Jobs of that interval describe a different machine and
--   are removed. The trim point is a submit time; wla load suggests the first
--   week after which weekly utilization stays above half the median.
-- params:
--   before (time): jobs submitted before this are removed: submit seconds, or a date in the log's local time
SELECT
    *,
    CASE WHEN submit <> -1 AND submit < $before
         THEN 'submitted before the trim point ' || $before_text || ' (initial low-load interval)'
    END AS _drop
FROM input
