-- 005: the nightly tracker (perfbisect track / history).
-- A series is one branch measured with one workload, metric and
-- environment; series_points holds one point a night whose tip changed.
CREATE TABLE series_points (
    series      TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    branch      TEXT NOT NULL,
    metric      TEXT NOT NULL,
    night       TEXT NOT NULL,
    commit_hash TEXT NOT NULL,
    measured_at TEXT NOT NULL,
    samples     TEXT NOT NULL,
    value       DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (series, seq),
    UNIQUE (series, commit_hash)
);

-- A change point found in a series, keyed by the first point after it,
-- with the bisect it started and what that bisect named.
CREATE TABLE series_changes (
    series        TEXT NOT NULL,
    after_commit  TEXT NOT NULL,
    before_commit TEXT NOT NULL,
    direction     TEXT NOT NULL CHECK (direction IN ('regression', 'improvement')),
    change        DOUBLE PRECISION NOT NULL,
    p_value       DOUBLE PRECISION NOT NULL,
    status        TEXT NOT NULL,
    bisect_id     TEXT NOT NULL,
    culprits      TEXT NOT NULL,
    detail        TEXT NOT NULL,
    detected_at   TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    PRIMARY KEY (series, after_commit)
);

-- The ledger of filed issues: one row per culprit, workload, metric and
-- direction in a repository, so a culprit is filed exactly once and later
-- evidence becomes a comment on the same issue.
CREATE TABLE issue_ledger (
    repo         TEXT NOT NULL,
    culprit      TEXT NOT NULL,
    workload     TEXT NOT NULL,
    metric       TEXT NOT NULL,
    direction    TEXT NOT NULL,
    marker       TEXT NOT NULL,
    issue_number BIGINT NOT NULL,
    filings      BIGINT NOT NULL,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (repo, culprit, workload, metric, direction)
);
CREATE INDEX issue_ledger_marker ON issue_ledger (repo, marker);
