-- 003: one build row per source tree, recipe and resulting binary, so two
-- processes that build (or find built) the same tree record it once.
-- Duplicates stored before are merged: their runs move to the row kept
-- (the smallest id).
UPDATE runs SET build_id = (
    SELECT min(b2.id) FROM builds b1
    JOIN builds b2 ON b2.tree_hash = b1.tree_hash AND b2.recipe_hash = b1.recipe_hash
                  AND b2.binary_hash = b1.binary_hash
    WHERE b1.id = runs.build_id)
WHERE build_id IN (SELECT id FROM builds);
DELETE FROM builds WHERE id NOT IN (
    SELECT min(id) FROM builds GROUP BY tree_hash, recipe_hash, binary_hash);
CREATE UNIQUE INDEX builds_unique ON builds (tree_hash, recipe_hash, binary_hash);
