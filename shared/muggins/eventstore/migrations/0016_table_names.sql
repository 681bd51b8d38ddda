-- What people read for a table (muggins.tables.names), in the lobby's read
-- model: the first person who sat there (the table is "Ana's table" from
-- then on) and the preset it was made from (TableOpened.made_from: a
-- casual table's ruleset is "custom", its title still "All Fives · casual").
-- NULL until someone sits, and for tables opened before they were recorded.
ALTER TABLE tables ADD COLUMN IF NOT EXISTS host_name text;
ALTER TABLE tables ADD COLUMN IF NOT EXISTS made_from text;
