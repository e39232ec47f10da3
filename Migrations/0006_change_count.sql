-- A counter of every write to a feed, so that a Feed can tell that another one (a second store, an
-- app extension, another process) wrote it, even when the write changed only an item's content and
-- left every other column of the feed's row as it was.
--
-- feed.change_count   bumped by every write of the engine that saves the feed's row; a Feed compares
--                     it with the value it last wrote or read before it reads or writes the feed.
ALTER TABLE feed ADD COLUMN change_count INTEGER NOT NULL DEFAULT 0;
