-- 001: the measurement store.
-- Times are TEXT in a fixed-width UTC form (2006-01-02T15:04:05.000000Z):
-- sortable, readable in psql (cast with ::timestamptz) and in sqlite3.

CREATE TABLE commits (
    hash        TEXT PRIMARY KEY,
    subject     TEXT NOT NULL,
    author      TEXT NOT NULL,
    authored_at TEXT NOT NULL
);

-- An environment is the machine and server build a run was taken on; its id
-- is a fingerprint of the other columns, so equal machines share one row.
CREATE TABLE environments (
    id            TEXT PRIMARY KEY,
    cpu_model     TEXT NOT NULL,
    cores         BIGINT NOT NULL,
    memory_bytes  BIGINT NOT NULL,
    kernel        TEXT NOT NULL,
    build_options TEXT NOT NULL,
    created_at    TEXT NOT NULL
);

CREATE TABLE builds (
    id          TEXT PRIMARY KEY,
    commit_hash TEXT NOT NULL REFERENCES commits (hash),
    recipe_hash TEXT NOT NULL,
    tree_hash   TEXT NOT NULL,
    binary_hash TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    duration_ms BIGINT NOT NULL,
    log_path    TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX builds_tree ON builds (tree_hash, recipe_hash);
CREATE INDEX builds_binary ON builds (binary_hash);

CREATE TABLE runs (
    id             TEXT PRIMARY KEY,
    commit_hash    TEXT NOT NULL REFERENCES commits (hash),
    build_id       TEXT NOT NULL,
    workload       TEXT NOT NULL,
    config_hash    TEXT NOT NULL,
    config         TEXT NOT NULL,
    environment_id TEXT NOT NULL REFERENCES environments (id),
    tps            DOUBLE PRECISION NOT NULL,
    qps            DOUBLE PRECISION NOT NULL,
    latency_min_ms DOUBLE PRECISION NOT NULL,
    latency_avg_ms DOUBLE PRECISION NOT NULL,
    latency_p95_ms DOUBLE PRECISION NOT NULL,
    latency_max_ms DOUBLE PRECISION NOT NULL,
    started_at     TEXT NOT NULL,
    duration_ms    BIGINT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'crashed')),
    error_text     TEXT NOT NULL
);
CREATE INDEX runs_lookup ON runs (commit_hash, config_hash, environment_id);

-- One row a second of a run: the per-second TPS series.
CREATE TABLE run_points (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    second BIGINT NOT NULL,
    tps    DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (run_id, second)
);

CREATE TABLE bisects (
    id          TEXT PRIMARY KEY,
    request_key TEXT NOT NULL,
    request     TEXT NOT NULL,
    status      TEXT NOT NULL,
    result      TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX bisects_request ON bisects (request_key, created_at);

CREATE TABLE bisect_steps (
    bisect_id   TEXT NOT NULL REFERENCES bisects (id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,
    commit_hash TEXT NOT NULL,
    verdict     TEXT NOT NULL,
    samples     BIGINT NOT NULL,
    detail      TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (bisect_id, seq)
);
