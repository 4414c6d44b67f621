-- The archive's tables. Run at every open of a writable archive; every
-- statement is idempotent. Column names of jobs follow archive/fields.py.

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
    machine_size_source VARCHAR             -- 'MaxProcs', 'MaxNodes', 'set' or NULL
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

-- Lines that lenient ingest set apart, with the reason.
CREATE TABLE IF NOT EXISTS rejects (
    log_id  INTEGER NOT NULL,
    line_no INTEGER NOT NULL,
    text    VARCHAR NOT NULL,
    reason  VARCHAR NOT NULL
);
