-- The archive's tables. Run at every open of a writable archive; every
-- statement is idempotent. Column names of jobs follow archive/swf/fields.py.

-- Facts of the archive itself: 'schema_version' (archive/store/migrate.py).
CREATE TABLE IF NOT EXISTS archive_meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

-- One row per ingested log: the file it came from and its parsed header.
CREATE TABLE IF NOT EXISTS logs (
    log_id              INTEGER PRIMARY KEY,
    name                VARCHAR NOT NULL UNIQUE,
    file_name           VARCHAR NOT NULL,   -- as given to ingest
    file_size           BIGINT  NOT NULL,   -- bytes on disk (compressed or not)
    data_size           BIGINT  NOT NULL,   -- bytes of SWF text
    sha256              VARCHAR NOT NULL,   -- of the SWF text
    ingested_at         TIMESTAMPTZ NOT NULL,
    lenient             BOOLEAN NOT NULL,
    lines               BIGINT  NOT NULL,
    header_lines        INTEGER NOT NULL,
    blank_lines         BIGINT  NOT NULL,
    jobs                BIGINT  NOT NULL,
    rejects             BIGINT  NOT NULL,
    swf_version         VARCHAR,
    computer            VARCHAR,
    installation        VARCHAR,
    conversion          VARCHAR,
    max_jobs            BIGINT,
    max_records         BIGINT,
    preemption          VARCHAR,
    unix_start_time     BIGINT,
    time_zone           BIGINT,
    time_zone_string    VARCHAR,            -- as written
    tz                  VARCHAR,            -- time zone used: a valid name, else NULL
    start_time          VARCHAR,
    end_time            VARCHAR,
    max_nodes           BIGINT,
    max_procs           BIGINT,
    max_runtime         BIGINT,
    max_memory          BIGINT,
    allow_overuse       VARCHAR,
    max_queues          BIGINT,
    max_partitions      BIGINT,
    machine_size        BIGINT,             -- MaxProcs, else MaxNodes, else set by hand
    machine_size_source VARCHAR             -- 'MaxProcs', 'MaxNodes', 'set', 'recipe' or NULL
);

-- Every comment line of every log, in file order, labelled when it reads
-- '; Label: value'.
CREATE TABLE IF NOT EXISTS header_lines (
    log_id  INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    line_no INTEGER NOT NULL,
    text    VARCHAR NOT NULL,
    label   VARCHAR,
    value   VARCHAR
);

-- The jobs of all logs, every field as written (-1 included).
CREATE TABLE IF NOT EXISTS jobs (
    log_id       INTEGER NOT NULL,
    line_no      INTEGER NOT NULL,
    job          BIGINT NOT NULL,
    submit       DOUBLE NOT NULL,
    wait         DOUBLE NOT NULL,
    run          DOUBLE NOT NULL,
    procs        BIGINT NOT NULL,
    cpu          DOUBLE NOT NULL,
    mem          DOUBLE NOT NULL,
    req_procs    BIGINT NOT NULL,
    req_time     DOUBLE NOT NULL,
    req_mem      DOUBLE NOT NULL,
    status       BIGINT NOT NULL,
    user_id      BIGINT NOT NULL,
    group_id     BIGINT NOT NULL,
    app_id       BIGINT NOT NULL,
    queue_id     BIGINT NOT NULL,
    partition_id BIGINT NOT NULL,
    prev_job     BIGINT NOT NULL,
    think        DOUBLE NOT NULL
);

-- Each log's figures (figures.sql: job_figures), kept when its jobs are
-- stored: a log's jobs never change after, and `wla ls` reads these rows
-- instead of every job.
CREATE TABLE IF NOT EXISTS log_figures (
    log_id       INTEGER PRIMARY KEY,
    jobs         BIGINT NOT NULL,
    first_submit DOUBLE,
    last_submit  DOUBLE,
    users        BIGINT NOT NULL,
    proc_seconds DOUBLE,
    first_end    DOUBLE,
    last_end     DOUBLE
);

-- Lines that lenient ingest set apart, with the reason.
CREATE TABLE IF NOT EXISTS rejects (
    log_id  INTEGER NOT NULL,
    line_no INTEGER NOT NULL,
    text    VARCHAR NOT NULL,
    reason  VARCHAR NOT NULL
);

-- Versions are logs too: one row in logs (kind 'version'), their kept jobs in
-- jobs, their header lines in header_lines, so every command that reads a log
-- reads a version the same way. Older archives gain the columns here.
ALTER TABLE logs ADD COLUMN IF NOT EXISTS kind VARCHAR DEFAULT 'log';
ALTER TABLE logs ADD COLUMN IF NOT EXISTS source_log_id INTEGER;

-- How a log writes its job lines (archive/swf/layout.py, as JSON: padding,
-- widths and decimals of each field, line end), so that export gives back the
-- file byte for byte. NULL for a log ingested before schema version 3: its
-- export is re-rendered, columns as wide as their widest value.
ALTER TABLE logs ADD COLUMN IF NOT EXISTS layout VARCHAR;

-- The lines of a log that its layout, jobs and header lines do not give back,
-- as written (without the \n): blank and rejected lines, job lines written
-- otherwise than the layout, header lines with another line end.
CREATE TABLE IF NOT EXISTS verbatim_lines (
    log_id  INTEGER NOT NULL,
    line_no INTEGER NOT NULL,
    text    BLOB NOT NULL
);

-- Every rule the archive has used, at every version: the SQL as it was.
CREATE TABLE IF NOT EXISTS rules (
    name            VARCHAR NOT NULL,
    version         INTEGER NOT NULL,
    fingerprint     VARCHAR NOT NULL,   -- sha256 of the rule: normalized SQL, parameters, action, computed part
    sql             VARCHAR NOT NULL,   -- the file as read, header included
    sqlglot_version VARCHAR NOT NULL,
    rationale       VARCHAR NOT NULL,
    params          VARCHAR NOT NULL,   -- JSON: name -> {type, default, required, doc, range}
    file            VARCHAR NOT NULL,
    PRIMARY KEY (name, version)
);

-- One row per cleaned version: how it was built and whether it is published.
CREATE TABLE IF NOT EXISTS versions (
    log_id        INTEGER PRIMARY KEY,  -- the version's own row in logs
    name          VARCHAR NOT NULL UNIQUE, -- LOG@VERSION
    version       VARCHAR NOT NULL,
    base_log_id   INTEGER NOT NULL,     -- the original log
    source_log_id INTEGER NOT NULL,     -- what the first step reads: the original or a version
    recipe        VARCHAR NOT NULL,     -- the recipe's text
    recipe_hash   VARCHAR NOT NULL,
    wla_version   VARCHAR NOT NULL,
    built_at      TIMESTAMPTZ NOT NULL,
    build_seconds DOUBLE NOT NULL,
    published_at  TIMESTAMPTZ,
    published_sha256 VARCHAR
);

-- The steps of each version, in order, with the view each one is.
CREATE TABLE IF NOT EXISTS steps (
    version_id   INTEGER NOT NULL,
    step         INTEGER NOT NULL,
    rule         VARCHAR NOT NULL,
    rule_version INTEGER NOT NULL,
    fingerprint  VARCHAR NOT NULL,
    params       VARCHAR NOT NULL,      -- JSON of every parameter's value
    view_name    VARCHAR NOT NULL,
    jobs_in      BIGINT NOT NULL,
    dropped      BIGINT NOT NULL,
    changed      BIGINT NOT NULL,       -- jobs with at least one field changed
    note         VARCHAR,               -- what a computed rule reported
    PRIMARY KEY (version_id, step)
);

-- Every decision of every step: one row per dropped job and per changed field.
CREATE TABLE IF NOT EXISTS decisions (
    version_id   INTEGER NOT NULL,
    version      VARCHAR NOT NULL,      -- LOG@VERSION
    step         INTEGER NOT NULL,
    rule         VARCHAR NOT NULL,
    rule_version INTEGER NOT NULL,
    fingerprint  VARCHAR NOT NULL,
    line_no      INTEGER NOT NULL,      -- the job's line in the original file
    job          BIGINT NOT NULL,
    action       VARCHAR NOT NULL,      -- 'drop', 'modify' or 'recover'
    field        VARCHAR,
    old_value    DOUBLE,
    new_value    DOUBLE,
    reason       VARCHAR NOT NULL
);

-- Jobs a rule computed in Python (the capacity integer program) chose to
-- drop; the rule's SQL reads them, so the rule is still a view.
CREATE TABLE IF NOT EXISTS computed_drops (
    version_id INTEGER NOT NULL,
    step       INTEGER NOT NULL,
    line_no    INTEGER NOT NULL,
    reason     VARCHAR NOT NULL
);

-- Logs wla generated from another (logs.kind 'resampled'): the method, every
-- parameter and the seed as JSON, and the wla that made them.
CREATE TABLE IF NOT EXISTS derived_logs (
    log_id        INTEGER PRIMARY KEY,
    method        VARCHAR NOT NULL,
    source_log_id INTEGER NOT NULL,
    parameters    VARCHAR NOT NULL,
    wla_version   VARCHAR NOT NULL
);

-- Each job of a resampled log: the job of the source it copies, and the user
-- instance it belongs to, (source user, replica); rare marks the jobs of
-- rare-behavior users, which simulations do not measure.
CREATE TABLE IF NOT EXISTS resampled_jobs (
    log_id      INTEGER NOT NULL,
    job         BIGINT NOT NULL,
    source_line INTEGER NOT NULL,
    source_job  BIGINT NOT NULL,
    source_user BIGINT NOT NULL,
    replica     INTEGER NOT NULL,
    rare        BOOLEAN NOT NULL
);

-- The user's notes on a log (`wla note`): what they know of it that the
-- caveats wla ships do not say, each with the day it was noted. Keyed by the
-- original log's name, so that its versions read them too and a note
-- outlives the log's removal and ingest again under the same name.
CREATE TABLE IF NOT EXISTS notes (
    log       VARCHAR NOT NULL,
    seq       INTEGER NOT NULL,   -- the order the notes of a log were taken in
    noted_on  DATE    NOT NULL,
    text      VARCHAR NOT NULL,
    PRIMARY KEY (log, seq)
);
