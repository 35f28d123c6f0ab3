-- The change log is pruned: entries older than its retention go, and `pruned_through`
-- is the last number gone. A replica whose position is before it cannot follow the log
-- and rebuilds from the items instead.
ALTER TABLE items_meta ADD COLUMN pruned_through bigint NOT NULL DEFAULT 0
    CHECK (pruned_through >= 0);
CREATE INDEX item_changes_at ON item_changes (at);
