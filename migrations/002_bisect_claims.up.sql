-- 002: a bisect is claimed by one process at a time.
-- owner is "host:pid:token" of the process working on it ('' when none);
-- heartbeat_at is when that process last said it is alive (same text form
-- as every time, '' when unowned). A claim whose heartbeat is older than a
-- few minutes, or whose process is gone from this host, may be taken over.
ALTER TABLE bisects ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE bisects ADD COLUMN heartbeat_at TEXT NOT NULL DEFAULT '';
CREATE INDEX bisects_owner ON bisects (request_key, owner);
