-- name: dependencies
-- version: 1
-- rationale:
--   Users wait for their jobs: many submit the next one only when the one
--   before has ended, and a simulation that keeps every submit time fixed
--   loses that feedback. SWF keeps it in fields 17 (the preceding job) and 18
--   (the think time); this rule fills them for every job from the log itself.
--   A job ends at submit + wait + run (both known); a job whose end is unknown
--   is never a predecessor and never counts as still running, and jobs of an
--   unknown user or an unknown submit time get none. A user's jobs are taken
--   in the order of submit time, job number and line; the job just before one
--   is its previous job. If the previous job had not ended when the job was
--   submitted, the job is part of a batch and gets the dependency the
--   previous job has (so a whole batch depends on what its first job depends
--   on; with inherit_batches off it gets none). Otherwise its predecessor is
--   the job before it in that order that ended last at or before its submit
--   (of equal ends, the later in the order), when that end is at most the
--   session gap before the submit (the user waited for it), or at any
--   distance with across_sessions; a session's first job otherwise has none.
--   The think time is the job's submit minus its predecessor's end. With
--   keep_existing a job whose field 17 is already set keeps fields 17 and 18.
--   The predecessor is always a job of the step's input.
-- params:
--   session_gap (number >= 0, default 1200): seconds from a job's end to the next submit beyond which a new session begins (as wla stats counts sessions)
--   inherit_batches (boolean, default true): a job submitted while the user's previous job still ran gets that job's dependency; false: none
--   across_sessions (boolean, default false): a session's first job depends on the previous session's last-ending job, its think time the whole break
--   keep_existing (boolean, default false): a job whose field 17 is already set keeps fields 17 and 18 as the log has them
WITH ordered AS (
    SELECT
        line_no, job, user_id, submit,
        CASE WHEN wait >= 0 AND run >= 0 THEN submit + wait + run END AS ends,
        row_number() OVER (PARTITION BY user_id ORDER BY submit, job, line_no) AS pos
    FROM input
    WHERE user_id >= 0 AND submit >= 0
),
events AS (
    -- Each job asks at its submit which of the user's jobs ended last; each
    -- known end is an answer. At one instant the ends of jobs earlier in the
    -- order come before the question, the job's own end and later ones after.
    SELECT user_id, submit AS t, pos, 0 AS kind, line_no, NULL AS ended_job, NULL AS ended_at
    FROM ordered
    UNION ALL
    SELECT user_id, ends AS t, pos, 1 AS kind, NULL AS line_no, job AS ended_job, ends AS ended_at
    FROM ordered
    WHERE ends IS NOT NULL
),
latest AS (
    SELECT
        line_no,
        last_value(ended_job IGNORE NULLS) OVER w AS last_job,
        last_value(ended_at IGNORE NULLS) OVER w AS last_end
    FROM events
    WINDOW w AS (PARTITION BY user_id ORDER BY t, pos, kind ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
own AS (
    SELECT
        o.line_no, o.job, o.user_id, o.submit, o.pos, l.last_job, l.last_end,
        lag(o.job) OVER p AS prev,
        coalesce(lag(o.ends) OVER p > o.submit, false) AS running
    FROM ordered AS o
    JOIN latest AS l ON l.line_no = o.line_no
    WINDOW p AS (PARTITION BY o.user_id ORDER BY o.pos)
),
heads AS (
    SELECT
        *,
        CASE WHEN NOT running AND last_job IS NOT NULL
                  AND ($across_sessions OR submit - last_end <= $session_gap)
             THEN last_job END AS own_pred,
        sum(CASE WHEN running THEN 0 ELSE 1 END) OVER (
            PARTITION BY user_id ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS batch
    FROM own
),
batches AS (
    SELECT
        *,
        first_value(job) OVER b AS head,
        first_value(own_pred) OVER b AS head_pred,
        first_value(CASE WHEN own_pred IS NOT NULL THEN last_end END) OVER b AS head_pred_end,
        regexp_replace(CAST(submit - last_end AS VARCHAR), '\.0$', '') AS own_text
    FROM heads
    WINDOW b AS (PARTITION BY user_id, batch ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
),
decided AS (
    SELECT
        *,
        regexp_replace(CAST(submit - head_pred_end AS VARCHAR), '\.0$', '') AS head_text
    FROM batches
),
reasons AS (
    SELECT
        line_no,
        CASE WHEN NOT running THEN own_pred
             WHEN $inherit_batches THEN head_pred END AS pred,
        CASE WHEN NOT running THEN CASE WHEN own_pred IS NOT NULL THEN submit - last_end END
             WHEN $inherit_batches AND head_pred IS NOT NULL THEN submit - head_pred_end END AS gap,
        CASE
            WHEN running AND NOT $inherit_batches
                THEN 'no preceding job: submitted while job ' || prev || ' still ran (a batch; inherit_batches '
                     || 'is false)'
            WHEN running AND head_pred IS NULL
                THEN 'no preceding job: submitted while job ' || prev || ' still ran, in a batch whose first '
                     || 'job ' || head || ' has none'
            WHEN running
                THEN 'preceding job ' || head_pred || ', think time ' || head_text || ' s: that of its batch''s '
                     || 'first job ' || head || ' (submitted while job ' || prev || ' still ran)'
            WHEN last_job IS NULL
                THEN 'no preceding job: no earlier job of the user had ended by its submit'
            WHEN own_pred IS NULL
                THEN 'no preceding job: the first of a session; the user''s last job to end before it, job '
                     || last_job || ', ended ' || own_text || ' s before its submit, beyond the session gap of '
                     || $session_gap_text || ' s'
            ELSE 'preceding job ' || last_job || ', think time ' || own_text || ' s: the user''s last job to end '
                 || 'before its submit, '
                 || CASE WHEN submit - last_end <= $session_gap THEN 'within the session gap of '
                         ELSE 'beyond the session gap of ' END
                 || $session_gap_text || ' s'
                 || CASE WHEN submit - last_end <= $session_gap THEN '' ELSE ' (across_sessions)' END
        END AS why
    FROM decided
),
filled AS (
    SELECT
        i.line_no,
        $keep_existing AND i.prev_job <> -1 AS kept,
        coalesce(d.pred, -1) AS pred,
        coalesce(d.gap, -1) AS gap,
        coalesce(d.why, CASE WHEN i.user_id < 0 THEN 'no preceding job: user unknown'
                             ELSE 'no preceding job: submit time unknown' END) AS why
    FROM input AS i
    LEFT JOIN reasons AS d ON d.line_no = i.line_no
)
SELECT
    input.* REPLACE (
        CASE WHEN f.kept THEN input.prev_job ELSE f.pred END AS prev_job,
        CASE WHEN f.kept THEN input.think ELSE f.gap END AS think
    ),
    f.why AS _why_prev_job,
    f.why AS _why_think
FROM input
JOIN filled AS f ON f.line_no = input.line_no
