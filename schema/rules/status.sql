-- name: status
-- version: 1
-- rationale:
--   Jobs of some statuses may distort a study, for example canceled jobs in
--   a log where they hold no processors yet count as load. Dropping by status
--   is dangerous in general (a canceled job was still a demand on the
--   machine), so the rule acts only when a recipe asks for it, on the
--   statuses it names.
-- params:
--   statuses (integers, default [5]): status codes whose jobs are dropped (0 failed, 1 completed, 5 canceled)
SELECT
    *,
    CASE WHEN status IN $statuses
         THEN 'status ' || status || ' is one of the dropped statuses ' || $statuses_text
    END AS _drop
FROM input
