-- One item in many lists: the feeds whose item type declares a shared name hold one item per id,
-- so that a copy written in any of them (a server page, a local or optimistic update) replaces the
-- copy in every other, in the same transaction.
--
-- Each feed keeps its own row of the item (its place, page and section are the feed's own), and the
-- rows of one item are found by its id through the partial index below. A feed whose type does not
-- share pays nothing: its rows stay out of the index and take no byte more. Finding the rows by id
-- costs a write of a feed that shares one more index entry per row, in a B-tree ordered by id rather
-- than by feed (about one more page written per row), which is why sharing is declared by the types
-- that need it.
--
-- feed.shared_type   the name the feed's item type shares its items under (FeedItem.sharedItemType),
--                    written when the feed opens; NULL for a feed whose items are its own
-- item.flags         item.local, renamed: what it held stays bit 0, and bit 1 joins it
--                    bit 0 (1)   the app inserted the row (Feed.insert, an optimistic insert): pages
--                                that skip it prove nothing (see 0005_local_items.sql)
--                    bit 1 (2)   the row is a copy of a shared item: its feed has a shared_type
ALTER TABLE feed ADD COLUMN shared_type TEXT;
ALTER TABLE item RENAME COLUMN local TO flags;
CREATE INDEX item_shared_by_id ON item (item_id) WHERE flags & 2;
