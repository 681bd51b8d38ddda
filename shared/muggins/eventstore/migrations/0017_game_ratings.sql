-- Each rated game's rating changes (muggins.projections.leaderboard.rate):
-- what the game-over screen shows (GET /tables/{id}/games/{n}/ratings).
-- Written by the leaderboard projector in the transaction that records its
-- position, so a game's lines are there exactly once it has been folded;
-- rebuilt with the rest of the leaderboard.
CREATE TABLE IF NOT EXISTS leaderboard_game_ratings (
    stream_id   text              NOT NULL,
    player_id   text              NOT NULL,
    seat        integer           NOT NULL,
    name        text              NOT NULL,
    bot         boolean           NOT NULL,
    -- mu - 3 sigma before the game and after it.
    before      double precision  NOT NULL,
    after       double precision  NOT NULL,
    PRIMARY KEY (stream_id, player_id)
);
GRANT SELECT, INSERT, UPDATE, DELETE ON leaderboard_game_ratings TO muggins_service;
