-- One item in many lists: the feeds whose item type declares a shared name hold one item per id,
-- so that a fresher copy written in any of them (a server page, a local update) replaces the copy in
-- every other, in the same transaction.
--
-- Each feed keeps its own row of the item (its place, page and section are the feed's own), and the
-- rows of one item are found by its id. A feed whose type does not share pays nothing: its rows stay
-- out of the index below, and the lookup is never made for it. Finding the rows by id costs a write
-- one more index entry in a B-tree ordered by id, not by feed, which a bulk load of many feeds pays
-- on nearly every row; so sharing is declared by the types that need it.
--
-- feed.shared_type   the name the feed's item type shares its items under (FeedItem.sharedItemType),
--                    written when the feed opens; NULL for a feed whose items are its own
-- item.copied_at     for a row of a feed that shares: when this copy of the item was written (ms since
--                    1970); a copy never replaces a newer one. NULL for a row of a feed that does not.
ALTER TABLE feed ADD COLUMN shared_type TEXT;
ALTER TABLE item ADD COLUMN copied_at INTEGER;
CREATE INDEX item_shared_by_id ON item (item_id) WHERE copied_at IS NOT NULL;
