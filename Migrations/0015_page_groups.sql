-- Row counts per group of pages, so that a row deep in a feed finds its index without summing one
-- count per page above it (PageStore+PageGroups.swift).
--
-- A feed has groups once a write needed a row index far down it; until then it has none and its
-- page writes add nothing. PagedStore keeps a feed's groups in the transaction of every write that
-- changes a page's rows. Writers that bypass it (sqlite3 by hand) drop the feed's groups through
-- triggers made with the first groups (their text is parsed on every open, which a file of short
-- feeds does not pay), and the next write that needs them counts them again.
--
-- page_group: the rows of a feed's pages whose page_no >> 6 is grp (pages of 64 numbers).
CREATE TABLE page_group (
    feed_id INTEGER NOT NULL,
    grp INTEGER NOT NULL,
    row_count INTEGER NOT NULL,
    PRIMARY KEY (feed_id, grp)
) STRICT, WITHOUT ROWID;
