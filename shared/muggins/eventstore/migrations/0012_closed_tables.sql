-- A table closed for good (TableClosed, muggins.domain.table_life): why, in the
-- lobby's read model, so that the lobby lists only live tables.  NULL while
-- the table is open.
ALTER TABLE tables ADD COLUMN IF NOT EXISTS closed_reason text;
