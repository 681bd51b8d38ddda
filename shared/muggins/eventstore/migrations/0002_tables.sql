-- Tables people sit at.  The games themselves are event streams
-- ("<table_id>-g<n>"); this is who sits where and how to recognise them.
CREATE TABLE tables (
    table_id            text        PRIMARY KEY,
    ruleset             jsonb       NOT NULL,
    turn_clock_seconds  integer     NOT NULL CHECK (turn_clock_seconds BETWEEN 1 AND 600),
    -- The game being played: 0 until every seat is taken; a rematch adds one.
    game_number         integer     NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE seats (
    table_id     text     NOT NULL REFERENCES tables (table_id),
    seat         integer  NOT NULL CHECK (seat >= 0),
    -- A bot seat from the start has its level here and no person.
    bot_level    text     CHECK (bot_level IN ('random', 'greedy')),
    name         text,
    player_id    uuid,
    -- SHA-256 of the seat token: the token itself is never stored.
    token_hash   bytea,
    -- A bot plays the seat now: a bot seat, or one that took over a person's.
    bot_playing  boolean  NOT NULL DEFAULT false,
    taken_at     timestamptz,
    PRIMARY KEY (table_id, seat)
);

-- A person recognised across tables without an account: the client keeps
-- the id and the secret; we keep the secret's SHA-256.
CREATE TABLE players (
    player_id    uuid        PRIMARY KEY,
    secret_hash  bytea       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT clock_timestamp()
);
