-- name: capacity
-- version: 3
-- computed: capacity
-- rationale:
--   Running jobs can never hold more processors than the machine has, yet
--   nearly every log has instants where they do. Exceptions that share jobs
--   form independent components; in each, a 0/1 integer program (scipy's
--   milp, HiGHS) chooses the jobs to delete so that every exception is
--   resolved, once with the fewest deleted jobs (L) and once with the fewest
--   deleted processor-seconds (S). The deletion whose larger share of jobs
--   and of utilization is smaller is chosen; if that share is above the
--   threshold the log is left as it is and the rule only reports. Overlaps
--   shorter than the slack are timing slop and are ignored. The solver's
--   work is bounded by counts, never by a clock, so a recipe deletes the same
--   jobs on any machine and under any load; where a limit stops a program,
--   its deletion keeps the best found and its reason says how far from
--   optimal it may be.
-- params:
--   capacity (integer in [1, 2147483647], default none): processors of the machine; none means the log's machine size
--   slack (number >= 0, default 0): seconds of overlap ignored as timing slop
--   threshold (number in [0, 1], default 0.05): largest share of jobs or of utilization the deletion may remove
--   node_limit (integer in [1, 2147483647], default 5000): branch-and-bound nodes HiGHS may search per program solved whole (one objective of one component)
--   size_limit (integer in [1, 2147483647], default 20000): constraint nonzeros of the largest program solved whole; a larger one is solved in overlapping windows of time of about this size, each searched at its root, over the jobs its LP relaxation favours, and its bound is the LP's
SELECT
    input.*,
    c.reason AS _drop
FROM input
LEFT JOIN computed_drops AS c
    ON c.version_id = $version_id AND c.step = $step AND c.line_no = input.line_no
