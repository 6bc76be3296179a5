-- 004: a run carries its metric. metric is 'tps' (throughput, the runs
-- before this migration) or 'instructions' (instructions per query under
-- callgrind); metric_value is the sample in that metric's unit (for TPS
-- runs, their tps); profile_path is an instructions sample's callgrind dump.
ALTER TABLE runs ADD COLUMN metric TEXT NOT NULL DEFAULT 'tps';
ALTER TABLE runs ADD COLUMN metric_value DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN profile_path TEXT NOT NULL DEFAULT '';
UPDATE runs SET metric_value = tps;
CREATE INDEX runs_metric ON runs (metric, commit_hash, config_hash, environment_id);
