-- 006: a run's other figures by name, as a JSON object (the
-- drop-table-stall workload stores longest_stall, drop_dip and
-- drop_duration beside the one it is bisected on); '' for none.
ALTER TABLE runs ADD COLUMN figures TEXT NOT NULL DEFAULT '';
