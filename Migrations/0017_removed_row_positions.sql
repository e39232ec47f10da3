-- A removal rolled back (the server rejected it) puts the server's row back. Between the rows it
-- named around it the side of a gap is unknown: a gap may hang under rows a page wrote that pending
-- removals took away again, and the item stood among them or below the gap. The position its row
-- had when it was removed says, while it is free and still between those rows.
--
-- pending_edit, new column:
--   removed_position   for a removal, the position of the item's row when it was removed (by the
--                      user, or again by a page that listed it); NULL when not known
ALTER TABLE pending_edit ADD COLUMN removed_position INTEGER;
