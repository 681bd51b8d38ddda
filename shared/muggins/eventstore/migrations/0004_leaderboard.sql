-- Read model of the leaderboard projector.  Rebuildable at any time from the
-- events (muggins project leaderboard --rebuild).

-- Rated games: the last version counted (an event at or below it, delivered
-- again, is skipped) and, while the game is played, its tally so far
-- (muggins.projections.leaderboard.GameTally); NULL once it has been rated.
CREATE TABLE leaderboard_games (
    stream_id   text     PRIMARY KEY,
    version     integer  NOT NULL,
    tally       jsonb
);

-- One line per player per preset (muggins.projections.leaderboard.Standing).
CREATE TABLE leaderboard (
    preset      text              NOT NULL,
    player_id   text              NOT NULL,
    name        text              NOT NULL,
    bot         boolean           NOT NULL,
    mu          double precision  NOT NULL,
    sigma       double precision  NOT NULL,
    -- mu - 3 sigma: what the board is sorted by.
    rating      double precision  NOT NULL,
    games       integer           NOT NULL,
    won         integer           NOT NULL,
    drawn       integer           NOT NULL,
    hands       integer           NOT NULL,
    points      integer           NOT NULL,
    best_play   integer           NOT NULL,
    updated_at  timestamptz       NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (preset, player_id)
);
CREATE INDEX leaderboard_by_rating ON leaderboard (preset, rating DESC, player_id);
