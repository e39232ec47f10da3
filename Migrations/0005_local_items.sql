-- Rows the app inserted, told apart from rows a server listed.
--
-- A page that the server returned contiguously (a filled gap, a next page overlapping known rows)
-- proves that the cached server rows it skips were deleted on the server. Rows the app inserted
-- (Feed.insert, an optimistic insert) were never listed by the server, so a page skipping them
-- proves nothing: they stay.
--
-- item.local   1 for a row the app inserted; 0 for a row a server page (or a seed fixture) wrote.
ALTER TABLE item ADD COLUMN local INTEGER NOT NULL DEFAULT 0;

-- Rows an older build inserted are marked where the file still says so: an optimistic insert whose
-- call is still pending, and rows on a page of their own (inserted into a feed that had no page).
-- Other rows Feed.insert wrote before this migration cannot be told from server rows.
UPDATE item SET local = 1
WHERE EXISTS (
    SELECT 1 FROM pending_edit AS edit
    WHERE edit.feed_id = item.feed_id AND edit.item_id = item.item_id AND edit.kind = 'insert')
OR EXISTS (
    SELECT 1 FROM page
    WHERE page.feed_id = item.feed_id AND page.page_no = item.page_no AND page.request = 'local');
