-- Games a player left and did not come back to (muggins.projections.leaderboard.abandon):
-- the leaderboard shows them beside the games played ("left 2 of 31 games").
ALTER TABLE leaderboard ADD COLUMN IF NOT EXISTS abandoned integer NOT NULL DEFAULT 0;
