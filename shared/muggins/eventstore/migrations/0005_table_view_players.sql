-- The table-views read model keeps who sat where (GameStarted.players), so
-- its public views name the players and mark the bots.  Rebuild it
-- (muggins project table-views --rebuild) to fill this for games stored before.
ALTER TABLE table_views ADD COLUMN players jsonb NOT NULL DEFAULT '[]';
